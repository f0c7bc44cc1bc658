"""Importers of the neural-network ops: Gemm/MatMul (FULLY_CONNECTED or
BATCH_MATMUL), Conv (CONV_2D / DEPTHWISE_CONV_2D with a following inference
BatchNormalization folded into its filter and bias, and an activation
fused), the pools, BatchNormalization and Softmax.

Conv and the pools run in NHWC. ONNX's explicit pads become SAME where they
equal it; else a conv gets them in its options (padding EXPLICIT), except
a few-channel conv with a window over 3x3 (a 7x7 stem), which like the pools
gets an explicit PAD before a VALID op.
"""

import numpy as np

from converters.errors import NodeError as _NodeError
from converters.lowering import lite_window_options, same_pads
from converters.onnx_import.context import attrs, imports, nhwc_shape


@imports("Softmax", "LogSoftmax")
def _softmax(ctx, node):
    x, out = node.input[0], node.output[0]
    shape = ctx.shape(x)
    rank = len(shape)
    opcode = "SOFTMAX" if node.op_type == "Softmax" else "LOG_SOFTMAX"
    options = ("SoftmaxOptions", {"beta": 1.0})
    axis = attrs(node).get("axis", -1 if ctx.opset >= 13 else 1) % max(rank, 1)
    src = ctx.plain(x)
    if ctx.opset < 13 and axis != rank - 1:
        # Coerced to 2-D: [prod(shape[:axis]), prod(shape[axis:])].
        flat = [int(np.prod(shape[:axis])), int(np.prod(shape[axis:]))]
        a = ctx.intermediate(f"{out}/flat", flat, np.float32)
        b = ctx.intermediate(f"{out}/flat_softmax", flat, np.float32)
        ctx.builder.add_op("RESHAPE", [src, ctx.constant(f"{out}/flat_shape", np.array(flat, np.int32))], [a])
        ctx.builder.add_op(opcode, [a], [b], options)
        ctx.builder.add_op("RESHAPE", [b, ctx.constant(f"{out}/shape", np.array(shape, np.int32))], [ctx.output(out)])
        return
    if axis == rank - 1:
        ctx.builder.add_op(opcode, [src], [ctx.output(out)], options)
        return
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]  # a swap is its own inverse
    moved = [shape[p] for p in perm]
    p = ctx.constant(f"{out}/perm", np.array(perm, np.int32))
    a = ctx.intermediate(f"{out}/moved", moved, np.float32)
    b = ctx.intermediate(f"{out}/moved_softmax", moved, np.float32)
    ctx.builder.add_op("TRANSPOSE", [src, p], [a])
    ctx.builder.add_op(opcode, [a], [b], options)
    ctx.builder.add_op("TRANSPOSE", [b, p], [ctx.output(out)])


@imports("Gemm")
def _gemm(ctx, node):
    a = attrs(node)
    alpha, beta = a.get("alpha", 1.0), a.get("beta", 1.0)
    trans_a, trans_b = a.get("transA", 0), a.get("transB", 0)
    out = node.output[0]
    b_value = ctx.const(node.input[1])
    if b_value is None:
        raise _NodeError("B must be a constant")
    weights = (b_value if trans_b else b_value.T) * np.float32(alpha)  # [N, K]
    x = ctx.plain(node.input[0])
    if trans_a:
        m, k = ctx.shape(node.input[0])[::-1]
        t = ctx.intermediate(f"{out}/a_t", [m, k], np.float32)
        ctx.builder.add_op("TRANSPOSE", [x, ctx.constant(f"{out}/perm", np.array([1, 0], np.int32))], [t])
        x = t
    bias, extra = -1, None
    if len(node.input) > 2 and node.input[2]:
        c = ctx.const(node.input[2])
        n = weights.shape[0]
        if c is not None and c.size in (1, n) and (c.ndim < 2 or c.shape[0] == 1):
            bias = ctx.constant(
                f"{out}/bias", np.broadcast_to(c.reshape(-1) * np.float32(beta), [n]).astype(np.float32)
            )
        else:
            extra = node.input[2]
    activation, last = ("NONE", out) if extra else ctx.fuse_activation(out)
    w = ctx.constant(f"{out}/weights", np.ascontiguousarray(weights.astype(np.float32)))
    options = ("FullyConnectedOptions", {"fused_activation_function": activation})
    if extra is None:
        ctx.builder.add_op("FULLY_CONNECTED", [x, w, bias], [ctx.output(last)], options)
        return
    y = ctx.intermediate(f"{out}/ab", ctx.shape(out), np.float32)
    ctx.builder.add_op("FULLY_CONNECTED", [x, w, -1], [y], options)
    c = ctx.plain(extra)
    if beta != 1.0:
        scaled = ctx.intermediate(f"{out}/c", ctx.shape(extra), np.float32)
        ctx.builder.add_op(
            "MUL", [c, ctx.constant(f"{out}/beta", np.float32(beta))], [scaled], ("ArithmeticOptions", {})
        )
        c = scaled
    ctx.builder.add_op("ADD", [y, c], [ctx.output(out)], ("ArithmeticOptions", {}))


def _fuse_matmul_bias(ctx, out, n):
    """(bias tensor or -1, ONNX tensor after it): a following Add of a
    constant [n] (or [1, ..., n]) becomes FULLY_CONNECTED's bias, as
    PyTorch exports Linear on 3-d inputs as MatMul + Add."""
    add = ctx.sole_consumer(out, ("Add",))
    if add is None or len(add.input) != 2:
        return -1, out
    other = add.input[1] if add.input[0] == out else add.input[0]
    c = ctx.const(other)
    if c is None or other == out or c.dtype != np.float32 or c.size != n or c.shape[-1:] != (n,):
        return -1, out
    if c.ndim > ctx.rank(out):
        return -1, out
    ctx.absorbed.add(id(add))
    return ctx.constant(f"{add.output[0]}/bias", np.ascontiguousarray(c.reshape(n))), add.output[0]


@imports("MatMul")
def _matmul(ctx, node):
    a_name, b_name, out = node.input[0], node.input[1], node.output[0]
    b_value = ctx.const(b_name)
    a_rank = ctx.rank(a_name)
    if b_value is not None and b_value.ndim == 2 and a_rank >= 2:
        bias, last = _fuse_matmul_bias(ctx, out, b_value.shape[1])
        activation, last = ctx.fuse_activation(last)
        w = ctx.constant(f"{out}/weights", np.ascontiguousarray(b_value.T))
        options = ("FullyConnectedOptions", {"fused_activation_function": activation, "keep_num_dims": a_rank > 2})
        ctx.builder.add_op("FULLY_CONNECTED", [ctx.plain(a_name), w, bias], [ctx.output(last)], options)
        return
    if a_rank < 2 or ctx.rank(b_name) < 2:
        raise _NodeError("1-D MatMul operands are not supported by BATCH_MATMUL")
    ctx.builder.add_op(
        "BATCH_MATMUL", [ctx.plain(a_name), ctx.plain(b_name)], [ctx.output(out)], ("BatchMatMulOptions", {})
    )


def _pair(a, name):
    """Attr `name` of a 2-D window op: [h, w], [1, 1] when absent."""
    values = list(a.get(name, [1, 1]))
    if len(values) != 2:
        raise _NodeError(f"{name} {values} must have 2 values (only 2-D spatial ops are supported)")
    return values


def _same_padding(spatial, kernel, strides, dilations):
    """SAME's (before, after) padding of each spatial dim."""
    return [same_pads(size, k, s, d) for size, k, s, d in zip(spatial, kernel, strides, dilations)]


def _spatial_padding(ctx, node, x_shape, kernel, strides, dilations):
    """("SAME"|"VALID", explicit [top, left, bottom, right] pads or None)."""
    a = attrs(node)
    auto_pad = a.get("auto_pad", b"NOTSET")
    auto_pad = auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad
    same = _same_padding((x_shape[2], x_shape[3]), kernel, strides, dilations)
    if auto_pad == "VALID":
        return "VALID", None
    if auto_pad == "SAME_UPPER":
        return "SAME", None
    if auto_pad == "SAME_LOWER":
        pads = [same[0][1], same[1][1], same[0][0], same[1][0]]
    else:
        pads = list(a.get("pads", [0, 0, 0, 0]))
    if len(pads) != 4:
        raise _NodeError("only 2-D spatial ops are supported")
    if not any(pads):
        return "VALID", None
    if pads == [same[0][0], same[1][0], same[0][1], same[1][1]]:
        return "SAME", None
    return "VALID", pads


def _explicit_pad(ctx, out, x, nhwc_shape, pads, value=None):
    t, l, b, r = pads
    paddings = np.array([[0, 0], [t, b], [l, r], [0, 0]], np.int32)
    shape = [nhwc_shape[0], nhwc_shape[1] + t + b, nhwc_shape[2] + l + r, nhwc_shape[3]]
    padded = ctx.intermediate(f"{out}/padded", shape, np.float32)
    inputs = [x, ctx.constant(f"{out}/paddings", paddings)]
    if value is not None:
        inputs.append(ctx.constant(f"{out}/pad_value", np.array(value, np.float32)))
    ctx.builder.add_op("PAD", inputs, [padded])
    return padded


def _fold_batch_norm(ctx, out, filt, bias, channel_axis):
    """Folds a following inference BatchNormalization into filter and bias."""
    bn = ctx.sole_consumer(out, ("BatchNormalization",))
    if bn is None or len([o for o in bn.output if o]) != 1 or attrs(bn).get("training_mode", 0):
        return filt, bias, out
    params = [ctx.const(i) for i in bn.input[1:5]]
    if any(p is None for p in params):
        return filt, bias, out
    scale, offset, mean, var = (p.astype(np.float64) for p in params)
    s = scale / np.sqrt(var + attrs(bn).get("epsilon", 1e-5))
    shape = [1] * filt.ndim
    shape[channel_axis] = -1
    filt = (filt * s.reshape(shape)).astype(np.float32)
    bias = ((bias - mean) * s + offset).astype(np.float32)
    ctx.absorbed.add(id(bn))
    return filt, bias, bn.output[0]


@imports("Conv")
def _conv(ctx, node):
    a = attrs(node)
    x_name, out = node.input[0], node.output[0]
    weights = ctx.const(node.input[1])
    if weights is None:
        raise _NodeError("the weights must be a constant")
    if weights.ndim != 4:
        raise _NodeError(f"only 2-D convolutions are supported (weights rank {weights.ndim})")
    x_shape = ctx.shape(x_name)
    o, i_per_group, kh, kw = weights.shape
    group = a.get("group", 1)
    strides, dilations = _pair(a, "strides"), _pair(a, "dilations")
    padding, pads = _spatial_padding(ctx, node, x_shape, [kh, kw], strides, dilations)
    bias = ctx.const(node.input[2]) if len(node.input) > 2 and node.input[2] else np.zeros([o], np.float32)
    if bias is None:
        raise _NodeError("the bias must be a constant")
    weights, bias, last = _fold_batch_norm(ctx, out, weights.astype(np.float32), bias.astype(np.float64), 0)
    activation, last = ctx.fuse_activation(last)
    options = lite_window_options(padding, strides, dilations=dilations)
    options["fused_activation_function"] = activation
    c_in = x_shape[1]
    if group == 1:
        opcode, table = "CONV_2D", "Conv2DOptions"
        filt = weights.transpose(0, 2, 3, 1)  # OHWI
    elif group == c_in and i_per_group == 1 and o % c_in == 0:
        opcode, table = "DEPTHWISE_CONV_2D", "DepthwiseConv2DOptions"
        filt = weights.transpose(1, 2, 3, 0)  # [1, kh, kw, C * M]
        options["depth_multiplier"] = o // c_in
    else:
        raise _NodeError(f"grouped convolution (group={group}) is not supported")
    x = ctx.nhwc(x_name)
    if pads is not None and (opcode == "DEPTHWISE_CONV_2D" or c_in >= 16 or kh * kw <= 9):
        # Explicit pads in the conv's own options (padding EXPLICIT), not a
        # PAD op: the kernels clip their windows at the borders instead of
        # reading a padded copy (MobileNetV2's and ResNet's stride-2 convs
        # pad 1 on each side, which SAME on an even size does not: it pads 0
        # before). A CONV_2D with a window over 3x3 and fewer than 16 input
        # channels (ResNet's 7x7 stem) keeps PAD + VALID: the lite runtime's
        # unpadded-rows path, which needs a window that never leaves the
        # input, beats im2col there (7-9 against 10-13 ms at 224x224, 1
        # thread, loaded machine); MobileNetV2's 3x3 stem runs faster on
        # im2col (0.86 ms) than PAD + unpadded rows (0.5 + 0.95 ms).
        t, left, bottom, r = (int(p) for p in pads)
        options.update(padding="EXPLICIT", pad_top=t, pad_left=left, pad_bottom=bottom, pad_right=r)
        pads = None
    if pads is not None:
        x = _explicit_pad(ctx, out, x, nhwc_shape(x_shape), pads)
    f = ctx.constant(f"{out}/filter", np.ascontiguousarray(filt))
    b = ctx.constant(f"{out}/bias", bias.astype(np.float32))
    ctx.builder.add_op(opcode, [x, f, b], [ctx.output(last, nhwc=True)], (table, options))


@imports("MaxPool", "AveragePool")
def _pool(ctx, node):
    a = attrs(node)
    x_name, out = node.input[0], node.output[0]
    if len([o for o in node.output if o]) != 1:
        raise _NodeError("the Indices output is not supported")
    kernel = list(a["kernel_shape"])
    if len(kernel) != 2:
        raise _NodeError("only 2-D pooling is supported")
    if any(d != 1 for d in a.get("dilations", [1, 1])):
        raise _NodeError("dilated pooling is not supported")
    if a.get("storage_order", 0):
        raise _NodeError("storage_order=1 is not supported")
    strides = _pair(a, "strides")
    x_shape = ctx.shape(x_name)
    padding, pads = _spatial_padding(ctx, node, x_shape, kernel, strides, [1, 1])
    padded = [x_shape[2 + i] + (pads[i] + pads[i + 2] if pads else 0) for i in (0, 1)]
    if padding == "SAME":
        lowered = [-(-p // s) for p, s in zip(padded, strides)]
    else:
        lowered = [(p - k) // s + 1 for p, k, s in zip(padded, kernel, strides)]
    if lowered != ctx.shape(out)[2:]:
        raise _NodeError(
            f"output size {ctx.shape(out)[2:]} (ceil_mode) differs from the lite "
            f"pool's {lowered}: a partial last window is not supported"
        )
    is_max = node.op_type == "MaxPool"
    fill = None
    if pads is not None:
        if is_max:
            fill = float(np.finfo(np.float32).min)
        elif not a.get("count_include_pad", 0):
            raise _NodeError("explicit pads other than SAME with count_include_pad=0 are not supported")
        else:
            fill = 0.0
    elif padding == "SAME" and not is_max and a.get("count_include_pad", 0):
        # SAME in the lite runtime excludes padding; include it explicitly.
        (t, b), (l, r) = _same_padding(x_shape[2:], kernel, strides, [1, 1])
        pads, padding, fill = [t, l, b, r], "VALID", 0.0
    x = ctx.nhwc(x_name)
    if pads is not None:
        x = _explicit_pad(ctx, out, x, nhwc_shape(x_shape), pads, fill)
    options = lite_window_options(padding, strides, kernel=kernel)
    opcode = "MAX_POOL_2D" if is_max else "AVERAGE_POOL_2D"
    ctx.builder.add_op(opcode, [x], [ctx.output(out, nhwc=True)], ("Pool2DOptions", options))


@imports("GlobalAveragePool")
def _global_average_pool(ctx, node):
    if ctx.rank(node.input[0]) != 4:
        raise _NodeError("only 2-D pooling is supported")
    axes = ctx.constant(f"{node.output[0]}/axes", np.array([1, 2], np.int32))
    ctx.builder.add_op(
        "MEAN",
        [ctx.nhwc(node.input[0]), axes],
        [ctx.output(node.output[0], nhwc=True)],
        ("ReducerOptions", {"keep_dims": True}),
    )


@imports("BatchNormalization")
def _batch_norm(ctx, node):
    a = attrs(node)
    if a.get("training_mode", 0) or len([o for o in node.output if o]) != 1:
        raise _NodeError("training mode batch normalization cannot run at inference")
    scale, offset, mean, var = (
        ctx.require_const(node, i, w).astype(np.float64) for i, w in ((1, "scale"), (2, "B"), (3, "mean"), (4, "var"))
    )
    s = scale / np.sqrt(var + a.get("epsilon", 1e-5))
    b = offset - mean * s
    x, out = node.input[0], node.output[0]
    rank = ctx.rank(x)
    nhwc = ctx.is_nhwc(x) or rank == 4
    if nhwc:
        src, shape_c = ctx.nhwc(x), [-1]
    else:
        src, shape_c = ctx.plain(x), [-1] + [1] * (rank - 2)
    s_t = ctx.constant(f"{out}/scale", s.astype(np.float32).reshape(shape_c))
    b_t = ctx.constant(f"{out}/offset", b.astype(np.float32).reshape(shape_c))
    shape = nhwc_shape(ctx.shape(out)) if nhwc else ctx.shape(out)
    scaled = ctx.intermediate(f"{out}/scaled", shape, np.float32)
    ctx.builder.add_op("MUL", [src, s_t], [scaled], ("ArithmeticOptions", {}))
    ctx.builder.add_op("ADD", [scaled, b_t], [ctx.output(out, nhwc=nhwc)], ("ArithmeticOptions", {}))


@imports("Gelu")
def _gelu(ctx, node):
    approximate = attrs(node).get("approximate", "none")
    approximate = approximate.decode() if isinstance(approximate, bytes) else approximate
    if approximate not in ("none", "tanh"):
        raise _NodeError(f"approximate {approximate!r} is not 'none' or 'tanh'")
    if ctx.dtype(node.input[0]) != np.float32:
        raise _NodeError(f"input is {np.dtype(ctx.dtype(node.input[0]))}; GELU computes in float32")
    index, nhwc = ctx.value(node.input[0])
    options = ("GeluOptions", {"approximate": approximate == "tanh"})
    ctx.builder.add_op("GELU", [index], [ctx.output(node.output[0], nhwc=nhwc)], options)

"""Importers of the neural-network ops: Gemm/MatMul (FULLY_CONNECTED or
BATCH_MATMUL), BatchNormalization, LayerNormalization, Gelu and Softmax.
Conv, ConvTranspose and the pools are in conv_pool_ops.py.
"""

import numpy as np

from converters.errors import NodeError as _NodeError
from converters.onnx_import import run_time
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
        # Coerced to 2-D: [prod(shape[:axis]), prod(shape[axis:])], the side
        # with run-time dims (a dynamic batch) left to RESHAPE (-1).
        flat = [int(np.prod(shape[:axis])), int(np.prod(shape[axis:]))]
        sig = ctx.signature_of(x, shape) or shape
        dynamic = [-1 in sig[:axis], -1 in sig[axis:]]
        if all(dynamic):
            raise _NodeError(
                f"before opset 13 it works on the input flattened to 2-D at axis {axis}; "
                f"dims known only at run time on both sides of it ({sig}) are not supported"
            )
        target = [-1 if d else n for d, n in zip(dynamic, flat)]
        flat_sig = target if any(dynamic) else None
        a = ctx.builder.add_tensor(f"{out}/flat", flat, np.float32, flat_sig)
        b = ctx.builder.add_tensor(f"{out}/flat_softmax", flat, np.float32, flat_sig)
        ctx.builder.add_op("RESHAPE", [src, ctx.constant(f"{out}/flat_shape", np.array(target, np.int32))], [a])
        ctx.builder.add_op(opcode, [a], [b], options)
        back = run_time.shape_of(ctx, x) if any(dynamic) else ctx.constant(f"{out}/shape", np.array(shape, np.int32))
        ctx.builder.add_op("RESHAPE", [b, back], [ctx.output(out)])
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
    activation, last = ("NONE", out) if extra else ctx.fuse_activation(out, gelu=True)
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
        activation, last = ctx.fuse_activation(last, gelu=True)
        w = ctx.constant(f"{out}/weights", np.ascontiguousarray(b_value.T))
        options = ("FullyConnectedOptions", {"fused_activation_function": activation, "keep_num_dims": a_rank > 2})
        ctx.builder.add_op("FULLY_CONNECTED", [ctx.plain(a_name), w, bias], [ctx.output(last)], options)
        return
    if a_rank < 2 or ctx.rank(b_name) < 2:
        _matmul_1d(ctx, a_name, b_name, out)
        return
    ctx.builder.add_op(
        "BATCH_MATMUL", [ctx.plain(a_name), ctx.plain(b_name)], [ctx.output(out)], ("BatchMatMulOptions", {})
    )


def _matmul_1d(ctx, a_name, b_name, out):
    """MatMul with a 1-D operand, as numpy: a 1-D `a` is a row [1, K], a 1-D
    `b` a column [K, 1]; BATCH_MATMUL of those, then the added dim(s) are
    dropped by a RESHAPE to the ONNX output's shape."""
    a_rank, b_rank = ctx.rank(a_name), ctx.rank(b_name)
    if ctx.dtype(a_name) != ctx.dtype(b_name):
        raise _NodeError(f"operands are {np.dtype(ctx.dtype(a_name))} and {np.dtype(ctx.dtype(b_name))}")
    dtype = ctx.dtype(a_name)
    mm_shape = list(ctx.shape(out))
    if b_rank == 1:
        mm_shape.append(1)
    if a_rank == 1:
        mm_shape.insert(len(mm_shape) - 1, 1)

    def as_matrix(name, shape, what):
        index = ctx.plain(name)
        if ctx.rank(name) != 1:
            return index
        t = ctx.intermediate(f"{out}/{what}", shape, dtype)
        dims = ctx.constant(f"{out}/{what}_shape", np.array(shape, np.int32))
        ctx.builder.add_op("RESHAPE", [index, dims], [t])
        return t

    (k,) = ctx.shape(a_name)[-1:] if a_rank == 1 else ctx.shape(b_name)[:1]
    a = as_matrix(a_name, [1, k], "row")
    b = as_matrix(b_name, [k, 1], "column")
    mm = ctx.intermediate(f"{out}/matmul", mm_shape, dtype, like=out)
    ctx.builder.add_op("BATCH_MATMUL", [a, b], [mm], ("BatchMatMulOptions", {}))
    target = list(ctx.shape(out))
    if not target:  # 1-D x 1-D: a scalar
        options = ("SqueezeOptions", {"squeeze_dims": [0, 1]})
        ctx.builder.add_op("SQUEEZE", [mm], [ctx.output(out)], options)
        return
    sig = ctx.signature_of(out, target)
    if sig and sig.count(-1) == 1:  # the dynamic batch is inferred
        target[sig.index(-1)] = -1
    dims = ctx.constant(f"{out}/shape", np.array(target, np.int32))
    ctx.builder.add_op("RESHAPE", [mm, dims], [ctx.output(out)])


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

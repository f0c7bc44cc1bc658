"""Importers of the window ops, all run in NHWC: Conv (CONV_2D,
DEPTHWISE_CONV_2D, or one CONV_2D per group joined by CONCATENATION; a
following inference BatchNormalization folded into filter and bias, an
activation fused), ConvTranspose (TRANSPOSE_CONV), MaxPool / AveragePool /
LpPool (MAX_POOL_2D / AVERAGE_POOL_2D / LP_POOL_2D with explicit pads,
dilation, count_include_pad, ceil_mode), GlobalAveragePool (MEAN) and
GlobalLpPool (LP_POOL_2D over the whole image).

1-D ops run as 2-D ones of height 1: [N, C, W] becomes [N, 1, W, C] and the
result goes back to ONNX's layout; 3-D pools as two 2-D pools (_pool_3d).
Conv's explicit pads become SAME where they equal it, else the conv's own
explicit padding (padding EXPLICIT) — except grouped convs, which get a PAD
before a VALID conv; the pools take explicit pads. A 3-D Conv is a CONV_2D per depth
tap of its kernel, added up (_conv_3d; grouped: its weights block-diagonal); a 3-D
ConvTranspose a TRANSPOSE_CONV per depth tap, each spread and shifted along the
depth, added up (_conv_transpose_3d).
"""

import numpy as np

from converters.errors import NodeError as _NodeError
from converters.lowering import lite_window_options, plane_transpose_conv_options, same_pads, transposed_depth_taps
from converters.onnx_import.context import attrs, imports

_POOL_OPCODES = {"MaxPool": "MAX_POOL_2D", "AveragePool": "AVERAGE_POOL_2D", "LpPool": "LP_POOL_2D"}


def _as_2d(values, n, fill):
    """A 1-D op's per-dim `values` as 2-D ones (height `fill`)."""
    return [fill] * (2 - n) + list(values)


class _Window:
    """A window op's spatial attributes, as 2-D [h, w] lists."""

    def __init__(self, ctx, node, a, kernel):
        self.x_shape = ctx.shape(node.input[0])
        n = len(self.x_shape) - 2
        if n not in (1, 2) or len(kernel) != n:
            raise _NodeError(f"only 1-D and 2-D {node.op_type} is supported (input rank {n + 2})")
        if "kernel_shape" in a and list(a["kernel_shape"]) != list(kernel):
            raise _NodeError(f"kernel_shape {list(a['kernel_shape'])} is not the weights' spatial shape {list(kernel)}")
        self.n = n

        def spatial(name, fill):
            values = list(a.get(name, [fill] * n))
            if len(values) != n:
                raise _NodeError(f"{name} {values} must have {n} values")
            return _as_2d(values, n, fill)

        self.in_hw = _as_2d(self.x_shape[2:], n, 1)
        self.kernel = _as_2d(kernel, n, 1)
        self.strides = spatial("strides", 1)
        self.dilations = spatial("dilations", 1)
        for name, values in (("strides", self.strides), ("dilations", self.dilations)):
            if any(v < 1 for v in values):
                raise _NodeError(f"{name} {values} must be positive")
        pads = list(a.get("pads", [0] * 2 * n))
        if len(pads) != 2 * n:
            raise _NodeError(f"pads {pads} must have {2 * n} values")
        self.auto_pad = a.get("auto_pad", b"NOTSET")
        self.auto_pad = self.auto_pad.decode() if isinstance(self.auto_pad, bytes) else self.auto_pad
        self.same = [same_pads(*v) for v in zip(self.in_hw, self.kernel, self.strides, self.dilations)]
        upper = [self.same[0][0], self.same[1][0], self.same[0][1], self.same[1][1]]
        if self.auto_pad == "VALID":
            self.pads = [0, 0, 0, 0]
        elif self.auto_pad == "SAME_UPPER":
            self.pads = upper
        elif self.auto_pad == "SAME_LOWER":
            self.pads = upper[2:] + upper[:2]
        else:
            self.pads = _as_2d(pads[:n], n, 0) + _as_2d(pads[n:], n, 0)
        self.is_same_upper = self.pads == upper
        # Spatial dims known only at run time: SAME's pads there depend on the
        # size unless every stride is 1, so explicit pads are kept, and
        # auto_pad SAME_UPPER (tf2onnx's for a model of unknown image size)
        # must be the lite SAME, which pads each size as SAME_UPPER does.
        sig = ctx.signature_of(node.input[0], self.x_shape) or []
        self.run_time_spatial = -1 in sig[2:]
        self.same_required = False
        if self.run_time_spatial and self.strides != [1, 1]:
            if self.auto_pad == "SAME_LOWER":
                raise _NodeError(
                    f"auto_pad SAME_LOWER with strides {self.strides} over spatial dims known only at run time "
                    "(the lite SAME padding puts the odd element after, as SAME_UPPER does)"
                )
            self.is_same_upper = self.same_required = self.auto_pad == "SAME_UPPER"

    def padding(self, same_allowed=True):
        """("SAME"|"VALID", explicit [top, left, bottom, right] pads or None)."""
        if self.same_required:
            if not same_allowed:
                raise _NodeError(
                    f"auto_pad SAME_UPPER with strides {self.strides} over spatial dims known only at run time "
                    "needs the lite SAME padding, which count_include_pad / ceil_mode cannot take"
                )
            return "SAME", None
        if not any(self.pads):
            return "VALID", None
        if same_allowed and self.is_same_upper:
            return "SAME", None
        return "VALID", self.pads

    def nhwc_input(self, ctx, x_name, out):
        """The input in NHWC (a 1-D op's [N, C, W] as [N, 1, W, C])."""
        if self.n == 2:
            return ctx.nhwc(x_name)
        n, c, w = self.x_shape
        dtype = ctx.dtype(x_name)
        perm = ctx.constant(f"{out}/to_nwc", np.array([0, 2, 1], np.int32))
        if self.run_time_spatial:  # a run-time length: EXPAND_DIMS, not a RESHAPE to it
            sig = ctx.signature_of(x_name, self.x_shape)
            nwc = ctx.builder.add_tensor(f"{out}/nwc_in", [n, w, c], dtype, [sig[0], sig[2], sig[1]])
            ctx.builder.add_op("TRANSPOSE", [ctx.plain(x_name), perm], [nwc])
            x = ctx.builder.add_tensor(f"{out}/nhwc_in", [n, 1, w, c], dtype, [sig[0], 1, sig[2], sig[1]])
            ctx.builder.add_op("EXPAND_DIMS", [nwc, ctx.constant(f"{out}/axis1", np.array(1, np.int32))], [x])
            return x
        nwc = ctx.intermediate(f"{out}/nwc_in", [n, w, c], dtype, like=x_name)
        ctx.builder.add_op("TRANSPOSE", [ctx.plain(x_name), perm], [nwc])
        x = ctx.intermediate(f"{out}/nhwc_in", [n, 1, w, c], dtype, like=x_name)
        shape = ctx.constant(f"{out}/in_shape", np.array([-1, 1, w, c], np.int32))
        ctx.builder.add_op("RESHAPE", [nwc, shape], [x])
        return x

    def out_nhwc_shape(self, ctx, name):
        shape = ctx.shape(name)
        return [shape[0]] + _as_2d(shape[2:], self.n, 1) + [shape[1]]

    def emit(self, ctx, opcode, inputs, last, options, extra=(), version=1):
        """Adds the window op writing ONNX tensor `last` and the `extra`
        outputs (2-D only; a 1-D op's result is reshaped and transposed back
        to [N, C, W])."""
        if self.n == 2:
            outputs = [ctx.output(name, nhwc=True) for name in (last, *extra)]
            ctx.builder.add_op(opcode, inputs, outputs, options, version)
            return
        if extra:
            raise _NodeError(f"only 2-D {opcode} has more than one output")
        n, c, w = ctx.shape(last)
        dtype = ctx.dtype(last)
        sig = ctx.signature_of(last, [n, c, w])
        if sig and sig[2] == -1:  # a run-time length: SQUEEZE, not a RESHAPE to it
            y = ctx.builder.add_tensor(f"{last}/nhwc_out", [n, 1, w, c], dtype, [sig[0], 1, -1, c])
            ctx.builder.add_op(opcode, inputs, [y], options, version)
            nwc = ctx.builder.add_tensor(f"{last}/nwc_out", [n, w, c], dtype, [sig[0], -1, c])
            ctx.builder.add_op("SQUEEZE", [y], [nwc], ("SqueezeOptions", {"squeeze_dims": [1]}))
        else:
            y = ctx.intermediate(f"{last}/nhwc_out", [n, 1, w, c], dtype, like=last)
            ctx.builder.add_op(opcode, inputs, [y], options, version)
            nwc = ctx.intermediate(f"{last}/nwc_out", [n, w, c], dtype, like=last)
            shape = ctx.constant(f"{last}/nwc_shape", np.array([-1, w, c], np.int32))
            ctx.builder.add_op("RESHAPE", [y, shape], [nwc])
        perm = ctx.constant(f"{last}/to_ncw", np.array([0, 2, 1], np.int32))
        ctx.builder.add_op("TRANSPOSE", [nwc, perm], [ctx.output(last)])


def _explicit_pad(ctx, out, x, shape, pads):
    """PAD with zeros of NHWC `x` of `shape` by [top, left, bottom, right]."""
    t, l, b, r = pads
    paddings = np.array([[0, 0], [t, b], [l, r], [0, 0]], np.int32)
    padded = ctx.intermediate(f"{out}/padded", [shape[0], shape[1] + t + b, shape[2] + l + r, shape[3]], np.float32)
    ctx.builder.add_op("PAD", [x, ctx.constant(f"{out}/paddings", paddings)], [padded])
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


def _constant_weights(ctx, node, what, ranks=(3, 4)):
    """(weights as float32, bias or None) of a Conv/ConvTranspose."""
    weights = ctx.const(node.input[1])
    if weights is None:
        raise _NodeError("the weights must be a constant")
    if weights.ndim not in ranks:
        dims = "1-D, 2-D and 3-D" if 5 in ranks else "1-D and 2-D"
        raise _NodeError(f"only {dims} {what} is supported (weights rank {weights.ndim})")
    if ctx.dtype(node.input[0]) != np.float32:
        raise _NodeError(f"input is {np.dtype(ctx.dtype(node.input[0]))}; {what} computes in float32")
    bias = None
    if len(node.input) > 2 and node.input[2]:
        bias = ctx.const(node.input[2])
        if bias is None:
            raise _NodeError("the bias must be a constant")
        # ONNX: Conv's W is [M, C/group, ...], ConvTranspose's [C, M/group, ...]; B is [M].
        out_channels = weights.shape[0] if what == "Conv" else weights.shape[1] * attrs(node).get("group", 1)
        if bias.shape != (out_channels,):
            raise _NodeError(f"bias of shape {list(bias.shape)} is not one value per output channel ({out_channels})")
    return weights.astype(np.float32), bias


@imports("Conv")
def _conv(ctx, node):
    a = attrs(node)
    x_name, out = node.input[0], node.output[0]
    weights, bias = _constant_weights(ctx, node, "Conv", ranks=(3, 4, 5))
    if weights.ndim == 5:
        _conv_3d(ctx, node, a, weights, bias)
        return
    w = _Window(ctx, node, a, weights.shape[2:])
    weights = weights.reshape(weights.shape[:2] + tuple(w.kernel))
    o, i_per_group = weights.shape[:2]
    group = a.get("group", 1)
    c_in = w.x_shape[1]
    if group < 1 or c_in != i_per_group * group or o % group:
        raise _NodeError(f"group {group} does not divide {c_in} input and {o} output channels")
    padding, pads = w.padding()
    bias = np.zeros([o], np.float64) if bias is None else bias.astype(np.float64)
    weights, bias, last = _fold_batch_norm(ctx, out, weights, bias, 0)
    activation, last = ctx.fuse_activation(last)
    options = lite_window_options(padding, w.strides, dilations=w.dilations)
    options["fused_activation_function"] = activation
    x = w.nhwc_input(ctx, x_name, out)
    depthwise = group == c_in and i_per_group == 1
    if pads is not None and (group == 1 or depthwise):
        # Explicit pads in the conv's own options (padding EXPLICIT), not a
        # PAD op: the kernels clip their windows at the borders instead of
        # reading a padded copy (MobileNetV2's and ResNet's stride-2 convs
        # pad 1 on each side, which SAME on an even size does not: it pads 0
        # before), the stems included (the lite runtime's in-place rows
        # path skips the taps in the padding).
        t, left, bottom, r = (int(p) for p in pads)
        options.update(padding="EXPLICIT", pad_top=t, pad_left=left, pad_bottom=bottom, pad_right=r)
        pads = None
    if pads is not None:
        x = _explicit_pad(ctx, out, x, [w.x_shape[0]] + w.in_hw + [c_in], pads)
    if group == 1 or depthwise:
        if group == 1:
            opcode, table, filt = "CONV_2D", "Conv2DOptions", weights.transpose(0, 2, 3, 1)  # OHWI
        else:
            opcode, table = "DEPTHWISE_CONV_2D", "DepthwiseConv2DOptions"
            filt = weights.transpose(1, 2, 3, 0)  # [1, kh, kw, C * M]
            options["depth_multiplier"] = o // c_in
        f = ctx.constant(f"{out}/filter", np.ascontiguousarray(filt))
        b = ctx.constant(f"{out}/bias", bias.astype(np.float32))
        w.emit(ctx, opcode, [x, f, b], last, (table, options))
        return
    # Grouped: one CONV_2D per group on its slice of the channels.
    out_shape = w.out_nhwc_shape(ctx, out)
    og = o // group
    parts = []
    for g in range(group):
        begin = ctx.constant(f"{out}/begin{g}", np.array([0, 0, 0, g * i_per_group], np.int32))
        end = ctx.constant(f"{out}/end{g}", np.array([0, 0, 0, (g + 1) * i_per_group], np.int32))
        ones = ctx.constant(f"{out}/strides{g}", np.ones([4], np.int32))
        part_in = ctx.intermediate(
            f"{out}/group{g}_in",
            [w.x_shape[0], *ctx.builder.tensor(x).shape[1:3], i_per_group],
            np.float32,
            like=x_name,
        )
        ctx.builder.add_op(
            "STRIDED_SLICE",
            [x, begin, end, ones],
            [part_in],
            ("StridedSliceOptions", {"begin_mask": 7, "end_mask": 7}),
        )
        filt = weights[g * og : (g + 1) * og].transpose(0, 2, 3, 1)
        f = ctx.constant(f"{out}/filter{g}", np.ascontiguousarray(filt))
        b = ctx.constant(f"{out}/bias{g}", bias[g * og : (g + 1) * og].astype(np.float32))
        part = ctx.intermediate(f"{out}/group{g}", out_shape[:3] + [og], np.float32, like=x_name)
        ctx.builder.add_op("CONV_2D", [part_in, f, b], [part], ("Conv2DOptions", options))
        parts.append(part)
    w.emit(ctx, "CONCATENATION", parts, last, ("ConcatenationOptions", {"axis": 3}))


def _pads_3d(a, size, kernel, strides, dilations):
    """ONNX's [d, h, w begins, d, h, w ends] of a 3-D window op, from pads or auto_pad."""
    auto_pad = a.get("auto_pad", b"NOTSET")
    auto_pad = auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad
    if auto_pad == "VALID":
        return [0] * 6
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        same = [same_pads(*v) for v in zip(size, kernel, strides, dilations)]
        return [s[auto_pad == "SAME_LOWER"] for s in same] + [s[auto_pad == "SAME_UPPER"] for s in same]
    return list(a.get("pads", [0] * 6))


def _conv_3d(ctx, node, a, weights, bias):
    """A 3-D Conv as one CONV_2D per depth tap of the kernel, on the NDHWC input with the depth folded into the
    batch: tap k reads the depth slices k * dilation + stride * j (j < the output depth), and the taps' outputs
    add up (the bias in the first). H and W pads are the convs' own (EXPLICIT); depth pads a PAD. Grouped (torch's
    Conv3d(groups=g), depthwise too): the weights block-diagonal over the groups' channels (zeros elsewhere)."""
    x_name, out = node.input[0], node.output[0]
    n, c, *size = ctx.shape(x_name)
    o, c_in, *kernel = weights.shape
    group = a.get("group", 1)
    if group < 1 or c_in * group != c or o % group:
        raise _NodeError(f"group {group} does not divide {c} input and {o} output channels (weights {c_in} per group)")
    if group > 1:
        dense = np.zeros([o, c, *kernel], np.float32)
        og = o // group
        for g in range(group):
            dense[g * og : (g + 1) * og, g * c_in : (g + 1) * c_in] = weights[g * og : (g + 1) * og]
        weights, c_in = dense, c
    strides, dilations = list(a.get("strides", [1] * 3)), list(a.get("dilations", [1] * 3))
    pads = _pads_3d(a, size, kernel, strides, dilations)
    got = [(size[i] + pads[i] + pads[i + 3] - (kernel[i] - 1) * dilations[i] - 1) // strides[i] + 1 for i in range(3)]
    if got != ctx.shape(out)[2:]:
        raise _NodeError(f"output size {ctx.shape(out)[2:]} differs from the lite convs' {got}")
    bias = np.zeros([o], np.float64) if bias is None else bias.astype(np.float64)
    weights, bias, last = _fold_batch_norm(ctx, out, weights, bias, 0)
    (d, h, w), (d2, h2, w2) = size, got
    x = ctx.intermediate(f"{out}/ndhwc", [n, d, h, w, c], np.float32, like=x_name)
    perm = ctx.constant(f"{out}/to_ndhwc", np.array([0, 2, 3, 4, 1], np.int32))
    ctx.builder.add_op("TRANSPOSE", [ctx.plain(x_name), perm], [x])
    if pads[0] or pads[3]:
        d += pads[0] + pads[3]
        padded = ctx.intermediate(f"{out}/depth_padded", [n, d, h, w, c], np.float32, like=x_name)
        paddings = np.array([[0, 0], [pads[0], pads[3]], [0, 0], [0, 0], [0, 0]], np.int32)
        ctx.builder.add_op("PAD", [x, ctx.constant(f"{out}/depth_paddings", paddings)], [padded])
        x = padded
    options = lite_window_options("VALID", strides[1:], dilations=dilations[1:])
    options.update(padding="EXPLICIT", pad_top=pads[1], pad_left=pads[2], pad_bottom=pads[4], pad_right=pads[5])
    total = None
    for k in range(kernel[0]):
        start = k * dilations[0]
        begin = ctx.constant(f"{out}/tap{k}_begin", np.array([0, start, 0, 0, 0], np.int32))
        end = ctx.constant(f"{out}/tap{k}_end", np.array([0, start + (d2 - 1) * strides[0] + 1, 0, 0, 0], np.int32))
        step = ctx.constant(f"{out}/tap{k}_strides", np.array([1, strides[0], 1, 1, 1], np.int32))
        taken = ctx.intermediate(f"{out}/tap{k}_slices", [n, d2, h, w, c], np.float32, like=x_name)
        mask = ("StridedSliceOptions", {"begin_mask": 0b11101, "end_mask": 0b11101})
        ctx.builder.add_op("STRIDED_SLICE", [x, begin, end, step], [taken], mask)
        folded = ctx.intermediate(f"{out}/tap{k}_folded", [n * d2, h, w, c], np.float32, like=x_name)
        shape = ctx.constant(f"{out}/tap{k}_shape", np.array([-1, h, w, c], np.int32))
        ctx.builder.add_op("RESHAPE", [taken, shape], [folded])
        f = ctx.constant(f"{out}/tap{k}_filter", np.ascontiguousarray(weights[:, :, k].transpose(0, 2, 3, 1)))
        b = ctx.constant(f"{out}/tap{k}_bias", (bias if k == 0 else np.zeros_like(bias)).astype(np.float32))
        conv = ctx.intermediate(f"{out}/tap{k}", [n * d2, h2, w2, o], np.float32, like=x_name)
        ctx.builder.add_op("CONV_2D", [folded, f, b], [conv], ("Conv2DOptions", dict(options)))
        if total is not None:
            summed = ctx.intermediate(f"{out}/taps{k}", [n * d2, h2, w2, o], np.float32, like=x_name)
            ctx.builder.add_op("ADD", [total, conv], [summed], ("ArithmeticOptions", {}))
            conv = summed
        total = conv
    result = ctx.intermediate(f"{out}/ndhwc_out", [n, d2, h2, w2, o], np.float32, like=x_name)
    shape = ctx.constant(f"{out}/out_shape", np.array([-1, d2, h2, w2, o], np.int32))
    ctx.builder.add_op("RESHAPE", [total, shape], [result])
    perm = ctx.constant(f"{out}/to_ncdhw", np.array([0, 4, 1, 2, 3], np.int32))
    ctx.builder.add_op("TRANSPOSE", [result, perm], [ctx.output(last)])


def _transposed_begins(a, in_size, out_size, kernel, strides, dilations, pads, auto_pad):
    """The offset of the first tap per spatial dim of a ConvTranspose: its pads, or from output_shape / SAME as
    ONNX defines it."""
    output_padding = list(a.get("output_padding", [0] * len(kernel)))
    begins = []
    for i in range(len(kernel)):
        if "output_shape" in a or auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            effective = (kernel[i] - 1) * dilations[i] + 1
            total = strides[i] * (in_size[i] - 1) + output_padding[i] + effective - out_size[i]
            begins.append(total // 2 if auto_pad == "SAME_UPPER" else total - total // 2)
        elif auto_pad == "VALID":
            begins.append(0)
        else:
            begins.append(pads[i])
    return begins


def _conv_transpose_3d(ctx, node, a, weights, bias):
    """A 3-D ConvTranspose: per depth tap k of the kernel one TRANSPOSE_CONV over (H, W) of the NDHWC input with
    its depth folded into the batch (groups kept); input depth j lands on output depth j * stride + k * dilation
    - the depth's first pad, so each tap's result is spread, shifted and added (lowering.transposed_depth_taps),
    then the bias."""
    x_name, out = node.input[0], node.output[0]
    n, c, d, h, w = ctx.shape(x_name)
    c_w, og, *kernel = weights.shape
    group = a.get("group", 1)
    if group < 1 or c_w != c or c % group:
        raise _NodeError(f"group {group} does not divide {c} input channels (weights {c_w})")
    strides, dilations = list(a.get("strides", [1] * 3)), list(a.get("dilations", [1] * 3))
    auto_pad = a.get("auto_pad", b"NOTSET")
    auto_pad = auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad
    out_size = ctx.shape(out)[2:]
    sig = ctx.signature_of(x_name, [n, c, d, h, w]) or []
    if None in out_size or None in (d, h, w) or -1 in sig[2:]:
        raise _NodeError(f"3-D ConvTranspose needs static sizes (input {sig or [d, h, w]}, output {out_size})")
    begins = _transposed_begins(
        a, [d, h, w], out_size, kernel, strides, dilations, list(a.get("pads", [0] * 6)), auto_pad
    )
    d2, h2, w2 = out_size
    co = og * group
    x = ctx.intermediate(f"{out}/ndhwc", [n, d, h, w, c], np.float32, like=x_name)
    ctx.builder.add_op(
        "TRANSPOSE", [ctx.plain(x_name), ctx.constant(f"{out}/to_ndhwc", np.array([0, 2, 3, 4, 1], np.int32))], [x]
    )
    folded = ctx.intermediate(f"{out}/folded", [n * d, h, w, c], np.float32, like=x_name)
    ctx.builder.add_op("RESHAPE", [x, ctx.constant(f"{out}/folded_shape", np.array([-1, h, w, c], np.int32))], [folded])
    options = {**plane_transpose_conv_options(strides, dilations, begins, h2, w2), "group": group}
    zeros = ctx.constant(f"{out}/zero_bias", np.zeros([co], np.float32))
    taps = []
    for k in range(kernel[0]):
        # [C, O/G, kh, kw] of tap k -> [G, C/G, kh, kw, O/G]
        filt = weights[:, :, k].reshape(group, c // group, og, *kernel[1:]).transpose(0, 1, 3, 4, 2)
        f = ctx.constant(f"{out}/tap{k}_filter", np.ascontiguousarray(filt))
        planes = ctx.intermediate(f"{out}/tap{k}", [n * d, h2, w2, co], np.float32, like=x_name)
        ctx.builder.add_op("TRANSPOSE_CONV", [folded, f, zeros], [planes], ("TransposeConvOptions", dict(options)))
        taps.append(planes)
    total = transposed_depth_taps(ctx, out, x_name, taps, n, d, d2, h2 * w2 * co, strides[0], dilations[0], begins[0])
    result = ctx.intermediate(f"{out}/ndhwc_out", [n, d2, h2, w2, co], np.float32, like=x_name)
    ctx.builder.add_op(
        "RESHAPE", [total, ctx.constant(f"{out}/out_shape", np.array([-1, d2, h2, w2, co], np.int32))], [result]
    )
    if bias is not None:
        biased = ctx.intermediate(f"{out}/biased", [n, d2, h2, w2, co], np.float32, like=x_name)
        b = ctx.constant(f"{out}/bias", bias.astype(np.float32))
        ctx.builder.add_op("ADD", [result, b], [biased], ("ArithmeticOptions", {}))
        result = biased
    perm = ctx.constant(f"{out}/to_ncdhw", np.array([0, 4, 1, 2, 3], np.int32))
    ctx.builder.add_op("TRANSPOSE", [result, perm], [ctx.output(out)])


@imports("ConvTranspose")
def _conv_transpose(ctx, node):
    """TRANSPOSE_CONV: the output size comes from shape inference; the first
    tap's offset from pads, or from output_shape / SAME as ONNX defines it."""
    a = attrs(node)
    x_name, out = node.input[0], node.output[0]
    weights, bias = _constant_weights(ctx, node, "ConvTranspose", ranks=(3, 4, 5))
    if weights.ndim == 5:
        _conv_transpose_3d(ctx, node, a, weights, bias)
        return
    w = _Window(ctx, node, a, weights.shape[2:])
    c, og = weights.shape[:2]
    group = a.get("group", 1)
    if group < 1 or c != w.x_shape[1] or c % group:
        raise _NodeError(f"group {group} does not divide {w.x_shape[1]} input channels (weights {c})")
    # [C, O/G, kh, kw] -> [G, C/G, kh, kw, O/G]
    filt = weights.reshape(group, c // group, og, *w.kernel).transpose(0, 1, 3, 4, 2)
    out_hw = _as_2d(ctx.shape(out)[2:], w.n, 1)
    output_padding = _as_2d(a.get("output_padding", [0] * w.n), w.n, 0)
    begins = []
    for i in range(2):
        if "output_shape" in a or w.auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            effective = (w.kernel[i] - 1) * w.dilations[i] + 1
            total = w.strides[i] * (w.in_hw[i] - 1) + output_padding[i] + effective - out_hw[i]
            begins.append(total // 2 if w.auto_pad == "SAME_UPPER" else total - total // 2)
        elif w.auto_pad == "VALID":
            begins.append(0)
        else:
            begins.append(w.pads[i])
    bias = np.zeros([og * group], np.float32) if bias is None else bias.astype(np.float32)
    activation, last = ctx.fuse_activation(out)
    # Over spatial dims known only at run time the output follows the input (out = (in - 1) * stride + the
    # same remainder at every size), unless output_shape fixes it.
    follows = w.run_time_spatial and "output_shape" not in a
    if follows:
        out_hw = [o - (i - 1) * s for o, i, s in zip(out_hw, w.in_hw, w.strides)]
    options = {
        "stride_h": w.strides[0],
        "stride_w": w.strides[1],
        "dilation_h_factor": w.dilations[0],
        "dilation_w_factor": w.dilations[1],
        "pad_top": begins[0],
        "pad_left": begins[1],
        "out_h": out_hw[0],
        "out_w": out_hw[1],
        "group": group,
        "fused_activation_function": activation,
        "out_follows_input": follows,
    }
    x = w.nhwc_input(ctx, x_name, out)
    f = ctx.constant(f"{out}/filter", np.ascontiguousarray(filt))
    b = ctx.constant(f"{out}/bias", bias)
    # Version 2: out_follows_input, which version 1 runtimes would ignore (lite/schema/README.md, rule 5).
    w.emit(ctx, "TRANSPOSE_CONV", [x, f, b], last, ("TransposeConvOptions", options), version=2 if follows else 1)


# Pool2DOptions fields (with their defaults) that MAX_POOL_2D and
# AVERAGE_POOL_2D read from version 2 on.
_POOL_V2_FIELDS = {
    "pad_top": 0,
    "pad_left": 0,
    "pad_bottom": 0,
    "pad_right": 0,
    "dilation_h_factor": 1,
    "dilation_w_factor": 1,
    "count_include_pad": False,
    "ceil_mode": False,
    "indices_column_major": False,
}


def _pool_version(opcode, options, outputs=1):
    """The op version a pool needs: 2 where it uses what version 1 lacks."""
    if opcode == "LP_POOL_2D":
        return 1
    uses_v2 = outputs > 1 or any(options.get(k, v) != v for k, v in _POOL_V2_FIELDS.items())
    return 2 if uses_v2 else 1


def _pool_size(size, kernel, stride, dilation, before, after, ceil_mode):
    """The lite pool's output size along one dim (VALID + explicit pads)."""
    span = size + before + after - (kernel - 1) * dilation - 1
    out = (span + (stride - 1 if ceil_mode else 0)) // stride + 1
    return out - 1 if ceil_mode and (out - 1) * stride >= size + before else out


def _check_pool_type(ctx, x_name, opcode):
    dtype = np.dtype(ctx.dtype(x_name))
    allowed = (np.float32, np.int8, np.uint8) if opcode == "MAX_POOL_2D" else (np.float32,)
    if dtype not in [np.dtype(t) for t in allowed]:
        raise _NodeError(f"input is {dtype}; {opcode} takes {', '.join(np.dtype(t).name for t in allowed)}")
    return dtype


def _emit_pool(ctx, node, a, w, opcode, p=None):
    x_name, out = node.input[0], node.output[0]
    _check_pool_type(ctx, x_name, opcode)
    include = bool(a.get("count_include_pad", 0)) and opcode == "AVERAGE_POOL_2D"
    ceil_mode = bool(a.get("ceil_mode", 0))
    padding, pads = w.padding(same_allowed=not include and not ceil_mode)
    options = lite_window_options(padding, w.strides, dilations=w.dilations, kernel=w.kernel)
    options.update(count_include_pad=include, ceil_mode=ceil_mode)
    if a.get("storage_order", 0):
        options["indices_column_major"] = True
    if pads is not None:
        options.update(pad_top=pads[0], pad_left=pads[1], pad_bottom=pads[2], pad_right=pads[3])
    if p is not None:
        options["p"] = p
    pads = pads or [0, 0, 0, 0]
    if padding == "SAME":
        lowered = [-(-size // s) for size, s in zip(w.in_hw, w.strides)]
    else:
        lowered = [
            _pool_size(w.in_hw[i], w.kernel[i], w.strides[i], w.dilations[i], pads[i], pads[i + 2], ceil_mode)
            for i in range(2)
        ]
    want = _as_2d(ctx.shape(out)[2:], w.n, 1)
    if lowered != want:
        raise _NodeError(f"output size {want} differs from the lite pool's {lowered}")
    x = w.nhwc_input(ctx, x_name, out)
    extra = [o for o in node.output[1:] if o]
    version = _pool_version(opcode, options, 1 + len(extra))
    w.emit(ctx, opcode, [x], out, ("Pool2DOptions", options), extra, version)


def _pool_3d(ctx, node, a, opcode, p):
    """A 3-D pool as two 2-D ones: over (H, W) with depth folded into the
    batch, then over depth with H * W as the width. Exact: max, the sum of
    |x|^p, and the average's count (a product of per-dim counts) separate."""
    x_name, out = node.input[0], node.output[0]
    dtype = _check_pool_type(ctx, x_name, opcode)
    n, c, *size = ctx.shape(x_name)
    kernel = list(a["kernel_shape"])
    strides, dilations = list(a.get("strides", [1] * 3)), list(a.get("dilations", [1] * 3))
    auto_pad = a.get("auto_pad", b"NOTSET")
    auto_pad = auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad
    if auto_pad == "VALID":
        pads = [0] * 6
    elif auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        same = [same_pads(*v) for v in zip(size, kernel, strides, dilations)]
        pads = [s[auto_pad == "SAME_LOWER"] for s in same] + [s[auto_pad == "SAME_UPPER"] for s in same]
    else:
        pads = list(a.get("pads", [0] * 6))
    include = bool(a.get("count_include_pad", 0)) and opcode == "AVERAGE_POOL_2D"
    ceil_mode = bool(a.get("ceil_mode", 0))
    got = [_pool_size(size[i], kernel[i], strides[i], dilations[i], pads[i], pads[i + 3], ceil_mode) for i in range(3)]
    if got != ctx.shape(out)[2:]:
        raise _NodeError(f"output size {ctx.shape(out)[2:]} differs from the lite pools' {got}")

    def stage(name, x, shape_in, dims, shape_out):
        """Pools `x` (reshaped to `shape_in`) over the 2-D `dims` of the 3."""
        k, s, d = ([v[i] if i is not None else 1 for i in dims] for v in (kernel, strides, dilations))
        before, after = ([pads[i + o] if i is not None else 0 for i in dims] for o in (0, 3))
        options = lite_window_options("VALID", s, dilations=d, kernel=k)
        options.update(count_include_pad=include, ceil_mode=ceil_mode)
        options.update(pad_top=before[0], pad_left=before[1], pad_bottom=after[0], pad_right=after[1])
        if p is not None:
            options["p"] = p
        reshaped = ctx.intermediate(f"{out}/{name}_in", shape_in, dtype, like=x_name)
        shape = ctx.constant(f"{out}/{name}_shape", np.array([-1, *shape_in[1:]], np.int32))
        ctx.builder.add_op("RESHAPE", [x, shape], [reshaped])
        pooled = ctx.intermediate(f"{out}/{name}", shape_out, dtype, like=x_name)
        ctx.builder.add_op(opcode, [reshaped], [pooled], ("Pool2DOptions", options), _pool_version(opcode, options))
        return pooled

    (d, h, w), (d2, h2, w2) = size, got
    ndhwc = ctx.intermediate(f"{out}/ndhwc", [n, d, h, w, c], dtype, like=x_name)
    perm = ctx.constant(f"{out}/to_ndhwc", np.array([0, 2, 3, 4, 1], np.int32))
    ctx.builder.add_op("TRANSPOSE", [ctx.plain(x_name), perm], [ndhwc])
    y = stage("hw", ndhwc, [n * d, h, w, c], [1, 2], [n * d, h2, w2, c])
    y = stage("d", y, [n, d, h2 * w2, c], [0, None], [n, d2, h2 * w2, c])
    result = ctx.intermediate(f"{out}/ndhwc_out", [n, d2, h2, w2, c], dtype, like=x_name)
    shape = ctx.constant(f"{out}/out_shape", np.array([-1, d2, h2, w2, c], np.int32))
    ctx.builder.add_op("RESHAPE", [y, shape], [result])
    perm = ctx.constant(f"{out}/to_ncdhw", np.array([0, 4, 1, 2, 3], np.int32))
    ctx.builder.add_op("TRANSPOSE", [result, perm], [ctx.output(out)])


@imports("MaxPool", "AveragePool", "LpPool")
def _pool(ctx, node):
    a = attrs(node)
    indices = any(node.output[1:])
    if indices and len(a["kernel_shape"]) != 2:
        raise _NodeError("the Indices output is supported for 2-D MaxPool only")
    p = int(a.get("p", 2)) if node.op_type == "LpPool" else None
    if len(a["kernel_shape"]) == 3:
        _pool_3d(ctx, node, a, _POOL_OPCODES[node.op_type], p)
        return
    w = _Window(ctx, node, a, list(a["kernel_shape"]))
    _emit_pool(ctx, node, a, w, _POOL_OPCODES[node.op_type], p)


@imports("GlobalLpPool")
def _global_lp_pool(ctx, node):
    a = attrs(node)
    spatial = ctx.shape(node.input[0])[2:]
    w = _Window(ctx, node, {}, spatial)
    _emit_pool(ctx, node, {}, w, "LP_POOL_2D", int(a.get("p", 2)))


@imports("GlobalAveragePool")
def _global_average_pool(ctx, node):
    """MEAN over the spatial dims, kept as 1s (NHWC for 2-D; 1-D and 3-D in
    ONNX's layout)."""
    rank = ctx.rank(node.input[0])
    if rank < 3:
        raise _NodeError(f"input of rank {rank}; GlobalAveragePool takes [N, C, D1, ...]")
    if rank != 4:
        axes = ctx.constant(f"{node.output[0]}/axes", np.arange(2, rank, dtype=np.int32))
        options = ("ReducerOptions", {"keep_dims": True})
        ctx.builder.add_op("MEAN", [ctx.plain(node.input[0]), axes], [ctx.output(node.output[0])], options)
        return
    axes = ctx.constant(f"{node.output[0]}/axes", np.array([1, 2], np.int32))
    ctx.builder.add_op(
        "MEAN",
        [ctx.nhwc(node.input[0]), axes],
        [ctx.output(node.output[0], nhwc=True)],
        ("ReducerOptions", {"keep_dims": True}),
    )

"""Importers of quantization as explicit ops: QuantizeLinear, DequantizeLinear,
DynamicQuantizeLinear, and the integer products MatMulInteger, QLinearMatMul,
ConvInteger and QLinearConv.

QuantizeLinear/DequantizeLinear become QUANTIZE/DEQUANTIZE with the scale and
zero point as input tensors (per tensor, per axis or blocked; a constant
float16 scale is widened to float32, exactly). The lite integer types are
int8, uint8, int16, uint16 (and int32 for DequantizeLinear's input); float8,
float4, int4, uint4, int2 and uint2 are not lite types.

The products become QUANTIZED_BATCH_MATMUL / QUANTIZED_CONV_2D (int8/uint8
operands, int32 accumulation). QLinear* ops requantize with one constant
multiplier a_scale * b_scale / y_scale (per output column when b's scale is),
computed here in the scales' own type as ONNX's reference computes it, so
their scales must be constants; zero points may be computed (dynamic
quantization). Convolutions run in NHWC with explicit pads; groups (depthwise
included) follow from the filter's input channels, as ONNX's do.
"""

import numpy as np
from onnx import TensorProto

from converters.errors import NodeError as _NodeError
from converters.lowering import NCHW_TO_NHWC_AXIS, same_pads
from converters.onnx_import.context import attrs, imports

_INTEGER_TYPES = (np.int8, np.uint8, np.int16, np.uint16)
_EIGHT_BIT = (np.int8, np.uint8)


def _require_type(ctx, name, allowed, what):
    dtype = np.dtype(ctx.dtype(name))
    if dtype not in [np.dtype(t) for t in allowed]:
        names = ", ".join(np.dtype(t).name for t in allowed)
        raise _NodeError(f"{what} '{name}' is {dtype.name}; the lite kernel takes {names}")
    return dtype


def _optional(node, i):
    return node.input[i] if len(node.input) > i and node.input[i] else None


def _scale(ctx, name):
    """The lite tensor of a scale: a constant widened to float32, or a
    computed float32 tensor."""
    value = ctx.const(name)
    if value is not None:
        if value.dtype not in (np.float32, np.float16):
            raise _NodeError(f"scale '{name}' is {value.dtype}; the lite kernels take float32 (or constant float16)")
        return ctx.constant(f"{name}/float32", value.astype(np.float32))
    _require_type(ctx, name, (np.float32,), "scale")
    return ctx.plain(name)


def _zero_point(ctx, name, dtype, what):
    """The lite tensor of an optional zero point of element type `dtype`
    (-1 when absent)."""
    if name is None:
        return -1
    if np.dtype(ctx.dtype(name)) != dtype:
        raise _NodeError(f"{what} '{name}' is {np.dtype(ctx.dtype(name)).name}; it must be {dtype.name}")
    return ctx.plain(name)


def _quantize_options(ctx, node, x, scale):
    """(QuantizeOptions, whether x may stay NHWC): a per-tensor op runs in
    x's layout, a per-axis one in it with the axis mapped, a blocked one in
    ONNX's."""
    a = attrs(node)
    axis, block = a.get("axis", 1), a.get("block_size", 0)
    rank = ctx.rank(x)
    per_tensor = block == 0 and int(np.prod(ctx.shape(scale))) == 1
    if per_tensor or not ctx.is_nhwc(x):
        return ("QuantizeOptions", {"axis": axis, "block_size": block}), per_tensor
    if block:
        return ("QuantizeOptions", {"axis": axis, "block_size": block}), False
    return ("QuantizeOptions", {"axis": NCHW_TO_NHWC_AXIS[axis % rank]}), True


@imports("QuantizeLinear", "DequantizeLinear")
def _quantize_linear(ctx, node):
    x, scale, out = node.input[0], node.input[1], node.output[0]
    zp = _optional(node, 2)
    quantize = node.op_type == "QuantizeLinear"
    if attrs(node).get("precision", 0) not in (0, TensorProto.FLOAT):
        raise _NodeError("a precision other than float32 is not supported: QUANTIZE divides in float32")
    if quantize:
        _require_type(ctx, x, (np.float32,), "input")
        dtype = _require_type(ctx, out, _INTEGER_TYPES, "output")
    else:
        dtype = _require_type(ctx, x, _INTEGER_TYPES + (np.int32,), "input")
        _require_type(ctx, out, (np.float32,), "output")
    options, keep_layout = _quantize_options(ctx, node, x, scale)
    index, nhwc = ctx.value(x)
    if nhwc and not keep_layout:
        index, nhwc = ctx.plain(x), False
    inputs = [index, _scale(ctx, scale), _zero_point(ctx, zp, dtype, "zero point")]
    if inputs[-1] == -1:
        inputs.pop()
    ctx.builder.add_op("QUANTIZE" if quantize else "DEQUANTIZE", inputs, [ctx.output(out, nhwc=nhwc)], options)


@imports("DynamicQuantizeLinear")
def _dynamic_quantize_linear(ctx, node):
    x = node.input[0]
    _require_type(ctx, x, (np.float32,), "input")
    index, nhwc = ctx.value(x)
    outputs = [ctx.output(node.output[0], nhwc=nhwc)]
    for name, dtype in zip(node.output[1:3], (np.float32, np.uint8)):
        if name:
            outputs.append(ctx.output(name))
        else:
            outputs.append(ctx.intermediate(f"{node.output[0]}/unused_{np.dtype(dtype).name}", [], dtype))
    ctx.builder.add_op("DYNAMIC_QUANTIZE", [index], outputs)


def _multiplier(ctx, node, scales, n):
    """a_scale * b_scale / y_scale in the scales' type (as ONNX's reference),
    as float32: one element, or [n] when b's scale is per column."""
    values = []
    for i in scales:
        v = ctx.const(node.input[i])
        if v is None:
            raise _NodeError(f"{node.op_type} needs constant scales; '{node.input[i]}' is computed")
        values.append(v.reshape(-1))
    a_scale, b_scale, y_scale = values
    if a_scale.size != 1 or y_scale.size != 1 or b_scale.size not in (1, n):
        raise _NodeError(
            f"scales of {a_scale.size}, {b_scale.size}, {y_scale.size} elements: the lite kernel takes per-tensor "
            f"scales for the input and output, per tensor or per output channel ({n}) for the weights"
        )
    multiplier = (a_scale * b_scale / y_scale).astype(np.float32)
    name = node.output[0]
    return ctx.constant(f"{name}/multiplier", multiplier if multiplier.size > 1 else multiplier.reshape([]))


def _operands(ctx, node, lhs, rhs, lhs_zp, rhs_zp):
    """Checks the 8-bit operands; the zero point tensors (or -1)."""
    zps = []
    for operand, zp, what in ((lhs, lhs_zp, "a"), (rhs, rhs_zp, "b")):
        dtype = _require_type(ctx, operand, _EIGHT_BIT, what)
        if zp is not None and what == "a" and int(np.prod(ctx.shape(zp))) != 1:
            raise _NodeError(f"zero point '{zp}' of {what} has several elements; the lite kernel takes one")
        zps.append(_zero_point(ctx, zp, dtype, f"zero point of {what}"))
    return zps


@imports("MatMulInteger", "QLinearMatMul")
def _integer_matmul(ctx, node):
    qlinear = node.op_type == "QLinearMatMul"
    a, b = (node.input[0], node.input[3]) if qlinear else (node.input[0], node.input[1])
    a_zp, b_zp = (_optional(node, 2), _optional(node, 5)) if qlinear else (_optional(node, 2), _optional(node, 3))
    if ctx.rank(a) < 2 or ctx.rank(b) < 2:
        raise _NodeError("1-D operands are not supported by QUANTIZED_BATCH_MATMUL")
    inputs = [ctx.plain(a), ctx.plain(b), *_operands(ctx, node, a, b, a_zp, b_zp)]
    out = node.output[0]
    if qlinear:
        dtype = _require_type(ctx, out, _EIGHT_BIT, "output")
        inputs += [_multiplier(ctx, node, (1, 4, 6), ctx.shape(b)[-1])]
        inputs += [_zero_point(ctx, _optional(node, 7), dtype, "output zero point")]
        if inputs[-1] == -1:
            inputs[-1] = ctx.constant(f"{out}/zero_point", np.zeros([], dtype))
    ctx.builder.add_op("QUANTIZED_BATCH_MATMUL", inputs, [ctx.output(out)])


def _conv_pads(node, x_shape, kernel, strides, dilations):
    """Explicit [top, left, bottom, right] pads of a 2-D convolution."""
    a = attrs(node)
    auto_pad = a.get("auto_pad", b"NOTSET")
    auto_pad = auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad
    if auto_pad == "VALID":
        return [0, 0, 0, 0]
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        (t, b), (l, r) = (same_pads(x_shape[2 + i], kernel[i], strides[i], dilations[i]) for i in (0, 1))
        return [t, l, b, r] if auto_pad == "SAME_UPPER" else [b, r, t, l]
    pads = list(a.get("pads", [0, 0, 0, 0]))
    if len(pads) != 4:
        raise _NodeError("only 2-D convolutions are supported")
    return pads


@imports("ConvInteger", "QLinearConv")
def _integer_conv(ctx, node):
    qlinear = node.op_type == "QLinearConv"
    x, w = (node.input[0], node.input[3]) if qlinear else (node.input[0], node.input[1])
    x_zp, w_zp = (_optional(node, 2), _optional(node, 5)) if qlinear else (_optional(node, 2), _optional(node, 3))
    weights = ctx.const(w)
    if weights is None or weights.ndim != 4:
        raise _NodeError("the weights must be a constant of rank 4 (2-D convolution)")
    a = attrs(node)
    strides, dilations = list(a.get("strides", [1, 1])), list(a.get("dilations", [1, 1]))
    x_shape = ctx.shape(x)
    pads = _conv_pads(node, x_shape, weights.shape[2:], strides, dilations)
    zps = _operands(ctx, node, x, w, x_zp, w_zp)
    filt = ctx.constant(f"{node.output[0]}/filter", np.ascontiguousarray(weights.transpose(0, 2, 3, 1)))
    inputs = [ctx.nhwc(x), filt, *zps]
    out = node.output[0]
    if qlinear:
        dtype = _require_type(ctx, out, _EIGHT_BIT, "output")
        inputs += [_multiplier(ctx, node, (1, 4, 6), weights.shape[0])]
        inputs += [_zero_point(ctx, _optional(node, 7), dtype, "output zero point")]
        if inputs[-1] == -1:
            inputs[-1] = ctx.constant(f"{out}/zero_point", np.zeros([], dtype))
        bias = _optional(node, 8)
        if bias is not None:
            _require_type(ctx, bias, (np.int32,), "bias")
            inputs.append(ctx.plain(bias))
    options = {
        "stride_h": strides[0],
        "stride_w": strides[1],
        "dilation_h": dilations[0],
        "dilation_w": dilations[1],
        "pad_top": pads[0],
        "pad_left": pads[1],
        "pad_bottom": pads[2],
        "pad_right": pads[3],
    }
    ctx.builder.add_op("QUANTIZED_CONV_2D", inputs, [ctx.output(out, nhwc=True)], ("QuantizedConv2DOptions", options))

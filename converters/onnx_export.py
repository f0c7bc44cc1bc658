"""Exports a frozen GraphDef (converters/freeze.py) as an ONNX model.

Table-driven: `EXPORTERS` maps a TensorFlow op type to a function emitting
ONNX nodes. Layout: TensorFlow is NHWC, ONNX's Conv/Pool are NCHW. Each
exported tensor remembers whether it is stored as TensorFlow has it or
transposed to NCHW; convolutions and pools produce NCHW, layout-agnostic ops
(activations, per-channel arithmetic, reductions, concatenation) keep it,
and a Transpose back to NHWC is inserted only where an op needs
TensorFlow's layout (Reshape, Softmax, ...) and at the model outputs. So a
CNN's interior stays NCHW, with Transposes at its boundary.

Example:
  >>> import numpy as np, onnx
  >>> import tensorweave as tw
  >>> from converters import freeze, onnx_export
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     x = tw.placeholder(tw.float32, [None, 2], name="x")
  ...     y = tw.identity(tw.matmul(x, tw.constant([[1.0], [2.0]])), name="y")
  ...     frozen = freeze.freeze_session(sess, ["x"], ["y"])
  >>> model = onnx_export.export(frozen, ["x"], ["y"])
  >>> onnx.checker.check_model(model, full_check=True)
  >>> [n.op_type for n in model.graph.node]
  ['Gemm']
"""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from converters import freeze, lowering, tables
from converters.errors import ConversionError
from converters.errors import NodeError as _NodeError
from converters.graph_util import GraphView, attr, data_inputs, numpy_dtype, parse_input, tensor_name
from converters.lowering import NHWC_TO_NCHW_AXIS, TO_NCHW, TO_NHWC, spatial_pair
from converters.names import unique_name

OPSET = 18
PRODUCER = "tensorweave-convert"
EXPORTERS = {}
_INT64_MAX = np.iinfo(np.int64).max
_INT64_MIN = np.iinfo(np.int64).min


exports = tables.registrar(EXPORTERS)


class Context(lowering.GraphLowering):
    """What an exporter sees: the frozen graph, shapes, and the ONNX nodes
    and initializers made so far."""

    def __init__(self, graph_def, outputs):
        super().__init__(graph_def, outputs)
        self.specs = freeze.all_tensor_specs(graph_def)
        self.nodes, self.initializers = [], []
        self.values = {}  # TF tensor -> (onnx name, is_nchw)
        self._names = set()
        self._converted = {}  # (onnx name, perm) -> onnx name

    def unique(self, name):
        return unique_name(self._names, name)

    @staticmethod
    def onnx_name(tensor):
        node, index = parse_input(tensor)
        return node if index == 0 else f"{node}:{index}"

    # --- values -------------------------------------------------------------
    def initializer(self, name, value):
        name = self.unique(name)
        self.initializers.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def value(self, tensor):
        """(onnx name, is_nchw) of a TF tensor (constants added on use)."""
        tensor = tensor_name(tensor)
        if tensor not in self.values:
            value = self.view.const_value(tensor)
            if value is None:
                raise _NodeError(f"'{tensor}' has not been computed")
            self.values[tensor] = (self.initializer(self.onnx_name(tensor), value), False)
        return self.values[tensor]

    def rank(self, tensor):
        shape = self.specs[tensor_name(tensor)][1]
        return None if shape is None else len(shape)

    def shape(self, tensor):
        return self.specs[tensor_name(tensor)][1]

    def _transposed(self, tensor, perm):
        name, _ = self.value(tensor)
        key = (name, perm)
        if key not in self._converted:
            const = self.view.const_value(tensor_name(tensor))
            if const is not None:
                out = self.initializer(f"{name}/{'nchw' if perm == TO_NCHW else 'nhwc'}", const.transpose(perm))
            else:
                out = self.unique(f"{name}/{'nchw' if perm == TO_NCHW else 'nhwc'}")
                self.nodes.append(helper.make_node("Transpose", [name], [out], name=out, perm=list(perm)))
            self._converted[key] = out
        return self._converted[key]

    def nhwc(self, tensor):
        """The ONNX name of `tensor` in TensorFlow's layout."""
        name, is_nchw = self.value(tensor)
        return self._transposed(tensor, TO_NHWC) if is_nchw else name

    def nchw(self, tensor):
        """The ONNX name of a rank-4 `tensor` in NCHW."""
        name, is_nchw = self.value(tensor)
        return name if is_nchw else self._transposed(tensor, TO_NCHW)

    def is_nchw(self, tensor):
        return self.value(tensor)[1]

    # --- emitting -----------------------------------------------------------
    def add(self, op_type, inputs, outputs, **attrs):
        self.nodes.append(helper.make_node(op_type, inputs, outputs, name=outputs[0], **attrs))

    def output(self, tensor, nchw=False):
        """A new ONNX name standing for TF tensor `tensor`."""
        name = self.unique(self.onnx_name(tensor))
        self.values[tensor_name(tensor)] = (name, nchw)
        return name


def _onnx_type(np_dtype):
    return helper.np_dtype_to_tensor_dtype(np.dtype(np_dtype))


# --- exporters ---------------------------------------------------------------------------------
@exports("Identity", "Snapshot", "StopGradient")
def _identity(ctx, node):
    ctx.values[f"{node.name}:0"] = ctx.value(node.input[0])


@exports("MatMul")
def _matmul(ctx, node):
    ta, tb = attr(node, "transpose_a", False), attr(node, "transpose_b", False)
    weights = ctx.const(node, 1)
    a = ctx.nhwc(node.input[0])
    if weights is not None and ctx.rank(node.input[0]) == 2:
        channels = weights.shape[0] if tb else weights.shape[1]
        bias, last = ctx.fuse_bias(f"{node.name}:0", channels)
        inputs = [a, ctx.initializer(f"{node.name}/weights", weights)]
        if bias is not None:
            inputs.append(ctx.initializer(f"{node.name}/bias", bias))
        ctx.add("Gemm", inputs, [ctx.output(last)], transA=int(ta), transB=int(tb))
        return
    b = ctx.nhwc(node.input[1])
    if ta or tb:
        a = _swap_last(ctx, node, a, ctx.rank(node.input[0])) if ta else a
        b = _swap_last(ctx, node, b, ctx.rank(node.input[1])) if tb else b
    ctx.add("MatMul", [a, b], [ctx.output(f"{node.name}:0")])


@exports("BatchMatMul", "BatchMatMulV2")
def _batch_matmul(ctx, node):
    a, b = ctx.nhwc(node.input[0]), ctx.nhwc(node.input[1])
    a = _swap_last(ctx, node, a, ctx.rank(node.input[0])) if attr(node, "adj_x", False) else a
    b = _swap_last(ctx, node, b, ctx.rank(node.input[1])) if attr(node, "adj_y", False) else b
    ctx.add("MatMul", [a, b], [ctx.output(f"{node.name}:0")])


def _swap_last(ctx, node, name, rank):
    perm = list(range(rank))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    out = ctx.unique(f"{name}/transposed")
    ctx.add("Transpose", [name], [out], perm=perm)
    return out


def _pads(ctx, node, kernel, strides, dilations):
    """ONNX's explicit [top, left, bottom, right] of the node's padding."""
    lowering.check_nhwc(node)
    explicit = lowering.explicit_pads(node)
    if explicit is not None:
        (t, b), (l, r) = explicit
        return [t, l, b, r]
    if lowering.padding(node) == "VALID":
        return [0, 0, 0, 0]
    shape = ctx.shape(node.input[0])
    if shape is None or shape[1] is None or shape[2] is None:
        raise _NodeError("SAME padding needs static spatial dims")
    (t, b), (l, r) = (lowering.same_pads(shape[1 + i], kernel[i], strides[i], dilations[i]) for i in (0, 1))
    return [t, l, b, r]


@exports("Conv2D", "DepthwiseConv2dNative")
def _conv(ctx, node):
    filt = ctx.require_const(node, 1, "the filter")
    strides, dilations = spatial_pair(node, "strides"), spatial_pair(node, "dilations")
    h, w, c, m = filt.shape
    pads = _pads(ctx, node, [h, w], strides, dilations)
    if node.op == "Conv2D":
        weights, group, channels = filt.transpose(3, 2, 0, 1), 1, m  # OIHW
    else:
        weights = filt.reshape(h, w, c * m).transpose(2, 0, 1)[:, None]  # [C*M, 1, H, W]
        group, channels = c, c * m
    inputs = [ctx.nchw(node.input[0]), ctx.initializer(f"{node.name}/weights", np.ascontiguousarray(weights))]
    bias, last = ctx.fuse_bias(f"{node.name}:0", channels)
    if bias is not None:
        inputs.append(ctx.initializer(f"{node.name}/bias", bias))
    ctx.add(
        "Conv",
        inputs,
        [ctx.output(last, nchw=True)],
        kernel_shape=[h, w],
        strides=strides,
        dilations=dilations,
        pads=pads,
        group=group,
    )


@exports("Conv2DBackpropInput")
def _conv_transpose(ctx, node):
    """ConvTranspose with the padding of the convolution it is the gradient of (its input is this op's output,
    input_sizes, which must be static) and the output padding that gives TensorFlow's output size."""
    lowering.check_nhwc(node)
    sizes = ctx.shape(f"{node.name}:0")
    filt = ctx.require_const(node, 1, "the filter")
    x_shape = ctx.shape(node.input[2])
    if sizes is None or any(d is None for d in sizes[1:]) or x_shape is None or None in x_shape[1:3]:
        raise _NodeError(f"the input and output shapes ({x_shape}, {sizes}) must be static but for the batch")
    strides, dilations = spatial_pair(node, "strides"), spatial_pair(node, "dilations")
    h, w = filt.shape[:2]
    explicit = lowering.explicit_pads(node)
    if explicit is not None:
        pads = [tuple(explicit[0]), tuple(explicit[1])]
    elif lowering.padding(node) == "SAME":
        pads = [lowering.same_pads(sizes[1 + i], (h, w)[i], strides[i], dilations[i]) for i in (0, 1)]
    else:
        pads = [(0, 0), (0, 0)]
    extra = [
        sizes[1 + i] - (strides[i] * (x_shape[1 + i] - 1) + ((h, w)[i] - 1) * dilations[i] + 1 - sum(pads[i]))
        for i in (0, 1)
    ]
    if any(e < 0 or e >= max(strides[i], dilations[i]) for i, e in enumerate(extra)):
        raise _NodeError(f"the output size {sizes[1:3]} cannot come out of a transposed convolution of {x_shape}")
    weights = ctx.initializer(f"{node.name}/filter", np.ascontiguousarray(filt.transpose(3, 2, 0, 1)))
    ctx.add(
        "ConvTranspose",
        [ctx.nchw(node.input[2]), weights],
        [ctx.output(f"{node.name}:0", nchw=True)],
        kernel_shape=[h, w],
        strides=strides,
        dilations=dilations,
        pads=[pads[0][0], pads[1][0], pads[0][1], pads[1][1]],
        output_padding=extra,
    )


@exports("ResizeBilinear", "ResizeNearestNeighbor")
def _resize(ctx, node):
    """Resize in NCHW to the constant size, with TensorFlow's sampling: align_corners, half_pixel_centers (the
    nearest neighbour's is ONNX's tf_half_pixel_for_nn), else asymmetric; TF's nearest rounds half up when
    aligning corners and floors otherwise."""
    align, half = attr(node, "align_corners", False), attr(node, "half_pixel_centers", False)
    if align and half:
        raise _NodeError("align_corners and half_pixel_centers cannot both be set")
    size = ctx.require_const(node, 1, "size").astype(np.int64).reshape(-1)
    linear = node.op == "ResizeBilinear"
    if align:
        mode = "align_corners"
    elif half:
        mode = "half_pixel" if linear else "tf_half_pixel_for_nn"
    else:
        mode = "asymmetric"
    extra = (
        {"mode": "linear"} if linear else {"mode": "nearest", "nearest_mode": "round_prefer_ceil" if align else "floor"}
    )
    x = ctx.nchw(node.input[0])
    shape, sizes = ctx.unique(f"{node.name}/nc"), ctx.unique(f"{node.name}/sizes")
    ctx.add("Shape", [x], [shape], start=0, end=2)  # N and C, the batch perhaps known only at run time
    ctx.add("Concat", [shape, ctx.initializer(f"{node.name}/hw", size)], [sizes], axis=0)
    ctx.add(
        "Resize",
        [x, "", "", sizes],
        [ctx.output(f"{node.name}:0", nchw=True)],
        coordinate_transformation_mode=mode,
        **extra,
    )


_TF_CUBIC_TABLE = 1024  # TensorFlow's bicubic weights: at the fraction rounded to 1/1024 of a pixel


def _tf_sample_positions(in_size, out_size, align, half):
    """Where TensorFlow's resize samples each output index of an axis (float32, as its kernels compute it)."""
    out = np.arange(out_size, dtype=np.float32)
    if align and out_size > 1:
        return out * np.float32((in_size - 1) / (out_size - 1))
    scale = np.float32(in_size / out_size)
    return (out + np.float32(0.5)) * scale - np.float32(0.5) if half else out * scale


@exports("ResizeBicubic")
def _resize_bicubic(ctx, node):
    """ONNX's cubic Resize: Keys' a = -0.5 with half_pixel_centers (taps outside the image excluded), else -0.75
    with the edge pixels repeated. TensorFlow weighs the taps at the sample's fraction rounded to 1/1024 of a
    pixel; ONNX at the fraction itself: exported only where every fraction is such a multiple (whole and
    power-of-two scales), else refused."""
    align, half = attr(node, "align_corners", False), attr(node, "half_pixel_centers", False)
    if align and half:
        raise _NodeError("align_corners and half_pixel_centers cannot both be set")
    shape = ctx.shape(node.input[0])
    if shape is None or len(shape) != 4 or None in shape[1:3]:
        raise _NodeError(f"images must be rank 4 (NHWC) with a static height and width, got shape {shape}")
    size = ctx.require_const(node, 1, "size").astype(np.int64).reshape(-1)
    for n, m in zip(shape[1:3], size.tolist()):
        fraction = _tf_sample_positions(n, m, align, half)
        fraction = (fraction - np.floor(fraction)) * _TF_CUBIC_TABLE
        if np.any(fraction != np.round(fraction)):
            raise _NodeError(
                f"resizing {shape[1:3]} to {size.tolist()} bicubically: TensorFlow weighs the taps at fractions rounded "
                "to 1/1024 of a pixel, which ONNX's cubic Resize cannot express at this scale (whole and power-of-two "
                "scales export)"
            )
    x = ctx.nchw(node.input[0])
    nc, sizes = ctx.unique(f"{node.name}/nc"), ctx.unique(f"{node.name}/sizes")
    ctx.add("Shape", [x], [nc], start=0, end=2)
    ctx.add("Concat", [nc, ctx.initializer(f"{node.name}/hw", size)], [sizes], axis=0)
    mode = "align_corners" if align else "half_pixel" if half else "asymmetric"
    ctx.add(
        "Resize",
        [x, "", "", sizes],
        [ctx.output(f"{node.name}:0", nchw=True)],
        mode="cubic",
        coordinate_transformation_mode=mode,
        cubic_coeff_a=-0.5 if half else -0.75,
        exclude_outside=int(bool(half)),
    )


@exports("ResizeArea")
def _resize_area(ctx, node):
    """ResizeArea (without align_corners), each axis by a whole factor, as the .twl lowering does it: shrunk, the
    average of each block (AveragePool, the factor as window and stride); grown, each pixel repeated (nearest
    Resize); both in turn when one axis shrinks and the other grows. Fractional pixel areas are refused."""
    shape = ctx.shape(node.input[0])
    if shape is None or len(shape) != 4 or None in shape[1:3]:
        raise _NodeError(f"images must be rank 4 (NHWC) with a static height and width, got shape {shape}")
    if numpy_dtype(ctx.specs[tensor_name(node.input[0])][0]) != np.float32:
        raise _NodeError("images must be float32")
    size = [int(v) for v in ctx.require_const(node, 1, "size").reshape(-1)]
    down, up = lowering.area_resize_factors(node, shape, size)
    x = ctx.nchw(node.input[0])
    grow = max(up) > 1 or max(down) == 1
    if max(down) > 1:
        pooled = ctx.unique(f"{node.name}/pooled") if grow else ctx.output(f"{node.name}:0", nchw=True)
        ctx.add("AveragePool", [x], [pooled], kernel_shape=down, strides=down)
        x = pooled
    if grow:
        scales = ctx.initializer(f"{node.name}/scales", np.array([1.0, 1.0, *up], np.float32))
        ctx.add(
            "Resize",
            [x, "", scales],
            [ctx.output(f"{node.name}:0", nchw=True)],
            mode="nearest",
            coordinate_transformation_mode="asymmetric",
            nearest_mode="floor",
        )


@exports("MaxPool", "AvgPool")
def _pool(ctx, node):
    kernel, strides = spatial_pair(node, "ksize"), spatial_pair(node, "strides")
    pads = _pads(ctx, node, kernel, strides, [1, 1])
    op = "MaxPool" if node.op == "MaxPool" else "AveragePool"
    extra = {} if op == "MaxPool" else {"count_include_pad": 0}
    ctx.add(
        op,
        [ctx.nchw(node.input[0])],
        [ctx.output(f"{node.name}:0", nchw=True)],
        kernel_shape=kernel,
        strides=strides,
        pads=pads,
        **extra,
    )


_BINARY = {
    "Pow": "Pow",
    "Add": "Add",
    "AddV2": "Add",
    "BiasAdd": "Add",
    "Sub": "Sub",
    "Mul": "Mul",
    "Div": "Div",
    "RealDiv": "Div",
    "Maximum": "Max",
    "Minimum": "Min",
    "Greater": "Greater",
    "GreaterEqual": "GreaterOrEqual",
    "Less": "Less",
    "LessEqual": "LessOrEqual",
    "Equal": "Equal",
    "LogicalAnd": "And",
    "LogicalOr": "Or",
}


def _nchw_operand(ctx, tensor):
    """`tensor` for an op running in NCHW: rank-4 tensors transposed,
    constants of lower rank padded to rank 4 and transposed, None if the
    operand cannot follow (a computed tensor of lower rank)."""
    rank = ctx.rank(tensor)
    if rank == 4:
        return ctx.nchw(tensor)
    value = ctx.view.const_value(tensor_name(tensor))
    if value is None or rank is None:
        return None
    return ctx.initializer(f"{ctx.onnx_name(tensor)}/nchw", lowering.rank4_constant(value, TO_NCHW))


def _binary_operands(ctx, node):
    """The ONNX names of a binary node's two operands and whether they (and so its output) are NCHW: NCHW when
    the output is rank 4, an operand already is and the other can follow."""
    a, b = node.input[0], node.input[1]
    out = f"{node.name}:0"
    if ctx.rank(out) == 4 and any(ctx.values.get(tensor_name(t), (0, False))[1] for t in (a, b)):
        operands = [_nchw_operand(ctx, t) for t in (a, b)]
        if all(o is not None for o in operands):
            return operands, True
    return [ctx.nhwc(a), ctx.nhwc(b)], False


@exports(*_BINARY)
def _binary(ctx, node):
    operands, nchw = _binary_operands(ctx, node)
    ctx.add(_BINARY[node.op], operands, [ctx.output(f"{node.name}:0", nchw=nchw)])


_UNARY = {
    "Neg": "Neg",
    "Exp": "Exp",
    "Log": "Log",
    "Sqrt": "Sqrt",
    "Abs": "Abs",
    "Relu": "Relu",
    "Sigmoid": "Sigmoid",
    "Tanh": "Tanh",
    "Reciprocal": "Reciprocal",
    "Floor": "Floor",
    "Ceil": "Ceil",
    "Round": "Round",  # half to even, as TensorFlow's
    "Sign": "Sign",
    "Sin": "Sin",
    "Cos": "Cos",
    "Tan": "Tan",
    "Asin": "Asin",
    "Acos": "Acos",
    "Atan": "Atan",
    "Sinh": "Sinh",
    "Cosh": "Cosh",
    "Asinh": "Asinh",
    "Acosh": "Acosh",
    "Atanh": "Atanh",
    "Erf": "Erf",
    "IsNan": "IsNaN",
    "IsInf": "IsInf",
    "LogicalNot": "Not",
    "Softplus": "Softplus",
    "Elu": "Elu",
    "Selu": "Selu",  # ONNX's default alpha and gamma are TensorFlow's constants
}


@exports(*_UNARY)
def _unary(ctx, node):
    name, nchw = ctx.value(node.input[0])
    ctx.add(_UNARY[node.op], [name], [ctx.output(f"{node.name}:0", nchw=nchw)])


@exports("Relu6")
def _relu6(ctx, node):
    name, nchw = ctx.value(node.input[0])
    dtype = numpy_dtype(ctx.specs[f"{node.name}:0"][0])
    low = ctx.initializer(f"{node.name}/min", np.array(0, dtype))
    high = ctx.initializer(f"{node.name}/max", np.array(6, dtype))
    ctx.add("Clip", [name, low, high], [ctx.output(f"{node.name}:0", nchw=nchw)])


@exports("Rsqrt", "Square")
def _rsqrt_square(ctx, node):
    name, nchw = ctx.value(node.input[0])
    if node.op == "Square":
        ctx.add("Mul", [name, name], [ctx.output(f"{node.name}:0", nchw=nchw)])
        return
    root = ctx.unique(f"{node.name}/sqrt")
    ctx.add("Sqrt", [name], [root])
    ctx.add("Reciprocal", [root], [ctx.output(f"{node.name}:0", nchw=nchw)])


@exports("Softmax", "LogSoftmax")
def _softmax(ctx, node):
    ctx.add(node.op, [ctx.nhwc(node.input[0])], [ctx.output(f"{node.name}:0")], axis=-1)


@exports("Reshape")
def _reshape(ctx, node):
    if ctx.view.const_value(tensor_name(node.input[1])) is None:
        # A shape computed from a run-time batch (Keras' Reshape packs Shape(x)[0] with its target): the output's
        # shape, -1 for its one unknown dim.
        out_shape = ctx.shape(f"{node.name}:0")
        if out_shape is None or sum(d is None for d in out_shape) != 1:
            raise _NodeError(f"shape (input 1) is computed, and the output's shape {out_shape} has not one unknown dim")
        shape = np.array([-1 if d is None else d for d in out_shape], np.int64)
    else:
        shape = ctx.require_const(node, 1, "shape").astype(np.int64)
    if np.any(shape == 0):
        raise _NodeError("a 0 in the shape is ambiguous in ONNX")
    inputs = [ctx.nhwc(node.input[0]), ctx.initializer(f"{node.name}/shape", shape)]
    ctx.add("Reshape", inputs, [ctx.output(f"{node.name}:0")])


@exports("Cast")
def _cast(ctx, node):
    to = _onnx_type(numpy_dtype(attr(node, "DstT")))
    name, nchw = ctx.value(node.input[0])
    ctx.add("Cast", [name], [ctx.output(f"{node.name}:0", nchw=nchw)], to=to)


@exports("Transpose")
def _transpose(ctx, node):
    perm = [int(p) for p in ctx.require_const(node, 1, "perm")]
    ctx.add("Transpose", [ctx.nhwc(node.input[0])], [ctx.output(f"{node.name}:0")], perm=perm)


_REDUCE = {"Mean": "ReduceMean", "Sum": "ReduceSum", "Max": "ReduceMax", "Min": "ReduceMin", "Prod": "ReduceProd"}


@exports(*_REDUCE)
def _reduce(ctx, node):
    x = node.input[0]
    rank = ctx.rank(x)
    axes = [int(a) % rank for a in ctx.require_const(node, 1, "axes").reshape(-1)]
    keep = bool(attr(node, "keep_dims", False))
    onnx_op = _REDUCE[node.op]
    onnx_axes = None
    if rank == 4 and ctx.is_nchw(x):
        onnx_axes = lowering.reduction_axes_in_layout(axes, keep, NHWC_TO_NCHW_AXIS)
    if onnx_axes is not None:
        axes_name = ctx.initializer(f"{node.name}/axes", np.array(onnx_axes, np.int64))
        out = ctx.output(f"{node.name}:0", nchw=keep)
        ctx.add(onnx_op, [ctx.nchw(x), axes_name], [out], keepdims=int(keep))
        return
    axes_name = ctx.initializer(f"{node.name}/axes", np.array(sorted(axes), np.int64))
    ctx.add(onnx_op, [ctx.nhwc(x), axes_name], [ctx.output(f"{node.name}:0")], keepdims=int(keep))


@exports("ConcatV2")
def _concat(ctx, node):
    values = data_inputs(node)[:-1]
    axis = int(ctx.require_const(node, len(values), "axis"))
    rank = ctx.rank(values[0])
    axis %= rank
    computed = [v for v in values if ctx.view.const_value(tensor_name(v)) is None]
    if rank == 4 and computed and ctx.is_nchw(computed[0]):
        inputs = [ctx.nchw(v) for v in values]
        axis = NHWC_TO_NCHW_AXIS[axis]
        ctx.add("Concat", inputs, [ctx.output(f"{node.name}:0", nchw=True)], axis=axis)
        return
    ctx.add("Concat", [ctx.nhwc(v) for v in values], [ctx.output(f"{node.name}:0")], axis=axis)


@exports("Pack")
def _pack(ctx, node):
    axis = attr(node, "axis", 0) % ctx.rank(f"{node.name}:0")
    axes = ctx.initializer(f"{node.name}/axis", np.array([axis], np.int64))
    pieces = []
    for i, v in enumerate(data_inputs(node)):
        piece = ctx.unique(f"{node.name}/expand_{i}")
        ctx.add("Unsqueeze", [ctx.nhwc(v), axes], [piece])
        pieces.append(piece)
    ctx.add("Concat", pieces, [ctx.output(f"{node.name}:0")], axis=axis)


@exports("Pad", "PadV2")
def _pad(ctx, node):
    paddings = ctx.require_const(node, 1, "paddings").astype(np.int64)
    inputs = [ctx.nhwc(node.input[0]), ctx.initializer(f"{node.name}/pads", paddings.T.reshape(-1))]
    if node.op == "PadV2":
        inputs.append(ctx.initializer(f"{node.name}/value", ctx.require_const(node, 2, "constant_values")))
    ctx.add("Pad", inputs, [ctx.output(f"{node.name}:0")], mode="constant")


@exports("GatherV2")
def _gather(ctx, node):
    if attr(node, "batch_dims", 0):
        raise _NodeError("batch_dims != 0 has no ONNX Gather equivalent")
    axis = int(ctx.require_const(node, 2, "axis"))
    inputs = [ctx.nhwc(node.input[0]), ctx.nhwc(node.input[1])]
    ctx.add("Gather", inputs, [ctx.output(f"{node.name}:0")], axis=axis)


@exports("Squeeze")
def _squeeze(ctx, node):
    dims = attr(node, "squeeze_dims", []) or []
    inputs = [ctx.nhwc(node.input[0])]
    if dims:
        inputs.append(ctx.initializer(f"{node.name}/axes", np.array(dims, np.int64)))
    ctx.add("Squeeze", inputs, [ctx.output(f"{node.name}:0")])


@exports("ExpandDims")
def _expand_dims(ctx, node):
    axis = ctx.require_const(node, 1, "axis").astype(np.int64).reshape(-1)
    inputs = [ctx.nhwc(node.input[0]), ctx.initializer(f"{node.name}/axes", axis)]
    ctx.add("Unsqueeze", inputs, [ctx.output(f"{node.name}:0")])


@exports("Slice")
def _slice(ctx, node):
    begin = ctx.require_const(node, 1, "begin").astype(np.int64)
    size = ctx.require_const(node, 2, "size").astype(np.int64)
    end = np.where(size < 0, _INT64_MAX, begin + size)
    inputs = [
        ctx.nhwc(node.input[0]),
        ctx.initializer(f"{node.name}/starts", begin),
        ctx.initializer(f"{node.name}/ends", end),
    ]
    ctx.add("Slice", inputs, [ctx.output(f"{node.name}:0")])


@exports("StridedSlice")
def _strided_slice(ctx, node):
    """A Slice over the input's dims, then a Squeeze of the shrunk ones and an Unsqueeze of the new axes (TF's
    sparse spec with its ellipsis and new-axis entries made dense)."""
    begin, end, strides = (
        ctx.require_const(node, i, w).astype(np.int64).reshape(-1)
        for i, w in ((1, "begin"), (2, "end"), (3, "strides"))
    )
    masks = {m: attr(node, m, 0) for m in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask")}
    shrink = attr(node, "shrink_axis_mask", 0)
    rank = ctx.rank(node.input[0])
    if rank is None:
        raise _NodeError("the input's rank must be known")
    bit = lambda mask, i: masks[mask] >> i & 1
    real = sum(1 for i in range(len(begin)) if not bit("ellipsis_mask", i) and not bit("new_axis_mask", i))
    starts, ends, axes, steps, shrunk, tokens = [], [], [], [], [], []  # tokens: the output dims, in order
    dim = 0
    for i in range(len(begin)):
        if bit("ellipsis_mask", i):
            tokens += ["in"] * (rank - real)
            dim += rank - real
            continue
        if bit("new_axis_mask", i):
            tokens.append("new")
            continue
        step = int(strides[i])
        start = (0 if step > 0 else _INT64_MAX) if bit("begin_mask", i) else int(begin[i])
        stop = (_INT64_MAX if step > 0 else _INT64_MIN) if bit("end_mask", i) else int(end[i])
        if shrink >> i & 1:
            start, stop, step = int(begin[i]), int(begin[i]) + 1 if begin[i] != -1 else _INT64_MAX, 1
            shrunk.append(dim)
        else:
            tokens.append("in")
        starts.append(start), ends.append(stop), axes.append(dim), steps.append(step)
        dim += 1
    tokens += ["in"] * (rank - dim)
    x = ctx.nhwc(node.input[0])
    stages = []
    if axes:
        stages.append(("Slice", [starts, ends, axes, steps]))
    if shrunk:
        stages.append(("Squeeze", [shrunk]))
    new_axes = [i for i, t in enumerate(tokens) if t == "new"]
    if new_axes:
        stages.append(("Unsqueeze", [new_axes]))
    if not stages:
        ctx.values[f"{node.name}:0"] = ctx.value(node.input[0])
        return
    for k, (op, params) in enumerate(stages):
        out = ctx.output(f"{node.name}:0") if k == len(stages) - 1 else ctx.unique(f"{node.name}/{op.lower()}")
        names = [ctx.initializer(f"{node.name}/{op.lower()}{j}", np.array(p, np.int64)) for j, p in enumerate(params)]
        ctx.add(op, [x] + names, [out])
        x = out


@exports("ArgMax")
def _arg_max(ctx, node):
    _arg_extreme(ctx, node, "ArgMax")


def _arg_extreme(ctx, node, onnx_op):
    axis = int(ctx.require_const(node, 1, "axis"))
    out_type = numpy_dtype(attr(node, "output_type", 9))
    if out_type == np.int64:
        ctx.add(onnx_op, [ctx.nhwc(node.input[0])], [ctx.output(f"{node.name}:0")], axis=axis, keepdims=0)
        return
    index = ctx.unique(f"{node.name}/int64")
    ctx.add(onnx_op, [ctx.nhwc(node.input[0])], [index], axis=axis, keepdims=0)
    ctx.add("Cast", [index], [ctx.output(f"{node.name}:0")], to=TensorProto.INT32)


@exports("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")
def _batch_norm(ctx, node):
    if attr(node, "is_training", True):
        raise _NodeError("is_training=True batch norm cannot be exported for inference")
    params = [
        ctx.initializer(f"{node.name}/{w}", ctx.require_const(node, i, w))
        for i, w in ((1, "scale"), (2, "offset"), (3, "mean"), (4, "variance"))
    ]
    ctx.add(
        "BatchNormalization",
        [ctx.nchw(node.input[0])] + params,
        [ctx.output(f"{node.name}:0", nchw=True)],
        epsilon=attr(node, "epsilon", 1e-4),
    )


# --- the driver ----------------------------------------------------------------------------------
def _scalar(ctx, node, suffix, value, like):
    """An initializer holding `value` in the dtype of TF tensor `like`."""
    return ctx.initializer(f"{node.name}/{suffix}", np.array(value, numpy_dtype(ctx.specs[tensor_name(like)][0])))


@exports("LeakyRelu")
def _leaky_relu(ctx, node):
    name, nchw = ctx.value(node.input[0])
    alpha = float(attr(node, "alpha", 0.2))
    ctx.add("LeakyRelu", [name], [ctx.output(f"{node.name}:0", nchw=nchw)], alpha=alpha)


@exports("Erfc")
def _erfc(ctx, node):
    name, nchw = ctx.value(node.input[0])
    erf = ctx.unique(f"{node.name}/erf")
    ctx.add("Erf", [name], [erf])
    ctx.add("Sub", [_scalar(ctx, node, "one", 1, node.input[0]), erf], [ctx.output(f"{node.name}:0", nchw=nchw)])


@exports("NotEqual", "SquaredDifference", "DivNoNan", "FloorDiv", "FloorMod")
def _composite_binary(ctx, node):
    """Binary ops ONNX has no one op for, composed in the operands' layout."""
    (a, b), nchw = _binary_operands(ctx, node)
    out = ctx.output(f"{node.name}:0", nchw=nchw)
    step = lambda suffix: ctx.unique(f"{node.name}/{suffix}")
    integer = np.issubdtype(numpy_dtype(ctx.specs[tensor_name(node.input[0])][0]), np.integer)
    if node.op == "NotEqual":
        equal = step("equal")
        ctx.add("Equal", [a, b], [equal])
        ctx.add("Not", [equal], [out])
    elif node.op == "SquaredDifference":
        diff = step("diff")
        ctx.add("Sub", [a, b], [diff])
        ctx.add("Mul", [diff, diff], [out])
    elif node.op == "DivNoNan":  # 0 where the divisor is 0
        zero, quotient, is_zero = _scalar(ctx, node, "zero", 0, node.input[0]), step("quotient"), step("is_zero")
        ctx.add("Div", [a, b], [quotient])
        ctx.add("Equal", [b, zero], [is_zero])
        ctx.add("Where", [is_zero, zero, quotient], [out])
    elif integer:  # ONNX's integer Mod with fmod=0 takes the divisor's sign, as TensorFlow's FloorMod
        mod = out if node.op == "FloorMod" else step("mod")
        ctx.add("Mod", [a, b], [mod], fmod=0)
        if node.op == "FloorDiv":  # a - mod(a, b) divides exactly: truncation is the floor
            exact = step("exact")
            ctx.add("Sub", [a, mod], [exact])
            ctx.add("Div", [exact, b], [out])
    elif node.op == "FloorDiv":
        quotient = step("quotient")
        ctx.add("Div", [a, b], [quotient])
        ctx.add("Floor", [quotient], [out])
    else:  # float FloorMod as TensorFlow computes it: fmod, plus b where the signs differ and it is not 0
        names = {k: step(k) for k in ("fmod", "shifted", "nonzero", "zero_test", "a_neg", "b_neg", "signs", "fix")}
        zero = _scalar(ctx, node, "zero", 0, node.input[0])
        ctx.add("Mod", [a, b], [names["fmod"]], fmod=1)
        ctx.add("Add", [names["fmod"], b], [names["shifted"]])
        ctx.add("Equal", [names["fmod"], zero], [names["zero_test"]])
        ctx.add("Not", [names["zero_test"]], [names["nonzero"]])
        ctx.add("Less", [names["fmod"], zero], [names["a_neg"]])
        ctx.add("Less", [b, zero], [names["b_neg"]])
        ctx.add("Xor", [names["a_neg"], names["b_neg"]], [names["signs"]])
        ctx.add("And", [names["signs"], names["nonzero"]], [names["fix"]])
        ctx.add("Where", [names["fix"], names["shifted"], names["fmod"]], [out])


@exports("Select", "SelectV2")
def _select(ctx, node):
    cond, x, y = (ctx.nhwc(t) for t in node.input[:3])
    rank, cond_rank = ctx.rank(node.input[1]), ctx.rank(node.input[0])
    if node.op == "Select" and cond_rank == 1 and rank and rank > 1:  # TF1's Select of rows by a vector
        axes = ctx.initializer(f"{node.name}/axes", np.arange(1, rank, dtype=np.int64))
        rows = ctx.unique(f"{node.name}/rows")
        ctx.add("Unsqueeze", [cond, axes], [rows])
        cond = rows
    ctx.add("Where", [cond, x, y], [ctx.output(f"{node.name}:0")])


@exports("ZerosLike", "OnesLike")
def _fill_like(ctx, node):
    shape = ctx.unique(f"{node.name}/shape")
    ctx.add("Shape", [ctx.nhwc(node.input[0])], [shape])
    dtype = numpy_dtype(ctx.specs[f"{node.name}:0"][0])
    value = numpy_helper.from_array(np.array([0 if node.op == "ZerosLike" else 1], dtype))
    ctx.add("ConstantOfShape", [shape], [ctx.output(f"{node.name}:0")], value=value)


def _int64_operand(ctx, node, i, what):
    """Input `i` of `node` as an int64 ONNX tensor: an initializer when constant, else cast."""
    value = ctx.const(node, i)
    if value is not None:
        return ctx.initializer(f"{node.name}/{what}", value.astype(np.int64))
    name = ctx.unique(f"{node.name}/{what}")
    ctx.add("Cast", [ctx.nhwc(node.input[i])], [name], to=TensorProto.INT64)
    return name


@exports("Fill")
def _fill(ctx, node):
    dims = _int64_operand(ctx, node, 0, "dims")
    ctx.add("Expand", [ctx.nhwc(node.input[1]), dims], [ctx.output(f"{node.name}:0")])


@exports("Any", "All")
def _any_all(ctx, node):
    x = node.input[0]
    rank = ctx.rank(x)
    axes = sorted(int(a) % rank for a in ctx.require_const(node, 1, "axes").reshape(-1))
    as_int, reduced = ctx.unique(f"{node.name}/int"), ctx.unique(f"{node.name}/reduced")
    ctx.add("Cast", [ctx.nhwc(x)], [as_int], to=TensorProto.INT32)
    axes_name = ctx.initializer(f"{node.name}/axes", np.array(axes, np.int64))
    keep = int(bool(attr(node, "keep_dims", False)))
    ctx.add("ReduceMax" if node.op == "Any" else "ReduceMin", [as_int, axes_name], [reduced], keepdims=keep)
    ctx.add("Cast", [reduced], [ctx.output(f"{node.name}:0")], to=TensorProto.BOOL)


@exports("Tile")
def _tile(ctx, node):
    multiples = _int64_operand(ctx, node, 1, "multiples")
    ctx.add("Tile", [ctx.nhwc(node.input[0]), multiples], [ctx.output(f"{node.name}:0")])


@exports("ReverseV2")
def _reverse(ctx, node):
    rank = ctx.rank(node.input[0])
    axes = sorted({int(a) % rank for a in ctx.require_const(node, 1, "axis").reshape(-1)})
    x = ctx.nhwc(node.input[0])
    if not axes:
        ctx.values[f"{node.name}:0"] = ctx.value(node.input[0])
        return
    n = len(axes)
    inputs = [
        x,
        ctx.initializer(f"{node.name}/starts", np.full(n, -1, np.int64)),
        ctx.initializer(f"{node.name}/ends", np.full(n, _INT64_MIN, np.int64)),
        ctx.initializer(f"{node.name}/axes", np.array(axes, np.int64)),
        ctx.initializer(f"{node.name}/steps", np.full(n, -1, np.int64)),
    ]
    ctx.add("Slice", inputs, [ctx.output(f"{node.name}:0")])


@exports("IdentityN")
def _identity_n(ctx, node):
    for i, tensor in enumerate(data_inputs(node)):
        ctx.values[f"{node.name}:{i}"] = ctx.value(tensor)


@exports("DepthToSpace", "SpaceToDepth")
def _depth_to_space(ctx, node):
    if attr(node, "data_format", b"NHWC") not in (b"NHWC", "NHWC"):
        raise _NodeError("only data_format NHWC is exported")
    extra = {"mode": "DCR"} if node.op == "DepthToSpace" else {}  # TensorFlow's NHWC order is ONNX's DCR
    ctx.add(
        node.op,
        [ctx.nchw(node.input[0])],
        [ctx.output(f"{node.name}:0", nchw=True)],
        blocksize=int(attr(node, "block_size")),
        **extra,
    )


def _reshape_to(ctx, node, x, shape, suffix):
    out = ctx.unique(f"{node.name}/{suffix}")
    ctx.add("Reshape", [x, ctx.initializer(f"{node.name}/{suffix}_shape", np.array(shape, np.int64))], [out])
    return out


@exports("SpaceToBatchND", "BatchToSpaceND")
def _space_batch(ctx, node):
    """TensorFlow's SpaceToBatchND (Pad, then blocks moved into the batch) and BatchToSpaceND (the inverse, then
    the crops) over 2 spatial dims, or 1 (a dilated Conv1D: [N, L, C] as [N, 1, L, C]), as
    Pad/Reshape/Transpose/Slice; the spatial dims must be static, the batch need not."""
    block = ctx.require_const(node, 1, "block_shape").astype(np.int64).reshape(-1)
    what = "paddings" if node.op == "SpaceToBatchND" else "crops"
    pads = ctx.require_const(node, 2, what).astype(np.int64).reshape(-1, 2)
    shape = ctx.shape(node.input[0])
    if block.size not in (1, 2) or shape is None or len(shape) != block.size + 2 or None in shape[1:]:
        raise _NodeError(
            f"exported for 1 or 2 spatial dims of static size only (block {block.tolist()}, input {shape})"
        )
    x = ctx.nhwc(node.input[0])
    out = ctx.output(f"{node.name}:0")
    if block.size == 1:
        out_shape = ctx.shape(f"{node.name}:0")
        rows = ctx.unique(f"{node.name}/rows")
        _space_batch_2d(ctx, node, _reshape_to(ctx, node, x, [-1, 1, *shape[1:]], "row"), [1, *shape[1:]],
                        [1, block[0]], np.concatenate([[[0, 0]], pads]), rows)  # fmt: skip
        shape_name = ctx.initializer(f"{node.name}/shape_1d", np.array([-1, *out_shape[1:]], np.int64))
        ctx.add("Reshape", [rows, shape_name], [out])
        return
    _space_batch_2d(ctx, node, x, shape[1:], block.tolist(), pads, out)


def _space_batch_2d(ctx, node, x, hwc, block, pads, out):
    (bh, bw), (h, w, c) = block, hwc
    if node.op == "SpaceToBatchND":
        if pads.any():
            padded = ctx.unique(f"{node.name}/padded")
            amounts = np.array([0, pads[0][0], pads[1][0], 0, 0, pads[0][1], pads[1][1], 0], np.int64)
            ctx.add("Pad", [x, ctx.initializer(f"{node.name}/pads", amounts)], [padded])
            x, h, w = padded, h + pads[0].sum(), w + pads[1].sum()
        x = _reshape_to(ctx, node, x, [-1, h // bh, bh, w // bw, bw, c], "blocks")
        moved = ctx.unique(f"{node.name}/moved")
        ctx.add("Transpose", [x], [moved], perm=[2, 4, 0, 1, 3, 5])
        ctx.add("Reshape", [moved, ctx.initializer(f"{node.name}/shape", np.array([-1, h // bh, w // bw, c]))], [out])
        return
    x = _reshape_to(ctx, node, x, [bh, bw, -1, h, w, c], "blocks")
    moved = ctx.unique(f"{node.name}/moved")
    ctx.add("Transpose", [x], [moved], perm=[2, 3, 0, 4, 1, 5])
    full = out if not pads.any() else ctx.unique(f"{node.name}/uncropped")
    ctx.add("Reshape", [moved, ctx.initializer(f"{node.name}/shape", np.array([-1, h * bh, w * bw, c]))], [full])
    if pads.any():
        starts = np.array([pads[0][0], pads[1][0]], np.int64)
        ends = np.array([h * bh - pads[0][1], w * bw - pads[1][1]], np.int64)
        inputs = [full] + [
            ctx.initializer(f"{node.name}/{n}", v) for n, v in (("starts", starts), ("ends", ends), ("axes", [1, 2]))
        ]
        ctx.add("Slice", inputs, [out])


@exports("MatrixBandPart")
def _band_part(ctx, node):
    lower = int(ctx.require_const(node, 1, "num_lower"))
    upper = int(ctx.require_const(node, 2, "num_upper"))
    x = ctx.nhwc(node.input[0])
    steps = [(0, upper)] if upper >= 0 else []  # keep j - i <= num_upper
    steps += [(1, -lower)] if lower >= 0 else []  # keep i - j <= num_lower
    if not steps:
        ctx.values[f"{node.name}:0"] = ctx.value(node.input[0])
        return
    for i, (keep_upper, k) in enumerate(steps):
        out = ctx.output(f"{node.name}:0") if i == len(steps) - 1 else ctx.unique(f"{node.name}/band{i}")
        ctx.add("Trilu", [x, ctx.initializer(f"{node.name}/k{i}", np.array(k, np.int64))], [out], upper=keep_upper)
        x = out


@exports("Shape")
def _shape(ctx, node):
    out_type = numpy_dtype(attr(node, "out_type", 3))
    shape = ctx.unique(f"{node.name}/int64") if out_type != np.int64 else ctx.output(f"{node.name}:0")
    ctx.add("Shape", [ctx.nhwc(node.input[0])], [shape])
    if out_type != np.int64:
        ctx.add("Cast", [shape], [ctx.output(f"{node.name}:0")], to=_onnx_type(out_type))


def _split_sizes(ctx, node, x, axis, sizes):
    """ONNX Split of `x` along `axis` into `sizes` (a -1 takes the rest), each piece TF output i."""
    rank = ctx.rank(x)
    axis = int(axis) % rank
    dim = ctx.shape(x)[axis]
    sizes = [int(s) for s in np.asarray(sizes).reshape(-1)]
    if -1 in sizes:
        if dim is None:
            raise _NodeError(f"a -1 split size needs a static dimension {axis}")
        sizes[sizes.index(-1)] = dim - (sum(sizes) + 1)
    names = [ctx.output(f"{node.name}:{i}") for i in range(len(sizes))]
    split = ctx.initializer(f"{node.name}/split", np.array(sizes, np.int64))
    ctx.add("Split", [ctx.nhwc(x), split], names, axis=axis)
    return names


@exports("Split")
def _split(ctx, node):
    x, n = node.input[1], int(attr(node, "num_split"))
    axis = int(ctx.require_const(node, 0, "axis")) % ctx.rank(x)
    dim = ctx.shape(x)[axis]
    if dim is None:
        raise _NodeError(f"the split dimension {axis} must be static")
    _split_sizes(ctx, node, x, axis, [dim // n] * n)


@exports("SplitV")
def _split_v(ctx, node):
    sizes = ctx.require_const(node, 1, "size_splits")
    _split_sizes(ctx, node, node.input[0], ctx.require_const(node, 2, "axis"), sizes)


@exports("Unpack")
def _unpack(ctx, node):
    x, n = node.input[0], int(attr(node, "num"))
    axis = int(attr(node, "axis", 0)) % ctx.rank(x)
    pieces = [ctx.unique(f"{node.name}/piece{i}") for i in range(n)]
    split = ctx.initializer(f"{node.name}/split", np.ones(n, np.int64))
    ctx.add("Split", [ctx.nhwc(x), split], pieces, axis=axis)
    axes = ctx.initializer(f"{node.name}/axes", np.array([axis], np.int64))
    for i, piece in enumerate(pieces):
        ctx.add("Squeeze", [piece, axes], [ctx.output(f"{node.name}:{i}")])


@exports("ArgMin")
def _arg_min(ctx, node):
    _arg_extreme(ctx, node, "ArgMin")


@exports("Rint", "Expm1", "Log1p", "IsFinite")
def _more_unary(ctx, node):
    """Element-wise ops ONNX composes: Rint is Round (both round half to even), Expm1 Exp - 1, Log1p Log(1 + x)
    (without expm1's / log1p's accuracy near 0), IsFinite neither NaN nor infinite."""
    name, nchw = ctx.value(node.input[0])
    out = ctx.output(f"{node.name}:0", nchw=nchw)
    step = lambda suffix: ctx.unique(f"{node.name}/{suffix}")
    if node.op == "Rint":
        ctx.add("Round", [name], [out])
    elif node.op == "IsFinite":
        nan, inf, either = step("nan"), step("inf"), step("either")
        ctx.add("IsNaN", [name], [nan])
        ctx.add("IsInf", [name], [inf])
        ctx.add("Or", [nan, inf], [either])
        ctx.add("Not", [either], [out])
    else:
        one, inner = _scalar(ctx, node, "one", 1, node.input[0]), step("inner")
        if node.op == "Expm1":
            ctx.add("Exp", [name], [inner])
            ctx.add("Sub", [inner, one], [out])
        else:
            ctx.add("Add", [name, one], [inner])
            ctx.add("Log", [inner], [out])


@exports("Cumsum")
def _cumsum(ctx, node):
    axis = ctx.initializer(f"{node.name}/axis", np.array(int(ctx.require_const(node, 1, "axis")), np.int64))
    flags = {"exclusive": int(bool(attr(node, "exclusive", False))), "reverse": int(bool(attr(node, "reverse", False)))}
    ctx.add("CumSum", [ctx.nhwc(node.input[0]), axis], [ctx.output(f"{node.name}:0")], **flags)


_MAX_CUMPROD_STEPS = 1024


@exports("Cumprod")
def _cumprod(ctx, node):
    """TensorFlow's Cumprod along a static axis, written out (opset 18 has no CumProd): the running product one
    Mul per element in TensorFlow's order (exclusive: starting from ones; reverse: from the end), then Concat."""
    shape = ctx.shape(node.input[0])
    axis = int(ctx.require_const(node, 1, "axis"))
    if shape is None or not -len(shape) <= axis < len(shape) or shape[axis] is None:
        raise _NodeError(f"the axis {axis} of the input (shape {shape}) must have a static length")
    axis %= len(shape)
    steps = shape[axis]
    if steps > _MAX_CUMPROD_STEPS:
        raise _NodeError(f"the axis has {steps} elements; the ONNX Cumprod is written out for at most 1024")
    x = ctx.nhwc(node.input[0])
    dtype = numpy_dtype(ctx.specs[tensor_name(node.input[0])][0])
    exclusive, reverse = bool(attr(node, "exclusive", False)), bool(attr(node, "reverse", False))
    parts = [ctx.unique(f"{node.name}/element_{i}") for i in range(steps)]
    if steps:
        ctx.add("Split", [x], parts, axis=axis, num_outputs=steps)
    order = list(range(steps))[::-1] if reverse else list(range(steps))
    running, products = None, [None] * steps
    for i in order:
        if exclusive:
            if running is None:
                shape, running = ctx.unique(f"{node.name}/element_shape"), ctx.unique(f"{node.name}/ones")
                ctx.add("Shape", [parts[i]], [shape])
                ctx.add("Expand", [ctx.initializer(f"{node.name}/one", np.array(1, dtype)), shape], [running])
            products[i] = running
            following = ctx.unique(f"{node.name}/product_{i}")
            ctx.add("Mul", [running, parts[i]], [following])
            running = following
        else:
            if running is None:
                running = parts[i]
            else:
                following = ctx.unique(f"{node.name}/product_{i}")
                ctx.add("Mul", [running, parts[i]], [following])
                running = following
            products[i] = running
    out = ctx.output(f"{node.name}:0")
    if steps:
        ctx.add("Concat", products, [out], axis=axis)
    else:
        ctx.add("Identity", [x], [out])


@exports("Atan2")
def _atan2(ctx, node):
    """atan(y / x), plus pi (y >= 0) or minus pi (y < 0) where x < 0; pi/2 or -pi/2 (y's sign) where x is 0, and
    0 where y is 0 too (float32; as the .twl lowering; ONNX has no Atan2)."""
    if numpy_dtype(ctx.specs[f"{node.name}:0"][0]) != np.float32:
        raise _NodeError(f"Atan2 of {numpy_dtype(ctx.specs[f'{node.name}:0'][0])} is not supported (float32 only)")
    y, x = ctx.nhwc(node.input[0]), ctx.nhwc(node.input[1])

    def const(suffix, value):
        return ctx.initializer(f"{node.name}/{suffix}", np.array(value, np.float32))

    def step(suffix, op, inputs):
        name = ctx.unique(f"{node.name}/{suffix}")
        ctx.add(op, inputs, [name])
        return name

    zero = const("zero", 0.0)
    angle = step("atan", "Atan", [step("ratio", "Div", [y, x])])
    y_up = step("y_nonnegative", "GreaterOrEqual", [y, zero])
    turn = step("turn", "Where", [y_up, const("pi", np.pi), const("minus_pi", -np.pi)])
    turned = step("turned", "Where", [step("x_negative", "Less", [x, zero]), turn, zero])
    summed = step("summed", "Add", [angle, turned])
    x_zero = step("x_zero", "Equal", [x, zero])
    origin = step("origin", "And", [x_zero, step("y_zero", "Equal", [y, zero])])
    upright = step("upright", "Where", [y_up, const("half_pi", np.pi / 2), const("minus_half_pi", -np.pi / 2)])
    on_axis = step("on_axis", "Where", [x_zero, upright, summed])
    ctx.add("Where", [origin, zero, on_axis], [ctx.output(f"{node.name}:0")])


@exports("TopKV2")
def _top_k(ctx, node):
    k = ctx.initializer(f"{node.name}/k", ctx.require_const(node, 1, "k").astype(np.int64).reshape(1))
    index = ctx.unique(f"{node.name}/int64")
    values = ctx.output(f"{node.name}:0")
    ctx.add("TopK", [ctx.nhwc(node.input[0]), k], [values, index], axis=-1, largest=1, sorted=1)
    to = _onnx_type(numpy_dtype(ctx.specs[f"{node.name}:1"][0]))
    ctx.add("Cast", [index], [ctx.output(f"{node.name}:1")], to=to)


@exports("OneHot")
def _one_hot(ctx, node):
    """ONNX's OneHot, a negative index first made out of range: TF gives it off values, ONNX counts it from the
    end."""
    depth = int(ctx.require_const(node, 1, "depth"))
    indices = ctx.nhwc(node.input[0])
    as_int = ctx.unique(f"{node.name}/indices")
    ctx.add("Cast", [indices], [as_int], to=TensorProto.INT64)
    negative, outside = ctx.unique(f"{node.name}/negative"), ctx.unique(f"{node.name}/outside")
    zero = ctx.initializer(f"{node.name}/zero", np.array(0, np.int64))
    depth_name = ctx.initializer(f"{node.name}/depth", np.array(depth, np.int64))
    ctx.add("Less", [as_int, zero], [negative])
    ctx.add("Where", [negative, depth_name, as_int], [outside])
    on, off = ctx.nhwc(node.input[2]), ctx.nhwc(node.input[3])
    values = ctx.unique(f"{node.name}/values")
    ctx.add("Concat", [_unsqueezed(ctx, node, off, "off"), _unsqueezed(ctx, node, on, "on")], [values], axis=0)
    ctx.add("OneHot", [outside, depth_name, values], [ctx.output(f"{node.name}:0")], axis=int(attr(node, "axis", -1)))


def _unsqueezed(ctx, node, name, suffix):
    out = ctx.unique(f"{node.name}/{suffix}1")
    ctx.add("Unsqueeze", [name, ctx.initializer(f"{node.name}/{suffix}_axes", np.array([0], np.int64))], [out])
    return out


@exports("BroadcastTo")
def _broadcast_to(ctx, node):
    shape = _int64_operand(ctx, node, 1, "shape")
    ctx.add("Expand", [ctx.nhwc(node.input[0]), shape], [ctx.output(f"{node.name}:0")])


@exports("GatherNd")
def _gather_nd(ctx, node):
    indices = ctx.unique(f"{node.name}/indices")
    ctx.add("Cast", [ctx.nhwc(node.input[1])], [indices], to=TensorProto.INT64)
    ctx.add("GatherND", [ctx.nhwc(node.input[0]), indices], [ctx.output(f"{node.name}:0")])


@exports("MirrorPad")
def _mirror_pad(ctx, node):
    """REFLECT (the edge not repeated) and SYMMETRIC (repeated) padding, axis by axis: the reversed slices
    beside the edges concatenated around the tensor (ONNX's reflect Pad has no symmetric mode)."""
    pads = ctx.require_const(node, 1, "paddings").astype(np.int64)
    mode = attr(node, "mode", b"REFLECT")
    mode = mode.decode() if isinstance(mode, bytes) else mode
    shape = ctx.shape(node.input[0])
    shift = 1 if mode == "REFLECT" else 0
    x = ctx.nhwc(node.input[0])
    axes = [a for a in range(len(pads)) if pads[a].any()]
    if not axes:
        ctx.values[f"{node.name}:0"] = ctx.value(node.input[0])
        return
    for i, axis in enumerate(axes):
        n = shape[axis]
        if n is None:
            raise _NodeError(f"mirror padding needs a static dimension {axis}")
        before, after = int(pads[axis][0]), int(pads[axis][1])
        parts = []
        if before:
            parts.append(_reversed_slice(ctx, node, x, axis, shift, shift + before, f"a{axis}_before"))
        parts.append(x)
        if after:
            parts.append(_reversed_slice(ctx, node, x, axis, n - shift - after, n - shift, f"a{axis}_after"))
        out = ctx.output(f"{node.name}:0") if i == len(axes) - 1 else ctx.unique(f"{node.name}/axis{axis}")
        ctx.add("Concat", parts, [out], axis=axis)
        x = out


def _reversed_slice(ctx, node, x, axis, begin, end, suffix):
    """x[begin:end] along `axis`, reversed."""
    out = ctx.unique(f"{node.name}/{suffix}")
    inputs = [x] + [
        ctx.initializer(f"{node.name}/{suffix}_{k}", np.array([v], np.int64))
        for k, v in (
            ("starts", end - 1),
            ("ends", begin - 1 if begin > 0 else _INT64_MIN),
            ("axes", axis),
            ("steps", -1),
        )
    ]
    ctx.add("Slice", inputs, [out])
    return out


@exports("ReverseSequence")
def _reverse_sequence(ctx, node):
    batch, time = int(attr(node, "batch_dim", 0)), int(attr(node, "seq_dim"))
    if {batch, time} != {0, 1}:
        raise _NodeError(f"ONNX's ReverseSequence takes batch and time axes 0 and 1, not {batch} and {time}")
    lengths = ctx.unique(f"{node.name}/lengths")
    ctx.add("Cast", [ctx.nhwc(node.input[1])], [lengths], to=TensorProto.INT64)
    ctx.add(
        "ReverseSequence",
        [ctx.nhwc(node.input[0]), lengths],
        [ctx.output(f"{node.name}:0")],
        batch_axis=batch,
        time_axis=time,
    )


@exports("_TwlRnn")
def _twl_rnn(ctx, node):
    """ONNX's LSTM, GRU or RNN, whose semantics and operand layouts _TwlRnn has (converters/tf_rnn_loops.py)."""
    kind, states = attr(node, "kind"), int(attr(node, "num_states"))
    inputs = [ctx.nhwc(node.input[0])]
    inputs += [ctx.initializer(f"{node.name}/{w}", ctx.require_const(node, i, w)) for i, w in enumerate("WRB", 1)]
    lengths = ctx.nhwc(node.input[4 + states]) if int(attr(node, "num_lengths", 0)) else ""
    inputs += [lengths] + [ctx.nhwc(node.input[4 + i]) for i in range(states)]
    outputs = [ctx.output(f"{node.name}:{i}") for i in range(1 + states)]
    options = {"hidden_size": int(attr(node, "hidden_size"))}
    if kind == "GRU":
        options["linear_before_reset"] = int(bool(attr(node, "linear_before_reset", False)))
    gate, cell = attr(node, "gate_activation", "Sigmoid"), attr(node, "activation", "Tanh")
    if (gate, cell) != ("Sigmoid", "Tanh"):
        # ONNX's f, g (and h: an LSTM's output activation is its cell's); a HardSigmoid's alpha and beta in the
        # order of the activations that take them.
        acts = {"LSTM": [gate, cell, cell], "GRU": [gate, cell], "RNN": [cell]}[kind]
        options["activations"] = acts
        hard = acts.count("HardSigmoid")
        if hard:
            options["activation_alpha"] = [float(attr(node, "activation_alpha", 0.2))] * hard
            options["activation_beta"] = [float(attr(node, "activation_beta", 0.5))] * hard
    ctx.add(kind, inputs, outputs, **options)


@exports("LRN")
def _lrn(ctx, node):
    """ONNX's LRN (NCHW) with TensorFlow's window 2 * depth_radius + 1; ONNX divides alpha by the window."""
    radius = int(attr(node, "depth_radius", 5))
    size = 2 * radius + 1
    ctx.add(
        "LRN",
        [ctx.nchw(node.input[0])],
        [ctx.output(f"{node.name}:0", nchw=True)],
        size=size,
        alpha=float(attr(node, "alpha", 1.0)) * size,
        beta=float(attr(node, "beta", 0.5)),
        bias=float(attr(node, "bias", 1.0)),
    )


def _ncdhw(ctx, node, tensor, suffix):
    out = ctx.unique(f"{node.name}/{suffix}")
    ctx.add("Transpose", [ctx.nhwc(tensor)], [out], perm=[0, 4, 1, 2, 3])
    return out


def _pads_3d(node, in_shape, kernel, strides, dilations):
    if lowering.padding(node) == "VALID":
        return [0] * 6
    if None in in_shape[1:4]:
        raise _NodeError("SAME padding needs static spatial dims")
    pairs = [lowering.same_pads(in_shape[1 + i], kernel[i], strides[i], dilations[i]) for i in range(3)]
    return [p[0] for p in pairs] + [p[1] for p in pairs]


@exports("Conv3D", "MaxPool3D", "AvgPool3D")
def _conv_pool_3d(ctx, node):
    """3-D convolution and pooling in NCDHW between Transposes of the NDHWC tensors (average pooling without
    the padding, as TensorFlow's)."""
    if attr(node, "data_format", b"NDHWC") not in (b"NDHWC", "NDHWC"):
        raise _NodeError("only data_format NDHWC is exported")
    strides = [int(s) for s in attr(node, "strides")[1:4]]
    x = node.input[0]
    in_shape = ctx.shape(x)
    result = ctx.unique(f"{node.name}/ncdhw")
    if node.op == "Conv3D":
        filt = ctx.require_const(node, 1, "the filter")
        dilations = [int(d) for d in (attr(node, "dilations", None) or [1] * 5)[1:4]]
        kernel = list(filt.shape[:3])
        weights = ctx.initializer(f"{node.name}/filter", np.ascontiguousarray(filt.transpose(4, 3, 0, 1, 2)))
        pads = _pads_3d(node, in_shape, kernel, strides, dilations)
        ctx.add(
            "Conv",
            [_ncdhw(ctx, node, x, "input"), weights],
            [result],
            kernel_shape=kernel,
            strides=strides,
            dilations=dilations,
            pads=pads,
        )
    else:
        kernel = [int(k) for k in attr(node, "ksize")[1:4]]
        pads = _pads_3d(node, in_shape, kernel, strides, [1, 1, 1])
        extra = {"count_include_pad": 0} if node.op == "AvgPool3D" else {}
        op = "MaxPool" if node.op == "MaxPool3D" else "AveragePool"
        ctx.add(op, [_ncdhw(ctx, node, x, "input")], [result], kernel_shape=kernel, strides=strides, pads=pads, **extra)
    ctx.add("Transpose", [result], [ctx.output(f"{node.name}:0")], perm=[0, 2, 3, 4, 1])


@exports("Conv3DBackpropInputV2")
def _conv_3d_transpose(ctx, node):
    """ConvTranspose in NCDHW between Transposes, with the padding of the 3-D convolution it is the gradient of
    (its input is this op's output, input_sizes, which must be static but for the batch) and the output padding
    that gives TensorFlow's output size."""
    if attr(node, "data_format", "NDHWC") != "NDHWC":
        raise _NodeError("only data_format NDHWC is exported")
    sizes, x_shape = ctx.shape(f"{node.name}:0"), ctx.shape(node.input[2])
    filt = ctx.require_const(node, 1, "the filter")
    if sizes is None or None in sizes[1:] or x_shape is None or None in x_shape[1:4] or filt.ndim != 5:
        raise _NodeError(f"the input and output shapes ({x_shape}, {sizes}) must be static but for the batch")
    strides = [int(v) for v in attr(node, "strides")[1:4]]
    dilations = [int(v) for v in (attr(node, "dilations", None) or [1] * 5)[1:4]]
    kernel = list(filt.shape[:3])
    if lowering.padding(node) == "SAME":
        pads = [lowering.same_pads(sizes[1 + i], kernel[i], strides[i], dilations[i]) for i in range(3)]
    else:
        pads = [(0, 0)] * 3
    extra = [
        sizes[1 + i] - (strides[i] * (x_shape[1 + i] - 1) + (kernel[i] - 1) * dilations[i] + 1 - sum(pads[i]))
        for i in range(3)
    ]
    if any(e < 0 or e >= max(strides[i], dilations[i]) for i, e in enumerate(extra)):
        raise _NodeError(f"the output size {sizes[1:4]} cannot come out of a transposed convolution of {x_shape}")
    weights = ctx.initializer(f"{node.name}/filter", np.ascontiguousarray(filt.transpose(4, 3, 0, 1, 2)))
    result = ctx.unique(f"{node.name}/ncdhw")
    ctx.add(
        "ConvTranspose",
        [_ncdhw(ctx, node, node.input[2], "input"), weights],
        [result],
        kernel_shape=kernel,
        strides=strides,
        dilations=dilations,
        pads=[p[0] for p in pads] + [p[1] for p in pads],
        output_padding=extra,
    )
    ctx.add("Transpose", [result], [ctx.output(f"{node.name}:0")], perm=[0, 2, 3, 4, 1])


def _value_info(name, dt, shape):
    dims = None if shape is None else [("batch" if d is None else d) for d in shape]
    return helper.make_tensor_value_info(name, _onnx_type(numpy_dtype(dt)), dims)


def _rename(ctx, old, new):
    ctx._names.add(new)
    for n in ctx.nodes:
        for field in (n.input, n.output):
            for i, name in enumerate(field):
                if name == old:
                    field[i] = new
        if n.name == old:
            n.name = new
    for key, (name, nchw) in list(ctx.values.items()):
        if name == old:
            ctx.values[key] = (new, nchw)


def export(frozen_graph_def, inputs, outputs, input_keys=None, output_keys=None):
    """An onnx.ModelProto (opset 18) of a frozen GraphDef."""
    inputs = [tensor_name(i) for i in inputs]
    outputs = [tensor_name(o) for o in outputs]
    view = GraphView(frozen_graph_def)
    nodes = lowering.nodes_to_convert(view, EXPORTERS, "ONNX")
    ctx = Context(frozen_graph_def, outputs)
    graph_inputs = []
    for name, key in lowering.signature_keys(inputs, input_keys):
        lowering.placeholder(view, name)
        dt, shape = ctx.specs[name]
        key = ctx.unique(key)
        graph_inputs.append(_value_info(key, dt, shape))
        ctx.values[name] = (key, False)
    # A node can be absorbed (fused) by one converted before it.
    lowering.convert_all(ctx, nodes, EXPORTERS, "ONNX")
    graph_outputs = []
    for name, key in lowering.signature_keys(outputs, output_keys):
        try:
            value = ctx.nhwc(name)
        except _NodeError as e:
            raise ConversionError(str(e)) from None
        if value != key:
            produced = any(value in n.output for n in ctx.nodes)
            taken = key in ctx._names or any(g.name == key for g in graph_inputs)
            if produced and not taken and value not in {o.name for o in graph_outputs}:
                _rename(ctx, value, key)  # the producer writes the output name itself
            else:
                key = key if not taken else ctx.unique(key)
                ctx._names.add(key)
                ctx.add("Identity", [value], [key])
        dt, shape = ctx.specs[name]
        graph_outputs.append(_value_info(key, dt, shape))
    graph = helper.make_graph(ctx.nodes, "tensorweave", graph_inputs, graph_outputs, ctx.initializers)
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name=PRODUCER, producer_version="0.1.0"
    )
    model.ir_version = 8  # what onnxruntime >= 1.14 reads; opset 18 needs >= 8
    onnx.checker.check_model(model, full_check=True)
    return model

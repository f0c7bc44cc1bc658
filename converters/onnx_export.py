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


@exports(*_BINARY)
def _binary(ctx, node):
    a, b = node.input[0], node.input[1]
    out = f"{node.name}:0"
    nchw = ctx.rank(out) == 4 and any(ctx.values.get(tensor_name(t), (0, False))[1] for t in (a, b))
    if nchw:
        operands = [_nchw_operand(ctx, t) for t in (a, b)]
        if all(o is not None for o in operands):
            ctx.add(_BINARY[node.op], operands, [ctx.output(out, nchw=True)])
            return
    ctx.add(_BINARY[node.op], [ctx.nhwc(a), ctx.nhwc(b)], [ctx.output(out)])


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


@exports("Mean", "Sum")
def _reduce(ctx, node):
    x = node.input[0]
    rank = ctx.rank(x)
    axes = [int(a) % rank for a in ctx.require_const(node, 1, "axes").reshape(-1)]
    keep = bool(attr(node, "keep_dims", False))
    onnx_op = "ReduceMean" if node.op == "Mean" else "ReduceSum"
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
    if attr(node, "ellipsis_mask", 0) or attr(node, "new_axis_mask", 0):
        raise _NodeError("ellipsis_mask / new_axis_mask are not supported in ONNX export")
    begin, end, strides = (
        ctx.require_const(node, i, w).astype(np.int64) for i, w in ((1, "begin"), (2, "end"), (3, "strides"))
    )
    begin_mask, end_mask = attr(node, "begin_mask", 0), attr(node, "end_mask", 0)
    shrink = attr(node, "shrink_axis_mask", 0)
    starts, ends = begin.copy(), end.copy()
    for i in range(len(begin)):
        if begin_mask >> i & 1:
            starts[i] = 0 if strides[i] > 0 else _INT64_MAX
        if end_mask >> i & 1:
            ends[i] = _INT64_MAX if strides[i] > 0 else _INT64_MIN
        if shrink >> i & 1:
            ends[i] = begin[i] + 1 if begin[i] != -1 else _INT64_MAX
            strides[i] = 1
    inputs = [
        ctx.nhwc(node.input[0]),
        ctx.initializer(f"{node.name}/starts", starts),
        ctx.initializer(f"{node.name}/ends", ends),
        ctx.initializer(f"{node.name}/axes", np.arange(len(begin), dtype=np.int64)),
        ctx.initializer(f"{node.name}/steps", strides),
    ]
    shrunk = [i for i in range(len(begin)) if shrink >> i & 1]
    if not shrunk:
        ctx.add("Slice", inputs, [ctx.output(f"{node.name}:0")])
        return
    sliced = ctx.unique(f"{node.name}/slice")
    ctx.add("Slice", inputs, [sliced])
    axes = ctx.initializer(f"{node.name}/shrink_axes", np.array(shrunk, np.int64))
    ctx.add("Squeeze", [sliced, axes], [ctx.output(f"{node.name}:0")])


@exports("ArgMax")
def _arg_max(ctx, node):
    axis = int(ctx.require_const(node, 1, "axis"))
    out_type = numpy_dtype(attr(node, "output_type", 9))
    if out_type == np.int64:
        ctx.add("ArgMax", [ctx.nhwc(node.input[0])], [ctx.output(f"{node.name}:0")], axis=axis, keepdims=0)
        return
    index = ctx.unique(f"{node.name}/int64")
    ctx.add("ArgMax", [ctx.nhwc(node.input[0])], [index], axis=axis, keepdims=0)
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

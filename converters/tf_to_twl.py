"""Lowers a frozen GraphDef (converters/freeze.py) to a .twl model.

Table-driven: `LOWERINGS` maps a TensorFlow op type to a function emitting
lite operators; adding an op's conversion is one entry. Lowerings fuse what
follows them when it is the only consumer: MatMul / Conv2D /
DepthwiseConv2dNative absorb a constant bias add (BiasAdd or Add of a [C]
constant) and then an activation (Relu, Relu6, Tanh, Sigmoid) into one
FULLY_CONNECTED / CONV_2D / DEPTHWISE_CONV_2D; ADD/SUB/MUL/DIV absorb an
activation too.

Shapes: every tensor gets the static shape it has with the batch (each
unknown Placeholder dim) set to 1, and a shape_signature with -1 where the
dim is unknown, from the core's own shape inference.

Example:
  >>> import numpy as np
  >>> import tensorweave as tw
  >>> from converters import freeze, tf_to_twl
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     x = tw.placeholder(tw.float32, [None, 2], name="x")
  ...     y = tw.identity(tw.matmul(x, tw.constant([[1.0], [2.0]])), name="y")
  ...     frozen = freeze.freeze_session(sess, ["x"], ["y"])
  >>> data = tf_to_twl.convert(frozen, ["x"], ["y"])
  >>> data[4:8]
  b'TWL1'
"""

import json

import numpy as np

from converters import freeze, lowering, tables
from converters.errors import ConversionError
from converters.errors import NodeError as _NodeError
from converters.graph_util import GraphView, attr, data_inputs, numpy_dtype, parse_input, tensor_name
from converters.lowering import check_nhwc, lite_window_options, same_pads, spatial_pair
from converters.twl_writer import TwlModelBuilder

PRODUCER = "tensorweave-convert 0.1.0"
LOWERINGS = {}
ACTIVATIONS = {"Relu": "RELU", "Relu6": "RELU6", "Tanh": "TANH", "Sigmoid": "SIGMOID"}


lowers = tables.registrar(LOWERINGS)


class Context(lowering.GraphLowering):
    """What a lowering sees: the frozen graph, shapes, and the model built."""

    def __init__(self, graph_def, outputs):
        super().__init__(graph_def, outputs)
        self.signature_specs = freeze.all_tensor_specs(graph_def)
        self.specs = freeze.all_tensor_specs(graph_def, batch_size=1)
        self.builder = TwlModelBuilder()
        self.tensors = {}  # TF tensor name -> twl tensor index

    # --- inputs -----------------------------------------------------------
    def input(self, node, i):
        """The twl tensor of data input `i` (constants are added on use)."""
        name = tensor_name(data_inputs(node)[i])
        if name in self.tensors:
            return self.tensors[name]
        value = self.view.const_value(name)
        if value is None:
            raise _NodeError(f"input {i} '{name}' has not been computed")
        self.tensors[name] = self.constant(parse_input(name)[0], value)
        return self.tensors[name]

    def constant(self, name, value, dtype=None):
        value = np.asarray(value, dtype=dtype)
        if value.dtype == np.float64:
            value = value.astype(np.float32)
        return self.builder.add_constant(name, value)

    def shape(self, tensor):
        return self.specs[tensor_name(tensor)][1]

    def rank(self, node, i):
        shape = self.shape(data_inputs(node)[i])
        return None if shape is None else len(shape)

    # --- outputs ----------------------------------------------------------
    def output(self, tensor, dtype=None):
        """A new twl tensor standing for TF tensor `tensor`."""
        tensor = tensor_name(tensor)
        dt, shape = self.specs[tensor]
        _, signature = self.signature_specs[tensor]
        if shape is None or any(d is None for d in shape):
            raise _NodeError(f"output '{tensor}' has no static shape ({shape})")
        signature = [-1 if d is None else d for d in signature] if signature else None
        node_name, index = parse_input(tensor)
        name = node_name if index == 0 else tensor
        index = self.builder.add_tensor(name, shape, dtype or _np_dtype(dt, tensor), signature)
        self.tensors[tensor] = index
        return index

    def intermediate(self, name, shape, dtype, like=None):
        """A twl tensor with no TF counterpart; `like` gives a batch signature."""
        signature = None
        if like is not None:
            sig = self.signature_specs[tensor_name(like)][1]
            if sig and sig[0] is None and shape:
                signature = [-1] + list(shape[1:])
        return self.builder.add_tensor(name, shape, dtype, signature)

    def alias(self, tensor, index):
        self.tensors[tensor_name(tensor)] = index

    # --- fusion -------------------------------------------------------------
    def fuse_bias(self, tensor, channels):
        """(bias twl index or -1, TF tensor after the bias)."""
        value, last = super().fuse_bias(tensor, channels)
        if value is None:
            return -1, tensor
        return self.constant(f"{parse_input(last)[0]}/bias", value), last

    def fuse_activation(self, tensor):
        """(fused activation name, TF tensor after it)."""
        node = self.sole_consumer(tensor, ACTIVATIONS)
        if node is None:
            return "NONE", tensor
        self.absorbed.add(node.name)
        return ACTIVATIONS[node.op], f"{node.name}:0"


# ADD, SUB, MUL, DIV with no fused activation.
_ARITHMETIC = ("ArithmeticOptions", {})


def _like(ctx, node, suffix):
    """An intermediate twl tensor named node/suffix, shaped and typed as the node's output (its signature too)."""
    out = f"{node.name}:0"
    dt, shape = ctx.specs[out]
    return ctx.intermediate(f"{node.name}/{suffix}", shape, numpy_dtype(dt), like=out)


def _np_dtype(dt, what):
    dtype = numpy_dtype(dt)
    if dtype == np.float64:
        raise _NodeError(f"'{what}' is float64; the lite runtime computes in float32")
    return dtype


# --- lowerings ----------------------------------------------------------------------
@lowers("Identity", "Snapshot", "StopGradient")
def _identity(ctx, node):
    ctx.alias(f"{node.name}:0", ctx.input(node, 0))


@lowers("IdentityN")
def _identity_n(ctx, node):
    """Each output is its input (tf.custom_gradient writes one: Keras' swish/silu)."""
    for i in range(len(data_inputs(node))):
        ctx.alias(f"{node.name}:{i}", ctx.input(node, i))


@lowers("MatMul")
def _matmul(ctx, node):
    weights = ctx.const(node, 1)
    transpose_a, transpose_b = attr(node, "transpose_a", False), attr(node, "transpose_b", False)
    if weights is None or transpose_a or ctx.rank(node, 0) != 2:
        x, y = ctx.input(node, 0), ctx.input(node, 1)
        out = ctx.output(f"{node.name}:0")
        options = {"adj_x": bool(transpose_a), "adj_y": bool(transpose_b)}
        ctx.builder.add_op("BATCH_MATMUL", [x, y], [out], ("BatchMatMulOptions", options))
        return
    weights = weights if transpose_b else weights.T  # FULLY_CONNECTED wants [out, in]
    _fully_connected(ctx, node, ctx.input(node, 0), np.ascontiguousarray(weights))


def _fully_connected(ctx, node, x, weights):
    w = ctx.constant(f"{node.name}/weights", weights)
    bias, last = ctx.fuse_bias(f"{node.name}:0", weights.shape[0])
    activation, last = ctx.fuse_activation(last)
    out = ctx.output(last)
    options = {"fused_activation_function": activation}
    ctx.builder.add_op("FULLY_CONNECTED", [x, w, bias], [out], ("FullyConnectedOptions", options))


@lowers("BatchMatMul", "BatchMatMulV2")
def _batch_matmul(ctx, node):
    options = {"adj_x": bool(attr(node, "adj_x", False)), "adj_y": bool(attr(node, "adj_y", False))}
    inputs = [ctx.input(node, 0), ctx.input(node, 1)]
    ctx.builder.add_op("BATCH_MATMUL", inputs, [ctx.output(f"{node.name}:0")], ("BatchMatMulOptions", options))


@lowers("Reciprocal")
def _reciprocal(ctx, node):
    out = f"{node.name}:0"
    one = ctx.constant(f"{node.name}/one", np.array(1, numpy_dtype(ctx.specs[out][0])))
    ctx.builder.add_op("DIV", [one, ctx.input(node, 0)], [ctx.output(out)], _ARITHMETIC)


@lowers("Pow")
def _pow(ctx, node):
    """x^2, x^0.5, x^-0.5 as SQUARE, SQRT, RSQRT; any other exponent (x^3 of the tanh GELU, a tensor) as POW."""
    exponent = ctx.const(node, 1)
    if exponent is not None and np.size(exponent) == 1 and float(np.reshape(exponent, [])) in (2.0, 0.5, -0.5):
        opcode = lowering.lite_pow_opcode(np.asarray(exponent))
        ctx.builder.add_op(opcode, [ctx.input(node, 0)], [ctx.output(f"{node.name}:0")])
        return
    ctx.builder.add_op("POW", [ctx.input(node, 0), ctx.input(node, 1)], [ctx.output(f"{node.name}:0")])


def _explicit_pad(ctx, node, x, explicit):
    """A PAD of the convolution's input by its explicit [(top, bottom), (left, right)] paddings."""
    dt, shape = ctx.specs[tensor_name(node.input[0])]
    pads = np.array([[0, 0], *explicit, [0, 0]], np.int32)
    padded_shape = None
    if shape is not None:
        padded_shape = [d if d is None or i in (0, 3) else d + int(sum(pads[i])) for i, d in enumerate(shape)]
    padded = ctx.intermediate(f"{node.name}/explicit_pad", padded_shape, numpy_dtype(dt), like=node.input[0])
    ctx.builder.add_op("PAD", [x, ctx.constant(f"{node.name}/explicit_paddings", pads)], [padded])
    return padded


@lowers("Conv2D", "DepthwiseConv2dNative")
def _conv(ctx, node):
    check_nhwc(node)
    filt = ctx.require_const(node, 1, "the filter")
    strides, dilations = spatial_pair(node, "strides"), spatial_pair(node, "dilations")
    explicit = lowering.explicit_pads(node)
    padding = "VALID" if explicit is not None else lowering.padding(node)
    options = lite_window_options(padding, strides, dilations=dilations)
    h, w, c, m = filt.shape  # HWIO, or HWIM for depthwise
    if node.op == "Conv2D":
        opcode, table, channels = "CONV_2D", "Conv2DOptions", m
        filt = np.ascontiguousarray(filt.transpose(3, 0, 1, 2))  # OHWI
    else:
        opcode, table, channels = "DEPTHWISE_CONV_2D", "DepthwiseConv2DOptions", c * m
        filt = filt.reshape(1, h, w, c * m)  # output channel c * M + m
        options["depth_multiplier"] = m
    x = ctx.input(node, 0)
    if explicit is not None:  # a PAD, then the convolution VALID
        x = _explicit_pad(ctx, node, x, explicit)
    f = ctx.constant(f"{node.name}/filter", filt)
    bias, last = ctx.fuse_bias(f"{node.name}:0", channels)
    activation, last = ctx.fuse_activation(last)
    options["fused_activation_function"] = activation
    ctx.builder.add_op(opcode, [x, f, bias], [ctx.output(last)], (table, options))


@lowers("Shape")
def _shape(ctx, node):
    """SHAPE (int32 or int64, the node's out_type), of a tensor with a
    run-time batch; static shapes were folded by freeze."""
    ctx.builder.add_op("SHAPE", [ctx.input(node, 0)], [ctx.output(f"{node.name}:0")])


@lowers("Erf", "Erfc")
def _erf(ctx, node):
    """ERF; Erfc (Keras' exact GELU: 0.5 x erfc(-x / sqrt(2))) as 1 - ERF."""
    out = f"{node.name}:0"
    if node.op == "Erf":
        ctx.builder.add_op("ERF", [ctx.input(node, 0)], [ctx.output(out)])
        return
    erf = _like(ctx, node, "erf")
    ctx.builder.add_op("ERF", [ctx.input(node, 0)], [erf])
    one = ctx.constant(f"{node.name}/one", np.array(1, numpy_dtype(ctx.specs[out][0])))
    ctx.builder.add_op("SUB", [one, erf], [ctx.output(out)], _ARITHMETIC)


@lowers("IsFinite")
def _is_finite(ctx, node):
    """LOGICAL_NOT of LOGICAL_OR(IS_NAN, IS_INF) (tf.math.reduce_logsumexp checks its max with it)."""
    x = ctx.input(node, 0)
    nan, inf, either = (_like(ctx, node, s) for s in ("is_nan", "is_inf", "nan_or_inf"))
    ctx.builder.add_op("IS_NAN", [x], [nan])
    ctx.builder.add_op("IS_INF", [x], [inf])
    ctx.builder.add_op("LOGICAL_OR", [nan, inf], [either])
    ctx.builder.add_op("LOGICAL_NOT", [either], [ctx.output(f"{node.name}:0")])


@lowers("Cumsum", "Cumprod")
def _cumulative(ctx, node):
    """CUMSUM / CUMPROD along the constant axis, with TensorFlow's exclusive and reverse."""
    axis = ctx.constant(f"{node.name}/axis", np.asarray(ctx.require_const(node, 1, "axis"), np.int32).reshape([]))
    options = {"exclusive": bool(attr(node, "exclusive", False)), "reverse": bool(attr(node, "reverse", False))}
    opcode = "CUMSUM" if node.op == "Cumsum" else "CUMPROD"
    ctx.builder.add_op(
        opcode, [ctx.input(node, 0), axis], [ctx.output(f"{node.name}:0")], ("CumulativeOptions", options)
    )


@lowers("TopKV2")
def _top_k(ctx, node):
    """TOP_K of the constant k on the last axis (largest first, ties to the lower index, as TensorFlow sorts
    them); the indices, int64 in the lite op, CAST to the node's index type."""
    k = ctx.constant(f"{node.name}/k", np.asarray(ctx.require_const(node, 1, "k"), np.int64).reshape([]))
    dt, shape = ctx.specs[f"{node.name}:1"]
    indices = ctx.intermediate(f"{node.name}/indices64", shape, np.int64, like=f"{node.name}:1")
    options = ("TopKOptions", {"axis": -1, "largest": True})
    ctx.builder.add_op("TOP_K", [ctx.input(node, 0), k], [ctx.output(f"{node.name}:0"), indices], options)
    if numpy_dtype(dt) == np.int64:
        ctx.alias(f"{node.name}:1", indices)
    else:
        ctx.builder.add_op("CAST", [indices], [ctx.output(f"{node.name}:1")])


@lowers("_TwlRnn")
def _twl_rnn(ctx, node):
    """A recurrent layer's while loop (converters/tf_rnn_loops.py): the lite LSTM, GRU or RNN, whose semantics,
    operand layouts and activations _TwlRnn already has (x, W, R, B, the sequence lengths if any, the initial
    states; outputs Y and the final states)."""
    kind, states = attr(node, "kind"), attr(node, "num_states")
    lengths = ctx.input(node, 4 + states) if attr(node, "num_lengths", 0) else -1
    operands = [ctx.input(node, i) for i in range(4)] + [lengths]
    operands += [ctx.input(node, 4 + i) for i in range(states)]
    outputs = [ctx.output(f"{node.name}:{i}") for i in range(1 + attr(node, "num_states"))]
    options = {"hidden_size": attr(node, "hidden_size"), "direction": "FORWARD", "batch_major": False}
    if kind == "GRU":
        options["linear_before_reset"] = attr(node, "linear_before_reset", False)
    gate, cell = attr(node, "gate_activation", "Sigmoid"), attr(node, "activation", "Tanh")
    if (gate, cell) != ("Sigmoid", "Tanh"):
        if kind != "RNN":
            options["gate_activation"] = _RNN_ACTIVATIONS[gate]
        options["activation"] = _RNN_ACTIVATIONS[cell]
        options["activation_alpha"] = float(attr(node, "activation_alpha", 0.2))
        options["activation_beta"] = float(attr(node, "activation_beta", 0.5))
    ctx.builder.add_op(kind, operands, outputs, (f"{kind}Options", options))


# _TwlRnn's activation names (ONNX's) as the .twl RNNActivation enum names them.
_RNN_ACTIVATIONS = {"Sigmoid": "SIGMOID", "Tanh": "TANH", "HardSigmoid": "HARD_SIGMOID", "Relu": "RELU"}


@lowers("Fill")
def _fill(ctx, node):
    """BROADCAST_TO of the (constant) value to the dims, which a Keras RNN computes from the run-time batch
    (its zero initial states: zeros([Shape(x)[0], units])); constant dims were folded by freeze."""
    value = ctx.require_const(node, 1, "the value")
    dtype = _np_dtype(node.attr["T"].type, node.name)
    scalar = ctx.constant(f"{node.name}/value", np.asarray(value, dtype).reshape([]))
    ctx.builder.add_op("BROADCAST_TO", [scalar, ctx.input(node, 0)], [ctx.output(f"{node.name}:0")])


@lowers("SquaredDifference")
def _squared_difference(ctx, node):
    """(x - y)^2: SUB, then SQUARE (Keras' LayerNormalization and moments write it)."""
    diff = _like(ctx, node, "difference")
    ctx.builder.add_op("SUB", [ctx.input(node, 0), ctx.input(node, 1)], [diff], _ARITHMETIC)
    ctx.builder.add_op("SQUARE", [diff], [ctx.output(f"{node.name}:0")])


@lowers("Conv2DBackpropInput")
def _conv_transpose(ctx, node):
    """TRANSPOSE_CONV (what tf.keras Conv2DTranspose writes): the output
    size is input_sizes (a constant), the first tap's offset the top/left
    padding of the convolution it is the gradient of."""
    check_nhwc(node)
    sizes = ctx.shape(f"{node.name}:0")  # input_sizes, which reads the batch at run time in Keras
    filt = ctx.require_const(node, 1, "the filter")
    if sizes is None or len(sizes) != 4 or any(d is None for d in sizes[1:]) or filt.ndim != 4:
        raise _NodeError(f"the output shape {sizes} must be static but for the batch, the filter rank 4")
    strides, dilations = spatial_pair(node, "strides"), spatial_pair(node, "dilations")
    h, w, out_c, in_c = filt.shape  # HW, output (the forward conv's input) channels, input channels
    explicit = lowering.explicit_pads(node)
    if explicit is not None:
        begins = [explicit[0][0], explicit[1][0]]
    elif lowering.padding(node) == "SAME":
        begins = [same_pads(size, k, s, d)[0] for size, k, s, d in zip(sizes[1:3], (h, w), strides, dilations)]
    else:
        begins = [0, 0]
    bias, last = ctx.fuse_bias(f"{node.name}:0", out_c)
    if bias == -1:
        bias = ctx.constant(f"{node.name}/bias", np.zeros([out_c], np.float32))
    activation, last = ctx.fuse_activation(last)
    options = {
        "stride_h": strides[0],
        "stride_w": strides[1],
        "dilation_h_factor": dilations[0],
        "dilation_w_factor": dilations[1],
        "pad_top": begins[0],
        "pad_left": begins[1],
        "out_h": sizes[1],
        "out_w": sizes[2],
        "fused_activation_function": activation,
    }
    filt = np.ascontiguousarray(filt.transpose(3, 0, 1, 2)).reshape(1, in_c, h, w, out_c)  # [G, I, kh, kw, O]
    f = ctx.constant(f"{node.name}/filter", filt)
    x = ctx.input(node, 2)
    ctx.builder.add_op("TRANSPOSE_CONV", [x, f, bias], [ctx.output(last)], ("TransposeConvOptions", options))


@lowers("MaxPool", "AvgPool")
def _pool(ctx, node):
    check_nhwc(node)
    kernel, strides = spatial_pair(node, "ksize"), spatial_pair(node, "strides")
    options = lite_window_options(lowering.padding(node), strides, kernel=kernel)
    opcode = "MAX_POOL_2D" if node.op == "MaxPool" else "AVERAGE_POOL_2D"
    ctx.builder.add_op(opcode, [ctx.input(node, 0)], [ctx.output(f"{node.name}:0")], ("Pool2DOptions", options))


def _ndhwc(node):
    """(strides, dilations) over (D, H, W) of an NDHWC 3-D window op."""
    if attr(node, "data_format", "NDHWC") != "NDHWC":
        raise _NodeError(f"data_format {attr(node, 'data_format')} is not supported (NDHWC only)")
    strides, dilations = attr(node, "strides", [1] * 5), attr(node, "dilations", [1] * 5)
    if strides[0] != 1 or strides[4] != 1 or dilations[0] != 1 or dilations[4] != 1:
        raise _NodeError("strides and dilations over the batch and the channels must be 1")
    return strides[1:4], dilations[1:4]


def _fold_depth(ctx, node, x, shape, name):
    """RESHAPE of NDHWC `x` of `shape` [n, d, h, w, c] to [n * d, h, w, c] (the depth folded into the batch)."""
    n, d, h, w, c = shape
    folded = ctx.intermediate(f"{node.name}/{name}", [n * d, h, w, c], np.float32, like=f"{node.name}:0")
    target = ctx.constant(f"{node.name}/{name}_shape", np.array([-1, h, w, c], np.int32))
    ctx.builder.add_op("RESHAPE", [x, target], [folded])
    return folded


def _volume(ctx, node, x_name):
    shape = ctx.shape(x_name)
    if shape is None or len(shape) != 5 or None in shape[1:]:
        raise _NodeError(f"input must be rank 5 (NDHWC) with a static D, H, W and C, got shape {shape}")
    return shape


@lowers("Conv3D")
def _conv_3d(ctx, node):
    """A 3-D convolution (NDHWC, constant filter) as one CONV_2D per depth tap of the filter on the input with the
    depth folded into the batch: tap k reads the depth slices k * dilation + stride * j (j < the output depth),
    and the taps' outputs add up. SAME pads the depth with a PAD; H and W keep the conv's own SAME/VALID."""
    strides, dilations = _ndhwc(node)
    x_name, out = data_inputs(node)[0], f"{node.name}:0"
    (n, d, h, w, c), out_shape = _volume(ctx, node, x_name), ctx.shape(out)
    filt = np.asarray(ctx.require_const(node, 1, "filter"), np.float32)
    kd, co, d2 = filt.shape[0], filt.shape[4], out_shape[1]
    padding = lowering.padding(node)
    x = ctx.input(node, 0)
    if padding == "SAME":
        before, after = same_pads(d, kd, strides[0], dilations[0])
        if before or after:
            d += before + after
            padded = ctx.intermediate(f"{node.name}/depth_padded", [n, d, h, w, c], np.float32, like=out)
            pads = np.array([[0, 0], [before, after], [0, 0], [0, 0], [0, 0]], np.int32)
            ctx.builder.add_op("PAD", [x, ctx.constant(f"{node.name}/depth_paddings", pads)], [padded])
            x = padded
    options = lite_window_options(padding, strides[1:], dilations=dilations[1:])
    zeros = ctx.constant(f"{node.name}/bias", np.zeros([co], np.float32))
    mask = ("StridedSliceOptions", {"begin_mask": 0b11101, "end_mask": 0b11101})
    total = None
    for k in range(kd):
        start = k * dilations[0]
        bounds = [
            ctx.constant(f"{node.name}/tap{k}_{what}", np.array(v, np.int32))
            for what, v in (
                ("begin", [0, start, 0, 0, 0]),
                ("end", [0, start + (d2 - 1) * strides[0] + 1, 0, 0, 0]),
                ("strides", [1, strides[0], 1, 1, 1]),
            )
        ]
        taken = ctx.intermediate(f"{node.name}/tap{k}_slices", [n, d2, h, w, c], np.float32, like=out)
        ctx.builder.add_op("STRIDED_SLICE", [x, *bounds], [taken], mask)
        folded = _fold_depth(ctx, node, taken, [n, d2, h, w, c], f"tap{k}_folded")
        f = ctx.constant(f"{node.name}/tap{k}_filter", np.ascontiguousarray(filt[k].transpose(3, 0, 1, 2)))
        conv = ctx.intermediate(f"{node.name}/tap{k}", [n * d2, *out_shape[2:]], np.float32, like=out)
        ctx.builder.add_op("CONV_2D", [folded, f, zeros], [conv], ("Conv2DOptions", dict(options)))
        if total is not None:
            summed = ctx.intermediate(f"{node.name}/taps{k}", [n * d2, *out_shape[2:]], np.float32, like=out)
            ctx.builder.add_op("ADD", [total, conv], [summed], _ARITHMETIC)
            conv = summed
        total = conv
    target = ctx.constant(f"{node.name}/out_shape", np.array([-1, *out_shape[1:]], np.int32))
    ctx.builder.add_op("RESHAPE", [total, target], [ctx.output(out)])


@lowers("Conv3DBackpropInputV2")
def _conv_3d_transpose(ctx, node):
    """A 3-D transposed convolution (Keras' Conv3DTranspose; NDHWC, constant filter, static output size but for
    the batch): per depth tap k of the filter, one TRANSPOSE_CONV over (H, W) of the input with its depth folded
    into the batch; input depth j lands on output depth j * stride + k * dilation - (SAME's padding before), so
    each tap's result is spread by the stride (PAD), shifted (STRIDED_SLICE / PAD) to the output depth, and the
    taps add up."""
    strides, dilations = _ndhwc(node)
    out = f"{node.name}:0"
    x_name = data_inputs(node)[2]
    (n, d, h, w, c), sizes = _volume(ctx, node, x_name), ctx.shape(out)
    filt = np.asarray(ctx.require_const(node, 1, "the filter"), np.float32)
    if sizes is None or len(sizes) != 5 or None in sizes[1:] or filt.ndim != 5:
        raise _NodeError(f"the output shape {sizes} must be static but for the batch, the filter rank 5")
    kd, kh, kw, co, ci = filt.shape
    if ci != c:
        raise _NodeError(f"the filter {list(filt.shape)} takes {ci} channels; the input has {c}")
    d2, h2, w2 = sizes[1:4]
    if lowering.padding(node) == "SAME":
        begins = [same_pads(size, k, s, dl)[0] for size, k, s, dl in zip(sizes[1:4], (kd, kh, kw), strides, dilations)]
    else:
        begins = [0, 0, 0]
    folded = _fold_depth(ctx, node, ctx.input(node, 2), [n, d, h, w, c], "folded")
    zeros = ctx.constant(f"{node.name}/bias", np.zeros([co], np.float32))
    options = lowering.plane_transpose_conv_options(strides, dilations, begins, h2, w2)
    taps = []
    for k in range(kd):
        f = ctx.constant(f"{node.name}/tap{k}_filter", np.ascontiguousarray(filt[k].transpose(3, 0, 1, 2))[None])
        planes = ctx.intermediate(f"{node.name}/tap{k}", [n * d, h2, w2, co], np.float32, like=out)
        ctx.builder.add_op("TRANSPOSE_CONV", [folded, f, zeros], [planes], ("TransposeConvOptions", dict(options)))
        taps.append(planes)
    total = lowering.transposed_depth_taps(
        ctx, node.name, out, taps, n, d, d2, h2 * w2 * co, strides[0], dilations[0], begins[0]
    )
    target = ctx.constant(f"{node.name}/out_shape", np.array([-1, d2, h2, w2, co], np.int32))
    ctx.builder.add_op("RESHAPE", [total, target], [ctx.output(out)])


@lowers("MaxPool3D", "AvgPool3D")
def _pool_3d(ctx, node):
    """A 3-D pool (NDHWC) as two 2-D ones: over (H, W) with the depth folded into the batch, then over the depth
    with H * W as the width. Exact: a max, and an average over the window's elements inside the input (SAME's
    count), separate into the two stages."""
    if attr(node, "data_format", "NDHWC") != "NDHWC":
        raise _NodeError(f"data_format {attr(node, 'data_format')} is not supported (NDHWC only)")
    ksize, strides = attr(node, "ksize"), attr(node, "strides")
    if ksize[0] != 1 or ksize[4] != 1 or strides[0] != 1 or strides[4] != 1:
        raise _NodeError("ksize and strides over the batch and the channels must be 1")
    x_name, out = data_inputs(node)[0], f"{node.name}:0"
    (n, d, h, w, c), (d2, h2, w2) = _volume(ctx, node, x_name), ctx.shape(out)[1:4]
    padding, opcode = lowering.padding(node), "MAX_POOL_2D" if node.op == "MaxPool3D" else "AVERAGE_POOL_2D"
    folded = _fold_depth(ctx, node, ctx.input(node, 0), [n, d, h, w, c], "folded")
    plane = ctx.intermediate(f"{node.name}/hw", [n * d, h2, w2, c], np.float32, like=out)
    options = lite_window_options(padding, strides[2:4], kernel=ksize[2:4])
    ctx.builder.add_op(opcode, [folded], [plane], ("Pool2DOptions", options))
    rows = ctx.intermediate(f"{node.name}/rows", [n, d, h2 * w2, c], np.float32, like=out)
    target = ctx.constant(f"{node.name}/rows_shape", np.array([-1, d, h2 * w2, c], np.int32))
    ctx.builder.add_op("RESHAPE", [plane, target], [rows])
    pooled = ctx.intermediate(f"{node.name}/d", [n, d2, h2 * w2, c], np.float32, like=out)
    options = lite_window_options(padding, [strides[1], 1], kernel=[ksize[1], 1])
    ctx.builder.add_op(opcode, [rows], [pooled], ("Pool2DOptions", options))
    target = ctx.constant(f"{node.name}/out_shape", np.array([-1, d2, h2, w2, c], np.int32))
    ctx.builder.add_op("RESHAPE", [pooled, target], [ctx.output(out)])


_BINARY = {
    "Add": "ADD",
    "AddV2": "ADD",
    "BiasAdd": "ADD",
    "Sub": "SUB",
    "Mul": "MUL",
    "Div": "DIV",
    "RealDiv": "DIV",
    "Maximum": "MAXIMUM",
    "Minimum": "MINIMUM",
}


@lowers(*_BINARY)
def _binary(ctx, node):
    if node.op == "BiasAdd":
        check_nhwc(node)
    opcode = _BINARY[node.op]
    a, b = ctx.input(node, 0), ctx.input(node, 1)
    if opcode in ("MAXIMUM", "MINIMUM"):
        ctx.builder.add_op(opcode, [a, b], [ctx.output(f"{node.name}:0")])
        return
    activation, last = "NONE", f"{node.name}:0"
    if ctx.specs[last][0] == 1:  # fused activations are float32 only
        activation, last = ctx.fuse_activation(last)
    options = ("ArithmeticOptions", {"fused_activation_function": activation})
    ctx.builder.add_op(opcode, [a, b], [ctx.output(last)], options)


_UNARY = {
    "Neg": "NEG",
    "Exp": "EXP",
    "Log": "LOG",
    "Sqrt": "SQRT",
    "Rsqrt": "RSQRT",
    "Square": "SQUARE",
    "Abs": "ABS",
    "Relu": "RELU",
    "Relu6": "RELU6",
    "Sigmoid": "SIGMOID",
    "Tanh": "TANH",
}


_UNARY.update(
    {op: op.upper() for op in ("Floor", "Ceil", "Round", "Sign", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan")}
)
_UNARY.update({"Sinh": "SINH", "Cosh": "COSH", "Asinh": "ASINH", "Acosh": "ACOSH", "Atanh": "ATANH"})
_UNARY.update({"IsNan": "IS_NAN", "IsInf": "IS_INF", "LogicalNot": "LOGICAL_NOT", "Rint": "ROUND"})


@lowers(*_UNARY)
def _unary(ctx, node):
    ctx.builder.add_op(_UNARY[node.op], [ctx.input(node, 0)], [ctx.output(f"{node.name}:0")])


# Element-wise ops with two operands, numpy broadcasting, no options (bool outputs for the comparisons).
_PLAIN_BINARY = {
    "Greater": "GREATER",
    "GreaterEqual": "GREATER_EQUAL",
    "Less": "LESS",
    "LessEqual": "LESS_EQUAL",
    "Equal": "EQUAL",
    "NotEqual": "NOT_EQUAL",
    "LogicalAnd": "LOGICAL_AND",
    "LogicalOr": "LOGICAL_OR",
    "FloorMod": "FLOOR_MOD",
}


@lowers(*_PLAIN_BINARY)
def _plain_binary(ctx, node):
    ctx.builder.add_op(_PLAIN_BINARY[node.op], [ctx.input(node, 0), ctx.input(node, 1)], [ctx.output(f"{node.name}:0")])


@lowers("Select", "SelectV2")
def _select(ctx, node):
    """SELECT (numpy broadcasting: SelectV2). TF1's Select with a vector condition picks rows of higher-rank x and
    y: the condition is reshaped to [n, 1, ...] first."""
    cond = ctx.input(node, 0)
    cond_shape, x_shape = ctx.shape(data_inputs(node)[0]), ctx.shape(data_inputs(node)[1])
    if node.op == "Select" and len(cond_shape) == 1 and len(x_shape) > 1:
        target = ctx.constant(f"{node.name}/condition_shape", np.array([-1] + [1] * (len(x_shape) - 1), np.int32))
        rows = ctx.intermediate(f"{node.name}/condition", [cond_shape[0]] + [1] * (len(x_shape) - 1), np.bool_)
        ctx.builder.add_op("RESHAPE", [cond, target], [rows])
        cond = rows
    ctx.builder.add_op("SELECT", [cond, ctx.input(node, 1), ctx.input(node, 2)], [ctx.output(f"{node.name}:0")])


@lowers("FloorDiv")
def _floor_div(ctx, node):
    """FLOOR of DIV for floats; for integers (a - FLOOR_MOD(a, b)) / b, an exact division."""
    a, b = ctx.input(node, 0), ctx.input(node, 1)
    out = f"{node.name}:0"
    if np.issubdtype(numpy_dtype(ctx.specs[out][0]), np.floating):
        quotient = _like(ctx, node, "quotient")
        ctx.builder.add_op("DIV", [a, b], [quotient], _ARITHMETIC)
        ctx.builder.add_op("FLOOR", [quotient], [ctx.output(out)])
        return
    remainder, exact = _like(ctx, node, "remainder"), _like(ctx, node, "exact")
    ctx.builder.add_op("FLOOR_MOD", [a, b], [remainder])
    ctx.builder.add_op("SUB", [a, remainder], [exact], _ARITHMETIC)
    ctx.builder.add_op("DIV", [exact, b], [ctx.output(out)], _ARITHMETIC)


@lowers("DivNoNan")
def _div_no_nan(ctx, node):
    """x / y, 0 where y is 0: SELECT(EQUAL(y, 0), 0, DIV(x, y))."""
    x, y = ctx.input(node, 0), ctx.input(node, 1)
    out = f"{node.name}:0"
    dtype = numpy_dtype(ctx.specs[out][0])
    zero = ctx.constant(f"{node.name}/zero", np.array(0, dtype))
    is_zero = ctx.intermediate(f"{node.name}/is_zero", ctx.shape(data_inputs(node)[1]), np.bool_, like=node.input[1])
    quotient = _like(ctx, node, "quotient")
    ctx.builder.add_op("EQUAL", [y, zero], [is_zero])
    ctx.builder.add_op("DIV", [x, y], [quotient], _ARITHMETIC)
    ctx.builder.add_op("SELECT", [is_zero, zero, quotient], [ctx.output(out)])


@lowers("ZerosLike", "OnesLike")
def _filled_like(ctx, node):
    """BROADCAST_TO of 0 or 1 to the SHAPE of the input (static shapes were folded by freeze)."""
    out = f"{node.name}:0"
    dtype = numpy_dtype(ctx.specs[out][0])
    value = ctx.constant(f"{node.name}/value", np.array(0 if node.op == "ZerosLike" else 1, dtype))
    shape = ctx.intermediate(f"{node.name}/shape", [len(ctx.shape(out))], np.int32)
    ctx.builder.add_op("SHAPE", [ctx.input(node, 0)], [shape])
    ctx.builder.add_op("BROADCAST_TO", [value, shape], [ctx.output(out)])


@lowers("Any", "All")
def _any_all(ctx, node):
    """REDUCE_MAX / REDUCE_MIN over bools."""
    axes = ctx.constant(f"{node.name}/axes", ctx.require_const(node, 1, "axes").astype(np.int32).reshape(-1))
    options = ("ReducerOptions", {"keep_dims": bool(attr(node, "keep_dims", False))})
    opcode = "REDUCE_MAX" if node.op == "Any" else "REDUCE_MIN"
    ctx.builder.add_op(opcode, [ctx.input(node, 0), axes], [ctx.output(f"{node.name}:0")], options)


@lowers("DepthToSpace", "SpaceToDepth")
def _depth_space(ctx, node):
    check_nhwc(node)
    options = ("DepthSpaceOptions", {"block_size": int(attr(node, "block_size")), "crd": False, "nhwc": True})
    opcode = "DEPTH_TO_SPACE" if node.op == "DepthToSpace" else "SPACE_TO_DEPTH"
    ctx.builder.add_op(opcode, [ctx.input(node, 0)], [ctx.output(f"{node.name}:0")], options)


@lowers("MatrixBandPart")
def _band_part(ctx, node):
    """TRILU: the lower triangle from diagonal num_upper, then the upper one from -num_lower (-1: all of that
    side), as tf.linalg.band_part (Keras' causal attention mask)."""
    lower, upper = (int(ctx.require_const(node, i, w)) for i, w in ((1, "num_lower"), (2, "num_upper")))
    steps = ([] if upper < 0 else [(False, upper)]) + ([] if lower < 0 else [(True, -lower)])
    x, out = ctx.input(node, 0), f"{node.name}:0"
    if not steps:
        ctx.alias(out, x)
        return
    for i, (keep_upper, k) in enumerate(steps):
        target = ctx.output(out) if i == len(steps) - 1 else _like(ctx, node, "lower")
        diagonal = ctx.constant(f"{node.name}/k{i}", np.array(k, np.int64))
        ctx.builder.add_op("TRILU", [x, diagonal], [target], ("TriluOptions", {"upper": keep_upper}))
        x = target


# TF activations with parameters: lite op and its ActivationParamsOptions (alpha, gamma as TF fixes them).
_PARAMETERIZED = {
    "Elu": ("ELU", {"alpha": 1.0}),
    "Selu": ("SELU", {"alpha": lowering.SELU_ALPHA, "gamma": lowering.SELU_GAMMA}),
    "Softplus": ("SOFTPLUS", None),
}


@lowers("LeakyRelu", *_PARAMETERIZED)
def _parameterized_activation(ctx, node):
    if node.op == "LeakyRelu":
        opcode, params = "LEAKY_RELU", {"alpha": float(attr(node, "alpha", 0.2))}
    else:
        opcode, params = _PARAMETERIZED[node.op]
    options = ("ActivationParamsOptions", params) if params else None
    ctx.builder.add_op(opcode, [ctx.input(node, 0)], [ctx.output(f"{node.name}:0")], options)


@lowers("Tile")
def _tile(ctx, node):
    """TILE by constant multiples (Keras' RepeatVector)."""
    multiples = _int32_constant(ctx, node, 1, "multiples")
    ctx.builder.add_op("TILE", [ctx.input(node, 0), multiples], [ctx.output(f"{node.name}:0")])


@lowers("Softmax", "LogSoftmax")
def _softmax(ctx, node):
    opcode = "SOFTMAX" if node.op == "Softmax" else "LOG_SOFTMAX"
    options = ("SoftmaxOptions", {"beta": 1.0})
    ctx.builder.add_op(opcode, [ctx.input(node, 0)], [ctx.output(f"{node.name}:0")], options)


def _int32_constant(ctx, node, i, what):
    value = ctx.require_const(node, i, what)
    return ctx.constant(f"{node.name}/{what.replace(' ', '_')}", value.astype(np.int32))


# Ops whose operands after the first are int32 constants, by name.
_CONSTANT_OPERANDS = {
    "Reshape": ("RESHAPE", ["shape"]),
    "Transpose": ("TRANSPOSE", ["perm"]),
    "ExpandDims": ("EXPAND_DIMS", ["axis"]),
    "Slice": ("SLICE", ["begin", "size"]),
}


@lowers(*_CONSTANT_OPERANDS)
def _with_constant_operands(ctx, node):
    opcode, operands = _CONSTANT_OPERANDS[node.op]
    if node.op == "Reshape" and ctx.const(node, 1) is None:
        # A shape computed from a run-time batch (Keras' Reshape packs
        # Shape(x)[0] with its target): the output's shape, -1 for the batch.
        out = f"{node.name}:0"
        shape, sig = ctx.shape(out), ctx.signature_specs[out][1]
        if shape is None or not sig or any(d is None for d in sig[1:]) or None in shape:
            raise _NodeError(f"shape (input 1) is computed, and the output's shape {sig} is not static but the batch")
        target = [-1 if d is None else d for d in sig]
        ctx.builder.add_op(
            "RESHAPE",
            [ctx.input(node, 0), ctx.constant(f"{node.name}/shape", np.array(target, np.int32))],
            [ctx.output(out)],
        )
        return
    constants = [_int32_constant(ctx, node, i + 1, what) for i, what in enumerate(operands)]
    ctx.builder.add_op(opcode, [ctx.input(node, 0)] + constants, [ctx.output(f"{node.name}:0")])


@lowers("Cast")
def _cast(ctx, node):
    ctx.builder.add_op("CAST", [ctx.input(node, 0)], [ctx.output(f"{node.name}:0")])


_REDUCERS = {"Mean": "MEAN", "Max": "REDUCE_MAX", "Min": "REDUCE_MIN", "Prod": "REDUCE_PROD"}


@lowers("Sum", *_REDUCERS)
def _reduce(ctx, node):
    axes = ctx.require_const(node, 1, "axes").astype(np.int32).reshape(-1)
    x = ctx.input(node, 0)
    keep = bool(attr(node, "keep_dims", False))
    options = ("ReducerOptions", {"keep_dims": keep})
    axes_t = ctx.constant(f"{node.name}/axes", axes)
    if node.op in _REDUCERS:
        ctx.builder.add_op(_REDUCERS[node.op], [x, axes_t], [ctx.output(f"{node.name}:0")], options)
        return
    # Sum = Mean * (number of reduced elements), from the static shape (what int8 quantization knows); over a
    # dimension known only at run time (Keras' Tensordot reduces the Shape of a run-time batch), or of integers
    # (whose MEAN truncates: the sum of a mask's ones), REDUCE_SUM.
    shape = ctx.shape(data_inputs(node)[0])
    sig = ctx.signature_specs[tensor_name(data_inputs(node)[0])][1]
    rank = len(shape)
    axes_set = {int(a) % rank for a in axes}
    floats = numpy_dtype(ctx.specs[f"{node.name}:0"][0]).kind == "f"
    if any(sig[a] is None for a in axes_set) or not floats:
        ctx.builder.add_op("REDUCE_SUM", [x, axes_t], [ctx.output(f"{node.name}:0")], options)
        return
    count = int(np.prod([shape[a] for a in axes_set]))
    out_name = f"{node.name}:0"
    mean = _like(ctx, node, "mean")
    ctx.builder.add_op("MEAN", [x, axes_t], [mean], options)
    n = ctx.constant(f"{node.name}/count", np.array(count, numpy_dtype(ctx.specs[out_name][0])))
    ctx.builder.add_op("MUL", [mean, n], [ctx.output(out_name)], _ARITHMETIC)


@lowers("ConcatV2")
def _concat(ctx, node):
    count = len(data_inputs(node)) - 1
    axis = int(ctx.require_const(node, count, "axis"))
    inputs = [ctx.input(node, i) for i in range(count)]
    options = ("ConcatenationOptions", {"axis": axis})
    ctx.builder.add_op("CONCATENATION", inputs, [ctx.output(f"{node.name}:0")], options)


@lowers("Pack")
def _pack(ctx, node):
    count = len(data_inputs(node))
    axis = attr(node, "axis", 0)
    out_name = f"{node.name}:0"
    dt, out_shape = ctx.specs[out_name]
    axis = axis % len(out_shape)
    piece_shape = list(out_shape)
    piece_shape[axis] = 1
    axis_t = ctx.constant(f"{node.name}/axis", np.array(axis, np.int32))
    pieces = []
    for i in range(count):
        piece = ctx.intermediate(f"{node.name}/expand_{i}", piece_shape, numpy_dtype(dt), like=out_name)
        ctx.builder.add_op("EXPAND_DIMS", [ctx.input(node, i), axis_t], [piece])
        pieces.append(piece)
    options = ("ConcatenationOptions", {"axis": axis})
    ctx.builder.add_op("CONCATENATION", pieces, [ctx.output(out_name)], options)


@lowers("Pad", "PadV2")
def _pad(ctx, node):
    inputs = [ctx.input(node, 0), _int32_constant(ctx, node, 1, "paddings")]
    if node.op == "PadV2":
        value = ctx.require_const(node, 2, "constant_values")
        inputs.append(ctx.constant(f"{node.name}/value", value))
    ctx.builder.add_op("PAD", inputs, [ctx.output(f"{node.name}:0")])


@lowers("MirrorPad")
def _mirror_pad(ctx, node):
    """REFLECT / SYMMETRIC padding (tf.pad's modes, numpy's too) as a GATHER of constant indices per padded axis."""
    mode = attr(node, "mode", "REFLECT").lower()
    if mode not in ("reflect", "symmetric"):
        raise _NodeError(f"mode {mode!r} is not supported (REFLECT or SYMMETRIC)")
    pads = np.asarray(ctx.require_const(node, 1, "paddings"), np.int64).reshape(-1, 2)
    source, out = data_inputs(node)[0], f"{node.name}:0"
    shape, dt = list(ctx.shape(source)), ctx.specs[out][0]
    axes = [a for a in range(len(pads)) if pads[a].any()]
    if any(shape[a] is None for a in axes):
        raise _NodeError(f"a padded dim of {shape} is known only at run time")
    x = ctx.input(node, 0)
    if not axes:  # (nothing to pad: a copy)
        zeros = ctx.constant(f"{node.name}/paddings", np.zeros_like(pads, dtype=np.int32))
        ctx.builder.add_op("PAD", [x, zeros], [ctx.output(out)])
        return
    for k, axis in enumerate(axes):
        shape[axis] += int(pads[axis].sum())
        last = k == len(axes) - 1
        target = ctx.output(out) if last else ctx.intermediate(f"{node.name}/{k}", shape, numpy_dtype(dt), like=source)
        indices = np.pad(np.arange(shape[axis] - int(pads[axis].sum()), dtype=np.int32), pads[axis], mode=mode)
        options = ("GatherOptions", {"axis": axis, "batch_dims": 0})
        ctx.builder.add_op("GATHER", [x, ctx.constant(f"{node.name}/indices_{k}", indices)], [target], options)
        x = target


@lowers("ReverseSequence")
def _reverse_sequence(ctx, node):
    """REVERSE_SEQUENCE: the first seq_lengths[b] steps (seq_dim) of each batch entry (batch_dim) reversed."""
    options = {"batch_axis": attr(node, "batch_dim", 0), "time_axis": attr(node, "seq_dim")}
    inputs = [ctx.input(node, 0), ctx.input(node, 1)]
    ctx.builder.add_op("REVERSE_SEQUENCE", inputs, [ctx.output(f"{node.name}:0")], ("ReverseSequenceOptions", options))


@lowers("LRN")
def _lrn(ctx, node):
    """TensorFlow's local response normalization over the channels of an NHWC input: x / (bias + alpha * s)^beta,
    s the sum of x^2 over channels c - depth_radius .. c + depth_radius (SQUARE, a 1x1 CONV_2D with a band of
    ones, MUL, ADD, POW, DIV)."""
    source, out = data_inputs(node)[0], f"{node.name}:0"
    shape = ctx.shape(source)
    if shape is None or len(shape) != 4 or shape[3] is None:
        raise _NodeError(f"input must be rank 4 (NHWC) with static channels, got shape {shape}")
    c, radius = shape[3], attr(node, "depth_radius", 5)
    band = (np.abs(np.arange(c)[:, None] - np.arange(c)[None, :]) <= radius).astype(np.float32)
    x = ctx.input(node, 0)
    squared, summed, scaled, shifted, power = (
        _like(ctx, node, s) for s in ("squared", "window_sum", "scaled", "shifted", "power")
    )
    ctx.builder.add_op("SQUARE", [x], [squared])
    conv = lite_window_options("VALID", [1, 1], dilations=[1, 1])
    inputs = [squared, ctx.constant(f"{node.name}/band", band.reshape(c, 1, 1, c))]
    inputs.append(ctx.constant(f"{node.name}/zeros", np.zeros([c], np.float32)))
    ctx.builder.add_op("CONV_2D", inputs, [summed], ("Conv2DOptions", conv))
    for op, a, b, y in (
        ("MUL", summed, ctx.constant(f"{node.name}/alpha", np.array(attr(node, "alpha", 1.0), np.float32)), scaled),
        ("ADD", scaled, ctx.constant(f"{node.name}/bias", np.array(attr(node, "bias", 1.0), np.float32)), shifted),
    ):
        ctx.builder.add_op(op, [a, b], [y], _ARITHMETIC)
    beta = ctx.constant(f"{node.name}/beta", np.array(attr(node, "beta", 0.5), np.float32))
    ctx.builder.add_op("POW", [shifted, beta], [power])
    ctx.builder.add_op("DIV", [x, power], [ctx.output(out)], _ARITHMETIC)


@lowers("GatherV2")
def _gather(ctx, node):
    axis = int(ctx.require_const(node, 2, "axis"))
    options = ("GatherOptions", {"axis": axis, "batch_dims": attr(node, "batch_dims", 0)})
    inputs = [ctx.input(node, 0), ctx.input(node, 1)]
    ctx.builder.add_op("GATHER", inputs, [ctx.output(f"{node.name}:0")], options)


@lowers("ReverseV2")
def _reverse(ctx, node):
    """A GATHER of the reversed indices along each axis (Keras' Bidirectional reverses the backward layer's
    sequence); one axis whose length is known only at run time (a sequence's), a REVERSE_SEQUENCE of that whole
    length."""
    source = data_inputs(node)[0]
    shape = ctx.shape(source)
    axes = ctx.require_const(node, 1, "axis").astype(np.int64).reshape(-1)
    if shape is None:
        raise _NodeError("the input's rank is not known")
    x, out = ctx.input(node, 0), f"{node.name}:0"
    dt, out_shape = ctx.specs[out]
    axes = [int(a) % len(shape) for a in axes]
    if any(shape[a] is None or ctx.signature_specs[tensor_name(source)][1][a] is None for a in axes):
        if len(axes) != 1 or len(shape) < 2:
            raise _NodeError(f"reversed dims {axes} of {shape}: more than one, or of rank 1, known only at run time")
        _reverse_run_time_axis(ctx, node, x, axes[0], len(shape))
        return
    for k, axis in enumerate(axes):
        last = k == len(axes) - 1
        target = (
            ctx.output(out) if last else ctx.intermediate(f"{node.name}/{k}", out_shape, numpy_dtype(dt), like=source)
        )
        indices = ctx.constant(f"{node.name}/indices_{k}", np.arange(shape[axis] - 1, -1, -1, dtype=np.int32))
        options = ("GatherOptions", {"axis": axis, "batch_dims": 0})
        ctx.builder.add_op("GATHER", [x, indices], [target], options)
        x = target


def _reverse_run_time_axis(ctx, node, x, axis, rank):
    """REVERSE_SEQUENCE of `axis` with every entry of another axis reversed over the axis' whole length:
    lengths = BROADCAST_TO(SHAPE(x)[axis], SHAPE(x)[other])."""
    other = 1 if axis == 0 else 0
    shape = ctx.intermediate(f"{node.name}/shape", [rank], np.int32)
    ctx.builder.add_op("SHAPE", [x], [shape])
    picked = []
    for what, a in (("length", axis), ("entries", other)):
        index = ctx.constant(f"{node.name}/{what}_index", np.array([a], np.int32))
        picked.append(ctx.intermediate(f"{node.name}/{what}", [1], np.int32))
        ctx.builder.add_op("GATHER", [shape, index], [picked[-1]], ("GatherOptions", {"axis": 0, "batch_dims": 0}))
    lengths = ctx.builder.add_tensor(f"{node.name}/lengths", [ctx.shape(data_inputs(node)[0])[other]], np.int32, [-1])
    ctx.builder.add_op("BROADCAST_TO", picked, [lengths])
    options = ("ReverseSequenceOptions", {"batch_axis": other, "time_axis": axis})
    ctx.builder.add_op("REVERSE_SEQUENCE", [x, lengths], [ctx.output(f"{node.name}:0")], options)


@lowers("Squeeze")
def _squeeze(ctx, node):
    dims = attr(node, "squeeze_dims", []) or attr(node, "axis", []) or []
    options = ("SqueezeOptions", {"squeeze_dims": list(dims)} if dims else {})
    ctx.builder.add_op("SQUEEZE", [ctx.input(node, 0)], [ctx.output(f"{node.name}:0")], options)


@lowers("StridedSlice")
def _strided_slice(ctx, node):
    bounds = [_int32_constant(ctx, node, i, w) for i, w in ((1, "begin"), (2, "end"), (3, "strides"))]
    masks = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")
    options = ("StridedSliceOptions", {m: attr(node, m, 0) for m in masks})
    ctx.builder.add_op("STRIDED_SLICE", [ctx.input(node, 0)] + bounds, [ctx.output(f"{node.name}:0")], options)


def _split_into(ctx, node, value_index, axis, sizes, outputs):
    """SPLIT of input `value_index` along `axis` into `sizes`, written to
    the twl tensors `outputs`."""
    rank = ctx.rank(node, value_index)
    if not -rank <= axis < rank:
        raise _NodeError(f"axis {axis} is out of range for rank {rank}")
    dim = ctx.shape(data_inputs(node)[value_index])[axis]
    if sum(sizes) != dim or min(sizes) < 0:
        raise _NodeError(f"split sizes {sizes} do not add up to dimension {axis}'s size {dim}")
    split = ctx.constant(f"{node.name}/sizes", np.array(sizes, np.int64))
    options = ("SplitOptions", {"axis": axis % rank})
    ctx.builder.add_op("SPLIT", [ctx.input(node, value_index), split], outputs, options)


@lowers("Split")
def _split(ctx, node):
    axis = int(ctx.require_const(node, 0, "split_dim"))
    count = attr(node, "num_split", 1)
    dim = ctx.shape(data_inputs(node)[1])[axis]
    if dim % count:
        raise _NodeError(f"dimension {axis} of size {dim} does not split into {count} equal parts")
    outputs = [ctx.output(f"{node.name}:{i}") for i in range(count)]
    _split_into(ctx, node, 1, axis, [dim // count] * count, outputs)


@lowers("SplitV")
def _split_v(ctx, node):
    axis = int(ctx.require_const(node, 2, "split_dim"))
    sizes = [int(v) for v in np.asarray(ctx.require_const(node, 1, "size_splits")).reshape(-1)]
    if sizes.count(-1) == 1:
        sizes[sizes.index(-1)] = ctx.shape(data_inputs(node)[0])[axis] - (sum(sizes) + 1)
    outputs = [ctx.output(f"{node.name}:{i}") for i in range(len(sizes))]
    _split_into(ctx, node, 0, axis, sizes, outputs)


@lowers("Unpack")
def _unpack(ctx, node):
    """SPLIT into pieces of 1, each SQUEEZEd on the axis."""
    count = attr(node, "num", 1)
    rank = ctx.rank(node, 0)
    axis = attr(node, "axis", 0) % rank
    piece_shape = list(ctx.shape(data_inputs(node)[0]))
    piece_shape[axis] = 1
    dtype = _np_dtype(ctx.specs[tensor_name(data_inputs(node)[0])][0], node.name)
    pieces = [
        ctx.intermediate(f"{node.name}/piece_{i}", piece_shape, dtype, like=data_inputs(node)[0]) for i in range(count)
    ]
    _split_into(ctx, node, 0, axis, [1] * count, pieces)
    options = ("SqueezeOptions", {"squeeze_dims": [axis]})
    for i, piece in enumerate(pieces):
        ctx.builder.add_op("SQUEEZE", [piece], [ctx.output(f"{node.name}:{i}")], options)


def _block_operands(ctx, node, what):
    """(static input shape, dtype, whether its batch is a run-time dim,
    block_shape, the [m, 2] paddings or crops) of SpaceToBatchND /
    BatchToSpaceND; the dims they move must be static."""
    x = data_inputs(node)[0]
    dt, shape = ctx.specs[tensor_name(x)]
    block = [int(v) for v in np.asarray(ctx.require_const(node, 1, "block_shape")).reshape(-1)]
    pads = np.asarray(ctx.require_const(node, 2, what)).astype(np.int64).reshape(-1, 2)
    m = len(block)
    if shape is None or len(shape) < m + 1 or any(d is None for d in shape[1:]) or pads.shape[0] != m:
        raise _NodeError(f"input shape {shape}, block_shape {block} and {what} {pads.tolist()} do not agree")
    if min(block) < 1 or pads.min() < 0:
        raise _NodeError(f"block_shape {block} must be positive and {what} {pads.tolist()} non-negative")
    sig = ctx.signature_specs[tensor_name(x)][1]
    return list(shape), _np_dtype(dt, node.name), bool(sig) and sig[0] is None, block, pads


def _moved(ctx, name, shape, dtype, batch_axis):
    """An intermediate of `shape` whose axis `batch_axis` (None: none) is
    the run-time batch."""
    sig = None
    if batch_axis is not None:
        sig = list(shape)
        sig[batch_axis] = -1
    return ctx.builder.add_tensor(name, shape, dtype, sig)


def _reshaped(ctx, node, src, tag, shape, dtype, batch_axis):
    target = list(shape)
    if batch_axis is not None:
        target[batch_axis] = -1
    out = _moved(ctx, f"{node.name}/{tag}", shape, dtype, batch_axis)
    ctx.builder.add_op("RESHAPE", [src, ctx.constant(f"{node.name}/{tag}_shape", np.array(target, np.int32))], [out])
    return out


def _transposed(ctx, node, src, tag, shape, perm, dtype, batch_axis):
    out = _moved(ctx, f"{node.name}/{tag}", [shape[p] for p in perm], dtype, batch_axis)
    ctx.builder.add_op("TRANSPOSE", [src, ctx.constant(f"{node.name}/{tag}_perm", np.array(perm, np.int32))], [out])
    return out


@lowers("SpaceToBatchND")
def _space_to_batch(ctx, node):
    """PAD, RESHAPE each padded dim into (dim / block, block), TRANSPOSE the
    blocks before the batch, RESHAPE them into it (what TensorFlow writes
    around a dilated convolution)."""
    shape, dtype, run_time, block, pads = _block_operands(ctx, node, "paddings")
    m, rest = len(block), shape[len(block) + 1 :]
    padded = [shape[0]] + [d + int(p.sum()) for d, p in zip(shape[1 : m + 1], pads)] + rest
    if any(d % b for d, b in zip(padded[1 : m + 1], block)):
        raise _NodeError(f"padded dims {padded[1 : m + 1]} are not multiples of block_shape {block}")
    bat = 0 if run_time else None
    x = ctx.input(node, 0)
    if pads.any():
        all_pads = np.array([[0, 0], *pads.tolist()] + [[0, 0]] * len(rest), np.int32)
        x_padded = _moved(ctx, f"{node.name}/padded", padded, dtype, bat)
        ctx.builder.add_op("PAD", [x, ctx.constant(f"{node.name}/paddings", all_pads)], [x_padded])
        x = x_padded
    split = [shape[0]]
    for d, b in zip(padded[1 : m + 1], block):
        split += [d // b, b]
    split += rest
    x = _reshaped(ctx, node, x, "split", split, dtype, bat)
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + list(range(2 * m + 1, len(split)))
    x = _transposed(ctx, node, x, "blocks_first", split, perm, dtype, m if run_time else None)
    out = [int(np.prod(block)) * shape[0]] + [d // b for d, b in zip(padded[1 : m + 1], block)] + rest
    target = [-1] + out[1:]
    ctx.builder.add_op(
        "RESHAPE",
        [x, ctx.constant(f"{node.name}/out_shape", np.array(target, np.int32))],
        [ctx.output(f"{node.name}:0")],
    )


@lowers("BatchToSpaceND")
def _batch_to_space(ctx, node):
    """The inverse: RESHAPE the blocks out of the batch, TRANSPOSE each next
    to its dim, RESHAPE them into it, STRIDED_SLICE the crops."""
    shape, dtype, run_time, block, crops = _block_operands(ctx, node, "crops")
    m, rest = len(block), shape[len(block) + 1 :]
    blocks = int(np.prod(block))
    if shape[0] % blocks and not run_time:
        raise _NodeError(f"batch {shape[0]} is not a multiple of the {blocks} blocks")
    batch = max(shape[0] // blocks, 1)
    x = _reshaped(ctx, node, ctx.input(node, 0), "unsplit", block + [batch] + shape[1:], dtype, m if run_time else None)
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    perm += list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    x = _transposed(ctx, node, x, "blocks_inside", block + [batch] + shape[1:], perm, dtype, 0 if run_time else None)
    full = [batch] + [d * b for d, b in zip(shape[1 : m + 1], block)] + rest
    bat = 0 if run_time else None
    out = ctx.output(f"{node.name}:0")
    if not crops.any():
        target = [-1] + full[1:]
        ctx.builder.add_op("RESHAPE", [x, ctx.constant(f"{node.name}/out_shape", np.array(target, np.int32))], [out])
        return
    x = _reshaped(ctx, node, x, "merged", full, dtype, bat)
    rank = len(full)
    begin = [0] + [int(c[0]) for c in crops] + [0] * len(rest)
    end = [0] + [d - int(c[1]) for d, c in zip(full[1 : m + 1], crops)] + [0] * len(rest)
    mask = 1 | sum(1 << a for a in range(m + 1, rank))  # batch and the rest: to their ends
    bounds = [
        ctx.constant(f"{node.name}/{w}", np.array(v, np.int32))
        for w, v in (("begin", begin), ("end", end), ("strides", [1] * rank))
    ]
    options = ("StridedSliceOptions", {"begin_mask": mask, "end_mask": mask})
    ctx.builder.add_op("STRIDED_SLICE", [x] + bounds, [out], options)


@lowers("ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic")
def _resize(ctx, node):
    """RESIZE of an NHWC image to the constant size [H, W] (input 1), with
    TensorFlow's sampling: align_corners, half_pixel_centers (for nearest
    floor((x + 0.5) / s)), else x / s. Bicubic is Keys' cubic, a = -0.5 with
    half_pixel_centers (taps outside the image weigh 0, the rest renormalized),
    else a = -0.75 with the edge pixels repeated."""
    shape = ctx.shape(data_inputs(node)[0])
    if shape is None or len(shape) != 4:
        raise _NodeError(f"images must be rank 4 (NHWC), got shape {shape}")
    size = [int(v) for v in np.asarray(ctx.require_const(node, 1, "size")).reshape(-1)]
    if len(size) != 2 or min(size) < 1:
        raise _NodeError(f"size {size} is not a positive [height, width]")
    align, half = attr(node, "align_corners", False), attr(node, "half_pixel_centers", False)
    if align and half:
        raise _NodeError("align_corners and half_pixel_centers cannot both be set")
    nearest = node.op == "ResizeNearestNeighbor"
    if align:
        coordinates, rounding = "ALIGN_CORNERS", "ROUND_PREFER_CEIL"
    elif half:
        coordinates, rounding = ("TF_HALF_PIXEL_FOR_NN" if nearest else "HALF_PIXEL"), "FLOOR"
    else:
        coordinates, rounding = "ASYMMETRIC", "FLOOR"
    options = {
        "interpolation": "NEAREST" if nearest else "LINEAR",
        "coordinate_transformation": coordinates,
        "nearest_rounding": rounding,
        "sizes": [-1, size[0], size[1], -1],
        "scales": np.array([1.0, size[0] / shape[1], size[1] / shape[2], 1.0], np.float64),
        "roi": np.array([0.0] * 4 + [1.0] * 4, np.float64),
    }
    if node.op == "ResizeBicubic":
        options.update(interpolation="CUBIC", cubic_coeff_a=-0.5 if half else -0.75, exclude_outside=half)
        options["cubic_table_steps"] = 1024  # (TensorFlow's table of weights)
    ctx.builder.add_op("RESIZE", [ctx.input(node, 0)], [ctx.output(f"{node.name}:0")], ("ResizeOptions", options))


@lowers("ResizeArea")
def _resize_area(ctx, node):
    """ResizeArea (without align_corners) of an NHWC float32 image, each axis by a whole factor: shrunk, the
    average of each block (AVERAGE_POOL_2D, VALID, the factor as window and stride); grown, each pixel repeated
    (RESIZE, NEAREST, ASYMMETRIC, FLOOR); both in turn when one axis shrinks and the other grows."""
    x = data_inputs(node)[0]
    shape = ctx.shape(x)
    if shape is None or len(shape) != 4 or None in shape[1:3]:
        raise _NodeError(f"images must be rank 4 (NHWC) with a static height and width, got shape {shape}")
    if numpy_dtype(ctx.specs[tensor_name(x)][0]) != np.float32:
        raise _NodeError("images must be float32 (the lite runtime averages float32 only)")
    size = [int(v) for v in np.asarray(ctx.require_const(node, 1, "size")).reshape(-1)]
    down, up = lowering.area_resize_factors(node, shape, size)
    out = f"{node.name}:0"
    pooled = ctx.input(node, 0)
    if max(down) > 1:
        pooled_shape = [shape[0], shape[1] // down[0], shape[2] // down[1], shape[3]]
        target = (
            ctx.output(out)
            if max(up) == 1
            else ctx.intermediate(f"{node.name}/pooled", pooled_shape, np.float32, like=out)
        )
        options = lite_window_options("VALID", down, kernel=down)
        ctx.builder.add_op("AVERAGE_POOL_2D", [pooled], [target], ("Pool2DOptions", options))
        pooled = target
    if max(up) > 1 or max(down) == 1:
        options = {
            "interpolation": "NEAREST",
            "coordinate_transformation": "ASYMMETRIC",
            "nearest_rounding": "FLOOR",
            "sizes": [-1, size[0], size[1], -1],
            "scales": np.array([1.0, *up, 1.0], np.float64),  # (of the pooled image, when pooled)
            "roi": np.array([0.0] * 4 + [1.0] * 4, np.float64),
        }
        ctx.builder.add_op("RESIZE", [pooled], [ctx.output(out)], ("ResizeOptions", options))


@lowers("ArgMax", "ArgMin")
def _arg_max(ctx, node):
    axis = _int32_constant(ctx, node, 1, "axis")
    out = ctx.output(f"{node.name}:0")
    output_type = "INT32" if ctx.builder.tensor(out).dtype == np.int32 else "INT64"
    options = ("ArgMaxOptions", {"output_type": output_type})
    opcode = "ARG_MAX" if node.op == "ArgMax" else "ARG_MIN"
    ctx.builder.add_op(opcode, [ctx.input(node, 0), axis], [out], options)


@lowers("OneHot")
def _one_hot(ctx, node):
    """ONE_HOT of the constant depth, on and off values; a negative index gives a row of off values, as in
    TensorFlow (the lite op counts it from the end: it is replaced by depth first, which is out of range)."""
    depth = int(np.asarray(ctx.require_const(node, 1, "depth")).reshape(-1)[0])
    on, off = (ctx.require_const(node, i, what) for i, what in ((2, "on_value"), (3, "off_value")))
    out = f"{node.name}:0"
    dtype = numpy_dtype(ctx.specs[out][0])
    values = ctx.constant(f"{node.name}/values", np.array([np.reshape(off, []), np.reshape(on, [])], dtype))
    indices_name = data_inputs(node)[0]
    index_dtype = numpy_dtype(ctx.specs[tensor_name(indices_name)][0])
    shape = ctx.shape(indices_name)
    negative = ctx.intermediate(f"{node.name}/negative", shape, np.bool_, like=indices_name)
    zero = ctx.constant(f"{node.name}/zero", np.array(0, index_dtype))
    ctx.builder.add_op("LESS", [ctx.input(node, 0), zero], [negative])
    indices = ctx.intermediate(f"{node.name}/indices", shape, index_dtype, like=indices_name)
    past = ctx.constant(f"{node.name}/past_the_end", np.array(depth, index_dtype))
    ctx.builder.add_op("SELECT", [negative, past, ctx.input(node, 0)], [indices])
    depth_tensor = ctx.constant(f"{node.name}/depth", np.array(depth, np.int64))
    options = ("OneHotOptions", {"axis": attr(node, "axis", -1)})
    ctx.builder.add_op("ONE_HOT", [indices, depth_tensor, values], [ctx.output(out)], options)


@lowers("BroadcastTo")
def _broadcast_to(ctx, node):
    """BROADCAST_TO a constant shape."""
    shape = np.asarray(ctx.require_const(node, 1, "shape"), np.int64)
    target = ctx.constant(f"{node.name}/shape", shape)
    ctx.builder.add_op("BROADCAST_TO", [ctx.input(node, 0), target], [ctx.output(f"{node.name}:0")])


@lowers("GatherNd")
def _gather_nd(ctx, node):
    """GATHER_ND (indices computed or constant; out-of-range indices fail the invoke, as on TensorFlow's CPU)."""
    options = ("GatherOptions", {"batch_dims": 0})
    ctx.builder.add_op("GATHER_ND", [ctx.input(node, 0), ctx.input(node, 1)], [ctx.output(f"{node.name}:0")], options)


@lowers("Atan2")
def _atan2(ctx, node):
    """atan(y / x), plus pi (y >= 0) or minus pi (y < 0) where x < 0; pi/2 or -pi/2 (y's sign) where x is 0, and
    0 where y is 0 too (float32; a signed zero's quadrant is not told apart)."""
    out = f"{node.name}:0"
    dtype = numpy_dtype(ctx.specs[out][0])
    if dtype != np.float32:
        raise _NodeError(f"Atan2 of {dtype} is not supported (float32 only)")
    y, x = ctx.input(node, 0), ctx.input(node, 1)
    shape = ctx.specs[out][1]

    def like(suffix, dt=np.float32):
        return ctx.intermediate(f"{node.name}/{suffix}", shape, dt, like=out)

    def const(suffix, value):
        return ctx.constant(f"{node.name}/{suffix}", np.array(value, np.float32))

    ratio, angle, turn, turned, summed, upright, on_axis = (
        like(s) for s in ("ratio", "atan", "turn", "turned", "summed", "upright", "on_axis")
    )
    x_negative, y_up, x_zero, y_zero, origin = (
        like(s, np.bool_) for s in ("x_negative", "y_nonnegative", "x_zero", "y_zero", "origin")
    )
    zero = const("zero", 0.0)
    ctx.builder.add_op("DIV", [y, x], [ratio], _ARITHMETIC)
    ctx.builder.add_op("ATAN", [ratio], [angle])
    ctx.builder.add_op("LESS", [x, zero], [x_negative])
    ctx.builder.add_op("GREATER_EQUAL", [y, zero], [y_up])
    ctx.builder.add_op("SELECT", [y_up, const("pi", np.pi), const("minus_pi", -np.pi)], [turn])
    ctx.builder.add_op("SELECT", [x_negative, turn, zero], [turned])
    ctx.builder.add_op("ADD", [angle, turned], [summed], _ARITHMETIC)
    ctx.builder.add_op("EQUAL", [x, zero], [x_zero])
    ctx.builder.add_op("EQUAL", [y, zero], [y_zero])
    ctx.builder.add_op("LOGICAL_AND", [x_zero, y_zero], [origin])
    ctx.builder.add_op("SELECT", [y_up, const("half_pi", np.pi / 2), const("minus_half_pi", -np.pi / 2)], [upright])
    ctx.builder.add_op("SELECT", [x_zero, upright, summed], [on_axis])
    ctx.builder.add_op("SELECT", [origin, zero, on_axis], [ctx.output(out)])


@lowers("Expm1", "Log1p")
def _expm1_log1p(ctx, node):
    """exp(x) - 1 (EXP, SUB) and log(1 + x) (ADD, LOG)."""
    out = f"{node.name}:0"
    one = ctx.constant(f"{node.name}/one", np.array(1, numpy_dtype(ctx.specs[out][0])))
    inner = _like(ctx, node, "exp" if node.op == "Expm1" else "one_plus")
    if node.op == "Expm1":
        ctx.builder.add_op("EXP", [ctx.input(node, 0)], [inner])
        ctx.builder.add_op("SUB", [inner, one], [ctx.output(out)], _ARITHMETIC)
    else:
        ctx.builder.add_op("ADD", [one, ctx.input(node, 0)], [inner], _ARITHMETIC)
        ctx.builder.add_op("LOG", [inner], [ctx.output(out)])


@lowers("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")
def _batch_norm(ctx, node):
    # Left over by freezing only when it follows no conv/matmul: x * s + b (NCHW: s and b per axis 1, as Keras'
    # BatchNormalization(axis=1) on a 4-D input runs it).
    nchw = attr(node, "data_format", "NHWC") == "NCHW"
    if not nchw:
        check_nhwc(node)
    if attr(node, "is_training", True):
        raise _NodeError("is_training=True batch norm cannot run at inference")
    scale, offset, mean, variance = (
        ctx.require_const(node, i, w).astype(np.float64)
        for i, w in ((1, "scale"), (2, "offset"), (3, "mean"), (4, "variance"))
    )
    s = scale / np.sqrt(variance + attr(node, "epsilon", 1e-4))
    out_name = f"{node.name}:0"
    scaled = _like(ctx, node, "scaled")
    b = offset - mean * s
    if nchw:
        s, b = s.reshape(-1, 1, 1), b.reshape(-1, 1, 1)
    s_t = ctx.constant(f"{node.name}/scale", s.astype(np.float32))
    b_t = ctx.constant(f"{node.name}/offset", b.astype(np.float32))
    ctx.builder.add_op("MUL", [ctx.input(node, 0), s_t], [scaled], _ARITHMETIC)
    ctx.builder.add_op("ADD", [scaled, b_t], [ctx.output(out_name)], _ARITHMETIC)


# --- the driver ------------------------------------------------------------------------
def convert(frozen_graph_def, inputs, outputs, input_keys=None, output_keys=None, options=None):
    """.twl bytes of a frozen GraphDef.

    `inputs`/`outputs`: tensor names; `input_keys`/`output_keys`: their names
    in the "serving_default" signature (default: the node names). `options`
    is recorded in the metadata; its "checksum" (default True) adds the
    integrity trailer."""
    inputs = [tensor_name(i) for i in inputs]
    outputs = [tensor_name(o) for o in outputs]
    view = GraphView(frozen_graph_def)
    nodes = lowering.nodes_to_convert(view, LOWERINGS, ".twl")
    ctx = Context(frozen_graph_def, outputs)
    for name, key in lowering.signature_keys(inputs, input_keys):
        node = lowering.placeholder(view, name)
        dt, shape = ctx.specs[name]
        if shape is None:
            raise ConversionError(f"input '{name}' has unknown rank; give it a shape")
        _, signature = ctx.signature_specs[name]
        index = ctx.builder.add_input(
            node.name, shape, _checked_dtype(dt, name), [-1 if d is None else d for d in signature]
        )
        ctx.builder.signature_inputs[-1] = (key, index)
        ctx.tensors[name] = index
    # A node can be absorbed (fused) by one converted before it.
    lowering.convert_all(ctx, nodes, LOWERINGS, ".twl")
    renamed = set()
    for name, key in lowering.signature_keys(outputs, output_keys):
        if name not in ctx.tensors:
            value = view.const_value(name)
            if value is None:
                raise ConversionError(f"output '{name}' was not computed")
            ctx.tensors[name] = ctx.constant(parse_input(name)[0], value)
        index = ctx.tensors[name]
        if index not in renamed:
            ctx.builder.rename(index, parse_input(name)[0] if name.endswith(":0") else name)
        renamed.add(index)
        ctx.builder.add_output(key, index)
    ctx.builder.metadata["producer"] = PRODUCER
    ctx.builder.metadata["conversion_options"] = json.dumps(
        dict(options or {}, inputs=inputs, outputs=outputs), sort_keys=True
    )
    return ctx.builder.serialize(checksum=(options or {}).get("checksum", True))


def _checked_dtype(dt, name):
    try:
        return _np_dtype(dt, name)
    except _NodeError as e:
        raise ConversionError(str(e)) from None

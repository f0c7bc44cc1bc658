"""Converts ONNX models to .twl, so models from other frameworks run on the
lite runtime.

Table-driven: `IMPORTERS` maps an ONNX op type to a function emitting lite
operators. Layout: ONNX is NCHW, the lite runtime's Conv/Pool are NHWC. Each
tensor remembers whether the lite tensor is the ONNX tensor or its NHWC
transpose; Conv/Pool/BatchNormalization produce NHWC, layout-agnostic ops
keep it, and a TRANSPOSE back is inserted only where an op needs ONNX's
layout (Flatten, Reshape, Softmax over channels, ...) and at the outputs.
The model's inputs and outputs keep their ONNX shapes.

Before lowering, nodes whose inputs are all constants (Constant, Shape of a
static tensor, ...) are evaluated with onnx's reference evaluator, when the
size of what they would make is known beforehand and at most
_FOLDABLE_LIMIT elements (a 100-byte ConstantOfShape must not allocate
gigabytes before being refused). The model's default-domain opset must be
in MIN_OPSET..MAX_OPSET. Shapes
come from onnx shape inference with every symbolic input dim set to 1; a
symbolic first dim becomes -1 in shape_signature.

Example:
  >>> import numpy as np
  >>> from onnx import TensorProto, helper
  >>> from converters import onnx_import
  >>> g = helper.make_graph(
  ...     [helper.make_node("Relu", ["x"], ["y"])], "g",
  ...     [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3])],
  ...     [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])])
  >>> data = onnx_import.convert(helper.make_model(g))
  >>> data[4:8]
  b'TWL1'
"""

import json

import numpy as np
import onnx
from onnx import helper, numpy_helper, shape_inference

from converters import tables
from converters.errors import ConversionError, convert_nodes, unsupported_ops_error
from converters.errors import NodeError as _NodeError
from converters.twl_writer import TwlModelBuilder, checked_shape

PRODUCER = "tensorweave-convert 0.1.0 (onnx)"
IMPORTERS = {}
TO_NHWC, TO_NCHW = (0, 2, 3, 1), (0, 3, 1, 2)
NCHW_TO_NHWC_AXIS = {0: 0, 1: 3, 2: 1, 3: 2}
_FOLDABLE_LIMIT = 1 << 24
# Default-domain (ai.onnx) opsets the importer reads. Below 7, Add/Mul/...
# broadcast only with an attribute; above what the installed onnx defines,
# its shape inference and reference evaluator (both used here) do not know
# the ops' semantics.
MIN_OPSET = 7
MAX_OPSET = onnx.defs.onnx_opset_version()
# Ops whose output can be much larger than their inputs: folded only when
# the size of the result is known beforehand.
_EXPANDING_OPS = {
    "ConstantOfShape",
    "Tile",
    "Expand",
    "Range",
    "Resize",
    "Upsample",
    "Pad",
    "OneHot",
    "MatMul",
    "Gemm",
    "Einsum",
    "ConvTranspose",
    "Col2Im",
    "EyeLike",
    "RandomNormal",
    "RandomUniform",
    "RandomNormalLike",
    "RandomUniformLike",
    "Bernoulli",
    "Multinomial",
}


imports = tables.registrar(IMPORTERS)


def _attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


class Context:
    def __init__(self, model):
        self.model = model
        self.graph = model.graph
        self.opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 1)
        self.consts = {i.name: numpy_helper.to_array(i) for i in self.graph.initializer}
        self.builder = TwlModelBuilder(description=model.doc_string)
        self.tensors = {}  # onnx name -> (twl index, is_nhwc)
        self.absorbed = set()
        self.consumers = {}
        for node in self.graph.node:
            for name in node.input:
                if name:
                    self.consumers.setdefault(name, []).append(node)
        self.outputs = {o.name for o in self.graph.output}
        self._converted = {}
        self.specs, self.signature = {}, {}
        self.unfolded = {}  # id(node) -> elements its fold would make (None: unknown)

    # --- shapes -------------------------------------------------------------------
    def infer_shapes(self):
        def collect(model):
            out = {}
            g = model.graph
            for vi in list(g.input) + list(g.value_info) + list(g.output):
                t = vi.type.tensor_type
                if not vi.type.HasField("tensor_type") or not t.HasField("shape"):
                    continue
                dims = [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]
                out[vi.name] = (t.elem_type, dims)
            return out

        data_prop = _range_values_are_bounded(self.model)
        try:
            inferred = shape_inference.infer_shapes(self.model, data_prop=data_prop)
            static = onnx.ModelProto()
            static.CopyFrom(self.model)
            for vi in static.graph.input:
                for d in vi.type.tensor_type.shape.dim:
                    if not d.HasField("dim_value"):
                        d.dim_value = 1
            static_inferred = shape_inference.infer_shapes(static, data_prop=data_prop)
        except (onnx.shape_inference.InferenceError, onnx.checker.ValidationError) as e:
            raise ConversionError(f"ONNX shape inference failed: {e}") from None
        self.signature = collect(inferred)
        self.specs = collect(static_inferred)

    def shape(self, name):
        if name in self.consts:
            return list(self.consts[name].shape)
        spec = self.specs.get(name)
        if spec is None or any(d is None for d in spec[1]):
            raise _NodeError(f"'{name}' has no static shape")
        return list(spec[1])

    def dtype(self, name):
        if name in self.consts:
            return self.consts[name].dtype
        spec = self.specs.get(name)
        if spec is None:
            raise _NodeError(f"'{name}' has no known type")
        return helper.tensor_dtype_to_np_dtype(spec[0])

    def rank(self, name):
        return len(self.shape(name))

    def signature_of(self, name, shape):
        spec = self.signature.get(name)
        if spec is None or len(spec[1]) != len(shape):
            return None
        return [-1 if d is None else s for d, s in zip(spec[1], shape)]

    # --- tensors ------------------------------------------------------------------
    def const(self, name):
        return self.consts.get(name) if name else None

    def require_const(self, node, i, what):
        if i >= len(node.input) or not node.input[i] or node.input[i] not in self.consts:
            raise _NodeError(f"{what} (input {i}) must be a constant")
        return self.consts[node.input[i]]

    def constant(self, name, value, dtype=None):
        value = np.asarray(value, dtype=dtype)
        if value.dtype == np.float64:
            raise _NodeError(f"'{name}' is float64; the lite runtime computes in float32")
        return self.builder.add_constant(name, value)

    def value(self, name):
        """(twl index, is_nhwc) of an ONNX tensor (constants added on use)."""
        if name not in self.tensors:
            if name not in self.consts:
                raise _NodeError(f"'{name}' has not been computed")
            self.tensors[name] = (self.constant(name, self.consts[name]), False)
        return self.tensors[name]

    def _transposed(self, name, perm, shape):
        index, _ = self.value(name)
        key = (index, perm)
        if key not in self._converted:
            out = self.builder.add_tensor(
                f"{name}/{'nhwc' if perm == TO_NHWC else 'nchw'}",
                shape,
                self.builder.tensor(index).dtype,
                _batch_sig(self, name, shape),
            )
            p = self.constant(f"{name}/perm", np.array(perm, np.int32))
            self.builder.add_op("TRANSPOSE", [index, p], [out])
            self._converted[key] = out
        return self._converted[key]

    def plain(self, name):
        """The twl tensor of `name` in ONNX's layout."""
        index, nhwc = self.value(name)
        if not nhwc:
            return index
        return self._transposed(name, TO_NCHW, self.shape(name))

    def nhwc(self, name):
        """The twl tensor of rank-4 `name` in NHWC."""
        index, nhwc = self.value(name)
        if nhwc:
            return index
        if name in self.consts:
            return self.constant(f"{name}/nhwc", np.ascontiguousarray(self.consts[name].transpose(TO_NHWC)))
        shape = self.shape(name)
        return self._transposed(name, TO_NHWC, [shape[i] for i in TO_NHWC])

    def is_nhwc(self, name):
        return name in self.tensors and self.tensors[name][1]

    def output(self, name, nhwc=False, dtype=None):
        """A new twl tensor for ONNX tensor `name`."""
        shape = self.shape(name)
        sig = self.signature_of(name, shape)
        if nhwc:
            shape = [shape[i] for i in TO_NHWC]
            sig = [sig[i] for i in TO_NHWC] if sig else None
        twl_name = f"{name}/nhwc" if nhwc else name
        index = self.builder.add_tensor(twl_name, shape, dtype or self.dtype(name), sig)
        self.tensors[name] = (index, nhwc)
        return index

    def intermediate(self, name, shape, dtype, like=None):
        sig = _batch_sig(self, like, shape) if like else None
        return self.builder.add_tensor(name, shape, dtype, sig)

    # --- fusion -------------------------------------------------------------------
    def sole_consumer(self, name, op_types):
        users = self.consumers.get(name, [])
        if name in self.outputs or len(users) != 1 or users[0].op_type not in op_types:
            return None
        return users[0]

    def fuse_activation(self, name):
        """(fused activation, ONNX tensor after it)."""
        node = self.sole_consumer(name, ("Relu", "Sigmoid", "Tanh", "Clip"))
        if node is None:
            return "NONE", name
        if node.op_type == "Clip":
            act = _clip_activation(self, node)
            if act is None:
                return "NONE", name
        else:
            act = {"Relu": "RELU", "Sigmoid": "SIGMOID", "Tanh": "TANH"}[node.op_type]
        self.absorbed.add(id(node))
        return act, node.output[0]


def _batch_sig(ctx, like, shape):
    spec = ctx.signature.get(like)
    if spec and spec[1] and spec[1][0] is None and shape:
        return [-1] + list(shape[1:])
    return None


def _clip_bounds(ctx, node):
    a = _attrs(node)
    if ctx.opset < 11:
        return a.get("min", -np.inf), a.get("max", np.inf)
    bounds = []
    for i, default in ((1, -np.inf), (2, np.inf)):
        if len(node.input) > i and node.input[i]:
            if node.input[i] not in ctx.consts:
                raise _NodeError("Clip bounds must be constants")
            bounds.append(float(ctx.consts[node.input[i]]))
        else:
            bounds.append(default)
    return bounds


def _clip_activation(ctx, node):
    try:
        low, high = _clip_bounds(ctx, node)
    except _NodeError:
        return None
    if low == 0 and high == 6:
        return "RELU6"
    if low == 0 and high == np.inf:
        return "RELU"
    return None


# --- importers ---------------------------------------------------------------------------------
@imports("Identity")
def _identity(ctx, node):
    index, nhwc = ctx.value(node.input[0])
    ctx.tensors[node.output[0]] = (index, nhwc)


_ELEMENTWISE = {"Add": "ADD", "Sub": "SUB", "Mul": "MUL", "Div": "DIV", "Max": "MAXIMUM", "Min": "MINIMUM"}


def _to_nhwc_operand(ctx, name, out_rank):
    """`name` for an op running in NHWC on rank-4 tensors, or None."""
    if ctx.is_nhwc(name):
        return ctx.value(name)[0]
    value = ctx.const(name)
    if value is not None and value.ndim <= 4 and out_rank == 4:
        value = value.reshape((1,) * (4 - value.ndim) + value.shape).transpose(TO_NHWC)
        return ctx.constant(f"{name}/nhwc", np.ascontiguousarray(value))
    if value is None and ctx.rank(name) == 4:
        return ctx.nhwc(name)
    return None


@imports(*_ELEMENTWISE)
def _elementwise(ctx, node):
    opcode = _ELEMENTWISE[node.op_type]
    inputs = [i for i in node.input if i]
    out = node.output[0]
    if len(inputs) == 1:
        return _identity(ctx, node)
    if opcode == "DIV" and np.dtype(ctx.dtype(out)).kind in "iu":
        raise _NodeError("integer Div truncates in ONNX; the lite DIV does not promise that")
    nhwc = ctx.rank(out) == 4 and any(ctx.is_nhwc(i) for i in inputs)
    operands = [_to_nhwc_operand(ctx, i, 4) for i in inputs] if nhwc else None
    if not nhwc or any(o is None for o in operands):
        nhwc, operands = False, [ctx.plain(i) for i in inputs]
    activation, last = "NONE", out
    if opcode not in ("MAXIMUM", "MINIMUM") and ctx.dtype(out) == np.float32 and len(inputs) == 2:
        activation, last = ctx.fuse_activation(out)
    options = (
        None if opcode in ("MAXIMUM", "MINIMUM") else ("ArithmeticOptions", {"fused_activation_function": activation})
    )
    acc = operands[0]
    for k, operand in enumerate(operands[1:]):
        if k == len(operands) - 2:
            target = ctx.output(last, nhwc=nhwc)
        else:
            shape = ctx.shape(out)
            shape = [shape[i] for i in TO_NHWC] if nhwc else shape
            target = ctx.intermediate(f"{out}/partial_{k}", shape, ctx.dtype(out))
        ctx.builder.add_op(opcode, [acc, operand], [target], options)
        acc = target


_UNARY = {
    "Relu": "RELU",
    "Sigmoid": "SIGMOID",
    "Tanh": "TANH",
    "Exp": "EXP",
    "Log": "LOG",
    "Sqrt": "SQRT",
    "Neg": "NEG",
    "Abs": "ABS",
}


@imports(*_UNARY)
def _unary(ctx, node):
    index, nhwc = ctx.value(node.input[0])
    ctx.builder.add_op(_UNARY[node.op_type], [index], [ctx.output(node.output[0], nhwc=nhwc)])


@imports("Reciprocal")
def _reciprocal(ctx, node):
    index, nhwc = ctx.value(node.input[0])
    one = ctx.constant(f"{node.output[0]}/one", np.array(1, ctx.dtype(node.input[0])))
    options = ("ArithmeticOptions", {})
    ctx.builder.add_op("DIV", [one, index], [ctx.output(node.output[0], nhwc=nhwc)], options)


@imports("Clip")
def _clip(ctx, node):
    index, nhwc = ctx.value(node.input[0])
    low, high = _clip_bounds(ctx, node)
    out = node.output[0]
    act = _clip_activation(ctx, node)
    if act is not None and ctx.dtype(out) == np.float32:
        ctx.builder.add_op(act, [index], [ctx.output(out, nhwc=nhwc)])
        return
    dtype = ctx.dtype(out)
    steps = [(op, v) for op, v in (("MAXIMUM", low), ("MINIMUM", high)) if np.isfinite(v)]
    if not steps:
        return _identity(ctx, node)
    acc = index
    for k, (op, v) in enumerate(steps):
        bound = ctx.constant(f"{out}/{op.lower()}", np.array(v, dtype))
        if k == len(steps) - 1:
            target = ctx.output(out, nhwc=nhwc)
        else:
            target = ctx.intermediate(f"{out}/low", ctx.builder.tensor(index).shape, dtype)
        ctx.builder.add_op(op, [acc, bound], [target])
        acc = target


@imports("Softmax", "LogSoftmax")
def _softmax(ctx, node):
    x, out = node.input[0], node.output[0]
    shape = ctx.shape(x)
    rank = len(shape)
    opcode = "SOFTMAX" if node.op_type == "Softmax" else "LOG_SOFTMAX"
    options = ("SoftmaxOptions", {"beta": 1.0})
    axis = _attrs(node).get("axis", -1 if ctx.opset >= 13 else 1) % max(rank, 1)
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
    a = _attrs(node)
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


@imports("MatMul")
def _matmul(ctx, node):
    a_name, b_name, out = node.input[0], node.input[1], node.output[0]
    b_value = ctx.const(b_name)
    a_rank = ctx.rank(a_name)
    if b_value is not None and b_value.ndim == 2 and a_rank >= 2:
        bias, last = -1, out
        activation, last = ctx.fuse_activation(out)
        w = ctx.constant(f"{out}/weights", np.ascontiguousarray(b_value.T))
        options = ("FullyConnectedOptions", {"fused_activation_function": activation, "keep_num_dims": a_rank > 2})
        ctx.builder.add_op("FULLY_CONNECTED", [ctx.plain(a_name), w, bias], [ctx.output(last)], options)
        return
    if a_rank < 2 or ctx.rank(b_name) < 2:
        raise _NodeError("1-D MatMul operands are not supported by BATCH_MATMUL")
    ctx.builder.add_op(
        "BATCH_MATMUL", [ctx.plain(a_name), ctx.plain(b_name)], [ctx.output(out)], ("BatchMatMulOptions", {})
    )


def _spatial_padding(ctx, node, x_shape, kernel, strides, dilations):
    """("SAME"|"VALID", explicit [top, left, bottom, right] pads or None)."""
    a = _attrs(node)
    auto_pad = a.get("auto_pad", b"NOTSET")
    auto_pad = auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad
    h, w = x_shape[2], x_shape[3]
    same = []
    for size, k, s, d in zip((h, w), kernel, strides, dilations):
        out = -(-size // s)
        total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
        same.append((total // 2, total - total // 2))
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
    if bn is None or len([o for o in bn.output if o]) != 1 or _attrs(bn).get("training_mode", 0):
        return filt, bias, out
    params = [ctx.const(i) for i in bn.input[1:5]]
    if any(p is None for p in params):
        return filt, bias, out
    scale, offset, mean, var = (p.astype(np.float64) for p in params)
    s = scale / np.sqrt(var + _attrs(bn).get("epsilon", 1e-5))
    shape = [1] * filt.ndim
    shape[channel_axis] = -1
    filt = (filt * s.reshape(shape)).astype(np.float32)
    bias = ((bias - mean) * s + offset).astype(np.float32)
    ctx.absorbed.add(id(bn))
    return filt, bias, bn.output[0]


@imports("Conv")
def _conv(ctx, node):
    a = _attrs(node)
    x_name, out = node.input[0], node.output[0]
    weights = ctx.const(node.input[1])
    if weights is None:
        raise _NodeError("the weights must be a constant")
    if weights.ndim != 4:
        raise _NodeError(f"only 2-D convolutions are supported (weights rank {weights.ndim})")
    x_shape = ctx.shape(x_name)
    o, i_per_group, kh, kw = weights.shape
    group = a.get("group", 1)
    strides = list(a.get("strides", [1, 1]))
    dilations = list(a.get("dilations", [1, 1]))
    padding, pads = _spatial_padding(ctx, node, x_shape, [kh, kw], strides, dilations)
    bias = ctx.const(node.input[2]) if len(node.input) > 2 and node.input[2] else np.zeros([o], np.float32)
    if bias is None:
        raise _NodeError("the bias must be a constant")
    weights, bias, last = _fold_batch_norm(ctx, out, weights.astype(np.float32), bias.astype(np.float64), 0)
    activation, last = ctx.fuse_activation(last)
    options = {
        "padding": padding,
        "stride_h": strides[0],
        "stride_w": strides[1],
        "dilation_h_factor": dilations[0],
        "dilation_w_factor": dilations[1],
        "fused_activation_function": activation,
    }
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
    if pads is not None:
        x = _explicit_pad(ctx, out, x, [x_shape[i] for i in TO_NHWC], pads)
    f = ctx.constant(f"{out}/filter", np.ascontiguousarray(filt))
    b = ctx.constant(f"{out}/bias", bias.astype(np.float32))
    ctx.builder.add_op(opcode, [x, f, b], [ctx.output(last, nhwc=True)], (table, options))


@imports("MaxPool", "AveragePool")
def _pool(ctx, node):
    a = _attrs(node)
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
    strides = list(a.get("strides", [1, 1]))
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
        _, pads = "VALID", _same_as_pads(x_shape, kernel, strides)
        padding, fill = "VALID", 0.0
    x = ctx.nhwc(x_name)
    if pads is not None:
        x = _explicit_pad(ctx, out, x, [x_shape[i] for i in TO_NHWC], pads, fill)
    options = {
        "padding": padding,
        "stride_h": strides[0],
        "stride_w": strides[1],
        "filter_height": kernel[0],
        "filter_width": kernel[1],
    }
    opcode = "MAX_POOL_2D" if is_max else "AVERAGE_POOL_2D"
    ctx.builder.add_op(opcode, [x], [ctx.output(out, nhwc=True)], ("Pool2DOptions", options))


def _same_as_pads(x_shape, kernel, strides):
    pads = []
    for size, k, s in zip(x_shape[2:], kernel, strides):
        out = -(-size // s)
        total = max((out - 1) * s + k - size, 0)
        pads.append((total // 2, total - total // 2))
    return [pads[0][0], pads[1][0], pads[0][1], pads[1][1]]


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
    a = _attrs(node)
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
    shape = ctx.shape(out)
    shape = [shape[i] for i in TO_NHWC] if nhwc else shape
    scaled = ctx.intermediate(f"{out}/scaled", shape, np.float32)
    ctx.builder.add_op("MUL", [src, s_t], [scaled], ("ArithmeticOptions", {}))
    ctx.builder.add_op("ADD", [scaled, b_t], [ctx.output(out, nhwc=nhwc)], ("ArithmeticOptions", {}))


def _reshape_to(ctx, node, src, out):
    shape = ctx.shape(out)
    target = list(shape)
    sig = ctx.signature_of(out, shape)
    if sig and sig[0] == -1 and sig.count(-1) == 1:
        target[0] = -1
    t = ctx.constant(f"{out}/shape", np.array(target, np.int32))
    ctx.builder.add_op("RESHAPE", [src, t], [ctx.output(out)])


@imports("Reshape", "Flatten")
def _reshape(ctx, node):
    if node.op_type == "Reshape" and _attrs(node).get("allowzero", 0):
        shape = ctx.require_const(node, 1, "shape")
        if np.any(shape == 0):
            raise _NodeError("allowzero with a 0 dim makes an empty tensor")
    _reshape_to(ctx, node, ctx.plain(node.input[0]), node.output[0])


@imports("Squeeze", "Unsqueeze")
def _squeeze(ctx, node):
    _reshape_to(ctx, node, ctx.plain(node.input[0]), node.output[0])


@imports("Transpose")
def _transpose(ctx, node):
    rank = ctx.rank(node.input[0])
    perm = list(_attrs(node).get("perm", list(range(rank))[::-1]))
    if rank == 4 and node.input[0] not in ctx.consts:
        # A layout change the lite tensor already has (or is) costs nothing:
        # NCHW of a plain tensor is that tensor read as NHWC, and back.
        index, nhwc = ctx.value(node.input[0])
        if tuple(perm) == (TO_NCHW if not nhwc else TO_NHWC):
            ctx.tensors[node.output[0]] = (index, not nhwc)
            return
    if ctx.is_nhwc(node.input[0]):
        src = ctx.value(node.input[0])[0]
        perm = [TO_NCHW[p] for p in perm]  # lite -> ONNX layout, then perm
    else:
        src = ctx.plain(node.input[0])
    p = ctx.constant(f"{node.output[0]}/perm", np.array(perm, np.int32))
    ctx.builder.add_op("TRANSPOSE", [src, p], [ctx.output(node.output[0])])


@imports("Concat")
def _concat(ctx, node):
    inputs = [i for i in node.input if i]
    rank = ctx.rank(node.output[0])
    axis = _attrs(node)["axis"] % rank
    if rank == 4 and any(ctx.is_nhwc(i) for i in inputs):
        srcs = [ctx.nhwc(i) for i in inputs]
        options = ("ConcatenationOptions", {"axis": NCHW_TO_NHWC_AXIS[axis]})
        ctx.builder.add_op("CONCATENATION", srcs, [ctx.output(node.output[0], nhwc=True)], options)
        return
    options = ("ConcatenationOptions", {"axis": axis})
    ctx.builder.add_op("CONCATENATION", [ctx.plain(i) for i in inputs], [ctx.output(node.output[0])], options)


@imports("Pad")
def _pad(ctx, node):
    a = _attrs(node)
    mode = a.get("mode", b"constant")
    mode = mode.decode() if isinstance(mode, bytes) else mode
    if mode != "constant":
        raise _NodeError(f"mode {mode!r} is not supported (constant only)")
    rank = ctx.rank(node.input[0])
    pads = np.array(a["pads"] if ctx.opset < 11 else ctx.require_const(node, 1, "pads"), np.int64)
    value = (
        a.get("value", 0.0)
        if ctx.opset < 11
        else (ctx.const(node.input[2]) if len(node.input) > 2 and node.input[2] else None)
    )
    axes = list(range(rank))
    if len(node.input) > 3 and node.input[3]:
        axes = [int(x) % rank for x in ctx.require_const(node, 3, "axes")]
    paddings = np.zeros([rank, 2], np.int32)
    n = len(axes)
    for k, axis in enumerate(axes):
        paddings[axis] = (pads[k], pads[k + n])
    if np.any(paddings < 0):
        raise _NodeError("negative pads (cropping) are not supported")
    inputs = [ctx.plain(node.input[0]), ctx.constant(f"{node.output[0]}/paddings", paddings)]
    if value is not None:
        inputs.append(ctx.constant(f"{node.output[0]}/value", np.array(value, ctx.dtype(node.input[0]))))
    ctx.builder.add_op("PAD", inputs, [ctx.output(node.output[0])])


@imports("Gather")
def _gather(ctx, node):
    rank = ctx.rank(node.input[0])
    axis = _attrs(node).get("axis", 0) % rank
    indices = ctx.const(node.input[1])
    if indices is not None:
        dim = ctx.shape(node.input[0])[axis]
        indices = np.where(indices < 0, indices + dim, indices)
        idx = ctx.constant(f"{node.output[0]}/indices", indices.astype(np.int32))
    else:
        idx = ctx.plain(node.input[1])
    options = ("GatherOptions", {"axis": axis})
    ctx.builder.add_op("GATHER", [ctx.plain(node.input[0]), idx], [ctx.output(node.output[0])], options)


@imports("Slice")
def _slice(ctx, node):
    shape = ctx.shape(node.input[0])
    rank = len(shape)
    if ctx.opset < 10:
        a = _attrs(node)
        starts, ends = a["starts"], a["ends"]
        axes, steps = a.get("axes", list(range(len(starts)))), [1] * len(starts)
    else:
        starts = ctx.require_const(node, 1, "starts")
        ends = ctx.require_const(node, 2, "ends")
        axes = ctx.const(node.input[3]) if len(node.input) > 3 and node.input[3] else range(len(starts))
        steps = ctx.const(node.input[4]) if len(node.input) > 4 and node.input[4] else [1] * len(starts)
        if axes is None or steps is None:
            raise _NodeError("axes and steps must be constants")
    begin, end, stride = [0] * rank, list(shape), [1] * rank
    # Dims not sliced take everything (masks, so a dynamic batch stays whole).
    begin_mask = end_mask = (1 << rank) - 1
    for start, stop, axis, step in zip(starts, ends, axes, steps):
        axis, step, dim = int(axis) % rank, int(step), shape[int(axis) % rank]
        start, stop = int(start), int(stop)
        start = start + dim if start < 0 else start
        stop = stop + dim if stop < 0 else stop
        # A bound at or past the end of the dim becomes a mask bit, so that
        # it still means "to the end" when a dynamic dim (the batch) grows.
        if step > 0:
            whole_start, whole_stop = start <= 0, stop >= dim
            start, stop = min(max(start, 0), dim), min(max(stop, 0), dim)
        else:
            whole_start, whole_stop = start >= dim - 1, stop < 0
            start, stop = min(max(start, 0), dim - 1), min(max(stop, -1), dim - 1)
        if not whole_start:
            begin_mask &= ~(1 << axis)
        if not whole_stop:
            end_mask &= ~(1 << axis)
        begin[axis], end[axis], stride[axis] = start, stop, step
    bounds = [
        ctx.constant(f"{node.output[0]}/{w}", np.array(v, np.int32))
        for w, v in (("begin", begin), ("end", end), ("strides", stride))
    ]
    options = ("StridedSliceOptions", {"begin_mask": begin_mask, "end_mask": end_mask})
    ctx.builder.add_op("STRIDED_SLICE", [ctx.plain(node.input[0])] + bounds, [ctx.output(node.output[0])], options)


@imports("ReduceMean", "ReduceSum")
def _reduce_mean(ctx, node):
    a = _attrs(node)
    x, out = node.input[0], node.output[0]
    rank = ctx.rank(x)
    if ctx.opset >= 18 or (node.op_type == "ReduceSum" and ctx.opset >= 13):
        axes = ctx.const(node.input[1]) if len(node.input) > 1 and node.input[1] else None
        if len(node.input) > 1 and node.input[1] and axes is None:
            raise _NodeError("axes must be a constant")
    else:
        axes = a.get("axes")
    if axes is None or len(axes) == 0:
        if a.get("noop_with_empty_axes", 0):
            return _identity(ctx, node)
        axes = range(rank)
    axes = sorted({int(v) % rank for v in axes})
    keep = bool(a.get("keepdims", 1))
    options = ("ReducerOptions", {"keep_dims": keep})
    src, nhwc, lite_axes = ctx.plain, False, axes
    if rank == 4 and ctx.is_nhwc(x):
        kept = [v for v in range(4) if v not in axes]
        if keep or sorted(kept, key=lambda v: NCHW_TO_NHWC_AXIS[v]) == kept:
            src, nhwc, lite_axes = ctx.nhwc, keep, sorted(NCHW_TO_NHWC_AXIS[v] for v in axes)
    t = ctx.constant(f"{out}/axes", np.array(lite_axes, np.int32))
    if node.op_type == "ReduceMean":
        ctx.builder.add_op("MEAN", [src(x), t], [ctx.output(out, nhwc=nhwc)], options)
        return
    # ReduceSum = MEAN * (number of reduced elements): there is no SUM op.
    shape, sig = ctx.shape(x), ctx.signature_of(x, ctx.shape(x))
    if sig and any(sig[v] == -1 for v in axes):
        raise _NodeError("a sum over a dynamic dimension cannot be lowered (no SUM op)")
    out_shape = ctx.shape(out)
    out_shape = [out_shape[i] for i in TO_NHWC] if nhwc else out_shape
    mean = ctx.intermediate(f"{out}/mean", out_shape, ctx.dtype(out), like=out)
    ctx.builder.add_op("MEAN", [src(x), t], [mean], options)
    count = ctx.constant(f"{out}/count", np.array(int(np.prod([shape[v] for v in axes])), ctx.dtype(out)))
    ctx.builder.add_op("MUL", [mean, count], [ctx.output(out, nhwc=nhwc)], ("ArithmeticOptions", {}))


@imports("Pow")
def _pow(ctx, node):
    # Only the exponents with a lite op: x^2 (SQUARE), x^0.5 (SQRT), x^-0.5 (RSQRT).
    exponent = ctx.require_const(node, 1, "the exponent")
    opcode = {2.0: "SQUARE", 0.5: "SQRT", -0.5: "RSQRT"}.get(float(exponent) if exponent.size == 1 else None)
    if opcode is None:
        raise _NodeError(f"exponent {exponent.tolist()} has no lite op (2, 0.5 or -0.5)")
    index, nhwc = ctx.value(node.input[0])
    ctx.builder.add_op(opcode, [index], [ctx.output(node.output[0], nhwc=nhwc)])


_LITE_TYPES = (np.float32, np.int32, np.int64, np.uint8, np.int8, np.bool_)


@imports("Cast")
def _cast(ctx, node):
    to = helper.tensor_dtype_to_np_dtype(_attrs(node)["to"])
    src_type = ctx.dtype(node.input[0])
    if np.dtype(to) not in [np.dtype(t) for t in _LITE_TYPES] or np.dtype(src_type) not in [
        np.dtype(t) for t in _LITE_TYPES
    ]:
        raise _NodeError(f"cast from {np.dtype(src_type)} to {np.dtype(to)}: the lite runtime lacks the type")
    index, nhwc = ctx.value(node.input[0])
    ctx.builder.add_op("CAST", [index], [ctx.output(node.output[0], nhwc=nhwc, dtype=to)])


# --- constant folding with onnx's reference evaluator --------------------------------------------
def _ints(value):
    return [int(v) for v in np.asarray(value).reshape(-1)]


def _broadcast_size(*shapes):
    rank = max((len(sh) for sh in shapes), default=0)
    dims = [1] * rank
    for sh in shapes:
        for i, d in enumerate(sh):
            j = rank - len(sh) + i
            dims[j] = d if dims[j] == 1 else dims[j]
    return int(np.prod(dims, dtype=object))


def _fold_size(ctx, node):
    """The number of elements folding `node` would make (its largest output),
    computed from shapes and constant values without evaluating it; None
    when it cannot be told beforehand."""
    outputs = [o for o in node.output if o]
    specs = [ctx.specs.get(o) for o in outputs]
    if outputs and all(sp is not None and sp[1] and all(d is not None for d in sp[1]) for sp in specs):
        return max(int(np.prod(sp[1], dtype=object)) for sp in specs)
    consts = [ctx.consts[i] for i in node.input if i]
    op, a = node.op_type, _attrs(node)
    try:
        if op == "ConstantOfShape":
            return int(np.prod(_ints(consts[0]), dtype=object))
        if op == "Tile":
            return consts[0].size * int(np.prod(_ints(consts[1]), dtype=object))
        if op == "Expand":
            return _broadcast_size(list(consts[0].shape), _ints(consts[1]))
        if op == "Range":
            start, limit, delta = (float(np.asarray(c).reshape(-1)[0]) for c in consts[:3])
            return max(int(np.ceil((limit - start) / delta)), 0) if delta != 0 else None
        if op == "Pad" and len(consts) > 1:
            pads = _ints(consts[1])
            rank = consts[0].ndim
            return int(np.prod([consts[0].shape[i] + pads[i] + pads[i + rank] for i in range(rank)], dtype=object))
        if op == "OneHot":
            return consts[0].size * abs(int(np.asarray(consts[1]).reshape(-1)[0]))
    except (IndexError, ValueError, OverflowError, TypeError):
        return None
    if op in _EXPANDING_OPS or "shape" in a or "sizes" in a:
        return None
    # Elementwise and reducing ops make at most the broadcast of their inputs.
    try:
        return max([_broadcast_size(*[list(c.shape) for c in consts])] + [c.size for c in consts])
    except ValueError:
        return None


def _fold_constants(ctx):
    from onnx.reference import ReferenceEvaluator

    remaining = []
    for node in ctx.graph.node:
        if node.op_type == "Constant":
            value = helper.get_attribute_value(node.attribute[0])
            name = node.attribute[0].name
            if name == "value":
                ctx.consts[node.output[0]] = numpy_helper.to_array(value)
            elif name in ("value_float", "value_int"):
                ctx.consts[node.output[0]] = np.array(value, np.float32 if name == "value_float" else np.int64)
            elif name in ("value_floats", "value_ints"):
                ctx.consts[node.output[0]] = np.array(value, np.float32 if name == "value_floats" else np.int64)
            else:
                remaining.append(node)
            continue
        inputs = [i for i in node.input if i]
        static_shape = (
            node.op_type == "Shape"
            and node.input[0] in ctx.specs
            and all(d is not None for d in ctx.signature.get(node.input[0], (0, [None]))[1])
        )
        if (inputs and all(i in ctx.consts for i in inputs) and node.domain in ("", "ai.onnx")) or static_shape:
            size = None if static_shape else _fold_size(ctx, node)
            if not static_shape and (size is None or size > _FOLDABLE_LIMIT):
                # Checked before evaluating: left to lowering, or reported.
                ctx.unfolded[id(node)] = size
                remaining.append(node)
                continue
            try:
                if static_shape:
                    shape = np.array(ctx.signature[node.input[0]][1], np.int64)
                    a = _attrs(node)
                    results = [shape[a.get("start", 0) : a.get("end", len(shape))]]
                else:
                    ins = [
                        helper.make_tensor_value_info(i, helper.np_dtype_to_tensor_dtype(ctx.consts[i].dtype), None)
                        for i in dict.fromkeys(inputs)
                    ]
                    outs = [helper.make_tensor_value_info(o, 0, None) for o in node.output if o]
                    g = helper.make_graph([node], "fold", ins, outs)
                    m = helper.make_model(g, opset_imports=ctx.model.opset_import)
                    m.ir_version = ctx.model.ir_version
                    results = ReferenceEvaluator(m).run(None, {i: ctx.consts[i] for i in dict.fromkeys(inputs)})
            except Exception:  # noqa: BLE001 - not foldable: lowered instead
                remaining.append(node)
                continue
            if all(np.asarray(r).size <= _FOLDABLE_LIMIT for r in results):
                for name, value in zip([o for o in node.output if o], results):
                    ctx.consts[name] = np.asarray(value)
                continue
        remaining.append(node)
    return remaining


def _describe_unfolded(ctx, node):
    if id(node) not in ctx.unfolded:
        return node.op_type
    size = ctx.unfolded[id(node)]
    if size is None:
        return f"{node.op_type}; not folded: the size of its result is not known before evaluating it"
    return f"{node.op_type}; not folded: it would make {size} elements, over the limit of {_FOLDABLE_LIMIT}"


# --- the driver --------------------------------------------------------------------------------------------
def load(path_or_bytes):
    """An onnx.ModelProto from a path or bytes, with a ConversionError when it
    is not a valid model."""
    try:
        if isinstance(path_or_bytes, (bytes, bytearray)):
            model = onnx.load_from_string(bytes(path_or_bytes))
        else:
            model = onnx.load(path_or_bytes)
        onnx.checker.check_model(model)
    except FileNotFoundError:
        raise ConversionError(f"no such ONNX file: {path_or_bytes}") from None
    except Exception as e:  # noqa: BLE001 - protobuf decode errors, checker errors
        raise ConversionError(f"not a valid ONNX model: {e}") from None
    return model


def _range_values_are_bounded(model):
    """Whether onnx's shape inference may propagate data: it materializes the
    values of Range nodes (a 9e8-long Range of constants is gigabytes), so
    a Range of constants over the folding limit is an error here, and one
    whose bounds are computed turns data propagation off."""
    known = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type == "Constant" and node.attribute and node.attribute[0].name == "value":
            known[node.output[0]] = numpy_helper.to_array(node.attribute[0].t)
    bounded = True
    for node in model.graph.node:
        if node.op_type != "Range" or node.domain not in ("", "ai.onnx"):
            continue
        if len(node.input) != 3 or not all(i in known for i in node.input):
            bounded = False
            continue
        try:
            start, limit, delta = (float(np.asarray(known[i]).reshape(-1)[0]) for i in node.input)
            size = max(int(np.ceil((limit - start) / delta)), 0) if delta != 0 else 0
        except (IndexError, ValueError, OverflowError):
            continue  # the checker or the fold reports it
        if size > _FOLDABLE_LIMIT:
            raise ConversionError(
                f"1 op cannot be converted to .twl: '{node.name or node.output[0]}' (Range; not folded: it would "
                f"make {size} elements, over the limit of {_FOLDABLE_LIMIT})"
            )
    return bounded


def _check_opset(model):
    opsets = [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")]
    opset = opsets[0] if opsets else 1
    if not MIN_OPSET <= opset <= MAX_OPSET:
        raise ConversionError(
            f"the model declares ONNX opset {opset} (default domain); this converter supports opsets "
            f"{MIN_OPSET}..{MAX_OPSET}"
        )


def _check_input_dims(model):
    """Graph inputs' declared dims must fit a .twl tensor (int32 dims, at
    most 2 GiB), checked before shape inference sees them."""
    initializers = {i.name for i in model.graph.initializer}
    for vi in model.graph.input:
        if vi.name in initializers or not vi.type.HasField("tensor_type"):
            continue
        t = vi.type.tensor_type
        if not t.HasField("shape"):
            continue
        dims = [d.dim_value if d.HasField("dim_value") else 1 for d in t.shape.dim]
        try:
            dtype = helper.tensor_dtype_to_np_dtype(t.elem_type)
        except KeyError:
            dtype = None
        checked_shape(vi.name, dims, dtype, what="input")
        if any(d.HasField("dim_value") and d.dim_value == 0 for d in t.shape.dim):
            raise ConversionError(f"input '{vi.name}': dimension of size 0 in shape {dims}")


def convert(model, checksum=True):
    """.twl bytes of an ONNX model (a ModelProto, bytes or a path), ending in
    the integrity trailer unless `checksum` is False."""
    if not isinstance(model, onnx.ModelProto):
        model = load(model)
    _check_opset(model)
    _check_input_dims(model)
    if model.graph.node and any(n.domain not in ("", "ai.onnx") for n in model.graph.node):
        others = [
            (n.name or n.output[0], f"{n.domain}.{n.op_type}")
            for n in model.graph.node
            if n.domain not in ("", "ai.onnx")
        ]
        raise unsupported_ops_error(others, ".twl")
    ctx = Context(model)
    ctx.infer_shapes()
    nodes = _fold_constants(ctx)
    unsupported = [(n.name or n.output[0], _describe_unfolded(ctx, n)) for n in nodes if n.op_type not in IMPORTERS]
    if unsupported:
        raise unsupported_ops_error(unsupported, ".twl")
    initializers = set(ctx.consts)
    for vi in model.graph.input:
        if vi.name in initializers:
            continue
        if not vi.type.HasField("tensor_type"):
            raise ConversionError(f"input '{vi.name}' is not a tensor")
        dtype = helper.tensor_dtype_to_np_dtype(vi.type.tensor_type.elem_type)
        try:
            shape = ctx.shape(vi.name)
        except _NodeError as e:
            raise ConversionError(str(e)) from None
        if np.dtype(dtype) not in [np.dtype(t) for t in _LITE_TYPES]:
            raise ConversionError(f"input '{vi.name}' is {np.dtype(dtype)}; the lite runtime lacks that type")
        index = ctx.builder.add_input(vi.name, shape, dtype, ctx.signature_of(vi.name, shape))
        ctx.tensors[vi.name] = (index, False)
    # A node can be absorbed (folded) by one converted before it.
    convert_nodes(
        nodes,
        lambda node: None if id(node) in ctx.absorbed else IMPORTERS[node.op_type](ctx, node),
        lambda node: f"'{node.name or node.output[0]}' ({node.op_type})",
        ".twl",
    )
    for out in model.graph.output:
        try:
            index = ctx.plain(out.name)
        except _NodeError as e:
            raise ConversionError(f"output '{out.name}': {e}") from None
        tensor = ctx.builder.tensor(index)
        if tensor.name != out.name and out.name not in ctx.builder._names:
            tensor.name = out.name
            ctx.builder._names.add(out.name)
        ctx.builder.add_output(out.name, index)
    ctx.builder.metadata["producer"] = PRODUCER
    ctx.builder.metadata["conversion_options"] = json.dumps(
        {"source": "onnx", "opset": ctx.opset, "producer_name": model.producer_name}, sort_keys=True
    )
    return ctx.builder.serialize(checksum=checksum)

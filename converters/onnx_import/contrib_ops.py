"""onnxruntime's contrib ops (domain com.microsoft) rewritten to standard
ONNX before conversion.

The quantized ops onnxruntime.quantization's quantize_static
(QuantFormat.QOperator) writes: each dequantizes its inputs
(DequantizeLinear), applies the float op and quantizes its result
(QuantizeLinear), which is what onnxruntime's kernels compute up to the
rounding of one quantization step. The standard QDQ import then converts
them (constant weights fold to float).

  QLinearAdd, QLinearMul     Add, Mul
  QLinearSigmoid             Sigmoid
  QLinearLeakyRelu           LeakyRelu (alpha)
  QLinearSoftmax             Softmax (axis; opset < 13 semantics refused)
  QLinearConcat              Concat (axis)
  QLinearGlobalAveragePool   GlobalAveragePool (channels_last 0)
  QLinearAveragePool         AveragePool (its attributes; channels_last 0)
  QGemm                      Gemm (alpha, transA, transB; the int32 bias at
                             scale a_scale * b_scale; a float output when it
                             has no y_scale)
  QuantizeLinear, DequantizeLinear   the standard ops

The fused ops of a model saved by onnxruntime after its extended graph
optimizations (SessionOptions.optimized_model_filepath, ORT_ENABLE_EXTENDED
or above), unfused:

  FusedConv, FusedGemm       Conv (+ Z), Gemm, then the activation
  FusedMatMul                MatMul of the (transposed) operands, * alpha
  SkipLayerNormalization     input + skip (+ bias), layer normalization
                             (its sum output kept); SkipSimplified-
                             LayerNormalization likewise, RMS
  LayerNormalization         (below opset 17) and SimplifiedLayerNormalization,
                             onnxruntime's default-domain ops: last axis
  BiasGelu, Gelu, FastGelu   (x + bias), erf GELU or its tanh approximation
  QuickGelu                  x * sigmoid(alpha * x)

and those of onnxruntime.transformers' optimizer (BERT):

  EmbedLayerNormalization    word + position (+ segment) embeddings (Gather),
                             layer normalization; mask_index the mask's sum
  Attention                  per-head Q/K/V MatMuls of its packed weights,
                             scaled scores plus the key mask (1-D lengths,
                             2-D 1/0 or 3-D) and attention_bias, Softmax,
                             MatMul; no past/present, rotary or causal
  MultiHeadAttention         likewise of separate [B, S, D] query, key and
                             value (their packed bias), self or cross

The NCHWc layout ops ORT_ENABLE_ALL adds (com.microsoft.nchwc) are refused,
naming the level to save with instead.

quantize_dynamic's DynamicQuantizeLSTM becomes an LSTM of its int8 weights
dequantized here (constants; onnxruntime also quantizes the activations at
run time, so results differ by that rounding). MatMulNBits (the weight-only
4/8-bit blocks of MatMulNBitsQuantizer) becomes a MatMul (+ bias) of its
weights dequantized here.
"""

import numpy as np
import onnx
from onnx import helper, numpy_helper

from converters.errors import ConversionError

MS_DOMAIN = "com.microsoft"
NCHWC_DOMAIN = "com.microsoft.nchwc"
_UNARY = {"QLinearSigmoid": "Sigmoid", "QLinearLeakyRelu": "LeakyRelu", "QLinearSoftmax": "Softmax"}
_POOLS = {"QLinearGlobalAveragePool": "GlobalAveragePool", "QLinearAveragePool": "AveragePool"}
REWRITTEN = {"QLinearAdd", "QLinearMul", "QLinearConcat", "QGemm", "QuantizeLinear", "DequantizeLinear"}
REWRITTEN |= set(_UNARY) | set(_POOLS)
FUSED = {
    "FusedConv",
    "FusedGemm",
    "FusedMatMul",
    "SkipLayerNormalization",
    "SkipSimplifiedLayerNormalization",
    "BiasGelu",
    "Gelu",
    "FastGelu",
    "QuickGelu",
    "DynamicQuantizeLSTM",
    "MatMulNBits",
    "Attention",
    "EmbedLayerNormalization",
    "MultiHeadAttention",
}
# onnxruntime's own normalizations in the default domain (its fusions write
# LayerNormalization below opset 17, where ONNX has none).
_DEFAULT_DOMAIN_NORMS = {"LayerNormalization", "SimplifiedLayerNormalization"}
REWRITTEN |= FUSED


def _arg(node, i):
    return node.input[i] if len(node.input) > i else ""


class _Rewriter:
    def __init__(self, node, opset=None):
        self.node = node
        self.opset = opset
        self.nodes = []
        self.count = 0

    def name(self, what):
        self.count += 1
        return f"{self.node.output[0]}/{what}{self.count}"

    def add(self, op, inputs, **kw):
        out = self.name(op.lower())
        self.nodes.append(helper.make_node(op, inputs, [out], **kw))
        return out

    def initializer(self, name):
        tensor = self.initializers.get(name)
        return None if tensor is None else numpy_helper.to_array(tensor)

    def unsqueeze(self, x, axes):
        """Unsqueeze (axes an attribute before opset 13, an input after)."""
        if self.opset >= 13:
            return self.add("Unsqueeze", [x, self.int64_const(axes)])
        return self.add("Unsqueeze", [x], axes=axes)

    def positions(self, x):
        """int64 Range(0, x.shape[1]): the positions of a [B, S, ...] tensor's sequence."""
        if self.opset < 11:
            raise _error(
                self.node, f"positions of a run-time length need Range (opset 11), the model is opset {self.opset}"
            )
        length = self.add("Gather", [self.add("Shape", [x]), self.int64_const(1)], axis=0)
        return self.add("Range", [self.int64_const(0), length, self.int64_const(1)])

    def int64_const(self, value):
        out = self.name("shape")
        self.nodes.append(
            helper.make_node("Constant", [], [out], value=numpy_helper.from_array(np.array(value, np.int64), out))
        )
        return out

    def const(self, value):
        out = self.name("const")
        tensor = numpy_helper.from_array(np.asarray(value, np.float32), out)
        self.nodes.append(helper.make_node("Constant", [], [out], value=tensor))
        return out

    def reduce_mean(self, x):
        """ReduceMean over the last axis, keeping it (axes an attribute before opset 18, an input after)."""
        if self.opset >= 18:
            return self.add("ReduceMean", [x, self.axes_const()], keepdims=1)
        return self.add("ReduceMean", [x], axes=[-1], keepdims=1)

    def axes_const(self):
        out = self.name("axes")
        self.nodes.append(helper.make_node("Constant", [], [out], value=numpy_helper.from_array(np.array([-1]), out)))
        return out

    def gelu(self, x, tanh=False, out=None):
        """0.5 x (1 + erf(x / sqrt 2)), or with tanh(sqrt(2 / pi) (x + 0.044715 x^3))."""
        if tanh:
            cube = self.add("Mul", [self.add("Mul", [x, x]), x])
            inner = self.add("Add", [x, self.add("Mul", [cube, self.const(0.044715)])])
            t = self.add("Tanh", [self.add("Mul", [inner, self.const(np.sqrt(2 / np.pi))])])
        else:
            t = self.add("Erf", [self.add("Div", [x, self.const(np.sqrt(2))])])
        half = self.add("Mul", [x, self.const(0.5)])
        return self.finish("Mul", [half, self.add("Add", [t, self.const(1.0)])], out)

    def finish(self, op, inputs, out=None, **kw):
        """The node making `out` (the rewritten node's first output by default)."""
        out = out or self.node.output[0]
        self.nodes.append(helper.make_node(op, inputs, [out], **kw))
        return out

    def activation(self, x, a):
        """FusedConv / FusedGemm's `activation` of x, into the node's output."""
        act = a.get("activation", b"")
        act = act.decode() if isinstance(act, bytes) else act
        params = list(a.get("activation_params", []))
        if not act:
            return self.finish("Identity", [x])
        if act in ("Relu", "Tanh", "Sigmoid"):
            return self.finish(act, [x])
        if act == "LeakyRelu":
            return self.finish(act, [x], alpha=(params or [a.get("activation_alpha", 0.01)])[0])
        if act == "HardSigmoid":
            alpha, beta = params or [a.get("activation_alpha", 0.2), a.get("activation_beta", 0.5)]
            return self.finish(act, [x], alpha=alpha, beta=beta)
        if act == "Clip" and len(params) == 2:
            low, high = self.const(params[0]), self.const(params[1])
            return self.finish("Max", [self.add("Min", [x, high]), low])
        raise _error(self.node, f"activation {act!r} is not supported")

    def dequantize(self, x, scale, zero_point, axis=None):
        inputs = [x, scale] + ([zero_point] if zero_point else [])
        return self.add("DequantizeLinear", inputs, **({} if axis is None else {"axis": axis}))

    def quantize(self, x, scale, zero_point):
        inputs = [x, scale] + ([zero_point] if zero_point else [])
        self.nodes.append(helper.make_node("QuantizeLinear", inputs, [self.node.output[0]], name=self.node.name))


def _error(node, reason):
    return ConversionError(
        f"1 op cannot be converted to .twl: '{node.name or node.output[0]}' ({node.op_type}): {reason}"
    )


def _rewrite(node, shapes, opset, initializers):
    """Standard ONNX nodes computing com.microsoft `node`; `shapes` the
    ({name: rank}, {name: last dim}) shape inference tells."""
    r = _Rewriter(node, opset)
    (r.ranks, r.dims), r.initializers = shapes, initializers
    op, a = node.op_type, {x.name: helper.get_attribute_value(x) for x in node.attribute}
    if op in ("QuantizeLinear", "DequantizeLinear"):
        return [helper.make_node(op, node.input, node.output, name=node.name, **a)]
    if a.get("channels_last", 0):
        raise _error(node, "channels_last=1 (NHWC) is not supported; quantize with the default NCHW layout")
    if op in ("QLinearAdd", "QLinearMul"):
        x = r.dequantize(*node.input[0:3])
        y = r.dequantize(node.input[3], node.input[4], _arg(node, 5))
        r.quantize(r.add(op[len("QLinear") :], [x, y]), node.input[6], _arg(node, 7))
    elif op in _UNARY or op in _POOLS:
        attrs = {k: v for k, v in a.items() if k not in ("channels_last", "opset")}
        if op == "QLinearSoftmax" and a.get("opset", 13) < 13:
            raise _error(node, f"softmax of opset {a['opset']} (over the flattened trailing dims) is not supported")
        x = r.dequantize(node.input[0], node.input[1], _arg(node, 2))
        r.quantize(r.add(_UNARY.get(op) or _POOLS[op], [x], **attrs), node.input[3], _arg(node, 4))
    elif op == "QLinearConcat":
        parts = [r.dequantize(*node.input[i : i + 3]) for i in range(2, len(node.input), 3)]
        r.quantize(r.add("Concat", parts, axis=a["axis"]), node.input[0], node.input[1])
    elif op == "QGemm":
        trans_b = a.get("transB", 0)
        # A per-column b_scale runs along B's N dim: 0 when B is stored [N, K].
        axis = (0 if trans_b else 1) if r.ranks.get(node.input[4], 0) == 1 else None
        x = r.dequantize(*node.input[0:3])
        w = r.dequantize(node.input[3], node.input[4], _arg(node, 5), axis)
        bias = _arg(node, 6)
        kw = {"alpha": a.get("alpha", 1.0), "transA": a.get("transA", 0), "transB": trans_b}
        if bias:
            bias = r.dequantize(bias, r.add("Mul", [node.input[1], node.input[4]]), "", 0 if axis is not None else None)
        y = r.add("Gemm", [x, w] + ([bias] if bias else []), **kw)
        if _arg(node, 7):
            r.quantize(y, node.input[7], _arg(node, 8))
        else:
            r.nodes.append(helper.make_node("Identity", [y], node.output, name=node.name))
    elif op in FUSED or op in _DEFAULT_DOMAIN_NORMS:
        _unfuse(r, node, a)
    else:
        raise _error(node, "no rewrite of this com.microsoft op")
    return r.nodes


def _unfuse(r, node, a):
    op = node.op_type
    if op == "FusedConv":
        conv = {k: v for k, v in a.items() if not k.startswith("activation")}
        y = r.add("Conv", node.input[:3] if _arg(node, 2) else node.input[:2], **conv)
        if _arg(node, 3):
            y = r.add("Add", [y, node.input[3]])
        r.activation(y, a)
    elif op == "FusedGemm":
        gemm = {k: v for k, v in a.items() if not k.startswith("activation")}
        r.activation(r.add("Gemm", list(node.input), **gemm), a)
    elif op == "FusedMatMul":
        if a.get("transBatchA", 0) or a.get("transBatchB", 0):
            raise _error(node, "transBatchA / transBatchB are not supported")
        operands = []
        for x, trans in zip(node.input[:2], (a.get("transA", 0), a.get("transB", 0))):
            operands.append(r.add("Transpose", [x], perm=_last_two_swapped(r, x)) if trans else x)
        alpha = a.get("alpha", 1.0)
        if alpha == 1.0:
            r.finish("MatMul", operands)
        else:
            r.finish("Mul", [r.add("MatMul", operands), r.const(alpha)])
    elif op in ("SkipLayerNormalization", "SkipSimplifiedLayerNormalization"):
        if any(node.output[1:3]):
            raise _error(node, "its mean and inverse standard deviation outputs are not supported")
        total = r.add("Add", node.input[:2])
        simplified = op == "SkipSimplifiedLayerNormalization"
        bias = "" if simplified else _arg(node, 3)
        if _arg(node, 3 if simplified else 4):
            total = r.add("Add", [total, node.input[3 if simplified else 4]])
        if len(node.output) > 3 and node.output[3]:
            r.finish("Identity", [total], node.output[3])
        _normalize(r, total, node.input[2], bias, a.get("epsilon", 1e-12), simplified)
    elif op in _DEFAULT_DOMAIN_NORMS:
        if any(node.output[1:]):
            raise _error(node, "its mean and inverse standard deviation outputs are not supported")
        rank = r.ranks.get(node.input[0])
        if a.get("axis", -1) not in (-1, None if rank is None else rank - 1):
            raise _error(node, f"axis {a['axis']}: only the last axis is supported")
        simplified = op == "SimplifiedLayerNormalization"
        bias = "" if simplified else _arg(node, 2)
        _normalize(r, node.input[0], node.input[1], bias, a.get("epsilon", 1e-5), simplified)
    elif op in ("BiasGelu", "Gelu", "FastGelu"):
        x = r.add("Add", node.input[:2]) if _arg(node, 1) else node.input[0]
        r.gelu(x, tanh=op == "FastGelu")
    elif op == "DynamicQuantizeLSTM":
        weights = []
        for w, scale, zero_point in (node.input[1:2] + node.input[8:10], node.input[2:3] + node.input[10:12]):
            values = [r.initializer(name) for name in (w, scale, zero_point)]
            if any(v is None for v in values):
                raise _error(node, f"the weights '{w}' and their scale and zero point must be initializers")
            q, scale, zero_point = values
            if scale.ndim == 1:  # per direction
                scale, zero_point = scale[:, None, None], zero_point[:, None, None]
            else:  # per direction and gate column
                scale, zero_point = scale[:, None, :], zero_point[:, None, :]
            # [directions, input or hidden, 4 * hidden] -> ONNX LSTM's [directions, 4 * hidden, ...]
            dequantized = ((q.astype(np.float32) - zero_point.astype(np.float32)) * scale).transpose(0, 2, 1)
            weights.append(r.const(dequantized))
        lstm = {k: v for k, v in a.items()}
        inputs = [node.input[0]] + weights + list(node.input[3:8])
        while inputs and not inputs[-1]:
            inputs.pop()
        r.nodes.append(helper.make_node("LSTM", inputs, list(node.output), name=node.name, **lstm))
    elif op == "MatMulNBits":
        weights = r.const(_nbits_weights(r, node, a))
        if _arg(node, 5):
            r.finish("Add", [r.add("MatMul", [node.input[0], weights]), node.input[5]])
        else:
            r.finish("MatMul", [node.input[0], weights])
    elif op == "Attention":
        _attention(r, node, a)
    elif op == "EmbedLayerNormalization":
        _embed_layer_norm(r, node, a)
    elif op == "MultiHeadAttention":
        _multi_head_attention(r, node, a)
    elif op == "QuickGelu":
        scaled = r.add("Mul", [node.input[0], r.const(a.get("alpha", 1.702))])
        r.finish("Mul", [node.input[0], r.add("Sigmoid", [scaled])])


def _attention(r, node, a):
    """com.microsoft Attention as standard ops (Reshape's 0 copies the run-time batch and sequence dims)."""
    if _arg(node, 4) or _arg(node, 6) or any(node.output[1:]):
        raise _error(node, "past / present states are not supported")
    for name in ("unidirectional", "do_rotary", "past_present_share_buffer"):
        if a.get(name, 0):
            raise _error(node, f"{name}=1 is not supported")
    heads = a["num_heads"]
    weights = r.initializer(node.input[1])
    if weights is None:
        raise _error(node, "the packed QKV weights must be an initializer")
    sizes = list(a.get("qkv_hidden_sizes", [weights.shape[1] // 3] * 3))
    if sizes[0] != sizes[1] or any(size % heads for size in sizes):
        raise _error(node, f"qkv_hidden_sizes {sizes} do not split into {heads} heads with Q and K alike")
    bias = r.initializer(node.input[2]) if _arg(node, 2) else None
    if _arg(node, 2) and bias is None:
        raise _error(node, "the bias must be an initializer")
    starts = np.cumsum([0] + sizes)
    heads_of = []
    for i, size in enumerate(sizes):
        y = r.add("MatMul", [node.input[0], r.const(weights[:, starts[i] : starts[i + 1]])])
        if bias is not None:
            y = r.add("Add", [y, r.const(bias[starts[i] : starts[i + 1]])])
        y = r.add("Reshape", [y, r.int64_const([0, 0, heads, size // heads])])
        heads_of.append(r.add("Transpose", [y], perm=[0, 2, 3, 1] if i == 1 else [0, 2, 1, 3]))
    q, k_t, v = heads_of
    _attend(r, node, a, q, k_t, v, node.input[0], _arg(node, 3), _arg(node, 5), sizes[0] // heads, sizes[2])


def _attend(r, node, a, q, k_t, v, keys_of, mask_index, attention_bias, head_size, v_hidden):
    """Softmax(q k_t * scale + mask penalty + attention_bias) v, heads merged back into the node's output;
    `keys_of` is a [B, T, ...] tensor whose dim 1 counts the keys (for a 1-D lengths mask)."""
    scale = a.get("scale", 0.0) or 1.0 / np.sqrt(head_size)
    scores = r.add("Mul", [r.add("MatMul", [q, k_t]), r.const(scale)])
    if mask_index:
        rank = r.ranks.get(mask_index)
        if rank is None:
            raise _RankUnknown(_error(node, f"the rank of mask '{mask_index}' is not known"))
        if rank not in (1, 2, 3):
            raise _error(node, f"a mask of rank {rank}: 1-D lengths or a 2-D or 3-D 1/0 key mask are supported")
        if rank == 1:  # key lengths (EmbedLayerNormalization's mask_index): keys before them are kept
            keys = r.positions(keys_of)
            lengths = r.unsqueeze(r.add("Cast", [mask_index], to=onnx.TensorProto.INT64), [1])
            mask = r.add("Cast", [r.add("Less", [r.unsqueeze(keys, [0]), lengths])], to=onnx.TensorProto.FLOAT)
            rank = 2
        else:
            mask = r.add("Cast", [mask_index], to=onnx.TensorProto.FLOAT)
        penalty = r.add("Mul", [r.add("Sub", [r.const(1.0), mask]), r.const(a.get("mask_filter_value", -10000.0))])
        # [B, T] -> [B, 1, 1, T]; [B, S, T] -> [B, 1, S, T]
        scores = r.add("Add", [scores, r.unsqueeze(penalty, [1, 2] if rank == 2 else [1])])
    if attention_bias:
        scores = r.add("Add", [scores, attention_bias])
    context = r.add("MatMul", [r.add("Softmax", [scores], axis=-1 if r.opset >= 13 else 3), v])
    context = r.add("Transpose", [context], perm=[0, 2, 1, 3])
    r.finish("Reshape", [context, r.int64_const([0, 0, v_hidden])])


def _multi_head_attention(r, node, a):
    """com.microsoft MultiHeadAttention of separate [B, S, D] query and [B, L, D] key / value (self or cross
    attention), with their packed bias, a key padding mask and attention_bias."""
    if any(_arg(node, i) for i in (6, 7, 8, 9)) or any(node.output[1:]):
        raise _error(node, "past / present states are not supported")
    if a.get("unidirectional", 0):
        raise _error(node, "unidirectional=1 is not supported")
    query, key, value = (_arg(node, i) for i in range(3))
    ranks = [r.ranks.get(name) for name in (query, key, value)]
    if None in ranks:
        raise _RankUnknown(_error(node, "the ranks of query, key and value are not known"))
    if ranks != [3, 3, 3]:
        raise _error(node, f"query, key and value of ranks {ranks}: only separate [B, S, D] ones are supported")
    heads = a["num_heads"]
    bias = r.initializer(_arg(node, 3)) if _arg(node, 3) else None
    if _arg(node, 3) and bias is None:
        raise _error(node, "the bias must be an initializer")
    dims = r.dims
    sizes = [dims.get(name) for name in (query, key, value)]
    if None in sizes or sizes[0] != sizes[1] or any(d % heads for d in sizes):
        raise _error(node, f"hidden sizes {sizes} do not split into {heads} heads with Q and K alike")
    starts = np.cumsum([0] + sizes)
    heads_of = []
    for i, (x, size) in enumerate(zip((query, key, value), sizes)):
        if bias is not None:
            x = r.add("Add", [x, r.const(bias[starts[i] : starts[i + 1]])])
        x = r.add("Reshape", [x, r.int64_const([0, 0, heads, size // heads])])
        heads_of.append(r.add("Transpose", [x], perm=[0, 2, 3, 1] if i == 1 else [0, 2, 1, 3]))
    q, k_t, v = heads_of
    _attend(r, node, a, q, k_t, v, key, _arg(node, 4), _arg(node, 5), sizes[0] // heads, sizes[2])


def _embed_layer_norm(r, node, a):
    """com.microsoft EmbedLayerNormalization as Gathers, Adds and layer normalization."""
    ids, segments, words, positions, segment_table, gamma, beta = (_arg(node, i) for i in range(7))
    mask, position_ids = _arg(node, 7), _arg(node, 8)
    total = r.add("Gather", [words, ids], axis=0)
    if position_ids:
        total = r.add("Add", [total, r.add("Gather", [positions, position_ids], axis=0)])
    else:
        total = r.add("Add", [total, r.unsqueeze(r.add("Gather", [positions, r.positions(ids)], axis=0), [0])])
    if segments and segment_table:
        total = r.add("Add", [total, r.add("Gather", [segment_table, segments], axis=0)])
    if len(node.output) > 2 and node.output[2]:
        r.finish("Identity", [total], node.output[2])
    _normalize(r, total, gamma, beta, a.get("epsilon", 1e-12), False)
    if len(node.output) > 1 and node.output[1]:
        if not mask:
            raise _error(node, "a mask_index output without a mask input is not supported")
        cast = r.add("Cast", [mask], to=onnx.TensorProto.INT64)
        if r.opset >= 13:
            summed = r.add("ReduceSum", [cast, r.int64_const([1])], keepdims=0)
        else:
            summed = r.add("ReduceSum", [cast], axes=[1], keepdims=0)
        r.finish("Cast", [summed], node.output[1], to=onnx.TensorProto.INT32)


def _nbits_weights(r, node, a):
    """MatMulNBits' B as float32 [K, N]: [N, blocks, blob] bytes of `bits`-bit
    values (low bits first), (q - zero point) * the block's scale; the zero
    point packed like B (default 2^(bits - 1))."""
    bits, block, k, n = a.get("bits", 4), a["block_size"], a["K"], a["N"]
    if bits not in (4, 8):
        raise _error(node, f"{bits}-bit weights (4 and 8 are supported)")
    if _arg(node, 4):
        raise _error(node, "g_idx (act-order) is not supported")
    q, scales = r.initializer(node.input[1]), r.initializer(node.input[2])
    if q is None or scales is None:
        raise _error(node, "B and its scales must be initializers")
    blocks = -(-k // block)
    per_byte = 8 // bits
    mask = (1 << bits) - 1
    values = np.stack([(q >> (bits * i)) & mask for i in range(per_byte)], -1).reshape(n, blocks * block)
    zero_point = np.full([n, blocks], 1 << (bits - 1), np.float32)
    if _arg(node, 3):
        zp = r.initializer(node.input[3])
        if zp is None or zp.dtype != np.uint8:
            raise _error(node, "zero points must be a packed uint8 initializer")
        unpacked = np.stack([(zp >> (bits * i)) & mask for i in range(per_byte)], -1).reshape(n, -1)
        zero_point = unpacked[:, :blocks].astype(np.float32)
    scale = scales.astype(np.float32).reshape(n, blocks)
    w = (values.reshape(n, blocks, block).astype(np.float32) - zero_point[..., None]) * scale[..., None]
    return np.ascontiguousarray(w.reshape(n, blocks * block)[:, :k].T)


def _normalize(r, x, scale, bias, eps, simplified):
    """Layer normalization over the last axis (RMS normalization when
    `simplified`), into the node's output: LayerNormalization from opset 17,
    else ReduceMean, Sub, Mul, Sqrt, Div."""
    if r.opset >= 17 and not simplified:
        r.finish("LayerNormalization", [x, scale] + ([bias] if bias else []), axis=-1, epsilon=eps)
        return
    centered = x if simplified else r.add("Sub", [x, r.reduce_mean(x)])
    var = r.reduce_mean(r.add("Mul", [centered, centered]))
    normed = r.add("Mul", [r.add("Div", [centered, r.add("Sqrt", [r.add("Add", [var, r.const(eps)])])]), scale])
    if bias:
        r.finish("Add", [normed, bias])
    else:
        r.finish("Identity", [normed])


class _RankUnknown(Exception):
    def __init__(self, error):
        super().__init__(str(error))
        self.error = error


def _last_two_swapped(r, x):
    rank = r.ranks.get(x)
    if rank is None:
        raise _RankUnknown(_error(r.node, f"the rank of '{x}' is not known"))
    return list(range(rank - 2)) + [rank - 1, rank - 2]


def opset_of(model):
    return next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 1)


def _rewritten(node, opset):
    if node.domain == MS_DOMAIN:
        return node.op_type in REWRITTEN
    return node.domain in ("", "ai.onnx") and (
        node.op_type == "SimplifiedLayerNormalization" or (node.op_type == "LayerNormalization" and opset < 17)
    )


def _ranks(model):
    """{name: rank} of the model's values whose rank onnx's shape inference can tell."""
    try:
        graph = onnx.shape_inference.infer_shapes(model).graph
    except Exception:  # noqa: BLE001 - the declared shapes only
        graph = model.graph
    ranks = {i.name: len(i.dims) for i in model.graph.initializer}
    last_dims = {i.name: i.dims[-1] for i in model.graph.initializer if i.dims}
    for v in list(graph.input) + list(graph.value_info) + list(graph.output):
        if v.type.HasField("tensor_type") and v.type.tensor_type.HasField("shape"):
            dims = v.type.tensor_type.shape.dim
            ranks[v.name] = len(dims)
            if dims and dims[-1].HasField("dim_value"):
                last_dims[v.name] = dims[-1].dim_value
    return ranks, last_dims


def rewrite(model):
    """`model` with its com.microsoft ops of REWRITTEN (and onnxruntime's
    default-domain normalizations) as standard ONNX (a copy; `model` itself
    when it has none). Other com.microsoft ops are left for the domain check
    to name. A rewrite that needs a rank onnx's shape inference cannot tell
    through the contrib ops before it waits for a pass after them."""
    layout_ops = sorted({n.op_type for n in model.graph.node if n.domain == NCHWC_DOMAIN})
    if layout_ops:
        raise ConversionError(
            f"the model has onnxruntime's NCHWc layout ops ({NCHWC_DOMAIN}: {', '.join(layout_ops)}), which "
            "ORT_ENABLE_ALL writes for its CPU kernels; save it with GraphOptimizationLevel.ORT_ENABLE_EXTENDED"
        )
    if not any(_rewritten(n, opset_of(model)) for n in model.graph.node):
        return model
    out = onnx.ModelProto()
    out.CopyFrom(model)
    opset = opset_of(out)
    initializers = {i.name: i for i in out.graph.initializer}
    while True:
        (ranks, last_dims), nodes, waiting = _ranks(out), [], []
        for node in out.graph.node:
            if not _rewritten(node, opset):
                nodes.append(node)
                continue
            try:
                nodes.extend(_rewrite(node, (ranks, last_dims), opset, initializers))
            except _RankUnknown as e:
                nodes.append(node)
                waiting.append(e)
        progress = len(waiting) < sum(1 for n in out.graph.node if _rewritten(n, opset))
        del out.graph.node[:]
        out.graph.node.extend(nodes)
        if not waiting:
            return out
        if not progress:
            raise waiting[0].error

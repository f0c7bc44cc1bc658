"""A small BERT-style text encoder (Vaswani et al. 2017; Devlin et al. 2019)
written with onnx.helper as PyTorch's exporter writes it (torch is not
installed here): token + position embeddings, LayerNorm, encoder layers of
multi-head self-attention (MatMul + Add projections, Reshape/Transpose of
heads, scaled scores, an additive attention mask, Softmax on the last
axis), residual adds, LayerNorm, and a feed-forward block with GELU.

`layer_norm`: "op" (LayerNormalization, opset 17) or "chain" (the
ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div/Mul/Add chain older exports
write). `mask`: True (an additive mask, (1 - mask) * -10000), "where"
(masked_fill's Where(Equal(mask, 0), -inf, scores)) or False. `gelu`: "erf" (x * (1 + erf(x / sqrt 2)) * 0.5, PyTorch's export
before opset 20), "op" (Gelu, opset 20) or "tanh" (Gelu approximate=tanh).

Example:
  >>> model = encoder(layers=2)
  >>> [i.name for i in model.graph.input]
  ['input_ids', 'attention_mask']
"""

import numpy as np
from onnx import TensorProto, helper, numpy_helper


class _Builder:
    def __init__(self, seed):
        self.nodes, self.inits = [], []
        self.rng = np.random.default_rng(seed)
        self.n = 0

    def name(self, hint):
        self.n += 1
        return f"{hint}_{self.n}"

    def const(self, value, hint="c"):
        name = self.name(hint)
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def weight(self, shape, scale=None, hint="w"):
        scale = scale if scale is not None else 1.0 / np.sqrt(shape[0])
        return self.const((self.rng.standard_normal(shape) * scale).astype(np.float32), hint)

    def op(self, op_type, inputs, hint=None, **attrs):
        out = self.name(hint or op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out + "_node", **attrs))
        return out

    def linear(self, x, n_in, n_out):
        y = self.op("MatMul", [x, self.weight([n_in, n_out])])
        return self.op("Add", [self.weight([n_out], 0.1, "b"), y] if self.n % 2 else [y, self.weight([n_out], 0.1)])

    def layer_norm(self, x, hidden, style, opset):
        gamma = self.const((1 + 0.1 * self.rng.standard_normal(hidden)).astype(np.float32), "gamma")
        beta = self.const((0.1 * self.rng.standard_normal(hidden)).astype(np.float32), "beta")
        if style == "op":
            return self.op("LayerNormalization", [x, gamma, beta], axis=-1, epsilon=1e-12)
        mean_axes = {"axes": [-1]} if opset < 18 else {}
        axes_in = [] if opset < 18 else [self.const(np.array([-1], np.int64))]
        m = self.op("ReduceMean", [x] + axes_in, **mean_axes)
        d = self.op("Sub", [x, m])
        sq = self.op("Pow", [d, self.const(np.float32(2.0))])
        v = self.op("ReduceMean", [sq] + axes_in, **mean_axes)
        s = self.op("Sqrt", [self.op("Add", [v, self.const(np.float32(1e-12))])])
        n = self.op("Div", [d, s])
        return self.op("Add", [self.op("Mul", [n, gamma]), beta])

    def gelu(self, x, style):
        if style == "op":
            return self.op("Gelu", [x])
        if style == "tanh":
            return self.op("Gelu", [x], approximate="tanh")
        e = self.op("Erf", [self.op("Div", [x, self.const(np.float32(1.4142135381698608))])])
        a = self.op("Add", [e, self.const(np.float32(1.0))])
        return self.op("Mul", [self.op("Mul", [x, a]), self.const(np.float32(0.5))])


def encoder(
    layers=4,
    hidden=128,
    heads=4,
    ffn=512,
    seq=32,
    vocab=1000,
    layer_norm="op",
    gelu="erf",
    seed=0,
    mask=True,
    dynamic_seq=False,
):
    """The encoder as an onnx.ModelProto: inputs input_ids and
    attention_mask (int64 [1, seq]), output last_hidden_state [1, seq, hidden].
    `dynamic_seq`: the sequence dim is symbolic ("sequence"), and the
    positions and the attention reshapes are computed from
    Shape(input_ids), as torch.onnx.export writes them with dynamic_axes."""
    opset = 20 if gelu in ("op", "tanh") else (17 if layer_norm == "op" else 13)
    if mask == "where":
        opset = max(opset, 13)
    b = _Builder(seed)
    head_dim = hidden // heads
    word = b.weight([vocab, hidden], 0.5, "word_embeddings")
    pos_table = b.weight([512, hidden], 0.5, "position_embeddings")
    if dynamic_seq:
        length = b.op("Gather", [b.op("Shape", ["input_ids"]), b.const(np.array([1], np.int64))])
        scalar = b.op("Squeeze", [length, b.const(np.array([0], np.int64))])
        positions = b.op("Range", [b.const(np.array(0, np.int64)), scalar, b.const(np.array(1, np.int64))])
        positions = b.op("Unsqueeze", [positions, b.const(np.array([0], np.int64))])
    else:
        positions = b.const(np.arange(seq, dtype=np.int64)[None, :], "position_ids")
    h = b.op("Add", [b.op("Gather", [word, "input_ids"]), b.op("Gather", [pos_table, positions])])
    h = b.layer_norm(h, hidden, layer_norm, opset)
    add_mask = where_mask = None
    if mask == "where":  # masked_fill(mask == 0, -inf)
        m = b.op("Unsqueeze", ["attention_mask", b.const(np.array([1, 2], np.int64))])
        where_mask = b.op("Equal", [m, b.const(np.array(0, np.int64))])
    elif mask:
        m = b.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
        if opset >= 13:
            m = b.op("Unsqueeze", [m, b.const(np.array([1, 2], np.int64))])
        else:
            m = b.op("Unsqueeze", [m], axes=[1, 2])
        inv = b.op("Sub", [b.const(np.float32(1.0)), m])
        add_mask = b.op("Mul", [inv, b.const(np.float32(-10000.0))])
    if dynamic_seq:
        one = b.const(np.array([1], np.int64))
        split = b.op("Concat", [one, length, b.const(np.array([heads, head_dim], np.int64))], axis=0)
        merge = b.op("Concat", [one, length, b.const(np.array([hidden], np.int64))], axis=0)
    else:
        split = b.const(np.array([1, seq, heads, head_dim], np.int64))
        merge = b.const(np.array([1, seq, hidden], np.int64))
    for _ in range(layers):
        q = b.op("Transpose", [b.op("Reshape", [b.linear(h, hidden, hidden), split])], perm=[0, 2, 1, 3])
        k = b.op("Transpose", [b.op("Reshape", [b.linear(h, hidden, hidden), split])], perm=[0, 2, 3, 1])
        v = b.op("Transpose", [b.op("Reshape", [b.linear(h, hidden, hidden), split])], perm=[0, 2, 1, 3])
        scores = b.op("Div", [b.op("MatMul", [q, k]), b.const(np.float32(np.sqrt(head_dim)))])
        if add_mask is not None:
            scores = b.op("Add", [scores, add_mask])
        if where_mask is not None:
            scores = b.op("Where", [where_mask, b.const(np.float32(-np.inf)), scores])
        probs = b.op("Softmax", [scores], axis=-1)
        context = b.op("Transpose", [b.op("MatMul", [probs, v])], perm=[0, 2, 1, 3])
        context = b.op("Reshape", [context, merge])
        h = b.layer_norm(b.op("Add", [b.linear(context, hidden, hidden), h]), hidden, layer_norm, opset)
        f = b.linear(b.gelu(b.linear(h, hidden, ffn), gelu), ffn, hidden)
        h = b.layer_norm(b.op("Add", [f, h]), hidden, layer_norm, opset)
    b.nodes.append(helper.make_node("Identity", [h], ["last_hidden_state"], name="output"))
    dim = "sequence" if dynamic_seq else seq
    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, dim])]
    inputs.append(helper.make_tensor_value_info("attention_mask", TensorProto.INT64, [1, dim]))
    out = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, [1, dim, hidden])
    g = helper.make_graph(b.nodes, "text_encoder", inputs, [out], b.inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="pytorch-like")
    model.ir_version = 8
    return model


def feeds(seq=32, vocab=1000, seed=1, padding=5):
    """Token ids and an attention mask with `padding` masked positions at the end."""
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, vocab, size=[1, seq], dtype=np.int64)
    mask = np.ones([1, seq], np.int64)
    if padding:
        mask[:, -padding:] = 0
    return {"input_ids": ids, "attention_mask": mask}

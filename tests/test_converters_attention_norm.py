"""Attention, the normalizations, the losses and Einsum from ONNX on the lite
runtime (converters/onnx_import/attention_norm_ops.py), against
onnxruntime: PyTorch-exported transformer encoders and multi-head
attention (torch.onnx.export, the legacy exporter), an RMSNorm model, the
Attention op in the cases the node tests leave out (grouped-query 3-D
attention with a cache and a runtime mask, fully masked rows), the losses'
reductions, and Einsum equations beyond the node tests' (against numpy)."""

import collections
import io

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from converters import lite_runner, onnx_import, twl_writer
from converters.errors import ConversionError
from converters.lite_runner import LiteError
from converters.onnx_import import fusion

ort = pytest.importorskip("onnxruntime")
torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not lite_runner.available(), reason="bazel build //lite/c:libtensorweave_lite.so first")
RTOL, ATOL = 1e-4, 1e-5

_TYPES = {np.float32: TensorProto.FLOAT, np.int64: TensorProto.INT64, np.bool_: TensorProto.BOOL}


def _model(nodes, feeds, outputs, inits=(), opset=23):
    """A model whose inputs are `feeds` ({name: array}) and outputs
    `outputs` (names; types and shapes from shape inference)."""
    g = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, _TYPES[v.dtype.type], v.shape) for n, v in feeds.items()],
        [],
        [numpy_helper.from_array(np.asarray(v), n) for n, v in inits],
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 10
    inferred = {v.name: v for v in onnx.shape_inference.infer_shapes(m, strict_mode=True).graph.value_info}
    m.graph.output.extend(inferred.get(n, helper.make_tensor_value_info(n, TensorProto.FLOAT, None)) for n in outputs)
    return m


def _run(model, feeds, threads=1):
    data = onnx_import.convert(model)
    got = lite_runner.LiteRunner(data, num_threads=threads).run(feeds)
    return [got[o.name] for o in model.graph.output]


def _compare(model, feeds, rtol=RTOL, atol=ATOL, reference=False):
    """Runs `model` on onnxruntime (onnx's reference evaluator where
    onnxruntime lacks the case) and (converted) on the lite runtime with 1
    and 2 threads and compares every output."""
    if reference:
        want = ReferenceEvaluator(model).run(None, feeds)
    else:
        want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)
    for threads in (1, 2):
        for o, got, w in zip(model.graph.output, _run(model, feeds, threads), want):
            assert got.shape == w.shape, o.name
            np.testing.assert_allclose(got, w, rtol=rtol, atol=atol, err_msg=f"{o.name}, {threads} threads")


def _ops(model):
    """{lite opcode: count} of `model` converted."""
    m = twl_writer.read_model(onnx_import.convert(model))
    g = m.Subgraphs(0)
    names = {v: k for k, v in vars(twl_writer.twl_schema.enum("BuiltinOperator")).items() if not k.startswith("_")}
    return collections.Counter(names[g.Operators(i).Opcode()] for i in range(g.OperatorsLength()))


def _x(shape, seed=0, scale=1.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)


def _export(module, args, names, opset=17):
    buffer = io.BytesIO()
    torch.onnx.export(module, args, buffer, input_names=names, output_names=["y"], opset_version=opset, dynamo=False)
    return onnx.load_from_string(buffer.getvalue())


# --- PyTorch-exported models ----------------------------------------------------------------------
@pytest.mark.parametrize("norm_first", [False, True])
def test_pytorch_transformer_encoder(norm_first):
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(
        d_model=32, nhead=4, dim_feedforward=64, dropout=0.0, batch_first=True, norm_first=norm_first
    )
    encoder = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False).eval()
    x = torch.randn(2, 9, 32)
    _compare(_export(encoder, (x,), ["x"]), {"x": x.numpy()}, atol=1e-4)


def test_pytorch_multihead_attention_with_causal_mask():
    """nn.MultiheadAttention's export: MatMul / Softmax / Transpose with the
    heads reshaped, and an additive float mask."""

    class Attention(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.attention = torch.nn.MultiheadAttention(24, 3, batch_first=True)

        def forward(self, x, mask):
            return self.attention(x, x, x, attn_mask=mask, need_weights=False)[0]

    torch.manual_seed(1)
    x = torch.randn(2, 6, 24)
    mask = torch.triu(torch.full((6, 6), float("-inf")), diagonal=1)
    model = _export(Attention().eval(), (x, mask), ["x", "mask"])
    _compare(model, {"x": x.numpy(), "mask": mask.numpy()}, atol=1e-4)


def test_pytorch_cross_attention_with_averaged_weights():
    """nn.MultiheadAttention with need_weights (the heads' mean of the
    attention weights as a second output) over a longer key sequence."""

    class CrossAttention(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.attention = torch.nn.MultiheadAttention(24, 3, batch_first=True)

        def forward(self, q, kv):
            return self.attention(q, kv, kv)

    torch.manual_seed(3)
    q, kv = torch.randn(2, 5, 24), torch.randn(2, 7, 24)
    buffer = io.BytesIO()
    torch.onnx.export(
        CrossAttention().eval(),
        (q, kv),
        buffer,
        input_names=["q", "kv"],
        output_names=["y", "weights"],
        opset_version=17,
        dynamo=False,
    )
    _compare(onnx.load_from_string(buffer.getvalue()), {"q": q.numpy(), "kv": kv.numpy()}, atol=1e-5)


class _RMSNorm(torch.nn.Module):
    """LLaMA's RMSNorm, x * rsqrt(mean(x^2) + eps) * weight (the legacy
    exporter cannot export torch.nn.RMSNorm)."""

    def __init__(self, size, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.rand(size) + 0.5)

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class _RMSNormByDivision(_RMSNorm):
    def forward(self, x):
        return self.weight * (x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + self.eps))


@pytest.mark.parametrize("norm", [_RMSNorm, _RMSNormByDivision])
def test_pytorch_rms_norm_fuses_to_one_op(norm):
    torch.manual_seed(2)
    model = _export(torch.nn.Sequential(torch.nn.Linear(16, 16), norm(16)).eval(), (torch.randn(1, 1, 16),), ["x"])
    assert _ops(model) == {"FULLY_CONNECTED": 1, "LAYER_NORM": 1}
    _compare(model, {"x": _x([1, 1, 16], 3)})


# --- Attention --------------------------------------------------------------------------------------
def _attention(feeds, inputs, outputs=("Y",), opset=23, **attributes):
    node = helper.make_node("Attention", list(inputs), list(outputs), **attributes)
    return _model([node], feeds, [o for o in outputs if o], opset=opset)


def test_attention_gqa_3d_with_cache_mask_and_softcap():
    feeds = {
        "Q": _x([2, 3, 8 * 4], 0),
        "K": _x([2, 3, 2 * 4], 1),
        "V": _x([2, 3, 2 * 5], 2),
        "attn_mask": np.random.default_rng(3).random([3, 7]) > 0.3,
        "past_key": _x([2, 2, 4, 4], 4),
        "past_value": _x([2, 2, 4, 5], 5),
    }
    model = _attention(
        feeds,
        feeds,
        ("Y", "present_key", "present_value", "qk"),
        q_num_heads=8,
        kv_num_heads=2,
        is_causal=1,
        softcap=2.5,
        qk_matmul_output_mode=1,  # (mode 2: onnxruntime masks with the lowest float, not -inf)
    )
    _compare(model, feeds)


def test_attention_fully_masked_rows_are_zero():
    """A row whose keys are all masked attends to nothing (Y row 0); the
    mask is a runtime input, so the guard is computed at run time."""
    mask = np.ones([2, 1, 4, 5], bool)
    mask[0, 0, 1] = False
    mask[1, 0, 3] = False
    feeds = {"Q": _x([2, 2, 4, 8], 0), "K": _x([2, 2, 5, 8], 1), "V": _x([2, 2, 5, 8], 2), "attn_mask": mask}
    model = _attention(feeds, feeds, ("Y", "", "", "probs"), qk_matmul_output_mode=3)
    y, probs = _run(model, feeds)
    assert not np.isnan(y).any()
    np.testing.assert_array_equal(y[0, :, 1], 0)
    np.testing.assert_array_equal(probs[1, :, 3], 0)
    np.testing.assert_allclose(probs.sum(-1)[0, :, 0], 1, rtol=1e-6)
    _compare(model, feeds)


@pytest.mark.parametrize("rank", [3, 4])
@pytest.mark.parametrize("fused", [True, False])
def test_attention_is_one_fused_op(rank, fused):
    """Without a cache, softcap or qk output, Attention is one ATTENTION op
    (3-D: the heads only RESHAPEd), grouped-query heads, causal rule plus a
    bool mask with fully masked rows (zeros); fusion.ATTENTION = False gives
    the decomposed ops, which match too."""
    mask = np.random.default_rng(3).random([2, 1, 5, 7]) > 0.3
    mask[1, 0, 2] = False
    shapes = {"Q": [2, 6, 5, 4], "K": [2, 3, 7, 4], "V": [2, 3, 7, 3]}
    attributes = {"is_causal": 1, "scale": 0.4}
    if rank == 3:
        shapes = {n: [s[0], s[2], s[1] * s[3]] for n, s in shapes.items()}
        attributes.update(q_num_heads=6, kv_num_heads=3)
    feeds = {n: _x(s, i) for i, (n, s) in enumerate(shapes.items())}
    feeds["attn_mask"] = mask
    model = _attention(feeds, feeds, **attributes)
    saved, fusion.ATTENTION = fusion.ATTENTION, fused
    try:
        ops = _ops(model)
        assert (ops["ATTENTION"] == 1 and "BATCH_MATMUL" not in ops) if fused else "ATTENTION" not in ops
        _compare(model, feeds)
        y = _run(model, feeds, threads=2)[0]
    finally:
        fusion.ATTENTION = saved
    row = y[1, :, 2] if rank == 4 else y[1, 2]
    np.testing.assert_array_equal(row, 0)


def test_attention_nonpad_lengths_out_of_range_is_an_error():
    feeds = {
        "Q": _x([2, 2, 1, 8], 0),
        "K": _x([2, 2, 6, 8], 1),
        "V": _x([2, 2, 6, 8], 2),
        "nonpad_kv_seqlen": np.array([3, 6], np.int64),
    }
    model = _attention(feeds, ["Q", "K", "V", "", "", "", "nonpad_kv_seqlen"], is_causal=1, opset=24)
    _compare(model, feeds, reference=True)  # onnxruntime has no nonpad_kv_seqlen
    feeds["nonpad_kv_seqlen"] = np.array([3, 7], np.int64)
    with pytest.raises(LiteError, match="GATHER"):
        _run(model, feeds)


def test_attention_refusals_name_the_node():
    feeds = {"Q": _x([1, 3, 2, 4], 0), "K": _x([1, 2, 2, 4], 1), "V": _x([1, 2, 2, 4], 2)}
    model = _attention(feeds, feeds)
    model.graph.node[0].name = "att"
    with pytest.raises(ConversionError, match=r"'att' \(Attention\): 3 query heads cannot share 2 key/value heads"):
        onnx_import.convert(model)


@pytest.mark.parametrize("rank", [3, 4])
def test_attention_with_a_dynamic_batch(rank):
    """A symbolic batch (1 at conversion) runs at batch 3: the head RESHAPEs
    keep it as -1."""
    shapes = {"Q": [8, 5, 4], "K": [2, 6, 4], "V": [2, 6, 3]}
    if rank == 3:
        shapes = {n: [s[1], s[0] * s[2]] for n, s in shapes.items()}
    g = helper.make_graph(
        [
            helper.make_node(
                "Attention",
                ["Q", "K", "V"],
                ["Y"],
                is_causal=1,
                **({} if rank == 4 else {"q_num_heads": 8, "kv_num_heads": 2}),
            )
        ],
        "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, ["batch"] + s) for n, s in shapes.items()],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
    )
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 23)])
    feeds = {n: _x([3] + s, i) for i, (n, s) in enumerate(shapes.items())}
    want = ReferenceEvaluator(model).run(None, feeds)[0]
    np.testing.assert_allclose(_run(model, feeds)[0], want, rtol=RTOL, atol=ATOL)


def test_attention_runtime_mask_on_a_padded_cache():
    """A float mask shorter than the keys is padded with -inf."""
    feeds = {
        "Q": _x([1, 3, 2, 4], 0),
        "K": _x([1, 3, 5, 4], 1),
        "V": _x([1, 3, 5, 4], 2),
        "attn_mask": _x([2, 3], 3),
    }
    _compare(_attention(feeds, feeds, scale=0.3), feeds, reference=True)  # onnxruntime refuses the short mask


# --- normalizations -----------------------------------------------------------------------------------
@pytest.mark.parametrize("axis,scale_shape", [(-1, [6]), (1, [4, 6]), (1, [6])])
@pytest.mark.parametrize("constant_scale", [True, False])
def test_rms_normalization(axis, scale_shape, constant_scale):
    """LAYER_NORM with rms where the scale is constant or of the normalized
    shape; decomposed where a computed scale broadcasts."""
    feeds = {"x": _x([2, 4, 6], 0, 3.0)}
    inits = [("scale", _x(scale_shape, 1))]
    if not constant_scale:
        feeds, inits = {**feeds, "scale": inits[0][1]}, []
    node = helper.make_node("RMSNormalization", ["x", "scale"], ["y"], axis=axis, epsilon=1e-3)
    model = _model([node], feeds, ["y"], inits)
    normalized = [2, 4, 6][axis % 3 :]
    assert ("LAYER_NORM" in _ops(model)) == (constant_scale or scale_shape == normalized)
    _compare(model, feeds)


def test_layer_normalization_statistics_outputs():
    feeds = {"x": _x([3, 4, 5], 0, 2.0)}
    node = helper.make_node("LayerNormalization", ["x", "w", "b"], ["y", "mean", "inv_std"], axis=1)
    model = _model([node], feeds, ["y", "mean", "inv_std"], [("w", _x([4, 5], 1)), ("b", _x([4, 5], 2))], opset=17)
    _compare(model, feeds)


@pytest.mark.parametrize("opset", [18, 21])
def test_group_normalization_after_a_conv_stays_nhwc(opset):
    feeds = {"x": _x([2, 3, 5, 5], 0)}
    conv = helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1])
    norm = helper.make_node("GroupNormalization", ["c", "s", "b"], ["y"], num_groups=3, epsilon=1e-3)
    params = 3 if opset == 18 else 6
    inits = [("w", _x([6, 3, 3, 3], 1)), ("s", _x([params], 2)), ("b", _x([params], 3))]
    model = _model([conv, norm], feeds, ["y"], inits, opset=opset)
    model.graph.output[0].CopyFrom(helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 6, 5, 5]))
    assert _ops(model)["TRANSPOSE"] == 2
    x = ReferenceEvaluator(model).run(None, feeds)[0]
    np.testing.assert_allclose(_run(model, feeds)[0], x, rtol=1e-4, atol=1e-5)


def test_group_normalization_opset18_scales_per_group():
    feeds = {"x": _x([2, 6, 3, 3], 0)}
    node = helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=3, epsilon=1e-4)
    model = _model([node], feeds, ["y"], [("s", _x([3], 1)), ("b", _x([3], 2))], opset=18)
    x = feeds["x"].reshape(2, 3, -1).astype(np.float64)
    y = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-4)
    want = (y * _x([3], 1)[:, None] + _x([3], 2)[:, None]).reshape(2, 6, 3, 3)
    np.testing.assert_allclose(_run(model, feeds)[0], want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("p", [1, 2])
def test_lp_normalization_with_a_zero_row(p):
    x = _x([3, 5], 0)
    x[1] = 0
    node = helper.make_node("LpNormalization", ["x"], ["y"], axis=1, p=p)
    y = _run(_model([node], {"x": x}, ["y"], opset=22), {"x": x})[0]
    want = x / np.maximum(np.linalg.norm(x, ord=p, axis=1, keepdims=True), 1e-30)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-7)


def test_instance_normalization_after_a_conv_stays_nhwc():
    feeds = {"x": _x([2, 3, 5, 5], 0)}
    conv = helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1])
    norm = helper.make_node("InstanceNormalization", ["c", "s", "b"], ["y"], epsilon=1e-3)
    inits = [("w", _x([4, 3, 3, 3], 1)), ("s", _x([4], 2)), ("b", _x([4], 3))]
    model = _model([conv, norm], feeds, ["y"], inits, opset=13)
    assert _ops(model)["TRANSPOSE"] == 2  # the input to NHWC and the output back
    _compare(model, feeds)


def test_lrn_after_a_conv_stays_nhwc():
    feeds = {"x": _x([1, 3, 6, 6], 0)}
    conv = helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1])
    lrn = helper.make_node("LRN", ["c"], ["y"], size=5, alpha=1e-2, beta=0.6, bias=1.5)
    model = _model([conv, lrn], feeds, ["y"], [("w", _x([7, 3, 3, 3], 1))], opset=13)
    assert _ops(model)["TRANSPOSE"] == 2
    _compare(model, feeds)


# --- losses -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("weighted", [False, True])
def test_softmax_cross_entropy_ignore_index(reduction, weighted):
    target = np.random.default_rng(1).integers(0, 4, [3, 5]).astype(np.int64)
    target[0, 2] = target[2, 4] = -100
    feeds = {"scores": _x([3, 4, 5], 0, 2.0), "target": target}
    inputs = ["scores", "target"] + (["w"] if weighted else [])
    node = helper.make_node(
        "SoftmaxCrossEntropyLoss", inputs, ["loss", "log_prob"], reduction=reduction, ignore_index=-100
    )
    inits = [("w", np.array([0.5, 1.0, 2.0, 0.25], np.float32))] if weighted else []
    _compare(_model([node], feeds, ["loss", "log_prob"], inits, opset=13), feeds)


# --- Einsum -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "equation,shapes",
    [
        ("bhqd,bhkd->bhqk", [[2, 3, 4, 5], [2, 3, 6, 5]]),
        ("ij,jk", [[3, 4], [4, 5]]),
        ("i,j->ij", [[3], [4]]),
        ("bij,bjk->bik", [[2, 3, 4], [2, 4, 5]]),
        ("...ii->...i", [[2, 4, 4]]),
        ("ii", [[4, 4]]),
        ("ijk->ki", [[2, 3, 4]]),
        ("bid,d->bi", [[2, 3, 4], [4]]),
        ("ij,ij->", [[3, 4], [3, 4]]),
    ],
)
def test_einsum(equation, shapes):
    feeds = {f"x{i}": _x(s, i) for i, s in enumerate(shapes)}
    node = helper.make_node("Einsum", list(feeds), ["y"], equation=equation)
    got = _run(_model([node], feeds, ["y"], opset=12), feeds)[0]
    want = np.einsum(equation, *feeds.values())
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)

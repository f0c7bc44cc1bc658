"""ONNX models as tools other than torch.onnx.export write them, and PyTorch architectures not covered by the
earlier real-export tests, through the ONNX importer and the lite runtime, compared with onnxruntime on the same
file: onnxruntime.quantization's quantize_static models (QuantFormat.QDQ: int8 weights dequantized by
DequantizeLinear at opset 13, which onnx's reference evaluator cannot fold; QuantFormat.QOperator: onnxruntime's
com.microsoft QLinear* ops and QGemm), float16 models (a `.half()` PyTorch export; mixed precision by Cast
chains), which the converter computes in float32 (onnx_import/float16.py); einsum attention, a DETR head
(queries repeated to a dynamic batch), GPT-2 and Llama blocks, a wav2vec feature encoder, EfficientNet-Lite, a
time-major GRU and an autoencoder upsampling by F.interpolate; tf2onnx-style graphs (NHWC, auto_pad SAME of a
run-time image size, opset-11 softmax) and onnxruntime-optimized models.
"""

import io
import math
import warnings

import numpy as np
import pytest
import torch_export_util
from onnx import TensorProto, helper
from onnx_lite_util import make_model

from converters import lite_runner, onnx_import

torch = pytest.importorskip("torch")
ort = pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")
quantization = pytest.importorskip("onnxruntime.quantization")
nn = torch.nn
F = torch.nn.functional
pytestmark = pytest.mark.skipif(not lite_runner.available(), reason="bazel build //lite/c:libtensorweave_lite.so first")


def _floats(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _agrees(model, feeds_list, rtol, atol):
    """The lite runtime (1 and 2 threads) against onnxruntime on each of `feeds_list`."""
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    runners = [lite_runner.LiteRunner(onnx_import.convert(model), num_threads=n) for n in (1, 2)]
    for feeds in feeds_list:
        for runner in runners:
            got = runner.run(feeds)
            for out, want in zip(model.graph.output, session.run(None, feeds)):
                assert got[out.name].shape == want.shape and got[out.name].dtype == want.dtype, out.name
                np.testing.assert_allclose(got[out.name], want, rtol=rtol, atol=atol, err_msg=out.name)


# --- onnxruntime.quantization -----------------------------------------------------------------------
class QuantCNN(nn.Module):
    """What quantize_static quantizes: convs (one per-channel), LeakyReLU, a sigmoid gate (Mul), Concat,
    AvgPool, global average pooling, a Linear (Gemm) and Softmax."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.c2 = nn.Conv2d(8, 8, 1)
        self.c3 = nn.Conv2d(16, 16, 3, padding=1)
        self.fc = nn.Linear(16, 5)

    def forward(self, x):
        y = F.leaky_relu(self.c1(x), 0.1)
        y = torch.cat([y, y * torch.sigmoid(self.c2(y))], 1)
        y = F.avg_pool2d(F.relu(self.c3(y)), 2)
        return self.fc(F.adaptive_avg_pool2d(y, 1).flatten(1)).softmax(-1)


class _Calibration(quantization.CalibrationDataReader):
    def __init__(self, shape):
        self.feeds = iter([{"x": _floats(*shape, seed=s)} for s in range(4)])

    def get_next(self):
        return next(self.feeds, None)


def _float_model_file(tmp_path, module, shape):
    path = str(tmp_path / "float.onnx")
    model = torch_export_util.export(
        torch_export_util.seeded_module(module), (torch.from_numpy(_floats(*shape)),), ["x"], ["y"], False, 13, True
    )
    onnx.save(model, path)
    return path


def _output_step(model):
    """The scale of the DequantizeLinear that makes the model's output: one quantization step of it."""
    consts = {i.name: onnx.numpy_helper.to_array(i) for i in model.graph.initializer}
    (node,) = [n for n in model.graph.node if n.output[0] == model.graph.output[0].name]
    assert node.op_type == "DequantizeLinear"
    return float(consts[node.input[1]])


@pytest.mark.parametrize(
    "quant_format,activation,weight,per_channel",
    [
        ("QDQ", "QUInt8", "QInt8", True),
        ("QDQ", "QInt8", "QInt8", False),
        ("QDQ", "QInt16", "QInt8", True),  # opset 21 16-bit QuantizeLinear/DequantizeLinear
        ("QDQ", "QUInt8", "QInt4", True),  # com.microsoft DequantizeLinear of int4 weights
        ("QOperator", "QUInt8", "QInt8", False),
        ("QOperator", "QInt8", "QInt8", True),
    ],
)
def test_quantize_static_cnn_agrees_within_one_output_step(tmp_path, quant_format, activation, weight, per_channel):
    """quantize_static's CNN at opset 13 agrees with onnxruntime (its int8 kernels) within one step of the
    output's quantization. QDQ: int8 weights behind DequantizeLinear (folded here below opset 19, where onnx's
    reference evaluator has none), each activation through a QuantizeLinear/DequantizeLinear pair. QOperator:
    QLinearConv and onnxruntime's com.microsoft QLinearAdd/Mul/Sigmoid/LeakyRelu/Concat/AveragePool/
    GlobalAveragePool/Softmax and QGemm, rewritten to dequantize, the float op, quantize."""
    shape = (2, 3, 12, 12)
    out = str(tmp_path / "quantized.onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        quantization.quantize_static(
            _float_model_file(tmp_path, QuantCNN, shape),
            out,
            _Calibration(shape),
            quant_format=getattr(quantization.QuantFormat, quant_format),
            activation_type=getattr(quantization.QuantType, activation),
            weight_type=getattr(quantization.QuantType, weight),
            per_channel=per_channel,
        )
    model = onnx.load(out)
    ops = {(n.domain, n.op_type) for n in model.graph.node}
    if quant_format == "QDQ":
        assert ("", "Conv") in ops and {op for _, op in ops} >= {"QuantizeLinear", "DequantizeLinear"}
    else:
        assert {("", "QLinearConv"), ("com.microsoft", "QGemm"), ("com.microsoft", "QLinearConcat")} <= ops
    step = _output_step(model) * 1.001  # one step (and float rounding)
    _agrees(model, [{"x": _floats(*shape, seed=9)}, {"x": _floats(3, *shape[1:], seed=10)}], 0, step)


class QuantUNet(nn.Module):
    """An encoder-decoder: strided conv, bilinear upsampling (quantize_static's QOperator Resize runs on uint8)
    and a skip Concat."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.down = nn.Conv2d(8, 8, 3, 2, 1)
        self.out = nn.Conv2d(16, 4, 3, padding=1)

    def forward(self, x):
        skip = F.relu(self.c1(x))
        up = F.interpolate(F.relu(self.down(skip)), scale_factor=2.0, mode="bilinear", align_corners=False)
        return self.out(torch.cat([skip, up], 1))


def test_quantize_static_qoperator_unet_agrees_within_one_output_step(tmp_path):
    """The 8-bit Resize (linear) of a QOperator model interpolates in float32 and rounds (it was refused:
    RESIZE takes float32)."""
    shape = (2, 3, 12, 12)
    out = str(tmp_path / "quantized.onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        quantization.quantize_static(
            _float_model_file(tmp_path, QuantUNet, shape),
            out,
            _Calibration(shape),
            quant_format=quantization.QuantFormat.QOperator,
            per_channel=True,
        )
    model = onnx.load(out)
    resize = [n for n in model.graph.node if n.op_type == "Resize"]
    assert resize and resize[0].input[0].endswith("_quantized")
    # onnxruntime's uint8 bilinear rounds its own way: some outputs differ by one step (and float rounding).
    step = _output_step(model) * 1.001
    _agrees(model, [{"x": _floats(*shape, seed=9)}, {"x": _floats(3, *shape[1:], seed=10)}], 0, step)


def test_a_channels_last_contrib_op_is_refused():
    from converters.errors import ConversionError

    node = helper.make_node(
        "QLinearGlobalAveragePool", ["x", "s", "z", "s", "z"], ["y"], domain="com.microsoft", channels_last=1
    )
    model = make_model(
        [node], [("x", np.uint8, [1, 4, 4, 3])], [("y", np.uint8, None)], [("s", np.float32(0.1)), ("z", np.uint8(0))]
    )
    model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    with pytest.raises(ConversionError, match=r"'y' \(QLinearGlobalAveragePool\): channels_last=1 \(NHWC\)"):
        onnx_import.convert(model)


class BiLSTMTagger(nn.Module):
    """A two-layer bidirectional LSTM tagger (quantize_dynamic makes its LSTMs DynamicQuantizeLSTM)."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(12, 16, num_layers=2, bidirectional=True, batch_first=True)
        self.out = nn.Linear(32, 5)

    def forward(self, x):
        return self.out(self.lstm(x)[0])


@pytest.mark.parametrize("per_channel", [False, True])
def test_quantize_dynamic_lstm_agrees(tmp_path, per_channel):
    """quantize_dynamic's LSTM model: DynamicQuantizeLSTM (com.microsoft) with int8 weights becomes an LSTM of
    the weights dequantized, the Linear a MatMulInteger of DynamicQuantizeLinear. onnxruntime also quantizes
    the LSTM's activations to 8 bits at run time: agreement within 0.03 (outputs of about unit size)."""
    shape = (2, 7, 12)
    out = str(tmp_path / "dynamic.onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        quantization.quantize_dynamic(
            _float_model_file(tmp_path, BiLSTMTagger, shape),
            out,
            weight_type=quantization.QuantType.QInt8,
            per_channel=per_channel,
        )
    model = onnx.load(out)
    assert {"DynamicQuantizeLSTM", "MatMulInteger"} <= {n.op_type for n in model.graph.node}
    _agrees(model, [{"x": _floats(*shape, seed=4)}, {"x": _floats(3, *shape[1:], seed=5)}], 0, 0.03)


# --- float16 ----------------------------------------------------------------------------------------
class HalfNet(nn.Module):
    """A conv stem with BatchNorm and SiLU, a pre-norm attention block with GELU, a Linear head and softmax."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.SiLU())
        self.norm = nn.LayerNorm(16)
        self.attn = nn.MultiheadAttention(16, 2, batch_first=True)
        self.mlp = nn.Sequential(nn.LayerNorm(16), nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 16))
        self.head = nn.Linear(16, 5)

    def forward(self, x):
        y = self.stem(x).flatten(2).transpose(1, 2)
        n = self.norm(y)
        y = y + self.attn(n, n, n, need_weights=False)[0]
        y = y + self.mlp(y)
        return self.head(y.mean(1)).softmax(-1)


# float16 results of one op differ by a rounding (2**-11 relative) between float16 and float32 computation.
HALF_RTOL, HALF_ATOL = 2e-2, 2e-3


def test_half_pytorch_export_agrees_with_onnxruntime():
    """`.half()` weights, a float16 input and output (TorchScript exporter, opset 17, dynamic batch): converted
    to a float32 computation between CASTs at the input and output, within float16 rounding of onnxruntime."""
    module = torch_export_util.seeded_module(HalfNet).half()
    x = torch.from_numpy(_floats(2, 3, 12, 12)).half()
    model = torch_export_util.export(module, (x,), ["x"], ["y"], False, 17, True)
    assert model.graph.input[0].type.tensor_type.elem_type == TensorProto.FLOAT16
    feeds = [{"x": _floats(b, 3, 12, 12, seed=b).astype(np.float16)} for b in (2, 3)]
    _agrees(model, feeds, HALF_RTOL, HALF_ATOL)


def test_float16_cast_chain_rounds_where_the_model_casts():
    """Mixed precision as converters write it: float32 input, Cast to float16, a float16 MatMul with float16
    weights, Cast back to float32 and a LayerNormalization; a float16 Cast of an int64 output of ArgMax."""
    w = _floats(6, 8).astype(np.float16)
    nodes = [
        helper.make_node("Cast", ["x"], ["xh"], to=TensorProto.FLOAT16),
        helper.make_node("MatMul", ["xh", "w"], ["h"]),
        helper.make_node("Cast", ["h"], ["hf"], to=TensorProto.FLOAT),
        helper.make_node("LayerNormalization", ["hf", "g", "b"], ["y"], axis=-1),
        helper.make_node("ArgMax", ["h"], ["i"], axis=-1, keepdims=0),
        helper.make_node("Cast", ["xh"], ["r"], to=TensorProto.INT32),
    ]
    model = make_model(
        nodes,
        [("x", np.float32, ["N", 6])],
        [("y", np.float32, None), ("i", np.int64, None), ("r", np.int32, None)],
        [("w", w), ("g", _floats(8)), ("b", _floats(8, seed=1))],
        opset=17,
    )
    x = _floats(3, 6) * 40
    _agrees(model, [{"x": x}], HALF_RTOL, HALF_ATOL)
    # The float16 rounding is kept: the Cast to float16 of x is what the MatMul reads.
    got = lite_runner.LiteRunner(onnx_import.convert(model)).run({"x": x})
    np.testing.assert_array_equal(got["r"], x.astype(np.float16).astype(np.int32))


# --- PyTorch exports --------------------------------------------------------------------------------
class EinsumAttention(nn.Module):
    """Attention written with torch.einsum (per-head projections, scores, weighted values, output
    projection), a sum over tokens and the diagonal of the first head's attention ("bii->bi")."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 6, 8))
        self.v = nn.Parameter(torch.randn(8, 5))

    def forward(self, x):
        h = torch.einsum("bnd,hde->bhne", x, self.w)
        a = torch.einsum("bhne,bhme->bhnm", h, h).softmax(-1)
        o = torch.einsum("bhnm,bhme->bnhe", a, h)
        return torch.einsum("bnhe,ef->bnf", o, self.v), torch.einsum("bnd->bd", x), torch.einsum("bii->bi", a[:, 0])


def _float_inputs(*shape):
    return lambda batch, seed: (torch.from_numpy(_floats(batch, *shape, seed=seed)),)


@pytest.mark.parametrize("dynamo,opset", [(False, 14), (True, 18)])
def test_einsum_attention_agrees_at_every_batch(dynamo, opset):
    """A dynamic batch: the diagonal's flattening RESHAPE leaves the batch to the runtime (it was baked to 1)."""
    inputs = _float_inputs(5, 6)
    model = torch_export_util.export(
        torch_export_util.seeded_module(EinsumAttention), inputs(2, 0), ["x"], ["y", "s", "d"], dynamo, opset, True
    )
    torch_export_util.check_agrees(model, inputs, [2, 3], 1e-4, 1e-4)


class DETRHead(nn.Module):
    """DETR's decoder head: a patch-embedding backbone with learned positions, learned object queries repeated to
    the batch (queries.repeat(batch, 1, 1): a Tile by a run-time repeat), cross attention to the image features,
    class softmax and sigmoid boxes."""

    def __init__(self, d=16, queries=5):
        super().__init__()
        self.backbone = nn.Conv2d(3, d, 4, 4)
        self.queries = nn.Embedding(queries, d)
        self.decoder = nn.TransformerDecoderLayer(d, 2, 32, dropout=0.0, batch_first=True)
        self.cls = nn.Linear(d, 4)
        self.box = nn.Sequential(nn.Linear(d, d), nn.ReLU(), nn.Linear(d, 4))
        self.pos = nn.Parameter(torch.randn(1, 16, d) * 0.1)

    def forward(self, x):
        memory = self.backbone(x).flatten(2).transpose(1, 2) + self.pos
        q = self.queries.weight.unsqueeze(0).repeat(x.shape[0], 1, 1)
        h = self.decoder(q, memory)
        return self.cls(h).softmax(-1), self.box(h).sigmoid()


class GPT2Block(nn.Module):
    """GPT-2: token and position embeddings, a causal mask by triu and masked_fill(-inf), tanh GELU, tied output
    embedding; the next token by argmax and the top 3 by topk (int64 outputs)."""

    def __init__(self, d=16, heads=2):
        super().__init__()
        self.heads = heads
        self.wte, self.wpe = nn.Embedding(30, d), nn.Embedding(16, d)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, ids):
        b, t = ids.shape
        x = self.wte(ids) + self.wpe(torch.arange(t))
        q, k, v = (z.view(b, t, self.heads, -1).transpose(1, 2) for z in self.qkv(self.ln1(x)).split(16, dim=2))
        att = (q @ k.transpose(-2, -1)) / math.sqrt(k.size(-1))
        att = att.masked_fill(torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1), float("-inf")).softmax(-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(b, t, -1))
        x = x + self.fc2(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))
        logits = x @ self.wte.weight.T
        return logits, logits[:, -1].argmax(-1), logits[:, -1].topk(3)[1]


class RMSNorm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(d) + 0.5)

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight


class LlamaBlock(nn.Module):
    """A Llama block: RMSNorm, rotary position embeddings (sin/cos of the positions, halves swapped by slicing
    and concatenation), causal scaled_dot_product_attention, a SwiGLU MLP."""

    def __init__(self, d=16, heads=2):
        super().__init__()
        self.heads = heads
        self.emb = nn.Embedding(30, d)
        self.n1, self.n2 = RMSNorm(d), RMSNorm(d)
        self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False) for _ in range(4))
        self.gate, self.up, self.down = nn.Linear(d, 24, bias=False), nn.Linear(d, 24, bias=False), nn.Linear(24, d)
        self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, d // heads, 2).float() / (d // heads))))

    @staticmethod
    def rotate(x, cos, sin):
        half = x.shape[-1] // 2
        return x * cos + torch.cat((-x[..., half:], x[..., :half]), dim=-1) * sin

    def forward(self, ids):
        b, t = ids.shape
        x = self.emb(ids)
        freqs = torch.outer(torch.arange(t, dtype=torch.float32), self.inv_freq)
        angles = torch.cat((freqs, freqs), -1)
        h = self.n1(x)
        q, k, v = (p(h).view(b, t, self.heads, -1).transpose(1, 2) for p in (self.q, self.k, self.v))
        q, k = self.rotate(q, angles.cos(), angles.sin()), self.rotate(k, angles.cos(), angles.sin())
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o(y.transpose(1, 2).reshape(b, t, -1))
        h = self.n2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class EfficientNetLite(nn.Module):
    """EfficientNet-Lite: MBConv blocks with ReLU6 and no squeeze-excitation, BatchNorms folded."""

    def __init__(self):
        super().__init__()

        def block(c_in, c_out, expand, stride):
            e = c_in * expand
            return nn.Sequential(
                nn.Conv2d(c_in, e, 1, bias=False), nn.BatchNorm2d(e), nn.ReLU6(),
                nn.Conv2d(e, e, 3, stride, 1, groups=e, bias=False), nn.BatchNorm2d(e), nn.ReLU6(),
                nn.Conv2d(e, c_out, 1, bias=False), nn.BatchNorm2d(c_out),
            )  # fmt: skip

        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU6())
        self.b1, self.b2, self.b3 = block(8, 8, 1, 1), block(8, 12, 4, 2), block(12, 12, 4, 1)
        self.head = nn.Sequential(nn.Conv2d(12, 32, 1), nn.ReLU6())
        self.fc = nn.Linear(32, 7)

    def forward(self, x):
        x = self.stem(x)
        x = self.b2(x + self.b1(x))
        x = x + self.b3(x)
        return self.fc(F.adaptive_avg_pool2d(self.head(x), 1).flatten(1))


class TimeMajorGRU(nn.Module):
    """nn.GRU with batch_first=False (two layers): the last step's output classified, and the final states."""

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(6, 8, num_layers=2)
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        y, h = self.gru(x)
        return self.fc(y[-1]), h


class Autoencoder(nn.Module):
    """A conv autoencoder decoding with F.interpolate instead of MaxUnpool: bilinear with align_corners True and
    False, nearest to a size, bicubic down."""

    def __init__(self):
        super().__init__()
        self.e1, self.e2 = nn.Conv2d(3, 8, 3, 2, 1), nn.Conv2d(8, 8, 3, 2, 1)
        self.d1, self.d2 = nn.Conv2d(8, 8, 3, padding=1), nn.Conv2d(8, 3, 3, padding=1)

    def forward(self, x):
        z = F.relu(self.e2(F.relu(self.e1(x))))
        a = F.interpolate(z, scale_factor=2, mode="bilinear", align_corners=True)
        b = F.interpolate(z, scale_factor=2, mode="bilinear", align_corners=False)
        y = F.interpolate(F.relu(self.d1(a + b)), size=(16, 16), mode="nearest")
        return torch.sigmoid(self.d2(y)), F.interpolate(y, scale_factor=0.5, mode="bicubic", align_corners=False)


def _time_major(batch, seed):
    return (torch.from_numpy(_floats(5, batch, 6, seed=seed)),)


def _tokens(batch, seed):
    return (torch.randint(0, 30, (batch, 7), generator=torch.Generator().manual_seed(seed)),)


# name -> (module, inputs(batch, seed), input names, output names)
MODELS = {
    "detr_head": (DETRHead, _float_inputs(3, 16, 16), ["x"], ["cls", "box"]),
    "gpt2_block": (GPT2Block, _tokens, ["ids"], ["logits", "next", "top3"]),
    "llama_block": (LlamaBlock, _tokens, ["ids"], ["y"]),
}


# Models that convert as exported (TorchScript, opset 14, a dynamic batch), kept as regressions.
PASSING = {
    "efficientnet_lite": (EfficientNetLite, _float_inputs(3, 32, 32), ["x"], ["y"]),
    "autoencoder": (Autoencoder, _float_inputs(3, 16, 16), ["x"], ["y", "down"]),
}


@pytest.mark.parametrize("name", list(PASSING))
def test_more_pytorch_exports_agree(name):
    module, inputs, input_names, output_names = PASSING[name]
    model = torch_export_util.export(
        torch_export_util.seeded_module(module), inputs(2, 0), input_names, output_names, False, 14, True
    )
    torch_export_util.check_agrees(model, inputs, [2, 3], 1e-4, 1e-4)


def test_time_major_gru_agrees():
    """nn.GRU(batch_first=False): the batch is dim 1 (static here; the sequence dim 0)."""
    model = torch_export_util.export(
        torch_export_util.seeded_module(TimeMajorGRU), _time_major(2, 0), ["x"], ["y", "h"], False, 14, False
    )
    torch_export_util.check_agrees(model, _time_major, [2], 1e-4, 1e-4)


@pytest.mark.parametrize("dynamo,opset", [(False, 14), (True, 18)])
@pytest.mark.parametrize("name", list(MODELS))
def test_pytorch_export_agrees_at_every_batch(name, dynamo, opset):
    module, inputs, input_names, output_names = MODELS[name]
    model = torch_export_util.export(
        torch_export_util.seeded_module(module), inputs(2, 0), input_names, output_names, dynamo, opset, True
    )
    torch_export_util.check_agrees(model, inputs, [2, 3], 1e-4, 1e-4)


def test_a_run_time_repeat_of_a_dim_other_than_1_is_refused():
    """Tile by a run-time repeat broadcasts a dim of 1; of a dim of 2 it is refused, naming the value."""
    from converters.errors import ConversionError

    nodes = [
        helper.make_node("Shape", ["x"], ["s"], end=1),
        helper.make_node("Concat", ["s", "one"], ["r"], axis=0),
        helper.make_node("Tile", ["c", "r"], ["y"]),
    ]
    inits = [("one", np.array([1], np.int64)), ("c", _floats(2, 4))]
    model = make_model(nodes, [("x", np.float32, ["b", 4])], [("y", np.float32, None)], inits, opset=17)
    with pytest.raises(ConversionError, match=r"'y' \(Tile\): repeats \(input 1\): 'r' is computed from the shape"):
        onnx_import.convert(model)


def test_clip_by_computed_bounds_agrees_with_onnxruntime():
    """Clip (opset 11+) whose bounds are tensors computed in the model or fed to it, as tf2onnx writes
    tf.clip_by_value by tensors: MAXIMUM / MINIMUM by them, after a Conv (NHWC) too."""
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"]),
        helper.make_node("ReduceMean", ["c"], ["m"], keepdims=0),
        helper.make_node("Clip", ["c", "m", "hi"], ["y"]),
        helper.make_node("Clip", ["c", "", "hi"], ["z"]),
    ]
    model = make_model(
        nodes,
        [("x", np.float32, ["N", 2, 5, 5]), ("hi", np.float32, [])],
        [("y", np.float32, None), ("z", np.float32, None)],
        [("w", _floats(3, 2, 3, 3))],
        opset=13,
    )
    feeds = [{"x": _floats(b, 2, 5, 5, seed=b), "hi": np.array(0.5, np.float32)} for b in (1, 3)]
    _agrees(model, feeds, 1e-5, 1e-5)


# --- onnxruntime's optimized models -----------------------------------------------------------------
class Fusable(nn.Module):
    """What onnxruntime's extended optimizations fuse: Conv + Sigmoid (FusedConv), SiLU (QuickGelu), scaled
    scores (FusedMatMul), a post-norm encoder layer (Linear bias + GELU as BiasGelu; LayerNormalization in the
    default domain below opset 17) and Linear + Tanh (FusedGemm)."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 4, 4)
        self.gate = nn.Conv2d(16, 16, 1)
        self.encoder = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, activation="gelu", batch_first=True)
        self.proj = nn.Linear(16, 16)
        self.norm = nn.LayerNorm(16)
        self.pool = nn.Linear(16, 8)

    def forward(self, x):
        y = F.silu(self.stem(x))
        y = (y * torch.sigmoid(self.gate(y))).flatten(2).transpose(1, 2)
        y = ((y @ y.transpose(1, 2)) / 4.0).softmax(-1) @ y
        y = self.encoder(y)
        y = self.norm(y + self.proj(y))
        return torch.tanh(self.pool(y[:, 0]))


@pytest.mark.parametrize("opset", [14, 17])
def test_onnxruntime_optimized_model_agrees(tmp_path, opset):
    """A model as onnxruntime saves it after ORT_ENABLE_EXTENDED (optimized_model_filepath): its com.microsoft
    fused ops (and, below opset 17, its default-domain LayerNormalization) are unfused to standard ONNX."""
    inputs = _float_inputs(3, 16, 16)
    model = torch_export_util.export(
        torch_export_util.seeded_module(Fusable), inputs(2, 0), ["x"], ["y"], False, opset, True
    )
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    options.optimized_model_filepath = str(tmp_path / "optimized.onnx")
    ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    optimized = onnx.load(options.optimized_model_filepath)
    fused = {n.op_type for n in optimized.graph.node if n.domain == "com.microsoft"}
    assert {"FusedConv", "QuickGelu", "FusedMatMul", "BiasGelu", "FusedGemm"} <= fused
    torch_export_util.check_agrees(optimized, inputs, [2, 3], 1e-4, 1e-4)


def test_onnxruntime_nchwc_layout_model_is_refused_naming_the_level(tmp_path):
    """ORT_ENABLE_ALL adds CPU-specific NCHWc layout ops: refused, naming ORT_ENABLE_EXTENDED."""
    from converters.errors import ConversionError

    inputs = _float_inputs(3, 16, 16)
    model = torch_export_util.export(
        torch_export_util.seeded_module(Fusable), inputs(2, 0), ["x"], ["y"], False, 17, True
    )
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.optimized_model_filepath = str(tmp_path / "optimized.onnx")
    ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    optimized = onnx.load(options.optimized_model_filepath)
    if not any(n.domain == "com.microsoft.nchwc" for n in optimized.graph.node):
        pytest.skip("this onnxruntime build writes no NCHWc ops")
    with pytest.raises(
        ConversionError, match=r"NCHWc layout ops .* save it with GraphOptimizationLevel.ORT_ENABLE_EXTENDED"
    ):
        onnx_import.convert(optimized)


@pytest.mark.parametrize("opset", [14, 17])
def test_onnxruntime_normalizations_agree(opset):
    """SkipLayerNormalization (with its bias and sum output), SkipSimplifiedLayerNormalization (com.microsoft),
    and onnxruntime's default-domain SimplifiedLayerNormalization (RMSNorm) and, below opset 17,
    LayerNormalization, as its fusions write them, against onnxruntime's kernels."""
    nodes = [
        helper.make_node(
            "SkipLayerNormalization",
            ["x", "skip", "gamma", "beta", "bias"],
            ["y", "", "", "sum"],
            domain="com.microsoft",
            epsilon=1e-5,
        ),
        helper.make_node(
            "SkipSimplifiedLayerNormalization", ["x", "skip", "gamma"], ["r"], domain="com.microsoft", epsilon=1e-6
        ),
        helper.make_node("SimplifiedLayerNormalization", ["sum", "gamma"], ["rms"], axis=-1, epsilon=1e-6),
    ]
    if opset < 17:
        nodes.append(helper.make_node("LayerNormalization", ["r", "gamma", "beta"], ["ln"], axis=-1, epsilon=1e-5))
    outputs = [("y", np.float32, None), ("sum", np.float32, None), ("r", np.float32, None)]
    outputs += [("rms", np.float32, None)] + ([("ln", np.float32, None)] if opset < 17 else [])
    inits = [("gamma", _floats(8, seed=1) + 1), ("beta", _floats(8, seed=2)), ("bias", _floats(8, seed=3))]
    model = make_model(
        nodes, [("x", np.float32, ["N", 3, 8]), ("skip", np.float32, ["N", 3, 8])], outputs, inits, opset
    )
    model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    feeds = [{"x": _floats(b, 3, 8, seed=b), "skip": _floats(b, 3, 8, seed=b + 5)} for b in (1, 2)]
    _agrees(model, feeds, 1e-4, 1e-5)


@pytest.mark.parametrize(
    "activation,params", [("Clip", [-0.5, 0.4]), ("HardSigmoid", [0.3, 0.4]), ("LeakyRelu", [0.2])]
)
def test_onnxruntime_fused_ops_agree(activation, params):
    """FusedConv with its Z input and an activation with parameters, FastGelu with a bias and FusedMatMul of
    transposed operands, against onnxruntime's kernels."""
    nodes = [
        helper.make_node(
            "FusedConv",
            ["x", "w", "b", "z"],
            ["y"],
            domain="com.microsoft",
            activation=activation,
            activation_params=params,
            pads=[1, 1, 1, 1],
        ),
        helper.make_node("FastGelu", ["y", "bias"], ["g"], domain="com.microsoft"),
        helper.make_node("FusedMatMul", ["a", "c"], ["m"], domain="com.microsoft", transA=1, transB=1, alpha=0.25),
    ]
    model = make_model(
        nodes,
        [("x", np.float32, ["N", 2, 5, 5]), ("z", np.float32, ["N", 3, 5, 5]), ("a", np.float32, ["N", 4, 3])],
        [("g", np.float32, None), ("m", np.float32, None)],
        [("w", _floats(3, 2, 3, 3)), ("b", _floats(3, seed=1)), ("bias", _floats(5, seed=2)), ("c", _floats(5, 4))],
        opset=13,
    )
    model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    feeds = {"x": _floats(2, 2, 5, 5, seed=3), "z": _floats(2, 3, 5, 5, seed=4), "a": _floats(2, 4, 3, seed=5)}
    _agrees(model, [feeds], 1e-4, 1e-5)


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize("axis", [0, 1])
def test_opset_11_softmax_over_flattened_dims_at_every_batch(op, axis):
    """Softmax before opset 13 works on the input flattened to 2-D at `axis` (older exporters' classifier
    heads): with a dynamic batch the flattening leaves the batch to the runtime (it was baked to 1)."""
    model = make_model(
        [helper.make_node(op, ["x"], ["y"], axis=axis)],
        [("x", np.float32, ["N", 3, 4])],
        [("y", np.float32, None)],
        opset=11,
    )
    _agrees(model, [{"x": _floats(b, 3, 4, seed=b)} for b in (1, 2, 3)], 1e-5, 1e-6)


def test_opset_11_softmax_with_run_time_dims_on_both_sides_is_refused():
    from converters.errors import ConversionError

    model = make_model(
        [helper.make_node("Softmax", ["x"], ["y"], axis=1)],
        [("x", np.float32, ["N", 3, "T"])],
        [("y", np.float32, None)],
        opset=11,
    )
    with pytest.raises(ConversionError, match=r"'y' \(Softmax\): before opset 13 .* on both sides of it"):
        onnx_import.convert(model)


@pytest.mark.parametrize("p", [1, 2])
def test_lp_normalization_over_the_dynamic_batch_axis(p):
    """LpNormalization over axis 0 of a dynamic batch sums the batch at run time (REDUCE_SUM); it summed a
    static 1 element and gave wrong values at any other batch."""
    model = make_model(
        [helper.make_node("LpNormalization", ["x"], ["y"], axis=0, p=p)],
        [("x", np.float32, ["N", 3, 4])],
        [("y", np.float32, None)],
        opset=13,
    )
    _agrees(model, [{"x": _floats(b, 3, 4, seed=b)} for b in (1, 3)], 1e-5, 1e-6)


@pytest.mark.parametrize(
    "node,match",
    [
        (helper.make_node("Hardmax", ["x"], ["y"], axis=0), r"'y' \(Hardmax\): axis 0 has a size known only at run"),
        (helper.make_node("EyeLike", ["x"], ["y"]), r"'y' \(EyeLike; the shape of 'x' is known only when the model"),
    ],
)
def test_ops_sized_by_a_dynamic_batch_are_refused_by_name(node, match):
    """Hardmax over the dynamic batch axis made a wrong shape ([1, ...]); both are refused naming why."""
    from converters.errors import ConversionError

    model = make_model([node], [("x", np.float32, ["N", 4])], [("y", np.float32, None)], opset=13)
    with pytest.raises(ConversionError, match=match):
        onnx_import.convert(model)


def _tf2onnx_cnn(auto_pad):
    """A CNN as tf2onnx writes a Keras model of unknown image size: NHWC input, Transpose, convs and a pool with
    auto_pad and stride 2 (it cannot compute explicit pads), a grouped conv, global mean."""
    nodes = [
        helper.make_node("Transpose", ["x"], ["t"], perm=[0, 3, 1, 2]),
        helper.make_node("Conv", ["t", "w1", "b1"], ["c1"], auto_pad=auto_pad, strides=[2, 2]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[3, 3], strides=[2, 2], auto_pad=auto_pad),
        helper.make_node("Conv", ["p1", "w2"], ["c2"], auto_pad=auto_pad, strides=[2, 2], group=2),
        helper.make_node("ReduceMean", ["c2", "axes"], ["y"], keepdims=0),
    ]
    inits = [
        ("w1", _floats(8, 3, 4, 4) * 0.3),
        ("b1", _floats(8, seed=1)),
        ("w2", _floats(6, 4, 3, 3) * 0.3),
        ("axes", np.array([2, 3], np.int64)),
    ]
    model = make_model(
        nodes, [("x", np.float32, ["unk__0", "unk__1", "unk__2", 3])], [("y", np.float32, None)], inits, 21
    )
    # tf2onnx declares the intermediates' types (onnx's inference gives this GroupNormalization none).
    model.graph.value_info.append(helper.make_tensor_value_info("g", TensorProto.FLOAT, ["unk__0", 6, "h", "w"]))
    return model


def test_same_upper_strided_convs_of_a_run_time_image_size_agree():
    """auto_pad SAME_UPPER with stride 2 over run-time H/W is the lite SAME padding (its pads depend on the
    size; the static pads of a 1x1 image gave wrong output sizes): batch, height and width change between
    runs."""
    feeds = [{"x": _floats(*s, seed=k)} for k, s in enumerate([(1, 17, 23, 3), (2, 16, 9, 3), (1, 30, 30, 3)])]
    _agrees(_tf2onnx_cnn("SAME_UPPER"), feeds, 1e-4, 1e-5)


def test_same_lower_strided_conv_of_a_run_time_image_size_is_refused():
    from converters.errors import ConversionError

    with pytest.raises(ConversionError, match=r"\(Conv\): auto_pad SAME_LOWER with strides \[2, 2\] over spatial dims"):
        onnx_import.convert(_tf2onnx_cnn("SAME_LOWER"))


class Wav2VecFeatures(nn.Module):
    """wav2vec 2.0's feature encoder: a strided Conv1d stack, GroupNorm (one group per channel) after the first
    conv, GELU, LayerNorm and a projection, over a waveform of run-time length."""

    def __init__(self):
        super().__init__()
        self.c0 = nn.Conv1d(1, 16, 10, 5, bias=False)
        self.norm = nn.GroupNorm(16, 16)
        self.convs = nn.ModuleList([nn.Conv1d(16, 16, 3, 2, bias=False) for _ in range(2)])
        self.grouped = nn.GroupNorm(4, 16)
        self.ln = nn.LayerNorm(16)
        self.proj = nn.Linear(16, 24)

    def forward(self, wav):
        x = F.gelu(self.norm(self.c0(wav[:, None])))
        for conv in self.convs:
            x = F.gelu(conv(x))
        return self.proj(self.ln(self.grouped(x).transpose(1, 2)))


@pytest.mark.parametrize("dynamo,opset", [(False, 17), (True, 18)])
def test_group_norm_over_a_run_time_length_agrees(dynamo, opset):
    """GroupNorm over a waveform whose length is known only at run time (dynamic batch and time): its
    RESHAPEs take shapes computed at run time (a static [N, G, -1] made a wrong shape)."""
    import torch_export_util as teu

    module = teu.seeded_module(Wav2VecFeatures)
    args = (torch.from_numpy(_floats(2, 400)),)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            dims = ({0: torch.export.Dim("batch", min=1, max=8), 1: torch.export.Dim("time", min=100, max=4000)},)
            model = torch.onnx.export(
                module,
                args,
                input_names=["wav"],
                output_names=["y"],
                opset_version=opset,
                dynamo=True,
                dynamic_shapes=dims,
            ).model_proto
        else:
            buffer = io.BytesIO()
            torch.onnx.export(
                module,
                args,
                buffer,
                input_names=["wav"],
                output_names=["y"],
                opset_version=opset,
                dynamo=False,
                dynamic_axes={"wav": {0: "b", 1: "t"}, "y": {0: "b", 1: "f"}},
            )
            model = onnx.load_from_string(buffer.getvalue())
    _agrees(model, [{"wav": _floats(b, t, seed=t)} for b, t in [(2, 400), (1, 731), (3, 256)]], 1e-4, 1e-4)


@pytest.mark.parametrize("opset,channels", [(18, 2), (21, 4)])
def test_group_normalization_over_a_run_time_length_agrees(opset, channels):
    """The ONNX GroupNormalization op (opset 18: per-group scale; 21: per-channel) over [N, C, T] with N and T
    known only at run time (a static [N, G, -1] RESHAPE made a wrong shape)."""
    model = make_model(
        [helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=2)],
        [("x", np.float32, ["N", 4, "T"])],
        [("y", np.float32, None)],
        [("s", _floats(channels) + 1), ("b", _floats(channels, seed=1))],
        opset=opset,
    )
    _agrees(model, [{"x": _floats(2, 4, 9, seed=2)}, {"x": _floats(1, 4, 5, seed=3)}], 1e-4, 1e-5)


# --- weight-only 4-bit (MatMulNBits) ------------------------------------------------------------------
def test_matmul_nbits_quantized_llama_block_agrees():
    """onnxruntime's MatMulNBitsQuantizer (block-wise 4-bit weights, com.microsoft MatMulNBits, as LLM exports
    are quantized) on the Llama block: its weights dequantized at conversion, so the lite runtime computes what
    onnxruntime's float path does."""
    nbits = pytest.importorskip("onnxruntime.quantization.matmul_nbits_quantizer")
    model = torch_export_util.export(
        torch_export_util.seeded_module(LlamaBlock), _tokens(2, 0), ["ids"], ["y"], False, 17, True
    )
    quantizer = nbits.MatMulNBitsQuantizer(model, block_size=16, is_symmetric=True)
    quantizer.process()
    quantized = quantizer.model.model
    assert any(n.op_type == "MatMulNBits" for n in quantized.graph.node)
    torch_export_util.check_agrees(quantized, _tokens, [2, 3], 1e-4, 1e-4)


@pytest.mark.parametrize(
    "bits,k,block,zero_points,bias", [(4, 20, 16, True, True), (8, 20, 16, True, False), (4, 32, 16, False, False)]
)
def test_matmul_nbits_agrees(bits, k, block, zero_points, bias):
    """MatMulNBits with packed zero points, a bias, 8-bit blocks and K not a multiple of the block size."""
    rng = np.random.default_rng(bits + k)
    n, blocks = 6, -(-k // block)
    inputs = ["a", "B", "s"]
    inits = [
        ("B", rng.integers(0, 256, (n, blocks, block * bits // 8)).astype(np.uint8)),
        ("s", (rng.random(n * blocks) * 0.1 + 0.01).astype(np.float32)),
    ]
    if zero_points:
        inputs.append("zp")
        inits.append(("zp", rng.integers(0, 256, n * -(-blocks * bits // 8)).astype(np.uint8)))
    if bias:
        inputs += [""] * (5 - len(inputs)) + ["bias"]
        inits.append(("bias", _floats(n)))
    node = helper.make_node("MatMulNBits", inputs, ["y"], domain="com.microsoft", K=k, N=n, bits=bits, block_size=block)
    model = make_model([node], [("a", np.float32, ["M", 3, k])], [("y", np.float32, None)], inits, opset=17)
    model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    _agrees(model, [{"a": _floats(2, 3, k, seed=1)}, {"a": _floats(1, 3, k, seed=2)}], 1e-4, 1e-4)


# --- onnxruntime.transformers' fused Attention --------------------------------------------------------
def _ms_attention_model(mask_rank, attention_bias, opset, **attrs):
    hidden, heads = 16, 4
    inputs = ["x", "w", "b", "m" if mask_rank else ""] + (["", "ab"] if attention_bias else [])
    graph_inputs = [("x", np.float32, ["B", "S", hidden])]
    if mask_rank:
        graph_inputs.append(("m", np.int32, ["B", "S", "S"][:mask_rank]))
    if attention_bias:
        graph_inputs.append(("ab", np.float32, ["B", heads, "S", "S"]))
    inits = [("w", _floats(hidden, 3 * hidden) * 0.3), ("b", _floats(3 * hidden, seed=1))]
    node = helper.make_node("Attention", inputs, ["y"], domain="com.microsoft", num_heads=heads, **attrs)
    model = make_model([node], graph_inputs, [("y", np.float32, None)], inits, opset=opset)
    model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    return model


@pytest.mark.parametrize("mask_rank,attention_bias,opset", [(2, False, 17), (3, True, 17), (2, False, 11)])
def test_onnxruntime_attention_agrees(mask_rank, attention_bias, opset):
    """com.microsoft Attention (what onnxruntime.transformers' optimizer fuses BERT's self-attention into):
    packed QKV weights and bias, a 1/0 key mask (2-D) or a 3-D mask, an additive attention_bias; dynamic batch
    and sequence, against onnxruntime's kernel."""
    model = _ms_attention_model(mask_rank, attention_bias, opset)
    rng = np.random.default_rng(mask_rank)

    def feeds(b, s):
        feed = {"x": _floats(b, s, 16, seed=s)}
        mask = np.ones((b, s) if mask_rank == 2 else (b, s, s), np.int32)
        mask[0, ..., -2:] = 0  # the last two keys of the first sequence
        feed["m"] = mask
        if attention_bias:
            feed["ab"] = rng.standard_normal((b, 4, s, s)).astype(np.float32)
        return feed

    _agrees(model, [feeds(2, 5), feeds(3, 7)], 1e-4, 2e-4)


@pytest.mark.parametrize(
    "mask_rank,attrs,match",
    [
        (2, {"do_rotary": 1}, "do_rotary=1 is not supported"),
        (2, {"unidirectional": 1}, "unidirectional=1 is not supported"),
    ],
)
def test_onnxruntime_attention_refusals(mask_rank, attrs, match):
    from converters.errors import ConversionError

    with pytest.raises(ConversionError, match=rf"'y' \(Attention\): {match}"):
        onnx_import.convert(_ms_attention_model(mask_rank, False, 17, **attrs))


@pytest.mark.parametrize("opset,segments,position_ids", [(17, True, False), (11, False, False), (13, True, True)])
def test_onnxruntime_fused_bert_layer_agrees(opset, segments, position_ids):
    """A BERT layer as onnxruntime.transformers' optimizer writes it: EmbedLayerNormalization (word, position,
    segment embeddings; its mask_index, the key lengths, and embedding sum outputs), Attention reading the 1-D
    mask_index, SkipLayerNormalization; dynamic batch and sequence, against onnxruntime's kernels."""
    hidden, vocab = 16, 30
    embed_inputs = ["ids", "seg" if segments else "", "words", "positions", "segment_table" if segments else ""]
    embed_inputs += ["gamma", "beta", "mask"] + (["pos"] if position_ids else [])
    nodes = [
        helper.make_node("EmbedLayerNormalization", embed_inputs, ["emb", "mask_index", "sum"], domain="com.microsoft"),
        helper.make_node("Attention", ["emb", "w", "b", "mask_index"], ["att"], domain="com.microsoft", num_heads=4),
        helper.make_node("SkipLayerNormalization", ["att", "emb", "gamma", "beta"], ["y"], domain="com.microsoft"),
    ]
    graph_inputs = [("ids", np.int32, ["B", "S"])] + ([("seg", np.int32, ["B", "S"])] if segments else [])
    graph_inputs += [("mask", np.int32, ["B", "S"])] + ([("pos", np.int32, ["B", "S"])] if position_ids else [])
    inits = [("words", _floats(vocab, hidden)), ("positions", _floats(12, hidden, seed=1))]
    inits += [("gamma", _floats(hidden, seed=2) + 1), ("beta", _floats(hidden, seed=3))]
    inits += [("w", _floats(hidden, 3 * hidden, seed=4) * 0.3), ("b", _floats(3 * hidden, seed=5))]
    inits += [("segment_table", _floats(2, hidden, seed=6))] if segments else []
    outputs = [("y", np.float32, None), ("mask_index", np.int32, None), ("sum", np.float32, None)]
    model = make_model(nodes, graph_inputs, outputs, inits, opset=opset)
    model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    rng = np.random.default_rng(opset)

    def feeds(b, s):
        mask = np.ones((b, s), np.int32)
        mask[0, -2:] = 0
        feed = {"ids": rng.integers(0, vocab, (b, s)).astype(np.int32), "mask": mask}
        if segments:
            feed["seg"] = rng.integers(0, 2, (b, s)).astype(np.int32)
        if position_ids:
            feed["pos"] = np.tile(np.arange(s, dtype=np.int32)[::-1], (b, 1))
        return feed

    _agrees(model, [feeds(2, 5), feeds(3, 7)], 1e-4, 2e-4)


@pytest.mark.parametrize("cross,mask_rank,attention_bias", [(True, 1, False), (False, 2, True)])
def test_onnxruntime_multi_head_attention_agrees(cross, mask_rank, attention_bias):
    """com.microsoft MultiHeadAttention of separate query, key and value with their packed bias: cross attention
    over a key sequence of another run-time length with 1-D key lengths, or self attention with a 2-D key
    padding mask and attention_bias, against onnxruntime's kernel."""
    hidden, heads = 16, 4
    keys = "L" if cross else "S"
    inputs = ["q", "k", "v", "b", "m"] + (["ab"] if attention_bias else [])
    graph_inputs = [("q", np.float32, ["B", "S", hidden])]
    graph_inputs += [("k", np.float32, ["B", keys, hidden]), ("v", np.float32, ["B", keys, hidden])]
    graph_inputs += [("m", np.int32, ["B", keys][:mask_rank])]
    graph_inputs += [("ab", np.float32, ["B", heads, "S", keys])] if attention_bias else []
    node = helper.make_node("MultiHeadAttention", inputs, ["y"], domain="com.microsoft", num_heads=heads)
    model = make_model([node], graph_inputs, [("y", np.float32, None)], [("b", _floats(3 * hidden))], opset=17)
    model.opset_import.append(helper.make_opsetid("com.microsoft", 1))

    def feeds(b, s, length):
        length = length if cross else s
        feed = {"q": _floats(b, s, hidden, seed=1), "k": _floats(b, length, hidden, seed=2)}
        feed["v"] = _floats(b, length, hidden, seed=3)
        if mask_rank == 1:
            feed["m"] = np.array([length - 2] + [length] * (b - 1), np.int32)
        else:
            feed["m"] = np.ones((b, length), np.int32)
            feed["m"][0, -2:] = 0
        if attention_bias:
            feed["ab"] = _floats(b, heads, s, length, seed=4)
        return feed

    _agrees(model, [feeds(2, 5, 6), feeds(3, 4, 8)], 1e-4, 2e-4)

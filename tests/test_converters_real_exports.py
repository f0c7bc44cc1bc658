"""Real PyTorch exports through the ONNX importer and the lite runtime.

Models written from their papers' architectures (random weights, eval
mode, small sizes) are exported with torch.onnx.export, both exporters:
the TorchScript one (dynamo=False, opsets 13/14 with a dynamic batch and 17
static) and the dynamo one (dynamo=True, opset 18, needs onnxscript),
converted with `onnx_import.convert`, run on the lite runtime and compared
with onnxruntime on the same file (rtol = atol = 1e-4), at batch 2 and,
for a dynamic batch, at batch 3 too. What such exports need: Shape of a
tensor with a dynamic batch (folded twice, at the static shapes and at
probe dims; `shapes.PROBE_DIM`), Reshape/Expand/Resize sizes computed from
it, the cls token Expanded to the batch, zero LSTM states Expanded to
the batch, Einsum over the batch, GlobalAveragePool of 1-D inputs.

The dynamo exports take seconds each: by default one model runs with it
(the GRU: its zero initial state is a constant Expanded to the batch);
TW_REAL_EXPORTS_FULL=1 runs every model with every exporter and opset.
"""

import io
import math
import os
import warnings

import numpy as np
import pytest
import torch_export_util

from converters import lite_runner, onnx_import
from converters.cli import main as cli_main
from converters.errors import ConversionError

torch = pytest.importorskip("torch")
ort = pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")
nn = torch.nn
F = torch.nn.functional
pytestmark = pytest.mark.skipif(not lite_runner.available(), reason="bazel build //lite/c:libtensorweave_lite.so first")
RTOL, ATOL = 1e-4, 1e-4
FULL = os.environ.get("TW_REAL_EXPORTS_FULL") == "1"


# --- models ---------------------------------------------------------------------------------------
class SE(nn.Module):
    def __init__(self, c, r, gate):
        super().__init__()
        self.fc1 = nn.Conv2d(c, r, 1)
        self.fc2 = nn.Conv2d(r, c, 1)
        self.act = nn.SiLU() if gate == "sigmoid" else nn.ReLU()
        self.gate = nn.Sigmoid() if gate == "sigmoid" else nn.Hardsigmoid()

    def forward(self, x):
        s = F.adaptive_avg_pool2d(x, 1)
        return x * self.gate(self.fc2(self.act(self.fc1(s))))


class MBConv(nn.Module):
    def __init__(self, cin, cout, expand, k, stride, act, gate):
        super().__init__()
        mid = cin * expand
        layers = []
        if expand != 1:
            layers += [nn.Conv2d(cin, mid, 1, bias=False), nn.BatchNorm2d(mid), act()]
        layers += [nn.Conv2d(mid, mid, k, stride, k // 2, groups=mid, bias=False), nn.BatchNorm2d(mid), act()]
        layers += [SE(mid, max(1, cin // 4), gate)]
        layers += [nn.Conv2d(mid, cout, 1, bias=False), nn.BatchNorm2d(cout)]
        self.block = nn.Sequential(*layers)
        self.res = stride == 1 and cin == cout

    def forward(self, x):
        y = self.block(x)
        return x + y if self.res else y


class EfficientNetLike(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.SiLU())
        self.blocks = nn.Sequential(
            MBConv(16, 8, 1, 3, 1, nn.SiLU, "sigmoid"),
            MBConv(8, 12, 6, 3, 2, nn.SiLU, "sigmoid"),
            MBConv(12, 12, 6, 5, 1, nn.SiLU, "sigmoid"),
            MBConv(12, 20, 6, 5, 2, nn.SiLU, "sigmoid"),
        )
        self.head = nn.Sequential(nn.Conv2d(20, 64, 1, bias=False), nn.BatchNorm2d(64), nn.SiLU())
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        x = self.head(self.blocks(self.stem(x)))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class MobileNetV3Like(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.Hardswish())
        self.blocks = nn.Sequential(
            MBConv(16, 16, 1, 3, 2, nn.ReLU, "hard"),
            MBConv(16, 24, 4, 3, 2, nn.Hardswish, "hard"),
            MBConv(24, 24, 3, 5, 1, nn.Hardswish, "hard"),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Linear(24, 64), nn.Hardswish(), nn.Dropout(0.2), nn.Linear(64, 10))

    def forward(self, x):
        return self.classifier(torch.flatten(self.pool(self.blocks(self.stem(x))), 1))


class YoloHead(nn.Module):
    """Two scales, FPN-style: nearest upsample by nn.Upsample, bilinear by
    F.interpolate, Concat, per-anchor Sigmoid/chunk decoding to boxes."""

    def __init__(self, na=3, nc=4):
        super().__init__()
        self.na, self.no = na, nc + 5
        self.c1 = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.LeakyReLU(0.1))
        self.c2 = nn.Sequential(nn.Conv2d(8, 16, 3, 2, 1), nn.LeakyReLU(0.1))
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.lat = nn.Conv2d(16, 16, 1)
        self.d1 = nn.Conv2d(16, na * self.no, 1)
        self.d2 = nn.Conv2d(16, na * self.no, 1)

    def _decode(self, p, stride):
        b, _, h, w = p.shape
        p = p.view(b, self.na, self.no, h, w).permute(0, 1, 3, 4, 2)
        xy, wh, conf = p.sigmoid().split((2, 2, self.no - 4), dim=-1)
        gy, gx = torch.meshgrid(
            torch.arange(h, dtype=torch.float32), torch.arange(w, dtype=torch.float32), indexing="ij"
        )
        grid = torch.stack((gx, gy), -1)
        xy = (xy * 2 - 0.5 + grid) * stride
        wh = (wh * 2) ** 2 * 4.0
        return torch.cat((xy, wh, conf), -1).reshape(b, -1, self.no)

    def forward(self, x):
        f1 = self.c1(x)
        f2 = self.c2(f1)
        a, _c = self.up(f2).chunk(2, dim=1)
        bil = F.interpolate(f2, scale_factor=2.0, mode="bilinear", align_corners=False)
        m = self.lat(torch.cat([a + bil[:, :8], f1], 1))
        return torch.cat([self._decode(self.d1(m), 2), self._decode(self.d2(f2), 4)], 1)


class UNet(nn.Module):
    def __init__(self):
        super().__init__()

        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, 1, 1), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

        self.e1, self.e2, self.e3 = block(3, 8), block(8, 16), block(16, 32)
        self.up2 = nn.ConvTranspose2d(32, 16, 2, 2)
        self.d2 = block(32, 16)
        self.d1 = block(16 + 8, 8)
        self.out = nn.Conv2d(8, 2, 1)

    def forward(self, x):
        e1 = self.e1(x)
        e2 = self.e2(F.max_pool2d(e1, 2))
        e3 = self.e3(F.max_pool2d(e2, 2))
        d2 = self.d2(torch.cat([self.up2(e3), e2], 1))
        u1 = F.interpolate(d2, scale_factor=2.0, mode="bilinear", align_corners=True)
        d1 = self.d1(torch.cat([u1, e1], 1))
        y = self.out(d1)
        return y + F.interpolate(F.avg_pool2d(y, 4), size=y.shape[-2:], mode="bilinear", align_corners=False)


class ViTTiny(nn.Module):
    def __init__(self, dim=32, heads=4, depth=2, patch=4, img=16, ncls=10, sdpa=False):
        super().__init__()
        self.sdpa, self.heads = sdpa, heads
        self.patch = nn.Conv2d(3, dim, patch, patch)
        n = (img // patch) ** 2
        self.cls = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, n + 1, dim) * 0.02)
        self.ln1 = nn.ModuleList([nn.LayerNorm(dim) for _ in range(depth)])
        self.ln2 = nn.ModuleList([nn.LayerNorm(dim) for _ in range(depth)])
        self.attn = nn.ModuleList([nn.MultiheadAttention(dim, heads, batch_first=True) for _ in range(depth)])
        self.qkv = nn.ModuleList([nn.Linear(dim, 3 * dim) for _ in range(depth)])
        self.proj = nn.ModuleList([nn.Linear(dim, dim) for _ in range(depth)])
        self.mlp = nn.ModuleList(
            [nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim)) for _ in range(depth)]
        )
        self.norm = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, ncls)

    def _attend(self, i, x):
        if not self.sdpa:
            return self.attn[i](x, x, x, need_weights=False)[0]
        b, n, d = x.shape
        q, k, v = self.qkv[i](x).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v)
        return self.proj[i](y.transpose(1, 2).reshape(b, n, d))

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], 1) + self.pos
        for i in range(len(self.ln1)):
            x = x + self._attend(i, self.ln1[i](x))
            x = x + self.mlp[i](self.ln2[i](x))
        return self.fc(self.norm(x)[:, 0])


class BertLike(nn.Module):
    def __init__(self, vocab=50, dim=32, heads=4, depth=2, maxlen=16):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.typ = nn.Embedding(2, dim)
        self.pos = nn.Embedding(maxlen, dim)
        self.ln = nn.LayerNorm(dim, eps=1e-12)
        layer = nn.TransformerEncoderLayer(dim, heads, 2 * dim, dropout=0.0, activation="gelu", batch_first=True)
        self.enc = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.pool = nn.Linear(dim, dim)

    def forward(self, ids, mask, types):
        pos = torch.arange(ids.shape[1]).unsqueeze(0)
        x = self.ln(self.tok(ids) + self.typ(types) + self.pos(pos))
        # HF-style additive mask, broadcast over heads and queries.
        add = (1.0 - mask[:, None, None, :].to(x.dtype)) * -10000.0
        h = x
        for layer in self.enc.layers:
            a = layer.self_attn
            b, n, d = h.shape
            hd = d // a.num_heads
            qkv = F.linear(h, a.in_proj_weight, a.in_proj_bias).view(b, n, 3, a.num_heads, hd).permute(2, 0, 3, 1, 4)
            s = torch.matmul(qkv[0], qkv[1].transpose(-1, -2)) / math.sqrt(hd) + add
            y = torch.matmul(s.softmax(-1), qkv[2]).transpose(1, 2).reshape(b, n, d)
            h = layer.norm1(h + a.out_proj(y))
            h = layer.norm2(h + layer.linear2(F.gelu(layer.linear1(h))))
        return h, torch.tanh(self.pool(h[:, 0]))


class KWS(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv1d(10, 16, 5, padding=2),
            nn.BatchNorm1d(16),
            nn.ReLU(),
            nn.MaxPool1d(2),
            nn.Conv1d(16, 24, 3, padding=1, groups=8),
            nn.BatchNorm1d(24),
            nn.ReLU(),
            nn.MaxPool1d(3, 2, 1),
            nn.Conv1d(24, 32, 3, dilation=2),
            nn.BatchNorm1d(32),
            nn.ReLU(),
            nn.AdaptiveAvgPool1d(1),
        )
        self.fc = nn.Linear(32, 12)

    def forward(self, x):
        return self.fc(self.net(x).flatten(1))


class BiLSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(12, 16, num_layers=2, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(32, 5)

    def forward(self, x):
        y, (h, _c) = self.lstm(x)
        return self.fc(y[:, -1]), h


class GRUClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(12, 20, batch_first=True)
        self.fc = nn.Linear(20, 4)

    def forward(self, x):
        _y, h = self.gru(x)
        return self.fc(h[-1]).log_softmax(-1)


class TinyGPT(nn.Module):
    def __init__(self, vocab=40, dim=32, heads=4, maxlen=16):
        super().__init__()
        self.heads = heads
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.randn(1, maxlen, dim) * 0.02)
        self.ln1, self.ln2, self.lnf = nn.LayerNorm(dim), nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(approximate="tanh"), nn.Linear(4 * dim, dim))
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, ids):
        b, t = ids.shape
        x = self.tok(ids) + self.pos[:, :t]
        h = self.ln1(x)
        q, k, v = self.qkv(h).split(h.shape[-1], dim=2)
        hd = h.shape[-1] // self.heads
        q, k, v = (z.view(b, t, self.heads, hd).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
        causal = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
        att = att.masked_fill(causal, float("-inf")).softmax(-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(b, t, -1))
        x = x + self.mlp(self.ln2(x))
        return self.head(self.lnf(x))


class NormShuffleEinsum(nn.Module):
    """GroupNorm, InstanceNorm2d (affine), PixelShuffle and einsum."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 16, 3, 1, 1)
        self.gn = nn.GroupNorm(4, 16)
        self.c2 = nn.Conv2d(16, 12, 3, 1, 1)
        self.inorm = nn.InstanceNorm2d(12, affine=True)
        self.ps = nn.PixelShuffle(2)
        self.w = nn.Parameter(torch.randn(3, 5) * 0.3)

    def forward(self, x):
        y = self.ps(F.relu(self.inorm(self.c2(F.silu(self.gn(self.c1(x)))))))
        return torch.einsum("bchw,cd->bdhw", y, self.w), torch.einsum("bchw,bdhw->bcd", y, y)


class FillToBatch(nn.Module):
    """torch.full / torch.ones of the batch's size (ConstantOfShape of a
    run-time shape), a row prepended as a cls token would be."""

    def forward(self, x):
        row = torch.full((x.shape[0], 1, x.shape[2]), 0.5)
        mask = torch.ones(x.shape[0], x.shape[1] + 1, dtype=torch.int64)
        return torch.cat([row, x], 1) * mask.unsqueeze(-1).float()


def _ints(shape, high, seed):
    return torch.randint(0, high, shape, generator=torch.Generator().manual_seed(seed))


def _bert_inputs(batch, seed):
    mask = torch.ones(batch, 10, dtype=torch.int64)
    mask[-1, 6:] = 0
    return (_ints((batch, 10), 50, seed), mask, _ints((batch, 10), 2, seed + 1))


def _floats(*shape):
    return lambda batch, seed: (torch.randn(batch, *shape, generator=torch.Generator().manual_seed(seed)),)


# name -> (module factory, inputs(batch, seed), input names, output names)
MODELS = {
    "efficientnet": (EfficientNetLike, _floats(3, 32, 32), ["x"], ["y"]),
    "mobilenetv3": (MobileNetV3Like, _floats(3, 32, 32), ["x"], ["y"]),
    "yolo_head": (YoloHead, _floats(3, 32, 32), ["x"], ["boxes"]),
    "unet": (UNet, _floats(3, 16, 16), ["x"], ["y"]),
    "vit_mha": (lambda: ViTTiny(sdpa=False), _floats(3, 16, 16), ["x"], ["y"]),
    "vit_sdpa": (lambda: ViTTiny(sdpa=True), _floats(3, 16, 16), ["x"], ["y"]),
    "bert": (BertLike, _bert_inputs, ["input_ids", "attention_mask", "token_type_ids"], ["hidden", "pooled"]),
    "kws": (KWS, _floats(10, 49), ["x"], ["y"]),
    "bilstm": (BiLSTM, _floats(7, 12), ["x"], ["y", "h"]),
    "gru": (GRUClassifier, _floats(7, 12), ["x"], ["y"]),
    "gpt": (TinyGPT, lambda batch, seed: (_ints((batch, 12), 40, seed),), ["ids"], ["logits"]),
    "norm_shuffle_einsum": (NormShuffleEinsum, _floats(3, 8, 8), ["x"], ["y", "gram"]),
    "fill_to_batch": (FillToBatch, _floats(5, 4), ["x"], ["y"]),
}
# Exports torch itself refuses below opset 14 (triu, scaled_dot_product_attention,
# which nn.MultiheadAttention calls).
NEEDS_OPSET_14 = {"gpt", "vit_mha", "vit_sdpa"}


def _module(name):
    return torch_export_util.seeded_module(MODELS[name][0])


def export(name, dynamo, opset, dynamic):
    """The ONNX model of MODELS[name] as torch.onnx.export writes it."""
    _, inputs, input_names, output_names = MODELS[name]
    return torch_export_util.export(_module(name), inputs(2, 0), input_names, output_names, dynamo, opset, dynamic)


def check_agrees(name, model, batches):
    """Converts `model`, runs it on the lite runtime (1 and 2 threads) at each batch size and compares with
    onnxruntime; returns the largest absolute difference."""
    return torch_export_util.check_agrees(model, MODELS[name][1], batches, RTOL, ATOL, check_dtype=False)


def _cases():
    for name in MODELS:
        yield name, False, 14 if name in NEEDS_OPSET_14 else 13, True
        yield name, False, 17, False
        if FULL:
            yield name, False, 17, True
            yield name, True, 18, True
            yield name, True, 18, False
    if not FULL:  # the dynamo exporter's own patterns, on the models that show them
        yield "gru", True, 18, True  # zero initial state Expanded to the batch


@pytest.mark.parametrize(
    "name,dynamo,opset,dynamic",
    list(_cases()),
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_pytorch_export_agrees_with_onnxruntime(name, dynamo, opset, dynamic):
    model = export(name, dynamo, opset, dynamic)
    check_agrees(name, model, [2, 3] if dynamic else [2])


# --- failure paths and the CLI -------------------------------------------------------------------
class _BatchAsValue(nn.Module):
    def forward(self, x):
        return x * x.shape[0]


def test_a_dynamic_dim_used_as_a_value_is_computed_at_run_time():
    """x * x.shape[0] with a dynamic batch: the batch size is data, computed
    by the lite runtime (SHAPE, GATHER, CAST) at each batch."""
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            _BatchAsValue(), (torch.ones(2, 3),), buffer, input_names=["x"], output_names=["y"],
            dynamic_axes={"x": {0: "b"}, "y": {0: "b"}}, opset_version=17, dynamo=False,
        )  # fmt: skip
    runner = lite_runner.LiteRunner(onnx_import.convert(buffer.getvalue()))
    for b in (1, 2, 5):
        x = np.arange(3 * b, dtype=np.float32).reshape(b, 3)
        np.testing.assert_array_equal(runner.run({"x": x})["y"], x * b)


def test_static_export_of_the_same_module_converts():
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            _BatchAsValue(), (torch.ones(2, 3),), buffer, input_names=["x"], opset_version=17, dynamo=False
        )
    model = onnx.load_from_string(buffer.getvalue())
    runner = lite_runner.LiteRunner(onnx_import.convert(model))
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(runner.run({"x": x})[model.graph.output[0].name], x * 2)


def test_cli_converts_a_dynamic_batch_export(tmp_path):
    model = export("efficientnet", False, 13, True)
    onnx_path, twl_path = str(tmp_path / "m.onnx"), str(tmp_path / "m.twl")
    onnx.save(model, onnx_path)
    assert cli_main(["--input", onnx_path, "--output", twl_path]) == 0
    with open(twl_path, "rb") as f:
        runner = lite_runner.LiteRunner(f.read())
    x = torch.randn(4, 3, 32, 32, generator=torch.Generator().manual_seed(4)).numpy()
    (want,) = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"]).run(None, {"x": x})
    np.testing.assert_allclose(runner.run({"x": x})["y"], want, rtol=RTOL, atol=ATOL)


def _dynamic_batch_model(nodes, x_shape, inits=()):
    from onnx import TensorProto, helper, numpy_helper

    g = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", *x_shape[1:]])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.asarray(v), n) for n, v in inits],
    )
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def test_einsum_summing_the_run_time_batch_is_refused():
    from onnx import helper

    model = _dynamic_batch_model([helper.make_node("Einsum", ["x"], ["y"], equation="bc->c")], ["b", 4])
    with pytest.raises(
        ConversionError, match=r"'y' \(Einsum\): a sum over index 'b', whose size is known only at run time"
    ):
        onnx_import.convert(model)


def test_expand_to_twice_the_batch_agrees_at_every_batch():
    """Expand of a constant to [2 * batch, 4]: a run-time size the lite
    runtime computes (SHAPE, MUL, CONCATENATION into BROADCAST_TO)."""
    from onnx import helper

    nodes = [
        helper.make_node("Shape", ["x"], ["s"], end=1),
        helper.make_node("Mul", ["s", "two"], ["s2"]),
        helper.make_node("Concat", ["s2", "four"], ["shape"], axis=0),
        helper.make_node("Expand", ["c", "shape"], ["y"]),
    ]
    c = np.arange(4, dtype=np.float32).reshape(1, 4)
    inits = [("two", np.array([2], np.int64)), ("four", np.array([4], np.int64)), ("c", c)]
    runner = lite_runner.LiteRunner(onnx_import.convert(_dynamic_batch_model(nodes, ["b", 4], inits)))
    for b in (1, 3):
        got = runner.run({"x": np.zeros([b, 4], np.float32)})["y"]
        np.testing.assert_array_equal(got, np.broadcast_to(c, [2 * b, 4]))


def test_expand_to_the_batch_agrees_at_every_batch():
    """Expand of a constant row to [batch, 4] (the cls-token pattern) at
    batch 1, 2 and 5, against onnxruntime."""
    from onnx import helper

    nodes = [
        helper.make_node("Shape", ["x"], ["s"], end=1),
        helper.make_node("Concat", ["s", "four"], ["shape"], axis=0),
        helper.make_node("Expand", ["c", "shape"], ["e"]),
        helper.make_node("Add", ["e", "x"], ["y"]),
    ]
    row = np.arange(4, dtype=np.float32).reshape(1, 4)
    model = _dynamic_batch_model(nodes, ["b", 4], [("four", np.array([4], np.int64)), ("c", row)])
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    runner = lite_runner.LiteRunner(onnx_import.convert(model))
    for batch in (1, 2, 5):
        x = np.random.default_rng(batch).standard_normal([batch, 4]).astype(np.float32)
        (want,) = session.run(None, {"x": x})
        np.testing.assert_allclose(runner.run({"x": x})["y"], want, rtol=RTOL, atol=ATOL)

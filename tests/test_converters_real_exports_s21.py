"""Real PyTorch exports through the ONNX importer and the lite runtime, beyond those of
tests/test_converters_real_exports.py and _s18.py: a 3-D CNN for video (Conv3d with depth
padding, stride and dilation, a BatchNorm3d folded into it, a (2+1)-D separable block), a
MobileViT block (unfold to patches, attention, fold back), an ESPCN super-resolution net
(PixelShuffle / PixelUnshuffle), a style-transfer net (reflect padding, InstanceNorm),
nn.MultiheadAttention with key_padding_mask and its attention weights, a pre-norm
nn.TransformerEncoder with a padding mask and a YOLOv8-style head (split, SiLU, SPPF, the
distribution focal loss decode). Each is exported with torch.onnx.export (TorchScript at
opset 17 with a dynamic batch; the dynamo exporter at opset 18 for the 3-D CNN), converted
with `onnx_import.convert`, run on the lite runtime and compared with onnxruntime.
"""

import pytest
import torch_export_util

from converters import lite_runner

torch = pytest.importorskip("torch")
pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")
nn = torch.nn
F = torch.nn.functional
pytestmark = pytest.mark.skipif(not lite_runner.available(), reason="bazel build //lite/c:libtensorweave_lite.so first")
RTOL, ATOL = 1e-4, 1e-4


class Video(nn.Module):
    """A small 3-D CNN: a strided stem with a BatchNorm3d (folded into the conv), a conv strided in depth, one
    dilated in depth and height, and an R(2+1)D-style separable pair."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv3d(3, 8, (3, 5, 5), stride=(1, 2, 2), padding=(1, 2, 2), bias=False), nn.BatchNorm3d(8), nn.ReLU()
        )
        self.c2 = nn.Conv3d(8, 8, 3, stride=2, padding=1)
        self.c3 = nn.Conv3d(8, 6, (2, 3, 1), padding=(0, 2, 0), dilation=(2, 2, 1))
        self.sep = nn.Sequential(
            nn.Conv3d(6, 6, (1, 3, 3), padding=(0, 1, 1)), nn.Conv3d(6, 4, (3, 1, 1), padding=(1, 0, 0))
        )
        self.fc = nn.Linear(4, 5)

    def forward(self, x):
        y = self.sep(F.relu(self.c3(F.relu(self.c2(self.stem(x))))))
        return self.fc(F.adaptive_avg_pool3d(y, 1).flatten(1)) * 10.0


class MobileViTBlock(nn.Module):
    def __init__(self, c=8, d=16, p=2):
        super().__init__()
        self.p = p
        self.local = nn.Sequential(nn.Conv2d(c, c, 3, padding=1), nn.SiLU(), nn.Conv2d(c, d, 1))
        self.norm = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, 2, batch_first=True)
        self.mlp = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 2 * d), nn.SiLU(), nn.Linear(2 * d, d))
        self.proj = nn.Conv2d(d, c, 1)
        self.fuse = nn.Conv2d(2 * c, c, 3, padding=1)

    def forward(self, x):
        y = self.local(x)
        b, d, h, w = y.shape
        p = self.p
        y = y.reshape(b, d, h // p, p, w // p, p).permute(0, 3, 5, 2, 4, 1).reshape(b * p * p, (h // p) * (w // p), d)
        n = self.norm(y)
        y = y + self.attn(n, n, n, need_weights=False)[0]
        y = y + self.mlp(y)
        y = y.reshape(b, p, p, h // p, w // p, d).permute(0, 5, 3, 1, 4, 2).reshape(b, d, h, w)
        return self.fuse(torch.cat([x, self.proj(y)], 1))


class ESPCN(nn.Module):
    def __init__(self, r=3):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(1, 16, 5, padding=2),
            nn.Tanh(),
            nn.Conv2d(16, 8, 3, padding=1),
            nn.Tanh(),
            nn.Conv2d(8, r * r, 3, padding=1),
            nn.PixelShuffle(r),
        )
        self.down = nn.PixelUnshuffle(3)

    def forward(self, x):
        y = torch.sigmoid(self.net(x))
        return y, self.down(y)


class StyleNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 9, padding=4, padding_mode="reflect")
        self.n1 = nn.InstanceNorm2d(8, affine=True)
        self.c2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.n2 = nn.InstanceNorm2d(16, affine=True)
        self.r1 = nn.Conv2d(16, 16, 3, padding=1, padding_mode="reflect")
        self.rn = nn.InstanceNorm2d(16)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.c3 = nn.Conv2d(16, 8, 3, padding=1)
        self.n3 = nn.InstanceNorm2d(8, affine=True)
        self.out = nn.Conv2d(8, 3, 9, padding=4)

    def forward(self, x):
        y = F.relu(self.n1(self.c1(x)))
        y = F.relu(self.n2(self.c2(y)))
        y = y + self.rn(self.r1(y))
        y = F.relu(self.n3(self.c3(self.up(y))))
        return torch.tanh(self.out(y))


class PaddedAttention(nn.Module):
    """nn.MultiheadAttention over token embeddings with key_padding_mask (and its averaged weights), then a
    masked mean; and a pre-norm nn.TransformerEncoder given the same mask."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 16)
        self.mha = nn.MultiheadAttention(16, 4, batch_first=True)
        layer = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True, norm_first=True)
        self.enc = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
        self.out = nn.Linear(16, 3)

    def forward(self, tokens):
        pad = tokens == 0
        e = self.emb(tokens)
        y, weights = self.mha(e, e, e, key_padding_mask=pad)
        y = y.masked_fill(pad[..., None], 0.0)
        pooled = y.sum(1) / (~pad).sum(1, keepdim=True).clamp(min=1)
        return self.out(pooled) + self.out(self.enc(e, src_key_padding_mask=pad)[:, 0]), weights


class YoloV8Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.SiLU())
        self.c2f = nn.Conv2d(16, 32, 1)
        self.m = nn.Sequential(nn.Conv2d(16, 16, 3, padding=1), nn.SiLU())
        self.down = nn.Sequential(nn.Conv2d(48, 32, 3, 2, 1), nn.SiLU())
        self.sppf = nn.MaxPool2d(5, 1, 2)
        self.up = nn.Upsample(scale_factor=2.0, mode="nearest")
        self.det = nn.Conv2d(64 + 48, 4 * 4 + 5, 1)

    def forward(self, x):
        y = self.stem(x)
        a, b = self.c2f(y).split((16, 16), 1)
        y = torch.cat([a, b, self.m(b)], 1)
        z = self.down(y)
        f = torch.cat([self.up(torch.cat([z, self.sppf(z)], 1)), y], 1)
        box, cls = self.det(f).flatten(2).split((16, 5), 1)
        box = box.view(box.shape[0], 4, 4, -1).transpose(2, 1).softmax(1)
        box = (box * torch.arange(4, dtype=torch.float32).view(1, 4, 1, 1)).sum(1)
        return torch.cat([box, cls.sigmoid()], 1)


def _floats(*shape, scale=1.0):
    return lambda batch, seed: (torch.randn(batch, *shape, generator=torch.Generator().manual_seed(seed)) * scale,)


def _padded_tokens(batch, seed):
    tokens = torch.randint(1, 20, (batch, 7), generator=torch.Generator().manual_seed(seed))
    tokens[0, 4:] = 0
    tokens[-1, 6:] = 0
    return (tokens,)


# name -> (module factory, inputs(batch, seed), input names, output names)
MODELS = {
    "video_3d_cnn": (Video, _floats(3, 6, 12, 12), ["x"], ["y"]),
    "mobilevit": (MobileViTBlock, _floats(8, 8, 8), ["x"], ["y"]),
    "espcn": (ESPCN, lambda batch, seed: (_floats(1, 9, 9)(batch, seed)[0].sigmoid(),), ["x"], ["y", "z"]),
    "style_transfer": (StyleNet, _floats(3, 16, 16, scale=50.0), ["x"], ["y"]),
    "padded_attention": (PaddedAttention, _padded_tokens, ["tokens"], ["y", "weights"]),
    "yolov8_head": (YoloV8Head, _floats(3, 16, 16), ["x"], ["y"]),
}
CASES = [(name, False, 17, True) for name in MODELS] + [("video_3d_cnn", True, 18, False)]


@pytest.mark.parametrize("name,dynamo,opset,dynamic", CASES, ids=lambda v: v if isinstance(v, str) else None)
def test_pytorch_export_agrees_with_onnxruntime(name, dynamo, opset, dynamic):
    cls, inputs, input_names, output_names = MODELS[name]
    module = torch_export_util.seeded_module(cls)
    model = torch_export_util.export(module, inputs(2, 0), input_names, output_names, dynamo, opset, dynamic)
    batches = [2, 3] if dynamic else [2]
    torch_export_util.check_agrees(model, inputs, batches, RTOL, ATOL)


@pytest.mark.parametrize(
    "make,shape",
    [
        (lambda: nn.Conv3d(4, 6, 3, padding=1, groups=2), (2, 4, 5, 5, 5)),
        (lambda: nn.Conv3d(4, 4, (3, 1, 3), stride=(1, 2, 1), groups=4), (2, 4, 5, 6, 5)),
        (lambda: nn.ConvTranspose3d(4, 6, (2, 3, 3), stride=(1, 2, 2), padding=(0, 1, 0), groups=2), (2, 4, 3, 4, 5)),
        (lambda: nn.ConvTranspose3d(3, 2, 3, stride=2, padding=1, output_padding=1, dilation=1), (2, 3, 3, 4, 5)),
    ],
)
def test_grouped_3d_convs_and_3d_transposed_convs_agree_with_onnxruntime(make, shape):
    """torch's Conv3d(groups=g) (block-diagonal weights) and ConvTranspose3d (a TRANSPOSE_CONV per depth tap),
    strided, padded, grouped."""
    module = torch_export_util.seeded_module(make)
    model = torch_export_util.export(module, (torch.randn(*shape),), ["x"], ["y"], False, 17, False)
    torch_export_util.check_agrees(model, lambda batch, seed: (torch.randn(batch, *shape[1:]),), [2], RTOL, ATOL)

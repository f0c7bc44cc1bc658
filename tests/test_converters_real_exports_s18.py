"""More real PyTorch exports through the ONNX importer and the lite runtime.

Architectures written from their papers (random weights, eval mode, small
widths): SqueezeNet, ShuffleNetV2, DenseNet, ResNeXt, ConvNeXt, Swin window
attention, DeepLab ASPP, an SSD head, a TCN, a CRNN, a GRU encoder-decoder
with attention, T5 relative position buckets, a Whisper-like encoder,
PointNet, a detection post-process, an LSTM with proj_size and masking,
MLP-Mixer and non-integer interpolation scales. Each is exported with
torch.onnx.export (TorchScript exporter at opset 13 with a dynamic batch and
17 static; the dynamo exporter at opset 18 for a few, all of them with
TW_REAL_EXPORTS_FULL=1), converted with `onnx_import.convert`, run on the
lite runtime and compared with onnxruntime on the same file.
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
from tf2_behavior import tf2_behavior

torch = pytest.importorskip("torch")
ort = pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")
nn = torch.nn
F = torch.nn.functional
pytestmark = pytest.mark.skipif(not lite_runner.available(), reason="bazel build //lite/c:libtensorweave_lite.so first")
RTOL, ATOL = 1e-4, 1e-4
FULL = os.environ.get("TW_REAL_EXPORTS_FULL") == "1"


# --- models ---------------------------------------------------------------------------------------
class Fire(nn.Module):
    def __init__(self, cin, s, e):
        super().__init__()
        self.squeeze = nn.Conv2d(cin, s, 1)
        self.e1 = nn.Conv2d(s, e, 1)
        self.e3 = nn.Conv2d(s, e, 3, padding=1)

    def forward(self, x):
        s = F.relu(self.squeeze(x))
        return torch.cat([F.relu(self.e1(s)), F.relu(self.e3(s))], 1)


class SqueezeNet(nn.Module):
    """SqueezeNet 1.0: Fire modules, MaxPool with ceil_mode, a conv
    classifier averaged over space."""

    def __init__(self, ncls=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 7, stride=2),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(3, 2, ceil_mode=True),
            Fire(16, 4, 8),
            Fire(16, 4, 8),
            nn.MaxPool2d(3, 2, ceil_mode=True),
            Fire(16, 8, 16),
        )
        self.classifier = nn.Sequential(nn.Dropout(0.5), nn.Conv2d(32, ncls, 1), nn.ReLU(inplace=True))

    def forward(self, x):
        return torch.flatten(F.adaptive_avg_pool2d(self.classifier(self.features(x)), 1), 1)


def channel_shuffle(x, groups):
    b, c, h, w = x.shape
    return x.view(b, groups, c // groups, h, w).transpose(1, 2).contiguous().view(b, c, h, w)


class ShuffleUnit(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.stride = stride
        half = cout // 2
        if stride > 1:
            self.branch1 = nn.Sequential(
                nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False),
                nn.BatchNorm2d(cin),
                nn.Conv2d(cin, half, 1, bias=False),
                nn.BatchNorm2d(half),
                nn.ReLU(),
            )
        cb = cin if stride > 1 else half
        self.branch2 = nn.Sequential(
            nn.Conv2d(cb, half, 1, bias=False),
            nn.BatchNorm2d(half),
            nn.ReLU(),
            nn.Conv2d(half, half, 3, stride, 1, groups=half, bias=False),
            nn.BatchNorm2d(half),
            nn.Conv2d(half, half, 1, bias=False),
            nn.BatchNorm2d(half),
            nn.ReLU(),
        )

    def forward(self, x):
        if self.stride == 1:
            a, b = x.chunk(2, dim=1)
            out = torch.cat((a, self.branch2(b)), 1)
        else:
            out = torch.cat((self.branch1(x), self.branch2(x)), 1)
        return channel_shuffle(out, 2)


class ShuffleNetV2(nn.Module):
    def __init__(self, ncls=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU())
        self.pool = nn.MaxPool2d(3, 2, 1)
        self.stages = nn.Sequential(ShuffleUnit(8, 16, 2), ShuffleUnit(16, 16, 1), ShuffleUnit(16, 32, 2))
        self.fc = nn.Linear(32, ncls)

    def forward(self, x):
        return self.fc(self.stages(self.pool(self.stem(x))).mean([2, 3]))


class DenseLayer(nn.Module):
    def __init__(self, cin, growth):
        super().__init__()
        self.net = nn.Sequential(
            nn.BatchNorm2d(cin),
            nn.ReLU(),
            nn.Conv2d(cin, 2 * growth, 1, bias=False),
            nn.BatchNorm2d(2 * growth),
            nn.ReLU(),
            nn.Conv2d(2 * growth, growth, 3, padding=1, bias=False),
        )

    def forward(self, feats):
        return self.net(torch.cat(feats, 1))


class DenseNet(nn.Module):
    """Two dense blocks (every layer reads the Concat of all before it)
    joined by a transition (BN, ReLU, 1x1 conv, AvgPool)."""

    def __init__(self, growth=4, ncls=10):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.block1 = nn.ModuleList([DenseLayer(8 + i * growth, growth) for i in range(3)])
        c = 8 + 3 * growth
        self.trans = nn.Sequential(nn.BatchNorm2d(c), nn.ReLU(), nn.Conv2d(c, c // 2, 1, bias=False), nn.AvgPool2d(2))
        self.block2 = nn.ModuleList([DenseLayer(c // 2 + i * growth, growth) for i in range(3)])
        self.norm = nn.BatchNorm2d(c // 2 + 3 * growth)
        self.fc = nn.Linear(c // 2 + 3 * growth, ncls)

    def _block(self, layers, x):
        feats = [x]
        for layer in layers:
            feats.append(layer(feats))
        return torch.cat(feats, 1)

    def forward(self, x):
        x = self.trans(self._block(self.block1, self.stem(x)))
        x = F.relu(self.norm(self._block(self.block2, x)))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, (1, 1)), 1))


class ResNeXtBlock(nn.Module):
    def __init__(self, cin, width, cout, groups, stride):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(cin, width, 1, bias=False),
            nn.BatchNorm2d(width),
            nn.ReLU(),
            nn.Conv2d(width, width, 3, stride, 1, groups=groups, bias=False),
            nn.BatchNorm2d(width),
            nn.ReLU(),
            nn.Conv2d(width, cout, 1, bias=False),
            nn.BatchNorm2d(cout),
        )
        self.short = (
            nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
            if stride != 1 or cin != cout
            else nn.Identity()
        )

    def forward(self, x):
        return F.relu(self.body(x) + self.short(x))


class ResNeXt(nn.Module):
    def __init__(self, ncls=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.blocks = nn.Sequential(ResNeXtBlock(16, 32, 32, 8, 1), ResNeXtBlock(32, 32, 48, 4, 2))
        self.fc = nn.Linear(48, ncls)

    def forward(self, x):
        return self.fc(F.adaptive_avg_pool2d(self.blocks(self.stem(x)), 1).flatten(1))


class ConvNeXtBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dw = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.pw1 = nn.Linear(dim, 4 * dim)
        self.pw2 = nn.Linear(4 * dim, dim)
        self.gamma = nn.Parameter(torch.rand(dim) * 0.5 + 0.1)

    def forward(self, x):
        y = self.dw(x).permute(0, 2, 3, 1)
        y = self.gamma * self.pw2(F.gelu(self.pw1(self.norm(y))))
        return x + y.permute(0, 3, 1, 2)


class ChannelsLayerNorm(nn.Module):
    """ConvNeXt's LayerNorm over the channels of an NCHW tensor, by hand."""

    def __init__(self, c, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(c) + 0.5)
        self.bias = nn.Parameter(torch.rand(c) - 0.5)
        self.eps = eps

    def forward(self, x):
        u = x.mean(1, keepdim=True)
        s = (x - u).pow(2).mean(1, keepdim=True)
        x = (x - u) / torch.sqrt(s + self.eps)
        return self.weight[:, None, None] * x + self.bias[:, None, None]


class ConvNeXt(nn.Module):
    def __init__(self, ncls=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 4, 4), ChannelsLayerNorm(16))
        self.stage1 = ConvNeXtBlock(16)
        self.down = nn.Sequential(ChannelsLayerNorm(16), nn.Conv2d(16, 32, 2, 2))
        self.stage2 = ConvNeXtBlock(32)
        self.head_norm = nn.LayerNorm(32, eps=1e-6)
        self.fc = nn.Linear(32, ncls)

    def forward(self, x):
        x = self.stage2(self.down(self.stage1(self.stem(x))))
        return self.fc(self.head_norm(x.mean([-2, -1])))


class WindowAttention(nn.Module):
    """Swin-style windowed multi-head self-attention with a relative
    position bias table gathered by a constant index."""

    def __init__(self, dim, window, heads):
        super().__init__()
        self.window, self.heads = window, heads
        self.scale = (dim // heads) ** -0.5
        self.table = nn.Parameter(torch.randn((2 * window - 1) ** 2, heads) * 0.1)
        coords = torch.stack(torch.meshgrid(torch.arange(window), torch.arange(window), indexing="ij")).flatten(1)
        rel = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0) + (window - 1)
        self.register_buffer("index", rel[..., 0] * (2 * window - 1) + rel[..., 1])
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        bw, n, c = x.shape
        qkv = self.qkv(x).reshape(bw, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = (q * self.scale) @ k.transpose(-2, -1)
        bias = self.table[self.index.view(-1)].view(n, n, -1).permute(2, 0, 1)
        attn = attn + bias.unsqueeze(0)
        if mask is not None:
            nw = mask.shape[0]
            attn = attn.view(bw // nw, nw, self.heads, n, n) + mask.unsqueeze(1).unsqueeze(0)
            attn = attn.view(-1, self.heads, n, n)
        return self.proj((attn.softmax(-1) @ v).transpose(1, 2).reshape(bw, n, c))


class SwinBlock(nn.Module):
    def __init__(self, dim=16, res=8, window=4, heads=2, shift=2):
        super().__init__()
        self.res, self.window, self.shift = res, window, shift
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = WindowAttention(dim, window, heads)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        img = torch.zeros(1, res, res, 1)
        cnt = 0
        for hs in (slice(0, -window), slice(-window, -shift), slice(-shift, None)):
            for ws in (slice(0, -window), slice(-window, -shift), slice(-shift, None)):
                img[:, hs, ws, :] = cnt
                cnt += 1
        mw = self._partition(img).squeeze(-1)
        mask = mw.unsqueeze(1) - mw.unsqueeze(2)
        self.register_buffer("mask", mask.masked_fill(mask != 0, -100.0).masked_fill(mask == 0, 0.0))

    def _partition(self, x):
        b, h, w, c = x.shape
        ws = self.window
        x = x.view(b, h // ws, ws, w // ws, ws, c).permute(0, 1, 3, 2, 4, 5)
        return x.reshape(-1, ws * ws, c)

    def forward(self, x):
        b, l, c = x.shape
        h = w = self.res
        ws = self.window
        y = self.norm1(x).view(b, h, w, c)
        y = torch.roll(y, shifts=(-self.shift, -self.shift), dims=(1, 2))
        y = self.attn(self._partition(y), self.mask)
        y = y.view(b, h // ws, w // ws, ws, ws, c).permute(0, 1, 3, 2, 4, 5).reshape(b, h, w, c)
        y = torch.roll(y, shifts=(self.shift, self.shift), dims=(1, 2)).reshape(b, l, c)
        x = x + y
        return x + self.mlp(self.norm2(x))


class Swin(nn.Module):
    def __init__(self, ncls=10):
        super().__init__()
        self.patch = nn.Conv2d(3, 16, 2, 2)
        self.block1 = SwinBlock(shift=0)
        self.block2 = SwinBlock(shift=2)
        self.fc = nn.Linear(16, ncls)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        return self.fc(self.block2(self.block1(x)).mean(1))


class ASPP(nn.Module):
    """DeepLabV3's atrous spatial pyramid pooling and its decoder."""

    def __init__(self, cin=16, c=8, rates=(2, 3), ncls=3):
        super().__init__()

        def cbr(i, o, k, d=1):
            return nn.Sequential(
                nn.Conv2d(i, o, k, padding=d * (k // 2), dilation=d, bias=False), nn.BatchNorm2d(o), nn.ReLU()
            )

        self.backbone = nn.Sequential(cbr(3, 8, 3), nn.Conv2d(8, cin, 3, 2, 1), nn.ReLU())
        self.branches = nn.ModuleList([cbr(cin, c, 1)] + [cbr(cin, c, 3, r) for r in rates])
        self.pool = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(cin, c, 1), nn.ReLU())
        self.project = cbr(c * (len(rates) + 2), c, 1)
        self.cls = nn.Conv2d(c, ncls, 1)

    def forward(self, x):
        f = self.backbone(x)
        outs = [b(f) for b in self.branches]
        outs.append(F.interpolate(self.pool(f), size=f.shape[-2:], mode="bilinear", align_corners=False))
        y = self.cls(self.project(torch.cat(outs, 1)))
        return F.interpolate(y, size=x.shape[-2:], mode="bilinear", align_corners=True)


class ASPPFeatures(ASPP):
    """ASPP's logits at the feature map's size: the image-pooling branch is
    interpolated to the run-time H and W of the features."""

    def forward(self, x):
        f = self.backbone(x)
        outs = [b(f) for b in self.branches]
        outs.append(F.interpolate(self.pool(f), size=f.shape[-2:], mode="bilinear", align_corners=False))
        return self.cls(self.project(torch.cat(outs, 1)))


class SSDHead(nn.Module):
    """FPN top-down path (nearest x2 upsample) and SSD class/box heads:
    per-level predictions permuted, reshaped and concatenated, softmax
    over classes."""

    def __init__(self, na=3, ncls=4):
        super().__init__()
        self.na, self.ncls = na, ncls
        self.c3 = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.ReLU())
        self.c4 = nn.Sequential(nn.Conv2d(8, 16, 3, 2, 1), nn.ReLU())
        self.c5 = nn.Sequential(nn.Conv2d(16, 16, 3, 2, 1), nn.ReLU())
        self.l3, self.l4, self.l5 = nn.Conv2d(8, 8, 1), nn.Conv2d(16, 8, 1), nn.Conv2d(16, 8, 1)
        self.cls = nn.Conv2d(8, na * ncls, 3, padding=1)
        self.box = nn.Conv2d(8, na * 4, 3, padding=1)

    def forward(self, x):
        c3 = self.c3(x)
        c4 = self.c4(c3)
        c5 = self.c5(c4)
        p5 = self.l5(c5)
        p4 = self.l4(c4) + F.interpolate(p5, scale_factor=2, mode="nearest")
        p3 = self.l3(c3) + F.interpolate(p4, scale_factor=2, mode="nearest")
        b = x.shape[0]
        scores, boxes = [], []
        for p in (p3, p4, p5):
            scores.append(self.cls(p).permute(0, 2, 3, 1).reshape(b, -1, self.ncls))
            boxes.append(self.box(p).permute(0, 2, 3, 1).reshape(b, -1, 4))
        return torch.cat(scores, 1).softmax(-1), torch.cat(boxes, 1)


class TCN(nn.Module):
    """Temporal convolutional network: dilated causal Conv1d (left padding
    by F.pad), weight-free residuals, a 1x1 downsample."""

    def __init__(self, cin=6, c=12, k=3, ncls=5):
        super().__init__()
        self.k = k
        self.convs = nn.ModuleList()
        self.dils = [1, 2, 4]
        ch = cin
        for d in self.dils:
            self.convs.append(nn.ModuleList([nn.Conv1d(ch, c, k, dilation=d), nn.Conv1d(c, c, k, dilation=d)]))
            ch = c
        self.down = nn.Conv1d(cin, c, 1)
        self.fc = nn.Linear(c, ncls)

    def forward(self, x):
        for i, (d, (c1, c2)) in enumerate(zip(self.dils, self.convs)):
            pad = (self.k - 1) * d
            y = F.relu(c1(F.pad(x, (pad, 0))))
            y = F.relu(c2(F.pad(y, (pad, 0))))
            x = F.relu(y + (self.down(x) if i == 0 else x))
        return self.fc(x[:, :, -1])


class CRNN(nn.Module):
    """Conv feature extractor, the height collapsed, a BiLSTM over width
    and log_softmax over the classes, as CTC models output (T, B, C)."""

    def __init__(self, ncls=11):
        super().__init__()
        self.cnn = nn.Sequential(
            nn.Conv2d(1, 8, 3, 1, 1),
            nn.BatchNorm2d(8),
            nn.ReLU(),
            nn.MaxPool2d(2, 2),
            nn.Conv2d(8, 16, 3, 1, 1),
            nn.BatchNorm2d(16),
            nn.ReLU(),
            nn.MaxPool2d((2, 1), (2, 1)),
        )
        self.rnn = nn.LSTM(16 * 4, 16, bidirectional=True)
        self.fc = nn.Linear(32, ncls)

    def forward(self, x):
        f = self.cnn(x)
        b, c, h, w = f.shape
        seq = f.reshape(b, c * h, w).permute(2, 0, 1)
        y, _ = self.rnn(seq)
        return self.fc(y).log_softmax(2)


class Seq2SeqAttention(nn.Module):
    """GRU encoder, GRU-cell decoder with Bahdanau-style additive attention,
    teacher-forced for a fixed number of steps."""

    def __init__(self, vocab=20, dim=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.enc = nn.GRU(dim, dim, batch_first=True)
        self.dec = nn.GRUCell(2 * dim, dim)
        self.wq, self.wk = nn.Linear(dim, dim, bias=False), nn.Linear(dim, dim)
        self.v = nn.Linear(dim, 1, bias=False)
        self.out = nn.Linear(2 * dim, vocab)

    def forward(self, src, tgt):
        mem, h = self.enc(self.emb(src))
        h = h[0]
        keys = self.wk(mem)
        emb = self.emb(tgt)
        logits = []
        for t in range(tgt.shape[1]):
            score = self.v(torch.tanh(keys + self.wq(h).unsqueeze(1))).squeeze(-1)
            ctx = (score.softmax(-1).unsqueeze(-1) * mem).sum(1)
            h = self.dec(torch.cat([emb[:, t], ctx], -1), h)
            logits.append(self.out(torch.cat([h, ctx], -1)))
        return torch.stack(logits, 1)


class T5Attention(nn.Module):
    """T5's relative position buckets (log, where, clamp/min, embedding
    gather) as a bias of one self-attention layer."""

    def __init__(self, vocab=30, dim=16, heads=2, buckets=8, max_distance=16, bidirectional=True):
        super().__init__()
        self.heads, self.buckets, self.max_distance, self.bidirectional = heads, buckets, max_distance, bidirectional
        self.emb = nn.Embedding(vocab, dim)
        self.rel = nn.Embedding(buckets, heads)
        self.q, self.k, self.v, self.o = (nn.Linear(dim, dim, bias=False) for _ in range(4))

    def _bucket(self, rel):
        n = self.buckets
        ret = 0
        if self.bidirectional:
            n //= 2
            ret = (rel > 0).to(torch.long) * n
            rel = torch.abs(rel)
        else:
            rel = -torch.min(rel, torch.zeros_like(rel))
        exact = n // 2
        small = rel < exact
        large = exact + (torch.log(rel.float() / exact) / math.log(self.max_distance / exact) * (n - exact)).to(
            torch.long
        )
        large = torch.min(large, torch.full_like(large, n - 1))
        return ret + torch.where(small, rel, large)

    def forward(self, ids):
        x = self.emb(ids)
        b, t, d = x.shape
        pos = torch.arange(t, dtype=torch.long)
        bias = self.rel(self._bucket(pos[None, :] - pos[:, None])).permute(2, 0, 1).unsqueeze(0)
        hd = d // self.heads
        q, k, v = (f(x).view(b, t, self.heads, hd).transpose(1, 2) for f in (self.q, self.k, self.v))
        att = (q @ k.transpose(-1, -2) + bias).softmax(-1)
        return self.o((att @ v).transpose(1, 2).reshape(b, t, d))


def sinusoids(length, channels):
    inc = math.log(10000) / (channels // 2 - 1)
    inv = torch.exp(-inc * torch.arange(channels // 2))
    t = torch.arange(length)[:, None] * inv[None, :]
    return torch.cat([torch.sin(t), torch.cos(t)], 1)


class WhisperEncoder(nn.Module):
    """Whisper's audio encoder: two Conv1d + GELU (the second stride 2),
    sinusoidal positions, pre-LN transformer blocks, a final LayerNorm."""

    def __init__(self, mels=8, dim=16, heads=2, frames=20, depth=2):
        super().__init__()
        self.conv1 = nn.Conv1d(mels, dim, 3, padding=1)
        self.conv2 = nn.Conv1d(dim, dim, 3, stride=2, padding=1)
        self.register_buffer("pos", sinusoids(frames // 2, dim))
        self.blocks = nn.ModuleList(
            [
                nn.TransformerEncoderLayer(dim, heads, 4 * dim, 0.0, "gelu", batch_first=True, norm_first=True)
                for _ in range(depth)
            ]
        )
        self.ln = nn.LayerNorm(dim)

    def forward(self, mel):
        x = F.gelu(self.conv2(F.gelu(self.conv1(mel)))).permute(0, 2, 1)
        x = x + self.pos
        for blk in self.blocks:
            x = blk(x)
        return self.ln(x)


class PointNet(nn.Module):
    """PointNet classifier: an input T-Net (3x3 transform), a shared MLP
    as Conv1d over points, max over the points."""

    def __init__(self, ncls=5):
        super().__init__()

        def mlp(*ch):
            layers = []
            for i, o in zip(ch, ch[1:]):
                layers += [nn.Conv1d(i, o, 1), nn.BatchNorm1d(o), nn.ReLU()]
            return nn.Sequential(*layers)

        self.tnet = mlp(3, 16, 32)
        self.tfc = nn.Linear(32, 9)
        self.feat = mlp(3, 16, 32, 64)
        self.fc = nn.Sequential(nn.Linear(64, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, ncls))

    def forward(self, pts):
        b = pts.shape[0]
        t = self.tfc(torch.max(self.tnet(pts), 2)[0]).view(b, 3, 3) + torch.eye(3)
        x = torch.bmm(t, pts)
        g = torch.max(self.feat(x), 2, keepdim=True)[0].view(b, -1)
        return self.fc(g).log_softmax(1), t


class DetectPost(nn.Module):
    """A detector's post-process: best class by ArgMax/max, TopK over the
    anchors' scores and boxes gathered at the top indices."""

    def __init__(self, k=5):
        super().__init__()
        self.k = k
        self.head = nn.Conv2d(3, 3 * 8, 1)

    def forward(self, x):
        b = x.shape[0]
        p = self.head(x).permute(0, 2, 3, 1).reshape(b, -1, 8)
        boxes, logits = p[..., :4], p[..., 4:]
        probs = logits.sigmoid()
        score, cls = probs.max(-1)
        best = probs.argmax(-1)
        top, idx = score.topk(self.k, dim=1)
        sel = torch.gather(boxes, 1, idx.unsqueeze(-1).expand(-1, -1, 4))
        return top, sel, torch.gather(cls, 1, idx), torch.gather(best, 1, idx)


class MaskedLSTM(nn.Module):
    """A two-layer batch_first LSTM; padded steps zeroed by Where on a
    length mask (what packed sequences do to the outputs), a masked mean.
    (proj_size has no export: TorchScript refuses it, and the dynamo
    exporter writes a Concat onnxruntime rejects.)"""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(10, 8, num_layers=2, batch_first=True)
        self.fc = nn.Linear(8, 3)

    def forward(self, x, lengths):
        y, (h, c) = self.lstm(x)
        t = torch.arange(x.shape[1])
        mask = (t[None, :] < lengths[:, None]).unsqueeze(-1)
        y = torch.where(mask, y, torch.zeros_like(y))
        mean = y.sum(1) / lengths[:, None].float()
        return self.fc(mean), h, c


class MixerBlock(nn.Module):
    def __init__(self, tokens, dim):
        super().__init__()
        self.n1, self.n2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.tok = nn.Sequential(nn.Linear(tokens, 2 * tokens), nn.GELU(), nn.Linear(2 * tokens, tokens))
        self.ch = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        x = x + self.tok(self.n1(x).transpose(1, 2)).transpose(1, 2)
        return x + self.ch(self.n2(x))


class MLPMixer(nn.Module):
    def __init__(self, ncls=10):
        super().__init__()
        self.patch = nn.Conv2d(3, 16, 4, 4)
        self.blocks = nn.Sequential(MixerBlock(16, 16), MixerBlock(16, 16))
        self.norm = nn.LayerNorm(16)
        self.fc = nn.Linear(16, ncls)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        return self.fc(self.norm(self.blocks(x)).mean(1))


class FractionalResize(nn.Module):
    """F.interpolate by non-integer scale factors: bilinear 1.5 (both
    align_corners), nearest 0.75 and bicubic 1.25."""

    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        y = self.c(x)
        a = F.interpolate(y, scale_factor=1.5, mode="bilinear", align_corners=False)
        b = F.interpolate(y, scale_factor=1.5, mode="bilinear", align_corners=True)
        c = F.interpolate(y, scale_factor=0.75, mode="nearest")
        d = F.interpolate(y, scale_factor=1.25, mode="bicubic", align_corners=False)
        return a + b, c, d


class ReluRNN(nn.Module):
    """nn.RNN(nonlinearity="relu"), two layers, bidirectional, batch_first."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(6, 10, num_layers=2, nonlinearity="relu", batch_first=True, bidirectional=True)
        self.fc = nn.Linear(20, 3)

    def forward(self, x):
        y, h = self.rnn(x)
        return self.fc(y[:, -1]), h


class CenterNet(nn.Module):
    """CenterNet decoding: heatmap peaks kept by a 3x3 MaxPool equality,
    TopK over classes x pixels, class and pixel by floor division and
    modulo, sizes gathered at the peaks."""

    def __init__(self, k=6):
        super().__init__()
        self.k = k
        self.b = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.ReLU())
        self.hm = nn.Conv2d(8, 3, 1)
        self.wh = nn.Conv2d(8, 2, 1)

    def forward(self, x):
        f = self.b(x)
        hm = self.hm(f).sigmoid()
        keep = (F.max_pool2d(hm, 3, 1, 1) == hm).float()
        hm = hm * keep
        b, _c, h, w = hm.shape
        scores, inds = hm.view(b, -1).topk(self.k)
        cls = torch.div(inds, h * w, rounding_mode="floor")
        pix = inds % (h * w)
        ys = torch.div(pix, w, rounding_mode="floor").float()
        xs = (pix % w).float()
        wh = self.wh(f).view(b, 2, -1)
        sel = torch.gather(wh, 2, pix.unsqueeze(1).expand(-1, 2, -1))
        return (
            scores,
            cls,
            torch.stack([xs - sel[:, 0] / 2, ys - sel[:, 1] / 2, xs + sel[:, 0] / 2, ys + sel[:, 1] / 2], -1),
        )


class ConformerConv(nn.Module):
    """Conformer: half-step feed-forward (SiLU), the convolution module (GLU,
    depthwise Conv1d, BatchNorm1d, SiLU)."""

    def __init__(self, d=16):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.pw1 = nn.Conv1d(d, 2 * d, 1)
        self.dw = nn.Conv1d(d, d, 7, padding=3, groups=d)
        self.bn = nn.BatchNorm1d(d)
        self.pw2 = nn.Conv1d(d, d, 1)
        self.ff = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.SiLU(), nn.Linear(4 * d, d))

    def forward(self, x):
        x = x + 0.5 * self.ff(x)
        y = F.glu(self.pw1(self.ln(x).transpose(1, 2)), dim=1)
        y = self.pw2(F.silu(self.bn(self.dw(y))))
        return x + y.transpose(1, 2)


class Decoder(nn.Module):
    """nn.TransformerDecoder with a causal mask and a memory key padding
    mask (a bool input)."""

    def __init__(self, vocab=20, d=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        layer = nn.TransformerDecoderLayer(d, 2, 32, 0.0, batch_first=True)
        self.dec = nn.TransformerDecoder(layer, 2)
        self.out = nn.Linear(d, vocab)

    def forward(self, tgt, memory, mem_pad):
        tt = tgt.shape[1]
        causal = torch.triu(torch.full((tt, tt), float("-inf")), 1)
        y = self.dec(self.emb(tgt), memory, tgt_mask=causal, memory_key_padding_mask=mem_pad)
        return self.out(y)


class STN(nn.Module):
    """Spatial transformer: a localization net predicts theta, then
    F.affine_grid and F.grid_sample."""

    def __init__(self):
        super().__init__()
        self.loc = nn.Sequential(nn.Conv2d(1, 4, 3, 2, 1), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 8 * 8, 6))
        self.c = nn.Conv2d(1, 4, 3, 1, 1)

    def forward(self, x):
        theta = self.loc(x).view(-1, 2, 3) * 0.1 + torch.tensor([[1.0, 0, 0], [0, 1.0, 0]])
        grid = F.affine_grid(theta, list(x.shape), align_corners=False)
        return self.c(F.grid_sample(x, grid, align_corners=False))


class FaceEmbed(nn.Module):
    """A face-embedding head: BN, per-channel PReLU, BatchNorm1d, L2
    normalize (F.normalize), cosine similarities."""

    def __init__(self):
        super().__init__()
        self.b = nn.Sequential(
            nn.Conv2d(3, 8, 3, 2, 1),
            nn.BatchNorm2d(8),
            nn.PReLU(8),
            nn.Conv2d(8, 8, 3, 2, 1),
            nn.BatchNorm2d(8),
            nn.PReLU(8),
        )
        self.fc = nn.Linear(8 * 4 * 4, 16)
        self.bn = nn.BatchNorm1d(16)

    def forward(self, x):
        e = self.bn(self.fc(self.b(x).flatten(1)))
        e = F.normalize(e, dim=1)
        return e, e @ e.t()


class MelFrontend(nn.Module):
    """Log-mel frontend: torch.stft (Hann window), power, mel matrix, log of
    the clamped energies, a Conv1d."""

    def __init__(self):
        super().__init__()
        self.register_buffer("win", torch.hann_window(32))
        self.register_buffer("mel", torch.rand(17, 8))
        self.c = nn.Conv1d(8, 4, 3, padding=1)

    def forward(self, wav):
        spec = torch.stft(wav, 32, 16, window=self.win, return_complex=False, center=False)
        power = spec.pow(2).sum(-1)
        m = torch.log(torch.clamp(power.transpose(1, 2) @ self.mel, min=1e-5))
        return self.c(m.transpose(1, 2))


class MeanPoolEmbed(nn.Module):
    """Sentence embedding: encoder with a key padding mask from the
    attention mask, masked mean pooling, L2 normalize."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(30, 16)
        self.enc = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(16, 2, 32, 0.0, batch_first=True), 1, enable_nested_tensor=False
        )

    def forward(self, ids, mask):
        h = self.enc(self.emb(ids), src_key_padding_mask=mask == 0)
        m = mask.unsqueeze(-1).float()
        return F.normalize((h * m).sum(1) / torch.clamp(m.sum(1), min=1e-9), p=2, dim=1)


class Misc(nn.Module):
    """Hardtanh, ReLU6, SELU, Mish, Softplus(beta), cumsum, flip,
    PixelUnshuffle, adaptive average pool to 2x2, LogSoftmax over channels,
    F.unfold, where/clamp."""

    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 8, 3, 1, 1)
        self.pu = nn.PixelUnshuffle(2)

    def forward(self, x):
        y = self.c(x)
        a = F.hardtanh(y, -0.5, 0.5) + F.relu6(y) + F.selu(y) + F.mish(y) + F.softplus(y, beta=2.0)
        b = torch.flip(torch.cumsum(a, dim=2), dims=[3])
        c = F.adaptive_avg_pool2d(self.pu(b), (2, 2))
        d = F.log_softmax(y, dim=1)
        u = F.unfold(y, 3, padding=1, stride=2)
        return c, d, u, torch.where(y > 0, y, 0.1 * y).clamp(max=0.7)


class HRFuse(nn.Module):
    """HRNet/BiFPN-style fusion: normalized ReLU weights, nearest upsample of
    the low branch, strided conv of the high branch."""

    def __init__(self):
        super().__init__()
        self.h = nn.Conv2d(3, 8, 3, 1, 1)
        self.l = nn.Conv2d(3, 16, 3, 2, 1)
        self.l2h = nn.Sequential(nn.Conv2d(16, 8, 1), nn.BatchNorm2d(8))
        self.h2l = nn.Sequential(nn.Conv2d(8, 16, 3, 2, 1), nn.BatchNorm2d(16))
        self.w = nn.Parameter(torch.rand(2))

    def forward(self, x):
        h, l = self.h(x), self.l(x)
        w = F.relu(self.w)
        w = w / (w.sum() + 1e-4)
        h2 = F.relu(w[0] * h + w[1] * F.interpolate(self.l2h(l), scale_factor=2, mode="nearest"))
        l2 = F.relu(l + self.h2l(h))
        return h2, l2


def _ints(shape, high, seed):
    return torch.randint(0, high, shape, generator=torch.Generator().manual_seed(seed))


def _floats(*shape):
    return lambda batch, seed: (torch.randn(batch, *shape, generator=torch.Generator().manual_seed(seed)),)


def _decoder_inputs(b, seed):
    g = torch.Generator().manual_seed(seed)
    pad = torch.zeros(b, 7, dtype=torch.bool)
    pad[-1, 5:] = True
    return torch.randint(0, 20, (b, 5), generator=g), torch.randn(b, 7, 16, generator=g), pad


def _meanpool_inputs(b, seed):
    g = torch.Generator().manual_seed(seed)
    m = torch.ones(b, 9, dtype=torch.int64)
    m[-1, 6:] = 0
    return torch.randint(0, 30, (b, 9), generator=g), m


def _masked_lstm_inputs(batch, seed):
    x = torch.randn(batch, 6, 10, generator=torch.Generator().manual_seed(seed))
    return x, torch.tensor([6, 3, 5, 1, 2][:batch], dtype=torch.int64)


# name -> (module factory, inputs(batch, seed), input names, output names)
MODELS = {
    "squeezenet": (SqueezeNet, _floats(3, 36, 36), ["x"], ["y"]),
    "shufflenetv2": (ShuffleNetV2, _floats(3, 32, 32), ["x"], ["y"]),
    "densenet": (DenseNet, _floats(3, 16, 16), ["x"], ["y"]),
    "resnext": (ResNeXt, _floats(3, 16, 16), ["x"], ["y"]),
    "convnext": (ConvNeXt, _floats(3, 32, 32), ["x"], ["y"]),
    "swin": (Swin, _floats(3, 16, 16), ["x"], ["y"]),
    "aspp": (ASPP, _floats(3, 24, 24), ["x"], ["y"]),
    "aspp_features": (ASPPFeatures, _floats(3, 24, 24), ["x"], ["y"]),
    "ssd_fpn": (SSDHead, _floats(3, 32, 32), ["x"], ["scores", "boxes"]),
    "tcn": (TCN, _floats(6, 30), ["x"], ["y"]),
    "crnn": (CRNN, _floats(1, 16, 20), ["x"], ["y"]),
    "seq2seq_attn": (
        Seq2SeqAttention,
        lambda batch, seed: (_ints((batch, 7), 20, seed), _ints((batch, 4), 20, seed + 1)),
        ["src", "tgt"],
        ["logits"],
    ),
    "t5_bias": (T5Attention, lambda batch, seed: (_ints((batch, 12), 30, seed),), ["ids"], ["y"]),
    "whisper": (WhisperEncoder, _floats(8, 20), ["mel"], ["y"]),
    "pointnet": (PointNet, _floats(3, 40), ["pts"], ["y", "t"]),
    "detect_post": (DetectPost, _floats(3, 6, 6), ["x"], ["scores", "boxes", "cls", "best"]),
    "masked_lstm": (MaskedLSTM, _masked_lstm_inputs, ["x", "lengths"], ["y", "h", "c"]),
    "mlp_mixer": (MLPMixer, _floats(3, 16, 16), ["x"], ["y"]),
    "fractional_resize": (FractionalResize, _floats(3, 8, 8), ["x"], ["ab", "c", "d"]),
    "relu_rnn": (ReluRNN, _floats(7, 6), ["x"], ["y", "h"]),
    "centernet": (CenterNet, _floats(3, 16, 16), ["x"], ["scores", "cls", "boxes"]),
    "conformer_conv": (ConformerConv, _floats(12, 16), ["x"], ["y"]),
    "decoder": (Decoder, _decoder_inputs, ["tgt", "memory", "mem_pad"], ["y"]),
    "stn": (STN, _floats(1, 16, 16), ["x"], ["y"]),
    "face_embedding": (FaceEmbed, _floats(3, 16, 16), ["x"], ["e", "sim"]),
    "mel_frontend": (MelFrontend, _floats(160), ["wav"], ["y"]),
    "mean_pool_embedding": (MeanPoolEmbed, _meanpool_inputs, ["ids", "mask"], ["y"]),
    "misc_ops": (Misc, _floats(3, 8, 8), ["x"], ["c", "d", "u", "w"]),
    "hrnet_fuse": (HRFuse, _floats(3, 16, 16), ["x"], ["h", "l"]),
}
# The lowest opset torch exports each at (triu and scaled_dot_product_attention
# need 14, stft 17, affine_grid 20); 13 otherwise.
MIN_OPSET = {"whisper": 14, "decoder": 14, "mean_pool_embedding": 14, "mel_frontend": 17, "stn": 20}
# Exports torch itself refuses: adaptive_avg_pool2d to (2, 2) of a dynamic
# batch (TorchScript), nn.TransformerDecoder's masks (torch.export).
NO_TORCHSCRIPT_DYNAMIC = {"misc_ops"}
NO_DYNAMO = {"decoder"}


def _module(name):
    return torch_export_util.seeded_module(MODELS[name][0])


def export(name, dynamo, opset, dynamic):
    """The ONNX model of MODELS[name] as torch.onnx.export writes it."""
    _, inputs, input_names, output_names = MODELS[name]
    return torch_export_util.export(_module(name), inputs(2, 0), input_names, output_names, dynamo, opset, dynamic)


def check_agrees(name, model, batches):
    """Converts `model`, runs it on the lite runtime (1 and 2 threads) at each batch size and compares with
    onnxruntime; returns the largest absolute difference."""
    return torch_export_util.check_agrees(model, MODELS[name][1], batches, RTOL, ATOL)


# The dynamo exporter's own patterns, by default on the models that show them.
DYNAMO_DEFAULT = {"detect_post", "swin", "seq2seq_attn", "relu_rnn", "misc_ops", "stn"}


def _cases():
    for name in MODELS:
        low = MIN_OPSET.get(name, 13)
        if name not in NO_TORCHSCRIPT_DYNAMIC:
            yield name, False, low, True
        yield name, False, max(17, low), False
        if name not in NO_DYNAMO and (FULL or name in DYNAMO_DEFAULT):
            yield name, True, 18, True
        if name not in NO_DYNAMO and FULL:
            yield name, True, 18, False


@pytest.mark.parametrize(
    "name,dynamo,opset,dynamic",
    list(_cases()),
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_pytorch_export_agrees(name, dynamo, opset, dynamic):
    model = export(name, dynamo, opset, dynamic)
    check_agrees(name, model, [2, 3] if dynamic else [2])


# --- regressions ----------------------------------------------------------------------------------
@pytest.mark.parametrize("batch_dim", [2, "n"])
def test_an_output_that_is_another_output_gets_its_own_tensor(batch_dim):
    """The dynamo exporter returns a value twice as Identity(output): both
    outputs come back, each under its own name (the .twl had one tensor
    listed twice, and its signature lost the first name)."""
    from onnx import helper
    from onnx_lite_util import make_model

    nodes = [
        helper.make_node("Relu", ["x"], ["a"]),
        helper.make_node("Identity", ["a"], ["b"]),
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Identity", ["s"], ["s2"]),
    ]
    shape = [batch_dim, 3]
    outputs = [("a", np.float32, shape), ("b", np.float32, shape), ("s", np.int64, [2]), ("s2", np.int64, [2])]
    model = make_model(nodes, [("x", np.float32, shape)], outputs)
    runner = lite_runner.LiteRunner(onnx_import.convert(model))
    assert runner.output_names == ["a", "b", "s", "s2"]
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for batch in (2, 4) if batch_dim == "n" else (2,):
        x = np.random.default_rng(batch).standard_normal([batch, 3]).astype(np.float32)
        got = runner.run({"x": x})
        for (name, *_), want in zip(outputs, session.run(None, {"x": x})):
            np.testing.assert_array_equal(got[name], want)


# --- Unique ---------------------------------------------------------------------------------------
def _unique_model(dtype, shape, **kw):
    from onnx import helper
    from onnx_lite_util import make_model

    outs = ["y", "indices", "inverse", "counts"]
    node = helper.make_node("Unique", ["x"], outs, **kw)
    return make_model(
        [node], [("x", dtype, shape)], [(o, np.int64 if o != "y" else dtype, None) for o in outs], opset=11
    )


def _agrees(model, feeds):
    """The lite runtime against onnxruntime where it has a kernel for the
    input type (float, int64), else onnx's reference evaluator."""
    if model.graph.input[0].type.tensor_type.elem_type in (onnx.TensorProto.FLOAT, onnx.TensorProto.INT64):
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    else:
        from onnx.reference import ReferenceEvaluator

        session = ReferenceEvaluator(model)
    got = lite_runner.LiteRunner(onnx_import.convert(model)).run(feeds)
    for out, want in zip(model.graph.output, session.run(None, feeds)):
        assert got[out.name].dtype == want.dtype, out.name
        np.testing.assert_array_equal(got[out.name], want, err_msg=out.name)


@pytest.mark.parametrize("sort", [1, 0])
@pytest.mark.parametrize(
    "dtype,shape,axis",
    [(np.float32, [3, 5], None), (np.int64, [24], None), (np.int32, [4, 3], 0), (np.float32, [2, 6, 2], 1),
     (np.int64, [3, 4], -1), (np.float32, [1], None)],
)  # fmt: skip
def test_unique_agrees(dtype, shape, axis, sort):
    """Unique's four outputs (values, first indices, inverse indices, counts)
    over elements or slices along an axis, sorted or in order of first
    occurrence; values drawn from few so that there are repeats."""
    kw = {"sorted": sort} if axis is None else {"sorted": sort, "axis": axis}
    rng = np.random.default_rng(len(shape) + sort)
    x = rng.integers(-2, 3, size=shape).astype(dtype)
    _agrees(_unique_model(dtype, shape, **kw), {"x": x})
    if axis is None:
        np.testing.assert_array_equal(lite_runner.LiteRunner(onnx_import.convert(_unique_model(dtype, shape))).run(
            {"x": x})["y"], np.unique(x))  # fmt: skip


def test_unique_of_bools():
    _agrees(_unique_model(np.bool_, [7]), {"x": np.array([1, 0, 0, 1, 1, 0, 1], bool)})
    _agrees(_unique_model(np.bool_, [3]), {"x": np.array([1, 1, 1], bool)})


class _UniqueClasses(nn.Module):
    """torch.unique of a segmentation map's per-pixel classes (sorted,
    inverse and counts) and of its rows (dim=0)."""

    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 4, 1)

    def forward(self, x):
        cls = self.c(x).argmax(1)
        values, inverse, counts = torch.unique(cls, sorted=True, return_inverse=True, return_counts=True)
        rows = torch.unique(cls[0], dim=0)
        return values, inverse, counts, rows


@pytest.mark.parametrize("dynamo", [False, True])
def test_torch_unique_export_agrees(dynamo):
    torch.manual_seed(0)
    x = torch.randn(2, 3, 4, 4, generator=torch.Generator().manual_seed(1))
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            pytest.importorskip("onnxscript")
            model = torch.onnx.export(_UniqueClasses().eval(), (x,), dynamo=True, input_names=["x"]).model_proto
        else:
            buffer = io.BytesIO()
            torch.onnx.export(_UniqueClasses().eval(), (x,), buffer, input_names=["x"], opset_version=13, dynamo=False)
            model = onnx.load_from_string(buffer.getvalue())
    assert any(n.op_type == "Unique" for n in model.graph.node)
    _agrees(model, {"x": x.numpy()})


def test_unique_refuses_a_run_time_size_and_too_many_comparisons():
    with pytest.raises(
        ConversionError, match=r"'y' \(Unique\): the shape of 'x' \(\['\?', 3\]\) is known only at run time"
    ):
        onnx_import.convert(_unique_model(np.float32, ["n", 3]))
    with pytest.raises(
        ConversionError, match=r"'y' \(Unique\): 8192 slices of 1 elements compare pairwise as 67108864"
    ):
        onnx_import.convert(_unique_model(np.float32, [8192]))
    with pytest.raises(ConversionError, match=r"'y' \(Unique\): axis 2 is out of range for an input of rank 2"):
        onnx_import.convert(_unique_model(np.float32, [3, 3], axis=2))


# --- RNN with activations other than Tanh (unrolled) ------------------------------------------------
def _rnn_model(acts, layout=0, initial_h=False, clip=None, alphas=None, betas=None, seq_lens=False):
    from onnx import helper
    from onnx_lite_util import make_model

    rng = np.random.default_rng(len(acts))
    dirs, t, b, i, h = len(acts), 4, 3, 5, 6
    kw = {"hidden_size": h, "activations": acts, "layout": layout}
    kw["direction"] = "bidirectional" if dirs == 2 else "forward"
    if clip is not None:
        kw["clip"] = clip
    if alphas:
        kw["activation_alpha"] = alphas
    if betas:
        kw["activation_beta"] = betas
    inits = [("W", rng.standard_normal([dirs, h, i]).astype(np.float32) * 0.5)]
    inits += [("R", rng.standard_normal([dirs, h, h]).astype(np.float32) * 0.5)]
    inits += [("B", rng.standard_normal([dirs, 2 * h]).astype(np.float32) * 0.3)]
    x_shape = [b, t, i] if layout else [t, b, i]
    h_shape = [b, dirs, h] if layout else [dirs, b, h]
    inputs = [("x", np.float32, x_shape)]
    names = ["x", "W", "R", "B", "", ""]
    if seq_lens:
        inputs.append(("lens", np.int32, [b]))
        names[4] = "lens"
    if initial_h:
        inputs.append(("h0", np.float32, h_shape))
        names[5] = "h0"
    node = helper.make_node("RNN", names, ["y", "y_h"], **kw)
    y_shape = [b, t, dirs, h] if layout else [t, dirs, b, h]
    outputs = [("y", np.float32, y_shape), ("y_h", np.float32, h_shape)]
    return make_model([node], inputs, outputs, inits, opset=14), x_shape, h_shape


@pytest.mark.parametrize(
    "acts,layout,initial_h,clip,alphas,betas",
    [
        (["Relu"], 0, False, None, None, None),
        (["Relu", "Relu"], 1, True, None, None, None),
        (["LeakyRelu", "Sigmoid"], 0, True, 1.5, [0.2], None),
        (["ScaledTanh"], 1, False, None, [1.5], [0.7]),
        (["HardSigmoid", "Affine"], 0, False, None, [0.3, 0.5], [0.4, -0.1]),
        (["Elu", "Softsign"], 1, True, 2.0, None, None),
    ],
)
def test_rnn_with_other_activations_agrees_with_onnxruntime(acts, layout, initial_h, clip, alphas, betas):
    """The lite RNN op has Tanh only: an RNN with other activations (what
    nn.RNN(nonlinearity="relu") exports) is unrolled into MatMul/Add/Clip
    and the activation, directions, layouts, initial state and clip kept."""
    model, x_shape, h_shape = _rnn_model(acts, layout, initial_h, clip, alphas, betas)
    rng = np.random.default_rng(7)
    feeds = {"x": rng.standard_normal(x_shape).astype(np.float32)}
    if initial_h:
        feeds["h0"] = rng.standard_normal(h_shape).astype(np.float32)
    got = lite_runner.LiteRunner(onnx_import.convert(model)).run(feeds)
    # onnxruntime has layout 0 only: the batch-major case against the
    # time-major model of the same weights, inputs and outputs transposed.
    time_major = _rnn_model(acts, 0, initial_h, clip, alphas, betas)[0]
    session = ort.InferenceSession(time_major.SerializeToString(), providers=["CPUExecutionProvider"])
    swap = (lambda v: np.swapaxes(v, 0, 1)) if layout else (lambda v: v)
    want_y, want_h = session.run(None, {k: np.ascontiguousarray(swap(v)) for k, v in feeds.items()})
    want_y = np.transpose(want_y, [2, 0, 1, 3]) if layout else want_y
    np.testing.assert_allclose(got["y"], want_y, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(got["y_h"], swap(want_h), rtol=RTOL, atol=ATOL)


def test_rnn_with_other_activations_refuses_sequence_lens():
    model, _, _ = _rnn_model(["Elu"], seq_lens=True)
    with pytest.raises(ConversionError, match=r"'y' \(RNN\): sequence_lens is not supported with activations other"):
        onnx_import.convert(model)


# --- run-time dims other than the batch -----------------------------------------------------------
def _image(c):
    return lambda batch, size, seed: (
        torch.randn(batch, c, size, size + 4, generator=torch.Generator().manual_seed(seed)),
    )


def _sequence(shape_of):
    return lambda batch, size, seed: (
        torch.randn(*shape_of(batch, size), generator=torch.Generator().manual_seed(seed)),
    )


# name -> (inputs(batch, size, seed), dynamic axes, two sizes)
RUN_TIME_DIMS = {
    # stride-2 convs with pads that equal SAME's only at some sizes
    "resnext": (_image(3), {"x": {0: "b", 2: "h", 3: "w"}}, [16, 21]),
    # H and W that the probe sizes (3, 5) divided down to 1, as at the static size
    "shufflenetv2": (_image(3), {"x": {0: "b", 2: "h", 3: "w"}}, [32, 21]),
    # windows larger than a static H/W of 1
    "squeezenet": (_image(3), {"x": {0: "b", 2: "h", 3: "w"}}, [36, 41]),
    "convnext": (_image(3), {"x": {0: "b", 2: "h", 3: "w"}}, [32, 40]),
    # Conv1d of a run-time length
    "tcn": (_sequence(lambda b, s: (b, 6, s)), {"x": {0: "b", 2: "t"}}, [30, 17]),
    "conformer_conv": (_sequence(lambda b, s: (b, s, 16)), {"x": {0: "b", 1: "t"}}, [12, 7]),
    "t5_bias": (lambda b, s, seed: (_ints((b, s), 30, seed),), {"ids": {0: "b", 1: "s"}}, [8, 12]),
    # a 1x1 pooled map interpolated to sizes known at run time: a broadcast
    "aspp_features": (_image(3), {"x": {0: "b", 2: "h", 3: "w"}}, [24, 17]),
}


def _export_with_axes(name, args, axes):
    _, _, input_names, output_names = MODELS[name]
    buffer = io.BytesIO()
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            _module(name), args, buffer, input_names=input_names, output_names=output_names,
            opset_version=max(13, MIN_OPSET.get(name, 13)), dynamo=False, dynamic_axes=axes,
        )  # fmt: skip
    return onnx.load_from_string(buffer.getvalue())


@pytest.mark.parametrize("name", list(RUN_TIME_DIMS))
def test_run_time_spatial_and_time_dims_agree_with_onnxruntime(name):
    """Exports with a dynamic H/W or sequence length besides the batch, run
    at two sizes and batches on one converted model."""
    inputs, axes, sizes = RUN_TIME_DIMS[name]
    model = _export_with_axes(name, inputs(2, sizes[0], 0), axes)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    runner = lite_runner.LiteRunner(onnx_import.convert(model))
    for batch, size in [(2, sizes[0]), (3, sizes[1]), (1, sizes[1])]:
        feeds = {i.name: a.numpy() for i, a in zip(model.graph.input, inputs(batch, size, batch))}
        for out, want in zip(model.graph.output, session.run(None, feeds)):
            got = runner.run(feeds)[out.name]
            assert got.shape == want.shape, (out.name, batch, size)
            np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=f"{out.name}, {batch}, {size}")


def test_interpolating_to_the_input_size_of_a_run_time_h_w_is_refused():
    """DeepLab's last F.interpolate(size=x.shape[-2:]) of a stride-2 feature
    map: twice its size only at even H/W, so no constant scale; refused
    (odd probe sizes), not wrong at odd sizes."""
    model = _export_with_axes("aspp", (torch.randn(2, 3, 24, 24),), {"x": {0: "b", 2: "h", 3: "w"}})
    with pytest.raises(ConversionError, match=r"\(Resize\): sizes \(input 3\): .* is used here as a value"):
        onnx_import.convert(model)


def test_a_relu_rnn_of_a_run_time_length_is_the_lite_rnn():
    """nn.RNN(nonlinearity="relu") is the lite RNN op (activation RELU), not unrolled: a run-time length runs."""
    model = _export_with_axes("relu_rnn", (torch.randn(2, 7, 6),), {"x": {0: "b", 1: "t"}})
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    runner = lite_runner.LiteRunner(onnx_import.convert(model))
    for steps in (7, 3):
        feeds = {"x": np.random.default_rng(steps).standard_normal((2, steps, 6)).astype(np.float32)}
        for out, want in zip(model.graph.output, session.run(None, feeds)):
            np.testing.assert_allclose(runner.run(feeds)[out.name], want, rtol=RTOL, atol=ATOL, err_msg=out.name)


def test_an_unrolled_rnn_of_a_run_time_length_is_refused():
    """An RNN the lite RNN op cannot run (Elu) is unrolled, which needs a static length."""
    model = _export_with_axes("relu_rnn", (torch.randn(2, 7, 6),), {"x": {0: "b", 1: "t"}})
    for node in model.graph.node:
        for a in node.attribute:
            if node.op_type == "RNN" and a.name == "activations":
                a.strings[:] = [b"Elu"] * len(a.strings)
    with pytest.raises(
        ConversionError, match=r"\(RNN\): axis 0 of '.*' is symbolic: the sequence length must be static"
    ):
        onnx_import.convert(model)


# --- tf_keras and TensorFlow graphs through the CLI's GraphDef path ----------------------------------
def _keras_models():
    keras = pytest.importorskip("tf_keras")
    layers = keras.layers

    def cnn():
        i = keras.Input((16, 16, 3), name="x")
        h = layers.Conv2D(8, 3, padding="same", activation="relu")(i)
        h = layers.BatchNormalization()(h)
        h = layers.DepthwiseConv2D(3, strides=2, padding="same")(h)
        h = layers.MaxPooling2D()(h)
        h = layers.GlobalAveragePooling2D()(h)
        return keras.Model(i, layers.Dense(10, activation="softmax")(h))

    def upsampling():
        i = keras.Input((16, 16, 3), name="x")
        h = layers.Conv2D(8, 3, strides=2, padding="same", use_bias=False)(i)
        h = layers.ReLU(6.0)(layers.BatchNormalization()(h))
        h = layers.Add()([h, layers.SeparableConv2D(8, 3, padding="same")(h)])
        h = layers.UpSampling2D(interpolation="bilinear")(h)
        h = layers.Concatenate()([h, layers.Conv2D(4, 1)(i)])
        h = layers.AveragePooling2D()(layers.UpSampling2D()(h))
        h = layers.Dropout(0.5)(layers.Flatten()(h))
        return keras.Model(i, layers.Dense(5, activation="sigmoid")(h))

    def unrolled_rnn():
        i = keras.Input((7, 5), name="x")
        h = layers.LSTM(8, return_sequences=True, unroll=True)(i)
        h = layers.GRU(6, unroll=True)(h)
        return keras.Model(i, layers.Dense(3)(h))

    def deconv():
        i = keras.Input((8, 8, 3), name="x")
        h = layers.Conv2DTranspose(4, 3, strides=2, padding="same")(i)
        h = layers.Conv2DTranspose(4, 2, strides=2, padding="valid", activation="relu")(h)
        return keras.Model(i, layers.Conv2DTranspose(2, 3, padding="valid", use_bias=False)(h))

    def dilated():
        i = keras.Input((10, 6), name="x")
        h = layers.Conv1D(8, 3, padding="causal", dilation_rate=2, activation="relu")(i)
        h = layers.Conv1D(8, 3, padding="same", dilation_rate=3)(h)
        h = layers.Conv2D(4, 3, padding="same", dilation_rate=(2, 3))(layers.Reshape((10, 8, 1))(h))
        h = layers.GlobalAveragePooling1D()(layers.Reshape((10, 32))(h))
        return keras.Model(i, layers.Dense(3)(h))

    return {"cnn": cnn, "upsampling": upsampling, "unrolled_rnn": unrolled_rnn, "deconv": deconv, "dilated": dilated}


def _frozen_keras(tmp_path, build, batch=2):
    """(path of the frozen GraphDef of a tf_keras model at `batch` (None:
    a run-time batch), an input of batch 2, TensorFlow's output)."""
    tf = pytest.importorskip("tensorflow")
    from tensorflow.python.eager import context

    # Eager and TF2 behavior (TensorLists in a Keras RNN's loop), even when another test in this process has
    # called tf.compat.v1.disable_eager_execution() or disable_v2_behavior().
    with tf2_behavior(), context.eager_mode():
        return _frozen_keras_eagerly(tf, tmp_path, build, batch)


def _frozen_keras_eagerly(tf, tmp_path, build, batch):
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    model = build()
    spec = tf.TensorSpec([batch, *model.input_shape[1:]], tf.float32, name="x")
    frozen = convert_variables_to_constants_v2(
        tf.function(lambda x: model(x, training=False)).get_concrete_function(spec)
    )
    path = str(tmp_path / "model.pb")
    with open(path, "wb") as f:
        f.write(frozen.graph.as_graph_def().SerializeToString())
    x = np.random.default_rng(0).standard_normal([2, *model.input_shape[1:]]).astype(np.float32)
    return path, x, frozen(tf.constant(x))[0].numpy()


def _cli_convert_and_run(tmp_path, pb, x, outputs="Identity"):
    twl = str(tmp_path / "model.twl")
    assert cli_main(["--input", pb, "--output", twl, "--inputs", "x", "--outputs", outputs]) == 0
    with open(twl, "rb") as f:
        runner = lite_runner.LiteRunner(f.read())
    return runner.run({"x": x})


@pytest.mark.parametrize(
    "name,batch",
    [("cnn", 2), ("cnn", None), ("upsampling", 2), ("unrolled_rnn", 2), ("deconv", 2), ("deconv", None),
     ("dilated", 2), ("dilated", None)],
)  # fmt: skip
def test_tf_keras_model_converts_through_the_cli(tmp_path, name, batch):
    """tf_keras models frozen by TensorFlow (FusedBatchNormV3, Relu6,
    separable convs, UpSampling2D both ways, unrolled LSTM/GRU cells:
    Unpack and Split, Conv2DTranspose: Conv2DBackpropInput, whose
    input_sizes reads the Shape of a run-time batch, dilated Conv1D/Conv2D:
    SpaceToBatchND and BatchToSpaceND, Keras' Reshape of a run-time batch)
    convert with tensorweave-convert and agree with TensorFlow."""
    pb, x, want = _frozen_keras(tmp_path, _keras_models()[name], batch)
    got = _cli_convert_and_run(tmp_path, pb, x)["Identity"]
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)
    if batch is None:  # the same .twl at batch 3
        x3 = np.concatenate([x, x[:1]])
        got3 = _cli_convert_and_run(tmp_path, pb, x3)["Identity"]
        np.testing.assert_allclose(got3[:2], want, rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(got3[2], want[0], rtol=RTOL, atol=ATOL)


def test_tf_keras_lstm_with_a_while_loop_is_refused_naming_the_op(tmp_path, capsys):
    keras = pytest.importorskip("tf_keras")

    def build():
        i = keras.Input((7, 5), name="x")
        return keras.Model(i, keras.layers.LSTM(4)(i))

    pb, _, _ = _frozen_keras(tmp_path, build)
    assert cli_main(["--input", pb, "--output", str(tmp_path / "m.twl"), "--inputs", "x", "--outputs", "Identity"]) == 1
    assert "does not import into the core: Op type not registered 'TensorList" in capsys.readouterr().err


def test_tf_resize_split_unpack_and_space_to_batch_agree_with_tensorflow(tmp_path):
    """ResizeBilinear/ResizeNearestNeighbor in each sampling mode (align
    corners, half pixel, neither), up by non-integer factors and down; Split,
    SplitV with a -1 size, Unpack; SpaceToBatchND with paddings and
    BatchToSpaceND with crops over two dims."""
    tf = pytest.importorskip("tensorflow")
    v1 = tf.compat.v1
    x = np.random.default_rng(1).standard_normal([2, 5, 7, 3]).astype(np.float32)
    with tf.Graph().as_default() as g:
        xt = v1.placeholder(tf.float32, [2, 5, 7, 3], name="x")
        outs = []
        for size in ([8, 11], [3, 4]):
            for align, half in ((True, False), (False, True), (False, False)):
                outs.append(v1.image.resize_bilinear(xt, size, align_corners=align, half_pixel_centers=half))
                outs.append(
                    v1.raw_ops.ResizeNearestNeighbor(images=xt, size=size, align_corners=align, half_pixel_centers=half)
                )
        a, b = tf.split(xt, 2, axis=0)
        c, d = tf.split(xt, [2, -1], axis=2)
        outs += [a * 2.0 + b, d, c, tf.unstack(xt, axis=3)[1]]
        blocks = tf.space_to_batch_nd(xt, [2, 3], [[1, 0], [1, 1]])  # [12, 3, 3, 3]
        outs += [blocks, tf.batch_to_space(blocks * 2.0, [2, 3], [[1, 0], [0, 2]])]
        names = [tf.identity(o, name=f"y{i}").name for i, o in enumerate(outs)]
        with v1.Session() as sess:
            wants = sess.run(names, {xt: x})
        pb = str(tmp_path / "model.pb")
        with open(pb, "wb") as f:
            f.write(g.as_graph_def().SerializeToString())
    got = _cli_convert_and_run(tmp_path, pb, x, ",".join(n.split(":")[0] for n in names))
    for name, want in zip(names, wants):
        np.testing.assert_allclose(got[name.split(":")[0]], want, rtol=RTOL, atol=ATOL, err_msg=name)

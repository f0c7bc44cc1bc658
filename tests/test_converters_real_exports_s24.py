"""Real PyTorch and Keras models people deploy on devices, beyond those of the earlier real-export tests:
Conv-TasNet (strided Conv1d / ConvTranspose1d, PReLU, global layer norm), BlazeFace (channel-padded
shortcuts, two heads concatenated, anchor decode), GhostNet, a RetinaNet-style FPN, a soft-argmax pose head,
a CRNN with a greedy CTC decode (int64 and bool outputs), a GPT decoder step with a key/value cache of a
run-time length, RoBERTa's cumsum position ids, a temporal shift module, a MiDaS-style depth decoder, a BiLSTM
tagger over packed sequences, involution (nn.Unfold), SegNet (MaxUnpool), FNet (FFT), a streaming LSTM with
its state as inputs, padding modes, a ranker (argsort, gather), LayerNorm over (C, H, W) with bicubic and
nearest-exact resizing, a retrieval head, EmbeddingBag and DETR's sine position embedding.

Each is exported with torch.onnx.export (TorchScript at opset 13 or 17 with a dynamic batch, the dynamo
exporter at opset 18 where TorchScript cannot export it), converted with `onnx_import.convert`, run on the
lite runtime and compared with onnxruntime. The tf_keras models go through tensorweave-convert to .twl (run
on the lite runtime) and to ONNX (run by onnxruntime), both compared with Keras.
"""

import numpy as np
import onnx
import pytest
import torch_export_util
from onnx import helper

from converters import lite_runner, onnx_import, twl_reader
from converters.errors import ConversionError

torch = pytest.importorskip("torch")
pytest.importorskip("onnxruntime")
nn = torch.nn
F = torch.nn.functional
pytestmark = pytest.mark.skipif(not lite_runner.available(), reason="bazel build //lite/c:libtensorweave_lite.so first")
RTOL, ATOL = 1e-4, 1e-4


class ConvTasNet(nn.Module):
    """Conv-TasNet-like speech separation: strided Conv1d encoder, TCN blocks (1x1, PReLU, global layer norm as
    GroupNorm(1), dilated depthwise Conv1d), sigmoid masks and a strided ConvTranspose1d decoder."""

    def __init__(self, n=16, b=8, h=16, speakers=2):
        super().__init__()
        self.speakers = speakers
        self.enc = nn.Conv1d(1, n, 8, stride=4, bias=False)
        self.bottleneck = nn.Sequential(nn.GroupNorm(1, n), nn.Conv1d(n, b, 1))
        self.blocks = nn.ModuleList()
        for d in (1, 2, 4):
            self.blocks.append(
                nn.Sequential(
                    nn.Conv1d(b, h, 1),
                    nn.PReLU(),
                    nn.GroupNorm(1, h),
                    nn.Conv1d(h, h, 3, padding=d, dilation=d, groups=h),
                    nn.PReLU(),
                    nn.GroupNorm(1, h),
                    nn.Conv1d(h, b, 1),
                )
            )
        self.mask = nn.Conv1d(b, n * speakers, 1)
        self.dec = nn.ConvTranspose1d(n, 1, 8, stride=4, bias=False)

    def forward(self, wav):
        w = F.relu(self.enc(wav))
        y = self.bottleneck(w)
        for blk in self.blocks:
            y = y + blk(y)
        m = torch.sigmoid(self.mask(y)).reshape(w.shape[0], self.speakers, w.shape[1], w.shape[2])
        s = (w.unsqueeze(1) * m).reshape(-1, w.shape[1], w.shape[2])
        return self.dec(s).reshape(w.shape[0], self.speakers, -1)


class BlazeBlock(nn.Module):
    """BlazeFace's block: a 5x5 depthwise conv; strided, the shortcut is a max pool and its channels are
    zero-padded (F.pad of the channel dim)."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.stride, self.pad_c = stride, cout - cin
        self.dw = nn.Conv2d(cin, cin, 5, stride=stride, padding=0 if stride == 2 else 2, groups=cin)
        self.pw = nn.Conv2d(cin, cout, 1)

    def forward(self, x):
        h = F.pad(x, (1, 2, 1, 2)) if self.stride == 2 else x
        s = F.max_pool2d(x, 2, 2) if self.stride == 2 else x
        if self.pad_c:
            s = F.pad(s, (0, 0, 0, 0, 0, self.pad_c))
        return F.relu(self.pw(self.dw(h)) + s)


class BlazeFace(nn.Module):
    """BlazeFace-like detector: 5x5 depthwise blocks, channel padding on the shortcut (F.pad of the channel dim),
    two heads flattened with permute/reshape and concatenated, box decode with anchors, sigmoid scores."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 5, stride=2, padding=2), nn.ReLU())
        self.b1 = nn.Sequential(BlazeBlock(8, 8, 1), BlazeBlock(8, 12, 2), BlazeBlock(12, 12, 1))
        self.b2 = nn.Sequential(BlazeBlock(12, 16, 2), BlazeBlock(16, 16, 1))
        self.cls1, self.cls2 = nn.Conv2d(12, 2, 1), nn.Conv2d(16, 6, 1)
        self.reg1, self.reg2 = nn.Conv2d(12, 2 * 8, 1), nn.Conv2d(16, 6 * 8, 1)
        self.register_buffer("anchors", torch.rand(8 * 8 * 2 + 4 * 4 * 6, 4))

    def forward(self, x):
        f1 = self.b1(self.stem(x))
        f2 = self.b2(f1)
        b = x.shape[0]
        cls = torch.cat(
            [self.cls1(f1).permute(0, 2, 3, 1).reshape(b, -1, 1), self.cls2(f2).permute(0, 2, 3, 1).reshape(b, -1, 1)],
            1,
        )
        reg = torch.cat(
            [self.reg1(f1).permute(0, 2, 3, 1).reshape(b, -1, 8), self.reg2(f2).permute(0, 2, 3, 1).reshape(b, -1, 8)],
            1,
        )
        a = self.anchors
        xy = reg[..., :2] / 16.0 * a[:, 2:] + a[:, :2]
        wh = reg[..., 2:4] / 16.0 * a[:, 2:]
        boxes = torch.cat(
            [xy - wh / 2, xy + wh / 2, reg[..., 4:] / 16.0 * a[:, 2:].repeat(1, 2) + a[:, :2].repeat(1, 2)], -1
        )
        return boxes, torch.sigmoid(cls.clamp(-100, 100))


class GhostModule(nn.Module):
    """Half the channels from a 1x1 conv, the other half from a cheap depthwise conv of them, cut to `cout`."""

    def __init__(self, cin, cout, relu=True):
        super().__init__()
        self.cout = cout
        init = (cout + 1) // 2
        self.primary = nn.Sequential(
            nn.Conv2d(cin, init, 1, bias=False), nn.BatchNorm2d(init), nn.ReLU() if relu else nn.Identity()
        )
        self.cheap = nn.Sequential(
            nn.Conv2d(init, init, 3, padding=1, groups=init, bias=False),
            nn.BatchNorm2d(init),
            nn.ReLU() if relu else nn.Identity(),
        )

    def forward(self, x):
        y = self.primary(x)
        return torch.cat([y, self.cheap(y)], 1)[:, : self.cout]


class GhostNet(nn.Module):
    """GhostNet-like: ghost modules (a cheap depthwise half concatenated and sliced to an odd width), an SE with
    hard-sigmoid gate, a strided depthwise bottleneck with a conv shortcut."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU())
        self.g1 = GhostModule(8, 15)
        self.dw = nn.Sequential(nn.Conv2d(15, 15, 3, 2, 1, groups=15, bias=False), nn.BatchNorm2d(15))
        self.se_reduce, self.se_expand = nn.Conv2d(15, 4, 1), nn.Conv2d(4, 15, 1)
        self.g2 = GhostModule(15, 11, relu=False)
        self.short = nn.Sequential(
            nn.Conv2d(8, 8, 3, 2, 1, groups=8, bias=False),
            nn.BatchNorm2d(8),
            nn.Conv2d(8, 11, 1, bias=False),
            nn.BatchNorm2d(11),
        )
        self.head = nn.Linear(11, 7)

    def forward(self, x):
        x = self.stem(x)
        y = self.dw(self.g1(x))
        s = F.hardsigmoid(self.se_expand(F.relu(self.se_reduce(F.adaptive_avg_pool2d(y, 1)))))
        y = self.g2(y * s) + self.short(x)
        return self.head(y.mean((2, 3)))


class FPN(nn.Module):
    """RetinaNet-style FPN: laterals, nearest upsampling to the size of the finer level (size taken from the
    tensor's shape), smoothing convs, and a shared head whose per-level outputs are concatenated."""

    def __init__(self):
        super().__init__()
        self.c3 = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.ReLU())
        self.c4 = nn.Sequential(nn.Conv2d(8, 12, 3, 2, 1), nn.ReLU())
        self.c5 = nn.Sequential(nn.Conv2d(12, 16, 3, 2, 1), nn.ReLU())
        self.l3, self.l4, self.l5 = nn.Conv2d(8, 8, 1), nn.Conv2d(12, 8, 1), nn.Conv2d(16, 8, 1)
        self.smooth = nn.Conv2d(8, 8, 3, padding=1)
        self.head = nn.Conv2d(8, 3 * 5, 3, padding=1)

    def forward(self, x):
        c3 = self.c3(x)
        c4 = self.c4(c3)
        c5 = self.c5(c4)
        p5 = self.l5(c5)
        p4 = self.l4(c4) + F.interpolate(p5, size=c4.shape[-2:], mode="nearest")
        p3 = self.l3(c3) + F.interpolate(p4, scale_factor=2.0, mode="nearest")
        outs = [self.head(self.smooth(p)).permute(0, 2, 3, 1).reshape(x.shape[0], -1, 5) for p in (p3, p4, p5)]
        return torch.cat(outs, 1)


class SoftArgmaxPose(nn.Module):
    """A heatmap pose head: heatmaps, a softmax over each map's pixels and the expected (x, y) under it, plus
    each keypoint's hard argmax (int64) and peak value."""

    def __init__(self, k=5):
        super().__init__()
        self.k = k
        self.net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, k, 3, padding=1))

    def forward(self, x):
        hm = self.net(x)
        b, k, h, w = hm.shape
        flat = hm.reshape(b, k, h * w)
        p = F.softmax(flat * 4.0, -1).reshape(b, k, h, w)
        xs = torch.arange(w, dtype=torch.float32)
        ys = torch.arange(h, dtype=torch.float32)
        cx = (p.sum(2) * xs).sum(-1)
        cy = (p.sum(3) * ys).sum(-1)
        peak, idx = flat.max(-1)
        return torch.stack([cx, cy], -1), idx, peak


class CTCGreedy(nn.Module):
    """A CRNN-style recogniser's greedy CTC decode: log-softmax over classes, the best class per frame (int64),
    and a mask of frames that start a new non-blank symbol."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(12, 16, 3, padding=1), nn.ReLU())
        self.gru = nn.GRU(16, 12, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(24, 6)

    def forward(self, x):
        y = self.conv(x).transpose(1, 2)
        y, _ = self.gru(y)
        lp = F.log_softmax(self.fc(y), -1)
        best = lp.argmax(-1)
        prev = F.pad(best[:, :-1], (1, 0), value=0)
        keep = (best != prev) & (best != 0)
        return lp, best, keep


class KVCacheStep(nn.Module):
    """One decoder step of a GPT with a key/value cache: the new token's q, k, v, the cache concatenated along
    its run-time length, attention over it, and the grown cache returned."""

    def __init__(self, d=16, heads=2):
        super().__init__()
        self.h, self.dh = heads, d // heads
        self.ln = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.GELU(approximate="tanh"), nn.Linear(4 * d, d))

    def forward(self, x, past_k, past_v):
        b = x.shape[0]
        q, k, v = self.qkv(self.ln(x)).split(self.h * self.dh, -1)
        q, k, v = (t.reshape(b, 1, self.h, self.dh).transpose(1, 2) for t in (q, k, v))
        k = torch.cat([past_k, k], 2)
        v = torch.cat([past_v, v], 2)
        att = F.softmax(q @ k.transpose(-1, -2) / self.dh**0.5, -1)
        y = (att @ v).transpose(1, 2).reshape(b, 1, self.h * self.dh)
        y = x + self.proj(y)
        return y + self.mlp(y), k, v


class RobertaEmbed(nn.Module):
    """RoBERTa's position ids (cumsum of the non-pad mask, offset by the pad id), token embeddings, LayerNorm and
    one encoder layer that takes the padding mask as an additive bias."""

    def __init__(self, vocab=40, d=16, pad=1):
        super().__init__()
        self.pad = pad
        self.tok = nn.Embedding(vocab, d, padding_idx=pad)
        self.pos = nn.Embedding(32, d, padding_idx=pad)
        self.ln = nn.LayerNorm(d)
        self.layer = nn.TransformerEncoderLayer(d, 2, 32, dropout=0.0, batch_first=True)

    def forward(self, ids):
        mask = ids.ne(self.pad).int()
        pos = (torch.cumsum(mask, 1).type_as(mask) * mask).long() + self.pad
        h = self.ln(self.tok(ids) + self.pos(pos))
        bias = (1.0 - mask[:, None, None, :].float()) * -1e4
        bias = bias.expand(-1, 2, ids.shape[1], -1).reshape(-1, ids.shape[1], ids.shape[1])
        return self.layer(h, src_mask=bias)


class TSM(nn.Module):
    """A temporal shift module network (TSM) over 4 frames folded into the batch: a fraction of the channels
    shifted one frame forward, another backward (slices and zero-padded concatenation), then a conv."""

    def __init__(self, t=4):
        super().__init__()
        self.t = t
        self.conv1 = nn.Conv2d(3, 8, 3, 2, 1)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.fc = nn.Linear(8, 4)

    def shift(self, x):
        nt, c, h, w = x.shape
        x = x.reshape(nt // self.t, self.t, c, h, w)
        fold = c // 4
        out = torch.zeros_like(x)
        out[:, :-1, :fold] = x[:, 1:, :fold]
        out[:, 1:, fold : 2 * fold] = x[:, :-1, fold : 2 * fold]
        out[:, :, 2 * fold :] = x[:, :, 2 * fold :]
        return out.reshape(nt, c, h, w)

    def forward(self, x):
        b = x.shape[0]
        y = F.relu(self.conv1(x.reshape(b * self.t, 3, x.shape[-2], x.shape[-1])))
        y = F.relu(self.conv2(self.shift(y))) + y
        return self.fc(y.mean((2, 3)).reshape(b, self.t, -1).mean(1))


class MidasDecoder(nn.Module):
    """A monocular depth decoder (MiDaS-small-like): feature fusion with bilinear align_corners upsampling by
    2, a residual conv unit, and a final interpolate to the input's size."""

    def __init__(self):
        super().__init__()
        self.e1 = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.ReLU())
        self.e2 = nn.Sequential(nn.Conv2d(8, 8, 3, 2, 1), nn.ReLU())
        self.rcu = nn.Sequential(nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1))
        self.out = nn.Sequential(nn.Conv2d(8, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 1, 1), nn.ReLU())

    def forward(self, x):
        f1 = self.e1(x)
        f2 = self.e2(f1)
        y = F.interpolate(f2 + self.rcu(f2), scale_factor=2, mode="bilinear", align_corners=True)
        y = y + f1
        y = y + self.rcu(y)
        return F.interpolate(self.out(y), size=x.shape[-2:], mode="bilinear", align_corners=False)


class PackedTagger(nn.Module):
    """A BiLSTM tagger over packed variable-length sequences (pack_padded_sequence, pad_packed_sequence)."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(30, 8)
        self.lstm = nn.LSTM(8, 10, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(20, 5)

    def forward(self, ids, lengths):
        packed = nn.utils.rnn.pack_padded_sequence(self.emb(ids), lengths, batch_first=True, enforce_sorted=False)
        y, _ = self.lstm(packed)
        y, _ = nn.utils.rnn.pad_packed_sequence(y, batch_first=True, total_length=ids.shape[1])
        return self.fc(y)


class Involution(nn.Module):
    """Local attention by nn.Unfold (im2col): 3x3 neighbourhoods weighted by a kernel generated per pixel."""

    def __init__(self, c=8, k=3, groups=2):
        super().__init__()
        self.c, self.k, self.g = c, k, groups
        self.stem = nn.Conv2d(3, c, 3, padding=1)
        self.gen = nn.Conv2d(c, k * k * groups, 1)
        self.unfold = nn.Unfold(k, padding=1)

    def forward(self, x):
        x = self.stem(x)
        b, c, h, w = x.shape
        kern = self.gen(x).reshape(b, self.g, 1, self.k * self.k, h, w)
        patches = self.unfold(x).reshape(b, self.g, c // self.g, self.k * self.k, h, w)
        return (kern * patches).sum(3).reshape(b, c, h, w)


class SegNet(nn.Module):
    """SegNet: max pooling that returns its argmax indices (MaxPool with a second output) and MaxUnpool2d
    putting the decoder's values back at them."""

    def __init__(self):
        super().__init__()
        self.e1 = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
        self.e2 = nn.Sequential(nn.Conv2d(8, 12, 3, padding=1), nn.BatchNorm2d(12), nn.ReLU())
        self.d2 = nn.Sequential(nn.Conv2d(12, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
        self.d1 = nn.Conv2d(8, 4, 3, padding=1)

    def forward(self, x):
        y, i1 = F.max_pool2d(self.e1(x), 2, 2, return_indices=True)
        y, i2 = F.max_pool2d(self.e2(y), 2, 2, return_indices=True)
        y = self.d2(F.max_unpool2d(y, i2, 2, 2))
        return self.d1(F.max_unpool2d(y, i1, 2, 2))


class FNet(nn.Module):
    """An FNet encoder layer: token mixing by the real part of a 2-D FFT (DFT, from the dynamo exporter), then
    LayerNorm and a GELU feed-forward."""

    def __init__(self, d=16):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 32), nn.GELU(), nn.Linear(32, d))

    def forward(self, x):
        x = self.ln1(x + torch.fft.fft2(x.to(torch.complex64)).real)
        return self.ln2(x + self.ff(x))


class LSTMState(nn.Module):
    """A streaming 2-layer LSTM that takes its state (h0, c0: batch on axis 1) and returns the new one."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(6, 8, num_layers=2, batch_first=True)
        self.fc = nn.Linear(8, 3)

    def forward(self, x, h0, c0):
        y, (h, c) = self.lstm(x, (h0, c0))
        return self.fc(y), h, c


class PadModes(nn.Module):
    """Convs with circular, replicate (dilated) and reflect padding_mode, and a grouped ConvTranspose2d with
    output_padding."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 6, 3, padding=1, padding_mode="circular")
        self.c2 = nn.Conv2d(6, 6, 3, padding=2, padding_mode="replicate", dilation=2)
        self.c3 = nn.Conv2d(6, 4, 3, padding=1, padding_mode="reflect")
        self.up = nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)

    def forward(self, x):
        return self.up(F.relu(self.c3(F.relu(self.c2(F.relu(self.c1(x)))))))


class Ranker(nn.Module):
    """Scores items, sorts them (argsort) and gathers the sorted embeddings (GatherElements)."""

    def __init__(self):
        super().__init__()
        self.score = nn.Linear(6, 1)

    def forward(self, items):
        s = self.score(items).squeeze(-1)
        order = torch.argsort(s, dim=1, descending=True)
        top = torch.gather(items, 1, order[..., None].expand(-1, -1, items.shape[-1]))
        return order, top, torch.sort(s, dim=1).values


class CHWLayerNorm(nn.Module):
    """LayerNorm over (C, H, W), bicubic upsampling and nearest-exact resizing to a fractional size."""

    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 4, 3, padding=1)
        self.ln = nn.LayerNorm([4, 6, 6])

    def forward(self, x):
        y = self.ln(self.c(x))
        a = F.interpolate(y, scale_factor=2, mode="bicubic", align_corners=False)
        b = F.interpolate(y, size=(9, 9), mode="nearest-exact")
        return a, b


class Retrieval(nn.Module):
    """An embedding retrieval head: L2-normalised embeddings, cosine similarity with a bank, its top 3."""

    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(8, 12), nn.ReLU(), nn.Linear(12, 6))
        self.register_buffer("bank", F.normalize(torch.randn(10, 6), dim=1))

    def forward(self, x):
        e = F.normalize(self.enc(x), dim=-1)
        sim = e @ self.bank.t()
        v, i = sim.topk(3, dim=-1)
        cos = F.cosine_similarity(e[:, None, :], self.bank[None], dim=-1)
        return v, i, cos


class EmbBag(nn.Module):
    """nn.EmbeddingBag(mode="mean") over fixed-size bags (TorchScript exports a Loop over the bags)."""

    def __init__(self):
        super().__init__()
        self.bag = nn.EmbeddingBag(20, 6, mode="mean")
        self.fc = nn.Linear(6, 2)

    def forward(self, ids):
        return self.fc(self.bag(ids))


class DETRSine(nn.Module):
    """DETR's sine position embedding from a padding mask (cumsum over H and W, normalised), added to a
    backbone's features, then flattened to a sequence."""

    def __init__(self, d=8):
        super().__init__()
        self.d = d
        self.backbone = nn.Conv2d(3, 2 * d, 3, 2, 1)

    def forward(self, x, mask):
        f = self.backbone(x)
        m = F.interpolate(mask[:, None].float(), size=f.shape[-2:])[:, 0] > 0.5
        not_mask = (~m).float()
        y = not_mask.cumsum(1)
        xx = not_mask.cumsum(2)
        y = y / (y[:, -1:, :] + 1e-6) * 6.2831853
        xx = xx / (xx[:, :, -1:] + 1e-6) * 6.2831853
        dim_t = 10000 ** (2 * (torch.arange(self.d, dtype=torch.float32) // 2) / self.d)
        px = xx[..., None] / dim_t
        py = y[..., None] / dim_t
        px = torch.stack((px[..., 0::2].sin(), px[..., 1::2].cos()), 4).flatten(3)
        py = torch.stack((py[..., 0::2].sin(), py[..., 1::2].cos()), 4).flatten(3)
        pos = torch.cat((py, px), 3).permute(0, 3, 1, 2)
        return (f + pos).flatten(2).permute(0, 2, 1)


def _generator(seed):
    return torch.Generator().manual_seed(seed)


def _floats(*shape):
    return lambda batch, seed: (torch.randn(batch, *shape, generator=_generator(seed)),)


def _kv_cache_inputs(batch, seed):
    return (
        torch.randn(batch, 1, 16, generator=_generator(seed)),
        torch.randn(batch, 2, 5, 8, generator=_generator(seed + 1)),
        torch.randn(batch, 2, 5, 8, generator=_generator(seed + 2)),
    )


def _padded_ids(batch, seed):
    ids = torch.randint(2, 40, (batch, 9), generator=_generator(seed))
    ids[-1, 6:] = 1  # RobertaEmbed's pad id
    return (ids,)


def _packed_inputs(batch, seed):
    """Token ids and lengths in no order (pack_padded_sequence sorts them)."""
    ids = torch.randint(0, 30, (batch, 7), generator=_generator(seed))
    lengths = torch.tensor([4, 7, 6, 2, 5][:batch], dtype=torch.int64)
    return ids, lengths


def _lstm_state_inputs(batch, seed):
    return (
        torch.randn(batch, 5, 6, generator=_generator(seed)),
        torch.randn(2, batch, 8, generator=_generator(seed + 1)),
        torch.randn(2, batch, 8, generator=_generator(seed + 2)),
    )


def _detr_inputs(batch, seed):
    mask = torch.zeros(batch, 16, 16, dtype=torch.bool)
    mask[-1, :, 10:] = True
    mask[0, 12:, :] = True
    return torch.randn(batch, 3, 16, 16, generator=_generator(seed)), mask


def _bags(batch, seed):
    return (torch.randint(0, 20, (batch, 5), generator=_generator(seed)),)


# name -> (module factory, inputs(batch, seed), input names, output names)
MODELS = {
    "conv_tasnet": (ConvTasNet, _floats(1, 64), ["wav"], ["sources"]),
    "blazeface": (BlazeFace, _floats(3, 32, 32), ["x"], ["boxes", "scores"]),
    "ghostnet": (GhostNet, _floats(3, 16, 16), ["x"], ["y"]),
    "fpn": (FPN, _floats(3, 32, 32), ["x"], ["y"]),
    "soft_argmax_pose": (SoftArgmaxPose, _floats(3, 8, 10), ["x"], ["xy", "idx", "peak"]),
    "ctc_greedy": (CTCGreedy, _floats(12, 9), ["x"], ["logp", "best", "keep"]),
    "kv_cache_step": (KVCacheStep, _kv_cache_inputs, ["x", "past_k", "past_v"], ["y", "k", "v"]),
    "roberta": (RobertaEmbed, _padded_ids, ["ids"], ["h"]),
    "tsm": (TSM, _floats(12, 16, 16), ["x"], ["y"]),
    "midas": (MidasDecoder, _floats(3, 16, 16), ["x"], ["depth"]),
    "packed_tagger": (PackedTagger, _packed_inputs, ["ids", "lengths"], ["tags"]),
    "involution": (Involution, _floats(3, 8, 8), ["x"], ["y"]),
    "segnet": (SegNet, _floats(3, 8, 8), ["x"], ["y"]),
    "fnet": (FNet, _floats(6, 16), ["x"], ["y"]),
    "lstm_state": (LSTMState, _lstm_state_inputs, ["x", "h0", "c0"], ["y", "h", "c"]),
    "pad_modes": (PadModes, _floats(3, 8, 8), ["x"], ["y"]),
    "ranker": (Ranker, _floats(7, 6), ["items"], ["order", "top", "sorted"]),
    "chw_layernorm": (CHWLayerNorm, _floats(3, 6, 6), ["x"], ["a", "b"]),
    "retrieval": (Retrieval, _floats(8), ["x"], ["v", "i", "cos"]),
    "embedding_bag": (EmbBag, _bags, ["ids"], ["y"]),
    "detr_sine": (DETRSine, _detr_inputs, ["x", "mask"], ["y"]),
}
# The batch's axis where it is not 0.
BATCH_AXES = {"lstm_state": {"h0": 1, "c0": 1, "h": 1, "c": 1}}
# Exports TorchScript refuses (max_pool2d with indices, fft2, nearest-exact): the dynamo exporter only.
DYNAMO_ONLY = {"segnet", "fnet", "chw_layernorm"}
# scaled_dot_product_attention (nn.TransformerEncoderLayer) needs opset 14.
MIN_OPSET = {"roberta": 14}
# TorchScript exports EmbeddingBag as a Loop over the bags: a loop of a run-time trip count, which the lite runtime
# does not have (see test_embedding_bag_of_a_run_time_batch_is_refused_naming_the_loop); a static batch unrolls it.
STATIC_ONLY = {"embedding_bag"}


def _cases():
    for name in MODELS:
        if name in DYNAMO_ONLY:
            yield name, True, 18, True
            continue
        dynamic = name not in STATIC_ONLY
        yield name, False, MIN_OPSET.get(name, 13), dynamic
        yield name, False, 17, dynamic


def export(name, dynamo, opset, dynamic):
    """The ONNX model of MODELS[name] as torch.onnx.export writes it."""
    cls, inputs, input_names, output_names = MODELS[name]
    module = torch_export_util.seeded_module(cls)
    return torch_export_util.export(
        module, inputs(2, 0), input_names, output_names, dynamo, opset, dynamic, BATCH_AXES.get(name)
    )


@pytest.mark.parametrize("name,dynamo,opset,dynamic", list(_cases()), ids=lambda v: v if isinstance(v, str) else None)
def test_pytorch_export_agrees_with_onnxruntime(name, dynamo, opset, dynamic):
    model = export(name, dynamo, opset, dynamic)
    torch_export_util.check_agrees(model, MODELS[name][1], [2, 3] if dynamic else [2], RTOL, ATOL)


# --- TopK of a run-time k -------------------------------------------------------------------------------------
def test_a_sort_of_the_whole_run_time_batch_is_a_top_k_of_every_element():
    """pack_padded_sequence(enforce_sorted=False) sorts the lengths with TopK(lengths, Shape(lengths)[0]): a k
    that is the size of its own run-time axis converts (TOP_K's k of -1, the whole axis), at every batch."""
    model = export("packed_tagger", False, 17, True)
    ops = twl_reader.read_builder(onnx_import.convert(model)).operators
    assert [op[4] for op in ops if op[0] == "TOP_K"] == [2]  # k -1, which version 1 runtimes refuse
    torch_export_util.check_agrees(model, _packed_inputs, [2, 5, 1], RTOL, ATOL)
    static = twl_reader.read_builder(onnx_import.convert(export("packed_tagger", False, 17, False))).operators
    assert [op[4] for op in static if op[0] == "TOP_K"] == [1]


def _top_k_model(k_from_axis, x_shape=("n", 5), axis=1, k=None):
    """TopK of x along `axis` with k the run-time size of x's axis `k_from_axis`, or the constant `k`."""
    nodes = []
    if k is None:
        nodes += [
            helper.make_node("Shape", ["x"], ["shape"]),
            helper.make_node("Slice", ["shape", "start", "end"], ["k"]),
        ]
        inits = [
            onnx.numpy_helper.from_array(np.array([k_from_axis], np.int64), "start"),
            onnx.numpy_helper.from_array(np.array([k_from_axis + 1], np.int64), "end"),
        ]
    else:
        inits = [onnx.numpy_helper.from_array(np.array([k], np.int64), "k")]
    nodes.append(helper.make_node("TopK", ["x", "k"], ["values", "indices"], name="top", axis=axis))
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, list(x_shape))],
        [
            helper.make_tensor_value_info("values", onnx.TensorProto.FLOAT, None),
            helper.make_tensor_value_info("indices", onnx.TensorProto.INT64, None),
        ],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_top_k_of_a_run_time_k_over_its_own_axis_agrees_with_onnxruntime():
    model = _top_k_model(0, x_shape=("n", 3), axis=0)
    torch_export_util.check_agrees(model, _floats(3), [4, 1, 7], RTOL, ATOL)


def test_top_k_of_a_run_time_k_over_another_axis_is_refused_naming_the_node():
    with pytest.raises(ConversionError, match=r"'top' \(TopK\): k \(input 1\): .* known only when the model runs"):
        onnx_import.convert(_top_k_model(0, axis=1))


def test_top_k_of_a_negative_k_is_refused_naming_the_node():
    """The lite TOP_K takes -1 for the whole axis; an ONNX model's k must not reach it as such."""
    with pytest.raises(
        ConversionError, match=r"'top' \(TopK\): k \(input 1\) must be one non-negative value, got \[-1\]"
    ):
        onnx_import.convert(_top_k_model(None, x_shape=(2, 5), k=-1))


def test_embedding_bag_of_a_run_time_batch_is_refused_naming_the_loop():
    with pytest.raises(ConversionError, match=r"\(Loop\): its trip count .* is not a constant"):
        onnx_import.convert(export("embedding_bag", False, 17, True))


# --- tf_keras models through tensorweave-convert, to .twl and to ONNX -----------------------------------------
def _keras_models(keras):
    layers = keras.layers

    def mobilenet_v2():
        """Inverted residuals: ZeroPadding2D before a VALID strided depthwise conv, ReLU6, linear bottlenecks."""
        i = keras.Input((16, 16, 3), name="x")
        h = layers.ReLU(6.0)(layers.BatchNormalization()(layers.Conv2D(8, 3, strides=2, padding="same")(i)))
        for expand, out, stride in ((4, 8, 1), (4, 12, 2), (4, 12, 1)):
            x = layers.ReLU(6.0)(layers.BatchNormalization()(layers.Conv2D(h.shape[-1] * expand, 1)(h)))
            if stride == 2:
                x = layers.ZeroPadding2D(((0, 1), (0, 1)))(x)
            x = layers.DepthwiseConv2D(3, strides=stride, padding="valid" if stride == 2 else "same")(x)
            x = layers.BatchNormalization()(layers.Conv2D(out, 1)(layers.ReLU(6.0)(layers.BatchNormalization()(x))))
            h = layers.Add()([h, x]) if stride == 1 and out == h.shape[-1] else x
        return keras.Model(i, layers.Dense(5, activation="softmax")(layers.GlobalAveragePooling2D()(h)))

    def efficientnet_se():
        """Swish, a squeeze-excite gate, and one through Reshape((1, 1, C)) of a run-time batch (TF packs
        Shape(x)[0] into the target)."""
        i = keras.Input((16, 16, 3), name="x")
        h = layers.Conv2D(8, 3, strides=2, padding="same", activation="swish")(i)
        se = layers.Conv2D(2, 1, activation="swish")(layers.GlobalAveragePooling2D(keepdims=True)(h))
        h = layers.Multiply()([h, layers.Conv2D(8, 1, activation="sigmoid")(se)])
        gate = layers.Dense(8, activation="hard_sigmoid")(layers.GlobalMaxPooling2D()(h))
        h = layers.multiply([h, layers.Reshape((1, 1, 8))(gate)])
        h = layers.SeparableConv2D(6, 3, padding="same", activation="elu")(h)
        return keras.Model(i, layers.Dense(4)(layers.Flatten()(layers.AveragePooling2D(4)(h))))

    def crnn_kws():
        """A keyword spotter: Reshape to an image, a strided Conv2D, Reshape to a sequence, a bidirectional GRU
        and a GRU (TensorFlow's while loops, the lite GRU)."""
        i = keras.Input((20, 10), name="x")
        h = layers.Conv2D(8, (5, 3), strides=(2, 1), padding="same", activation="relu")(layers.Reshape((20, 10, 1))(i))
        h = layers.Bidirectional(layers.GRU(8, return_sequences=True))(layers.Reshape((10, 80))(h))
        return keras.Model(i, layers.Dense(6, activation="softmax")(layers.GRU(8)(h)))

    def tcn():
        """Dilated causal Conv1Ds (TensorFlow's SpaceToBatchND/BatchToSpaceND over one spatial dim, with paddings
        and crops at this length), LayerNormalization, residual Adds, TimeDistributed and Permute."""
        i = keras.Input((11, 4), name="x")
        h = i
        for d in (1, 2, 4):
            r = layers.LayerNormalization()(
                layers.Conv1D(8, 3, padding="causal", dilation_rate=d, activation="relu")(h)
            )
            h = layers.Add()([layers.Conv1D(8, 1)(h) if h.shape[-1] != 8 else h, r])
        h = layers.Conv1D(8, 3, padding="same", dilation_rate=3)(h)
        h = layers.Permute((2, 1))(layers.TimeDistributed(layers.Dense(5))(h))
        return keras.Model(i, layers.Dense(3)(h))

    def unet():
        """LeakyReLU, PReLU with shared axes, Conv2DTranspose, Concatenate with a Cropping2D skip, UpSampling2D."""
        i = keras.Input((16, 16, 3), name="x")
        c1 = layers.LeakyReLU(0.1)(layers.Conv2D(8, 3, padding="same")(i))
        c2 = layers.PReLU(shared_axes=[1, 2])(layers.Conv2D(12, 3, padding="same")(layers.MaxPooling2D()(c1)))
        h = layers.Concatenate()([layers.Conv2DTranspose(8, 2, strides=2)(c2), c1])
        h = layers.Concatenate()([layers.Conv2D(8, 3, activation="relu")(h), layers.Cropping2D(1)(c1)])
        return keras.Model(i, layers.Conv2D(2, 1, activation="softmax")(layers.UpSampling2D()(h)))

    def attention():
        """Keras' dot-product and additive Attention layers over an encoder, queries by RepeatVector."""
        i = keras.Input((8, 6), name="x")
        enc = layers.Dense(12, activation="tanh")(i)
        q = layers.RepeatVector(4)(layers.Dense(12)(layers.GlobalAveragePooling1D()(enc)))
        ctx = layers.Attention(use_scale=True)([q, enc])
        return keras.Model(i, layers.Concatenate()([ctx, layers.AdditiveAttention()([q, enc])]))

    return {
        "mobilenet_v2": mobilenet_v2,
        "efficientnet_se": efficientnet_se,
        "crnn_kws": crnn_kws,
        "tcn": tcn,
        "unet": unet,
        "attention": attention,
    }


@pytest.fixture(scope="module")
def _keras_h5(tmp_path_factory):
    """{name: (path of the .h5, input of batch 3, Keras' output)}, built once under TF2 behavior."""
    keras = pytest.importorskip("tf_keras")
    from tensorflow.python.eager import context
    from tf2_behavior import tf2_behavior

    out = {}
    with tf2_behavior(), context.eager_mode():
        for name, build in _keras_models(keras).items():
            keras.utils.set_random_seed(1)
            model = build()
            rng = np.random.default_rng(7)
            for layer in model.layers:
                if isinstance(layer, keras.layers.BatchNormalization):
                    layer.set_weights([rng.uniform(0.5, 1.5, w.shape).astype(np.float32) for w in layer.get_weights()])
            x = rng.standard_normal((3, *model.input_shape[1:])).astype(np.float32)
            path = str(tmp_path_factory.mktemp(name) / "model.h5")
            model.save(path)
            out[name] = (path, x, model.predict(x, verbose=0))
    return out


@pytest.mark.parametrize("fmt", ["twl", "onnx"])
@pytest.mark.parametrize("name", ["mobilenet_v2", "efficientnet_se", "crnn_kws", "tcn", "unet", "attention"])
def test_tf_keras_model_converts_to_twl_and_onnx_and_agrees_at_two_batches(tmp_path, _keras_h5, name, fmt):
    """The .twl on the lite runtime and the ONNX model on onnxruntime agree with Keras at batch 3 and 1 (a run-time
    batch). ONNX export refused efficientnet_se and crnn_kws (Reshape's target packed from Shape(x)[0]) and tcn
    (SpaceToBatchND over one spatial dim) before."""
    import onnxruntime as ort

    from converters.cli import main as cli_main

    path, x, want = _keras_h5[name]
    out = str(tmp_path / f"model.{fmt}")
    assert cli_main(["--input", path, "--output", out]) == 0
    if fmt == "twl":
        runner = lite_runner.LiteRunner(out)
        run = lambda xs: next(iter(runner.run({"x": xs}).values()))
    else:
        session = ort.InferenceSession(out, providers=["CPUExecutionProvider"])
        run = lambda xs: session.run(None, {session.get_inputs()[0].name: xs})[0]
    for batch in (3, 1):
        np.testing.assert_allclose(run(x[:batch]), want[:batch], rtol=RTOL, atol=ATOL, err_msg=f"batch {batch}")


def test_onnx_export_of_a_computed_reshape_target_with_two_run_time_dims_is_refused(tmp_path, capsys):
    """Reshape to [Shape(x)[0], -1] of an x with a run-time batch and length: the output has two unknown dims, so
    no constant target stands for it; refused naming the node."""
    tf = pytest.importorskip("tensorflow")
    from converters.cli import main as cli_main

    v1 = tf.compat.v1
    with tf.Graph().as_default() as g:
        x = v1.placeholder(tf.float32, [None, None, 4], name="x")
        tf.identity(tf.reshape(x, tf.stack([tf.shape(x)[0], -1])), name="y")
    pb = str(tmp_path / "model.pb")
    with open(pb, "wb") as f:
        f.write(g.as_graph_def().SerializeToString())
    out = str(tmp_path / "model.onnx")
    assert cli_main(["--input", pb, "--output", out, "--inputs", "x", "--outputs", "y"]) == 1
    assert "(Reshape): shape (input 1) is computed, and the output's shape [None, None] has not one unknown dim" in (
        capsys.readouterr().err
    )


# --- transposed convolutions over run-time spatial dims -------------------------------------------------------
class Upsampler(nn.Module):
    """A decoder of transposed convs: stride 2 with output_padding, a grouped one with dilation, and stride 3."""

    def __init__(self):
        super().__init__()
        self.a = nn.ConvTranspose2d(3, 6, 3, stride=2, padding=1, output_padding=1)
        self.b = nn.ConvTranspose2d(6, 4, 3, stride=1, padding=2, dilation=2, groups=2)
        self.c = nn.ConvTranspose2d(4, 2, (2, 3), stride=(3, 2))

    def forward(self, x):
        return self.c(F.relu(self.b(F.relu(self.a(x)))))


def _export_with_axes(module, args, input_names, output_names, axes):
    """torch.onnx.export (TorchScript, opset 17) with dynamic axes {input: {axis: name}}."""
    import io

    buffer = io.BytesIO()
    with torch.no_grad():
        torch.onnx.export(
            module, args, buffer, input_names=input_names, output_names=output_names, opset_version=17,
            dynamo=False, dynamic_axes=axes,
        )  # fmt: skip
    return onnx.load_from_string(buffer.getvalue())


@pytest.mark.parametrize(
    "make,shape,axes,sizes",
    [
        (ConvTasNet, (2, 1, 64), {2: "t"}, [(2, 1, 64), (3, 1, 96), (1, 1, 40)]),
        (Upsampler, (2, 3, 5, 5), {2: "h", 3: "w"}, [(2, 3, 5, 5), (1, 3, 7, 4), (2, 3, 1, 9)]),
    ],
    ids=["conv_tasnet_length", "upsampler_h_w"],
)
def test_transposed_convs_over_run_time_spatial_dims_follow_the_input(make, shape, axes, sizes):
    """A ConvTranspose of a run-time length (Conv-TasNet's decoder) or image size: its output is
    (in - 1) * stride + a constant at every size (TRANSPOSE_CONV's out_follows_input). The lite output had the
    size at the conversion's static fill before, silently cut or padded."""
    import onnxruntime as ort

    model = _export_with_axes(
        torch_export_util.seeded_module(make), (torch.randn(*shape),), ["x"], ["y"], {"x": {0: "n", **axes}}
    )
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    data = onnx_import.convert(model)
    # Version 2: a version 1 runtime would ignore out_follows_input (lite/schema/README.md, rule 5).
    assert {(op[0], op[4]) for op in twl_reader.read_builder(data).operators if op[0] == "TRANSPOSE_CONV"} == {
        ("TRANSPOSE_CONV", 2)
    }
    runner = lite_runner.LiteRunner(data)
    for size in sizes:
        x = np.random.default_rng(sum(size)).standard_normal(size).astype(np.float32)
        want = session.run(None, {"x": x})[0]
        got = runner.run({"x": x})["y"]
        assert got.shape == want.shape, size
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=str(size))


def test_a_3d_transposed_conv_over_a_run_time_depth_is_refused():
    model = _export_with_axes(
        nn.ConvTranspose3d(2, 2, 3, stride=2).eval(), (torch.randn(1, 2, 3, 4, 4),), ["x"], ["y"], {"x": {2: "d"}}
    )
    with pytest.raises(ConversionError, match=r"\(ConvTranspose\): 3-D ConvTranspose needs static sizes"):
        onnx_import.convert(model)


# --- a float Range of a run-time length -----------------------------------------------------------------------
class SinusoidalEncoder(nn.Module):
    """The Transformer's sinusoidal position encoding of a run-time sequence length (torch.arange(s,
    dtype=torch.float32): a float Range whose limit is computed from the input's shape), added to projected
    features."""

    def __init__(self, d=8):
        super().__init__()
        self.proj = nn.Linear(5, d)
        self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, d, 2, dtype=torch.float32) / d)))

    def forward(self, x):
        pos = torch.arange(x.shape[1], dtype=torch.float32)[:, None] * self.inv_freq
        return self.proj(x) + torch.cat([pos.sin(), pos.cos()], -1)


def test_a_float_range_of_a_run_time_length_agrees_at_every_length():
    """Refused before ('a float32 Range with bounds computed at run time'): start and delta are whole numbers, so
    it is the integer range, cast."""
    import onnxruntime as ort

    model = _export_with_axes(
        torch_export_util.seeded_module(SinusoidalEncoder),
        (torch.randn(2, 6, 5),),
        ["x"],
        ["y"],
        {"x": {0: "n", 1: "s"}},
    )
    assert any(n.op_type == "Range" for n in model.graph.node)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    runner = lite_runner.LiteRunner(onnx_import.convert(model))
    for shape in [(2, 6, 5), (1, 11, 5), (3, 1, 5)]:
        x = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)
        np.testing.assert_allclose(runner.run({"x": x})["y"], session.run(None, {"x": x})[0], rtol=RTOL, atol=ATOL)


def test_a_float_range_of_a_fractional_delta_and_a_run_time_limit_is_refused():
    graph = helper.make_graph(
        [
            helper.make_node("Shape", ["x"], ["shape"], start=0, end=1),
            helper.make_node("Cast", ["shape"], ["limit_1d"], to=onnx.TensorProto.FLOAT),
            helper.make_node("Squeeze", ["limit_1d"], ["limit"]),
            helper.make_node("Range", ["start", "limit", "delta"], ["y"], name="range"),
        ],
        "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["n", 3])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)],
        [
            onnx.numpy_helper.from_array(np.array(0.0, np.float32), "start"),
            onnx.numpy_helper.from_array(np.array(0.5, np.float32), "delta"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(ConversionError, match=r"'range' \(Range\): a float32 Range with bounds computed at run time"):
        onnx_import.convert(model)


class YoloV5Detect(nn.Module):
    """YOLOv5's Detect head as exported with dynamic=True: the grid made at run time from the feature map's size
    (torch.arange(ny, dtype=float32), meshgrid: Expands to Concat(Shape(yv), Shape(xv))), sigmoid decode with
    anchors."""

    def __init__(self, na=3, no=7):
        super().__init__()
        self.na, self.no = na, no
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.SiLU(), nn.Conv2d(8, 16, 3, 2, 1), nn.SiLU())
        self.m = nn.Conv2d(16, na * no, 1)
        self.register_buffer("anchor", torch.tensor([[10.0, 13.0], [16.0, 30.0], [33.0, 23.0]]).view(1, na, 1, 1, 2))

    def forward(self, x):
        y = self.m(self.backbone(x))
        bs, _, ny, nx = y.shape
        y = y.view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).sigmoid()
        yv, xv = torch.meshgrid(
            torch.arange(ny, dtype=torch.float32), torch.arange(nx, dtype=torch.float32), indexing="ij"
        )
        grid = torch.stack((xv, yv), 2).view(1, 1, ny, nx, 2)
        xy = (y[..., :2] * 2 - 0.5 + grid) * 4.0
        wh = (y[..., 2:4] * 2) ** 2 * self.anchor
        return torch.cat((xy, wh, y[..., 4:]), -1).view(bs, -1, self.no)


def test_yolov5_grid_of_a_run_time_image_size_agrees_at_non_square_sizes():
    """The float aranges were refused; then the Expand of yv ([ny, 1]) to [ny, nx] took its run-time nx from yv's
    own range (both probe alike after the strided convs), failing the invoke at any H != W."""
    import onnxruntime as ort

    model = _export_with_axes(
        torch_export_util.seeded_module(YoloV5Detect),
        (torch.randn(2, 3, 16, 16),),
        ["x"],
        ["y"],
        {"x": {0: "n", 2: "h", 3: "w"}},
    )
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    runner = lite_runner.LiteRunner(onnx_import.convert(model))
    for shape in [(2, 3, 16, 16), (1, 3, 32, 24), (2, 3, 24, 40), (1, 3, 8, 4)]:
        x = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)
        want = session.run(None, {"x": x})[0]
        got = runner.run({"x": x})["y"]
        assert got.shape == want.shape, shape
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=str(shape))

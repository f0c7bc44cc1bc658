"""PyTorch exports with run-time dims besides the batch (sequence length,
image height and width) through the ONNX importer and the lite runtime.

Each model is exported by both exporters (TorchScript with dynamic_axes,
dynamo with dynamic_shapes; see FULL), converted with `onnx_import.convert` (one with
the CLI), and run on the lite runtime at several sizes, including ones other
than the export's, against onnxruntime on the same file. The shapes the
model computes from its dims (Reshape targets, Expand sizes, Range limits)
are computed by the runtime at each size (onnx_import/run_time.py).
"""

import io
import os
import warnings

import numpy as np
import pytest
import transformer_models

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
# The dynamo exporter takes 5-20 s a model: by default it exports the models
# whose ONNX differs most from the TorchScript one's (positions from arange,
# the padding mask, H/W resized by a scale); TW_DYNAMIC_DIMS_FULL=1 exports
# every model with both exporters.
FULL = os.environ.get("TW_DYNAMIC_DIMS_FULL") == "1"
DYNAMO_DEFAULT = {"bert", "encoder_padding_mask", "fcn"}


class Encoder(nn.Module):
    """nn.TransformerEncoder over embeddings, mean over the sequence."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 32)
        layer = nn.TransformerEncoderLayer(32, 4, 64, batch_first=True, dropout=0.0)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.fc = nn.Linear(32, 3)

    def forward(self, ids):
        return self.fc(self.enc(self.emb(ids)).mean(1))


class PaddedEncoder(Encoder):
    """The encoder with src_key_padding_mask (True: padding)."""

    def forward(self, ids, pad):
        return self.fc(self.enc(self.emb(ids), src_key_padding_mask=pad).mean(1))


class Bert(nn.Module):
    """Token and position embeddings (positions from torch.arange of the
    sequence length), an attention mask input, hand-written attention."""

    def __init__(self, d=32, heads=4, position_buffer=False):
        super().__init__()
        self.heads, self.d = heads, d
        self.position_buffer = position_buffer  # HF's position_ids[:, :seq_length] instead of arange
        self.register_buffer("position_ids", torch.arange(64)[None], persistent=False)
        self.tok, self.pos = nn.Embedding(100, d), nn.Embedding(64, d)
        self.qkv, self.out, self.norm = nn.Linear(d, 3 * d), nn.Linear(d, d), nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(self, ids, mask):
        b, s = ids.shape
        positions = self.position_ids[:, :s] if self.position_buffer else torch.arange(s, device=ids.device)
        x = self.tok(ids) + self.pos(positions)
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, self.d // self.heads).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / (self.d // self.heads) ** 0.5
        scores = scores + (1.0 - mask[:, None, None, :].to(scores.dtype)) * -10000.0
        y = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, s, self.d)
        x = self.norm(x + self.out(y))
        return x + self.ff(x)


class GptBlock(nn.Module):
    """A decoder block with the causal mask from torch.triu(torch.ones(s, s))."""

    def __init__(self, d=32, heads=4):
        super().__init__()
        self.heads, self.d = heads, d
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(approximate="tanh"), nn.Linear(4 * d, d))

    def forward(self, x):
        b, s, _ = x.shape
        h = self.d // self.heads
        q, k, v = self.qkv(self.ln1(x)).split(self.d, dim=2)
        q, k, v = (t.view(b, s, self.heads, h).transpose(1, 2) for t in (q, k, v))
        causal = torch.triu(torch.ones(s, s, device=x.device), diagonal=1).bool()
        att = (q @ k.transpose(-2, -1)) * h**-0.5
        att = att.masked_fill(causal, float("-inf")).softmax(-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(b, s, self.d))
        return x + self.mlp(self.ln2(x))


class RnnClassifier(nn.Module):
    def __init__(self, cell):
        super().__init__()
        self.rnn = getattr(nn, cell)(8, 16, batch_first=True)
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y.mean(1))


class Fcn(nn.Module):
    """Conv, downsample, upsample by F.interpolate(scale_factor=2), concat skip."""

    def __init__(self):
        super().__init__()
        self.c1, self.c2 = nn.Conv2d(3, 8, 3, padding=1), nn.Conv2d(8, 8, 3, stride=2, padding=1)
        self.c3 = nn.Conv2d(16, 2, 1)

    def forward(self, x):
        a = F.relu(self.c1(x))
        b = F.interpolate(F.relu(self.c2(a)), scale_factor=2, mode="nearest")
        return self.c3(torch.cat([a, b], 1))


def _ids(b, s):
    return np.random.default_rng(b * 100 + s).integers(0, 100, (b, s)).astype(np.int64)


def _floats(*shape):
    return np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)


def _pad_mask(b, s, dtype):
    mask = np.ones((b, s), dtype)
    mask[0, s // 2 :] = 0  # the first sequence padded
    return mask if dtype != np.bool_ else ~mask


# name -> (model, input names, dims of each input (axis -> dim name), feeds at (b, s_or_hw))
CASES = {
    "encoder": (lambda: Encoder(), ["ids"], [{0: "b", 1: "s"}], lambda b, s: [_ids(b, s)]),
    "encoder_padding_mask": (
        lambda: PaddedEncoder(),
        ["ids", "pad"],
        [{0: "b", 1: "s"}, {0: "b", 1: "s"}],
        lambda b, s: [_ids(b, s), _pad_mask(b, s, np.bool_)],
    ),
    "bert": (
        lambda: Bert(),
        ["ids", "mask"],
        [{0: "b", 1: "s"}, {0: "b", 1: "s"}],
        lambda b, s: [_ids(b, s), _pad_mask(b, s, np.int64)],
    ),
    "bert_position_buffer": (
        lambda: Bert(position_buffer=True),
        ["ids", "mask"],
        [{0: "b", 1: "s"}, {0: "b", 1: "s"}],
        lambda b, s: [_ids(b, s), _pad_mask(b, s, np.int64)],
    ),
    "gpt": (lambda: GptBlock(), ["x"], [{0: "b", 1: "s"}], lambda b, s: [_floats(b, s, 32)]),
    "gru": (lambda: RnnClassifier("GRU"), ["x"], [{0: "b", 1: "s"}], lambda b, s: [_floats(b, s, 8)]),
    "lstm": (lambda: RnnClassifier("LSTM"), ["x"], [{0: "b", 1: "s"}], lambda b, s: [_floats(b, s, 8)]),
    "fcn": (lambda: Fcn(), ["x"], [{0: "b", 2: "h", 3: "w"}], lambda b, s: [_floats(b, 3, 2 * s, 2 * s + 4)]),
}
EXPORT_SIZE = (2, 6)
# Sizes other than the export's; the TorchScript exporter bakes the sequence
# length into nn.MultiheadAttention's reshapes (onnxruntime too fails at
# another), so there only the batch moves.
SIZES = [(1, 5), (3, 11)]
TRACED_FIXED_SEQUENCE = {"encoder", "encoder_padding_mask"}


def _export(name, dynamo):
    make, names, dims, feeds = CASES[name]
    torch.manual_seed(0)
    model = make().eval()
    args = tuple(torch.from_numpy(a) for a in feeds(*EXPORT_SIZE))
    buffer = io.BytesIO()
    kw = {"input_names": names, "output_names": ["y"], "dynamo": dynamo}
    if dynamo:
        symbols = {}
        kw["dynamic_shapes"] = tuple(
            {axis: symbols.setdefault(d, torch.export.Dim(d, min=1, max=64)) for axis, d in dd.items()} for dd in dims
        )
        kw["opset_version"] = 18
    else:
        kw["dynamic_axes"] = dict(zip(names, dims))
        kw["opset_version"] = 17
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            program = torch.onnx.export(model, args, **kw)
            return program.model_proto.SerializeToString()
        torch.onnx.export(model, args, buffer, **kw)
    return buffer.getvalue()


def _check(name, data, dynamo):
    feeds = CASES[name][3]
    session = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    runner = lite_runner.LiteRunner(onnx_import.convert(data))
    sizes = [EXPORT_SIZE] + SIZES
    if not dynamo and name in TRACED_FIXED_SEQUENCE:
        sizes = [(b, EXPORT_SIZE[1]) for b, _ in sizes]
    for b, s in sizes:
        values = feeds(b, s)
        want = session.run(None, dict(zip([i.name for i in session.get_inputs()], values)))[0]
        got = runner.run(dict(zip(runner.input_names, values)))
        got = next(iter(got.values()))
        assert got.shape == want.shape, (b, s)
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=f"{name} at {(b, s)}")


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_export_runs_at_every_size(name, dynamo):
    if dynamo:
        pytest.importorskip("onnxscript")
        if not FULL and name not in DYNAMO_DEFAULT:
            pytest.skip("TW_DYNAMIC_DIMS_FULL=1 exports every model with the dynamo exporter")
    _check(name, _export(name, dynamo), dynamo)


def test_cli_converts_a_model_with_batch_and_sequence_dims(tmp_path):
    onnx_path, twl_path = tmp_path / "gpt.onnx", tmp_path / "gpt.twl"
    onnx_path.write_bytes(_export("gpt", False))
    assert cli_main(["--input", str(onnx_path), "--output", str(twl_path)]) == 0
    runner = lite_runner.LiteRunner(twl_path.read_bytes())
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    for b, s in [(1, 3), (4, 17)]:
        x = _floats(b, s, 32)
        (want,) = session.run(None, {"x": x})
        np.testing.assert_allclose(runner.run({"x": x})["y"], want, rtol=RTOL, atol=ATOL)


def _graph(nodes, inits, y_rank):
    from onnx import TensorProto, helper, numpy_helper

    g = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", "s", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [f"y{i}" for i in range(y_rank)])],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in inits],
    )
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def _shape_nodes(out, axis):
    from onnx import helper

    return [helper.make_node("Shape", ["x"], [f"{out}/shape"], start=axis, end=axis + 1)]


def _builtins(twl):
    """The lite builtin op names of a .twl model's operators."""
    from converters import twl_writer

    graph = twl_writer.read_model(twl).Subgraphs(0)
    names = {v: k for k, v in vars(twl_writer.twl_schema.enum("BuiltinOperator")).items() if not k.startswith("_")}
    return {names[graph.Operators(i).Opcode()] for i in range(graph.OperatorsLength())}


def test_each_run_time_dim_is_computed_on_its_own():
    """Reshape [b, s, 4] to [s, 4 * b] and Expand a [1, 1] to [s - b + 9, b]:
    values that mix the dims (equal dims would hide a swap) computed at
    sizes where they differ."""
    from onnx import helper

    nodes = (
        _shape_nodes("b", 0)
        + _shape_nodes("s", 1)
        + [
            helper.make_node("Mul", ["b/shape", "four"], ["b4"]),
            helper.make_node("Concat", ["s/shape", "b4"], ["target"], axis=0),
            helper.make_node("Reshape", ["x", "target"], ["r"]),
            helper.make_node("Sub", ["s/shape", "b/shape"], ["d"]),
            helper.make_node("Add", ["d", "nine"], ["d9"]),
            helper.make_node("Concat", ["d9", "b/shape"], ["size"], axis=0),
            helper.make_node("Expand", ["one", "size"], ["e"]),
        ]
    )
    nodes.append(helper.make_node("ReduceSum", ["e"], ["n"], keepdims=0))
    nodes.append(helper.make_node("Mul", ["r", "n"], ["y"]))
    inits = [("four", np.array([4], np.int64)), ("nine", np.array([9], np.int64)), ("one", np.ones([1, 1], np.float32))]
    data = _graph(nodes, inits, 2).SerializeToString()
    twl = onnx_import.convert(data)
    assert "SHAPE" in _builtins(twl)  # the shape values are computed when the model runs
    runner = lite_runner.LiteRunner(twl)
    session = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    for b, s in [(2, 3), (5, 7), (1, 12)]:
        x = _floats(b, s, 4)
        (want,) = session.run(None, {"x": x})
        got = runner.run({"x": x})["y"]
        assert got.shape == want.shape == (s, 4 * b)
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


def _half_slice_model(negative):
    """x[:, : s // 2] (or x[:, : -(s // 2)]) with the end computed from the
    sequence length."""
    from onnx import helper

    nodes = _shape_nodes("s", 1) + [helper.make_node("Div", ["s/shape", "two"], ["half"])]
    if negative:
        nodes.append(helper.make_node("Neg", ["half"], ["end"]))
    nodes.append(helper.make_node("Slice", ["x", "zero", "end" if negative else "half", "one"], ["y"]))
    inits = [("two", np.array([2], np.int64)), ("zero", np.array([0], np.int64)), ("one", np.array([1], np.int64))]
    return _graph(nodes, inits, 3)


def test_a_slice_to_a_computed_end_agrees():
    data = _half_slice_model(False).SerializeToString()
    runner = lite_runner.LiteRunner(onnx_import.convert(data))
    for b, s in [(2, 3), (1, 8), (3, 11)]:
        x = _floats(b, s, 4)
        np.testing.assert_array_equal(runner.run({"x": x})["y"], x[:, : s // 2])


def test_a_run_time_value_that_cannot_be_computed_names_the_tensor():
    """x[:, : -(s // 2)]: a computed negative bound is refused, naming the
    value and the input whose dims it reads."""
    with pytest.raises(ConversionError, match=r"'end' is computed from the shape of 'x' \[-1, -1, 4\]"):
        onnx_import.convert(_half_slice_model(True))


@pytest.mark.parametrize(
    "index",
    [
        (slice(None), -1),
        (slice(None), slice(None, -1)),
        (slice(None), slice(1, None, 2)),
        (slice(None), slice(-2, None)),
    ],
    ids=["last", "all_but_last", "odd", "last_two"],
)
def test_indexing_from_the_end_of_a_run_time_dim(index):
    """x[:, -1] (the last token), x[:, :-1], x[:, 1::2], x[:, -2:] on the
    sequence axis: bounds counted from the end of the run-time dim at each
    size, not of the static one."""

    class Index(nn.Module):
        def forward(self, x):
            return x[index] * 2

    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            Index(), (torch.ones(2, 6, 4),), buffer, input_names=["x"], output_names=["y"], opset_version=17,
            dynamo=False, dynamic_axes={"x": {0: "b", 1: "s"}},
        )  # fmt: skip
    runner = lite_runner.LiteRunner(onnx_import.convert(buffer.getvalue()))
    for b, s in [(2, 6), (1, 3), (3, 9)]:
        x = _floats(b, s, 4)
        np.testing.assert_array_equal(runner.run({"x": x})["y"], x[index] * 2)


def test_repeated_runs_of_a_dynamic_sequence_encoder_agree():
    """The encoder with a symbolic sequence dim (its reshapes computed from
    Shape(input_ids)): runs at one size (ops after a computed shape are
    prepared once, then reused) and between sizes agree with onnxruntime."""
    model = transformer_models.encoder(layers=2, dynamic_seq=True)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    runner = lite_runner.LiteRunner(onnx_import.convert(model))
    for seq, padding, seed in [(16, 3, 1), (16, 0, 2), (16, 7, 3), (5, 1, 4), (16, 3, 5), (9, 0, 6)]:
        feeds = transformer_models.feeds(seq=seq, padding=padding, seed=seed)
        want = session.run(None, feeds)[0]
        got = runner.run(feeds)["last_hidden_state"]
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=f"seq {seq}")

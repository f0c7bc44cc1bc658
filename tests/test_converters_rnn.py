"""ONNX LSTM, GRU and RNN on the lite runtime, against onnxruntime: every
direction and layout, with and without sequence_lens and initial states,
bias, peepholes, clip, input_forget, linear_before_reset, several batch and
sequence sizes; whole text classifiers as PyTorch exports them; and the
models the converter must refuse, with the node named."""

import collections
import itertools

import numpy as np
import pytest
import rnn_models
from onnx import helper, numpy_helper

from converters import lite_runner, onnx_import, twl_writer
from converters.errors import ConversionError

ort = pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.skipif(not lite_runner.available(), reason="bazel build //lite/c:libtensorweave_lite.so first")
RTOL, ATOL = 1e-4, 1e-4
SIZES = [(1, 1), (3, 5), (2, 9)]  # (batch, steps)


def _node_test(op, *args, **kwargs):
    """Compares one node's model on the lite runtime with onnxruntime (which
    refuses layout 1: it runs the Transpose-wrapped layout-0 equivalent)."""
    model, feeds = rnn_models.rnn_node_model(op, *args, **kwargs)
    reference, _ = rnn_models.rnn_node_model(op, *args, time_major_equivalent=True, **kwargs)
    return _compare(model, feeds, reference=reference)


def _ops(data):
    m = twl_writer.read_model(data)
    g = m.Subgraphs(0)
    names = {v: k for k, v in vars(twl_writer.twl_schema.enum("BuiltinOperator")).items() if not k.startswith("_")}
    return collections.Counter(names[g.Operators(i).Opcode()] for i in range(g.OperatorsLength()))


def _compare(model, feeds, threads=(1, 2), reference=None):
    """onnxruntime's outputs (of `reference`, an equivalent model, if given)
    against the converted model's on the lite runtime with 1 and 2 threads;
    returns the .twl bytes."""
    reference = reference or model
    want = ort.InferenceSession(reference.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)
    data = onnx_import.convert(model)
    names = [o.name for o in model.graph.output]
    for n in threads:
        got = lite_runner.LiteRunner(data, num_threads=n).run(feeds)
        for name, w in zip(names, want):
            assert got[name].shape == w.shape, (name, got[name].shape, w.shape)
            np.testing.assert_allclose(got[name], w, rtol=RTOL, atol=ATOL, err_msg=f"{name}, {n} threads")
    return data


# Every direction x layout x sequence_lens x initial states, each with a
# batch/steps size in turn and bias on all but one in four.
_GRID = list(itertools.product(["forward", "reverse", "bidirectional"], [0, 1], [False, True], [False, True]))


@pytest.mark.parametrize("op", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("direction,layout,lens,initial", _GRID)
def test_rnn_node(op, direction, layout, lens, initial):
    i = _GRID.index((direction, layout, lens, initial))
    batch, steps = SIZES[i % len(SIZES)]
    data = _node_test(
        op, steps, batch, 5, 7, direction, layout, bias=i % 4 != 3, sequence_lens=lens, initial=initial, seed=i
    )
    assert _ops(data) == {op: 1}


@pytest.mark.parametrize("direction", ["forward", "bidirectional"])
@pytest.mark.parametrize("layout", [0, 1])
def test_lstm_peepholes(direction, layout):
    _node_test("LSTM", 6, 3, 4, 8, direction, layout, sequence_lens=True, initial=True, peepholes=True, seed=3)


@pytest.mark.parametrize("op,extra", [("LSTM", {"input_forget": 1}), ("LSTM", {}), ("GRU", {}), ("RNN", {})])
def test_clip_and_input_forget(op, extra):
    model, feeds = rnn_models.rnn_node_model(
        op, 7, 2, 3, 5, "bidirectional", 0, sequence_lens=True, initial=True, clip=0.6, seed=4, **extra
    )
    feeds["X"] *= 3  # drive the pre-activations past the clip
    _compare(model, feeds)


@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
@pytest.mark.parametrize("layout", [0, 1])
@pytest.mark.parametrize("lens", [False, True])
def test_gru_linear_before_reset(direction, layout, lens):
    batch, steps = SIZES[(layout + 2 * lens) % len(SIZES)]
    _node_test(
        "GRU", steps, batch, 6, 9, direction, layout, sequence_lens=lens, initial=True, linear_before_reset=1, seed=5
    )


@pytest.mark.parametrize("op", ["LSTM", "GRU", "RNN"])
def test_opset7_and_explicit_default_activations(op):
    acts = {"LSTM": ["Sigmoid", "Tanh", "Tanh"], "GRU": ["Sigmoid", "Tanh"], "RNN": ["Tanh"]}[op]
    model, feeds = rnn_models.rnn_node_model(
        op, 4, 2, 3, 4, "bidirectional", opset=7, initial=True, activations=acts * 2, seed=6
    )
    _compare(model, feeds)


@pytest.mark.parametrize(
    "op,acts,alpha,beta,extra",
    [
        # Keras 2's hard_sigmoid gates (TF1 tf.keras' LSTM default), Keras 3's, relu cells
        ("LSTM", ["HardSigmoid", "Tanh", "Tanh"], [0.2], [0.5], {}),
        ("LSTM", ["HardSigmoid", "Relu", "Relu"], [1 / 6], [0.5], {"input_forget": 1}),
        ("LSTM", ["Tanh", "Sigmoid", "Sigmoid"], None, None, {"clip": 0.9}),
        ("GRU", ["HardSigmoid", "Tanh"], [0.2], [0.5], {}),
        ("GRU", ["HardSigmoid", "HardSigmoid"], [0.3, 0.3], [0.4, 0.4], {"linear_before_reset": 1}),
        ("GRU", ["Relu", "Relu"], None, None, {}),
        ("RNN", ["Relu"], None, None, {}),
        ("RNN", ["HardSigmoid"], [0.25], [0.45], {"clip": 2.0}),
    ],
)
def test_other_activations_agree_with_onnxruntime(op, acts, alpha, beta, extra):
    """Gate and cell activations other than sigmoid/tanh on the lite op itself (options gate_activation,
    activation, activation_alpha/beta), bidirectional with sequence lengths and initial states."""
    attributes = dict(extra, activations=acts * 2)
    if alpha:
        attributes.update(activation_alpha=alpha * 2, activation_beta=beta * 2)
    model, feeds = rnn_models.rnn_node_model(
        op, 6, 3, 4, 5, "bidirectional", sequence_lens=True, initial=True, seed=8, **attributes
    )
    feeds["X"] *= 3  # past the hard sigmoid's corners
    data = _compare(model, feeds)
    assert _ops(data) == {op: 1}


def test_only_some_outputs_used():
    """Y_h alone (Y and Y_c named ''), as a classifier uses it."""
    model, feeds = rnn_models.rnn_node_model("LSTM", 5, 2, 3, 4, seed=7)
    node = model.graph.node[0]
    node.output[:] = ["", "Y_h"]
    del model.graph.output[:]
    model.graph.output.extend([helper.make_tensor_value_info("Y_h", 1, None)])
    _compare(model, feeds)


def test_wide_lstm_batch_one():
    model, feeds = rnn_models.rnn_node_model("LSTM", 20, 1, 64, 128, initial=True, seed=8)
    _compare(model, feeds)


# --- whole models -------------------------------------------------------------------------------
@pytest.mark.parametrize("op", ["LSTM", "GRU"])
@pytest.mark.parametrize("batch,bidirectional", [(1, False), (4, False), (2, True)])
def test_classifier_matches_onnxruntime(op, batch, bidirectional):
    model, feeds = rnn_models.classifier_model(
        op, vocab=300, embed=32, hidden=48, batch=batch, steps=12, bidirectional=bidirectional
    )
    data = _compare(model, feeds)
    ops = _ops(data)
    assert ops[op] == 2 and ops["FULLY_CONNECTED"] == 1, ops


# --- refusals and runtime errors ---------------------------------------------------------------
def _refused(model, pattern):
    with pytest.raises(ConversionError, match=pattern):
        onnx_import.convert(model)


def _replace_initializer(model, name, value):
    for i, t in enumerate(model.graph.initializer):
        if t.name == name:
            model.graph.initializer[i].CopyFrom(numpy_helper.from_array(np.asarray(value, np.float32), name))


def test_wrong_weight_shapes_are_refused():
    model, _ = rnn_models.rnn_node_model("LSTM", 3, 2, 4, 5)
    _replace_initializer(model, "W", np.zeros([1, 20, 3]))
    _refused(model, r"'rnn' \(LSTM\): W has shape \[1, 20, 3\]; expected \[1, 20, 4\]")
    model, _ = rnn_models.rnn_node_model("GRU", 3, 2, 4, 5, direction="bidirectional")
    _replace_initializer(model, "B", np.zeros([2, 29]))
    _refused(model, r"'rnn' \(GRU\): B has shape \[2, 29\]; expected \[2, 30\]")
    model, _ = rnn_models.rnn_node_model("LSTM", 3, 2, 4, 5, peepholes=True)
    _replace_initializer(model, "P", np.zeros([1, 16]))
    _refused(model, r"'rnn' \(LSTM\): P has shape \[1, 16\]; expected \[1, 15\]")


@pytest.mark.parametrize(
    "op,attrs,pattern",
    [
        (
            "LSTM",
            {"activations": ["Sigmoid", "Tanh", "Relu"]},
            r"unsupported attribute activations=.* \(the lite LSTM has one gate and one cell activation, .*, g = h\)",
        ),
        ("GRU", {"activations": ["Sigmoid", "Softsign"]}, r"unsupported activation Softsign in activations="),
        ("GRU", {"activations": ["Sigmoid", "Tanh", "Tanh"]}, r"activations=.* has 3 functions; expected 2"),
        ("LSTM", {"activations": ["HardSigmoid", "Tanh", "Tanh"] * 2}, r"activations=.* has 6 functions; expected 3"),
        (
            "GRU",
            {"activations": ["HardSigmoid", "HardSigmoid"], "activation_alpha": [0.2, 0.3]},
            r"HardSigmoid activations with different alpha/beta \(0.2, 0.5\), \(0.3, 0.5\)",
        ),
        ("GRU", {"activation_alpha": [0.2]}, "activation_alpha/activation_beta without activations"),
        # RNN's activations the lite RNN lacks are unrolled (tests/test_converters_real_exports_s18.py).
        ("RNN", {"activations": ["Gelu"]}, r"activation 'gelu' is not one of ONNX's recurrent activations"),
        ("RNN", {"input_forget": 1}, r"unsupported attribute input_forget"),
        ("GRU", {"clip": -1.0}, r"clip -1.0 must be positive"),
        ("LSTM", {"direction": "sideways"}, r"direction 'sideways'"),
    ],
)
def test_unsupported_attributes_are_refused(op, attrs, pattern):
    model, _ = rnn_models.rnn_node_model(op, 3, 2, 4, 5)
    node = model.graph.node[0]
    for a in list(node.attribute):
        if a.name in attrs:
            node.attribute.remove(a)
    node.attribute.extend([helper.make_attribute(k, v) for k, v in attrs.items()])
    _refused(model, rf"'rnn' \({op}\): {pattern}")


def test_computed_weights_are_refused():
    model, _ = rnn_models.rnn_node_model("GRU", 3, 2, 4, 5)
    model.graph.node.insert(0, helper.make_node("Identity", ["W"], ["W2"]))
    model.graph.node[1].input[1] = "W2"
    model.graph.input.extend([])
    # Identity of a constant is folded; a graph-input weight is not.
    model.graph.node[0].input[0] = "X_w"
    model.graph.input.extend([helper.make_tensor_value_info("X_w", 1, [1, 15, 4])])
    _refused(model, r"'rnn' \(GRU\): W must be a constant")


def test_sequence_length_past_the_end_is_a_runtime_error():
    model, feeds = rnn_models.rnn_node_model("LSTM", 4, 3, 2, 3, sequence_lens=True)
    runner = lite_runner.LiteRunner(onnx_import.convert(model))
    feeds["sequence_lens"] = np.array([4, 5, 1], np.int32)
    with pytest.raises(lite_runner.LiteError, match=r"sequence_lens\[1\] = 5 is outside \[0, 4\]"):
        runner.run(feeds)
    feeds["sequence_lens"] = np.array([4, 2, 1], np.int32)
    runner.run(feeds)  # the interpreter is still usable


@pytest.mark.parametrize("op,bidirectional", [("LSTM", False), ("GRU", False), ("LSTM", True)])
def test_dynamic_batch_classifier_resizes(op, bidirectional):
    """PyTorch's export with a dynamic batch makes the zero initial states at
    run time (Shape -> ConstantOfShape -> Slice): the importer leaves them
    out (ONNX's zero default), and one interpreter runs every batch size."""
    model, _ = rnn_models.classifier_model(
        op, vocab=300, embed=32, hidden=48, steps=12, dynamic_batch=True, bidirectional=bidirectional
    )
    assert "ConstantOfShape" in [n.op_type for n in model.graph.node]
    data = onnx_import.convert(model)
    assert set(_ops(data)) == {"GATHER", "TRANSPOSE", op, "RESHAPE", "CONCATENATION", "FULLY_CONNECTED"}
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    runner = lite_runner.LiteRunner(data, num_threads=2)
    for batch in (1, 4, 2):
        feeds = {"input_ids": np.random.default_rng(batch).integers(0, 300, [batch, 12]).astype(np.int64)}
        (want,) = sess.run(None, feeds)
        np.testing.assert_allclose(runner.run(feeds)["logits"], want, rtol=RTOL, atol=ATOL, err_msg=f"batch {batch}")


def test_nonzero_runtime_initial_state_is_not_dropped():
    """A run-time initial state of 0.5s (ConstantOfShape of the batch's
    shape) is kept: made at run time, as wide as the batch."""
    model, _ = rnn_models.classifier_model("GRU", vocab=50, embed=8, hidden=8, steps=4, dynamic_batch=True)
    fill = next(n for n in model.graph.node if n.op_type == "ConstantOfShape")
    fill.attribute[0].t.CopyFrom(numpy_helper.from_array(np.array([0.5], np.float32)))
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    runner = lite_runner.LiteRunner(onnx_import.convert(model))
    for batch in (1, 3):
        feeds = {"input_ids": np.random.default_rng(batch).integers(0, 50, [batch, 4]).astype(np.int64)}
        (want,) = sess.run(None, feeds)
        np.testing.assert_allclose(runner.run(feeds)["logits"], want, rtol=RTOL, atol=ATOL, err_msg=f"batch {batch}")

"""A tensorweave model whose recurrent layer is a while loop (`tw.nn.dynamic_rnn` over a run-time sequence
length) frozen and converted: the loop becomes the lite LSTM/GRU/RNN (converters/tf_rnn_loops.py through
freeze.freeze_session), checked against the session's own output on the lite runtime and in onnxruntime at two
lengths; and the loops that are not recurrent cells, refused with the reason."""

import numpy as np
import pytest
import tensorweave as tw

from converters import freeze, lite_runner, onnx_export, tf_to_twl
from converters.errors import ConversionError

pytestmark = pytest.mark.skipif(not lite_runner.available(), reason="bazel build //lite/c:libtensorweave_lite.so first")

FEATURES = 6
CELLS = {
    "LSTMCell": lambda: tw.nn.rnn_cell.LSTMCell(5),
    "BasicLSTMCell forget_bias 0.5": lambda: tw.nn.rnn_cell.BasicLSTMCell(5, forget_bias=0.5),
    "BasicRNNCell": lambda: tw.nn.rnn_cell.BasicRNNCell(5),
    "GRUCell": lambda: tw.nn.rnn_cell.GRUCell(5),
    "MultiRNNCell GRU, LSTM, basic RNN": lambda: tw.nn.rnn_cell.MultiRNNCell(
        [tw.nn.rnn_cell.GRUCell(4), tw.nn.rnn_cell.LSTMCell(5), tw.nn.rnn_cell.BasicRNNCell(3)]
    ),
}


def _frozen(make_cell, lengths=False, **rnn_kwargs):
    """(session, feeds placeholder, fetched tensors, frozen GraphDef) of dynamic_rnn over [None, None, 6]: its
    sequence output and its final state's h; with `lengths`, its sequence_length the placeholder "lengths"."""
    graph = tw.Graph()
    with graph.as_default():
        tw.set_random_seed(3)
        x = tw.placeholder(tw.float32, [None, None, FEATURES], name="x")
        if lengths:
            rnn_kwargs["sequence_length"] = tw.placeholder(tw.int32, [None], name="lengths")
        outputs, state = tw.nn.dynamic_rnn(make_cell(), x, dtype=tw.float32, **rnn_kwargs)
        if isinstance(state, tuple) and not isinstance(state, tw.nn.rnn_cell.LSTMStateTuple):
            state = state[1]  # (stacked: the middle cell's, an LSTM's)
        final = state.h if isinstance(state, tw.nn.rnn_cell.LSTMStateTuple) else state
        fetched = [tw.identity(outputs, name="sequence"), tw.identity(final, name="final")]
        sess = tw.Session(graph=graph)
        sess.run(tw.global_variables_initializer())
        inputs = ["x", "lengths"] if lengths else ["x"]
        return sess, x, fetched, freeze.freeze_session(sess, inputs, ["sequence", "final"])


@pytest.mark.parametrize("cell", sorted(CELLS))
def test_dynamic_rnn_loop_converts_to_the_lite_and_onnx_recurrent_ops(cell):
    ort = pytest.importorskip("onnxruntime")
    sess, x, fetched, frozen = _frozen(CELLS[cell])
    assert {n.op for n in frozen.node} & {"Enter", "Merge", "_TwlRnn"} == {"_TwlRnn"}
    runner = lite_runner.LiteRunner(tf_to_twl.convert(frozen, ["x"], ["sequence", "final"]))
    onnx_session = ort.InferenceSession(onnx_export.export(frozen, ["x"], ["sequence", "final"]).SerializeToString())
    for steps in (9, 4):
        value = np.random.default_rng(steps).standard_normal((2, steps, FEATURES)).astype(np.float32)
        want = sess.run(fetched, {x: value})
        got = runner.run([value])
        from_onnx = onnx_session.run(None, {onnx_session.get_inputs()[0].name: value})
        for name, expected, onnx_value in zip(["sequence", "final"], want, from_onnx):
            np.testing.assert_allclose(got[name], expected, rtol=1e-4, atol=1e-5, err_msg=f"{name}, {steps} steps")
            np.testing.assert_allclose(onnx_value, expected, rtol=1e-4, atol=1e-5, err_msg=f"ONNX {name}")
    sess.close()


def _lstm_cell(x, state, kernel, bias):
    """TF1's LSTMCell as its graph (forget bias 1): (h, (c, h))."""
    c, h = state
    i, j, f, o = tw.split(tw.nn.bias_add(tw.matmul(tw.concat([x, h], 1), kernel), bias), 4, axis=1)
    c = tw.sigmoid(f + 1.0) * c + tw.sigmoid(i) * tw.tanh(j)
    h = tw.sigmoid(o) * tw.tanh(c)
    return h, (c, h)


def test_hand_written_while_loop_lstm_of_two_layers_converts():
    """TF1's LSTMCell graph written out in a while_loop over TensorArrays, two layers per step (the loop of
    benchmarks/rnn_while_loop.py): two chained lite LSTMs."""
    steps, batch, hidden = 5, 2, 6
    graph = tw.Graph()
    with graph.as_default():
        tw.set_random_seed(4)
        x = tw.placeholder(tw.float32, [steps, batch, FEATURES], name="x")
        kernels = [tw.Variable(tw.random_normal([n + hidden, 4 * hidden], stddev=0.5)) for n in (FEATURES, hidden)]
        biases = [tw.Variable(tw.random_normal([4 * hidden], stddev=0.1)) for _ in range(2)]
        inputs = tw.TensorArray(tw.float32, size=steps).unstack(x)
        zeros = tw.zeros([batch, hidden])

        def body(t, state, out):
            h, new = inputs.read(t), []
            for k in range(2):
                h, s = _lstm_cell(h, state[k], kernels[k], biases[k])
                new.append(s)
            return t + 1, tuple(new), out.write(t, h)

        loop_vars = (tw.constant(0), ((zeros, zeros), (zeros, zeros)), tw.TensorArray(tw.float32, size=steps))
        _, _, out = tw.while_loop(lambda t, *_: t < steps, body, loop_vars)
        y = tw.identity(out.stack(), name="y")
        with tw.Session(graph=graph) as sess:
            sess.run(tw.global_variables_initializer())
            frozen = freeze.freeze_session(sess, ["x"], ["y"])
            value = np.random.default_rng(0).standard_normal((steps, batch, FEATURES)).astype(np.float32)
            want = sess.run(y, {x: value})
    assert [n.op for n in frozen.node].count("_TwlRnn") == 2
    got = lite_runner.LiteRunner(tf_to_twl.convert(frozen, ["x"], ["y"])).run([value])["y"]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("cell", ["GRUCell", "LSTMCell", "MultiRNNCell GRU, LSTM, basic RNN"])
def test_sequence_lengths_are_the_lite_ops_sequence_lens(cell):
    """dynamic_rnn with sequence_length copies the states through and gives zeros past each end (Select): ONNX's
    sequence_lens, with TF1's reading of lengths past the steps (all of them) and of 0 (the initial state)."""
    ort = pytest.importorskip("onnxruntime")
    sess, x, fetched, frozen = _frozen(CELLS[cell], lengths=True)
    assert {n.op for n in frozen.node} & {"Enter", "Merge", "_TwlRnn"} == {"_TwlRnn"}
    names = ["x", "lengths"], ["sequence", "final"]
    runner = lite_runner.LiteRunner(tf_to_twl.convert(frozen, *names))
    onnx_session = ort.InferenceSession(onnx_export.export(frozen, *names).SerializeToString())
    lengths = sess.graph.get_tensor_by_name("lengths:0")
    for steps, value_lengths in ((6, [6, 0, 2, 9]), (3, [1, 3, 3, 2])):
        value = np.random.default_rng(steps).standard_normal((4, steps, FEATURES)).astype(np.float32)
        value_lengths = np.array(value_lengths, np.int32)
        want = sess.run(fetched, {x: value, lengths: value_lengths})
        got = runner.run([value, value_lengths])
        from_onnx = onnx_session.run(None, {"x": value, "lengths": value_lengths})
        for name, expected, onnx_value in zip(["sequence", "final"], want, from_onnx):
            np.testing.assert_allclose(got[name], expected, rtol=1e-4, atol=1e-5, err_msg=f"{name}, {steps} steps")
            np.testing.assert_allclose(onnx_value, expected, rtol=1e-4, atol=1e-5, err_msg=f"ONNX {name}")
    sess.close()


def test_the_recurrent_example_trains_and_its_conversions_reproduce_the_core(tmp_path):
    """examples/train_sequence_rnn.py, shortened: it exits if .twl or ONNX differ from the core."""
    import os
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))
    import train_sequence_rnn

    accuracy = train_sequence_rnn.main(["--steps", "150", "--out", str(tmp_path)])
    assert accuracy > 0.8
    assert os.path.getsize(tmp_path / "digits_rnn.twl") > 0


@pytest.mark.parametrize("recurrent_activation", ["sigmoid", "hard_sigmoid", "softsign"])
def test_tw_keras_lstm_over_a_run_time_length(recurrent_activation):
    """tw.keras' LSTM carries its last output beside h (two loop variables given one value): with sigmoid gates
    and TF1's default hard_sigmoid (the lite LSTM's gate_activation HARD_SIGMOID) it converts; with softsign
    gates it is refused naming the cell."""
    graph = tw.Graph()
    with graph.as_default():
        tw.set_random_seed(6)
        model = tw.keras.Sequential(
            [tw.keras.layers.LSTM(5, recurrent_activation=recurrent_activation, input_shape=(None, FEATURES))]
        )
        x, y = model.inputs[0], model.outputs[0]
        sess = tw.keras.backend.get_session()
        sess.run(tw.global_variables_initializer())
        if recurrent_activation == "softsign":
            with pytest.raises(ConversionError, match="not an LSTM, GRU or basic RNN cell with the activations"):
                freeze.freeze_session(sess, [x.name], [y.name])
            return
        frozen = freeze.freeze_session(sess, [x.name], [y.name])
        runner = lite_runner.LiteRunner(tf_to_twl.convert(frozen, [x.name], [y.name]))
        for steps in (7, 3):
            value = np.random.default_rng(steps).standard_normal((2, steps, FEATURES)).astype(np.float32)
            (got,) = runner.run([value]).values()
            np.testing.assert_allclose(got, sess.run(y, {x: value}), rtol=1e-4, atol=1e-5)

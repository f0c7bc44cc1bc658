"""Keras recurrent layers over a run-time sequence length (their TF2 while loops) and TF1's dynamic_rnn frozen
by TensorFlow, through tensorweave-convert (converters/tf_rnn_loops.py), on the lite runtime and in onnxruntime,
against TensorFlow's own output at two sequence lengths; and the loops that are not such a layer, refused with
the reason."""

import numpy as np
import pytest
from tf2_behavior import eager_mode as _eager
from tf2_behavior import tf2_behavior

from converters import lite_runner
from converters.cli import main as cli_main
from converters.errors import ConversionError

tf = pytest.importorskip("tensorflow")
tf_keras = pytest.importorskip("tf_keras")

pytestmark = pytest.mark.skipif(not lite_runner.available(), reason="bazel build //lite/c:libtensorweave_lite.so first")

RTOL, ATOL = 1e-4, 1e-5
FEATURES = 5


@pytest.fixture(autouse=True, scope="module")
def _tf2_behavior():
    with tf2_behavior():
        yield


def _sequences(steps):
    return np.random.default_rng(steps).standard_normal((2, steps, FEATURES)).astype(np.float32)


def _check(tmp_path, path, predict, names, onnx=True):
    """Converts `path` to .twl (and ONNX) and compares both with predict(x) ({name: array}) at 9 and 4 steps."""
    twl = str(tmp_path / "model.twl")
    assert cli_main(["--input", path, "--output", twl]) == 0
    runner = lite_runner.LiteRunner(twl)
    session = None
    if onnx:
        ort = pytest.importorskip("onnxruntime")
        assert cli_main(["--input", path, "--output", str(tmp_path / "model.onnx")]) == 0
        session = ort.InferenceSession(str(tmp_path / "model.onnx"))
    for steps in (9, 4):
        x = _sequences(steps)
        with _eager():
            want = predict(x)
        got = runner.run([x])
        assert sorted(got) == sorted(names)
        for name in names:
            np.testing.assert_allclose(got[name], want[name], rtol=RTOL, atol=ATOL, err_msg=f"{name}, {steps} steps")
        if session is not None:
            outputs = session.run(None, {session.get_inputs()[0].name: x})
            for output, value in zip(session.get_outputs(), outputs):
                np.testing.assert_allclose(value, want[output.name], rtol=RTOL, atol=ATOL, err_msg=output.name)


def test_tf_keras_bidirectional_lstm_and_backward_gru_h5(tmp_path):
    """Bidirectional(LSTM) returning sequences (its backward loop reads the sequence reversed) then a GRU with
    go_backwards: LSTM and GRU (reset_after) loops, run-time reversals."""
    layers = tf_keras.layers
    with _eager():
        tf_keras.utils.set_random_seed(1)
        model = tf_keras.Sequential(
            [
                layers.Input((None, FEATURES)),
                layers.Bidirectional(layers.LSTM(6, return_sequences=True)),
                layers.GRU(4, go_backwards=True),
                layers.Dense(3, name="out"),
            ]
        )
        path = str(tmp_path / "model.h5")
        model.save(path)
    _check(tmp_path, path, lambda x: {"out": model(x).numpy()}, ["out"])


def test_saved_model_of_simple_rnn_and_lstm_returning_its_state(tmp_path):
    """tf.saved_model.save of a model whose last LSTM returns its states, after a SimpleRNN (Keras' generic
    backend.rnn loop, its cell's weights captured by the loop); outputs by the serving signature's keys."""
    layers = tf_keras.layers
    with _eager():
        tf_keras.utils.set_random_seed(2)
        inputs = layers.Input((None, FEATURES))
        seq = layers.SimpleRNN(7, return_sequences=True)(inputs)
        model = tf_keras.Model(inputs, list(layers.LSTM(6, return_state=True)(seq)))
        path = str(tmp_path / "saved")
        tf.saved_model.save(model, path)
        serving = tf.saved_model.load(path).signatures["serving_default"]
        keys = sorted(serving.structured_outputs)
    assert len(keys) == 3

    def predict(x):
        return {k: v.numpy() for k, v in serving(tf.constant(x)).items()}

    _check(tmp_path, path, predict, keys)


def test_keras3_lstm_and_gru(tmp_path):
    keras = pytest.importorskip("keras")
    layers = keras.layers
    with _eager():
        keras.utils.set_random_seed(3)
        inputs = keras.Input((None, FEATURES))
        seq = layers.LSTM(6, return_sequences=True)(inputs)
        model = keras.Model(inputs, layers.Dense(2, name="out")(layers.GRU(5)(seq)))
        path = str(tmp_path / "model.keras")
        model.save(path)
    _check(tmp_path, path, lambda x: {"out": np.asarray(model(x))}, ["out"])


@pytest.mark.parametrize(
    "layer,reason",
    [
        (lambda L: L.LSTM(4, activation="elu"), "not an LSTM, GRU or basic RNN cell"),
        (lambda L: L.GRU(4, recurrent_activation="softsign"), "not an LSTM, GRU or basic RNN cell"),
    ],
)
def test_loops_that_are_not_a_supported_cell_are_refused_with_the_reason(tmp_path, layer, reason):
    layers = tf_keras.layers
    with _eager():
        model = tf_keras.Sequential([layers.Input((None, FEATURES)), layer(layers)])
        path = str(tmp_path / "model.h5")
        model.save(path)
    from converters import tf_models

    with pytest.raises(ConversionError, match="TF2 while loop") as raised:
        tf_models.freeze(path)
    assert reason in str(raised.value)


def test_masked_loop_is_refused_naming_its_second_list(tmp_path):
    """A Masking layer makes the loop read the mask per step too: not a plain layer (ONNX's sequence lengths
    are not Keras' per-step masks)."""
    layers = tf_keras.layers
    with _eager():
        model = tf_keras.Sequential([layers.Input((None, FEATURES)), layers.Masking(), layers.LSTM(4)])
        path = str(tmp_path / "model.h5")
        model.save(path)
    from converters import tf_models

    with pytest.raises(ConversionError, match="reads 2 and writes"):
        tf_models.freeze(path)


@pytest.mark.parametrize("cell", ["LSTMCell", "GRUCell"])
def test_tf1_dynamic_rnn_frozen_by_tensorflow_converts(tmp_path, cell):
    """A TF1 program's dynamic_rnn (v1 control flow, a TensorArray whose handle TF 2 writes as a resource),
    frozen by TensorFlow to a .pb: its loop becomes the lite LSTM/GRU."""
    from tensorflow.python.ops import control_flow_util, rnn, rnn_cell_impl

    v1 = tf.compat.v1
    saved, control_flow_util.ENABLE_CONTROL_FLOW_V2 = control_flow_util.ENABLE_CONTROL_FLOW_V2, False
    try:
        with tf.Graph().as_default() as graph:
            v1.set_random_seed(5)
            x = v1.placeholder(tf.float32, [None, None, FEATURES], name="x")
            outputs, _ = rnn.dynamic_rnn(getattr(rnn_cell_impl, cell)(4), x, dtype=tf.float32)
            tf.identity(outputs[:, -1], name="last")
            with v1.Session(graph=graph) as sess:
                sess.run(v1.global_variables_initializer())
                frozen = v1.graph_util.convert_variables_to_constants(sess, graph.as_graph_def(), ["last"])
                values = [_sequences(steps) for steps in (9, 4)]
                wants = [sess.run("last:0", {x: value}) for value in values]
    finally:
        control_flow_util.ENABLE_CONTROL_FLOW_V2 = saved
    assert any(n.op == "TensorArrayReadV3" for n in frozen.node)
    path = str(tmp_path / "model.pb")
    with open(path, "wb") as f:
        f.write(frozen.SerializeToString())
    twl = str(tmp_path / "model.twl")
    assert cli_main(["--input", path, "--inputs", "x", "--outputs", "last", "--output", twl]) == 0
    runner = lite_runner.LiteRunner(twl)
    for value, want in zip(values, wants):
        (got,) = runner.run([value]).values()
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)

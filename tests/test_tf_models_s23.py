"""Recurrent layers the fused lite LSTM/GRU/RNN took only with sigmoid/tanh and no lengths before: Keras' hard
sigmoid gates (Keras 2's, TF1 tf.keras' default, and Keras 3's), relu cells, Keras' GRU with reset_after=False
(tw.keras' default), TF1's dynamic_rnn(sequence_length=) frozen to a .pb, and the core's _TwlRnn with lengths;
through tensorweave-convert (or the converter's functions) on the lite runtime and in onnxruntime, against the
framework's own output."""

import numpy as np
import pytest
from tf2_behavior import tf2_behavior

from converters import lite_runner
from converters.cli import main as cli_main

tf = pytest.importorskip("tensorflow")
tf_keras = pytest.importorskip("tf_keras")
ort = pytest.importorskip("onnxruntime")

pytestmark = pytest.mark.skipif(not lite_runner.available(), reason="bazel build //lite/c:libtensorweave_lite.so first")

RTOL, ATOL = 1e-4, 1e-5
FEATURES = 5


@pytest.fixture(autouse=True, scope="module")
def _tf2_behavior():
    with tf2_behavior():
        yield


def _eager():
    from tensorflow.python.eager import context

    return context.eager_mode()


def _sequences(steps, scale=2.0):
    """Inputs large enough to drive hard sigmoids past their corners."""
    return (np.random.default_rng(steps).standard_normal((2, steps, FEATURES)) * scale).astype(np.float32)


def _check(tmp_path, path, predict, names, args=()):
    """`path` converted to .twl and ONNX, both against predict(x) ({name: array}) at 8 and 3 steps."""
    twl, onnx_path = str(tmp_path / "model.twl"), str(tmp_path / "model.onnx")
    assert cli_main(["--input", path, "--output", twl, *args]) == 0
    assert cli_main(["--input", path, "--output", onnx_path, *args]) == 0
    runner, session = lite_runner.LiteRunner(twl), ort.InferenceSession(onnx_path)
    for steps in (8, 3):
        x = _sequences(steps)
        with _eager():
            want = predict(x)
        got = runner.run([x])
        from_onnx = dict(zip([o.name for o in session.get_outputs()], session.run(None, {"x": x})))
        for name in names:
            np.testing.assert_allclose(got[name], want[name], rtol=RTOL, atol=ATOL, err_msg=f"{name}, {steps} steps")
            np.testing.assert_allclose(from_onnx[name], want[name], rtol=RTOL, atol=ATOL, err_msg=f"ONNX {name}")


def test_tf_keras_hard_sigmoid_and_relu_layers_h5(tmp_path):
    """TF1 tf.keras' defaults written out (LSTM and GRU with recurrent_activation="hard_sigmoid", the GRU with
    reset_after=False) and relu cells: the lite ops' gate_activation HARD_SIGMOID and activation RELU."""
    layers = tf_keras.layers
    with _eager():
        tf_keras.utils.set_random_seed(4)
        model = tf_keras.Sequential(
            [
                layers.Input((None, FEATURES), name="x"),
                layers.LSTM(6, recurrent_activation="hard_sigmoid", return_sequences=True),
                layers.GRU(5, recurrent_activation="hard_sigmoid", reset_after=False, return_sequences=True),
                layers.GRU(4, activation="relu", return_sequences=True),
                layers.SimpleRNN(4, activation="relu"),
                layers.Dense(3, name="out"),
            ]
        )
        path = str(tmp_path / "model.h5")
        model.save(path)
    _check(tmp_path, path, lambda x: {"out": model(x).numpy()}, ["out"])


def test_keras3_hard_sigmoid_lstm(tmp_path):
    """Keras 3's hard_sigmoid is relu6(x + 3) / 6 (alpha 1/6, not Keras 2's 0.2)."""
    keras = pytest.importorskip("keras")
    layers = keras.layers
    with _eager():
        keras.utils.set_random_seed(5)
        inputs = keras.Input((None, FEATURES), name="x")
        h = layers.LSTM(6, recurrent_activation="hard_sigmoid", return_sequences=True)(inputs)
        model = keras.Model(inputs, layers.Dense(2, name="out")(layers.GRU(4, recurrent_activation="hard_sigmoid")(h)))
        path = str(tmp_path / "model.keras")
        model.save(path)
    _check(tmp_path, path, lambda x: {"out": np.asarray(model(x))}, ["out"])


def test_tw_keras_gru_with_tf1_defaults():
    """tw.keras' GRU as TF1 tf.keras builds it (hard_sigmoid, reset_after=False), frozen and converted."""
    import tensorweave as tw

    from converters import freeze, onnx_export, tf_to_twl

    graph = tw.Graph()
    with graph.as_default():
        tw.set_random_seed(7)
        model = tw.keras.Sequential([tw.keras.layers.GRU(5, input_shape=(None, FEATURES), return_sequences=True)])
        x, y = model.inputs[0], model.outputs[0]
        sess = tw.keras.backend.get_session()
        sess.run(tw.global_variables_initializer())
        frozen = freeze.freeze_session(sess, [x.name], [y.name])
        assert [n.attr["gate_activation"].s for n in frozen.node if n.op == "_TwlRnn"] == [b"HardSigmoid"]
        runner = lite_runner.LiteRunner(tf_to_twl.convert(frozen, [x.name], [y.name]))
        session = ort.InferenceSession(onnx_export.export(frozen, [x.name], [y.name]).SerializeToString())
        for steps in (6, 2):
            value = _sequences(steps)
            want = sess.run(y, {x: value})
            (got,) = runner.run([value]).values()
            np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)
            np.testing.assert_allclose(session.run(None, {session.get_inputs()[0].name: value})[0], want, atol=ATOL)


def test_tf1_dynamic_rnn_with_sequence_length_pb(tmp_path):
    """A TF1 program's dynamic_rnn(sequence_length=) of a MultiRNNCell (GRU, LSTM), then one of a GRUCell from
    a given initial state reading its output (its sizes known once the first loop is fused), frozen to a .pb:
    ONNX's sequence_lens; lengths past the steps, below 0 and 0 (the initial state kept) as TF1 reads them."""
    from tensorflow.python.ops import control_flow_util, rnn, rnn_cell_impl

    v1 = tf.compat.v1
    saved, control_flow_util.ENABLE_CONTROL_FLOW_V2 = control_flow_util.ENABLE_CONTROL_FLOW_V2, False
    rng = np.random.default_rng(0)
    feeds = [
        (rng.standard_normal((4, steps, FEATURES)).astype(np.float32), np.array(lengths, np.int32))
        for steps, lengths in ((6, [6, 2, 0, 9]), (3, [1, 3, -1, 2]))
    ]
    try:
        with tf.Graph().as_default() as graph:
            v1.set_random_seed(5)
            x = v1.placeholder(tf.float32, [None, None, FEATURES], name="x")
            lengths = v1.placeholder(tf.int32, [None], name="lengths")
            initial = tf.tanh(x[:, 0, :3])  # (a state that is not zeros, of the run-time batch)
            stack = rnn_cell_impl.MultiRNNCell([rnn_cell_impl.GRUCell(4), rnn_cell_impl.LSTMCell(4)])
            with v1.variable_scope("stacked"):
                seq, state = rnn.dynamic_rnn(stack, x, sequence_length=lengths, dtype=tf.float32)
            with v1.variable_scope("single"):
                _, last = rnn.dynamic_rnn(rnn_cell_impl.GRUCell(3), seq, sequence_length=lengths, initial_state=initial)
            tf.identity(seq, name="seq")
            tf.identity(state[1].c, name="c")
            tf.identity(last, name="last")
            names = ["seq", "c", "last"]
            with v1.Session(graph=graph) as sess:
                sess.run(v1.global_variables_initializer())
                frozen = v1.graph_util.convert_variables_to_constants(sess, graph.as_graph_def(), names)
                wants = [sess.run([f"{n}:0" for n in names], {x: xv, lengths: lv}) for xv, lv in feeds]
    finally:
        control_flow_util.ENABLE_CONTROL_FLOW_V2 = saved
    path = str(tmp_path / "model.pb")
    with open(path, "wb") as f:
        f.write(frozen.SerializeToString())
    args = ["--input", path, "--inputs", "x,lengths", "--outputs", ",".join(names)]
    assert cli_main(args + ["--output", str(tmp_path / "model.twl")]) == 0
    assert cli_main(args + ["--output", str(tmp_path / "model.onnx")]) == 0
    runner = lite_runner.LiteRunner(str(tmp_path / "model.twl"))
    session = ort.InferenceSession(str(tmp_path / "model.onnx"))
    for (xv, lv), want in zip(feeds, wants):
        got = runner.run([xv, lv])
        from_onnx = session.run(None, {"x": xv, "lengths": lv})
        for name, expected, onnx_value in zip(names, want, from_onnx):
            np.testing.assert_allclose(got[name], expected, rtol=RTOL, atol=ATOL, err_msg=name)
            np.testing.assert_allclose(onnx_value, expected, rtol=RTOL, atol=ATOL, err_msg=f"ONNX {name}")


def _twl_rnn_graph(tw, lengths_value, activations):
    """A core graph of one _TwlRnn GRU with sequence lengths: (graph, x, its outputs)."""
    rng = np.random.default_rng(1)
    graph = tw.Graph()
    with graph.as_default():
        x = tw.placeholder(tw.float32, [4, 2, 3], name="x")
        h0 = tw.placeholder(tw.float32, [1, 2, 5], name="h0")
        w, r, b = (tw.constant(rng.standard_normal(s).astype(np.float32)) for s in ([1, 15, 3], [1, 15, 5], [1, 30]))
        lengths = tw.constant(np.array(lengths_value, np.int32))
        attrs = {"kind": "GRU", "hidden_size": 5, "num_states": 1, "num_lengths": 1, **activations}
        op = graph._create_op("_TwlRnn", [x, w, r, b, [h0], [lengths]], attrs=attrs, name="rnn")
        outputs = [tw.identity(op.outputs[0], name="y"), tw.identity(op.outputs[1], name="y_h")]
    return graph, outputs


def test_core_twl_rnn_with_sequence_lengths_agrees_with_the_lite_gru():
    """The core's _TwlRnn reference kernel with sequence lengths and hard sigmoid gates, against the lite GRU and
    onnxruntime; a length outside [0, steps] is an InvalidArgumentError naming it."""
    import tensorweave as tw

    from converters import onnx_export, tf_to_twl

    activations = {"gate_activation": "HardSigmoid", "activation_alpha": 0.25, "linear_before_reset": True}
    graph, outputs = _twl_rnn_graph(tw, [4, 1], activations)
    feeds = [np.random.default_rng(2).standard_normal(s).astype(np.float32) * 2 for s in ([4, 2, 3], [1, 2, 5])]
    with tw.Session(graph=graph) as sess:
        want = sess.run(outputs, dict(zip(["x:0", "h0:0"], feeds)))
    assert np.all(want[0][1:, :, 1] == 0) and np.any(want[0][:, :, 0] != 0)  # zeros past the second's length
    graph_def = graph.as_graph_def()
    got = lite_runner.LiteRunner(tf_to_twl.convert(graph_def, ["x", "h0"], ["y", "y_h"])).run(feeds)
    session = ort.InferenceSession(onnx_export.export(graph_def, ["x", "h0"], ["y", "y_h"]).SerializeToString())
    from_onnx = session.run(None, {"x": feeds[0], "h0": feeds[1]})
    for name, expected, onnx_value in zip(["y", "y_h"], want, from_onnx):
        np.testing.assert_allclose(got[name], expected, rtol=RTOL, atol=ATOL, err_msg=name)
        np.testing.assert_allclose(onnx_value, expected, rtol=RTOL, atol=ATOL, err_msg=f"ONNX {name}")
    graph, outputs = _twl_rnn_graph(tw, [5, 1], activations)
    outside = r"sequence_lengths\[0\] = 5 is outside \[0, 4\]"
    with tw.Session(graph=graph) as sess, pytest.raises(tw.errors.InvalidArgumentError, match=outside):
        sess.run(outputs, dict(zip(["x:0", "h0:0"], feeds)))


def test_onnx_export_refuses_bicubic_scales_it_cannot_express():
    """TensorFlow weighs bicubic taps at fractions rounded to 1/1024 of a pixel: at a 3 -> 7 scale ONNX's cubic
    Resize would not, and the exporter says so (2x exports: tests/test_lite_vs_core.py)."""
    import tensorweave as tw

    from converters import onnx_export
    from converters.errors import ConversionError

    graph = tw.Graph()
    with graph.as_default():
        x = tw.placeholder(tw.float32, [1, 3, 4, 2], name="x")
        tw.identity(tw.image.resize_bicubic(x, [7, 9], half_pixel_centers=True), name="y")
    with pytest.raises(ConversionError, match=r"resizing \[3, 4\] to \[7, 9\] bicubically: .* 1/1024 of a pixel"):
        onnx_export.export(graph.as_graph_def(), ["x"], ["y"])


def test_keras_conv3d_transpose_h5(tmp_path):
    """Keras' Conv3DTranspose (Conv3DBackpropInputV2: per depth tap a TRANSPOSE_CONV, spread and shifted along the
    depth), strided SAME then VALID, then 3-D cropping and global max pooling; the lite runtime and onnxruntime
    against Keras."""
    layers = tf_keras.layers
    with _eager():
        tf_keras.utils.set_random_seed(8)
        model = tf_keras.Sequential(
            [
                layers.Input((3, 4, 5, 2), name="x"),
                layers.Conv3DTranspose(3, 3, strides=(2, 1, 2), padding="same"),
                layers.Conv3DTranspose(2, (3, 2, 2), padding="valid", activation="relu"),
                layers.Cropping3D(((1, 0), (0, 1), (1, 1))),
                layers.GlobalMaxPooling3D(name="out"),
            ]
        )
        path = str(tmp_path / "model.h5")
        model.save(path)
        x = np.random.default_rng(8).standard_normal((2, 3, 4, 5, 2)).astype(np.float32)
        want = model(x, training=False).numpy()
    for suffix in ("twl", "onnx"):
        assert cli_main(["--input", path, "--output", str(tmp_path / f"model.{suffix}")]) == 0
    (got,) = lite_runner.LiteRunner(str(tmp_path / "model.twl")).run([x]).values()
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)
    session = ort.InferenceSession(str(tmp_path / "model.onnx"))
    np.testing.assert_allclose(session.run(None, {session.get_inputs()[0].name: x})[0], want, rtol=RTOL, atol=ATOL)


def test_conv_lstm_2d_is_refused_naming_its_cell(tmp_path):
    from converters import tf_models
    from converters.errors import ConversionError

    layers = tf_keras.layers
    with _eager():
        model = tf_keras.Sequential([layers.Input((None, 6, 6, 2)), layers.ConvLSTM2D(3, 3)])
        path = str(tmp_path / "model.h5")
        model.save(path)
    with pytest.raises(ConversionError, match="a ConvLSTM's convolutional cell is not an LSTM, GRU or RNN operator"):
        tf_models.freeze(path)


def test_bidirectional_gru_merge_mode_none(tmp_path):
    """Bidirectional(GRU, merge_mode=None): its two outputs, over a run-time length."""
    layers = tf_keras.layers
    with _eager():
        tf_keras.utils.set_random_seed(9)
        inputs = layers.Input((None, FEATURES), name="x")
        forward, backward = layers.Bidirectional(layers.GRU(3), merge_mode=None)(inputs)
        outputs = [layers.Identity(name="forward")(forward), layers.Identity(name="backward")(backward)]
        model = tf_keras.Model(inputs, outputs)
        path = str(tmp_path / "model.h5")
        model.save(path)
    names = ["forward", "backward"]
    _check(tmp_path, path, lambda x: dict(zip(names, (v.numpy() for v in model(x)))), names)


def test_tf1_bidirectional_dynamic_rnn_with_sequence_length_pb(tmp_path):
    """bidirectional_dynamic_rnn(sequence_length=): the backward loop reads the sequences reversed within their
    lengths (ReverseSequence) and its output is reversed back; both loops the fused ops with sequence_lens."""
    from tensorflow.python.ops import control_flow_util, rnn, rnn_cell_impl

    v1 = tf.compat.v1
    saved, control_flow_util.ENABLE_CONTROL_FLOW_V2 = control_flow_util.ENABLE_CONTROL_FLOW_V2, False
    x_value = np.random.default_rng(1).standard_normal((3, 6, FEATURES)).astype(np.float32)
    lengths_value = np.array([6, 2, 4], np.int32)
    try:
        with tf.Graph().as_default() as graph:
            v1.set_random_seed(6)
            x = v1.placeholder(tf.float32, [None, None, FEATURES], name="x")
            lengths = v1.placeholder(tf.int32, [None], name="lengths")
            cells = rnn_cell_impl.LSTMCell(4), rnn_cell_impl.GRUCell(3)
            (fw, bw), (fw_state, bw_state) = rnn.bidirectional_dynamic_rnn(
                *cells, x, sequence_length=lengths, dtype=tf.float32
            )
            tf.concat([fw, bw], 2, name="seq")
            tf.concat([fw_state.h, bw_state], 1, name="final")
            with v1.Session(graph=graph) as sess:
                sess.run(v1.global_variables_initializer())
                frozen = v1.graph_util.convert_variables_to_constants(sess, graph.as_graph_def(), ["seq", "final"])
                want = sess.run(["seq:0", "final:0"], {x: x_value, lengths: lengths_value})
    finally:
        control_flow_util.ENABLE_CONTROL_FLOW_V2 = saved
    path = str(tmp_path / "model.pb")
    with open(path, "wb") as f:
        f.write(frozen.SerializeToString())
    twl = str(tmp_path / "model.twl")
    assert cli_main(["--input", path, "--inputs", "x,lengths", "--outputs", "seq,final", "--output", twl]) == 0
    got = lite_runner.LiteRunner(twl).run([x_value, lengths_value])
    for name, expected in zip(["seq", "final"], want):
        np.testing.assert_allclose(got[name], expected, rtol=RTOL, atol=ATOL, err_msg=name)

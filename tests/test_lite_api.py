"""tw.lite: TF1's TFLiteConverter (from_session, from_frozen_graph, from_saved_model, from_keras_model_file,
post-training quantization) and Interpreter, against TensorFlow's compat.v1 converter and interpreter run on
the same program."""

import os

import numpy as np
import pytest
import tensorweave as tw

pytest.importorskip("tensorweave_lite")

RNG = np.random.default_rng(0)
W = (np.arange(12, dtype=np.float32).reshape(4, 3) - 5) / 10
X = RNG.random((5, 4), dtype=np.float32)


def _mlp(framework):
    """x [None, 4] -> softmax(relu(x W) W2 + b): the graph in tw or TF."""
    v1 = framework.compat.v1 if framework is not tw else tw
    x = v1.placeholder(framework.float32, [None, 4], name="x")
    w = framework.Variable(W, name="w")
    w2 = framework.Variable(W[:3, :].T.copy(), name="w2")
    b = framework.Variable(np.float32([0.1, -0.2, 0.3]), name="b")
    y = framework.nn.softmax(framework.matmul(framework.nn.relu(framework.matmul(x, w)), w2) + b, name="y")
    return x, y


def _run(model, x, **kwargs):
    interpreter = tw.lite.Interpreter(model_content=model, **kwargs)
    inp, out = interpreter.get_input_details()[0], interpreter.get_output_details()[0]
    interpreter.resize_tensor_input(inp["index"], x.shape)
    interpreter.allocate_tensors()
    interpreter.set_tensor(inp["index"], x)
    interpreter.invoke()
    return interpreter.get_tensor(out["index"])


def _from_session(**options):
    with tw.Graph().as_default(), tw.Session() as sess:
        x, y = _mlp(tw)
        sess.run(tw.global_variables_initializer())
        converter = tw.lite.TFLiteConverter.from_session(sess, [x], [y])
        for key, value in options.items():
            setattr(converter, key, value)
        return converter, sess.run(y, {x: X})


def test_from_session_details_and_values_match_tensorflow():
    tf = pytest.importorskip("tensorflow")
    with tf.Graph().as_default(), tf.compat.v1.Session() as sess:
        x, y = _mlp(tf)
        sess.run(tf.compat.v1.global_variables_initializer())
        reference = tf.compat.v1.lite.TFLiteConverter.from_session(sess, [x], [y]).convert()
    tf_interpreter = tf.lite.Interpreter(model_content=reference)
    converter, expected = _from_session()
    assert converter.get_input_arrays() == ["x"]
    model = converter.convert()
    interpreter = tw.lite.Interpreter(model_content=model)
    interpreter.allocate_tensors()
    for ours, theirs in (
        (interpreter.get_input_details()[0], tf_interpreter.get_input_details()[0]),
        (interpreter.get_output_details()[0], tf_interpreter.get_output_details()[0]),
    ):
        for key in ("name", "dtype", "quantization"):
            assert ours[key] == theirs[key]
        for key in ("shape", "shape_signature"):
            np.testing.assert_array_equal(ours[key], theirs[key])
    np.testing.assert_allclose(_run(model, X), expected, rtol=1e-5, atol=1e-6)


def test_written_model_runs_from_its_path(tmp_path):
    converter, expected = _from_session()
    path = tmp_path / "model.tflite"
    path.write_bytes(converter.convert())
    interpreter = tw.lite.Interpreter(model_path=str(path), num_threads=2)
    interpreter.allocate_tensors()
    index = interpreter.get_input_details()[0]["index"]
    interpreter.set_tensor(index, X[:1])
    interpreter.invoke()
    got = interpreter.get_tensor(interpreter.get_output_details()[0]["index"])
    np.testing.assert_allclose(got, expected[:1], rtol=1e-5, atol=1e-6)


def _calibration():
    for i in range(40):
        yield [RNG.random((1, 4), dtype=np.float32)]


@pytest.mark.parametrize(
    "options",
    [
        {"optimizations": [tw.lite.Optimize.DEFAULT]},
        {"post_training_quantize": True},
        {"optimizations": [tw.lite.Optimize.DEFAULT], "representative_dataset": _calibration},
        {
            "optimizations": [tw.lite.Optimize.DEFAULT],
            "representative_dataset": tw.lite.RepresentativeDataset(_calibration),
            "target_spec": tw.lite.TargetSpec(supported_ops=[tw.lite.OpsSet.TFLITE_BUILTINS_INT8]),
        },
    ],
    ids=["dynamic", "post_training_quantize", "int8", "int8_ops"],
)
def test_post_training_quantization_stays_near_float(options):
    converter, expected = _from_session(**options)
    model = converter.convert()
    metadata = tw.lite.Interpreter(model_content=model)._impl.model_info()
    assert "quantization" in str(metadata)
    np.testing.assert_allclose(_run(model, X), expected, atol=0.03)


def test_refusals_match_tensorflow():
    converter, _ = _from_session(target_spec=tw.lite.TargetSpec([tw.lite.OpsSet.TFLITE_BUILTINS_INT8]))
    with pytest.raises(ValueError, match="representative_dataset` must be specified"):
        converter.convert()
    converter, _ = _from_session(inference_input_type=tw.uint8)
    with pytest.raises(ValueError, match="float tensors"):
        converter.convert()
    with pytest.raises(ValueError, match="`model_path` or `model_content` must be specified"):
        tw.lite.Interpreter()
    with pytest.raises(ValueError, match="Could not open '/no/such/model'"):
        tw.lite.Interpreter(model_path="/no/such/model")
    with pytest.raises(ValueError, match="delegates"):
        tw.lite.experimental.load_delegate("libedgetpu.so.1")


def test_a_tflite_flatbuffer_is_refused_with_the_reason():
    tf = pytest.importorskip("tensorflow")
    with tf.Graph().as_default(), tf.compat.v1.Session() as sess:
        x, y = _mlp(tf)
        sess.run(tf.compat.v1.global_variables_initializer())
        tflite = tf.compat.v1.lite.TFLiteConverter.from_session(sess, [x], [y]).convert()
    with pytest.raises(ValueError, match="TensorFlow Lite flatbuffer"):
        tw.lite.Interpreter(model_content=tflite)


def test_unsupported_op_names_the_node():
    with tw.Graph().as_default(), tw.Session() as sess:
        x = tw.placeholder(tw.string, [None], name="text")
        y = tw.strings.length(tw.strings.upper(x), name="n")
        converter = tw.lite.TFLiteConverter.from_session(sess, [x], [y])
    with pytest.raises(Exception, match="StringUpper|upper") as info:
        converter.convert()
    assert type(info.value).__name__ == "ConverterError"


def _frozen_graph_file(tmp_path, as_text):
    with tw.Graph().as_default(), tw.Session() as sess:
        x, y = _mlp(tw)
        sess.run(tw.global_variables_initializer())
        frozen = tw.graph_util.convert_variables_to_constants(sess, sess.graph_def, ["y"])
        expected = sess.run(y, {x: X[:2]})
    name = "frozen.pbtxt" if as_text else "frozen.pb"
    tw.train.write_graph(frozen, str(tmp_path), name, as_text=as_text)
    return os.path.join(str(tmp_path), name), expected


@pytest.mark.parametrize("as_text", [False, True])
def test_from_frozen_graph_with_input_shapes(tmp_path, as_text):
    path, expected = _frozen_graph_file(tmp_path, as_text)
    converter = tw.lite.TFLiteConverter.from_frozen_graph(path, ["x"], ["y"], input_shapes={"x": [2, 4]})
    interpreter = tw.lite.Interpreter(model_content=converter.convert())
    interpreter.allocate_tensors()
    details = interpreter.get_input_details()[0]
    np.testing.assert_array_equal(details["shape"], [2, 4])
    np.testing.assert_array_equal(details["shape_signature"], [2, 4])
    interpreter.set_tensor(details["index"], X[:2])
    interpreter.invoke()
    got = interpreter.get_tensor(interpreter.get_output_details()[0]["index"])
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_from_frozen_graph_errors_match_tensorflow(tmp_path):
    path, _ = _frozen_graph_file(tmp_path, False)
    with pytest.raises(ValueError, match="Invalid tensors 'nope' were found."):
        tw.lite.TFLiteConverter.from_frozen_graph(path, ["x"], ["nope"])
    with pytest.raises(OSError, match="does not exist"):
        tw.lite.TFLiteConverter.from_frozen_graph(str(tmp_path / "none.pb"), ["x"], ["y"])


def test_from_saved_model(tmp_path):
    export = str(tmp_path / "saved")
    with tw.Graph().as_default(), tw.Session() as sess:
        x, y = _mlp(tw)
        sess.run(tw.global_variables_initializer())
        tw.saved_model.simple_save(sess, export, inputs={"x": x}, outputs={"y": y})
        expected = sess.run(y, {x: X})
    model = tw.lite.TFLiteConverter.from_saved_model(export).convert()
    np.testing.assert_allclose(_run(model, X), expected, rtol=1e-5, atol=1e-6)


def test_from_keras_model_file(tmp_path):
    path = str(tmp_path / "model.h5")
    with tw.Graph().as_default():
        model = tw.keras.Sequential(
            [tw.keras.layers.Dense(8, activation="relu", input_shape=(4,)), tw.keras.layers.Dense(3)]
        )
        model.compile("sgd", "mse")
        expected = model.predict(X)
        model.save(path)
    converter = tw.lite.TFLiteConverter.from_keras_model_file(path)
    np.testing.assert_allclose(_run(converter.convert(), X), expected, rtol=1e-5, atol=1e-5)


def test_saved_model_builder_export_converts(tmp_path):
    """A SavedModelBuilder directory (saved_model.pb beside tensorweave's variables) through
    TFLiteConverter.from_saved_model with its signature key, and through tensorweave-convert."""
    from converters import cli

    export = str(tmp_path / "builder")
    with tw.Graph().as_default(), tw.Session() as sess:
        x, y = _mlp(tw)
        sess.run(tw.global_variables_initializer())
        builder = tw.saved_model.builder.SavedModelBuilder(export)
        signature = tw.saved_model.signature_def_utils.predict_signature_def(inputs={"images": x}, outputs={"p": y})
        builder.add_meta_graph_and_variables(
            sess, [tw.saved_model.tag_constants.SERVING], signature_def_map={"predict": signature}
        )
        builder.save()
        expected = sess.run(y, {x: X})
    model = tw.lite.TFLiteConverter.from_saved_model(export, signature_key="predict").convert()
    np.testing.assert_allclose(_run(model, X), expected, rtol=1e-5, atol=1e-6)
    out = str(tmp_path / "model.twl")
    cli.main(["--input", export, "--signature", "predict", "--output", out])
    with open(out, "rb") as f:
        np.testing.assert_allclose(_run(f.read(), X), expected, rtol=1e-5, atol=1e-6)

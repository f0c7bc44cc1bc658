"""tw.keras.applications against tf_keras's applications (built in a subprocess by keras_applications_oracle.py,
so TF's global mode never matters): model names, layer names, weight shapes and parameter counts; tf_keras's
weights saved to .h5 and loaded into tw's models by topology and by name give tf_keras's predictions; 'imagenet'
weights from the Keras cache; the argument errors; preprocess_input's modes; a MobileNetV2 that trains a step and
converts to .twl with the lite runtime giving the model's predictions."""

import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest
import tensorweave as tw

A = tw.keras.applications
HERE = os.path.dirname(os.path.abspath(__file__))

# key -> (application, kwargs (weights=None added), compare predictions, weights file name (default <key>.h5)).
# EfficientNetB2 checks the width/depth scaling; the deepest variants (their families' code with longer depth
# tables, slow to build in tf_keras) are checked with TW_TEST_ALL_APPLICATIONS=1.
MODELS = {
    "mobilenet_v2": ("MobileNetV2", {"input_shape": [96, 96, 3], "classes": 10, "classifier_activation": None}, 1, 0),
    "mobilenet_v2_a035": ("MobileNetV2", {"input_shape": [32, 32, 3], "alpha": 0.35, "include_top": False}, 0, 0),
    "mobilenet": ("MobileNet", {"input_shape": [64, 64, 3], "alpha": 0.5, "classes": 7}, 1, 0),
    "mobilenet_dm2": ("MobileNet", {"input_shape": [32, 32, 3], "alpha": 0.25, "depth_multiplier": 2}, 0, 0),
    # Saved under Keras' cache name for the 'imagenet' test.
    "resnet50": (
        "ResNet50",
        {"input_shape": [32, 32, 3], "include_top": False, "pooling": "avg"},
        1,
        "resnet50_weights_tf_dim_ordering_tf_kernels_notop.h5",
    ),
    "resnet50v2": ("ResNet50V2", {"input_shape": [32, 32, 3], "classes": 4, "classifier_activation": None}, 1, 0),
    "densenet121": ("DenseNet121", {"input_shape": [32, 32, 3], "classes": 5, "classifier_activation": None}, 1, 0),
    "mobilenet_v3_small": (
        "MobileNetV3Small",
        {"input_shape": [64, 64, 3], "classes": 4, "classifier_activation": None},
        1,
        0,
    ),
    "mobilenet_v3_large": (
        "MobileNetV3Large",
        {"input_shape": [32, 32, 3], "include_top": False, "pooling": "avg"},
        0,
        0,
    ),
    "mobilenet_v3_minimal": (
        "MobileNetV3Small",
        {"input_shape": [32, 32, 3], "minimalistic": True, "alpha": 0.75},
        0,
        0,
    ),
    "efficientnetb0": (
        "EfficientNetB0",
        {"input_shape": [32, 32, 3], "classes": 4, "classifier_activation": None},
        1,
        0,
    ),
    "inception_v3": ("InceptionV3", {"input_shape": [75, 75, 3], "include_top": False, "pooling": "avg"}, 1, 0),
    "xception": ("Xception", {"input_shape": [71, 71, 3], "classes": 4, "classifier_activation": None}, 1, 0),
    "efficientnetb2": ("EfficientNetB2", {"input_shape": [32, 32, 3], "include_top": False, "pooling": "max"}, 0, 0),
    "vgg16": ("VGG16", {"input_shape": [32, 32, 3], "include_top": False, "pooling": "max"}, 1, 0),
    "vgg19": ("VGG19", {"input_shape": [32, 32, 3], "classes": 3}, 0, 0),
}
if os.environ.get("TW_TEST_ALL_APPLICATIONS"):
    MODELS.update(
        {
            "resnet152": ("ResNet152", {"input_shape": [32, 32, 3], "classes": 3}, 0, 0),
            "densenet201": ("DenseNet201", {"input_shape": [32, 32, 3], "classes": 3}, 0, 0),
            "efficientnetb7": ("EfficientNetB7", {"input_shape": [32, 32, 3], "include_top": False}, 0, 0),
            "resnet101": ("ResNet101", {"input_shape": [32, 32, 3], "include_top": False, "pooling": "max"}, 0, 0),
            "resnet101v2": ("ResNet101V2", {"input_shape": [32, 32, 3], "include_top": False}, 0, 0),
            "resnet152v2": ("ResNet152V2", {"input_shape": [32, 32, 3], "classes": 3}, 0, 0),
            "densenet169": ("DenseNet169", {"input_shape": [32, 32, 3], "include_top": False, "pooling": "avg"}, 0, 0),
            "efficientnetb5": ("EfficientNetB5", {"input_shape": [32, 32, 3], "classes": 2}, 0, 0),
        }
    )
# key -> (application, kwargs): calls that tf_keras refuses.
ERRORS = {
    "bad_weights": ("ResNet50", {"weights": "no_such_file.h5"}),
    "imagenet_classes": ("MobileNetV2", {"weights": "imagenet", "classes": 10}),
    "too_small": ("VGG16", {"weights": None, "input_shape": [16, 16, 3]}),
    "not_three_dims": ("ResNet50", {"weights": None, "input_shape": [32, 32], "include_top": False}),
    "flatten_unknown": ("ResNet50", {"weights": None, "input_shape": [None, None, 3]}),
    "imagenet_channels": ("ResNet50V2", {"weights": "imagenet", "input_shape": [64, 64, 1], "include_top": False}),
    "imagenet_shape_top": ("VGG19", {"weights": "imagenet", "input_shape": [64, 64, 3]}),
    "v2_alpha": ("MobileNetV2", {"weights": "imagenet", "alpha": 0.2, "include_top": False}),
    "v1_alpha": ("MobileNet", {"weights": "imagenet", "alpha": 0.3, "include_top": False}),
    "v1_depth": ("MobileNet", {"weights": "imagenet", "depth_multiplier": 2, "include_top": False}),
    "v3_alpha": ("MobileNetV3Large", {"weights": "imagenet", "alpha": 0.5, "include_top": False}),
    "v3_too_small": ("MobileNetV3Small", {"weights": None, "input_shape": [24, 24, 3]}),
    "inception_too_small": ("InceptionV3", {"weights": None, "input_shape": [64, 64, 3], "include_top": False}),
    "unknown_kwarg": ("MobileNetV2", {"weights": None, "bogus": 1}),
}


@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    pytest.importorskip("tf_keras")
    out = tmp_path_factory.mktemp("oracle")
    cases = out / "cases.json"
    cases.write_text(json.dumps({"models": MODELS, "errors": ERRORS}))
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    run = subprocess.run(
        [sys.executable, os.path.join(HERE, "keras_applications_oracle.py"), str(cases), str(out)],
        env=env,
        capture_output=True,
        check=False,
        text=True,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return out, json.loads((out / "oracle.json").read_text()), dict(np.load(out / "oracle.npz"))


def _build(key, **overrides):
    fn, kwargs, _, _ = MODELS[key]
    return getattr(A, fn)(**dict(dict(kwargs, weights=None), **overrides))


def _auto(name):
    """An automatic layer name without its uniquifying suffix (`global_average_pooling2d_3` -> base); the layers
    that wrap a raw op (`x + 3.0`) all read "<op>": tf_keras names them after the TF2 API ("tf.__operators__.add"),
    tw.keras as TF1's Keras does ("tf_op_layer_add")."""
    if name.startswith(("tf.", "tf_op_layer_")):
        return "<op>"
    return re.sub(r"_\d+$", "", name)


@pytest.mark.parametrize("key", sorted(MODELS))
def test_structure_matches_tf_keras(oracle, key):
    theirs = oracle[1]["models"][key]
    with tw.Graph().as_default():
        model = _build(key)
        assert model.name == theirs["name"]
        assert model.count_params() == theirs["params"]
        assert [_auto(layer.name) for layer in model.layers] == [_auto(n) for n in theirs["layers"]]
        ours = [(_auto(layer.name), w.shape.as_list()) for layer in model.layers for w in layer.weights]
        assert ours == [(_auto(n), s) for n, s in theirs["weights"]]


def _weights_file(out, key):
    return str(out / (MODELS[key][3] or f"{key}.h5"))


# (Loading by name is checked on two families, to keep the file fast.)
@pytest.mark.parametrize(
    ("key", "by_name"),
    [(k, False) for k in sorted(k for k in MODELS if MODELS[k][2])]
    + [("mobilenet_v2", True), ("resnet50v2", True), ("inception_v3", True)],
)
def test_tf_keras_weights_give_tf_keras_predictions(oracle, key, by_name):
    out, _, arrays = oracle
    with tw.Graph().as_default():
        model = _build(key)
        model.load_weights(_weights_file(out, key), by_name=by_name)
        got = model.predict(arrays[f"{key}_x"])
    np.testing.assert_allclose(got, arrays[f"{key}_y"], rtol=1e-4, atol=1e-4)


def test_weights_argument_path_loads_that_file(oracle):
    out, _, arrays = oracle
    with tw.Graph().as_default():
        model = _build("mobilenet", weights=_weights_file(out, "mobilenet"))
        got = model.predict(arrays["mobilenet_x"])
    np.testing.assert_allclose(got, arrays["mobilenet_y"], rtol=1e-4, atol=1e-5)


def test_imagenet_weights_come_from_the_keras_cache(oracle, tmp_path, monkeypatch):
    out, _, arrays = oracle
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    kwargs = dict(MODELS["resnet50"][1], weights="imagenet")
    expected = tmp_path / "models" / "resnet50_weights_tf_dim_ordering_tf_kernels_notop.h5"
    with tw.Graph().as_default(), pytest.raises(OSError, match=re.escape(str(expected))):
        A.ResNet50(**kwargs)
    expected.parent.mkdir()
    os.symlink(_weights_file(out, "resnet50"), expected)
    with tw.Graph().as_default():
        got = A.ResNet50(**kwargs).predict(arrays["resnet50_x"])
    np.testing.assert_allclose(got, arrays["resnet50_y"], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("key", sorted(ERRORS))
def test_argument_errors_match_tf_keras(oracle, key, tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))  # an 'imagenet' call that tf_keras accepts must not load
    kind, message = oracle[1]["errors"][key]
    fn, kwargs = ERRORS[key]
    with tw.Graph().as_default(), pytest.raises(ValueError) as info:
        getattr(A, fn)(**kwargs)
    # The families word the tail of some messages differently ("Received ..." or none): the statement must match.
    statement = re.split(r"\s*Received", message)[0].rstrip(" .;")
    assert kind == "ValueError" and str(info.value).startswith(statement), (str(info.value), message)


@pytest.mark.parametrize("mode", ["caffe", "tf", "torch"])
@pytest.mark.parametrize("fmt", ["channels_last", "channels_first"])
def test_preprocess_input_matches_tf_keras(oracle, mode, fmt):
    arrays = oracle[2]
    batch = arrays["images"] if fmt == "channels_last" else arrays["images"].transpose(0, 3, 1, 2)
    pre = A.imagenet_utils.preprocess_input
    for x, expected in ((batch, arrays[f"pre_{mode}_{fmt}"]), (batch[0], arrays[f"pre_{mode}_{fmt}_3d"])):
        np.testing.assert_allclose(pre(x.copy(), data_format=fmt, mode=mode), expected, rtol=1e-6)
        with tw.Graph().as_default(), tw.Session() as sess:
            got = sess.run(pre(tw.constant(x), data_format=fmt, mode=mode))
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    uint8 = np.clip(batch, 0, 255).astype(np.uint8)
    assert pre(uint8, data_format=fmt, mode=mode).dtype == np.float32


def test_family_modules_preprocess_in_their_mode_and_decode(tmp_path, monkeypatch):
    from tensorweave.keras.applications import mobilenet_v2, resnet50, vgg16

    x = np.random.default_rng(3).uniform(0, 255, (1, 2, 2, 3)).astype(np.float32)
    pre = A.imagenet_utils.preprocess_input
    np.testing.assert_allclose(mobilenet_v2.preprocess_input(x.copy()), pre(x.copy(), mode="tf"))
    np.testing.assert_allclose(resnet50.preprocess_input(x.copy()), pre(x.copy(), mode="caffe"))
    assert vgg16.VGG16 is A.VGG16 and A.resnet.ResNet152 is A.ResNet152
    with pytest.raises(ValueError, match="mode="):
        pre(x, mode="bogus")
    with pytest.raises(ValueError, match="data_format="):
        pre(x, data_format="nhwc")

    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    monkeypatch.setattr("tensorweave._src.keras.applications.imagenet_utils._CLASS_INDEX", None)
    preds = np.random.default_rng(4).random((2, 1000)).astype(np.float32)
    with pytest.raises(OSError, match=re.escape(str(tmp_path / "models" / "imagenet_class_index.json"))):
        resnet50.decode_predictions(preds)
    with pytest.raises(ValueError, match=r"Found array with shape: \(2, 10\)"):
        resnet50.decode_predictions(preds[:, :10])
    (tmp_path / "models").mkdir()
    index = {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}
    (tmp_path / "models" / "imagenet_class_index.json").write_text(json.dumps(index))
    decoded = resnet50.decode_predictions(preds, top=3)
    for row, pred in zip(decoded, preds):
        best = np.argsort(-pred)[:3]
        assert [r[:2] for r in row] == [tuple(index[str(i)]) for i in best]
        np.testing.assert_allclose([r[2] for r in row], pred[best])


def test_mobilenet_v2_trains_a_step_and_converts_to_lite():
    pytest.importorskip("tensorweave_lite")
    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 1, (4, 32, 32, 3)).astype(np.float32)
    y = rng.integers(0, 3, 4)
    with tw.Graph().as_default():
        model = A.MobileNetV2(input_shape=(32, 32, 3), alpha=0.35, weights=None, classes=3)
        model.compile("sgd", "sparse_categorical_crossentropy")
        before = model.get_weights()
        history = model.fit(x, y, batch_size=4, epochs=1, verbose=0)
        assert np.isfinite(history.history["loss"][0])
        assert any(not np.array_equal(a, b) for a, b in zip(before, model.get_weights()))
        expected = model.predict(x)
        converted = tw.lite.TFLiteConverter.from_keras_model(model).convert()
    interpreter = tw.lite.Interpreter(model_content=converted)
    inp, out = interpreter.get_input_details()[0], interpreter.get_output_details()[0]
    interpreter.resize_tensor_input(inp["index"], x.shape)
    interpreter.allocate_tensors()
    interpreter.set_tensor(inp["index"], x)
    interpreter.invoke()
    np.testing.assert_allclose(interpreter.get_tensor(out["index"]), expected, rtol=1e-4, atol=1e-5)

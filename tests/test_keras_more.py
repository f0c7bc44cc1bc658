"""tw.keras preprocessing layers, further layers, utils and losses against tf_keras 2 (Keras 2.21).

adapt() only runs in TF2 (eager) in tf_keras, so the adapt() oracle runs in a subprocess; layers without state are
compared in TF1 graph mode in this process."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
import tensorweave as tw

L = tw.keras.layers

# --- adapt() and the stateful preprocessing layers: tf_keras in eager mode, in a subprocess ---

ORACLE = r"""
import json, sys
import numpy as np
import tf_keras
L = tf_keras.layers
out = {}
def clean(v):
    if isinstance(v, list):
        return [clean(e) for e in v]
    return v.decode() if isinstance(v, bytes) else (v.item() if hasattr(v, "item") else v)
def put(key, value):
    value = value.numpy() if hasattr(value, "numpy") else value
    out[key] = clean(np.asarray(value).tolist() if not isinstance(value, list) else value)
rng = np.random.RandomState(0)
norm_x = rng.randn(70, 3).astype("float32") * [1, 2, 3] + [0, 1, -2]
n = L.Normalization(); n.adapt(norm_x)
put("norm_mean", n.mean); put("norm_var", n.variance); put("norm_out", n(norm_x[:4]))
n = L.Normalization(axis=None); n.adapt(norm_x); put("norm_none_out", n(norm_x[:4]))
n = L.Normalization(axis=(1, 2)); n.adapt(norm_x.reshape(35, 2, 3)); put("norm_12_out", n(norm_x[:4].reshape(2, 2, 3)))
n = L.Normalization(invert=True); n.adapt(norm_x); put("norm_inv_out", n(norm_x[:4]))
disc = np.random.RandomState(0).rand(100).astype("float32") * 10
for bins in (3, 4, 7):
    d = L.Discretization(num_bins=bins); d.adapt(disc); put(f"disc_{bins}", list(d.bin_boundaries))
words = np.array(["b", "a", "c", "a", "b", "d", "a", "e", "e", "e"])
probe = np.array([["a", "z"], ["e", "d"]])
for key, kwargs in {
    "int": {}, "mask": {"mask_token": "[M]"}, "oov2": {"num_oov_indices": 2}, "max": {"max_tokens": 3},
    "onehot": {"output_mode": "one_hot"}, "multi": {"output_mode": "multi_hot"}, "count": {"output_mode": "count"},
    "pad": {"output_mode": "multi_hot", "max_tokens": 8, "pad_to_max_tokens": True},
}.items():
    s = L.StringLookup(**kwargs); s.adapt(words)
    put(f"str_{key}_vocab", s.get_vocabulary())
    put(f"str_{key}_out", s(probe[:, :1] if key == "onehot" else (np.array(["a", "[M]", "z"]) if key == "mask" else probe)))
s = L.StringLookup(output_mode="tf_idf"); s.adapt(np.array([["b", "a"], ["c", "a"], ["b", "d"]]))
put("str_tfidf_vocab", s.get_vocabulary()); put("str_tfidf_out", s(probe))
s = L.StringLookup(vocabulary=["x", "y"], invert=True); put("str_invert_out", s(np.array([[0, 1, 2, 5]])))
i = L.IntegerLookup(); i.adapt(np.array([5, 3, 3, 7, 9, 9, 2])); put("int_vocab", i.get_vocabulary())
put("int_out", i(np.array([[9, 4, 2]])))
i = L.IntegerLookup(mask_token=0, num_oov_indices=2); i.adapt(np.array([5, 3, 3, 0, 7])); put("int2_vocab", i.get_vocabulary())
put("int2_out", i(np.array([[0, 3, 11, 12]])))
texts = np.array(["The cat, sat!", "the dog sat", "a dog", "Dog days: the end."])
for key, kwargs in {
    "int": {"max_tokens": 6, "output_sequence_length": 5}, "plain": {},
    "count": {"output_mode": "count"}, "multi": {"output_mode": "multi_hot", "max_tokens": 5},
    "tfidf": {"output_mode": "tf_idf"}, "ngrams": {"ngrams": 2, "output_mode": "count"},
    "lower": {"standardize": "lower", "output_sequence_length": 3},
}.items():
    t = L.TextVectorization(**kwargs); t.adapt(texts)
    put(f"text_{key}_vocab", t.get_vocabulary())
    put(f"text_{key}_out", t(np.array(["the cat sat on the mat", "DOG!", "end the days"])))
t = L.TextVectorization(ngrams=2, output_sequence_length=7); t.adapt(texts)
put("text_ngram_int_out", t(np.array(["the cat sat", "dog"])))
for key, layer, x in [
    ("cat_multi", L.CategoryEncoding(5), np.array([[1, 2, 1], [0, 4, 4]])),
    ("cat_count", L.CategoryEncoding(5, output_mode="count"), np.array([[1, 2, 1], [0, 4, 4]])),
    ("cat_onehot", L.CategoryEncoding(5, output_mode="one_hot"), np.array([3, 0, 1])),
    ("cat_rank1", L.CategoryEncoding(4), np.array([1, 2, 1])),
    ("hash", L.Hashing(7), np.array([["a"], ["b"], ["cat"], ["dog"]])),
    ("hash_int", L.Hashing(7), np.array([[1], [20], [300]])),
    ("hash_mask", L.Hashing(7, mask_value=""), np.array([["a"], [""], ["c"]])),
    ("hash_salt", L.Hashing(7, salt=133), np.array([["a"], ["b"], ["cat"]])),
    ("hash_salt2", L.Hashing(7, salt=[1, 2]), np.array([["a"], ["b"], ["cat"]])),
    ("hash_onehot", L.Hashing(4, output_mode="multi_hot"), np.array([["a", "b"], ["cat", "dog"]])),
    ("disc_fixed", L.Discretization([0.0, 1.0, 2.5]), np.array([[-1.0, 0.0, 0.5, 1.0, 3.0]])),
    ("disc_onehot", L.Discretization([0.0, 1.0], output_mode="one_hot"), np.array([-1.0, 0.5, 4.0])),
]:
    put(key, layer(x))
json.dump(out, sys.stdout)
"""


@pytest.fixture(scope="module")
def oracle():
    pytest.importorskip("tf_keras")
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", TF_CPP_MIN_LOG_LEVEL="3")
    proc = subprocess.run(
        [sys.executable, "-c", ORACLE], capture_output=True, text=True, env=env, timeout=300, check=False
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def _run(fn):
    """fn() builds tensors in a fresh graph; their values (tables and variables initialized)."""
    with tw.Graph().as_default():
        out = fn()
        with tw.Session() as sess:
            sess.run([tw.global_variables_initializer(), tw.tables_initializer()])
            return sess.run(out)


def _close(ours, theirs):
    np.testing.assert_allclose(np.asarray(ours, np.float64), np.asarray(theirs, np.float64), rtol=1e-5, atol=1e-5)


RNG = np.random.RandomState(0)
NORM_X = RNG.randn(70, 3).astype("float32") * [1, 2, 3] + [0, 1, -2]


def test_normalization_adapt(oracle):
    x = NORM_X.astype(np.float32)
    n = L.Normalization()
    n.adapt(x)
    ours = _run(lambda: [n(tw.constant(x[:4])), n.adapt_mean, n.adapt_variance, n.count])
    _close(ours[0], oracle["norm_out"])
    _close(ours[1], np.ravel(oracle["norm_mean"]))
    _close(ours[2], np.ravel(oracle["norm_var"]))
    assert ours[3] == 70
    for key, kwargs, data, probe in [
        ("norm_none_out", {"axis": None}, x, x[:4]),
        ("norm_12_out", {"axis": (1, 2)}, x.reshape(35, 2, 3), x[:4].reshape(2, 2, 3)),
        ("norm_inv_out", {"invert": True}, x, x[:4]),
    ]:
        layer = L.Normalization(**kwargs)
        layer.adapt(data)
        _close(_run(lambda layer=layer, probe=probe: layer(tw.constant(probe))), oracle[key])


def test_normalization_adapt_dataset_and_after_build():
    x = NORM_X.astype(np.float32)

    with tw.Graph().as_default():
        n = L.Normalization()
        n(tw.keras.Input((3,)))
        tw.keras.backend.get_session().run(tw.global_variables_initializer())
        n.adapt(tw.data.Dataset.from_tensor_slices(x).batch(16))
        mean, var = tw.keras.backend.get_session().run([n.adapt_mean, n.adapt_variance])
    _close(mean, x.mean(0))
    _close(var, x.var(0))


def test_normalization_given_mean_and_errors():
    x = NORM_X[:5].astype(np.float32)
    out = _run(lambda: L.Normalization(mean=[1.0, 2.0, 3.0], variance=[4.0, 1.0, 9.0])(tw.constant(x)))
    _close(out, (x - [1, 2, 3]) / np.sqrt([4, 1, 9]))
    with pytest.raises(ValueError, match="both `mean` and `variance` must be set"):
        L.Normalization(mean=1.0)
    with pytest.raises(ValueError, match="'axis' may not be 0"):
        L.Normalization(axis=0)
    with pytest.raises(ValueError, match="Cannot `adapt` a Normalization layer"):
        L.Normalization(mean=0.0, variance=1.0).adapt(x)
    config = L.Normalization(axis=(1, 2), invert=True).get_config()
    assert config["axis"] == (1, 2) and config["invert"] is True
    assert L.Normalization.from_config(config).axis == (1, 2)


def test_discretization(oracle):
    data = np.random.RandomState(0).rand(100).astype("float32") * 10
    for bins in (3, 4, 7):
        d = L.Discretization(num_bins=bins)
        d.adapt(data)
        _close(d.bin_boundaries, oracle[f"disc_{bins}"])
    ours = _run(lambda: L.Discretization([0.0, 1.0, 2.5])(tw.constant([[-1.0, 0.0, 0.5, 1.0, 3.0]])))
    assert ours.tolist() == oracle["disc_fixed"]
    _close(_run(lambda: L.Discretization([0.0, 1.0], output_mode="one_hot")(tw.constant([-1.0, 0.5, 4.0]))),
           oracle["disc_onehot"])  # fmt: skip
    with pytest.raises(ValueError, match="Both `num_bins` and `bin_boundaries`"):
        L.Discretization([1.0], num_bins=2)
    config = L.Discretization(num_bins=5, epsilon=0.1).get_config()
    assert (config["num_bins"], config["epsilon"], config["output_mode"]) == (5, 0.1, "int")


@pytest.mark.parametrize("key", ["int", "mask", "oov2", "max", "onehot", "multi", "count", "pad"])
def test_string_lookup_adapt(oracle, key):
    kwargs = {
        "int": {}, "mask": {"mask_token": "[M]"}, "oov2": {"num_oov_indices": 2}, "max": {"max_tokens": 3},
        "onehot": {"output_mode": "one_hot"}, "multi": {"output_mode": "multi_hot"},
        "count": {"output_mode": "count"}, "pad": {"output_mode": "multi_hot", "max_tokens": 8,
                                                   "pad_to_max_tokens": True},
    }[key]  # fmt: skip
    s = L.StringLookup(**kwargs)
    s.adapt(np.array(["b", "a", "c", "a", "b", "d", "a", "e", "e", "e"]))
    assert s.get_vocabulary() == oracle[f"str_{key}_vocab"]
    probe = [["a", "z"], ["e", "d"]]
    probe = [p[:1] for p in probe] if key == "onehot" else (["a", "[M]", "z"] if key == "mask" else probe)
    _close(_run(lambda: s(tw.constant(probe))), oracle[f"str_{key}_out"])
    clone = L.StringLookup.from_config(s.get_config())
    assert clone.get_vocabulary() == s.get_vocabulary()


def test_string_lookup_tf_idf_and_invert(oracle):
    s = L.StringLookup(output_mode="tf_idf")
    s.adapt(np.array([["b", "a"], ["c", "a"], ["b", "d"]]))
    assert s.get_vocabulary() == oracle["str_tfidf_vocab"]
    _close(_run(lambda: s(tw.constant([["a", "z"], ["e", "d"]]))), oracle["str_tfidf_out"])
    inv = _run(lambda: L.StringLookup(vocabulary=["x", "y"], invert=True)(tw.constant([[0, 1, 2, 5]], tw.int64)))
    assert [v.decode() for v in inv.ravel()] == oracle["str_invert_out"][0]


def test_string_lookup_vocabulary_errors():
    with pytest.raises(ValueError, match="repeated term"):
        L.StringLookup(vocabulary=["a", "b", "a"])
    with pytest.raises(ValueError, match="reserved OOV token"):
        L.StringLookup(vocabulary=["a", "[UNK]"])
    with pytest.raises(ValueError, match="Unknown `output_mode`"):
        L.StringLookup(output_mode="bogus")
    with pytest.raises(ValueError, match="`idf_weights` must be set"):
        L.StringLookup(vocabulary=["a"], output_mode="tf_idf")
    s = L.StringLookup(vocabulary=["a", "b"], num_oov_indices=0)
    with pytest.raises(tw.errors.InvalidArgumentError, match="num_oov_indices=0"):
        _run(lambda: s(tw.constant(["a", "q"])))


def test_integer_lookup(oracle):
    i = L.IntegerLookup()
    i.adapt(np.array([5, 3, 3, 7, 9, 9, 2]))
    assert i.get_vocabulary() == oracle["int_vocab"]
    assert _run(lambda: i(tw.constant([[9, 4, 2]], tw.int64))).tolist() == oracle["int_out"]
    i = L.IntegerLookup(mask_token=0, num_oov_indices=2)
    i.adapt(np.array([5, 3, 3, 0, 7]))
    assert i.get_vocabulary() == oracle["int2_vocab"]
    assert _run(lambda: i(tw.constant([[0, 3, 11, 12]], tw.int64))).tolist() == oracle["int2_out"]
    with pytest.raises(ValueError, match="vocabulary_dtype"):
        L.IntegerLookup(vocabulary_dtype="int32")


@pytest.mark.parametrize("key", ["int", "plain", "count", "multi", "tfidf", "ngrams", "lower"])
def test_text_vectorization(oracle, key):
    kwargs = {
        "int": {"max_tokens": 6, "output_sequence_length": 5}, "plain": {},
        "count": {"output_mode": "count"}, "multi": {"output_mode": "multi_hot", "max_tokens": 5},
        "tfidf": {"output_mode": "tf_idf"}, "ngrams": {"ngrams": 2, "output_mode": "count"},
        "lower": {"standardize": "lower", "output_sequence_length": 3},
    }[key]  # fmt: skip
    t = L.TextVectorization(**kwargs)
    t.adapt(np.array(["The cat, sat!", "the dog sat", "a dog", "Dog days: the end."]))
    assert t.get_vocabulary() == oracle[f"text_{key}_vocab"]
    out = _run(lambda: t(tw.constant(["the cat sat on the mat", "DOG!", "end the days"])))
    _close(out, oracle[f"text_{key}_out"])
    clone = L.TextVectorization.from_config(t.get_config())
    assert clone.get_vocabulary() == t.get_vocabulary()


def test_text_vectorization_ngrams_int_and_errors(oracle):
    t = L.TextVectorization(ngrams=2, output_sequence_length=7)
    t.adapt(np.array(["The cat, sat!", "the dog sat", "a dog", "Dog days: the end."]))
    assert _run(lambda: t(tw.constant(["the cat sat", "dog"]))).tolist() == oracle["text_ngram_int_out"]
    with pytest.raises(ValueError, match="`output_sequence_length` must not be set"):
        L.TextVectorization(output_mode="count", output_sequence_length=3)
    with pytest.raises(ValueError, match="Unknown value for `standardize`"):
        L.TextVectorization(standardize="upper")


@pytest.mark.parametrize(
    "key,make,x",
    [
        ("cat_multi", lambda: L.CategoryEncoding(5), [[1, 2, 1], [0, 4, 4]]),
        ("cat_count", lambda: L.CategoryEncoding(5, output_mode="count"), [[1, 2, 1], [0, 4, 4]]),
        ("cat_onehot", lambda: L.CategoryEncoding(5, output_mode="one_hot"), [3, 0, 1]),
        ("cat_rank1", lambda: L.CategoryEncoding(4), [1, 2, 1]),
        ("hash", lambda: L.Hashing(7), [["a"], ["b"], ["cat"], ["dog"]]),
        ("hash_int", lambda: L.Hashing(7), [[1], [20], [300]]),
        ("hash_mask", lambda: L.Hashing(7, mask_value=""), [["a"], [""], ["c"]]),
        ("hash_salt", lambda: L.Hashing(7, salt=133), [["a"], ["b"], ["cat"]]),
        ("hash_salt2", lambda: L.Hashing(7, salt=[1, 2]), [["a"], ["b"], ["cat"]]),
        ("hash_onehot", lambda: L.Hashing(4, output_mode="multi_hot"), [["a", "b"], ["cat", "dog"]]),
    ],
)
def test_category_encoding_and_hashing(oracle, key, make, x):
    _close(_run(lambda: make()(tw.constant(x))), oracle[key])


def test_category_encoding_errors():
    with pytest.raises(tw.errors.InvalidArgumentError, match="0 <= values < num_tokens with num_tokens=3"):
        _run(lambda: L.CategoryEncoding(3)(tw.constant([[1, 3]])))
    with pytest.raises(ValueError, match="num_tokens must be set"):
        L.CategoryEncoding()
    with pytest.raises(ValueError, match="`num_bins` for `Hashing`"):
        L.Hashing(0)
    config = L.CategoryEncoding(4, output_mode="count").get_config()
    assert (config["num_tokens"], config["output_mode"]) == (4, "count")


# --- image preprocessing layers: TF1 graph mode, both libraries in this process ---


def _both(build, feeds, training_free=True):
    """build(keras) -> outputs (from keras.Input placeholders of `feeds`' shapes); values in tw and tf_keras, with
    tw's trainable weights loaded into tf_keras's."""
    tf1 = pytest.importorskip("tensorflow.compat.v1")
    tf_keras = pytest.importorskip("tf_keras")
    tf1.disable_v2_behavior()
    results = []
    for lib, keras in ((tw, tw.keras), (tf1, tf_keras)):
        with lib.Graph().as_default():
            xs = [keras.Input(a.shape[1:], dtype=str(a.dtype)) for a in feeds]
            y = build(keras, xs)
            with lib.Session() as sess:
                sess.run(lib.global_variables_initializer())
                if lib is tw:
                    weights = sess.run(lib.trainable_variables())
                else:
                    for v, w in zip(lib.trainable_variables(), weights):
                        v.load(w, sess)
                results.append(sess.run(y, dict(zip(xs, feeds))))
    return results


IMG = np.random.RandomState(1).rand(2, 6, 8, 3).astype(np.float32) * 255
SEQ = np.random.RandomState(2).randn(2, 7, 4).astype(np.float32)
VID = np.random.RandomState(4).randn(2, 3, 4, 5, 2).astype(np.float32)


@pytest.mark.parametrize(
    "build",
    [
        lambda k, x: k.layers.Rescaling(1 / 255.0, offset=-0.5)(x[0]),
        lambda k, x: k.layers.Resizing(3, 4)(x[0]),
        lambda k, x: k.layers.Resizing(9, 5, interpolation="nearest")(x[0]),
        lambda k, x: k.layers.Resizing(4, 4, interpolation="bicubic")(x[0]),
        lambda k, x: k.layers.Resizing(3, 5, interpolation="area")(x[0]),
        lambda k, x: k.layers.Resizing(3, 3, crop_to_aspect_ratio=True)(x[0]),
        lambda k, x: k.layers.CenterCrop(4, 5)(x[0]),
        lambda k, x: k.layers.CenterCrop(8, 8)(x[0]),
        lambda k, x: k.layers.RandomFlip()(x[0], training=False),
        lambda k, x: k.layers.RandomRotation(0.3)(x[0], training=False),
        lambda k, x: k.layers.RandomZoom(0.2, 0.3)(x[0], training=False),
        lambda k, x: k.layers.RandomTranslation(0.2, 0.1)(x[0], training=False),
        lambda k, x: k.layers.RandomContrast(0.4)(x[0], training=False),
        lambda k, x: k.layers.RandomBrightness(0.2)(x[0], training=False),
        lambda k, x: k.layers.RandomHeight(0.3)(x[0], training=False),
        lambda k, x: k.layers.RandomWidth(0.3)(x[0], training=False),
        lambda k, x: k.layers.RandomCrop(4, 5)(x[0], training=False),
        lambda k, x: k.layers.RandomCrop(8, 9)(x[0], training=False),
    ],
)
def test_image_layers_match_inference(build):
    ours, theirs = _both(build, [IMG])
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-3)


def test_random_layers_augment_in_training():
    x = IMG

    def build():
        i = tw.constant(x)
        return {
            "flip": L.RandomFlip("horizontal", seed=3)(i),
            "rot": L.RandomRotation(0.25, seed=1)(i, training=True),
            "zoom": L.RandomZoom(0.3, seed=1)(i),
            "trans": L.RandomTranslation(0.3, 0.3, fill_mode="constant", seed=2)(i),
            "contrast": L.RandomContrast(0.5, seed=1)(i),
            "bright": L.RandomBrightness(0.3, seed=1)(i),
            "crop": L.RandomCrop(4, 5, seed=1)(i),
            "height": L.RandomHeight((0.5, 0.6), seed=1)(i),
            "width": L.RandomWidth((-0.5, -0.4), seed=1)(i),
        }

    out = _run(build)
    flipped = out["flip"]
    for b in range(2):  # each image is itself or its mirror image
        assert np.array_equal(flipped[b], x[b]) or np.array_equal(flipped[b], x[b, :, ::-1])
    for key in ("rot", "zoom", "trans", "contrast", "bright"):
        assert out[key].shape == x.shape and not np.allclose(out[key], x), key
    assert out["bright"].min() >= 0 and out["bright"].max() <= 255
    assert out["crop"].shape == (2, 4, 5, 3)
    crop = out["crop"][0]
    assert any(np.array_equal(crop, x[0, i : i + 4, j : j + 5]) for i in range(3) for j in range(4))
    assert out["height"].shape == (2, 9, 8, 3) and out["width"].shape == (2, 6, 4, 3)


def test_projective_transform_matches_tf():
    tf = pytest.importorskip("tensorflow")
    from tensorweave._src.keras.layers_preprocessing import transform

    images = IMG[:, :5, :6]
    angle = 0.4
    c, s = np.cos(angle), np.sin(angle)
    transforms = np.array([[c, -s, 1.0, s, c, -0.5, 0.0, 0.0], [1.2, 0.0, -0.7, 0.0, 0.8, 0.6, 0.01, -0.02]],
                          np.float32)  # fmt: skip
    for fill_mode in ("reflect", "wrap", "constant", "nearest"):
        for interpolation in ("nearest", "bilinear"):
            ours = _run(
                lambda f=fill_mode, i=interpolation: transform(tw.constant(images), tw.constant(transforms), f, 7.0, i)
            )
            with tf.Graph().as_default():
                theirs_t = tf.raw_ops.ImageProjectiveTransformV3(
                    images=images, transforms=transforms, output_shape=[5, 6], fill_value=7.0,
                    interpolation=interpolation.upper(), fill_mode=fill_mode.upper())  # fmt: skip
                with tf.compat.v1.Session() as sess:
                    theirs = sess.run(theirs_t)
            np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-2, err_msg=f"{fill_mode} {interpolation}")


def test_image_layer_errors():
    with pytest.raises(ValueError, match="unknown mode"):
        L.RandomFlip("diagonal")
    with pytest.raises(NotImplementedError, match="fill_mode"):
        L.RandomRotation(0.1, fill_mode="mirror")
    with pytest.raises(ValueError, match="factor"):
        L.RandomContrast(-0.1)
    with pytest.raises(ValueError, match="value_range"):
        L.RandomBrightness(0.1, value_range=(0, 1, 2))
    config = L.RandomZoom(0.2, 0.1, fill_mode="nearest", seed=4).get_config()
    assert config["fill_mode"] == "nearest" and config["seed"] == 4 and config["width_factor"] == 0.1
    assert L.RandomZoom.from_config(config).get_config() == config


def test_experimental_preprocessing_aliases():
    from tensorweave.keras.layers.experimental.preprocessing import Normalization

    assert Normalization is L.Normalization
    assert L.experimental.preprocessing.Normalization is L.Normalization
    assert L.experimental.preprocessing.TextVectorization is L.TextVectorization
    assert L.experimental.EinsumDense is L.EinsumDense


# --- further layers, with tw's initial weights loaded into tf_keras ---


@pytest.mark.parametrize(
    "build,x",
    [
        (lambda k, x: k.layers.Identity()(x[0]), SEQ),
        (lambda k, x: k.layers.UnitNormalization()(x[0]), SEQ),
        (lambda k, x: k.layers.UnitNormalization(axis=[1, 2])(x[0]), SEQ),
        (lambda k, x: k.layers.GroupNormalization(2)(x[0]), SEQ),
        (lambda k, x: k.layers.GroupNormalization(4, epsilon=0.1, gamma_initializer="uniform")(x[0]), SEQ),
        (lambda k, x: k.layers.GroupNormalization(-1, axis=1, beta_initializer="uniform")(x[0]), SEQ),
        (lambda k, x: k.layers.EinsumDense("abc,cd->abd", (None, 5), bias_axes="d")(x[0]), SEQ),
        (lambda k, x: k.layers.EinsumDense("...b,bc->...c", 3, activation="relu")(x[0]), SEQ),
        (lambda k, x: k.layers.EinsumDense("abc,cde->abde", (7, 2, 3), bias_axes="de")(x[0]), SEQ),
        (lambda k, x: k.layers.Conv1DTranspose(3, 3)(x[0]), SEQ),
        (lambda k, x: k.layers.Conv1DTranspose(3, 3, strides=2, padding="same", activation="tanh")(x[0]), SEQ),
        (lambda k, x: k.layers.Conv1DTranspose(2, 3, strides=2, output_padding=1)(x[0]), SEQ),
        (lambda k, x: k.layers.Conv1DTranspose(2, 2, dilation_rate=2, data_format="channels_first")(x[0]), SEQ),
        (lambda k, x: k.layers.DepthwiseConv1D(3, depth_multiplier=2)(x[0]), SEQ),
        (lambda k, x: k.layers.DepthwiseConv1D(2, strides=2, padding="same", use_bias=False)(x[0]), SEQ),
        (lambda k, x: k.layers.LocallyConnected1D(3, 3, bias_initializer="uniform")(x[0]), SEQ),
        (lambda k, x: k.layers.ConvLSTM2D(3, 2, bias_initializer="uniform")(x[0]), VID),
        (lambda k, x: k.layers.ConvLSTM2D(2, (2, 3), padding="same", return_sequences=True)(x[0]), VID),
        (
            lambda k, x: k.layers.ConvLSTM2D(
                2, 2, strides=2, go_backwards=True, activation="relu", recurrent_activation="sigmoid"
            )(x[0]),
            VID,
        ),
        (lambda k, x: k.layers.ConvLSTM2D(2, 2, return_state=True, unit_forget_bias=False)(x[0]), VID),
        (lambda k, x: k.layers.ConvLSTM1D(3, 2, return_sequences=True)(x[0]), VID[:, :, 0]),
        (lambda k, x: k.layers.LocallyConnected1D(2, 2, strides=2, activation="relu")(x[0]), SEQ),
        (
            lambda k, x: k.layers.LocallyConnected1D(2, 2, data_format="channels_first", bias_initializer="uniform")(
                x[0]
            ),
            SEQ,
        ),
        (lambda k, x: k.layers.LocallyConnected2D(2, (2, 3), bias_initializer="uniform")(x[0]), IMG[:, :4, :5]),
        (
            lambda k, x: k.layers.LocallyConnected2D(
                3, 2, strides=(2, 1), data_format="channels_first", bias_initializer="uniform"
            )(x[0]),
            IMG[:, :4, :5],
        ),
    ],
)
def test_more_layers_match(build, x):
    ours, theirs = _both(build, [x])
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)


def test_backend_local_conv_and_ctc_decode():
    rng = np.random.RandomState(13)
    x1, k1 = rng.randn(2, 7, 3).astype(np.float32), rng.randn(3, 6, 4).astype(np.float32)
    x2, k2 = rng.randn(2, 5, 4, 3).astype(np.float32), rng.randn(6, 12, 2).astype(np.float32)
    probs = rng.rand(2, 6, 4).astype(np.float32)
    probs /= probs.sum(-1, keepdims=True)
    lengths = np.array([6, 4], np.int32)

    def build(K, lib):
        greedy, greedy_lp = K.ctc_decode(lib.constant(probs), lib.constant(lengths))
        beam, beam_lp = K.ctc_decode(lib.constant(probs), lib.constant(lengths), greedy=False, beam_width=5,
                                     top_paths=2)  # fmt: skip
        return [K.local_conv1d(lib.constant(x1), lib.constant(k1), (2,), (2,)),
                K.local_conv2d(lib.constant(x2), lib.constant(k2), (2, 2), (2, 1), (2, 3)),
                greedy, greedy_lp, beam, beam_lp]  # fmt: skip

    tf1 = pytest.importorskip("tensorflow.compat.v1")
    tf_keras = pytest.importorskip("tf_keras")
    tf1.disable_v2_behavior()
    values = []
    for lib, K in ((tw, tw.keras.backend), (tf1, tf_keras.backend)):
        with lib.Graph().as_default(), lib.Session() as sess:
            values.append(sess.run(build(K, lib)))
    for ours, theirs in zip(values[0], values[1]):
        if isinstance(ours, list):
            for a, b in zip(ours, theirs):
                np.testing.assert_array_equal(a, b)
        else:
            _close(ours, theirs)


def test_more_layers_training_matches():
    """A model of the new layers, trained for a few steps from the same weights, ends with tf_keras's weights."""
    x = SEQ
    y = np.random.RandomState(3).randn(2, 3).astype(np.float32)

    def fit(keras, lib):
        with lib.Graph().as_default():
            model = keras.Sequential([
                keras.layers.GroupNormalization(2, input_shape=(7, 4)),
                keras.layers.EinsumDense("abc,cd->abd", (7, 5), bias_axes="d", activation="tanh"),
                keras.layers.DepthwiseConv1D(3),
                keras.layers.Conv1DTranspose(2, 3, strides=2),
                keras.layers.UnitNormalization(),
                keras.layers.Flatten(),
                keras.layers.Dense(3),
            ])  # fmt: skip
            if weights:
                model.set_weights(weights[0])
            else:
                weights.append(model.get_weights())
            model.compile(keras.optimizers.legacy.SGD(0.1), "mse")
            model.fit(x, y, epochs=3, batch_size=2, verbose=0)
            return model.get_weights()

    pytest.importorskip("tf_keras")
    import tensorflow.compat.v1 as tf1
    import tf_keras

    tf1.disable_v2_behavior()
    weights = []
    ours = fit(tw.keras, tw)
    theirs = fit(tf_keras, tf1)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_more_layers_errors_and_config():
    with pytest.raises(ValueError, match="Number of groups"):
        _run(lambda: L.GroupNormalization(3)(tw.constant(SEQ)))
    with pytest.raises(ValueError, match="Invalid einsum equation"):
        _run(lambda: L.EinsumDense("ab->b", 3)(tw.constant(SEQ)))
    with pytest.raises(ValueError, match="Causal padding"):
        L.DepthwiseConv1D(3, padding="causal")
    with pytest.raises(ValueError, match="must be greater than output padding"):
        L.Conv1DTranspose(2, 3, strides=1, output_padding=1)
    config = L.EinsumDense("ab,bc->ac", 4, bias_axes="c", name="ed").get_config()
    assert config["equation"] == "ab,bc->ac" and config["output_shape"] == [4] and config["bias_axes"] == "c"
    assert L.EinsumDense.from_config(config).get_config() == config
    config = L.GroupNormalization(8, epsilon=0.01).get_config()
    assert config["groups"] == 8 and config["epsilon"] == 0.01
    assert isinstance(L.InputSpec(ndim=3), L.InputSpec)
    with pytest.raises(ValueError, match='only "valid" is supported'):
        L.LocallyConnected1D(2, 3, padding="same")
    with pytest.raises(NotImplementedError, match="does not support dropout"):
        L.ConvLSTM2D(2, 3, dropout=0.1)
    with pytest.raises(ValueError, match="expected ndim=5"):
        _run(lambda: L.ConvLSTM2D(2, 3)(tw.constant(SEQ)))
    config = L.ConvLSTM2D(4, 3, padding="same", return_sequences=True).get_config()
    assert config["filters"] == 4 and config["padding"] == "same" and config["return_sequences"] is True
    assert config["recurrent_activation"] == "hard_sigmoid"
    with pytest.raises(ValueError, match="Please initialize `Wrapper`"):
        L.Wrapper("dense")


# --- utils ---


def test_utils_match_tf_keras():
    tf_keras = pytest.importorskip("tf_keras")
    U, V = tw.keras.utils, tf_keras.utils
    y = np.array([[0], [3], [1], [2]])
    np.testing.assert_array_equal(U.to_ordinal(y), V.to_ordinal(y))
    np.testing.assert_array_equal(U.to_ordinal([0, 2], num_classes=5), V.to_ordinal([0, 2], num_classes=5))
    seqs = [[1, 2, 3], [4], [5, 6, 7, 8, 9]]
    np.testing.assert_array_equal(U.pad_sequences(seqs, maxlen=4, truncating="post"),
                                  V.pad_sequences(seqs, maxlen=4, truncating="post"))  # fmt: skip
    for args in [(1,), (1, 2), (1, 2, 3), ((1, 2),)]:
        assert U.pack_x_y_sample_weight(*args) == V.pack_x_y_sample_weight(*args)
    for data in [1, (1,), (1, 2), [1, 2, 3]]:
        assert U.unpack_x_y_sample_weight(data) == V.unpack_x_y_sample_weight(data)
    with pytest.raises(ValueError, match="Data is expected to be in format"):
        U.unpack_x_y_sample_weight((1, 2, 3, 4))


def _dataset_values(make):
    """The elements of the dataset(s) make() returns (made in a fresh graph)."""
    with tw.Graph().as_default():
        datasets = make()
        if isinstance(datasets, tuple):
            return tuple(_elements(d) for d in datasets)
        return _elements(datasets)


def _elements(dataset):
    nxt = tw.data.make_one_shot_iterator(dataset).get_next()
    values = []
    with tw.Session() as sess:
        while True:
            try:
                values.append(sess.run(nxt))
            except tw.errors.OutOfRangeError:
                return values


def test_timeseries_dataset_from_array():
    tf_keras = pytest.importorskip("tf_keras")
    data = np.arange(40, dtype=np.float32).reshape(20, 2)
    targets = np.arange(20) * 10
    kwargs = {"sequence_length": 4, "sequence_stride": 3, "sampling_rate": 2, "batch_size": 2, "start_index": 1,
              "end_index": 18}  # fmt: skip
    ours = _dataset_values(lambda: tw.keras.utils.timeseries_dataset_from_array(data, targets, **kwargs))
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", TF_CPP_MIN_LOG_LEVEL="3")
    script = (
        "import json, numpy as np, tf_keras\n"
        "data = np.arange(40, dtype=np.float32).reshape(20, 2); targets = np.arange(20) * 10\n"
        f"ds = tf_keras.utils.timeseries_dataset_from_array(data, targets, **{kwargs!r})\n"
        "print(json.dumps([[x.numpy().tolist(), y.numpy().tolist()] for x, y in ds]))\n"
    )
    del tf_keras
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300, check=False
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    theirs = json.loads(proc.stdout)
    assert len(ours) == len(theirs)
    for (x, y), (tx, ty) in zip(ours, theirs):
        np.testing.assert_array_equal(x, tx)
        np.testing.assert_array_equal(y, ty)
    with pytest.raises(ValueError, match="`sampling_rate` must be higher than 0"):
        tw.keras.utils.timeseries_dataset_from_array(data, None, 3, sampling_rate=0)


def test_split_dataset_and_registration():
    x, y = np.arange(10), np.arange(10) * 2
    left, right = _dataset_values(lambda: tw.keras.utils.split_dataset((x, y), left_size=0.8))
    assert [int(a) for a, _ in left] == list(range(8)) and [int(b) for _, b in right] == [16, 18]
    left, right = _dataset_values(lambda: tw.keras.utils.split_dataset(
        tw.data.Dataset.from_tensor_slices(x), right_size=3, shuffle=True, seed=1))  # fmt: skip
    assert sorted(int(v) for v in left + right) == list(range(10)) and len(right) == 3
    with pytest.raises(ValueError, match="At least one of the `left_size` or `right_size`"):
        tw.keras.utils.split_dataset(x)
    with pytest.raises(TypeError, match="`dataset` argument"):
        tw.keras.utils.split_dataset("abc", 0.5)

    @tw.keras.utils.register_keras_serializable(package="kp_test")
    class Doubler(L.Layer):
        def call(self, inputs):
            return inputs * 2

        def get_config(self):
            return {"name": self.name}

    assert tw.keras.utils.get_registered_name(Doubler) == "kp_test>Doubler"
    assert tw.keras.utils.get_registered_object("kp_test>Doubler") is Doubler
    assert tw.keras.utils.get_registered_object("kp_test>Nothing") is None
    with tw.Graph().as_default():
        inp = tw.keras.Input((2,))
        out = L.Dense(3)(L.Dense(2)(inp))
        assert tw.keras.utils.get_source_inputs(out) == [inp]


def test_set_random_seed():
    tw.keras.utils.set_random_seed(7)
    a = np.random.rand()
    with tw.Graph().as_default():
        tw.keras.utils.set_random_seed(7)
        first = _run(lambda: tw.random.uniform([3]))
    tw.keras.utils.set_random_seed(7)
    assert np.random.rand() == a
    with pytest.raises(ValueError, match="Expected `seed` argument to be an integer"):
        tw.keras.utils.set_random_seed(1.5)
    assert first.shape == (3,)


# --- focal losses ---


@pytest.mark.parametrize(
    "name,kwargs",
    [
        ("BinaryFocalCrossentropy", {}),
        ("BinaryFocalCrossentropy", {"apply_class_balancing": True, "alpha": 0.4, "gamma": 1.5}),
        ("BinaryFocalCrossentropy", {"from_logits": True, "label_smoothing": 0.1}),
        ("CategoricalFocalCrossentropy", {}),
        ("CategoricalFocalCrossentropy", {"alpha": 0.5, "gamma": 3.0, "from_logits": True, "label_smoothing": 0.2}),
    ],
)
def test_focal_losses(name, kwargs):
    tf1 = pytest.importorskip("tensorflow.compat.v1")
    tf_keras = pytest.importorskip("tf_keras")
    tf1.disable_v2_behavior()
    rng = np.random.RandomState(5)
    if name.startswith("Binary"):
        y_true = (rng.rand(4, 3) > 0.5).astype(np.float32)
        y_pred = rng.rand(4, 3).astype(np.float32) if not kwargs.get("from_logits") else rng.randn(4, 3)
    else:
        y_true = np.eye(3, dtype=np.float32)[[0, 2, 1, 1]]
        y_pred = rng.rand(4, 3).astype(np.float32) if not kwargs.get("from_logits") else rng.randn(4, 3)
    y_pred = y_pred.astype(np.float32)
    weights = np.array([1.0, 0.5, 2.0, 0.0], np.float32)
    values = []
    for lib, keras in ((tw, tw.keras), (tf1, tf_keras)):
        with lib.Graph().as_default():
            loss = getattr(keras.losses, name)(**kwargs)
            fn = getattr(keras.losses, name.replace("Focal", "_focal_").replace("Binary", "binary").replace(
                "Categorical", "categorical").replace("Crossentropy", "crossentropy"))  # fmt: skip
            fn_kwargs = {k: v for k, v in kwargs.items()}
            with lib.Session() as sess:
                values.append(sess.run([loss(y_true, y_pred), loss(y_true, y_pred, sample_weight=weights),
                                        fn(y_true, y_pred, **fn_kwargs)]))  # fmt: skip
            config = loss.get_config()
            values.append({k: config[k] for k in sorted(config) if k not in ("reduction", "fn")})
    _close(values[0][0], values[2][0])
    _close(values[0][1], values[2][1])
    _close(values[0][2], values[2][2])
    assert values[1] == values[3]
    assert tw.keras.losses.get("binary_focal_crossentropy") is tw.keras.losses.binary_focal_crossentropy


def test_model_from_yaml_raises_as_tf_keras():
    with pytest.raises(RuntimeError, match="model_from_yaml"):
        tw.keras.models.model_from_yaml("")


# --- metrics ---

METRIC_CASES = [
    ("IoU", {"num_classes": 3, "target_class_ids": [0, 2]}, [0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1], True),
    ("IoU", {"num_classes": 4, "target_class_ids": [1], "ignore_class": 0}, [0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 1],
     False),
    ("BinaryIoU", {}, [0, 1, 1, 0, 1, 0], [0.2, 0.7, 0.4, 0.9, 0.5, 0.1], True),
    ("BinaryIoU", {"target_class_ids": [1], "threshold": 0.3}, [0, 1, 1, 0, 1, 0], [0.2, 0.7, 0.4, 0.9, 0.5, 0.1],
     False),
    ("OneHotIoU", {"num_classes": 3, "target_class_ids": [0, 1]}, "onehot", "p2", True),
    ("OneHotMeanIoU", {"num_classes": 3}, "onehot", "p2", True),
    ("F1Score", {}, "onehot", "p2", True),
    ("F1Score", {"average": "micro", "threshold": 0.5}, "onehot", "p2", False),
    ("F1Score", {"average": "macro"}, "onehot", "p2", True),
    ("FBetaScore", {"average": "weighted", "beta": 2.0, "threshold": 0.4}, "onehot", "p2", True),
    ("R2Score", {}, "y2", "p2", True),
    ("R2Score", {"class_aggregation": None}, "y2", "p2", False),
    ("R2Score", {"class_aggregation": "variance_weighted_average", "num_regressors": 2}, "y2", "p2", False),
    ("MeanRelativeError", {"normalizer": [1.0, 2.0, 4.0]}, "y2", "p2", True),
    ("MeanTensor", {}, "y2", None, True),
]  # fmt: skip

METRIC_ORACLE = r"""
import json, sys
import numpy as np
import tf_keras
cases, arrays = json.load(sys.stdin)
out = []
for name, kwargs, y_true, y_pred, weighted in cases:
    metric = getattr(tf_keras.metrics, name)(**kwargs)
    args = [np.asarray(arrays.get(a, a) if isinstance(a, str) else a, np.float32) for a in (y_true, y_pred)
            if a is not None]
    metric.update_state(*[a[:3] for a in args])
    metric.update_state(*[a[3:] for a in args], sample_weight=np.asarray(arrays["w"][3:], np.float32) if weighted else None)
    config = {k: v for k, v in metric.get_config().items() if k != "name"}
    out.append([np.asarray(metric.result()).tolist(), json.loads(json.dumps(config, default=lambda o: o.tolist()))])
json.dump(out, sys.stdout)
"""

_ARRAYS = {
    "y2": np.random.RandomState(7).rand(6, 3).astype(np.float32),
    "p2": np.random.RandomState(8).rand(6, 3).astype(np.float32),
    "onehot": np.eye(3, dtype=np.float32)[[0, 2, 1, 1, 0, 2]],
    "w": np.array([1.0, 0.5, 2.0, 0.0, 1.0, 3.0], np.float32),
}


@pytest.fixture(scope="module")
def metric_oracle():
    pytest.importorskip("tf_keras")
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", TF_CPP_MIN_LOG_LEVEL="3")
    payload = json.dumps([METRIC_CASES, {k: v.tolist() for k, v in _ARRAYS.items()}])
    proc = subprocess.run([sys.executable, "-c", METRIC_ORACLE], input=payload, capture_output=True, text=True,
                          env=env, timeout=300, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


@pytest.mark.parametrize("index", range(len(METRIC_CASES)))
def test_more_metrics_match(metric_oracle, index):
    name, kwargs, y_true, y_pred, weighted = METRIC_CASES[index]
    args = [np.asarray(_ARRAYS[a] if isinstance(a, str) else a, np.float32) for a in (y_true, y_pred) if a is not None]
    with tw.Graph().as_default():
        metric = getattr(tw.keras.metrics, name)(**kwargs)
        first = metric.update_state(*[a[:3] for a in args])
        second = metric.update_state(*[a[3:] for a in args], sample_weight=_ARRAYS["w"][3:] if weighted else None)
        result = metric.result()
        with tw.Session() as sess:
            sess.run(tw.variables_initializer(metric.variables))
            sess.run(first)
            sess.run(second)
            ours = sess.run(result)
        config = {k: v for k, v in metric.get_config().items() if k != "name"}
    theirs, their_config = metric_oracle[index]
    _close(ours, theirs)
    assert json.loads(json.dumps(config)) == their_config


def test_more_metrics_errors():
    M = tw.keras.metrics
    with pytest.raises(ValueError, match="Target class id 3 is out of range"):
        M.IoU(3, [0, 3])
    with pytest.raises(ValueError, match="Invalid `average` argument value"):
        M.F1Score("mean")
    with pytest.raises(TypeError, match="Invalid `beta` argument value"):
        M.FBetaScore(beta=2)
    with pytest.raises(ValueError, match="Invalid value for argument `class_aggregation`"):
        M.R2Score("median")
    with tw.Graph().as_default(), pytest.raises(ValueError, match="R2Score expects 2D inputs"):
        M.R2Score().update_state(tw.constant([1.0, 2.0]), tw.constant([1.0, 2.0]))
    assert isinstance(M.get({"class_name": "R2Score", "config": {}}), M.R2Score)
    assert M.get("binary_focal_crossentropy") is tw.keras.losses.binary_focal_crossentropy


# --- schedules, regularizers, constraints ---


@pytest.mark.parametrize(
    "make,fn",
    [
        (lambda k: k.optimizers.schedules.CosineDecayRestarts(0.1, 10), "schedule"),
        (lambda k: k.optimizers.schedules.CosineDecayRestarts(0.1, 7, t_mul=1.0, m_mul=0.5, alpha=0.1), "schedule"),
        (lambda k: k.optimizers.schedules.CosineDecayRestarts(1.0, 5, t_mul=1.5, m_mul=0.8), "schedule"),
        (lambda k: k.constraints.RadialConstraint(), "constraint5"),
    ],
)
def test_schedules_and_constraint_graph(make, fn):
    tf1 = pytest.importorskip("tensorflow.compat.v1")
    tf_keras = pytest.importorskip("tf_keras")
    tf1.disable_v2_behavior()
    rng = np.random.RandomState(11)
    w2 = rng.randn(4, 6).astype(np.float32)
    k = 5 if fn == "constraint5" else 4
    w4 = rng.randn(k, k, 2, 3).astype(np.float32)
    values, configs = [], []
    for lib, keras in ((tw, tw.keras), (tf1, tf_keras)):
        with lib.Graph().as_default():
            obj = make(keras)
            if fn == "schedule":
                out = [obj(step) for step in (0, 3, 9, 10, 17, 31, 64)]
            elif fn == "regularizer":
                out = obj(lib.constant(w2))
            else:
                out = obj(lib.constant(w4))
            with lib.Session() as sess:
                values.append(sess.run(out))
            configs.append(obj.get_config())
    _close(values[0], values[1])
    assert configs[0] == configs[1]


EAGER_WEIGHT_ORACLE = r"""
import json, sys
import numpy as np
import tensorflow as tf
import tf_keras
rng = np.random.RandomState(11)
w2 = tf.constant(rng.randn(4, 6).astype(np.float32))
w4 = tf.constant(rng.randn(4, 4, 2, 3).astype(np.float32))
out = [
    float(tf_keras.regularizers.OrthogonalRegularizer(0.1)(w2)),
    float(tf_keras.regularizers.OrthogonalRegularizer(0.2, mode="columns")(w2)),
    np.asarray(tf_keras.constraints.RadialConstraint()(w4)).tolist(),
    tf_keras.regularizers.OrthogonalRegularizer(0.2, mode="columns").get_config(),
]
json.dump(out, sys.stdout)
"""


def test_orthogonal_regularizer_and_even_radial_constraint():
    pytest.importorskip("tf_keras")
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", TF_CPP_MIN_LOG_LEVEL="3")
    proc = subprocess.run([sys.executable, "-c", EAGER_WEIGHT_ORACLE], capture_output=True, text=True, env=env,
                          timeout=300, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows, columns, radial, config = json.loads(proc.stdout)
    rng = np.random.RandomState(11)
    w2 = rng.randn(4, 6).astype(np.float32)
    w4 = rng.randn(4, 4, 2, 3).astype(np.float32)
    R = tw.keras.regularizers
    ours = _run(lambda: [R.OrthogonalRegularizer(0.1)(tw.constant(w2)),
                         R.OrthogonalRegularizer(0.2, mode="columns")(tw.constant(w2)),
                         tw.keras.constraints.RadialConstraint()(tw.constant(w4))])  # fmt: skip
    _close(ours[0], rows)
    _close(ours[1], columns)
    _close(ours[2], radial)
    ours_config = R.OrthogonalRegularizer(0.2, mode="columns").get_config()
    assert ours_config["mode"] == config["mode"] and ours_config["factor"] == pytest.approx(config["factor"])


def test_regularizer_constraint_errors_and_lookup():
    with pytest.raises(ValueError, match="Invalid value for argument `mode`"):
        tw.keras.regularizers.OrthogonalRegularizer(mode="diagonal")
    with tw.Graph().as_default():
        with pytest.raises(ValueError, match="must have rank 2"):
            tw.keras.regularizers.OrthogonalRegularizer()(tw.zeros([2, 2, 2]))
        with pytest.raises(ValueError, match="must have rank 4"):
            tw.keras.constraints.RadialConstraint()(tw.zeros([3, 3]))
    assert isinstance(tw.keras.regularizers.get("orthogonal_regularizer"), tw.keras.regularizers.OrthogonalRegularizer)
    assert isinstance(tw.keras.constraints.get("radial_constraint"), tw.keras.constraints.RadialConstraint)
    schedule = tw.keras.optimizers.schedules.deserialize(
        tw.keras.optimizers.schedules.serialize(tw.keras.optimizers.schedules.CosineDecayRestarts(0.1, 10))
    )
    assert schedule.get_config()["first_decay_steps"] == 10


# --- optimizers (tf_keras's AdamW and Lion are TF2 optimizers: the oracle runs eagerly in a subprocess) ---

OPTIMIZER_CASES = [
    ("AdamW", {"learning_rate": 0.1}),
    ("AdamW", {"learning_rate": 0.05, "weight_decay": 0.1, "beta_1": 0.8, "amsgrad": True}),
    ("Lion", {}),
    ("Lion", {"learning_rate": 0.01, "beta_1": 0.5, "beta_2": 0.9}),
]

OPTIMIZER_ORACLE = r"""
import json, sys
import numpy as np
import tensorflow as tf
import tf_keras
cases = json.load(sys.stdin)
rng = np.random.RandomState(12)
w0 = rng.randn(3, 2).astype(np.float32)
grads = [rng.randn(3, 2).astype(np.float32) for _ in range(4)]
out = []
for name, kwargs in cases:
    var = tf.Variable(w0)
    opt = getattr(tf_keras.optimizers, name)(**kwargs)
    for g in grads:
        opt.apply_gradients([(tf.constant(g), var)])
    out.append(var.numpy().tolist())
json.dump(out, sys.stdout)
"""


@pytest.fixture(scope="module")
def optimizer_oracle():
    pytest.importorskip("tf_keras")
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", TF_CPP_MIN_LOG_LEVEL="3")
    proc = subprocess.run([sys.executable, "-c", OPTIMIZER_ORACLE], input=json.dumps(OPTIMIZER_CASES),
                          capture_output=True, text=True, env=env, timeout=300, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


@pytest.mark.parametrize("index", range(len(OPTIMIZER_CASES)))
def test_adamw_lion_match(optimizer_oracle, index):
    name, kwargs = OPTIMIZER_CASES[index]
    rng = np.random.RandomState(12)
    w0 = rng.randn(3, 2).astype(np.float32)
    grads = [rng.randn(3, 2).astype(np.float32) for _ in range(4)]
    with tw.Graph().as_default():
        var = tw.Variable(w0)
        g = tw.placeholder(tw.float32, [3, 2])
        opt = getattr(tw.keras.optimizers, name)(**kwargs)
        step = opt.apply_gradients([(g, var)])
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            for value in grads:
                sess.run(step, {g: value})
            ours = sess.run(var)
        config = opt.get_config()
        for key, value in kwargs.items():
            assert config[key] == pytest.approx(value)
        assert type(tw.keras.optimizers.get({"class_name": name, "config": config})) is type(opt)
    _close(ours, optimizer_oracle[index])


def test_adamw_exclusion_and_errors():
    with tw.Graph().as_default():
        a, b = tw.Variable([1.0, 2.0], name="kernel"), tw.Variable([1.0, 2.0], name="bias")
        opt = tw.keras.optimizers.AdamW(learning_rate=0.1, weight_decay=0.5)
        opt.exclude_from_weight_decay(var_names=["bias"])
        step = opt.apply_gradients([(tw.zeros([2]), a), (tw.zeros([2]), b)])
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            sess.run(step)
            new_a, new_b = sess.run([a, b])
    _close(new_a, [0.95, 1.9])  # decayed by lr * weight_decay
    _close(new_b, [1.0, 2.0])  # excluded, and a zero gradient moves nothing
    with pytest.raises(ValueError, match="Missing value of `weight_decay`"):
        tw.keras.optimizers.AdamW(weight_decay=None)
    with pytest.raises(ValueError, match="must be between"):
        tw.keras.optimizers.Lion(beta_1=0.0)


def test_lookup_layer_in_a_model_fits_predicts_and_round_trips():
    """A model with a StringLookup: Keras's session initializes the lookup table, as it does variables."""
    xs = np.array([["a", "b"], ["c", "z"]])
    with tw.Graph().as_default():
        inp = tw.keras.Input((2,), dtype="string")
        ids = L.StringLookup(vocabulary=["a", "b", "c"])(inp)
        out = L.Dense(1, kernel_initializer="ones")(L.Flatten()(L.Embedding(5, 3, embeddings_initializer="ones")(ids)))
        model = tw.keras.Model(inp, out)
        assert model.predict(xs).tolist() == [[6.0], [6.0]]
        ids_model = tw.keras.Model(inp, ids)
        assert ids_model.predict(xs).tolist() == [[1, 2], [3, 0]]
        model.compile("sgd", "mse")
        model.fit(xs, np.ones((2, 1)), verbose=0, epochs=2)
        clone = tw.keras.models.model_from_json(model.to_json())
    lookup = next(layer for layer in clone.layers if isinstance(layer, L.StringLookup))
    assert lookup.get_vocabulary() == ["[UNK]", "a", "b", "c"]


def test_spectral_normalization():
    """Against numpy's power iteration (tf_keras 2.21's own layer fails to build: it makes a Keras 3 InputSpec)."""
    rng = np.random.RandomState(14)
    x = rng.randn(4, 3).astype(np.float32)
    kernel, bias, u = rng.randn(3, 5).astype(np.float32), rng.randn(5).astype(np.float32), rng.randn(1, 5)

    def l2n(a):
        return a / np.sqrt(max(np.sum(a * a), 1e-12))

    new_u = u
    for _ in range(2):
        v = l2n(new_u @ kernel.T)
        new_u = l2n(v @ kernel)
    new_kernel = kernel / (v @ kernel @ new_u.T)
    infer, train, weights = x @ kernel + bias, x @ new_kernel + bias, [new_kernel, bias, new_u]
    with tw.Graph().as_default():
        layer = L.SpectralNormalization(L.Dense(5), power_iterations=2)
        inp = tw.keras.Input((3,))
        ours_infer = layer(inp)
        ours_train = layer(inp, training=True)
        sess = tw.keras.backend.get_session()
        sess.run(tw.global_variables_initializer())
        layer.set_weights([kernel, bias, u.astype(np.float32)])
        _close(sess.run(ours_infer, {inp: x}), infer)
        _close(sess.run(ours_train, {inp: x}), train)
        for ours, theirs in zip(layer.get_weights(), weights):
            _close(ours, theirs)
        assert layer.get_config()["power_iterations"] == 2
    with pytest.raises(ValueError, match="`power_iterations` should be greater than zero"):
        L.SpectralNormalization(L.Dense(2), power_iterations=0)


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"go_backwards": True}, {"unroll": True}, {"use_mask": True}, {"use_mask": True, "zero_output_for_mask": True},
     {"constants": True}],
)  # fmt: skip
def test_backend_rnn(kwargs):
    tf1 = pytest.importorskip("tensorflow.compat.v1")
    tf_keras = pytest.importorskip("tf_keras")
    tf1.disable_v2_behavior()
    rng = np.random.RandomState(15)
    x = rng.randn(2, 5, 3).astype(np.float32)
    w = rng.randn(3, 4).astype(np.float32)
    u = rng.randn(4, 4).astype(np.float32)
    mask = np.array([[1, 1, 0, 1, 0], [1, 0, 1, 1, 1]], bool)
    kwargs = dict(kwargs)
    use_mask, use_constants = kwargs.pop("use_mask", False), kwargs.pop("constants", False)
    values = []
    for lib, K in ((tw, tw.keras.backend), (tf1, tf_keras.backend)):
        with lib.Graph().as_default(), lib.Session() as sess:

            def step(x_t, states, lib=lib):
                h = lib.tanh(lib.matmul(x_t, w) + lib.matmul(states[0], u))
                if use_constants:
                    h = h * states[2]
                return h, [h, states[1] + 1.0]

            out = K.rnn(step, lib.constant(x), [lib.zeros([2, 4]), lib.zeros([2, 1])],
                        mask=lib.constant(mask) if use_mask else None,
                        constants=[lib.constant(0.5)] if use_constants else None, **kwargs)  # fmt: skip
            values.append(sess.run(list(out[:2]) + list(out[2])))
    for ours, theirs in zip(*values):
        _close(ours, theirs)

"""tw.keras.utils, tw.keras.preprocessing and tw.keras.activations against tf_keras (same inputs)."""

import json
import os

import numpy as np
import pytest
import tensorweave as tw
from tensorweave.keras.preprocessing.sequence import pad_sequences
from tensorweave.keras.preprocessing.text import Tokenizer

U = tw.keras.utils
A = tw.keras.activations

TEXTS = [
    "The cat sat on the mat.",
    "The dog ate my homework!",
    "Cats and dogs: the CAT, the dog.",
    "",
]


def _tf_keras():
    tf1 = pytest.importorskip("tensorflow.compat.v1")
    tf_keras = pytest.importorskip("tf_keras")
    tf1.disable_v2_behavior()
    return tf1, tf_keras


# --- utils ---


@pytest.mark.parametrize(
    "y,kwargs",
    [([0, 2, 1, 2], {}), ([[1], [0], [3]], {}), ([[0, 1], [2, 2]], {"num_classes": 4}), ([1, 0], {"dtype": "int32"})],
)
def test_to_categorical_matches_tf_keras(y, kwargs):
    _, tf_keras = _tf_keras()
    ours = U.to_categorical(y, **kwargs)
    theirs = tf_keras.utils.to_categorical(y, **kwargs)
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)


def test_normalize_matches_tf_keras():
    _, tf_keras = _tf_keras()
    x = np.array([[3.0, 4.0], [0.0, 0.0], [1.0, -1.0]])
    for kwargs in ({}, {"axis": 0}, {"order": 1}):
        np.testing.assert_allclose(U.normalize(x, **kwargs), tf_keras.utils.normalize(x, **kwargs))


def test_to_categorical_bad_class_id():
    with pytest.raises(IndexError):
        U.to_categorical([0, 5], num_classes=3)


def test_sequence_iterates_batches():
    class Batches(U.Sequence):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return i * 10

    assert list(Batches()) == [0, 10, 20]
    with pytest.raises(NotImplementedError):
        len(U.Sequence())


def test_get_file_uses_only_the_local_cache(tmp_path):
    with pytest.raises(OSError, match="URL fetch failure on https://example.com/data.npz"):
        U.get_file("data.npz", "https://example.com/data.npz", cache_dir=str(tmp_path))
    os.makedirs(tmp_path / "datasets")
    (tmp_path / "datasets" / "data.npz").write_bytes(b"x")
    path = U.get_file("data.npz", "https://example.com/data.npz", cache_dir=str(tmp_path))
    assert path == str(tmp_path / "datasets" / "data.npz")
    assert U.get_file(origin="https://example.com/data.npz?x=1", cache_dir=str(tmp_path)) == path
    with pytest.raises(ValueError, match="origin"):
        U.get_file("data.npz")
    # untar=True: `<fname>.tar.gz` in the cache is extracted next to it (once).
    import tarfile

    (tmp_path / "src" / "pack").mkdir(parents=True)
    (tmp_path / "src" / "pack" / "a.txt").write_text("hello")
    with tarfile.open(tmp_path / "datasets" / "pack.tar.gz", "w:gz") as archive:
        archive.add(tmp_path / "src" / "pack", arcname="pack")
    path = U.get_file("pack", "https://example.com/pack.tar.gz", untar=True, cache_dir=str(tmp_path))
    assert path == str(tmp_path / "datasets" / "pack")
    assert (tmp_path / "datasets" / "pack" / "a.txt").read_text() == "hello"


def test_custom_object_scope_reaches_get():
    def my_loss(y_true, y_pred):
        return y_pred

    with pytest.raises(ValueError, match="Unknown loss function"):
        tw.keras.losses.get("my_loss")
    with U.custom_object_scope({"my_loss": my_loss}):
        assert tw.keras.losses.get("my_loss") is my_loss
    with pytest.raises(ValueError, match="Unknown loss function"):
        tw.keras.losses.get("my_loss")


# --- preprocessing.sequence ---

SEQS = [[1, 2, 3], [4, 5], [], [6, 7, 8, 9, 10]]


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"maxlen": 3},
        {"maxlen": 3, "padding": "post"},
        {"maxlen": 3, "truncating": "post"},
        {"maxlen": 6, "padding": "post", "truncating": "post", "value": -1},
        {"dtype": "float32", "value": 0.5},
    ],
)
def test_pad_sequences_matches_tf_keras(kwargs):
    _, tf_keras = _tf_keras()
    ours = pad_sequences(SEQS, **kwargs)
    theirs = tf_keras.preprocessing.sequence.pad_sequences(SEQS, **kwargs)
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)


def test_pad_sequences_errors():
    with pytest.raises(ValueError, match='Padding type "middle" not understood'):
        pad_sequences(SEQS, padding="middle")
    with pytest.raises(ValueError, match='Truncating type "x" not understood'):
        pad_sequences(SEQS, maxlen=2, truncating="x")
    with pytest.raises(ValueError, match="must be a list of iterables"):
        pad_sequences([1, 2])
    with pytest.raises(ValueError, match="is not compatible with `value`"):
        pad_sequences([["a"]], value="x")


# --- preprocessing.text ---


@pytest.mark.parametrize("kwargs", [{}, {"num_words": 4}, {"oov_token": "<OOV>"}, {"num_words": 5, "oov_token": "?"}])
def test_tokenizer_matches_tf_keras(kwargs):
    _, tf_keras = _tf_keras()
    ours, theirs = Tokenizer(**kwargs), tf_keras.preprocessing.text.Tokenizer(**kwargs)
    ours.fit_on_texts(TEXTS)
    theirs.fit_on_texts(TEXTS)
    assert ours.word_index == theirs.word_index
    assert ours.index_word == theirs.index_word
    assert dict(ours.word_counts) == dict(theirs.word_counts)
    assert ours.document_count == theirs.document_count
    new = ["the cat and the bird", "a dog"]
    assert ours.texts_to_sequences(new) == theirs.texts_to_sequences(new)
    seqs = ours.texts_to_sequences(TEXTS)
    assert ours.sequences_to_texts(seqs) == theirs.sequences_to_texts(seqs)
    for mode in ("binary", "count", "freq", "tfidf"):
        np.testing.assert_allclose(ours.texts_to_matrix(new, mode=mode), theirs.texts_to_matrix(new, mode=mode))
    assert json.loads(ours.to_json()) == json.loads(theirs.to_json())
    again = tw.keras.preprocessing.text.tokenizer_from_json(ours.to_json())
    assert again.texts_to_sequences(new) == ours.texts_to_sequences(new)


def test_char_level_tokenizer_and_text_helpers():
    _, tf_keras = _tf_keras()
    ours = Tokenizer(char_level=True)
    theirs = tf_keras.preprocessing.text.Tokenizer(char_level=True)
    ours.fit_on_texts(TEXTS)
    theirs.fit_on_texts(TEXTS)
    assert ours.word_index == theirs.word_index
    text = tw.keras.preprocessing.text
    for kwargs in ({}, {"lower": False}, {"filters": "", "split": ","}):
        assert text.text_to_word_sequence("Hello, World!  a,b", **kwargs) == (
            tf_keras.preprocessing.text.text_to_word_sequence("Hello, World!  a,b", **kwargs)
        )
    assert text.one_hot(TEXTS[2], 7) == tf_keras.preprocessing.text.one_hot(TEXTS[2], 7)
    assert text.hashing_trick(TEXTS[1], 11, "md5") == tf_keras.preprocessing.text.hashing_trick(TEXTS[1], 11, "md5")


def test_tokenizer_errors():
    with pytest.raises(TypeError, match="Unrecognized keyword arguments"):
        Tokenizer(foo=1)
    with pytest.raises(ValueError, match="Specify a dimension"):
        Tokenizer().texts_to_matrix(["a"])
    t = Tokenizer()
    t.fit_on_texts(["a b"])
    with pytest.raises(ValueError, match="Unknown vectorization mode"):
        t.texts_to_matrix(["a"], mode="onehot")


# --- activations ---

X = np.linspace(-4.0, 8.0, 25, dtype=np.float32).reshape(5, 5)

ACTIVATION_CASES = [
    ("relu", {}),
    ("relu", {"alpha": 0.1}),
    ("relu", {"max_value": 6.0}),
    ("relu", {"max_value": 3.0, "alpha": 0.2}),
    ("relu", {"threshold": 1.0}),
    ("relu", {"threshold": 1.0, "alpha": 0.3, "max_value": 5.0}),
    ("elu", {}),
    ("elu", {"alpha": 0.5}),
    ("selu", {}),
    ("gelu", {}),
    ("gelu", {"approximate": True}),
    ("softmax", {}),
    ("softmax", {"axis": 0}),
    ("sigmoid", {}),
    ("hard_sigmoid", {}),
    ("tanh", {}),
    ("exponential", {}),
    ("linear", {}),
    ("softplus", {}),
    ("softsign", {}),
    ("swish", {}),
    ("mish", {}),
]


@pytest.mark.parametrize("name,kwargs", ACTIVATION_CASES, ids=[f"{n}-{sorted(k)}" for n, k in ACTIVATION_CASES])
def test_activations_match_tf_keras(name, kwargs):
    tf1, tf_keras = _tf_keras()
    with tw.Graph().as_default(), tw.Session() as sess:
        ours = sess.run(tw.convert_to_tensor(getattr(A, name)(tw.constant(X), **kwargs)))
    with tf1.Graph().as_default(), tf1.Session() as sess:
        theirs = sess.run(tf1.convert_to_tensor(getattr(tf_keras.activations, name)(tf1.constant(X), **kwargs)))
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def test_activation_get_serialize():
    assert A.get("relu") is A.relu
    assert A.get(None) is A.linear
    assert A.get(A.tanh) is A.tanh
    assert A.serialize(A.softmax) == "softmax"
    assert A.deserialize("swish") is A.swish
    with pytest.raises(ValueError, match="Unknown activation function: 'nope'"):
        A.get("nope")
    with pytest.raises(TypeError, match="Could not interpret activation function identifier: 3"):
        A.get(3)
    with pytest.raises(ValueError, match="cannot be serialized"):
        A.serialize(lambda x: x)
    # Keras layers take activations by the same names.
    with tw.Graph().as_default(), tw.Session() as sess:
        layer = tw.keras.layers.Activation("hard_sigmoid")
        np.testing.assert_allclose(sess.run(layer(tw.constant([-5.0, 0.0, 1.0]))), [0.0, 0.5, 0.7], rtol=1e-6)


# --- preprocessing.image ---

IMAGES = np.random.RandomState(3).rand(7, 8, 6, 3).astype(np.float32) * 255
LABELS = np.array([0, 1, 2, 0, 1, 2, 0])

AUGMENT = [
    {"rescale": 1.0 / 255},
    {"rotation_range": 30, "width_shift_range": 0.2, "height_shift_range": 2, "zoom_range": 0.2},
    {"shear_range": 15, "horizontal_flip": True, "vertical_flip": True, "fill_mode": "reflect"},
    {"channel_shift_range": 20.0, "brightness_range": (0.5, 1.5), "samplewise_center": True},
    {"featurewise_center": True, "featurewise_std_normalization": True},
    {"zca_whitening": True},
]


@pytest.mark.parametrize("kwargs", AUGMENT, ids=[",".join(k) for k in AUGMENT])
def test_image_data_generator_flow_matches_tf_keras(kwargs):
    pytest.importorskip("scipy")
    pytest.importorskip("PIL")
    _, tf_keras = _tf_keras()
    image = tw.keras.preprocessing.image

    def batches(module):
        gen = module.ImageDataGenerator(**kwargs)
        if kwargs.get("featurewise_center") or kwargs.get("zca_whitening"):
            gen.fit(IMAGES, seed=1)
        it = gen.flow(IMAGES, LABELS, batch_size=3, seed=5)
        return [it.next() for _ in range(4)] + [it[1]]

    with np.testing.suppress_warnings() as sup:
        sup.filter(UserWarning)
        ours, theirs = batches(image), batches(tf_keras.preprocessing.image)
    for (x1, y1), (x2, y2) in zip(ours, theirs):
        np.testing.assert_allclose(x1, x2, rtol=1e-4, atol=1e-3)
        np.testing.assert_array_equal(y1, y2)


def test_flow_from_directory_matches_tf_keras(tmp_path):
    pil = pytest.importorskip("PIL.Image")
    _, tf_keras = _tf_keras()
    rng = np.random.RandomState(0)
    for c, n in (("cats", 3), ("dogs", 2)):
        os.makedirs(tmp_path / c)
        for i in range(n):
            pil.fromarray(rng.randint(0, 255, (12, 10, 3), dtype=np.uint8)).save(tmp_path / c / f"{i}.png")
    image = tw.keras.preprocessing.image
    for kwargs in ({"class_mode": "binary"}, {"class_mode": "categorical", "color_mode": "grayscale"}):
        out = []
        for module in (image, tf_keras.preprocessing.image):
            gen = module.ImageDataGenerator(rescale=1 / 255.0, horizontal_flip=True)
            it = gen.flow_from_directory(str(tmp_path), target_size=(6, 5), batch_size=2, seed=3, **kwargs)
            out.append((it.class_indices, it.filenames, [it.next() for _ in range(3)]))
        assert out[0][:2] == out[1][:2]
        for (x1, y1), (x2, y2) in zip(out[0][2], out[1][2]):
            np.testing.assert_allclose(x1, x2, rtol=1e-6)
            np.testing.assert_array_equal(y1, y2)
    with pytest.raises(ValueError, match="Invalid class_mode"):
        image.ImageDataGenerator().flow_from_directory(str(tmp_path), class_mode="nope")


def test_image_helpers_and_errors():
    pytest.importorskip("PIL")
    image = tw.keras.preprocessing.image
    x = IMAGES[0]
    img = image.array_to_img(x)
    assert img.size == (6, 8) and img.mode == "RGB"
    assert image.img_to_array(img).shape == (8, 6, 3)
    assert image.img_to_array(img, data_format="channels_first").shape == (3, 8, 6)
    with pytest.raises(ValueError, match="Expected image array to have rank 3"):
        image.array_to_img(IMAGES)
    with pytest.raises(ValueError, match="should have rank 4"):
        image.ImageDataGenerator().flow(IMAGES[0], batch_size=2)
    with pytest.raises(ValueError, match="`zoom_range` should be a float"):
        image.ImageDataGenerator(zoom_range=(1, 2, 3))
    with pytest.raises(ValueError, match="`validation_split` must be strictly between 0 and 1"):
        image.ImageDataGenerator(validation_split=1.5)
    gen = image.ImageDataGenerator(validation_split=0.3)
    with pytest.raises(ValueError, match="different number of classes after the split"):
        gen.flow(IMAGES, LABELS, subset="training")
    train = gen.flow(IMAGES, LABELS, subset="training", batch_size=10, ignore_class_split=True)
    assert train.next()[0].shape == (5, 8, 6, 3)


def test_progbar_prints_as_tf_keras(capsys):
    import re

    _, tf_keras = _tf_keras()

    def run(module):
        for verbose in (1, 2):
            bar = module.Progbar(4, verbose=verbose, interval=0, stateful_metrics=["acc"])
            for i in range(1, 5):
                bar.update(i, [("loss", 1.0 / i), ("acc", 0.25 * i)])
        module.Progbar(None, interval=0).add(3, [("x", 2e-4)])
        return re.sub(r"\d+(us|ms|s)\b", "T", capsys.readouterr().out)

    assert run(U) == run(tf_keras.utils)


def test_timeseries_generator_skipgrams_sampling_table_match_tf_keras():
    import random

    _, tf_keras = _tf_keras()
    seq = tw.keras.preprocessing.sequence
    theirs_mod = tf_keras.preprocessing.sequence
    data = np.arange(50, dtype=np.float32).reshape(25, 2)
    targets = np.arange(25)
    for kwargs in ({}, {"sampling_rate": 2, "stride": 3, "batch_size": 4}, {"reverse": True, "start_index": 3}):
        ours = seq.TimeseriesGenerator(data, targets, length=5, **kwargs)
        theirs = theirs_mod.TimeseriesGenerator(data, targets, length=5, **kwargs)
        assert len(ours) == len(theirs)
        for i in range(len(ours)):
            for a, b in zip(ours[i], theirs[i]):
                np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="Data and targets have to be of same length"):
        seq.TimeseriesGenerator(data, targets[:3], length=5)
    np.testing.assert_allclose(seq.make_sampling_table(20, 1e-3), theirs_mod.make_sampling_table(20, 1e-3))
    words = [3, 1, 4, 0, 5, 9, 2, 6, 5, 3]
    for kwargs in ({"window_size": 2, "seed": 7}, {"categorical": True, "negative_samples": 0.5, "seed": 1}):
        random.seed(0)
        ours = seq.skipgrams(words, 10, **kwargs)
        random.seed(0)
        theirs = theirs_mod.skipgrams(words, 10, **kwargs)
        assert ours == theirs

"""tw.keras.datasets against tf_keras's loaders on the same cache files: small files in Keras' formats are
written to a temporary ~/.keras (this machine has no network and the loaders do not download), and both
libraries read them (tf_keras's hash check, which would re-download a file that is not the real one, is
turned off)."""

import gzip
import os
import pickle

import numpy as np
import pytest

import tensorweave as tw

tf_keras = pytest.importorskip("tf_keras")


@pytest.fixture
def keras_home(tmp_path, monkeypatch):
    """A ~/.keras holding small versions of every dataset file, for both libraries."""
    from tf_keras.src.utils import data_utils

    monkeypatch.setattr(data_utils, "validate_file", lambda *args, **kwargs: True)
    monkeypatch.setenv("HOME", str(tmp_path))  # (tf_keras reads ~/.keras, not KERAS_HOME)
    monkeypatch.delenv("KERAS_HOME", raising=False)
    d = tmp_path / ".keras" / "datasets"
    d.mkdir(parents=True)
    rng = np.random.default_rng(0)
    images = lambda n, *s: rng.integers(0, 256, (n, *s), dtype=np.uint8)  # noqa: E731
    np.savez(d / "mnist.npz", x_train=images(7, 28, 28), y_train=images(7), x_test=images(3, 28, 28), y_test=images(3))
    fashion = d / "fashion-mnist"
    fashion.mkdir()
    for name, offset, n, shape in (
        ("train-labels-idx1-ubyte.gz", 8, 6, ()),
        ("train-images-idx3-ubyte.gz", 16, 6, (28, 28)),
        ("t10k-labels-idx1-ubyte.gz", 8, 2, ()),
        ("t10k-images-idx3-ubyte.gz", 16, 2, (28, 28)),
    ):
        with gzip.open(fashion / name, "wb") as f:
            f.write(bytes(offset) + images(n, *shape).tobytes())
    cifar10 = d / "cifar-10-batches-py"
    cifar10.mkdir()
    (d / "cifar-10-batches-py.tar.gz").write_bytes(b"")
    for name, n in [(f"data_batch_{i}", 2) for i in range(1, 6)] + [("test_batch", 3)]:
        with open(cifar10 / name, "wb") as f:
            pickle.dump({b"data": images(n, 3072), b"labels": rng.integers(0, 10, n).tolist()}, f)
    cifar100 = d / "cifar-100-python"
    cifar100.mkdir()
    (d / "cifar-100-python.tar.gz").write_bytes(b"")
    for name, n in (("train", 4), ("test", 2)):
        with open(cifar100 / name, "wb") as f:
            fine, coarse = rng.integers(0, 100, n).tolist(), rng.integers(0, 20, n).tolist()
            pickle.dump({b"data": images(n, 3072), b"fine_labels": fine, b"coarse_labels": coarse}, f)
    seqs = lambda n: np.array([rng.integers(1, 40, rng.integers(3, 12)).tolist() for _ in range(n)], dtype=object)  # noqa: E731
    np.savez(
        d / "imdb.npz", x_train=seqs(9), y_train=rng.integers(0, 2, 9), x_test=seqs(5), y_test=rng.integers(0, 2, 5)
    )
    np.savez(d / "reuters.npz", x=seqs(12), y=rng.integers(0, 46, 12))
    np.savez(d / "boston_housing.npz", x=rng.standard_normal((11, 13)), y=rng.standard_normal(11))
    return tmp_path


def _assert_same(ours, theirs):
    if isinstance(theirs, (tuple, list)) and not (isinstance(theirs, np.ndarray)):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _assert_same(a, b)
        return
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    if theirs.dtype == object:
        assert [list(x) for x in ours] == [list(x) for x in theirs]
    else:
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize(
    "name, kwargs",
    [
        ("mnist", {}),
        ("fashion_mnist", {}),
        ("cifar100", {}),
        ("cifar100", {"label_mode": "coarse"}),
        ("imdb", {}),
        ("imdb", {"num_words": 20, "skip_top": 2, "maxlen": 10, "seed": 5}),
        ("imdb", {"oov_char": None, "start_char": None, "index_from": 1, "num_words": 15}),
        ("reuters", {}),
        ("reuters", {"num_words": 25, "test_split": 0.5, "maxlen": 11}),
        ("boston_housing", {}),
        ("boston_housing", {"test_split": 0.3, "seed": 1}),
    ],
)
def test_load_data_equals_tf_keras(keras_home, name, kwargs):
    ours = getattr(tw.keras.datasets, name).load_data(**kwargs)
    theirs = getattr(tf_keras.datasets, name).load_data(**kwargs)
    _assert_same(ours, theirs)


def test_cifar10_joins_its_batches_channels_last(keras_home, tmp_path):
    """(tf_keras's loader assumes batches of 10,000 images, which a small test file cannot have: numpy is the
    oracle here.)"""
    batches = []
    for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        with open(tmp_path / ".keras" / "datasets" / "cifar-10-batches-py" / name, "rb") as f:
            batch = pickle.load(f)
        batches.append((batch[b"data"].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1), np.array(batch[b"labels"])))
    (x_train, y_train), (x_test, y_test) = tw.keras.datasets.cifar10.load_data()
    np.testing.assert_array_equal(x_train, np.concatenate([x for x, _ in batches[:5]]))
    np.testing.assert_array_equal(y_train, np.concatenate([y for _, y in batches[:5]])[:, None])
    np.testing.assert_array_equal(x_test, batches[5][0])
    assert x_train.dtype == y_train.dtype == x_test.dtype == y_test.dtype == np.uint8
    assert x_train.shape == (10, 32, 32, 3) and y_test.shape == (3, 1)
    # (Without start_char and index_from, tf_keras adds its two object arrays and fails; here they join.)
    (x, _), (t, _) = tw.keras.datasets.imdb.load_data(start_char=None, index_from=0)
    assert len(x) == 9 and len(t) == 5


def test_word_indexes_labels_and_errors(keras_home, tmp_path):
    (tmp_path / ".keras" / "datasets" / "imdb_word_index.json").write_text('{"the": 1, "film": 2}')
    assert tw.keras.datasets.imdb.get_word_index() == {"the": 1, "film": 2}
    assert tw.keras.datasets.reuters.get_label_names() == tf_keras.datasets.reuters.get_label_names()
    with pytest.raises(ValueError, match="label_mode"):
        tw.keras.datasets.cifar100.load_data(label_mode="medium")
    with pytest.raises(ValueError, match="no sequence was kept"):
        tw.keras.datasets.imdb.load_data(maxlen=1)
    with pytest.raises(TypeError, match="Unrecognized keyword arguments"):
        tw.keras.datasets.imdb.load_data(num_word=3)
    os.remove(tmp_path / ".keras" / "datasets" / "mnist.npz")
    with pytest.raises(OSError, match="mnist.npz"):  # where to put the file that is missing
        tw.keras.datasets.mnist.load_data()

"""The Keras datasets (`tf.keras.datasets`): MNIST, Fashion-MNIST, CIFAR-10/100, IMDB, Reuters and Boston
housing, read from the Keras cache (`$KERAS_HOME` or `~/.keras`, under `datasets/`) in the files and layouts that
Keras downloads, and returned as Keras returns them (the same shuffles, seeds, index offsets and filters). This
runtime does not download: a missing file is an OSError naming where to put it (`utils.get_file`).

Example (with Keras' mnist.npz in the cache):
  >>> import tensorweave as tw
  >>> (x_train, y_train), (x_test, y_test) = tw.keras.datasets.mnist.load_data()  # doctest: +SKIP
  >>> x_train.shape, y_test.dtype  # doctest: +SKIP
  ((60000, 28, 28), dtype('uint8'))
"""

import gzip
import json
import os
import pickle

import numpy as np

from tensorweave._src.keras.utils import get_file

_ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"


def _cached(path, origin, cache_dir=None, **kwargs):
    if cache_dir:
        cache_dir = os.path.expanduser(cache_dir)
        os.makedirs(cache_dir, exist_ok=True)
    return get_file(path, origin=origin, cache_dir=cache_dir, **kwargs)


def _npz(path, origin, cache_dir, *keys):
    with np.load(_cached(path, origin, cache_dir), allow_pickle=True) as f:
        return [f[k] for k in keys]


def load_mnist(path="mnist.npz", cache_dir=None):
    """((x_train [60000, 28, 28] uint8, y_train), (x_test [10000, 28, 28], y_test)) from mnist.npz."""
    x_train, y_train, x_test, y_test = _npz(
        path, _ORIGIN + "mnist.npz", cache_dir, "x_train", "y_train", "x_test", "y_test"
    )
    return (x_train, y_train), (x_test, y_test)


def load_fashion_mnist(cache_dir=None):
    """Fashion-MNIST from its four gzipped IDX files (datasets/fashion-mnist/)."""
    subdir = os.path.join("datasets", "fashion-mnist")

    def read(name, offset):
        with gzip.open(_cached(name, _ORIGIN + name, cache_dir, cache_subdir=subdir), "rb") as f:
            return np.frombuffer(f.read(), np.uint8, offset=offset)

    y_train, y_test = read("train-labels-idx1-ubyte.gz", 8), read("t10k-labels-idx1-ubyte.gz", 8)
    x_train = read("train-images-idx3-ubyte.gz", 16).reshape(len(y_train), 28, 28)
    x_test = read("t10k-images-idx3-ubyte.gz", 16).reshape(len(y_test), 28, 28)
    return (x_train, y_train), (x_test, y_test)


def _cifar_batch(path, label_key="labels"):
    """(images [n, 3, 32, 32] uint8, labels) of one pickled CIFAR batch."""
    with open(path, "rb") as f:
        batch = {
            k.decode("utf8") if isinstance(k, bytes) else k: v for k, v in pickle.load(f, encoding="bytes").items()
        }
    data = np.asarray(batch["data"])
    return data.reshape(data.shape[0], 3, 32, 32), batch[label_key]


def _channels_last(x):
    from tensorweave._src.keras import backend

    return x.transpose(0, 2, 3, 1) if backend.image_data_format() == "channels_last" else x


def load_cifar10(cache_dir=None):
    """CIFAR-10 from cifar-10-batches-py (five training batches and the test batch), images channels-last."""
    path = _cached(
        "cifar-10-batches-py", "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz", cache_dir, untar=True
    )
    parts = [_cifar_batch(os.path.join(path, f"data_batch_{i}")) for i in range(1, 6)]
    x_train = np.concatenate([x for x, _ in parts]).astype(np.uint8)
    y_train = np.concatenate([np.asarray(y) for _, y in parts]).astype(np.uint8).reshape(-1, 1)
    x_test, y_test = _cifar_batch(os.path.join(path, "test_batch"))
    y_test = np.asarray(y_test).astype(y_train.dtype).reshape(-1, 1)
    return (_channels_last(x_train), y_train), (_channels_last(x_test.astype(x_train.dtype)), y_test)


def load_cifar100(label_mode="fine", cache_dir=None):
    """CIFAR-100 from cifar-100-python, with its `fine` (100) or `coarse` (20) labels."""
    if label_mode not in ("fine", "coarse"):
        raise ValueError(f'`label_mode` must be one of `"fine"`, `"coarse"`. Received: label_mode={label_mode}.')
    path = _cached(
        "cifar-100-python", "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz", cache_dir, untar=True
    )
    out = []
    for name in ("train", "test"):
        x, y = _cifar_batch(os.path.join(path, name), label_key=f"{label_mode}_labels")
        out.append((_channels_last(x), np.reshape(y, (len(y), 1))))
    return tuple(out)


def _shuffled(rng, *arrays):
    order = np.arange(len(arrays[0]))
    rng.shuffle(order)
    return [a[order] for a in arrays]


def _index_words(sequences, labels, start_char, index_from, maxlen):
    """Keras' text preprocessing: each word index shifted by `index_from`, `start_char` put first, and (with
    `maxlen`) only the sequences shorter than it kept."""
    head = [] if start_char is None else [start_char]
    sequences = [head + [w + index_from for w in s] for s in sequences]
    if maxlen:
        kept = [(s, y) for s, y in zip(sequences, labels) if len(s) < maxlen]
        sequences, labels = [s for s, _ in kept], [y for _, y in kept]
    return sequences, labels


def _vocabulary_cut(sequences, num_words, skip_top, oov_char):
    """Words outside [skip_top, num_words) become `oov_char` (or are dropped when it is None)."""
    if not num_words:
        num_words = max(max(s) for s in sequences)
    if oov_char is not None:
        return [[w if skip_top <= w < num_words else oov_char for w in s] for s in sequences]
    return [[w for w in s if skip_top <= w < num_words] for s in sequences]


def _split_sequences(xs, labels, n):
    """((the first n sequences as an object array, their labels), (the rest, theirs))."""
    return (np.array(xs[:n], dtype="object"), labels[:n]), (np.array(xs[n:], dtype="object"), labels[n:])


def _num_words(num_words, kwargs):
    """`num_words`, or Keras 1's `nb_words` from `kwargs`; any other keyword is a TypeError."""
    kwargs = dict(kwargs)
    if "nb_words" in kwargs:
        num_words = kwargs.pop("nb_words")
    if kwargs:
        raise TypeError(f"Unrecognized keyword arguments: {kwargs}.")
    return num_words


def load_imdb(
    path="imdb.npz",
    num_words=None,
    skip_top=0,
    maxlen=None,
    seed=113,
    start_char=1,
    oov_char=2,
    index_from=3,
    cache_dir=None,
    **kwargs,
):
    """IMDB reviews as word-index sequences (object arrays of lists) and 0/1 labels, shuffled with `seed`,
    as Keras preprocesses them."""
    num_words = _num_words(num_words, kwargs)
    x_train, y_train, x_test, y_test = _npz(
        path, _ORIGIN + "imdb.npz", cache_dir, "x_train", "y_train", "x_test", "y_test"
    )
    rng = np.random.RandomState(seed)
    x_train, y_train = _shuffled(rng, x_train, y_train)
    x_test, y_test = _shuffled(rng, x_test, y_test)
    x_train, y_train = _index_words(x_train, y_train, start_char, index_from, maxlen)
    x_test, y_test = _index_words(x_test, y_test, start_char, index_from, maxlen)
    if maxlen and (not x_train or not x_test):
        raise ValueError(
            f"After filtering for sequences shorter than maxlen={maxlen}, no sequence was kept. Increase maxlen."
        )
    xs = _vocabulary_cut(list(x_train) + list(x_test), num_words, skip_top, oov_char)
    return _split_sequences(xs, np.concatenate([np.asarray(y_train), np.asarray(y_test)]), len(x_train))


def load_reuters(
    path="reuters.npz",
    num_words=None,
    skip_top=0,
    maxlen=None,
    test_split=0.2,
    seed=113,
    start_char=1,
    oov_char=2,
    index_from=3,
    cache_dir=None,
    **kwargs,
):
    """Reuters newswires as word-index sequences and topic labels (46 topics), shuffled with `seed` and split
    with `test_split`, as Keras preprocesses them."""
    num_words = _num_words(num_words, kwargs)
    xs, labels = _npz(path, _ORIGIN + "reuters.npz", cache_dir, "x", "y")
    xs, labels = _shuffled(np.random.RandomState(seed), xs, labels)
    xs, labels = _index_words(xs, labels, start_char, index_from, maxlen)
    xs = _vocabulary_cut(xs, num_words, skip_top, oov_char)
    return _split_sequences(xs, np.asarray(labels), int(len(xs) * (1 - test_split)))


def _word_index(path, name):
    with open(_cached(path, _ORIGIN + name)) as f:
        return json.load(f)


def imdb_word_index(path="imdb_word_index.json"):
    """{word: index} of the IMDB dataset (before `index_from` is added)."""
    return _word_index(path, "imdb_word_index.json")


def reuters_word_index(path="reuters_word_index.json"):
    """{word: index} of the Reuters dataset (before `index_from` is added)."""
    return _word_index(path, "reuters_word_index.json")


REUTERS_LABELS = (
    "cocoa", "grain", "veg-oil", "earn", "acq", "wheat", "copper", "housing", "money-supply", "coffee", "sugar",
    "trade", "reserves", "ship", "cotton", "carcass", "crude", "nat-gas", "cpi", "money-fx", "interest", "gnp",
    "meal-feed", "alum", "oilseed", "gold", "tin", "strategic-metal", "livestock", "retail", "ipi", "iron-steel",
    "rubber", "heat", "jobs", "lei", "bop", "zinc", "orange", "pet-chem", "dlr", "gas", "silver", "wpi", "hog", "lead",
)  # fmt: skip


def load_boston_housing(path="boston_housing.npz", test_split=0.2, seed=113, cache_dir=None):
    """Boston housing (13 features, prices), shuffled with `seed` and split with `test_split`."""
    if not 0 <= test_split < 1:
        raise ValueError(f"test_split must be in [0, 1), given {test_split}")
    x, y = _npz(path, _ORIGIN + "boston_housing.npz", cache_dir, "x", "y")
    x, y = _shuffled(np.random.RandomState(seed), x, y)
    n = int(len(x) * (1 - test_split))
    return (np.array(x[:n]), np.array(y[:n])), (np.array(x[n:]), np.array(y[n:]))

"""TensorFlow 1's MNIST tutorial reader (`from tensorflow.examples.tutorials.mnist import input_data`):
`read_data_sets(train_dir, one_hot=...)` reads the four gzipped IDX files from `train_dir` and returns
Datasets(train, validation, test) whose `next_batch` shuffles as TensorFlow 1's did (numpy's global generator,
seeded from the graph seed when one is set). This runtime does not download: the files must be in `train_dir`
(an OSError says which is missing).

Example (with the MNIST files in MNIST_data/):
  >>> from tensorweave.examples.tutorials.mnist import input_data
  >>> mnist = input_data.read_data_sets("MNIST_data/", one_hot=True)  # doctest: +SKIP
  >>> batch_xs, batch_ys = mnist.train.next_batch(100)  # doctest: +SKIP
"""

import collections
import gzip
import os

import numpy as np

DEFAULT_SOURCE_URL = "https://storage.googleapis.com/cvdf-datasets/mnist/"
TRAIN_IMAGES = "train-images-idx3-ubyte.gz"
TRAIN_LABELS = "train-labels-idx1-ubyte.gz"
TEST_IMAGES = "t10k-images-idx3-ubyte.gz"
TEST_LABELS = "t10k-labels-idx1-ubyte.gz"

Datasets = collections.namedtuple("Datasets", ["train", "validation", "test"])


def _read32(stream):
    return int(np.frombuffer(stream.read(4), dtype=">u4")[0])


def extract_images(f):
    """The images of a gzipped IDX file object as uint8 [index, y, x, depth 1]; ValueError on a bad magic."""
    with gzip.GzipFile(fileobj=f) as stream:
        magic = _read32(stream)
        if magic != 2051:
            raise ValueError(f"Invalid magic number {magic} in MNIST image file: {f.name}")
        n, rows, cols = _read32(stream), _read32(stream), _read32(stream)
        data = np.frombuffer(stream.read(rows * cols * n), dtype=np.uint8)
        return data.reshape(n, rows, cols, 1)


def dense_to_one_hot(labels_dense, num_classes):
    """Class ids [n] as one-hot rows [n, num_classes]."""
    one_hot = np.zeros((labels_dense.shape[0], num_classes))
    one_hot.flat[np.arange(labels_dense.shape[0]) * num_classes + labels_dense.ravel()] = 1
    return one_hot


def extract_labels(f, one_hot=False, num_classes=10):
    """The labels of a gzipped IDX file object as uint8 [index] (or one-hot); ValueError on a bad magic."""
    with gzip.GzipFile(fileobj=f) as stream:
        magic = _read32(stream)
        if magic != 2049:
            raise ValueError(f"Invalid magic number {magic} in MNIST label file: {f.name}")
        labels = np.frombuffer(stream.read(_read32(stream)), dtype=np.uint8)
        return dense_to_one_hot(labels, num_classes) if one_hot else labels


class DataSet:
    """Images and labels served in batches by `next_batch`. float32 images are scaled to [0, 1] and, with
    `reshape`, flattened to [n, rows * cols]."""

    def __init__(self, images, labels, fake_data=False, one_hot=False, dtype=None, reshape=True, seed=None):
        from tensorweave._src.framework import dtypes
        from tensorweave._src.framework import random_seed

        seed1, seed2 = random_seed.get_seed(seed)
        np.random.seed(seed1 if seed is None else seed2)  # (TF1 seeds numpy's global generator so)
        dtype = dtypes.as_dtype(dtypes.float32 if dtype is None else dtype).base_dtype
        if dtype not in (dtypes.uint8, dtypes.float32):
            raise TypeError(f"Invalid image dtype {dtype!r}, expected uint8 or float32")
        self.one_hot = one_hot
        if fake_data:
            self._num_examples = 10000
        else:
            if images.shape[0] != labels.shape[0]:
                raise ValueError(f"images.shape: {images.shape} labels.shape: {labels.shape}")
            self._num_examples = images.shape[0]
            if reshape:
                if images.shape[3] != 1:
                    raise ValueError(f"reshape needs images of depth 1, given {images.shape}")
                images = images.reshape(images.shape[0], images.shape[1] * images.shape[2])
            if dtype == dtypes.float32:
                images = np.multiply(images.astype(np.float32), 1.0 / 255.0)
        self._images, self._labels = images, labels
        self._epochs_completed = self._index_in_epoch = 0

    images = property(lambda self: self._images)
    labels = property(lambda self: self._labels)
    num_examples = property(lambda self: self._num_examples)
    epochs_completed = property(lambda self: self._epochs_completed)

    def _shuffle(self):
        order = np.arange(self._num_examples)
        np.random.shuffle(order)
        self._images, self._labels = self._images[order], self._labels[order]

    def next_batch(self, batch_size, fake_data=False, shuffle=True):
        """The next `batch_size` examples: the data is shuffled before the first epoch and at each epoch's end,
        and a batch that crosses an epoch's end joins its rest to the next epoch's start."""
        if fake_data:
            fake_image = [1] * 784
            fake_label = [1] + [0] * 9 if self.one_hot else 0
            return [fake_image for _ in range(batch_size)], [fake_label for _ in range(batch_size)]
        start = self._index_in_epoch
        if self._epochs_completed == 0 and start == 0 and shuffle:
            self._shuffle()
        if start + batch_size <= self._num_examples:
            self._index_in_epoch += batch_size
            return self._images[start : self._index_in_epoch], self._labels[start : self._index_in_epoch]
        self._epochs_completed += 1
        rest_images, rest_labels = self._images[start:], self._labels[start:]
        if shuffle:
            self._shuffle()
        self._index_in_epoch = batch_size - (self._num_examples - start)
        end = self._index_in_epoch
        return (
            np.concatenate((rest_images, self._images[:end]), axis=0),
            np.concatenate((rest_labels, self._labels[:end]), axis=0),
        )


def _local_file(train_dir, name, source_url):
    path = os.path.join(train_dir, name)
    if not os.path.exists(path):
        raise OSError(
            f"{path} does not exist and this runtime does not download: put {source_url}{name} (MNIST's file) "
            f"in {train_dir}"
        )
    return path


def read_data_sets(
    train_dir,
    fake_data=False,
    one_hot=False,
    dtype=None,
    reshape=True,
    validation_size=5000,
    seed=None,
    source_url=DEFAULT_SOURCE_URL,
):
    """Datasets(train, validation, test) of the MNIST files in `train_dir`; the first `validation_size` training
    examples are the validation set."""
    options = dict(dtype=dtype, reshape=reshape, seed=seed)
    if fake_data:
        fake = lambda: DataSet([], [], fake_data=True, one_hot=one_hot, **options)  # noqa: E731
        return Datasets(train=fake(), validation=fake(), test=fake())
    source_url = source_url or DEFAULT_SOURCE_URL
    arrays = []
    for name, reader in ((TRAIN_IMAGES, extract_images), (TRAIN_LABELS, None), (TEST_IMAGES, extract_images),
                         (TEST_LABELS, None)):  # fmt: skip
        with open(_local_file(train_dir, name, source_url), "rb") as f:
            arrays.append(reader(f) if reader else extract_labels(f, one_hot=one_hot))
    train_images, train_labels, test_images, test_labels = arrays
    if not 0 <= validation_size <= len(train_images):
        raise ValueError(f"Validation size should be between 0 and {len(train_images)}. Received: {validation_size}.")
    validation = DataSet(train_images[:validation_size], train_labels[:validation_size], **options)
    train = DataSet(train_images[validation_size:], train_labels[validation_size:], **options)
    return Datasets(train=train, validation=validation, test=DataSet(test_images, test_labels, **options))


def load_mnist(train_dir="MNIST-data"):
    """`read_data_sets(train_dir)` (TF1's shorthand)."""
    return read_data_sets(train_dir)

"""tw.examples.tutorials.mnist.input_data (TF1's MNIST tutorial reader) on small IDX files in Keras'/MNIST's
format: shapes, scaling, one-hot labels, the validation split, TF1's next_batch order (numpy's global
generator seeded from the graph seed) and its epoch boundary, and the errors."""

import gzip
import struct

import numpy as np
import pytest

import tensorweave as tw
from tensorweave.examples.tutorials.mnist import input_data


def _write(directory, name, magic, dims, data):
    with gzip.open(directory / name, "wb") as f:
        f.write(struct.pack(">I", magic) + b"".join(struct.pack(">I", d) for d in dims) + data.tobytes())


@pytest.fixture
def mnist_dir(tmp_path):
    rng = np.random.default_rng(0)
    images = {
        "train": rng.integers(0, 256, (12, 28, 28), np.uint8),
        "t10k": rng.integers(0, 256, (4, 28, 28), np.uint8),
    }
    labels = {"train": rng.integers(0, 10, 12).astype(np.uint8), "t10k": rng.integers(0, 10, 4).astype(np.uint8)}
    for part in ("train", "t10k"):
        _write(tmp_path, f"{part}-images-idx3-ubyte.gz", 2051, images[part].shape, images[part])
        _write(tmp_path, f"{part}-labels-idx1-ubyte.gz", 2049, labels[part].shape, labels[part])
    return tmp_path, images, labels


def test_read_data_sets_and_next_batch_as_tf1(mnist_dir):
    path, images, labels = mnist_dir
    with tw.Graph().as_default():
        tw.set_random_seed(5)
        mnist = input_data.read_data_sets(str(path), one_hot=True, validation_size=2)
    assert (mnist.train.num_examples, mnist.validation.num_examples, mnist.test.num_examples) == (10, 2, 4)
    train = images["train"][2:].reshape(10, 784).astype(np.float32) / 255.0
    np.testing.assert_allclose(mnist.train.images, train, rtol=1e-6)
    np.testing.assert_array_equal(mnist.validation.labels.argmax(1), labels["train"][:2])
    assert mnist.test.labels.shape == (4, 10) and mnist.test.images.dtype == np.float32
    order = np.arange(10)  # TF1's DataSet seeded numpy with the graph seed; its first batch shuffles with it
    np.random.RandomState(5).shuffle(order)
    xs, ys = [], []
    for _ in range(3):  # 4 + 4 + 4: the third batch crosses the epoch's end
        x, y = mnist.train.next_batch(4)
        xs.append(x), ys.append(y.argmax(1))
    np.testing.assert_allclose(np.concatenate(xs[:2]), train[order[:8]], rtol=1e-6)
    np.testing.assert_array_equal(ys[2][:2], labels["train"][2:][order[8:]])
    assert mnist.train.epochs_completed == 1 and len(xs[2]) == 4
    plain = input_data.read_data_sets(str(path), dtype=tw.uint8, reshape=False, validation_size=0)
    assert plain.train.images.shape == (12, 28, 28, 1) and plain.train.images.dtype == np.uint8
    x, y = plain.train.next_batch(5, shuffle=False)
    np.testing.assert_array_equal(y, labels["train"][:5])


def test_bad_files_and_arguments_are_refused(mnist_dir, tmp_path):
    path, _, _ = mnist_dir
    with pytest.raises(ValueError, match="Validation size should be between 0 and 12. Received: 20."):
        input_data.read_data_sets(str(path), validation_size=20)
    with pytest.raises(TypeError, match="Invalid image dtype"):
        input_data.read_data_sets(str(path), dtype=tw.int32, validation_size=0)
    _write(path, "t10k-labels-idx1-ubyte.gz", 2051, (4,), np.zeros(4, np.uint8))
    with pytest.raises(ValueError, match="Invalid magic number 2051 in MNIST label file"):
        input_data.read_data_sets(str(path), validation_size=0)
    with pytest.raises(OSError, match="does not download"):
        input_data.read_data_sets(str(tmp_path / "nowhere"))

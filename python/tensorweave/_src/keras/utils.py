"""tf.keras.utils: `to_categorical`, `normalize`, `Sequence`, `get_file` (local cache only), custom objects."""

import contextlib
import os
import tarfile
import zipfile

import numpy as np

_GLOBAL_CUSTOM_OBJECTS = {}


def to_categorical(y, num_classes=None, dtype="float32"):
    """Class ids `y` as one-hot rows; a trailing dimension of 1 is replaced by `num_classes`."""
    y = np.array(y, dtype="int")
    input_shape = y.shape
    if input_shape and input_shape[-1] == 1 and len(input_shape) > 1:
        input_shape = tuple(input_shape[:-1])
    y = y.ravel()
    if not num_classes:
        num_classes = np.max(y) + 1
    n = y.shape[0]
    categorical = np.zeros((n, num_classes), dtype=dtype)
    categorical[np.arange(n), y] = 1
    return np.reshape(categorical, (*input_shape, num_classes))


def normalize(x, axis=-1, order=2):
    """`x` divided by its `order`-norm along `axis` (zero norms left as they are)."""
    norm = np.atleast_1d(np.linalg.norm(x, order, axis))
    norm[norm == 0] = 1
    return x / np.expand_dims(norm, axis)


class Sequence:
    """Base class of datasets for `fit`: implement `__getitem__(index)` (a batch) and `__len__` (batches)."""

    def __getitem__(self, index):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError

    def on_epoch_end(self):
        """Called at the end of each epoch."""

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]


def get_file(
    fname=None,
    origin=None,
    untar=False,
    md5_hash=None,
    file_hash=None,
    cache_subdir="datasets",
    hash_algorithm="auto",
    extract=False,
    archive_format="auto",
    cache_dir=None,
):
    """The path of `fname` in the Keras cache (`~/.keras/<cache_subdir>`), as tf_keras's `get_file`; the file
    must already be there: this runtime does not download (an OSError says where to put it)."""
    if origin is None:
        raise ValueError('Please specify the "origin" argument (URL of the file to download).')
    if cache_dir is None:
        cache_dir = os.environ.get("KERAS_HOME", os.path.join(os.path.expanduser("~"), ".keras"))
    datadir = os.path.join(cache_dir, cache_subdir)
    if not fname:
        fname = os.path.basename(origin.split("?")[0])
        if not fname:
            raise ValueError(
                f"Can't parse the file name from the origin provided: '{origin}'.Please specify the `fname` as the input param."
            )
    if untar:
        untar_fpath = os.path.join(datadir, fname)
        fpath = untar_fpath + ".tar.gz"
    else:
        fpath = os.path.join(datadir, fname)
    if not os.path.exists(fpath):
        raise OSError(
            f"URL fetch failure on {origin}: downloading is not supported by this runtime (no network). "
            f"Place the file at {fpath} to use it."
        )
    if untar:
        if not os.path.exists(untar_fpath):
            _extract_archive(fpath, datadir, archive_format="tar")
        return untar_fpath
    if extract:
        _extract_archive(fpath, datadir, archive_format)
    return fpath


def _extract_archive(file_path, path, archive_format="auto"):
    formats = ["tar", "zip"] if archive_format in ("auto", None) else [archive_format]
    for fmt in formats:
        if fmt == "tar" and tarfile.is_tarfile(file_path):
            with tarfile.open(file_path) as archive:
                archive.extractall(path, filter="data")
            return True
        if fmt == "zip" and zipfile.is_zipfile(file_path):
            with zipfile.ZipFile(file_path) as archive:
                archive.extractall(path)
            return True
    return False


def get_custom_objects():
    """The global dict of custom objects `get`/`deserialize` also look names up in."""
    return _GLOBAL_CUSTOM_OBJECTS


@contextlib.contextmanager
def custom_object_scope(*dicts):
    """Adds the given custom objects to the global ones for the duration of the `with` block."""
    saved = dict(_GLOBAL_CUSTOM_OBJECTS)
    for d in dicts:
        _GLOBAL_CUSTOM_OBJECTS.update(d)
    try:
        yield _GLOBAL_CUSTOM_OBJECTS
    finally:
        _GLOBAL_CUSTOM_OBJECTS.clear()
        _GLOBAL_CUSTOM_OBJECTS.update(saved)


CustomObjectScope = custom_object_scope


__all__ = [n for n, v in list(globals().items()) if not n.startswith("_") and not isinstance(v, type(np))]

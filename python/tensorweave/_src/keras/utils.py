"""tf.keras.utils: `to_categorical`, `normalize`, `Sequence`, `get_file` (local cache only), custom objects."""

import contextlib
import os
import sys
import time

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
    import tarfile
    import zipfile

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


class Progbar:
    """A text progress bar, as Keras prints during `fit`: `update(current, values)` with `[(name, value)]`
    (averaged over the steps unless in `stateful_metrics`); verbose 1 redraws one line, 2 prints at the end."""

    def __init__(self, target, width=30, verbose=1, interval=0.05, stateful_metrics=None, unit_name="step"):
        self.target = target
        self.width = width
        self.verbose = verbose
        self.interval = interval
        self.unit_name = unit_name
        self.stateful_metrics = set(stateful_metrics or ())
        self._dynamic_display = (
            (hasattr(sys.stdout, "isatty") and sys.stdout.isatty())
            or "ipykernel" in sys.modules
            or "posix" in sys.modules
            or "PYCHARM_HOSTED" in os.environ
        )
        self._total_width = 0
        self._seen_so_far = 0
        self._values = {}
        self._values_order = []
        self._start = time.time()
        self._last_update = 0
        self._time_at_epoch_start = self._start
        self._time_at_epoch_end = None
        self._time_after_first_step = None

    def _averages(self):
        info = ""
        for k in self._values_order:
            avg = np.mean(self._values[k][0] / max(1, self._values[k][1]))
            info += f" - {k}: {avg:.4f}" if abs(avg) > 1e-3 else f" - {k}: {avg:.4e}"
        return info

    def update(self, current, values=None, finalize=None):
        if finalize is None:
            finalize = False if self.target is None else current >= self.target
        for k, v in values or []:
            if k not in self._values_order:
                self._values_order.append(k)
            if k in self.stateful_metrics:
                self._values[k] = [v, 1]
            else:
                base = max(current - self._seen_so_far, 1)
                total = self._values.setdefault(k, [0, 0])
                total[0] += v * base
                total[1] += base
        self._seen_so_far = current
        now = time.time()
        info = f" - {now - self._start:.0f}s"
        if current == self.target:
            self._time_at_epoch_end = now
        if self.verbose == 1:
            if now - self._last_update < self.interval and not finalize:
                return
            prev_total_width = self._total_width
            message = "\b" * prev_total_width + "\r" if self._dynamic_display else "\n"
            if self.target is not None:
                numdigits = int(np.log10(self.target)) + 1
                bar = f"{current:{numdigits}d}/{self.target} ["
                prog_width = int(self.width * float(current) / self.target)
                if prog_width > 0:
                    bar += "=" * (prog_width - 1) + (">" if current < self.target else "=")
                bar += "." * (self.width - prog_width) + "]"
            else:
                bar = f"{current:7d}/Unknown"
            self._total_width = len(bar)
            time_per_unit = self._estimate_step_duration(current, now)
            if self.target is None or finalize:
                info += self._format_time(time_per_unit, self.unit_name)
            else:
                eta = time_per_unit * (self.target - current)
                if eta > 3600:
                    eta_format = f"{int(eta // 3600)}:{int((eta % 3600) // 60):02d}:{int(eta % 60):02d}"
                elif eta > 60:
                    eta_format = f"{int(eta // 60)}:{int(eta % 60):02d}"
                else:
                    eta_format = f"{int(eta)}s"
                info = f" - ETA: {eta_format}"
            info += self._averages()
            self._total_width += len(info)
            if prev_total_width > self._total_width:
                info += " " * (prev_total_width - self._total_width)
            if finalize:
                info += "\n"
            sys.stdout.write(message + bar + info)
            sys.stdout.flush()
        elif self.verbose == 2 and finalize:
            numdigits = int(np.log10(self.target)) + 1
            info = f"{current:{numdigits}d}/{self.target}" + info + self._averages()
            if self._time_at_epoch_end:
                time_per_epoch = self._time_at_epoch_end - self._time_at_epoch_start
                self._time_at_epoch_start, self._time_at_epoch_end = now, None
                info += " -" + self._format_time(time_per_epoch, "epoch")
                info += " -" + self._format_time(time_per_epoch / self.target, self.unit_name) + "\n"
            sys.stdout.write(info)
            sys.stdout.flush()
        self._last_update = now

    def add(self, n, values=None):
        self.update(self._seen_so_far + n, values)

    @staticmethod
    def _format_time(time_per_unit, unit_name):
        if time_per_unit >= 1 or time_per_unit == 0:
            return f" {time_per_unit:.0f}s/{unit_name}"
        if time_per_unit >= 1e-3:
            return f" {time_per_unit * 1e3:.0f}ms/{unit_name}"
        return f" {time_per_unit * 1e6:.0f}us/{unit_name}"

    def _estimate_step_duration(self, current, now):
        if not current:
            return 0
        if self._time_after_first_step is not None and current > 1:
            time_per_unit = (now - self._time_after_first_step) / (current - 1)
        else:
            time_per_unit = (now - self._start) / current
        if current == 1:
            self._time_after_first_step = now
        return time_per_unit


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


def serialize_keras_object(obj, base_class):
    """A function's name, or {'class_name', 'config'} for an instance of `base_class`."""
    if isinstance(obj, base_class):
        return {"class_name": type(obj).__name__, "config": obj.get_config()}
    return getattr(obj, "__name__", str(obj))


def deserialize_keras_object(config, functions, classes, custom_objects=None, what="object", hint=""):
    """A function or class instance by name, or a class built from {'class_name', 'config'} (tf_keras's helper):
    names are looked up in the custom objects first; an unknown one is a ValueError naming `what`."""
    custom = {**get_custom_objects(), **(custom_objects or {})}
    name = config.get("class_name") if isinstance(config, dict) else config
    found = custom.get(name) or (
        classes.get(name) if isinstance(config, dict) else functions.get(name) or classes.get(name)
    )
    if found is None:
        raise ValueError(
            f"Unknown {what}: '{name}'. Please ensure you are using a `keras.utils.custom_object_scope` and that "
            f"this object is included in the scope.{hint}"
        )
    if isinstance(config, dict):
        return found.from_config(config.get("config", {}))
    return found() if isinstance(found, type) else found


__all__ = [n for n, v in list(globals().items()) if not n.startswith("_") and not isinstance(v, type(np))]

"""tf.keras.callbacks: hooks `Model.fit` calls at the start and end of training, epochs and batches."""

import collections
import csv
import os
import sys
import time
import warnings

import numpy as np

from tensorweave._src.keras import backend

__all__ = [
    "BaseLogger",
    "CSVLogger",
    "Callback",
    "CallbackList",
    "EarlyStopping",
    "History",
    "LambdaCallback",
    "LearningRateScheduler",
    "ModelCheckpoint",
    "ProgbarLogger",
    "ReduceLROnPlateau",
    "RemoteMonitor",
    "TensorBoard",
    "TerminateOnNaN",
]


class Callback:
    """The base of callbacks: override `on_epoch_end(epoch, logs)` and the other hooks; `self.model` is the model
    being trained and `self.params` fit's settings."""

    def __init__(self):
        self.validation_data = None
        self.model = None
        self.params = {}

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self.model = model

    def on_batch_begin(self, batch, logs=None):
        pass

    def on_batch_end(self, batch, logs=None):
        pass

    def on_epoch_begin(self, epoch, logs=None):
        pass

    def on_epoch_end(self, epoch, logs=None):
        pass

    def on_train_batch_begin(self, batch, logs=None):
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        self.on_batch_end(batch, logs=logs)

    def on_test_batch_begin(self, batch, logs=None):
        pass

    def on_test_batch_end(self, batch, logs=None):
        pass

    def on_predict_batch_begin(self, batch, logs=None):
        pass

    def on_predict_batch_end(self, batch, logs=None):
        pass

    def on_train_begin(self, logs=None):
        pass

    def on_train_end(self, logs=None):
        pass

    def on_test_begin(self, logs=None):
        pass

    def on_test_end(self, logs=None):
        pass

    def on_predict_begin(self, logs=None):
        pass

    def on_predict_end(self, logs=None):
        pass


class CallbackList:
    """The callbacks of one `fit`: each hook is called on every callback in order."""

    def __init__(self, callbacks=None, add_history=False, add_progbar=False, model=None, **params):
        self.callbacks = list(callbacks or [])
        for cb in self.callbacks:
            if not isinstance(cb, Callback) and not hasattr(cb, "on_epoch_end"):
                raise TypeError(f"Expected a keras Callback, got {cb!r}")
        if add_history and not any(isinstance(cb, History) for cb in self.callbacks):
            self.callbacks.append(History())
        if add_progbar and not any(isinstance(cb, ProgbarLogger) for cb in self.callbacks):
            self.callbacks.insert(0, ProgbarLogger(count_mode="samples"))
        self.model = model
        self.params = params
        if model is not None:
            self.set_model(model)
        if params:
            self.set_params(params)

    def append(self, callback):
        self.callbacks.append(callback)

    def set_params(self, params):
        self.params = params
        for cb in self.callbacks:
            cb.set_params(params)

    def set_model(self, model):
        self.model = model
        for cb in self.callbacks:
            cb.set_model(model)

    def _call(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(*args)

    def _call_batch(self, when, mode, batch, logs):
        self._call(f"on_{mode}_batch_{when}", batch, logs)

    def on_train_begin(self, logs=None):
        self._call("on_train_begin", logs or {})

    def on_train_end(self, logs=None):
        self._call("on_train_end", logs or {})

    def on_epoch_begin(self, epoch, logs=None):
        self._call("on_epoch_begin", epoch, logs or {})

    def on_epoch_end(self, epoch, logs=None):
        self._call("on_epoch_end", epoch, logs if logs is not None else {})

    def on_batch_begin(self, batch, logs=None):
        self._call("on_train_batch_begin", batch, logs or {})

    def on_batch_end(self, batch, logs=None):
        self._call("on_train_batch_end", batch, logs or {})

    on_train_batch_begin = on_batch_begin
    on_train_batch_end = on_batch_end

    def on_test_begin(self, logs=None):
        self._call("on_test_begin", logs or {})

    def on_test_end(self, logs=None):
        self._call("on_test_end", logs or {})

    def __iter__(self):
        return iter(self.callbacks)


class BaseLogger(Callback):
    """Averages the batch values of the metrics over an epoch (fit does this itself; kept for programs that
    list it)."""

    def __init__(self, stateful_metrics=None):
        super().__init__()
        self.stateful_metrics = set(stateful_metrics or [])

    def on_epoch_begin(self, epoch, logs=None):
        self.seen = 0
        self.totals = {}

    def on_batch_end(self, batch, logs=None):
        logs = logs or {}
        size = logs.get("size", 0)
        self.seen += size
        for k, v in logs.items():
            if k not in ("batch", "size"):
                self.totals[k] = self.totals.get(k, 0.0) + v * size

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            for k in self.params.get("metrics", []):
                if k in self.totals and k not in logs:
                    logs[k] = self.totals[k] / max(self.seen, 1)


class History(Callback):
    """Records each epoch's logs: `history.history['loss']` etc.; `fit` returns it."""

    def __init__(self):
        super().__init__()
        self.history = {}
        self.epoch = []

    def on_train_begin(self, logs=None):
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        self.epoch.append(epoch)
        for k, v in logs.items():
            self.history.setdefault(k, []).append(v)
        if self.model is not None:
            self.model.history = self


def _format_value(v):
    return f"{v:.4f}" if abs(v) >= 1e-3 or v == 0 else f"{v:.4e}"


class ProgbarLogger(Callback):
    """Prints 'Epoch i/n' and each epoch's metrics to stdout (verbose=1: a progress bar line, 2: one line)."""

    def __init__(self, count_mode="samples", stateful_metrics=None):
        super().__init__()
        if count_mode not in ("samples", "steps"):
            raise ValueError(f'Unknown `count_mode`: {count_mode}. Expected values are ["samples", "steps"]')
        self.use_steps = count_mode == "steps"

    def on_epoch_begin(self, epoch, logs=None):
        self.verbose = self.params.get("verbose", 1)
        self.epochs = self.params.get("epochs", 1)
        self.seen = 0
        self.start = time.time()
        if self.verbose:
            print(f"Epoch {epoch + 1}/{self.epochs}")

    def on_batch_end(self, batch, logs=None):
        self.seen += 1 if self.use_steps else (logs or {}).get("size", 0)

    def on_epoch_end(self, epoch, logs=None):
        if not self.verbose:
            return
        logs = logs or {}
        elapsed = time.time() - self.start
        values = " - ".join(f"{k}: {_format_value(v)}" for k, v in logs.items())
        total = self.params.get("steps") or self.params.get("samples") or self.seen
        if self.verbose == 1:
            per = "step" if self.use_steps else "sample"
            line = f"{self.seen}/{total} [==============================] - {elapsed:.0f}s "
            line += f"{elapsed * 1e6 / max(self.seen, 1):.0f}us/{per} - {values}"
        else:
            per = "step" if self.use_steps else "sample"
            line = f"{self.seen}/{total} - {elapsed:.0f}s - {values} - {elapsed * 1e3:.0f}ms/epoch - "
            line += f"{elapsed * 1e6 / max(self.seen, 1):.0f}us/{per}"
        print(line)
        sys.stdout.flush()


class TerminateOnNaN(Callback):
    """Stops training when a batch's loss is NaN or infinite."""

    def on_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and (np.isnan(loss) or np.isinf(loss)):
            print(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True


def _monitor_op(mode, monitor):
    if mode not in ("auto", "min", "max"):
        warnings.warn(f"Mode {mode} is unknown, fallback to auto mode.", stacklevel=3)
        mode = "auto"
    if mode == "min" or (mode == "auto" and not ("acc" in monitor or monitor.startswith("fmeasure"))):
        return np.less
    return np.greater


class EarlyStopping(Callback):
    """Stops training when `monitor` has not improved by `min_delta` for `patience` epochs; optionally restores
    the best epoch's weights."""

    def __init__(
        self,
        monitor="val_loss",
        min_delta=0,
        patience=0,
        verbose=0,
        mode="auto",
        baseline=None,
        restore_best_weights=False,
        start_from_epoch=0,
    ):
        super().__init__()
        self.monitor = monitor
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.min_delta = abs(min_delta)
        self.restore_best_weights = restore_best_weights
        self.start_from_epoch = start_from_epoch
        self.monitor_op = _monitor_op(mode, monitor)
        if self.monitor_op == np.less:
            self.min_delta *= -1
        self.wait = 0
        self.stopped_epoch = 0
        self.best_weights = None

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = np.inf if self.monitor_op == np.less else -np.inf
        self.best_weights = None
        self.best_epoch = 0

    def _improved(self, current, reference):
        return self.monitor_op(current - self.min_delta, reference)

    def on_epoch_end(self, epoch, logs=None):
        current = (logs or {}).get(self.monitor)
        if current is None:
            warnings.warn(
                f"Early stopping conditioned on metric `{self.monitor}` which is not available. Available metrics "
                f"are: {','.join(list((logs or {}).keys()))}",
                stacklevel=2,
            )
            return
        if epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
        self.wait += 1
        if self._improved(current, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._improved(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True
            if self.restore_best_weights and self.best_weights is not None:
                if self.verbose > 0:
                    print(f"Restoring model weights from the end of the best epoch: {self.best_epoch + 1}.")
                self.model.set_weights(self.best_weights)

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")


class ModelCheckpoint(Callback):
    """Saves the model (or its weights) after epochs to `filepath`, which may name `{epoch:02d}` and log values
    (`{val_loss:.2f}`); with `save_best_only` only when `monitor` improved."""

    def __init__(
        self,
        filepath,
        monitor="val_loss",
        verbose=0,
        save_best_only=False,
        save_weights_only=False,
        mode="auto",
        save_freq="epoch",
        period=None,
        initial_value_threshold=None,
        **kwargs,
    ):
        super().__init__()
        self.filepath = os.fspath(filepath)
        self.monitor = monitor
        self.verbose = verbose
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        self.period = period or 1
        if save_freq != "epoch" and not isinstance(save_freq, int):
            raise ValueError(f"Unrecognized save_freq: {save_freq}. Expected save_freq are 'epoch' or integer")
        self.monitor_op = _monitor_op(mode, monitor)
        self.best = initial_value_threshold
        if self.best is None:
            self.best = np.inf if self.monitor_op == np.less else -np.inf
        self.epochs_since_last_save = 0

    def _path(self, epoch, logs):
        try:
            return self.filepath.format(epoch=epoch + 1, **logs)
        except KeyError as e:
            raise KeyError(f'Failed to format this callback filepath: "{self.filepath}". Reason: {e}') from e

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        self.epochs_since_last_save += 1
        if self.epochs_since_last_save < self.period:
            return
        self.epochs_since_last_save = 0
        path = self._path(epoch, logs)
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None:
                warnings.warn(f"Can save best model only with {self.monitor} available, skipping.", stacklevel=2)
                return
            if not self.monitor_op(current, self.best):
                if self.verbose > 0:
                    print(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {self.best:.5f}")
                return
            if self.verbose > 0:
                print(
                    f"\nEpoch {epoch + 1}: {self.monitor} improved from {self.best:.5f} to {current:.5f}, "
                    f"saving model to {path}"
                )
            self.best = current
        elif self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: saving model to {path}")
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        if self.save_weights_only:
            self.model.save_weights(path, overwrite=True)
        else:
            self.model.save(path, overwrite=True)


def _get_lr(optimizer):
    if not hasattr(optimizer, "lr") and not hasattr(optimizer, "_learning_rate"):
        raise ValueError('Optimizer must have a "lr" attribute.')
    value = getattr(optimizer, "lr", None) if hasattr(optimizer, "lr") else optimizer._learning_rate
    if hasattr(value, "op"):
        return float(backend.get_value(value))
    return float(value)


def _set_lr(optimizer, value):
    if hasattr(optimizer, "lr"):
        current = optimizer.lr
        if hasattr(current, "load"):
            backend.set_value(current, value)
        else:
            optimizer.lr = value
        return
    if hasattr(optimizer, "_learning_rate"):
        current = optimizer._learning_rate
        if hasattr(current, "load"):
            backend.set_value(current, value)
            return
        raise ValueError(
            "The learning rate of this optimizer is a constant of the graph; give it a tw.Variable learning rate to "
            "change it during training."
        )
    raise ValueError('Optimizer must have a "lr" attribute.')


class LearningRateScheduler(Callback):
    """Sets the learning rate at the start of each epoch to `schedule(epoch)` or `schedule(epoch, lr)`."""

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose

    def on_epoch_begin(self, epoch, logs=None):
        lr = _get_lr(self.model.optimizer)
        try:
            lr = self.schedule(epoch, lr)
        except TypeError:
            lr = self.schedule(epoch)
        if not isinstance(lr, (float, int, np.floating, np.integer)):
            raise ValueError(f'The output of the "schedule" function should be float. Got: {lr}')  # noqa: TRY004 - as tf_keras
        _set_lr(self.model.optimizer, float(lr))
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {lr}.")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["lr"] = _get_lr(self.model.optimizer)


class ReduceLROnPlateau(Callback):
    """Multiplies the learning rate by `factor` when `monitor` has not improved for `patience` epochs."""

    def __init__(
        self,
        monitor="val_loss",
        factor=0.1,
        patience=10,
        verbose=0,
        mode="auto",
        min_delta=1e-4,
        cooldown=0,
        min_lr=0,
        **kwargs,
    ):
        super().__init__()
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau does not support a factor >= 1.0. Got {factor}")
        if "epsilon" in kwargs:
            min_delta = kwargs.pop("epsilon")
        self.monitor, self.factor, self.patience = monitor, factor, patience
        self.verbose, self.min_delta, self.cooldown, self.min_lr = verbose, min_delta, cooldown, min_lr
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"Learning rate reduction mode {mode} is unknown, fallback to auto mode.", stacklevel=2)
            mode = "auto"
        if mode == "min" or (mode == "auto" and "acc" not in monitor):
            self.monitor_op = lambda a, b: np.less(a, b - self.min_delta)
            self._initial_best = np.inf
        else:
            self.monitor_op = lambda a, b: np.greater(a, b + self.min_delta)
            self._initial_best = -np.inf
        self.best = self._initial_best
        self.mode = mode
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs=None):
        self.best = self._initial_best  # (not from monitor_op(0, 1), which a min_delta > 1 turns round)
        self.cooldown_counter = 0
        self.wait = 0

    def on_epoch_end(self, epoch, logs=None):
        logs = logs if logs is not None else {}
        logs["lr"] = _get_lr(self.model.optimizer)
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(
                f"Learning rate reduction is conditioned on metric `{self.monitor}` which is not available. "
                f"Available metrics are: {','.join(list(logs.keys()))}",
                stacklevel=2,
            )
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self.monitor_op(current, self.best):
            self.best = current
            self.wait = 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = _get_lr(self.model.optimizer)
                if old_lr > np.float32(self.min_lr):
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    _set_lr(self.model.optimizer, new_lr)
                    if self.verbose > 0:
                        print(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning rate to {new_lr}.")
                    self.cooldown_counter = self.cooldown
                    self.wait = 0


class CSVLogger(Callback):
    """Writes each epoch's logs as a row of a CSV file (`epoch` first, then the keys in sorted order)."""

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.filename = os.fspath(filename)
        self.sep = separator
        self.append = append
        self.keys = None
        self.writer = None
        self.csv_file = None

    def on_train_begin(self, logs=None):
        append_header = not (self.append and os.path.exists(self.filename) and os.path.getsize(self.filename))
        self.append_header = append_header
        self.csv_file = open(self.filename, "a" if self.append else "w", newline="")  # noqa: SIM115 - open until on_train_end

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs.keys())
        if self.writer is None:
            self.writer = csv.DictWriter(self.csv_file, fieldnames=["epoch"] + self.keys, delimiter=self.sep)
            if self.append_header:
                self.writer.writeheader()
        row = collections.OrderedDict({"epoch": epoch})
        row.update((k, logs.get(k, "NA")) for k in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs=None):
        if self.csv_file is not None:
            self.csv_file.close()
        self.writer = None


class LambdaCallback(Callback):
    """A callback from functions: `on_epoch_begin(epoch, logs)`, `on_epoch_end`, `on_batch_begin(batch, logs)`,
    `on_batch_end`, `on_train_begin(logs)`, `on_train_end`."""

    def __init__(
        self,
        on_epoch_begin=None,
        on_epoch_end=None,
        on_batch_begin=None,
        on_batch_end=None,
        on_train_begin=None,
        on_train_end=None,
        **kwargs,
    ):
        super().__init__()
        self.__dict__.update(kwargs)
        noop_epoch = lambda epoch, logs: None
        noop = lambda logs: None
        self.on_epoch_begin = on_epoch_begin or noop_epoch
        self.on_epoch_end = on_epoch_end or noop_epoch
        self.on_batch_begin = on_batch_begin or noop_epoch
        self.on_batch_end = on_batch_end or noop_epoch
        self.on_train_begin = on_train_begin or noop
        self.on_train_end = on_train_end or noop


class RemoteMonitor(Callback):
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("RemoteMonitor needs network access, which tensorweave does not provide.")


class TensorBoard(Callback):
    """Writes each epoch's logs as scalar summaries to `log_dir` (tw.summary.FileWriter; the graph too with
    `write_graph`)."""

    def __init__(
        self, log_dir="logs", histogram_freq=0, write_graph=True, write_images=False, update_freq="epoch", **kwargs
    ):
        super().__init__()
        self.log_dir = os.fspath(log_dir)
        self.histogram_freq = histogram_freq
        self.write_graph = write_graph
        self.update_freq = update_freq
        self.writer = None

    def set_model(self, model):
        import tensorweave as tw

        self.model = model
        if self.writer is None:
            graph = tw.get_default_graph() if self.write_graph else None
            self.writer = tw.summary.FileWriter(self.log_dir, graph)

    def on_epoch_end(self, epoch, logs=None):
        import tensorweave as tw

        summary = tw.Summary(value=[tw.Summary.Value(tag=k, simple_value=float(v)) for k, v in (logs or {}).items()])
        self.writer.add_summary(summary, epoch)
        self.writer.flush()

    def on_train_end(self, logs=None):
        if self.writer is not None:
            self.writer.close()
            self.writer = None

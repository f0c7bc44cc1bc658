"""tf.keras.Sequential (a first part): compile, fit, evaluate, predict on the Keras backend session."""

import numpy as np

import tensorweave as tw
from tensorweave._src.keras import backend

_OPTIMIZERS = {
    "sgd": lambda: tw.train.GradientDescentOptimizer(0.01),
    "adam": lambda: tw.train.AdamOptimizer(0.001, epsilon=1e-7),
    "rmsprop": lambda: tw.train.RMSPropOptimizer(0.001, epsilon=1e-7),
    "adagrad": lambda: tw.train.AdagradOptimizer(0.001),
}


def _clipped(p):
    return tw.clip_by_value(p, backend.epsilon(), 1.0 - backend.epsilon())


_LOSSES = {
    "mean_squared_error": lambda t, p: tw.reduce_mean(tw.square(p - t), axis=-1),
    "mean_absolute_error": lambda t, p: tw.reduce_mean(tw.abs(p - t), axis=-1),
    "categorical_crossentropy": lambda t, p: (
        -tw.reduce_sum(t * tw.log(_clipped(p / tw.reduce_sum(p, axis=-1, keepdims=True))), axis=-1)
    ),
    "sparse_categorical_crossentropy": lambda t, p: (
        -tw.reduce_sum(
            tw.one_hot(tw.cast(tw.reshape(t, [-1]), tw.int32), tw.shape(p)[-1]) * tw.log(_clipped(p)), axis=-1
        )
    ),
    "binary_crossentropy": lambda t, p: (
        -tw.reduce_mean(t * tw.log(_clipped(p)) + (1.0 - t) * tw.log(1.0 - _clipped(p)), axis=-1)
    ),
}
_LOSSES["mse"] = _LOSSES["mean_squared_error"]
_LOSSES["mae"] = _LOSSES["mean_absolute_error"]


class History:
    def __init__(self):
        self.history = {}
        self.epoch = []


class Sequential:
    """A stack of Keras layers built on a placeholder of the first layer's `input_shape` (or the data's shape)."""

    def __init__(self, layers=None, name=None):
        self.layers = []
        self.name = name or "sequential"
        self.inputs = self.outputs = None
        for layer in layers or []:
            self.add(layer)

    def add(self, layer):
        self.layers.append(layer)

    def _build(self, feature_shape=None):
        if self.outputs is not None:
            return
        shape = getattr(self.layers[0], "_keras_input_shape", None) or feature_shape
        if shape is None:
            raise ValueError("This model has not yet been built: give the first layer an `input_shape`.")
        x = tw.placeholder(tw.float32, [None] + list(shape), name=f"{self.layers[0].name}_input")
        y = x
        for layer in self.layers:
            y = layer(y)
        self.inputs, self.outputs = [x], [y]

    def __call__(self, inputs):
        y = inputs
        for layer in self.layers:
            y = layer(y)
        return y

    @property
    def trainable_weights(self):
        return [v for layer in self.layers for v in layer.trainable_weights]

    @property
    def weights(self):
        return [v for layer in self.layers for v in layer.weights]

    def get_weights(self):
        return backend.get_session().run(self.weights)

    def set_weights(self, values):
        sess = backend.get_session()
        for v, value in zip(self.weights, values):
            v.load(np.asarray(value), sess)

    def compile(self, optimizer="rmsprop", loss=None, metrics=None):
        if isinstance(optimizer, str):
            if optimizer.lower() not in _OPTIMIZERS:
                raise ValueError(f"Unknown optimizer: {optimizer}")
            optimizer = _OPTIMIZERS[optimizer.lower()]()
        if isinstance(loss, str):
            if loss not in _LOSSES:
                raise ValueError(
                    f"Unknown loss function: {loss}. Please ensure this object is passed to the "
                    "`custom_objects` argument."
                )
            loss_name, loss = loss, _LOSSES[loss]
        else:
            loss_name = getattr(loss, "__name__", "loss")
        self.optimizer, self._loss_fn, self._loss_name = optimizer, loss, loss_name
        self._metrics = list(metrics or [])
        for m in self._metrics:
            if m not in ("accuracy", "acc"):
                raise ValueError(f"Unknown metric function: {m}")
        self._compiled_graph = None

    def _compile_graph(self, feature_shape):
        self._build(feature_shape)
        if self._compiled_graph is not None:
            return
        y = self.outputs[0]
        self._target = tw.placeholder(tw.float32, [None] * y.shape.ndims, name=f"{self.layers[-1].name}_target")
        self._loss = tw.reduce_mean(self._loss_fn(self._target, y))
        reg = tw.get_collection(tw.GraphKeys.REGULARIZATION_LOSSES)
        total = self._loss + tw.add_n(reg) if reg else self._loss
        self._train_op = self.optimizer.minimize(total, var_list=self.trainable_weights)
        self._total_loss = total
        fetches = {"loss": total}
        if self._metrics:
            if self._loss_name == "sparse_categorical_crossentropy":
                hit = tw.equal(tw.cast(tw.argmax(y, -1), tw.float32), tw.reshape(self._target, [-1]))
            elif self._loss_name == "categorical_crossentropy":
                hit = tw.equal(tw.argmax(y, -1), tw.argmax(self._target, -1))
            else:
                hit = tw.equal(tw.cast(y > 0.5, tw.float32), self._target)
            fetches["acc"] = tw.reduce_mean(tw.cast(hit, tw.float32))
        self._fetches = fetches
        sess = backend.get_session()
        known = set(sess.run(tw.report_uninitialized_variables()).tolist())
        sess.run(tw.variables_initializer([v for v in tw.global_variables() if v.op.name.encode() in known]))
        self._compiled_graph = tw.get_default_graph()

    def _batches(self, n, batch_size, shuffle):
        order = np.random.permutation(n) if shuffle else np.arange(n)
        for start in range(0, n, batch_size):
            yield order[start : start + batch_size]

    def _run_epoch(self, x, y, batch_size, train, shuffle=False):
        sess = backend.get_session()
        if y.ndim == self.outputs[0].shape.ndims - 1:
            y = y[..., None]
        fetches = dict(self._fetches)
        if train:
            fetches["_train"] = self._train_op
        totals = {k: 0.0 for k in self._fetches}
        feed_phase = {backend.learning_phase(): train}
        for idx in self._batches(len(x), batch_size, shuffle):
            out = sess.run(fetches, {self.inputs[0]: x[idx], self._target: y[idx], **feed_phase})
            for k in totals:
                totals[k] += float(out[k]) * len(idx)
        return {k: v / len(x) for k, v in totals.items()}

    def fit(self, x, y, batch_size=32, epochs=1, verbose=1, validation_data=None, shuffle=True, **kwargs):
        x, y = np.asarray(x, np.float32), np.asarray(y, np.float32)
        self._compile_graph(x.shape[1:])
        history = History()
        for epoch in range(epochs):
            logs = self._run_epoch(x, y, batch_size or 32, True, shuffle)
            if validation_data is not None:
                vx, vy = (np.asarray(a, np.float32) for a in validation_data[:2])
                logs.update({"val_" + k: v for k, v in self._run_epoch(vx, vy, batch_size or 32, False).items()})
            history.epoch.append(epoch)
            for k, v in logs.items():
                history.history.setdefault(k, []).append(v)
            if verbose:
                print(f"Epoch {epoch + 1}/{epochs} - " + " - ".join(f"{k}: {v:.4f}" for k, v in logs.items()))
        self.history = history
        return history

    def evaluate(self, x, y, batch_size=32, verbose=1):
        x, y = np.asarray(x, np.float32), np.asarray(y, np.float32)
        self._compile_graph(x.shape[1:])
        logs = self._run_epoch(x, y, batch_size or 32, False)
        return [logs[k] for k in self._fetches] if len(logs) > 1 else logs["loss"]

    def predict(self, x, batch_size=32, verbose=0):
        x = np.asarray(x, np.float32)
        self._build(x.shape[1:])
        sess = backend.get_session()
        parts = [
            sess.run(self.outputs[0], {self.inputs[0]: x[i : i + batch_size]}) for i in range(0, len(x), batch_size)
        ]
        return np.concatenate(parts, axis=0)

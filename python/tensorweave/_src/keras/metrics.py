"""tf.keras.metrics: metric functions, stateful Metric classes (graph mode), and `get`.

What the engine does for 'accuracy' / 'acc' (tf_keras's compile_utils): the name is resolved by the loss
and output shape, not by `get`:
  - loss binary_crossentropy, or an output whose last dimension is 1: `binary_accuracy`;
  - loss sparse_categorical_crossentropy (targets are class ids): `sparse_categorical_accuracy`;
  - otherwise: `categorical_accuracy`.
`get('accuracy')` alone returns `accuracy` (exact equality), as tf_keras's `metrics.get`;
`get_metric_function(metric, output_shape, loss_fn)` gives the engine's choice (also for 'crossentropy'/'ce').
"""

from tensorweave._src.keras import backend
from tensorweave._src.keras import losses as losses_mod
from tensorweave._src.keras.losses import (  # noqa: F401 - the loss functions are metrics too
    binary_crossentropy,
    categorical_crossentropy,
    categorical_hinge,
    hinge,
    kl_divergence,
    kld,
    kullback_leibler_divergence,
    log_cosh,
    logcosh,
    mae,
    mape,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
    mse,
    msle,
    poisson,
    sparse_categorical_crossentropy,
    squared_hinge,
)

MAE = mae
MSE = mse
MAPE = mape
MSLE = msle
KLD = kld


def _tw():
    import tensorweave

    return tensorweave


def accuracy(y_true, y_pred):
    """1.0 where `y_pred == y_true` (elementwise), else 0.0."""
    tw = _tw()
    y_pred = tw.convert_to_tensor(y_pred)
    y_true = tw.convert_to_tensor(y_true)
    y_pred, y_true, _ = losses_mod._squeeze_or_expand(y_pred, y_true)
    if y_true.dtype != y_pred.dtype:
        y_pred = tw.cast(y_pred, y_true.dtype)
    return tw.cast(tw.equal(y_true, y_pred), backend.floatx())


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """Mean over the last axis of `(y_pred > threshold) == y_true`."""
    tw = _tw()
    y_pred = tw.convert_to_tensor(y_pred)
    threshold = tw.cast(threshold, y_pred.dtype)
    y_pred = tw.cast(y_pred > threshold, y_pred.dtype)
    y_true = tw.cast(y_true, y_pred.dtype)
    return backend.mean(tw.cast(tw.equal(y_true, y_pred), backend.floatx()), axis=-1)


def categorical_accuracy(y_true, y_pred):
    """1.0 where the argmax of `y_pred` is the argmax of the one-hot `y_true`."""
    tw = _tw()
    return tw.cast(tw.equal(tw.argmax(y_true, axis=-1), tw.argmax(y_pred, axis=-1)), backend.floatx())


def sparse_categorical_accuracy(y_true, y_pred):
    """1.0 where the argmax of `y_pred` is the class id `y_true`."""
    tw = _tw()
    y_pred = tw.convert_to_tensor(y_pred)
    y_true = tw.convert_to_tensor(y_true)
    rp, rt = y_pred.shape.ndims, y_true.shape.ndims
    if rt is not None and rp is not None and rt == rp and y_true.shape[-1] == 1:
        y_true = tw.squeeze(y_true, [-1])
    y_pred = tw.argmax(y_pred, axis=-1)
    if y_pred.dtype != y_true.dtype:
        y_pred = tw.cast(y_pred, y_true.dtype)
    return tw.cast(tw.equal(y_true, y_pred), backend.floatx())


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the argmax of the one-hot `y_true` is among the `k` largest `y_pred`."""
    tw = _tw()
    return sparse_top_k_categorical_accuracy(tw.argmax(y_true, axis=-1), y_pred, k=k)


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the class id `y_true` is among the `k` largest `y_pred`."""
    tw = _tw()
    y_pred = tw.convert_to_tensor(y_pred)
    y_true = tw.convert_to_tensor(y_true)
    rp, rt = y_pred.shape.ndims, y_true.shape.ndims
    if rt is not None and rp is not None:
        if rp > 2:
            y_pred = tw.reshape(y_pred, [-1, tw.shape(y_pred)[-1]])
        if rt > 1:
            y_true = tw.reshape(y_true, [-1])
    hit = tw.nn.in_top_k(y_pred, tw.cast(y_true, tw.int32), k)
    return tw.cast(hit, backend.floatx())


def cosine_similarity(y_true, y_pred, axis=-1):
    """The cosine of the angle between `y_true` and `y_pred` along `axis`."""
    tw = _tw()
    y_true = tw.nn.l2_normalize(y_true, axis=axis)
    y_pred = tw.nn.l2_normalize(y_pred, axis=axis)
    return tw.reduce_sum(y_true * y_pred, axis=axis)


acc = ACC = accuracy
cosine = cosine_proximity = cosine_similarity

_FUNCTIONS = {
    f.__name__: f
    for f in (
        accuracy,
        binary_accuracy,
        categorical_accuracy,
        sparse_categorical_accuracy,
        top_k_categorical_accuracy,
        sparse_top_k_categorical_accuracy,
        cosine_similarity,
        binary_crossentropy,
        categorical_crossentropy,
        sparse_categorical_crossentropy,
        hinge,
        squared_hinge,
        categorical_hinge,
        kl_divergence,
        poisson,
        log_cosh,
        mean_squared_error,
        mean_absolute_error,
        mean_absolute_percentage_error,
        mean_squared_logarithmic_error,
    )
}
_FUNCTIONS.update(
    acc=accuracy,
    ACC=accuracy,
    mse=mse,
    MSE=mse,
    mae=mae,
    MAE=mae,
    mape=mape,
    MAPE=mape,
    msle=msle,
    MSLE=msle,
    kld=kld,
    KLD=kld,
    kullback_leibler_divergence=kld,
    logcosh=log_cosh,
    cosine=cosine_similarity,
    cosine_proximity=cosine_similarity,
)
# --- stateful metrics ---


def _snake(name):
    import re

    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()


_NAME_UIDS = {}  # graph -> {name: count}: unnamed metrics are "auc", "auc_1", ... as tf_keras's


def _unique_name(base):
    import weakref

    graph = _tw().get_default_graph()
    key = id(graph)
    entry = _NAME_UIDS.get(key)
    if entry is None or entry[0]() is not graph:
        entry = _NAME_UIDS[key] = (weakref.ref(graph), {})
    count = entry[1].get(base, 0)
    entry[1][base] = count + 1
    return base if count == 0 else f"{base}_{count}"


def _returning_update_op(update_state):
    """`update_state` returning the op that runs the update: what it returned, else (a subclass that assigns
    its variables and returns nothing, as in TF2 code) the group of the ops it created."""
    import functools

    @functools.wraps(update_state)
    def wrapper(self, *args, **kwargs):
        graph = _tw().get_default_graph()
        start = len(graph.get_operations())
        result = update_state(self, *args, **kwargs)
        if result is None:
            return _tw().group(*graph.get_operations()[start:])
        return result

    return wrapper


class Metric:
    """Base class of stateful metrics (graph mode): variables in the LOCAL_VARIABLES and METRIC_VARIABLES
    collections, `update_state(...)` returning the update op, `result()` a tensor, `reset_state()`.

    `metric(...)` adds the update op and returns the result after it (as tf_keras in graph mode).
    """

    def __init__(self, name=None, dtype=None, **kwargs):
        if kwargs:
            raise TypeError(f"Unexpected keyword argument(s) passed to {type(self).__name__}: {sorted(kwargs)}")
        tw = _tw()
        self.name = name or _unique_name(_snake(type(self).__name__))
        self._dtype = tw.as_dtype(dtype or backend.floatx())
        self._weights = []
        with tw.name_scope(None), tw.name_scope(self.name) as scope:
            self._scope = scope

    @property
    def dtype(self):
        return self._dtype.name

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "update_state" in cls.__dict__:
            cls.update_state = _returning_update_op(cls.__dict__["update_state"])

    def add_weight(self, name, shape=(), aggregation=None, synchronization=None, initializer=None, dtype=None):
        """A non-trainable variable `<metric name>/<name>` in the LOCAL and METRIC collections; `initializer`:
        None/"zeros", "ones", an initializer (called with shape and dtype) or a value."""
        import numpy as np

        tw = _tw()
        dtype = tw.as_dtype(dtype or self._dtype)
        shape = tuple(shape or ())
        if initializer is None or initializer == "zeros":
            value = np.zeros(shape, dtype.as_numpy_dtype)
        elif initializer == "ones":
            value = np.ones(shape, dtype.as_numpy_dtype)
        elif callable(initializer):
            value = initializer(shape, dtype=dtype)
        else:
            value = initializer
        graph = tw.get_default_graph()
        with graph.control_dependencies(None), tw.name_scope(self._scope):
            v = tw.Variable(
                value,
                trainable=False,
                name=name,
                dtype=dtype,
                collections=[tw.GraphKeys.LOCAL_VARIABLES, tw.GraphKeys.METRIC_VARIABLES],
            )
        self._weights.append(v)
        return v

    @property
    def variables(self):
        return list(self._weights)

    weights = variables

    def update_state(self, *args, **kwargs):
        raise NotImplementedError("Must be implemented in subclasses.")

    def result(self):
        raise NotImplementedError("Must be implemented in subclasses.")

    def reset_state(self):
        """Sets every variable back to zero (in the Keras session)."""
        import numpy as np

        for v in self._weights:
            backend.set_value(v, np.zeros(v.shape.as_list(), v.dtype.base_dtype.as_numpy_dtype))

    reset_states = reset_state

    def __call__(self, *args, **kwargs):
        tw = _tw()
        with tw.name_scope(self.name):
            update_op = self.update_state(*args, **kwargs)
            with tw.control_dependencies([update_op]):
                return tw.identity(self.result())

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _broadcast_weights(values, sample_weight):
    tw = _tw()
    values, _, sample_weight = losses_mod._squeeze_or_expand(values, None, sample_weight)
    return values, sample_weight * tw.ones_like(values)


class Reduce(Metric):
    """The sum, or the (weighted) mean, of the values seen."""

    def __init__(self, reduction, name, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.reduction = reduction
        self.total = self.add_weight("total")
        if reduction != "sum":
            self.count = self.add_weight("count")

    def update_state(self, values, sample_weight=None):
        tw = _tw()
        values = tw.cast(values, self._dtype)
        if sample_weight is not None:
            sample_weight = tw.cast(sample_weight, self._dtype)
            values, sample_weight = _broadcast_weights(values, sample_weight)
            values = values * sample_weight
        value_sum = tw.reduce_sum(values)
        with tw.control_dependencies([value_sum]):
            update_total = tw.assign_add(self.total, value_sum)
        if self.reduction == "sum":
            return update_total.op
        if self.reduction == "weighted_mean" and sample_weight is not None:
            num_values = tw.reduce_sum(sample_weight)
        else:
            num_values = tw.cast(tw.size(values), self._dtype)
        with tw.control_dependencies([update_total]):
            return tw.assign_add(self.count, num_values).op

    def result(self):
        tw = _tw()
        if self.reduction == "sum":
            return self.total.read_value()
        return tw.math.divide_no_nan(self.total.read_value(), self.count.read_value())


class Sum(Reduce):
    """The (weighted) sum of the values seen."""

    def __init__(self, name="sum", dtype=None):
        super().__init__("sum", name=name, dtype=dtype)

    def get_config(self):
        return Metric.get_config(self)


class Mean(Reduce):
    """The (weighted) mean of the values seen: `total / count`."""

    def __init__(self, name="mean", dtype=None):
        super().__init__("weighted_mean", name=name, dtype=dtype)

    def get_config(self):
        return Metric.get_config(self)


class MeanMetricWrapper(Mean):
    """The mean of `fn(y_true, y_pred, **kwargs)` over the samples seen."""

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        tw = _tw()
        y_true = tw.cast(y_true, self._dtype)
        y_pred = tw.cast(y_pred, self._dtype)
        y_pred, y_true, _ = losses_mod._squeeze_or_expand(y_pred, y_true)
        matches = self._fn(y_true, y_pred, **self._fn_kwargs)
        mask = losses_mod.get_keras_mask(matches)
        if mask is not None:
            sample_weight = losses_mod._apply_valid_mask(matches, sample_weight, mask, "weighted_mean")
        return super().update_state(matches, sample_weight=sample_weight)

    def get_config(self):
        config = dict(self._fn_kwargs)
        config.update(Metric.get_config(self))
        return config


def _wrapper_class(class_name, fn, default_name, params=()):
    names = [p for p, _ in params]

    def __init__(self, *args, name=default_name, dtype=None, **kwargs):
        fn_kwargs = dict(params)
        fn_kwargs.update(zip(names, args))
        for k in kwargs:
            if k not in fn_kwargs:
                raise TypeError(f"{class_name}.__init__() got an unexpected keyword argument '{k}'")
        fn_kwargs.update(kwargs)
        MeanMetricWrapper.__init__(self, fn, name=name, dtype=dtype, **fn_kwargs)

    def init_with_name_first(self, name=default_name, dtype=None, *args, **kwargs):
        __init__(self, *args, name=name, dtype=dtype, **kwargs)

    # tf_keras's metric classes take (name, dtype, ...) positionally.
    return type(
        class_name, (MeanMetricWrapper,), {"__init__": init_with_name_first, "__doc__": f"Mean `{fn.__name__}`."}
    )


Accuracy = _wrapper_class("Accuracy", accuracy, "accuracy")
BinaryAccuracy = _wrapper_class("BinaryAccuracy", binary_accuracy, "binary_accuracy", (("threshold", 0.5),))
CategoricalAccuracy = _wrapper_class("CategoricalAccuracy", categorical_accuracy, "categorical_accuracy")
SparseCategoricalAccuracy = _wrapper_class(
    "SparseCategoricalAccuracy", sparse_categorical_accuracy, "sparse_categorical_accuracy"
)


class TopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the target class is among the `k` largest predictions."""

    def __init__(self, k=5, name="top_k_categorical_accuracy", dtype=None):
        super().__init__(top_k_categorical_accuracy, name, dtype=dtype, k=k)


class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    """How often the target class id is among the `k` largest predictions."""

    def __init__(self, k=5, name="sparse_top_k_categorical_accuracy", dtype=None):
        super().__init__(sparse_top_k_categorical_accuracy, name, dtype=dtype, k=k)


MeanSquaredError = _wrapper_class("MeanSquaredError", mean_squared_error, "mean_squared_error")
MeanAbsoluteError = _wrapper_class("MeanAbsoluteError", mean_absolute_error, "mean_absolute_error")
MeanAbsolutePercentageError = _wrapper_class(
    "MeanAbsolutePercentageError", mean_absolute_percentage_error, "mean_absolute_percentage_error"
)
MeanSquaredLogarithmicError = _wrapper_class(
    "MeanSquaredLogarithmicError", mean_squared_logarithmic_error, "mean_squared_logarithmic_error"
)
Hinge = _wrapper_class("Hinge", hinge, "hinge")
SquaredHinge = _wrapper_class("SquaredHinge", squared_hinge, "squared_hinge")
CategoricalHinge = _wrapper_class("CategoricalHinge", categorical_hinge, "categorical_hinge")
KLDivergence = _wrapper_class("KLDivergence", kl_divergence, "kullback_leibler_divergence")
Poisson = _wrapper_class("Poisson", poisson, "poisson")
LogCoshError = _wrapper_class("LogCoshError", log_cosh, "logcosh")


class CosineSimilarity(MeanMetricWrapper):
    """The mean cosine similarity between labels and predictions."""

    def __init__(self, name="cosine_similarity", dtype=None, axis=-1):
        super().__init__(cosine_similarity, name, dtype=dtype, axis=axis)


class BinaryCrossentropy(MeanMetricWrapper):
    """The mean binary cross entropy."""

    def __init__(self, name="binary_crossentropy", dtype=None, from_logits=False, label_smoothing=0):
        super().__init__(
            binary_crossentropy, name, dtype=dtype, from_logits=from_logits, label_smoothing=label_smoothing
        )


class CategoricalCrossentropy(MeanMetricWrapper):
    """The mean categorical cross entropy."""

    def __init__(self, name="categorical_crossentropy", dtype=None, from_logits=False, label_smoothing=0, axis=-1):
        super().__init__(
            categorical_crossentropy,
            name,
            dtype=dtype,
            from_logits=from_logits,
            label_smoothing=label_smoothing,
            axis=axis,
        )


class SparseCategoricalCrossentropy(MeanMetricWrapper):
    """The mean sparse categorical cross entropy."""

    def __init__(
        self, name="sparse_categorical_crossentropy", dtype=None, from_logits=False, ignore_class=None, axis=-1
    ):
        super().__init__(
            sparse_categorical_crossentropy,
            name,
            dtype=dtype,
            from_logits=from_logits,
            ignore_class=ignore_class,
            axis=axis,
        )


class RootMeanSquaredError(Mean):
    """`sqrt(mean((y_pred - y_true) ** 2))` over the samples seen."""

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name, dtype=dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        tw = _tw()
        y_true = tw.cast(y_true, self._dtype)
        y_pred = tw.cast(y_pred, self._dtype)
        y_pred, y_true, _ = losses_mod._squeeze_or_expand(y_pred, y_true)
        return super().update_state(tw.squared_difference(y_pred, y_true), sample_weight=sample_weight)

    def result(self):
        tw = _tw()
        return tw.sqrt(tw.math.divide_no_nan(self.total.read_value(), self.count.read_value()))


# --- confusion-matrix metrics ---


def _thresholds(thresholds, default=0.5, check=True):
    if thresholds is None:
        return [default], True
    if isinstance(thresholds, (list, tuple)):
        values = [float(t) for t in thresholds]
        single = False
    else:
        values, single = [float(thresholds)], True
    for t in values:
        if check and not 0.0 <= t <= 1.0:
            raise ValueError(f"Threshold values must be in [0, 1]. Received: {values}")
    return values, single


def _filter_top_k(x, k):
    tw = _tw()
    _, idx = tw.nn.top_k(x, k, sorted=False)
    mask = tw.reduce_sum(tw.one_hot(idx, tw.shape(x)[-1], dtype=x.dtype), axis=-2)
    return x * mask + (-1e10) * (1 - mask)


def _confusion_counts(
    y_true, y_pred, thresholds, sample_weight=None, top_k=None, class_id=None, multi_label=False, label_weights=None
):
    """{tp, fp, tn, fn}: the weighted counts of `y_pred > threshold` against `y_true` for each threshold
    (shape [thresholds], or [thresholds, labels] with `multi_label`), as tf_keras's
    update_confusion_matrix_variables."""
    tw = _tw()
    y_true = tw.cast(y_true, tw.float32)
    y_pred = tw.cast(y_pred, tw.float32)
    y_pred, y_true, _ = losses_mod._squeeze_or_expand(y_pred, y_true)
    if top_k is not None:
        y_pred = _filter_top_k(y_pred, top_k)
    if class_id is not None:
        y_true = y_true[..., class_id]
        y_pred = y_pred[..., class_id]
    weights = tw.ones_like(y_pred)
    if sample_weight is not None:
        _, weights = _broadcast_weights(y_pred, tw.cast(sample_weight, tw.float32))
    if label_weights is not None and not multi_label:
        weights = weights * tw.constant(label_weights, tw.float32)
    num_thresholds = len(thresholds)
    if multi_label:
        num_labels = tw.shape(y_pred)[-1]
        pred = tw.expand_dims(tw.reshape(y_pred, tw.stack([-1, num_labels])), 0)
        label = tw.expand_dims(tw.reshape(tw.cast(y_true, tw.bool), tw.stack([-1, num_labels])), 0)
        weights = tw.expand_dims(tw.reshape(weights, tw.stack([-1, num_labels])), 0)
        thresh = tw.reshape(tw.constant(thresholds, tw.float32), [-1, 1, 1])
        multiples = [num_thresholds, 1, 1]
    else:
        pred = tw.reshape(y_pred, [1, -1])
        label = tw.reshape(tw.cast(y_true, tw.bool), [1, -1])
        weights = tw.reshape(weights, [1, -1])
        thresh = tw.reshape(tw.constant(thresholds, tw.float32), [-1, 1])
        multiples = [num_thresholds, 1]
    pred_pos = pred > thresh
    label_pos = tw.tile(label, multiples)
    pred_pos = tw.logical_and(pred_pos, tw.ones_like(label_pos))

    def count(a, b):
        return tw.reduce_sum(tw.cast(tw.logical_and(a, b), tw.float32) * weights, axis=1)

    label_neg, pred_neg = tw.logical_not(label_pos), tw.logical_not(pred_pos)
    return {
        "tp": count(label_pos, pred_pos),
        "fp": count(label_neg, pred_pos),
        "tn": count(label_neg, pred_neg),
        "fn": count(label_pos, pred_neg),
    }


class _ConfusionMetric(Metric):
    _counts = ()

    def __init__(self, thresholds=None, name=None, dtype=None, top_k=None, class_id=None, _check=True):
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.top_k = top_k
        self.class_id = class_id
        default = 0.5 if top_k is None else -1e9  # with top_k, every kept prediction counts
        self.thresholds, self._single = _thresholds(thresholds, default, _check)
        if top_k is not None and thresholds is None:
            self.thresholds = [default]
        self._vars = {}
        if not getattr(self, "multi_label", False) or getattr(self, "num_labels", None):
            self._build(getattr(self, "num_labels", None))

    def _build(self, num_labels):
        shape = (
            (len(self.thresholds),) if not getattr(self, "multi_label", False) else (len(self.thresholds), num_labels)
        )
        self._vars = {c: self.add_weight(_COUNT_NAMES[c], shape=shape, dtype="float32") for c in self._counts}

    def update_state(self, y_true, y_pred, sample_weight=None):
        tw = _tw()
        multi_label = getattr(self, "multi_label", False)
        if not self._vars:
            num_labels = tw.convert_to_tensor(y_pred).shape[-1]
            if num_labels is None:
                raise ValueError("AUC with `multi_label=True` needs the number of labels: pass `num_labels`.")
            self.num_labels = int(num_labels)
            self._build(self.num_labels)
        counts = _confusion_counts(
            y_true,
            y_pred,
            self.thresholds,
            sample_weight,
            top_k=self.top_k,
            class_id=self.class_id,
            multi_label=multi_label,
            label_weights=getattr(self, "label_weights", None),
        )
        return tw.group(*[tw.assign_add(self._vars[c], counts[c]) for c in self._counts])

    def _maybe_scalar(self, x):
        return x[0] if self._single else x

    def get_config(self):
        config = {"thresholds": self.init_thresholds}
        config.update(Metric.get_config(self))
        return config


_COUNT_NAMES = {"tp": "true_positives", "fp": "false_positives", "tn": "true_negatives", "fn": "false_negatives"}


def _count_class(class_name, count, default_name):
    class CountMetric(_ConfusionMetric):
        _counts = (count,)

        def __init__(self, thresholds=None, name=None, dtype=None):
            super().__init__(thresholds, name=name or default_name, dtype=dtype)

        def result(self):
            return self._maybe_scalar(self._vars[count].read_value())

    CountMetric.__name__ = CountMetric.__qualname__ = class_name
    CountMetric.__doc__ = f"The weighted number of {_COUNT_NAMES[count].replace('_', ' ')} at each threshold."
    return CountMetric


TruePositives = _count_class("TruePositives", "tp", "true_positives")
FalsePositives = _count_class("FalsePositives", "fp", "false_positives")
TrueNegatives = _count_class("TrueNegatives", "tn", "true_negatives")
FalseNegatives = _count_class("FalseNegatives", "fn", "false_negatives")


class Precision(_ConfusionMetric):
    """`tp / (tp + fp)` at each threshold (a scalar for one threshold)."""

    _counts = ("tp", "fp")

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(thresholds, name=name, dtype=dtype, top_k=top_k, class_id=class_id)
        self.true_positives, self.false_positives = self._vars["tp"], self._vars["fp"]

    def result(self):
        tw = _tw()
        tp, fp = self._vars["tp"].read_value(), self._vars["fp"].read_value()
        return self._maybe_scalar(tw.math.divide_no_nan(tp, tp + fp))

    def get_config(self):
        config = super().get_config()
        config.update(top_k=self.top_k, class_id=self.class_id)
        return config


class Recall(_ConfusionMetric):
    """`tp / (tp + fn)` at each threshold (a scalar for one threshold)."""

    _counts = ("tp", "fn")

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(thresholds, name=name, dtype=dtype, top_k=top_k, class_id=class_id)
        self.true_positives, self.false_negatives = self._vars["tp"], self._vars["fn"]

    def result(self):
        tw = _tw()
        tp, fn = self._vars["tp"].read_value(), self._vars["fn"].read_value()
        return self._maybe_scalar(tw.math.divide_no_nan(tp, tp + fn))

    def get_config(self):
        config = super().get_config()
        config.update(top_k=self.top_k, class_id=self.class_id)
        return config


class AUC(_ConfusionMetric):
    """The area under the ROC or PR curve, by a Riemann sum over `num_thresholds` thresholds."""

    _counts = ("tp", "tn", "fp", "fn")

    def __init__(
        self,
        num_thresholds=200,
        curve="ROC",
        summation_method="interpolation",
        name=None,
        dtype=None,
        thresholds=None,
        multi_label=False,
        num_labels=None,
        label_weights=None,
        from_logits=False,
    ):
        self.multi_label = multi_label
        self.num_labels = num_labels
        self.label_weights = None if label_weights is None else [float(w) for w in label_weights]
        if self.label_weights is not None and min(self.label_weights) < 0:
            raise ValueError("All values of `label_weights` must be non-negative.")
        curve = str(curve).upper()
        if curve not in ("ROC", "PR"):
            raise ValueError(f'Invalid AUC curve value: "{curve}". Expected values are ["PR", "ROC"]')
        summation_method = str(summation_method).lower()
        if summation_method not in ("interpolation", "minoring", "majoring"):
            raise ValueError(
                f'Invalid AUC summation method value: "{summation_method}". '
                'Expected values are ["interpolation", "majoring", "minoring"]'
            )
        if thresholds is not None:
            inner = sorted(float(t) for t in thresholds)
            num_thresholds = len(inner) + 2
        else:
            if num_thresholds <= 1:
                raise ValueError(
                    f"Argument `num_thresholds` must be an integer > 1. Received: num_thresholds={num_thresholds}"
                )
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        self.num_thresholds = num_thresholds
        self.curve = curve
        self.summation_method = summation_method
        self.from_logits = from_logits
        self._init_from_thresholds = thresholds is not None
        eps = backend.epsilon()
        _thresholds(inner)
        super().__init__([0.0 - eps, *inner, 1.0 + eps], name=name, dtype=dtype, _check=False)

    def __getattr__(self, name):
        counts = {"true_positives": "tp", "true_negatives": "tn", "false_positives": "fp", "false_negatives": "fn"}
        if name in counts and self.__dict__.get("_vars"):
            return self._vars[counts[name]]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def update_state(self, y_true, y_pred, sample_weight=None):
        if self.from_logits:
            y_pred = _tw().sigmoid(y_pred)
        return super().update_state(y_true, y_pred, sample_weight)

    def _by_label(self, terms):
        """The sum over thresholds; with `multi_label`, the (label-weighted) mean over labels of those sums."""
        tw = _tw()
        if not self.multi_label:
            return tw.reduce_sum(terms)
        by_label = tw.reduce_sum(terms, axis=0)
        if self.label_weights is None:
            return tw.reduce_mean(by_label)
        weights = tw.constant(self.label_weights, tw.float32)
        return tw.math.divide_no_nan(tw.reduce_sum(by_label * weights), tw.reduce_sum(weights))

    def _interpolate_pr_auc(self):
        tw = _tw()
        n = self.num_thresholds
        tp, fp, fn = (self._vars[c].read_value() for c in ("tp", "fp", "fn"))
        dtp = tp[: n - 1] - tp[1:]
        p = tp + fp
        dp = p[: n - 1] - p[1:]
        prec_slope = tw.math.divide_no_nan(dtp, tw.maximum(dp, 0))
        intercept = tp[1:] - prec_slope * p[1:]
        safe_p_ratio = tw.where(
            tw.logical_and(p[: n - 1] > 0, p[1:] > 0),
            tw.math.divide_no_nan(p[: n - 1], tw.maximum(p[1:], 0)),
            tw.ones_like(p[1:]),
        )
        pr_auc_increment = tw.math.divide_no_nan(
            prec_slope * (dtp + intercept * tw.log(safe_p_ratio)), tw.maximum(tp[1:] + fn[1:], 0)
        )
        return self._by_label(pr_auc_increment)

    def result(self):
        tw = _tw()
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self._interpolate_pr_auc()
        n = self.num_thresholds
        tp, tn, fp, fn = (self._vars[c].read_value() for c in ("tp", "tn", "fp", "fn"))
        recall = tw.math.divide_no_nan(tp, tp + fn)
        if self.curve == "ROC":
            x, y = tw.math.divide_no_nan(fp, fp + tn), recall
        else:
            x, y = recall, tw.math.divide_no_nan(tp, tp + fp)
        if self.summation_method == "interpolation":
            heights = (y[: n - 1] + y[1:]) / 2.0
        elif self.summation_method == "minoring":
            heights = tw.minimum(y[: n - 1], y[1:])
        else:
            heights = tw.maximum(y[: n - 1], y[1:])
        return self._by_label((x[: n - 1] - x[1:]) * heights)

    def get_config(self):
        config = {
            "num_thresholds": self.num_thresholds,
            "curve": self.curve,
            "summation_method": self.summation_method,
            "multi_label": self.multi_label,
            "num_labels": self.num_labels,
            "label_weights": self.label_weights,
            "from_logits": self.from_logits,
        }
        if self._init_from_thresholds:
            config["thresholds"] = self.thresholds[1:-1]
        config.update(Metric.get_config(self))
        return config


class SensitivitySpecificityBase(_ConfusionMetric):
    """Base of the metrics that maximize one rate subject to a bound on another over `num_thresholds`
    evenly spaced thresholds in [0, 1]."""

    _counts = ("tp", "tn", "fp", "fn")

    def __init__(self, value, num_thresholds=200, class_id=None, name=None, dtype=None):
        if num_thresholds <= 0:
            raise ValueError(
                f"Argument `num_thresholds` must be an integer > 0. Received: num_thresholds={num_thresholds}"
            )
        self.value = value
        self.num_thresholds = num_thresholds
        if num_thresholds == 1:
            thresholds = [0.5]
        else:
            thresholds = [0.0] + [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)] + [1.0]
        super().__init__(thresholds, name=name, dtype=dtype, class_id=class_id)
        self.true_positives, self.true_negatives = self._vars["tp"], self._vars["tn"]
        self.false_positives, self.false_negatives = self._vars["fp"], self._vars["fn"]

    def _rates(self):
        tw = _tw()
        tp, tn, fp, fn = (self._vars[c].read_value() for c in ("tp", "tn", "fp", "fn"))
        return {
            "sensitivity": tw.math.divide_no_nan(tp, tp + fn),
            "specificity": tw.math.divide_no_nan(tn, tn + fp),
            "precision": tw.math.divide_no_nan(tp, tp + fp),
        }

    def _max_under_constraint(self, constrained, dependent):
        """The largest `dependent` where `constrained >= value`, 0 where there is none."""
        tw = _tw()
        feasible = constrained >= self.value
        best = tw.reduce_max(tw.where(feasible, dependent, tw.zeros_like(dependent) - 1.0))
        return tw.where(tw.reduce_any(feasible), best, tw.constant(0.0))

    def get_config(self):
        config = {"class_id": self.class_id, "num_thresholds": self.num_thresholds}
        config.update(Metric.get_config(self))
        return config


def _at_metric(class_name, arg, constrained, dependent):
    names = [arg, "num_thresholds", "class_id", "name", "dtype"]

    def __init__(self, *args, **kwargs):
        # The signature is (<arg>, num_thresholds=200, class_id=None, name=None, dtype=None).
        if len(args) > len(names):
            raise TypeError(f"{class_name}() takes at most {len(names)} arguments ({len(args)} given)")
        params = {"num_thresholds": 200, "class_id": None, "name": None, "dtype": None}
        params.update(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError(f"{class_name}.__init__() got an unexpected keyword argument '{k}'")
            params[k] = v
        if arg not in params:
            raise TypeError(f"{class_name}.__init__() missing 1 required positional argument: '{arg}'")
        value = params.pop(arg)
        if value < 0 or value > 1:
            raise ValueError(f"Argument `{arg}` must be in the range [0, 1]. Received: {arg}={value}")
        setattr(self, arg, value)
        SensitivitySpecificityBase.__init__(self, value, **params)

    def result(self):
        rates = self._rates()
        return self._max_under_constraint(rates[constrained], rates[dependent])

    def get_config(self):
        config = SensitivitySpecificityBase.get_config(self)
        config[arg] = getattr(self, arg)
        return config

    doc = f"The best {dependent} over the thresholds where the {constrained} is at least `{arg}`."
    return type(
        class_name,
        (SensitivitySpecificityBase,),
        {"__init__": __init__, "result": result, "get_config": get_config, "__doc__": doc},
    )


SensitivityAtSpecificity = _at_metric("SensitivityAtSpecificity", "specificity", "specificity", "sensitivity")
SpecificityAtSensitivity = _at_metric("SpecificityAtSensitivity", "sensitivity", "sensitivity", "specificity")
PrecisionAtRecall = _at_metric("PrecisionAtRecall", "recall", "sensitivity", "precision")
RecallAtPrecision = _at_metric("RecallAtPrecision", "precision", "precision", "sensitivity")


class MeanIoU(Metric):
    """The mean over classes of `tp / (tp + fp + fn)` from the confusion matrix of class ids."""

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None, sparse_y_true=True, sparse_y_pred=True):
        super().__init__(name=name, dtype=dtype)
        self.num_classes = num_classes
        self.ignore_class = ignore_class
        self.sparse_y_true = sparse_y_true
        self.sparse_y_pred = sparse_y_pred
        self.total_cm = self.add_weight("total_confusion_matrix", shape=(num_classes, num_classes), dtype="float64")

    def update_state(self, y_true, y_pred, sample_weight=None):
        tw = _tw()
        if not self.sparse_y_true:
            y_true = tw.argmax(y_true, axis=-1)
        if not self.sparse_y_pred:
            y_pred = tw.argmax(y_pred, axis=-1)
        y_true = tw.reshape(tw.cast(y_true, self._dtype), [-1])
        y_pred = tw.reshape(tw.cast(y_pred, self._dtype), [-1])
        if sample_weight is not None:
            sample_weight = tw.reshape(tw.cast(sample_weight, self._dtype), [-1])
        if self.ignore_class is not None:
            keep = tw.not_equal(y_true, tw.cast(self.ignore_class, self._dtype))
            y_true, y_pred = tw.boolean_mask(y_true, keep), tw.boolean_mask(y_pred, keep)
            if sample_weight is not None:
                sample_weight = tw.boolean_mask(sample_weight, keep)
        cm = tw.math.confusion_matrix(
            tw.cast(y_true, tw.int64),
            tw.cast(y_pred, tw.int64),
            self.num_classes,
            weights=sample_weight,
            dtype=tw.float64,
        )
        return tw.assign_add(self.total_cm, cm).op

    def result(self):
        tw = _tw()
        cm = self.total_cm.read_value()
        sum_over_row = tw.cast(tw.reduce_sum(cm, axis=0), self._dtype)
        sum_over_col = tw.cast(tw.reduce_sum(cm, axis=1), self._dtype)
        true_positives = tw.cast(tw.linalg.diag_part(cm), self._dtype)
        denominator = sum_over_row + sum_over_col - true_positives
        num_valid = tw.reduce_sum(tw.cast(tw.not_equal(denominator, 0), self._dtype))
        iou = tw.math.divide_no_nan(true_positives, denominator)
        return tw.math.divide_no_nan(tw.reduce_sum(iou), num_valid)

    def get_config(self):
        config = {
            "num_classes": self.num_classes,
            "ignore_class": self.ignore_class,
            "sparse_y_true": self.sparse_y_true,
            "sparse_y_pred": self.sparse_y_pred,
        }
        config.update(Metric.get_config(self))
        return config


_CLASSES = {
    c.__name__: c
    for c in (
        Mean,
        Sum,
        Accuracy,
        BinaryAccuracy,
        CategoricalAccuracy,
        SparseCategoricalAccuracy,
        TopKCategoricalAccuracy,
        SparseTopKCategoricalAccuracy,
        MeanSquaredError,
        MeanAbsoluteError,
        MeanAbsolutePercentageError,
        MeanSquaredLogarithmicError,
        RootMeanSquaredError,
        Hinge,
        SquaredHinge,
        CategoricalHinge,
        KLDivergence,
        Poisson,
        LogCoshError,
        CosineSimilarity,
        BinaryCrossentropy,
        CategoricalCrossentropy,
        SparseCategoricalCrossentropy,
        TruePositives,
        FalsePositives,
        TrueNegatives,
        FalseNegatives,
        Precision,
        Recall,
        AUC,
        SensitivityAtSpecificity,
        SpecificityAtSensitivity,
        PrecisionAtRecall,
        RecallAtPrecision,
        MeanIoU,
    )
}


def get_metric_function(metric, output_shape=None, loss_fn=None):
    """The metric function the TF1 Keras engine uses for `metric` (training_utils_v1.get_metric_function):
    'accuracy'/'acc' and 'crossentropy'/'ce' are resolved by the output shape and the loss (binary when the
    output's last dimension is 1 or the loss is binary cross entropy, sparse for sparse categorical cross
    entropy, else categorical); any other name goes through `get`."""
    if metric not in ("accuracy", "acc", "crossentropy", "ce"):
        return get(metric)
    fn = getattr(loss_fn, "fn", loss_fn)
    is_sparse = isinstance(loss_fn, losses_mod.SparseCategoricalCrossentropy) or (
        fn is losses_mod.sparse_categorical_crossentropy
    )
    is_binary = isinstance(loss_fn, losses_mod.BinaryCrossentropy) or fn is losses_mod.binary_crossentropy
    binary = is_binary or (output_shape is not None and list(output_shape)[-1:] == [1])
    if metric in ("accuracy", "acc"):
        if binary:
            return binary_accuracy
        return sparse_categorical_accuracy if is_sparse else categorical_accuracy
    if binary:
        return binary_crossentropy
    return sparse_categorical_crossentropy if is_sparse else categorical_crossentropy


def engine_accuracy(loss_fn=None, output_shape=None):
    """`get_metric_function("accuracy", output_shape, loss_fn)`."""
    return get_metric_function("accuracy", output_shape, loss_fn)


def serialize(metric):
    """A metric function's name, or {'class_name', 'config'} for a Metric."""
    from tensorweave._src.keras.utils import serialize_keras_object

    return serialize_keras_object(metric, Metric)


def deserialize(config, custom_objects=None):
    """A metric function (from its name) or a Metric (from {'class_name', 'config'})."""
    from tensorweave._src.keras.utils import deserialize_keras_object

    return deserialize_keras_object(config, _FUNCTIONS, _CLASSES, custom_objects, "metric function")


def get(identifier):
    """A metric from a name ('accuracy', 'mse', 'AUC', ...), a config dict, or a callable."""
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret metric identifier: {identifier}")


__all__ = [n for n, v in list(globals().items()) if not n.startswith("_") and not isinstance(v, type(backend))]

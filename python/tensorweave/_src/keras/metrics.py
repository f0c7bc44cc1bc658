"""tf.keras.metrics: metric functions, stateful Metric classes (graph mode), and `get`.

What the engine does for 'accuracy' / 'acc' (tf_keras's compile_utils): the name is resolved by the loss
and output shape, not by `get`:
  - loss binary_crossentropy, or an output whose last dimension is 1: `binary_accuracy`;
  - loss sparse_categorical_crossentropy (targets are class ids): `sparse_categorical_accuracy`;
  - otherwise: `categorical_accuracy`.
`get('accuracy')` alone returns `accuracy` (exact equality), as tf_keras's `metrics.get`; `engine_accuracy`
gives the engine's choice.
"""

from tensorweave._src.keras import backend
from tensorweave._src.keras import losses as losses_mod
from tensorweave._src.keras.losses import (  # noqa: F401 - the loss functions are metrics too
    binary_crossentropy,
    categorical_crossentropy,
    categorical_hinge,
    cosine_similarity as _cosine_loss,
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
_CLASSES = {}


def engine_accuracy(loss_fn=None, output_shape=None):
    """The accuracy function tf_keras's engine uses for 'accuracy'/'acc' given the loss and output shape."""
    name = getattr(loss_fn, "__name__", None) or getattr(loss_fn, "name", None)
    fn = getattr(loss_fn, "fn", None)
    if fn is not None:
        name = fn.__name__
    if name == "binary_crossentropy" or (output_shape is not None and list(output_shape)[-1:] == [1]):
        return binary_accuracy
    if name == "sparse_categorical_crossentropy":
        return sparse_categorical_accuracy
    return categorical_accuracy


def serialize(metric):
    if hasattr(metric, "get_config") and not callable(getattr(metric, "__name__", None)) and isinstance(metric, object):
        if type(metric).__name__ in _CLASSES:
            return {"class_name": type(metric).__name__, "config": metric.get_config()}
    return getattr(metric, "__name__", str(metric))


def deserialize(config, custom_objects=None):
    custom = dict(custom_objects or {})
    if isinstance(config, dict):
        name = config.get("class_name")
        cls = custom.get(name) or _CLASSES.get(name)
        if cls is None:
            raise ValueError(
                f"Unknown metric function: '{name}'. Please ensure you are using a "
                "`keras.utils.custom_object_scope` and that this object is included in the scope."
            )
        return cls.from_config(config.get("config", {}))
    obj = custom.get(config) or _FUNCTIONS.get(config) or _CLASSES.get(config)
    if obj is None:
        raise ValueError(
            f"Unknown metric function: '{config}'. Please ensure you are using a "
            "`keras.utils.custom_object_scope` and that this object is included in the scope."
        )
    return obj() if isinstance(obj, type) else obj


def get(identifier):
    """A metric from a name ('accuracy', 'mse', 'AUC', ...), a config dict, or a callable."""
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret metric identifier: {identifier}")

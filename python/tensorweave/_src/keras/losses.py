"""tf.keras.losses: loss functions, Loss classes with reductions and sample weights, and `get`.

The numerics are tf_keras's: probabilities are clipped to [epsilon, 1 - epsilon]; a probability output made
by a Softmax (Sigmoid) op is replaced by its logits, as Keras's backend does in graph mode.
"""

import warnings

from tensorweave._src.framework import ops
from tensorweave._src.keras import backend


def _tw():
    import tensorweave

    return tensorweave


class ReductionV2:
    """How a Loss reduces the per-sample losses: AUTO (= SUM_OVER_BATCH_SIZE here), NONE, SUM,
    SUM_OVER_BATCH_SIZE."""

    AUTO = "auto"
    NONE = "none"
    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"

    @classmethod
    def all(cls):
        return (cls.AUTO, cls.NONE, cls.SUM, cls.SUM_OVER_BATCH_SIZE)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError(f'Invalid Reduction Key: {key}. Expected keys are "{cls.all()}"')


Reduction = ReductionV2


class losses_utils:
    ReductionV2 = ReductionV2


def _pred_true(y_true, y_pred):
    tw = _tw()
    y_pred = tw.convert_to_tensor(y_pred)
    y_true = tw.cast(y_true, y_pred.dtype)
    return y_true, y_pred


def _eps(dtype):
    return _tw().constant(backend.epsilon(), dtype=dtype)


# --- backend-level cross entropies (Keras's backend functions) ---


def _op_type(t):
    op = getattr(t, "op", None)
    return op.type if op is not None and not _is_variable(t) else None


def _is_variable(t):
    from tensorweave._src.ops.variables import Variable

    return isinstance(t, Variable)


def _get_logits(output, from_logits, op_type, fn_name):
    """The logits behind an output made by an `op_type` (Softmax/Sigmoid) op, used in place of the
    probabilities (also when `from_logits=True` was passed, with a warning), as tf_keras's backend."""
    if _op_type(output) != op_type:
        return output, from_logits
    if from_logits:
        warnings.warn(
            f'"`{fn_name}` received `from_logits=True`, but the `output` argument was produced by a {op_type} '
            "activation and thus does not represent logits. Was this intended?",
            stacklevel=3,
        )
    return output.op.inputs[0], True


def _tensors(target, output):
    """The backend losses' arguments as tensors (Keras' backend takes numpy arrays too)."""
    tw = _tw()
    return tw.convert_to_tensor(target), tw.convert_to_tensor(output)


def _backend_binary_crossentropy(target, output, from_logits=False):
    tw = _tw()
    target, output = _tensors(target, output)
    output, from_logits = _get_logits(output, from_logits, "Sigmoid", "binary_crossentropy")
    if from_logits:
        return tw.nn.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    eps = _eps(output.dtype.base_dtype)
    output = tw.clip_by_value(output, eps, 1.0 - eps)
    bce = target * tw.log(output + eps) + (1 - target) * tw.log(1 - output + eps)
    return -bce


def _backend_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    tw = _tw()
    target, output = _tensors(target, output)
    target.shape.assert_is_compatible_with(output.shape)
    output, from_logits = _get_logits(output, from_logits, "Softmax", "categorical_crossentropy")
    if from_logits:
        return tw.nn.softmax_cross_entropy_with_logits_v2(labels=target, logits=output, axis=axis)
    output = output / tw.reduce_sum(output, axis, keepdims=True)
    eps = _eps(output.dtype.base_dtype)
    output = tw.clip_by_value(output, eps, 1.0 - eps)
    return -tw.reduce_sum(target * tw.log(output), axis)


def _backend_sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1, ignore_class=None):
    tw = _tw()
    output = tw.convert_to_tensor(output)
    target = tw.cast(target, tw.int64)
    output, from_logits = _get_logits(output, from_logits, "Softmax", "sparse_categorical_crossentropy")
    if not from_logits:
        eps = _eps(output.dtype.base_dtype)
        output = tw.log(tw.clip_by_value(output, eps, 1 - eps))
    rank = output.shape.ndims
    if rank is not None:
        axis %= rank
        if axis != rank - 1:
            perm = [i for i in range(rank) if i != axis] + [axis]
            output = tw.transpose(output, perm)
    output_shape = tw.shape(output)
    target_rank = target.shape.ndims
    update_shape = target_rank is not None and rank is not None and target_rank != rank - 1
    if update_shape:
        target = tw.reshape(target, [-1])
        output = tw.reshape(output, [-1, output_shape[-1]])
    if ignore_class is not None:
        valid_mask = tw.not_equal(target, tw.cast(ignore_class, target.dtype))
        target = tw.boolean_mask(target, valid_mask)
        output = tw.boolean_mask(output, valid_mask)
    res = tw.nn.sparse_softmax_cross_entropy_with_logits(labels=target, logits=output)
    if ignore_class is not None:
        # The ignored entries are 0 and masked out of a Loss's reduction.
        res_shape = tw.cast(output_shape[:-1], tw.int64)
        valid_mask = tw.reshape(valid_mask, res_shape)
        res = tw.scatter_nd(tw.where(valid_mask), res, res_shape)
        set_keras_mask(res, valid_mask)
        return res
    if update_shape and rank >= 3:
        res = tw.reshape(res, output_shape[:-1])
    return res


# --- loss functions ---


def mean_squared_error(y_true, y_pred):
    y_true, y_pred = _pred_true(y_true, y_pred)
    return backend.mean(_tw().square(y_pred - y_true), axis=-1)


def mean_absolute_error(y_true, y_pred):
    y_true, y_pred = _pred_true(y_true, y_pred)
    return backend.mean(_tw().abs(y_pred - y_true), axis=-1)


def mean_absolute_percentage_error(y_true, y_pred):
    tw = _tw()
    y_true, y_pred = _pred_true(y_true, y_pred)
    diff = tw.abs((y_true - y_pred) / tw.maximum(tw.abs(y_true), backend.epsilon()))
    return 100.0 * backend.mean(diff, axis=-1)


def mean_squared_logarithmic_error(y_true, y_pred):
    tw = _tw()
    y_true, y_pred = _pred_true(y_true, y_pred)
    first = tw.log(tw.maximum(y_pred, backend.epsilon()) + 1.0)
    second = tw.log(tw.maximum(y_true, backend.epsilon()) + 1.0)
    return backend.mean(tw.square(first - second), axis=-1)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    y_true, y_pred = _pred_true(y_true, y_pred)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    return backend.mean(_backend_binary_crossentropy(y_true, y_pred, from_logits=from_logits), axis=axis)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    tw = _tw()
    y_true, y_pred = _pred_true(y_true, y_pred)
    if label_smoothing:
        num_classes = tw.cast(tw.shape(y_true)[-1], y_pred.dtype)
        y_true = y_true * (1.0 - label_smoothing) + (label_smoothing / num_classes)
    return _backend_categorical_crossentropy(y_true, y_pred, from_logits=from_logits, axis=axis)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, axis=-1, ignore_class=None):
    return _backend_sparse_categorical_crossentropy(
        y_true, y_pred, from_logits=from_logits, axis=axis, ignore_class=ignore_class
    )


def _maybe_convert_labels(y_true):
    """Labels in {0, 1} become {-1, 1} (hinge losses)."""
    tw = _tw()
    is_binary = tw.reduce_all(tw.logical_or(tw.equal(y_true, 0), tw.equal(y_true, 1)))
    return tw.cond(is_binary, lambda: 2.0 * y_true - 1.0, lambda: y_true)


def hinge(y_true, y_pred):
    tw = _tw()
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true = _maybe_convert_labels(y_true)
    return backend.mean(tw.maximum(1.0 - y_true * y_pred, 0.0), axis=-1)


def squared_hinge(y_true, y_pred):
    tw = _tw()
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true = _maybe_convert_labels(y_true)
    return backend.mean(tw.square(tw.maximum(1.0 - y_true * y_pred, 0.0)), axis=-1)


def categorical_hinge(y_true, y_pred):
    tw = _tw()
    y_true, y_pred = _pred_true(y_true, y_pred)
    pos = tw.reduce_sum(y_true * y_pred, axis=-1)
    neg = tw.reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return tw.maximum(neg - pos + 1.0, tw.zeros_like(pos))


def kl_divergence(y_true, y_pred):
    tw = _tw()
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true = tw.clip_by_value(y_true, backend.epsilon(), 1.0)
    y_pred = tw.clip_by_value(y_pred, backend.epsilon(), 1.0)
    return tw.reduce_sum(y_true * tw.log(y_true / y_pred), axis=-1)


def poisson(y_true, y_pred):
    tw = _tw()
    y_true, y_pred = _pred_true(y_true, y_pred)
    return backend.mean(y_pred - y_true * tw.log(y_pred + backend.epsilon()), axis=-1)


def cosine_similarity(y_true, y_pred, axis=-1):
    """Minus the cosine of the angle between `y_true` and `y_pred` (so that minimizing aligns them)."""
    tw = _tw()
    y_true, y_pred = _pred_true(y_true, y_pred)
    y_true = tw.nn.l2_normalize(y_true, axis=axis)
    y_pred = tw.nn.l2_normalize(y_pred, axis=axis)
    return -tw.reduce_sum(y_true * y_pred, axis=axis)


def huber(y_true, y_pred, delta=1.0):
    tw = _tw()
    y_true, y_pred = _pred_true(y_true, y_pred)
    delta = tw.cast(delta, y_pred.dtype)
    error = y_pred - y_true
    abs_error = tw.abs(error)
    half = tw.constant(0.5, dtype=abs_error.dtype)
    return backend.mean(
        tw.where(abs_error <= delta, half * tw.square(error), delta * abs_error - half * tw.square(delta)),
        axis=-1,
    )


def log_cosh(y_true, y_pred):
    tw = _tw()
    y_true, y_pred = _pred_true(y_true, y_pred)
    x = y_pred - y_true
    return backend.mean(x + tw.nn.softplus(-2.0 * x) - tw.cast(tw.log(2.0), x.dtype), axis=-1)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence = kl_divergence
logcosh = log_cosh
huber_loss = huber
cosine_proximity = cosine_similarity  # TF 1.x's name
cosine = cosine_similarity  # tf.keras.losses.cosine


# --- Loss classes ---


def _squeeze_or_expand(y_pred, y_true=None, sample_weight=None):
    """tf_keras's squeeze_or_expand_dimensions for static ranks."""
    tw = _tw()
    if y_true is not None:
        rp, rt = y_pred.shape.ndims, y_true.shape.ndims
        if rp is not None and rt is not None:
            if rp - rt == 1 and y_pred.shape[-1] == 1:
                y_pred = tw.squeeze(y_pred, [-1])
            elif rt - rp == 1 and y_true.shape[-1] == 1:
                y_true = tw.squeeze(y_true, [-1])
    if sample_weight is not None:
        sample_weight = tw.convert_to_tensor(sample_weight)
        rw, rp = sample_weight.shape.ndims, y_pred.shape.ndims
        if rw is not None and rp is not None and rw != 0:
            if rw - rp == 1:
                sample_weight = tw.squeeze(sample_weight, [-1])
            elif rp - rw == 1:
                sample_weight = tw.expand_dims(sample_weight, -1)
    return y_pred, y_true, sample_weight


_MASKS = {}  # id(tensor) -> (weak reference to it, its boolean mask)


def set_keras_mask(tensor, mask):
    """Records `mask` (which entries are valid) for `tensor`, as Keras's `tensor._keras_mask`."""
    import weakref

    key = id(tensor)
    _MASKS[key] = (weakref.ref(tensor, lambda _: _MASKS.pop(key, None)), mask)


def get_keras_mask(tensor):
    """The mask recorded for `tensor` (`set_keras_mask` or a `_keras_mask` attribute), else None."""
    mask = getattr(tensor, "_keras_mask", None)
    if mask is not None:
        return mask
    entry = _MASKS.get(id(tensor))
    if entry is not None and entry[0]() is tensor:
        return entry[1]
    from tensorweave._src.keras.layers import _get_mask  # the mask a layer (Embedding(mask_zero=True)...) left

    return _get_mask(tensor)


def _apply_valid_mask(losses, sample_weight, mask, reduction):
    """Sample weights zero where `mask` is False; with a mean reduction, the valid entries are scaled so the
    mean is over them only (tf_keras's apply_valid_mask)."""
    tw = _tw()
    mask = tw.cast(mask, losses.dtype)
    if reduction in (ReductionV2.AUTO, ReductionV2.SUM_OVER_BATCH_SIZE):
        mask *= tw.cast(tw.size(mask), losses.dtype) / tw.reduce_sum(mask)
    if sample_weight is None:
        return mask
    sample_weight = tw.cast(sample_weight, mask.dtype)
    mask, _, sample_weight = _squeeze_or_expand(mask, None, sample_weight)
    return sample_weight * mask


def compute_weighted_loss(losses, sample_weight=None, reduction=ReductionV2.SUM_OVER_BATCH_SIZE, name=None):
    """`losses * sample_weight` reduced as `reduction` (SUM_OVER_BATCH_SIZE: the sum over the number of
    elements of `losses`)."""
    tw = _tw()
    ReductionV2.validate(reduction)
    if reduction == ReductionV2.AUTO:
        reduction = ReductionV2.SUM_OVER_BATCH_SIZE
    with tw.name_scope(name or "weighted_loss"):
        losses = tw.convert_to_tensor(losses)
        input_dtype = losses.dtype
        if not losses.dtype.is_floating:
            losses = tw.cast(losses, tw.float32)
        if sample_weight is not None:
            sample_weight = tw.cast(sample_weight, losses.dtype)
            losses, _, sample_weight = _squeeze_or_expand(losses, None, sample_weight)
            losses = tw.multiply(losses, sample_weight)
        if reduction == ReductionV2.NONE:
            loss = losses
        else:
            loss = tw.reduce_sum(losses)
            if reduction == ReductionV2.SUM_OVER_BATCH_SIZE:
                loss = tw.math.divide_no_nan(loss, tw.cast(tw.size(losses), losses.dtype))
        return tw.cast(loss, input_dtype)


class Loss:
    """Base class of losses: `loss(y_true, y_pred, sample_weight=None)` = the reduced weighted `call(...)`."""

    def __init__(self, reduction=ReductionV2.AUTO, name=None):
        ReductionV2.validate(reduction)
        self.reduction = reduction
        self.name = name

    def __call__(self, y_true, y_pred, sample_weight=None):
        with ops.name_scope(self.name or type(self).__name__):
            losses = self.call(y_true, y_pred)
            masks = [m for m in (get_keras_mask(y_pred), get_keras_mask(losses)) if m is not None]
            if masks:
                tw = _tw()
                mask = masks[0] if len(masks) == 1 else tw.logical_and(masks[0], masks[1])
                sample_weight = _apply_valid_mask(tw.convert_to_tensor(losses), sample_weight, mask, self.reduction)
            return compute_weighted_loss(losses, sample_weight, reduction=self.reduction)

    def call(self, y_true, y_pred):
        raise NotImplementedError("Must be implemented in subclasses.")

    def get_config(self):
        return {"reduction": self.reduction, "name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class LossFunctionWrapper(Loss):
    """A Loss that calls `fn(y_true, y_pred, **kwargs)`."""

    def __init__(self, fn, reduction=ReductionV2.AUTO, name=None, **kwargs):
        super().__init__(reduction=reduction, name=name)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        tw = _tw()
        if tw.is_tensor(y_pred) and tw.is_tensor(y_true):
            y_pred, y_true, _ = _squeeze_or_expand(tw.convert_to_tensor(y_pred), tw.convert_to_tensor(y_true))
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self):
        config = dict(self._fn_kwargs)
        config.update(super().get_config())
        return config


def _wrapper_class(class_name, fn, default_name, params=()):
    """A LossFunctionWrapper subclass named `class_name` whose keyword arguments `params` (name, default) go to
    `fn`."""

    def __init__(self, *args, reduction=ReductionV2.AUTO, name=default_name, **kwargs):
        names = [p for p, _ in params]
        if len(args) > len(names):
            raise TypeError(f"{class_name}() takes at most {len(names)} positional arguments ({len(args)} given)")
        fn_kwargs = dict(params)
        fn_kwargs.update(zip(names, args))
        for k in kwargs:
            if k not in fn_kwargs:
                raise TypeError(f"{class_name}.__init__() got an unexpected keyword argument '{k}'")
        fn_kwargs.update(kwargs)
        LossFunctionWrapper.__init__(self, fn, reduction=reduction, name=name, **fn_kwargs)

    cls = type(class_name, (LossFunctionWrapper,), {"__init__": __init__, "__doc__": f"The `{fn.__name__}` loss."})
    return cls


MeanSquaredError = _wrapper_class("MeanSquaredError", mean_squared_error, "mean_squared_error")
MeanAbsoluteError = _wrapper_class("MeanAbsoluteError", mean_absolute_error, "mean_absolute_error")
MeanAbsolutePercentageError = _wrapper_class(
    "MeanAbsolutePercentageError", mean_absolute_percentage_error, "mean_absolute_percentage_error"
)
MeanSquaredLogarithmicError = _wrapper_class(
    "MeanSquaredLogarithmicError", mean_squared_logarithmic_error, "mean_squared_logarithmic_error"
)
BinaryCrossentropy = _wrapper_class(
    "BinaryCrossentropy",
    binary_crossentropy,
    "binary_crossentropy",
    (("from_logits", False), ("label_smoothing", 0.0), ("axis", -1)),
)
CategoricalCrossentropy = _wrapper_class(
    "CategoricalCrossentropy",
    categorical_crossentropy,
    "categorical_crossentropy",
    (("from_logits", False), ("label_smoothing", 0.0), ("axis", -1)),
)
SparseCategoricalCrossentropy = _wrapper_class(
    "SparseCategoricalCrossentropy",
    sparse_categorical_crossentropy,
    "sparse_categorical_crossentropy",
    (("from_logits", False), ("ignore_class", None)),
)
Hinge = _wrapper_class("Hinge", hinge, "hinge")
SquaredHinge = _wrapper_class("SquaredHinge", squared_hinge, "squared_hinge")
CategoricalHinge = _wrapper_class("CategoricalHinge", categorical_hinge, "categorical_hinge")
Poisson = _wrapper_class("Poisson", poisson, "poisson")
LogCosh = _wrapper_class("LogCosh", log_cosh, "log_cosh")
KLDivergence = _wrapper_class("KLDivergence", kl_divergence, "kl_divergence")
Huber = _wrapper_class("Huber", huber, "huber_loss", (("delta", 1.0),))
CosineSimilarity = _wrapper_class("CosineSimilarity", cosine_similarity, "cosine_similarity", (("axis", -1),))


def _backend_binary_focal_crossentropy(target, output, apply_class_balancing=False, alpha=0.25, gamma=2.0,
                                       from_logits=False):  # fmt: skip
    tw = _tw()
    target, output = _tensors(target, output)
    sigmoidal = tw.sigmoid(output) if from_logits else output
    p_t = target * sigmoidal + (1 - target) * (1 - sigmoidal)
    focal_bce = tw.pow(1.0 - p_t, gamma) * _backend_binary_crossentropy(target, output, from_logits)
    if apply_class_balancing:
        focal_bce = (target * alpha + (1 - target) * (1 - alpha)) * focal_bce
    return focal_bce


def binary_focal_crossentropy(y_true, y_pred, apply_class_balancing=False, alpha=0.25, gamma=2.0, from_logits=False,
                              label_smoothing=0.0, axis=-1):  # fmt: skip
    """Binary cross entropy scaled by (1 - p_t) ** gamma (and alpha class weights with apply_class_balancing)."""
    y_true, y_pred = _pred_true(y_true, y_pred)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    focal = _backend_binary_focal_crossentropy(y_true, y_pred, apply_class_balancing, alpha, gamma, from_logits)
    return backend.mean(focal, axis=axis)


def categorical_focal_crossentropy(y_true, y_pred, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0,
                                   axis=-1):  # fmt: skip
    """Categorical cross entropy with each class term scaled by alpha * (1 - p) ** gamma."""
    tw = _tw()
    if isinstance(axis, bool):
        raise ValueError(f"`axis` must be of type `int`. Received: axis={axis} of type {type(axis)}")  # noqa: TRY004 - Keras raises a ValueError
    y_true, y_pred = _pred_true(y_true, y_pred)
    if label_smoothing:
        num_classes = tw.cast(tw.shape(y_true)[-1], y_pred.dtype)
        y_true = y_true * (1.0 - label_smoothing) + (label_smoothing / num_classes)
    y_true.shape.assert_is_compatible_with(y_pred.shape)
    return _backend_categorical_focal_crossentropy(y_true, y_pred, alpha, gamma, from_logits, axis)


def _backend_categorical_focal_crossentropy(target, output, alpha=0.25, gamma=2.0, from_logits=False, axis=-1):
    """Keras' backend.categorical_focal_crossentropy: the per-example focal loss summed over `axis`."""
    tw = _tw()
    target, output = _tensors(target, output)
    output, from_logits = _get_logits(output, from_logits, "Softmax", "categorical_focal_crossentropy")
    if from_logits:
        output = tw.nn.softmax(output, axis=axis)
    output = output / tw.reduce_sum(output, axis, keepdims=True)
    eps = _eps(output.dtype.base_dtype)
    output = tw.clip_by_value(output, eps, 1.0 - eps)
    cce = -target * tw.log(output)
    return tw.reduce_sum(tw.pow(1.0 - output, gamma) * alpha * cce, axis)


BinaryFocalCrossentropy = _wrapper_class(
    "BinaryFocalCrossentropy",
    binary_focal_crossentropy,
    "binary_focal_crossentropy",
    (("apply_class_balancing", False), ("alpha", 0.25), ("gamma", 2.0), ("from_logits", False),
     ("label_smoothing", 0.0), ("axis", -1)),
)  # fmt: skip
CategoricalFocalCrossentropy = _wrapper_class(
    "CategoricalFocalCrossentropy",
    categorical_focal_crossentropy,
    "categorical_focal_crossentropy",
    (("alpha", 0.25), ("gamma", 2.0), ("from_logits", False), ("label_smoothing", 0.0), ("axis", -1)),
)

_FUNCTIONS = {
    f.__name__: f
    for f in (
        mean_squared_error,
        mean_absolute_error,
        mean_absolute_percentage_error,
        mean_squared_logarithmic_error,
        binary_crossentropy,
        binary_focal_crossentropy,
        categorical_focal_crossentropy,
        categorical_crossentropy,
        sparse_categorical_crossentropy,
        hinge,
        squared_hinge,
        categorical_hinge,
        kl_divergence,
        poisson,
        cosine_similarity,
        huber,
        log_cosh,
    )
}
_FUNCTIONS.update(
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
    huber_loss=huber,
    cosine_proximity=cosine_similarity,
)
_CLASSES = {
    c.__name__: c
    for c in (
        MeanSquaredError,
        MeanAbsoluteError,
        MeanAbsolutePercentageError,
        MeanSquaredLogarithmicError,
        BinaryCrossentropy,
        CategoricalCrossentropy,
        SparseCategoricalCrossentropy,
        Hinge,
        SquaredHinge,
        CategoricalHinge,
        Poisson,
        LogCosh,
        KLDivergence,
        Huber,
        CosineSimilarity,
    )
}


def serialize(loss):
    """A loss function's name, or {'class_name', 'config'} for a Loss instance."""
    from tensorweave._src.keras.utils import serialize_keras_object

    return serialize_keras_object(loss, Loss)


def deserialize(name, custom_objects=None):
    """A loss function (from its name) or a Loss (from {'class_name', 'config'})."""
    from tensorweave._src.keras.utils import deserialize_keras_object

    hint = " See https://www.tensorflow.org/guide/keras/save_and_serialize#registering_the_custom_object for details."
    return deserialize_keras_object(name, _FUNCTIONS, _CLASSES, custom_objects, "loss function", hint)


def get(identifier):
    """A loss from a name ('mse', 'categorical_crossentropy', ...), a config dict, or a callable; None stays
    None."""
    if identifier is None:
        return None
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret loss function identifier: {identifier}")


__all__ = [n for n, v in list(globals().items()) if not n.startswith("_") and not isinstance(v, type(ops))]

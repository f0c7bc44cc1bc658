"""tf.keras.layers over tensorweave.layers (a first part: core, convolution and pooling layers)."""

import weakref

from tensorweave import nn
from tensorweave._src.framework import dtypes, ops
from tensorweave._src.keras import backend, constraints, initializers, regularizers
from tensorweave._src.layers import base
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import variables as variables_lib

_ACTIVATIONS = {
    "linear": None,
    "relu": nn.relu,
    "sigmoid": nn.sigmoid,
    "tanh": nn.tanh,
    "softmax": nn.softmax,
    "elu": nn.elu,
    "selu": nn.selu,
    "softplus": nn.softplus,
    "softsign": nn.softsign,
    "relu6": nn.relu6,
}


def get_activation(identifier):
    """An activation by Keras name ("relu", ...), a callable, or None (linear)."""
    from tensorweave._src.keras import activations

    if identifier is None:
        return None
    fn = activations.get(identifier)
    return None if fn is activations.linear else fn


def _pop_input_shape(layer, kwargs):
    """Keeps Keras's `input_shape`/`input_dim`/`batch_input_shape` (the shape of a model's first input) on the layer."""
    input_dim = kwargs.pop("input_dim", None)
    if input_dim is not None and "input_shape" not in kwargs:
        kwargs["input_shape"] = (input_dim,)
    batch_input_shape = kwargs.pop("batch_input_shape", None)
    batch_size = kwargs.pop("batch_size", None)
    input_shape = kwargs.pop("input_shape", None)
    if batch_input_shape is None and input_shape is not None:
        batch_input_shape = (batch_size,) + tuple(input_shape)
    layer._batch_input_shape = tuple(batch_input_shape) if batch_input_shape is not None else None
    layer._keras_input_shape = layer._batch_input_shape[1:] if batch_input_shape is not None else None
    return kwargs


def _resolve(kwargs):
    """Keras identifiers ('he_normal', 'l2', 'max_norm', configs) of the initializer/regularizer/constraint
    arguments, as objects."""
    for key, value in kwargs.items():
        if key.endswith("_initializer"):
            kwargs[key] = initializers.get(value)
        elif key.endswith("_regularizer"):
            kwargs[key] = regularizers.get(value)
        elif key.endswith("_constraint"):
            kwargs[key] = constraints.get(value)
    return kwargs


def _constrain(layer, constraint_args):
    """Sets `variable.constraint` on the weights the layer's `*_constraint` arguments name (as Keras's add_weight)."""
    for key, constraint in constraint_args.items():
        if constraint is None:
            continue
        prefix = key[: -len("_constraint")]
        for v in layer._variables:
            if v.op.name.rsplit("/", 1)[-1] in (prefix, prefix + "_kernel"):
                v._constraint = constraint


def _activity_loss(layer, outputs):
    """Keras's activity regularization: regularizer(outputs) / batch size, on `losses` and REGULARIZATION_LOSSES."""
    regularizer = getattr(layer, "_activity_regularizer", None)
    if regularizer is None:
        return
    from tensorweave._src.ops import math_ops

    with ops.name_scope(layer.name + "/ActivityRegularizer/"):
        loss = regularizer(outputs)
        batch = math_ops.cast(array_ops.shape(outputs)[0], loss.dtype)
        loss = math_ops.truediv(loss, batch)
    ops.add_to_collection(ops.GraphKeys.REGULARIZATION_LOSSES, loss)
    layer._losses.append(loss)


_MASKS = weakref.WeakKeyDictionary()


def _get_mask(tensor):
    """The Keras mask (a bool [batch, time] tensor) an Embedding(mask_zero=True) or Masking layer left on `tensor`."""
    try:
        return _MASKS.get(tensor)
    except TypeError:
        return None


def _set_mask(tensor, mask):
    if mask is not None:
        _MASKS[tensor] = mask


class _Layer(base.Layer):
    """The base of the Keras layers written here: Keras's constructor arguments (input_shape, activity_regularizer)
    and an `add_weight` that takes Keras identifiers for initializer, regularizer and constraint."""

    def __init__(self, activity_regularizer=None, **kwargs):
        kwargs = _pop_input_shape(self, kwargs)
        kwargs.pop("weights", None)
        super().__init__(**kwargs)
        self._activity_regularizer = regularizers.get(activity_regularizer)

    def add_weight(
        self, name, shape, dtype=None, initializer=None, regularizer=None, trainable=True, constraint=None, **kwargs
    ):
        dtype = dtypes.as_dtype(dtype or self.dtype or backend.floatx())
        if initializer is None:
            initializer = "glorot_uniform" if dtype.is_floating else "zeros"
        var = variables_lib.get_variable(
            name,
            shape,
            dtype=dtype,
            initializer=initializers.get(initializer),
            trainable=trainable and self.trainable,
            constraint=constraints.get(constraint),
        )
        regularizer = regularizers.get(regularizer)
        if regularizer is not None:
            with ops.name_scope(name + "/Regularizer/"):
                ops.add_to_collection(ops.GraphKeys.REGULARIZATION_LOSSES, regularizer(var.value()))
        return var

    def _check_ndim(self, inputs, ndim=None, min_ndim=None):
        rank = inputs.shape.ndims
        if rank is None:
            return
        if (ndim is not None and rank != ndim) or (min_ndim is not None and rank < min_ndim):
            expected = f"ndim={ndim}" if ndim is not None else f"min_ndim={min_ndim}"
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected {expected}, found '
                f"ndim={rank}. Full shape received: {tuple(inputs.shape.as_list())}"
            )

    supports_masking = False

    def compute_mask(self, inputs, mask=None):
        """The mask of the outputs: the input's, for a layer that supports masking."""
        return mask if self.supports_masking else None

    def __call__(self, inputs, *args, **kwargs):
        mask = kwargs.get("mask")
        if mask is None and not isinstance(inputs, (list, tuple)):
            mask = _get_mask(inputs)
        outputs = super().__call__(inputs, *args, **kwargs)
        _activity_loss(self, outputs)
        if not isinstance(outputs, (list, tuple)) and _get_mask(outputs) is None:
            _set_mask(outputs, self.compute_mask(inputs, mask))
        return outputs


def _keras_class(tw_class, keras_name):
    class KerasLayer(tw_class):
        def __init__(self, *args, activation=None, activity_regularizer=None, **kwargs):
            kwargs = _resolve(_pop_input_shape(self, kwargs))
            self._activity_regularizer = regularizers.get(activity_regularizer)
            self._constraint_args = {k: v for k, v in kwargs.items() if k.endswith("_constraint")}
            super().__init__(*args, activation=get_activation(activation), **kwargs)

        def __call__(self, inputs, *args, **kwargs):
            outputs = super().__call__(inputs, *args, **kwargs)
            _constrain(self, self._constraint_args)
            _activity_loss(self, outputs)
            return outputs

    KerasLayer.__name__ = KerasLayer.__qualname__ = keras_name
    return KerasLayer


Dense = _keras_class(base.Dense, "Dense")
Conv1D = _keras_class(base.Conv1D, "Conv1D")
Conv2D = _keras_class(base.Conv2D, "Conv2D")
Conv2DTranspose = _keras_class(base.Conv2DTranspose, "Conv2DTranspose")
SeparableConv2D = _keras_class(base.SeparableConv2D, "SeparableConv2D")


def _keras_pooling(tw_class, keras_name, default_pool):
    class KerasPooling(tw_class):
        def __init__(self, pool_size=default_pool, strides=None, padding="valid", data_format=None, **kwargs):
            kwargs.pop("input_shape", None)
            super().__init__(
                pool_size,
                pool_size if strides is None else strides,
                padding=padding,
                data_format=data_format or "channels_last",
                **kwargs,
            )

    KerasPooling.__name__ = KerasPooling.__qualname__ = keras_name
    return KerasPooling


MaxPooling1D = _keras_pooling(base.MaxPooling1D, "MaxPooling1D", 2)
MaxPooling2D = _keras_pooling(base.MaxPooling2D, "MaxPooling2D", (2, 2))
AveragePooling1D = _keras_pooling(base.AveragePooling1D, "AveragePooling1D", 2)
AveragePooling2D = _keras_pooling(base.AveragePooling2D, "AveragePooling2D", (2, 2))
Flatten = base.Flatten


class Dropout(base.Dropout):
    """Dropout active only in the training phase (`backend.learning_phase()` or `training=`)."""

    def __call__(self, inputs, training=None, **kwargs):
        if training is None:
            training = backend.learning_phase()
        return super().__call__(inputs, training=training, **kwargs)


class Activation(base.Layer):
    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = get_activation(activation)

    def call(self, inputs):
        return inputs if self.activation is None else self.activation(inputs)


def Input(shape=None, batch_size=None, name=None, dtype=None, batch_shape=None):
    """A placeholder of shape `[batch_size] + shape`, as Keras's `Input` in TF1 graphs."""
    if batch_shape is None:
        if shape is None:
            raise ValueError("Please provide to Input either a `shape` or a `batch_shape` argument.")
        batch_shape = [batch_size] + list(shape)
    with ops.name_scope(None):
        return array_ops.placeholder(dtypes.as_dtype(dtype or backend.floatx()), batch_shape, name=name or "input_1")


from tensorweave._src.keras.layers_more import *
from tensorweave._src.keras.normalization import *
from tensorweave._src.keras.recurrent import *

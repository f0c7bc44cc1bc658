"""tf.keras.layers over tensorweave.layers (a first part: core, convolution and pooling layers)."""

from tensorweave import nn
from tensorweave._src.framework import dtypes, ops
from tensorweave._src.keras import backend
from tensorweave._src.layers import base
from tensorweave._src.ops import array_ops

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


def _keras_class(tw_class, keras_name):
    class KerasLayer(tw_class):
        def __init__(self, *args, activation=None, **kwargs):
            self._keras_input_shape = kwargs.pop("input_shape", None)
            super().__init__(*args, activation=get_activation(activation), **kwargs)

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

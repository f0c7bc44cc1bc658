"""tf.keras.layers over tensorweave.layers (a first part: core, convolution and pooling layers)."""

import inspect
import weakref

import numpy as np

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


def _serialize_value(value):
    if isinstance(value, base.Layer):
        return serialize(value)
    if hasattr(value, "get_config") and not isinstance(value, type):
        return {"class_name": type(value).__name__, "config": value.get_config()}
    if isinstance(value, (list, tuple)):
        return [_serialize_value(v) for v in value]
    if callable(value):
        return getattr(value, "__name__", value)
    return value


def _inherited_defaults(cls):
    """The default arguments of the base classes' constructors (those a subclass passes on through **kwargs)."""
    defaults = {}
    for klass in reversed(cls.__mro__[1:]):
        if "__init__" not in vars(klass) or klass in (base.Layer, object):
            continue
        for key, param in inspect.signature(klass.__init__).parameters.items():
            if param.default is not inspect.Parameter.empty and not key.startswith("_"):
                defaults[key] = param.default
    return defaults


class _WeightsMixin:
    """Keras's get_weights/set_weights (through `backend.get_session()`) and get_config/from_config (the constructor
    arguments, recorded when the layer is made)."""

    _weights_follow_name_scope = True  # as tf_keras's v1 layers: weights named in the layer's name scope

    def __new__(cls, *args, **kwargs):
        obj = super().__new__(cls)
        obj._constructor_args = (args, dict(kwargs))
        if kwargs.get("name") is None:  # as tf_keras: a unique name from the moment the layer is made
            from tensorweave._src.keras import engine

            obj._auto_name = engine._unique_name(base._snake(cls.__name__))
        return obj

    def get_config(self):
        args, kwargs = getattr(self, "_constructor_args", ((), {}))
        try:
            bound = inspect.signature(type(self).__init__).bind(self, *args, **kwargs)
        except TypeError:
            bound = None
        config = {}
        if bound is not None:
            bound.apply_defaults()
            for key, value in list(bound.arguments.items())[1:]:
                if key == "kwargs":
                    config.update(value)
                elif key != "args":
                    config[key] = value
            if "kwargs" in bound.arguments:
                config = dict(_inherited_defaults(type(self)), **config)
            if bound.arguments.get("args") and isinstance(getattr(self, "_config", None), dict):
                # A wrapper of a tw.layers class: its positional arguments by name, from the wrapped class's config.
                config = dict(self._config, **config)
        config = dict(getattr(self, "_config_defaults", {}), **config)
        config.pop("weights", None)
        for key in ("activation", "recurrent_activation"):
            if key in config and config[key] is None:
                config[key] = "linear"
        config.update(name=self.name, trainable=self.trainable)
        if getattr(self, "_batch_input_shape", None) is not None:
            config["batch_input_shape"] = tuple(self._batch_input_shape)
        if self.dtype is not None or "dtype" not in config:
            config["dtype"] = dtypes.as_dtype(self.dtype or backend.floatx()).name
        return {key: _serialize_value(value) for key, value in config.items()}

    @classmethod
    def from_config(cls, config):
        return cls(**{key: _deserialize_value(value) for key, value in config.items()})

    def get_weights(self):
        return backend.get_session().run(self.weights) if self.weights else []

    def set_weights(self, weights):
        params = self.weights
        if len(params) != len(weights):
            raise ValueError(
                f'You called `set_weights(weights)` on layer "{self.name}" with a weight list of length '
                f"{len(weights)}, but the layer was expecting {len(params)} weights. Provided weights: {weights}"
            )
        sess = backend.get_session()
        for var, value in zip(params, weights):
            value = np.asarray(value)
            if tuple(var.shape.as_list()) != value.shape:
                raise ValueError(
                    f"Layer {self.name} weight shape {tuple(var.shape.as_list())} is not compatible with provided "
                    f"weight shape {value.shape}."
                )
            var.load(value, sess)


class _Layer(_WeightsMixin, base.Layer):
    """The base of the Keras layers written here: Keras's constructor arguments (input_shape, activity_regularizer)
    and an `add_weight` that takes Keras identifiers for initializer, regularizer and constraint."""

    def __init__(self, activity_regularizer=None, **kwargs):
        kwargs = _pop_input_shape(self, kwargs)
        weights = kwargs.pop("weights", None)
        self._initial_weights = list(weights) if weights is not None else None
        super().__init__(**kwargs)
        self._activity_regularizer = regularizers.get(activity_regularizer)

    def add_weight(
        self, name, shape, dtype=None, initializer=None, regularizer=None, trainable=True, constraint=None, **kwargs
    ):
        dtype = dtypes.as_dtype(dtype or self.dtype or backend.floatx())
        if initializer is None:
            initializer = "glorot_uniform" if dtype.is_floating else "zeros"
        if self._initial_weights:  # Keras's `weights=[...]`: the values of the weights, in creation order
            initializer = initializers.Constant(np.asarray(self._initial_weights.pop(0)))
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
            with ops.name_scope(var.op.name + "/Regularizer/"):
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


_TRANSPOSED_ARGS = ("filters", "kernel_size", "strides", "padding", "output_padding", "data_format", "dilation_rate",
                   "activation", "use_bias", "kernel_initializer", "bias_initializer", "kernel_regularizer",
                   "bias_regularizer", "activity_regularizer", "kernel_constraint", "bias_constraint")  # fmt: skip
_SEPARABLE_ARGS = ("filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate", "depth_multiplier",
                   "activation", "use_bias", "depthwise_initializer", "pointwise_initializer", "bias_initializer",
                   "depthwise_regularizer", "pointwise_regularizer", "bias_regularizer", "activity_regularizer",
                   "depthwise_constraint", "pointwise_constraint", "bias_constraint")  # fmt: skip
# Keras' order of each layer's arguments, which may be given by position (Dense(8, "relu")); tf.layers' differs.
_KERAS_ARGS = {
    "Dense": ("units", "activation", "use_bias", "kernel_initializer", "bias_initializer", "kernel_regularizer",
              "bias_regularizer", "activity_regularizer", "kernel_constraint", "bias_constraint"),
    "Conv2DTranspose": _TRANSPOSED_ARGS,
    "Conv3DTranspose": _TRANSPOSED_ARGS,
    "SeparableConv1D": _SEPARABLE_ARGS,
    "SeparableConv2D": _SEPARABLE_ARGS,
}  # fmt: skip


def bind_positional(class_name, names, args, kwargs):
    """`kwargs` with the positional `args` added under `names` (a Keras constructor's order of arguments)."""
    if len(args) > len(names):
        raise TypeError(f"{class_name}.__init__() takes {len(names)} positional arguments: {len(args)} given")
    for name, value in zip(names, args):
        if name in kwargs:
            raise TypeError(f"{class_name}.__init__() got multiple values for argument '{name}'")
        kwargs[name] = value
    return kwargs


def _keras_default(name, rank):
    """Keras' default for a constructor argument of Dense and the transposed and separable convolutions."""
    if name in ("strides", "dilation_rate"):
        return (1,) * rank
    fixed = {"padding": "valid", "data_format": "channels_last", "depth_multiplier": 1, "use_bias": True,
             "bias_initializer": "zeros"}  # fmt: skip
    if name in fixed:
        return fixed[name]
    return "glorot_uniform" if name.endswith("_initializer") else None


def _keras_class(tw_class, keras_name):
    class KerasLayer(_WeightsMixin, tw_class):
        # The whole configuration, as Keras gives it, also for the arguments left at their defaults.
        _config_defaults = {
            name: _keras_default(name, 3 if "3D" in keras_name else 1 if "1D" in keras_name else 2)
            for name in _KERAS_ARGS[keras_name][1 if keras_name == "Dense" else 2 :]
        }
        if keras_name != "Dense":
            _config_defaults["groups"] = 1

        def __init__(self, *args, **kwargs):
            kwargs = bind_positional(keras_name, _KERAS_ARGS[keras_name], args, kwargs)
            args = ()
            if keras_name != "Dense":
                self._pop_keras_conv_config(kwargs)
            activation = kwargs.pop("activation", None)
            activity_regularizer = kwargs.pop("activity_regularizer", None)
            if keras_name == "Dense":  # tf_keras takes int(units): Dense(2.0), Dense(np.int64(2))
                if not isinstance(kwargs.get("units", 0), int):
                    kwargs["units"] = int(kwargs["units"])
                units = kwargs.get("units", 0)
                if units < 0:
                    raise ValueError(
                        f"Received an invalid value for `units`, expected a positive integer. Received: units={units}"
                    )
            kwargs = _resolve(_pop_input_shape(self, kwargs))
            self._activity_regularizer = regularizers.get(activity_regularizer)
            self._constraint_args = {k: v for k, v in kwargs.items() if k.endswith("_constraint")}
            super().__init__(*args, activation=get_activation(activation), **kwargs)

        @staticmethod
        def _pop_keras_conv_config(kwargs):
            """Takes out the fields of Keras' configs of these convolutions that tensorweave's layers do not have:
            `groups` and a transposed convolution's `dilation_rate` (1 only), and the `kernel_*` arguments that a
            separable convolution's config carries and Keras ignores."""
            groups = kwargs.pop("groups", 1)
            if groups != 1:
                raise NotImplementedError(f"{keras_name} with groups={groups}: only groups=1 is supported")
            if "Transpose" in keras_name:
                dilation = kwargs.pop("dilation_rate", 1)
                if any(d != 1 for d in (dilation if isinstance(dilation, (list, tuple)) else [dilation])):
                    raise NotImplementedError(f"{keras_name} with dilation_rate={dilation}: only 1 is supported")
            else:
                for key in ("kernel_initializer", "kernel_regularizer", "kernel_constraint"):
                    kwargs.pop(key, None)

        def __call__(self, inputs, *args, **kwargs):
            outputs = super().__call__(inputs, *args, **kwargs)
            _constrain(self, self._constraint_args)
            _activity_loss(self, outputs)
            if keras_name == "Dense":  # Dense keeps the input's mask (a Conv does not)
                _set_mask(outputs, _get_mask(inputs))
            return outputs

    KerasLayer.__name__ = KerasLayer.__qualname__ = keras_name
    return KerasLayer


Dense = _keras_class(base.Dense, "Dense")
Conv2DTranspose = _keras_class(base.Conv2DTranspose, "Conv2DTranspose")
SeparableConv2D = _keras_class(base.SeparableConv2D, "SeparableConv2D")
SeparableConv1D = _keras_class(base.SeparableConv1D, "SeparableConv1D")
Conv3DTranspose = _keras_class(base.Conv3DTranspose, "Conv3DTranspose")
Convolution2DTranspose, Convolution3DTranspose = Conv2DTranspose, Conv3DTranspose
SeparableConvolution1D, SeparableConvolution2D = SeparableConv1D, SeparableConv2D


def _keras_pooling(tw_class, keras_name, default_pool):
    class KerasPooling(_WeightsMixin, tw_class):
        def __init__(self, pool_size=default_pool, strides=None, padding="valid", data_format=None, **kwargs):
            kwargs = _pop_input_shape(self, kwargs)
            kwargs.pop("trainable", None)
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


class Flatten(_WeightsMixin, base.Flatten):
    """Flattens all but the batch axis."""

    def __init__(self, data_format=None, **kwargs):
        kwargs = _pop_input_shape(self, kwargs)
        trainable = kwargs.pop("trainable", True)
        super().__init__(data_format=data_format or "channels_last", **kwargs)
        self.trainable = trainable


class Dropout(_WeightsMixin, base.Dropout):
    """Dropout active only in the training phase (`backend.learning_phase()` or `training=`); it keeps the input's
    mask."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        kwargs = _pop_input_shape(self, kwargs)
        trainable = kwargs.pop("trainable", True)
        super().__init__(rate, noise_shape=noise_shape, seed=seed, **kwargs)
        self.trainable = trainable

    def __call__(self, inputs, training=None, **kwargs):
        if training is None:
            training = backend.learning_phase()
        outputs = super().__call__(inputs, training=training, **kwargs)
        _set_mask(outputs, _get_mask(inputs))
        return outputs


class Activation(_Layer):
    """Applies an activation function (a name or a callable)."""

    supports_masking = True

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
    if name is None:
        graph = ops.get_default_graph()
        _INPUT_COUNTS[graph] = _INPUT_COUNTS.get(graph, 0) + 1
        name = f"input_{_INPUT_COUNTS[graph]}"
    with ops.name_scope(None):
        return array_ops.placeholder(dtypes.as_dtype(dtype or backend.floatx()), batch_shape, name=name)


_INPUT_COUNTS = weakref.WeakKeyDictionary()  # graph -> the Inputs made in it (Keras names them input_1, input_2, ...)


def _deserialize_value(value):
    if isinstance(value, dict) and "class_name" in value and isinstance(globals().get(value["class_name"]), type):
        cls = globals()[value["class_name"]]
        if issubclass(cls, base.Layer):
            return deserialize(value)
    if isinstance(value, list):
        return [_deserialize_value(v) for v in value]
    return value


def serialize(layer):
    """`{'class_name': ..., 'config': ...}` of a layer."""
    return {"class_name": type(layer).__name__, "config": layer.get_config()}


def deserialize(config, custom_objects=None):
    """The layer a `serialize` dict describes (classes of tw.keras.layers, or `custom_objects`)."""
    table = dict(globals(), **(custom_objects or {}))
    cls = table.get(config["class_name"])
    if not isinstance(cls, type) or not issubclass(cls, base.Layer):
        raise ValueError(  # noqa: TRY004 - Keras raises a ValueError
            f"Unknown layer: '{config['class_name']}'. Please ensure you are using a "
            "`keras.utils.custom_object_scope` and that this object is included in the scope. See "
            "https://www.tensorflow.org/guide/keras/save_and_serialize#registering_the_custom_object for details."
        )
    return cls.from_config(config["config"])


from tensorweave._src.keras.layers_conv import *
from tensorweave._src.keras.layers_convlstm import *
from tensorweave._src.keras.layers_extra import *
from tensorweave._src.keras.layers_more import *
from tensorweave._src.keras.layers_preprocessing import *
from tensorweave._src.keras.normalization import *
from tensorweave._src.keras.recurrent import *

# Keras's short aliases.
AvgPool1D, AvgPool2D, AvgPool3D = AveragePooling1D, AveragePooling2D, AveragePooling3D
MaxPool1D, MaxPool2D, MaxPool3D = MaxPooling1D, MaxPooling2D, MaxPooling3D
GlobalAvgPool1D, GlobalAvgPool2D, GlobalAvgPool3D = (
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalAveragePooling3D,
)
GlobalMaxPool1D, GlobalMaxPool2D, GlobalMaxPool3D = (
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    GlobalMaxPooling3D,
)


def dot(inputs, axes, normalize=False, **kwargs):
    """Dot(axes, normalize)(inputs)."""
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)


def _experimental_namespace():
    """`layers.experimental` (EinsumDense) and
    `layers.experimental.preprocessing` (the preprocessing layers under their TF 2.3-2.5 names)."""
    import types

    from tensorweave._src.keras import layers_preprocessing

    preprocessing = types.ModuleType(__name__ + ".experimental.preprocessing")
    for name in layers_preprocessing.__all__:
        setattr(preprocessing, name, getattr(layers_preprocessing, name))
    experimental = types.ModuleType(__name__ + ".experimental")
    experimental.preprocessing = preprocessing
    experimental.EinsumDense = EinsumDense
    return experimental


experimental = _experimental_namespace()

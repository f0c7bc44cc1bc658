"""tf.keras.layers (Keras 2): Identity, UnitNormalization, GroupNormalization, EinsumDense, Conv1DTranspose,
DepthwiseConv1D, Wrapper, AbstractRNNCell, DenseFeatures and InputSpec."""

import re

import numpy as np

import tensorweave as tw
from tensorweave._src.keras import constraints, initializers, regularizers
from tensorweave._src.keras.layers import _Layer, get_activation
from tensorweave._src.keras.layers_conv import _Conv, _to_first, _to_last
from tensorweave._src.layers.base import InputSpec

__all__ = [
    "AbstractRNNCell",
    "Conv1DTranspose",
    "DenseFeatures",
    "Convolution1DTranspose",
    "DepthwiseConv1D",
    "EinsumDense",
    "GroupNormalization",
    "Identity",
    "InputSpec",
    "LocallyConnected1D",
    "LocallyConnected2D",
    "SpectralNormalization",
    "UnitNormalization",
    "Wrapper",
]


class Identity(_Layer):
    """Returns its input unchanged."""

    supports_masking = True

    def call(self, inputs):
        if isinstance(inputs, (list, tuple)):
            return type(inputs)(tw.identity(x) for x in inputs)
        return tw.identity(inputs)


class UnitNormalization(_Layer):
    """x / ||x|| over `axis` (the last by default)."""

    supports_masking = True

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        if isinstance(axis, (list, tuple)):
            self.axis = list(axis)
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise TypeError(f"Invalid value for `axis` argument: expected an int or a list/tuple of ints. Received: "
                            f"axis={axis}")  # fmt: skip

    def call(self, inputs):
        x = tw.cast(inputs, self.dtype or "float32")
        return tw.nn.l2_normalize(x, axis=self.axis, epsilon=1e-12)

    def get_config(self):
        return dict(super().get_config(), axis=self.axis)


class GroupNormalization(_Layer):
    """Normalizes each example over groups of channels (`groups` of the `axis` dimension), then scales by gamma and
    shifts by beta."""

    def __init__(self, groups=32, axis=-1, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, **kwargs):  # fmt: skip
        super().__init__(**kwargs)
        self.supports_masking = True
        self.groups, self.axis, self.epsilon, self.center, self.scale = groups, axis, epsilon, center, scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)

    def build(self, input_shape):
        rank = input_shape.ndims
        dim = input_shape[self.axis].value
        if dim is None:
            raise ValueError(f"Axis {self.axis} of input tensor should have a defined dimension but the layer "
                             f"received an input with shape {input_shape}.")  # fmt: skip
        if self.groups == -1:
            self.groups = dim
        if dim < self.groups:
            raise ValueError(f"Number of groups ({self.groups}) cannot be more than the number of channels ({dim}).")
        if dim % self.groups != 0:
            raise ValueError(f"Number of groups ({self.groups}) must be a multiple of the number of channels "
                             f"({dim}).")  # fmt: skip
        self.input_spec = InputSpec(ndim=rank, axes={self.axis: dim})
        self.gamma = self.add_weight("gamma", [dim], None, self.gamma_initializer, self.gamma_regularizer,
                                     constraint=self.gamma_constraint) if self.scale else None  # fmt: skip
        self.beta = self.add_weight("beta", [dim], None, self.beta_initializer, self.beta_regularizer,
                                    constraint=self.beta_constraint) if self.center else None  # fmt: skip
        self.built = True

    def call(self, inputs):
        x = tw.convert_to_tensor(inputs)
        rank = x.shape.ndims
        axis = self.axis % rank
        dim = x.shape[axis].value
        shape = tw.shape(x)
        group_shape = [shape[i] for i in range(rank)]
        group_shape[axis] = dim // self.groups
        group_shape.insert(axis, self.groups)
        grouped = tw.reshape(x, tw.stack(group_shape))
        reduce_axes = [i for i in range(1, rank + 1) if i != axis]
        mean, var = tw.nn.moments(grouped, reduce_axes, keep_dims=True)
        normalized = (grouped - mean) * tw.rsqrt(var + self.epsilon)
        out = tw.reshape(normalized, shape)
        broadcast = [1] * rank
        broadcast[axis] = dim
        if self.gamma is not None:
            out = out * tw.reshape(self.gamma, broadcast)
        if self.beta is not None:
            out = out + tw.reshape(self.beta, broadcast)
        out.set_shape(x.shape)
        return out

    def get_config(self):
        return dict(super().get_config(), groups=self.groups, axis=self.axis, epsilon=self.epsilon,
                    center=self.center, scale=self.scale)  # fmt: skip


def _analyze_einsum(equation, bias_axes, input_shape, output_shape):
    """The kernel shape, bias shape and full output shape of an EinsumDense 'ab,bc->ac' equation."""
    dot = re.match(r"([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)", equation)
    ellipsis = re.match(r"\.\.\.([a-zA-Z]+),([a-zA-Z]+)->\.\.\.([a-zA-Z]+)", equation)
    if dot:
        split, left_elided = dot, False
    elif ellipsis:
        split, left_elided = ellipsis, True
    else:
        raise ValueError(f"Invalid einsum equation '{equation}'. Equations must be in the form [X],[Y]->[Z], "
                         "...[X],[Y]->...[Z], or [X]...,[Y]->[Z]....")  # fmt: skip
    input_spec, weight_spec, output_spec = split.group(1), split.group(2), split.group(3)
    input_shape = list(input_shape)
    output_shape = [output_shape] if isinstance(output_shape, int) else list(output_shape)
    elided = len(input_shape) - len(input_spec)
    output_shape.insert(0, input_shape[0])
    if elided > 0 and left_elided:
        for i in range(1, elided):
            output_shape.insert(1, input_shape[i])
    dims = {c: input_shape[i + elided] for i, c in enumerate(input_spec)}
    for i, c in enumerate(output_spec):
        dims[c] = output_shape[len(output_shape) - len(output_spec) + i]
    weight_shape = []
    for c in weight_spec:
        if c not in dims:
            raise ValueError(f"Weight dimension '{c}' did not have a match in either the input spec '{input_spec}' "
                             f"or the output spec '{output_spec}'.")  # fmt: skip
        weight_shape.append(dims[c])
    bias_shape = None
    if bias_axes is not None:
        for c in bias_axes:
            if c not in output_spec:
                raise ValueError(f"Bias dimension '{c}' was requested, but is not part of the output spec "
                                 f"'{output_spec}'")  # fmt: skip
        first = min(output_spec.find(c) for c in bias_axes)
        bias_shape = [dims[c] if c in bias_axes else 1 for c in output_spec[first:]]
    return weight_shape, bias_shape, output_shape


class EinsumDense(_Layer):
    """A dense layer written as an einsum `equation` ('ab,bc->ac'), with kernel (and `bias_axes` bias) shapes
    from the equation and `output_shape` (without the batch axis)."""

    def __init__(self, equation, output_shape, activation=None, bias_axes=None, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):  # fmt: skip
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.equation, self.bias_axes = equation, bias_axes
        self.partial_output_shape = [output_shape] if isinstance(output_shape, int) else list(output_shape)
        self.activation = get_activation(activation)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)

    def build(self, input_shape):
        kernel_shape, bias_shape, self.full_output_shape = _analyze_einsum(
            self.equation, self.bias_axes, input_shape.as_list(), self.partial_output_shape
        )
        self.kernel = self.add_weight("kernel", kernel_shape, None, self.kernel_initializer, self.kernel_regularizer,
                                      constraint=self.kernel_constraint)  # fmt: skip
        self.bias = None
        if bias_shape is not None:
            self.bias = self.add_weight("bias", bias_shape, None, self.bias_initializer, self.bias_regularizer,
                                        constraint=self.bias_constraint)  # fmt: skip
        self.built = True

    def call(self, inputs):
        y = tw.einsum(self.equation, inputs, self.kernel)
        if self.bias is not None:
            y = y + self.bias
        return y if self.activation is None else self.activation(y)

    def get_config(self):
        return dict(super().get_config(), output_shape=self.partial_output_shape, equation=self.equation,
                    bias_axes=self.bias_axes)  # fmt: skip


class Conv1DTranspose(_Conv):
    """The transpose of a 1D convolution (`kernel` [kernel_size, filters, channels])."""

    rank = 1

    def __init__(self, filters, kernel_size, strides=1, padding="valid", output_padding=None, data_format=None,
                 dilation_rate=1, **kwargs):  # fmt: skip
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate, **kwargs)
        self.output_padding = None if output_padding is None else int(
            output_padding[0] if isinstance(output_padding, (list, tuple)) else output_padding)  # fmt: skip
        if self.output_padding is not None and self.output_padding >= self.strides[0]:
            raise ValueError(f"Strides {self.strides} must be greater than output padding "
                             f"{(self.output_padding,)}. Received strides={self.strides}, "
                             f"output_padding={(self.output_padding,)}.")  # fmt: skip

    def build(self, input_shape):
        channels = self._channels(input_shape)
        self.kernel = self.add_weight("kernel", [self.kernel_size[0], self.filters, channels], None,
                                      self.kernel_initializer, self.kernel_regularizer,
                                      constraint=self.kernel_constraint)  # fmt: skip
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight("bias", [self.filters], None, self.bias_initializer, self.bias_regularizer,
                                        constraint=self.bias_constraint)  # fmt: skip
        self.built = True

    def _length(self, n):
        k = (self.kernel_size[0] - 1) * self.dilation_rate[0] + 1
        s, p = self.strides[0], self.output_padding
        if p is None:
            return n * s + max(k - s, 0) if self.padding == "valid" else n * s
        return (n - 1) * s + k + p if self.padding == "valid" else (n - 1) * s + k + p - 2 * (k // 2)

    def call(self, inputs):
        x = tw.convert_to_tensor(inputs)
        self._check_ndim(x, ndim=3)
        if self.data_format == "channels_first":
            x = _to_last(x, 1)
        shape = tw.shape(x)
        length = self._length(shape[1])
        out_shape = tw.stack([shape[0], 1, length, self.filters])
        y = tw.nn.conv2d_transpose(tw.expand_dims(x, 1), tw.expand_dims(self.kernel, 0), out_shape,
                                   [1, 1, self.strides[0], 1], self.padding.upper(),
                                   dilations=[1, 1, self.dilation_rate[0], 1])  # fmt: skip
        y = tw.squeeze(y, [1])
        static = x.shape[1].value
        y.set_shape([x.shape[0].value, None if static is None else self._length(static), self.filters])
        if self.bias is not None:
            y = tw.nn.bias_add(y, self.bias)
        if self.data_format == "channels_first":
            y = _to_first(y, 1)
        return y if self.activation is None else self.activation(y)


Convolution1DTranspose = Conv1DTranspose


class DepthwiseConv1D(_Conv):
    """A separate `depth_multiplier`-channel 1D convolution of each input channel (`depthwise_kernel`
    [kernel_size, channels, depth_multiplier])."""

    rank = 1

    def __init__(self, kernel_size, strides=1, padding="valid", depth_multiplier=1, data_format=None,
                 dilation_rate=1, activation=None, use_bias=True, depthwise_initializer="glorot_uniform",
                 bias_initializer="zeros", depthwise_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, depthwise_constraint=None, bias_constraint=None, **kwargs):  # fmt: skip
        super().__init__(None, kernel_size, strides, padding, data_format, dilation_rate, activation=activation,
                         use_bias=use_bias, bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer, bias_constraint=bias_constraint,
                         **kwargs)  # fmt: skip
        if self.padding == "causal":
            raise ValueError("Causal padding is only supported for `Conv1D`and `SeparableConv1D`.")
        self.depth_multiplier = depth_multiplier
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)

    def build(self, input_shape):
        channels = self._channels(input_shape)
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel", [self.kernel_size[0], channels, self.depth_multiplier], None,
            self.depthwise_initializer, self.depthwise_regularizer, constraint=self.depthwise_constraint,
        )  # fmt: skip
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight("bias", [channels * self.depth_multiplier], None, self.bias_initializer,
                                        self.bias_regularizer, constraint=self.bias_constraint)  # fmt: skip
        self.built = True

    def call(self, inputs):
        x = tw.convert_to_tensor(inputs)
        self._check_ndim(x, ndim=3)
        if self.data_format == "channels_first":
            x = _to_last(x, 1)
        y = tw.nn.depthwise_conv2d(tw.expand_dims(x, 1), tw.expand_dims(self.depthwise_kernel, 0),
                                   [1, 1, self.strides[0], 1], self.padding.upper(),
                                   dilations=[1, self.dilation_rate[0]])  # fmt: skip
        y = tw.squeeze(y, [1])
        if self.bias is not None:
            y = tw.nn.bias_add(y, self.bias)
        if self.data_format == "channels_first":
            y = _to_first(y, 1)
        return y if self.activation is None else self.activation(y)


class Wrapper(_Layer):
    """The base of layers that wrap another `layer` (TimeDistributed, Bidirectional, ...)."""

    def __init__(self, layer, **kwargs):
        from tensorweave._src.keras import engine
        from tensorweave._src.layers import base

        if not isinstance(layer, (base.Layer, engine.Layer)):
            raise ValueError(f"Please initialize `{type(self).__name__}` layer with a `tf.keras.layers.Layer` "  # noqa: TRY004 - Keras raises a ValueError
                             f"instance. Received: {layer}")  # fmt: skip
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape=None):
        self.built = True

    def get_config(self):
        from tensorweave._src.keras.layers import serialize

        return dict(super().get_config(), layer=serialize(self.layer))


class SpectralNormalization(Wrapper):
    """Divides the wrapped layer's kernel (or embeddings) by its largest singular value, estimated by power
    iteration with the non-trainable `vector_u`, on each training call (as tf_keras, the kernel is assigned)."""

    def __init__(self, layer, power_iterations=1, **kwargs):
        super().__init__(layer, **kwargs)
        if power_iterations <= 0:
            raise ValueError(f"`power_iterations` should be greater than zero. Received: "
                             f"`power_iterations={power_iterations}`")  # fmt: skip
        self.power_iterations = power_iterations

    def build(self, input_shape):
        self.built = True

    def _find_kernel(self, inputs):
        """The wrapped layer's kernel (or embeddings), calling the layer once to make its weights if needed; and
        `vector_u`."""
        if getattr(self, "kernel", None) is not None:
            return
        if not self.layer.weights:
            self.layer(inputs)
        found = [v for v in self.layer.weights if v.op.name.rsplit("/", 1)[-1] in ("kernel", "embeddings")]
        if not found:
            raise ValueError(f"{type(self.layer).__name__} object has no attribute 'kernel' nor 'embeddings'")
        self.kernel = found[0]
        self.kernel_shape = self.kernel.shape.as_list()
        self.vector_u = self.add_weight("vector_u", [1, self.kernel_shape[-1]], self.kernel.dtype.base_dtype,
                                        initializers.TruncatedNormal(stddev=0.02), trainable=False)  # fmt: skip

    def normalize_weights(self):
        """The ops that set the kernel to kernel / sigma and update `vector_u` (none for an all-zero kernel)."""
        weights = tw.reshape(self.kernel, [-1, self.kernel_shape[-1]])
        u = self.vector_u.value()
        for _ in range(self.power_iterations):
            v = tw.nn.l2_normalize(tw.matmul(u, weights, transpose_b=True))
            u = tw.nn.l2_normalize(tw.matmul(v, weights))
        u, v = tw.stop_gradient(u), tw.stop_gradient(v)
        sigma = tw.matmul(tw.matmul(v, weights), u, transpose_b=True)
        nonzero = tw.logical_not(tw.reduce_all(tw.equal(weights, 0.0)))
        new_kernel = tw.where_v2(nonzero, tw.reshape(weights / sigma, self.kernel_shape), self.kernel.value())
        new_u = tw.where_v2(nonzero, u, self.vector_u.value())
        return [tw.assign(self.vector_u, new_u), tw.assign(self.kernel, new_kernel)]

    def call(self, inputs, training=False):
        self._find_kernel(inputs)
        if training is None:
            training = False
        if isinstance(training, bool) and not training:
            return self.layer(inputs)
        if isinstance(training, bool):
            updates = self.normalize_weights()
        else:
            updates = [tw.cond(tw.cast(training, tw.bool), lambda: tw.group(*self.normalize_weights()), tw.no_op)]
        with tw.control_dependencies(updates):
            return self.layer(inputs)

    def get_config(self):
        return dict(super().get_config(), power_iterations=self.power_iterations)


class AbstractRNNCell(_Layer):
    """The base of a custom RNN cell: `call(inputs, states)` returning (output, new_states), with `state_size` and
    `output_size` properties."""

    @property
    def state_size(self):
        raise NotImplementedError

    @property
    def output_size(self):
        raise NotImplementedError

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        if inputs is not None:
            batch_size, dtype = tw.shape(inputs)[0], inputs.dtype
        sizes = self.state_size if isinstance(self.state_size, (list, tuple)) else [self.state_size]
        states = [tw.zeros(tw.stack([batch_size, s]), dtype=dtype or "float32") for s in sizes]
        return states if isinstance(self.state_size, (list, tuple)) else states[0]


class _LocallyConnected(_Layer):
    """A convolution with unshared weights (tf_keras's implementation=1 kernel layout)."""

    rank = None

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, activation=None,
                 use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros", kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 implementation=1, **kwargs):  # fmt: skip
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        from tensorweave._src.keras.layers_conv import _tuple

        self.filters = filters
        self.kernel_size = _tuple(kernel_size, self.rank, "kernel_size")
        self.strides = _tuple(strides, self.rank, "strides")
        self.padding = padding.lower()
        self.data_format = data_format or "channels_last"
        if implementation != 1:
            raise NotImplementedError(f"{type(self).__name__} supports implementation=1 only here. Received: "
                                      f"implementation={implementation}")  # fmt: skip
        if self.padding != "valid":
            raise ValueError(f'Invalid border mode for {type(self).__name__} (only "valid" is supported if '
                             f"implementation is 1): {padding}")  # fmt: skip
        self.implementation = implementation
        self.activation = get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)

    def build(self, input_shape):
        dims = input_shape.as_list()
        spatial = dims[2:] if self.data_format == "channels_first" else dims[1:-1]
        channels = dims[1] if self.data_format == "channels_first" else dims[-1]
        if None in spatial or channels is None:
            raise ValueError(f"{type(self).__name__} needs fully defined input dimensions (but the batch). Received "
                             f"input_shape={tuple(dims)}")  # fmt: skip
        self.output_dims = [(n - k) // s + 1 for n, k, s in zip(spatial, self.kernel_size, self.strides)]
        if min(self.output_dims) <= 0:
            raise ValueError(f"One of the dimensions in the output is <= 0 due to downsampling in {self.name}. "
                             f"Consider increasing the input size. Received input shape {tuple(dims)} which would "
                             f"produce output shape with a zero or negative value in a dimension.")  # fmt: skip
        positions = int(np.prod(self.output_dims))
        kernel_shape = [positions, int(np.prod(self.kernel_size)) * channels, self.filters]
        self.kernel = self.add_weight("kernel", kernel_shape, None, self.kernel_initializer, self.kernel_regularizer,
                                      constraint=self.kernel_constraint)  # fmt: skip
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight("bias", self.output_dims + [self.filters], None, self.bias_initializer, self.bias_regularizer,
                                        constraint=self.bias_constraint)  # fmt: skip
        self.built = True

    def call(self, inputs):
        from tensorweave._src.keras.backend_more import _local_conv

        x = tw.convert_to_tensor(inputs)
        self._check_ndim(x, ndim=self.rank + 2)
        y = _local_conv(x, self.kernel, self.kernel_size, self.strides, tuple(self.output_dims), self.data_format)
        if self.bias is not None:
            if self.data_format == "channels_first":  # tf_keras's bias_add: a reshape (not a transpose)
                y = y + tw.reshape(self.bias, [1, self.filters] + self.output_dims)
            else:
                y = y + self.bias
        return y if self.activation is None else self.activation(y)


class LocallyConnected1D(_LocallyConnected):
    """Conv1D with a separate kernel at each output position (kernel [positions, kernel_size * channels, filters])."""

    rank = 1


class LocallyConnected2D(_LocallyConnected):
    """Conv2D with a separate kernel at each output position (kernel [rows * cols, kh * kw * channels, filters])."""

    rank = 2


class DenseFeatures(_Layer):
    """The dense input of a model from a dict of raw features, as `feature_column.input_layer` builds it: each
    column's [batch, n] values, columns in the order of their names, concatenated. Its variables (embeddings) are
    the layer's weights, named `<layer>/<column>/...` ("dense_features/color_embedding/embedding_weights")."""

    def __init__(self, feature_columns, trainable=True, name=None, partitioner=None, **kwargs):
        from tensorweave._src.feature_column import feature_column as fc

        super().__init__(trainable=trainable, name=name, **kwargs)
        self._feature_columns = fc.dense_columns(feature_columns, "DenseFeatures")
        self._partitioner = partitioner

    def call(self, features, cols_to_output_tensors=None, training=None):
        from tensorweave._src.feature_column import feature_column as fc

        if not isinstance(features, dict):
            raise ValueError(f"We expected a dictionary here. Instead we got: {features}")  # noqa: TRY004 - Keras' class
        return fc.dense_input(fc._LazyBuilder(features), self._feature_columns, self.trainable,
                              cols_to_output_tensors=cols_to_output_tensors)  # fmt: skip

    def compute_output_shape(self, input_shape):
        batch = next(iter(input_shape.values()))[0] if isinstance(input_shape, dict) else None
        size = sum(int(np.prod(c.variable_shape.as_list())) for c in self._feature_columns)
        return tw.TensorShape([batch, size])

    def get_config(self):
        from tensorweave._src.feature_column import feature_column as fc

        config = super().get_config()
        config.update(feature_columns=[fc.serialize_column(c) for c in self._feature_columns], partitioner=None)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from tensorweave._src.feature_column import feature_column as fc

        config = dict(config)
        config["feature_columns"] = [fc.deserialize_column(c, custom_objects) for c in config["feature_columns"]]
        return cls(**config)

"""tf.keras convolution-family layers written as Keras layers: Conv1D/2D/3D (dilation, groups, 'causal' padding,
channels_first), DepthwiseConv2D, 3-D pooling, UpSampling1D/2D, ZeroPadding1D/3D, Cropping1D and the 3-D global
poolings, with Keras's weight names and argument errors."""

import tensorweave as tw
from tensorweave._src.keras import constraints, initializers, regularizers
from tensorweave._src.keras.layers import _keras_pooling, _Layer, get_activation
from tensorweave._src.keras.layers_more import _GlobalPooling
from tensorweave._src.layers import base

__all__ = [
    "AveragePooling3D",
    "Conv1D",
    "Conv2D",
    "Conv3D",
    "Convolution1D",
    "Convolution2D",
    "Convolution3D",
    "Cropping1D",
    "Cropping3D",
    "DepthwiseConv2D",
    "GlobalAveragePooling3D",
    "GlobalMaxPooling3D",
    "MaxPooling3D",
    "UpSampling1D",
    "UpSampling2D",
    "UpSampling3D",
    "ZeroPadding1D",
    "ZeroPadding3D",
]


def _tuple(value, n, what, positive=False):
    given = value
    if isinstance(value, int):
        value = (value,) * n
    value = tuple(value)
    if len(value) != n or not all(isinstance(v, int) for v in value):
        raise ValueError(f"The `{what}` argument must be a tuple of {n} integers. Received: {value}")
    bad = {v for v in value if v <= 0}
    if positive and bad:
        raise ValueError(
            f"The `{what}` argument must be a tuple of {n} integers. Received: {given} including {bad} that does "
            "not satisfy the requirement `> 0`."
        )
    return value


def _to_last(x, rank):
    return tw.transpose(x, [0] + list(range(2, rank + 2)) + [1])


def _to_first(x, rank):
    return tw.transpose(x, [0, rank + 1] + list(range(1, rank + 1)))


class _Conv(_Layer):
    rank = None

    def __init__(
        self,
        filters,
        kernel_size,
        strides=1,
        padding="valid",
        data_format=None,
        dilation_rate=1,
        groups=1,
        activation=None,
        use_bias=True,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        rank = self.rank
        if filters is not None and (not isinstance(filters, int) or filters <= 0):
            raise ValueError(
                f"Invalid value for argument `filters`. Expected a strictly positive value. Received filters={filters}."
            )
        self.filters, self.groups = filters, groups or 1
        if filters is not None and filters % self.groups != 0:
            raise ValueError(
                "The number of filters must be evenly divisible by the number of groups. "
                f"Received: groups={self.groups}, filters={filters}."
            )
        self.kernel_size = _tuple(kernel_size, rank, "kernel_size")
        self.strides = _tuple(strides, rank, "strides")
        self.dilation_rate = _tuple(dilation_rate, rank, "dilation_rate")
        if not all(self.kernel_size):
            raise ValueError(f"The argument `kernel_size` cannot contain 0(s). Received: {(kernel_size,)}")
        self.padding = padding.lower() if isinstance(padding, str) else padding
        if self.padding not in ("valid", "same", "causal"):
            raise ValueError(
                f"The `padding` argument must be a list/tuple or one of `valid`, `same` (or `causal`, only for "
                f"`Conv1D). Received: {padding}"
            )
        if self.padding == "causal" and rank != 1:
            raise ValueError("Causal padding is only supported for `Conv1D`and `SeparableConv1D`.")
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(
                "`strides > 1` not supported in conjunction with `dilation_rate > 1`. "
                f"Received: strides={self.strides} and dilation_rate={self.dilation_rate}"
            )
        self.data_format = data_format or "channels_last"
        if self.data_format not in ("channels_last", "channels_first"):
            raise ValueError(
                f"The `data_format` argument must be one of `channels_first`, `channels_last`. Received: {data_format}"
            )
        self.activation = get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)

    def _channels(self, input_shape):
        axis = 1 if self.data_format == "channels_first" else -1
        channels = input_shape[axis].value
        if channels is None:
            raise ValueError(
                "The channel dimension of the inputs should be defined. The input_shape received is "
                f"{tuple(input_shape.as_list())}, where axis {axis} (0-based) is the channel dimension, which found "
                "to be `None`."
            )
        return channels

    def build(self, input_shape):
        self._check_ndim_shape(input_shape)
        channels = self._channels(input_shape)
        if channels % self.groups != 0:
            raise ValueError(
                "The number of input channels must be evenly divisible by the number of groups. "
                f"Received groups={self.groups}, but the input has {channels} channels "
                f"(full input shape is {tuple(input_shape.as_list())})."
            )
        shape = list(self.kernel_size) + [channels // self.groups, self.filters]
        self.kernel = self.add_weight(
            "kernel", shape, None, self.kernel_initializer, self.kernel_regularizer, constraint=self.kernel_constraint
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias", [self.filters], None, self.bias_initializer, self.bias_regularizer,
                constraint=self.bias_constraint,
            )  # fmt: skip
        self.built = True

    def _check_ndim_shape(self, shape):
        if shape.ndims is not None and shape.ndims < self.rank + 2:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected min_ndim={self.rank + 2}, '
                f"found ndim={shape.ndims}. Full shape received: {tuple(shape.as_list())}"
            )

    def _convolve(self, x, kernel):
        padding = "VALID" if self.padding == "causal" else self.padding.upper()
        return tw.nn.convolution(
            x, kernel, padding=padding, strides=list(self.strides), dilation_rate=list(self.dilation_rate)
        )

    def call(self, inputs):
        x = tw.convert_to_tensor(inputs)
        self._check_ndim_shape(x.shape)
        if self.data_format == "channels_first":
            x = _to_last(x, self.rank)
        if self.padding == "causal":
            x = tw.pad(x, [[0, 0], [self.dilation_rate[0] * (self.kernel_size[0] - 1), 0], [0, 0]])
        if self.groups == 1:
            y = self._convolve(x, self.kernel)
        else:
            xs = tw.split(x, self.groups, axis=-1)
            ks = tw.split(self.kernel, self.groups, axis=-1)
            y = tw.concat([self._convolve(a, k) for a, k in zip(xs, ks)], axis=-1)
        if self.bias is not None:
            y = tw.nn.bias_add(y, self.bias)
        if self.data_format == "channels_first":
            y = _to_first(y, self.rank)
        return y if self.activation is None else self.activation(y)


class Conv1D(_Conv):
    """1-D convolution over [batch, steps, channels] inputs (or channels_first); padding 'causal' pads the left."""

    rank = 1


class Conv2D(_Conv):
    """2-D convolution (with dilation_rate and groups)."""

    rank = 2

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None, dilation_rate=(1, 1),
                 groups=1, **kwargs):  # fmt: skip
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate, groups, **kwargs)


class Conv3D(_Conv):
    """3-D convolution over [batch, depth, height, width, channels] inputs."""

    rank = 3

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1, 1), groups=1, **kwargs):  # fmt: skip
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate, groups, **kwargs)


Convolution1D, Convolution2D, Convolution3D = Conv1D, Conv2D, Conv3D


class DepthwiseConv2D(Conv2D):
    """A separate `depth_multiplier`-channel convolution of each input channel (`depthwise_kernel`
    [kh, kw, channels, depth_multiplier])."""

    def __init__(
        self,
        kernel_size,
        strides=(1, 1),
        padding="valid",
        depth_multiplier=1,
        data_format=None,
        dilation_rate=(1, 1),
        activation=None,
        use_bias=True,
        depthwise_initializer="glorot_uniform",
        bias_initializer="zeros",
        depthwise_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        depthwise_constraint=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(
            None, kernel_size, strides, padding, data_format, dilation_rate, activation=activation,
            use_bias=use_bias, bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer, bias_constraint=bias_constraint, **kwargs,
        )  # fmt: skip
        self.depth_multiplier = depth_multiplier
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)

    def build(self, input_shape):
        self._check_ndim_shape(input_shape)
        channels = self._channels(input_shape)
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel", list(self.kernel_size) + [channels, self.depth_multiplier], None,
            self.depthwise_initializer, self.depthwise_regularizer, constraint=self.depthwise_constraint,
        )  # fmt: skip
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias", [channels * self.depth_multiplier], None, self.bias_initializer, self.bias_regularizer,
                constraint=self.bias_constraint,
            )  # fmt: skip
        self.built = True

    def call(self, inputs):
        x = tw.convert_to_tensor(inputs)
        self._check_ndim_shape(x.shape)
        if self.data_format == "channels_first":
            x = _to_last(x, 2)
        y = tw.nn.depthwise_conv2d(
            x, self.depthwise_kernel, [1, *self.strides, 1], self.padding.upper(), dilations=list(self.dilation_rate)
        )
        if self.bias is not None:
            y = tw.nn.bias_add(y, self.bias)
        if self.data_format == "channels_first":
            y = _to_first(y, 2)
        return y if self.activation is None else self.activation(y)


MaxPooling3D = _keras_pooling(base.MaxPooling3D, "MaxPooling3D", (2, 2, 2))
AveragePooling3D = _keras_pooling(base.AveragePooling3D, "AveragePooling3D", (2, 2, 2))


class GlobalAveragePooling3D(_GlobalPooling):
    _reduce, _axes = tw.reduce_mean, (1, 2, 3)


class GlobalMaxPooling3D(_GlobalPooling):
    _reduce, _axes = tw.reduce_max, (1, 2, 3)


def _repeat(x, axis, n):
    """Each slice of `x` along `axis` repeated `n` times in place (Keras's repeat_elements)."""
    if n == 1:
        return x
    shape = x.shape.as_list()
    dyn = tw.shape(x)
    expanded = tw.expand_dims(x, axis + 1)
    multiples = [1] * (len(shape) + 1)
    multiples[axis + 1] = n
    tiled = tw.tile(expanded, multiples)
    new_shape = [shape[i] if shape[i] is not None else dyn[i] for i in range(len(shape))]
    new_shape[axis] = shape[axis] * n if shape[axis] is not None else dyn[axis] * n
    out = tw.reshape(tiled, tw.stack(new_shape) if any(not isinstance(d, int) for d in new_shape) else new_shape)
    out.set_shape([None if not isinstance(d, int) else d for d in new_shape])
    return out


class UpSampling1D(_Layer):
    """Repeats each time step `size` times."""

    def __init__(self, size=2, **kwargs):
        super().__init__(**kwargs)
        self.size = int(size)

    def call(self, inputs):
        x = tw.convert_to_tensor(inputs)
        self._check_ndim(x, ndim=3)
        return _repeat(x, 1, self.size)


class UpSampling2D(_Layer):
    """Scales rows and columns by `size` (nearest: repeated pixels; bilinear: half-pixel-centre interpolation)."""

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        self.size = _tuple(size, 2, "size", positive=True)
        self.data_format = data_format or "channels_last"
        if interpolation not in ("nearest", "bilinear"):
            raise ValueError(
                f'`interpolation` argument should be one of: "nearest", "bilinear". Received: {interpolation}.'
            )
        self.interpolation = interpolation

    def call(self, inputs):
        x = tw.convert_to_tensor(inputs)
        self._check_ndim(x, ndim=4)
        if self.data_format == "channels_first":
            x = _to_last(x, 2)
        if self.interpolation == "nearest":
            y = _repeat(_repeat(x, 1, self.size[0]), 2, self.size[1])
        else:
            size = tw.shape(x)[1:3] * tw.constant(list(self.size))
            y = tw.image.resize_bilinear(x, size, half_pixel_centers=True)
            h, w = x.shape[1].value, x.shape[2].value
            y.set_shape([None, h and h * self.size[0], w and w * self.size[1], x.shape[3].value])
        return _to_first(y, 2) if self.data_format == "channels_first" else y


def _pairs(value, n, what):
    if isinstance(value, int):
        return ((value, value),) * n
    value = tuple(value)
    if len(value) != n:
        raise ValueError(f"`{what}` should have {n} elements. Received: {value}.")
    return tuple((v, v) if isinstance(v, int) else tuple(v) for v in value)


class ZeroPadding1D(_Layer):
    """Zeros before and after the time axis."""

    def __init__(self, padding=1, **kwargs):
        super().__init__(**kwargs)
        self.padding = (padding, padding) if isinstance(padding, int) else tuple(padding)

    def call(self, inputs):
        x = tw.convert_to_tensor(inputs)
        self._check_ndim(x, ndim=3)
        return tw.pad(x, [[0, 0], list(self.padding), [0, 0]])


class ZeroPadding3D(_Layer):
    """Zeros around the three spatial axes of 5-D inputs."""

    def __init__(self, padding=(1, 1, 1), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.padding = _pairs(padding, 3, "padding")
        self.data_format = data_format or "channels_last"

    def call(self, inputs):
        x = tw.convert_to_tensor(inputs)
        self._check_ndim(x, ndim=5)
        pads = [list(p) for p in self.padding]
        if self.data_format == "channels_first":
            return tw.pad(x, [[0, 0], [0, 0], *pads])
        return tw.pad(x, [[0, 0], *pads, [0, 0]])


class Cropping1D(_Layer):
    """Drops `cropping` steps from the start and end of the time axis."""

    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(**kwargs)
        self.cropping = (cropping, cropping) if isinstance(cropping, int) else tuple(cropping)

    def call(self, inputs):
        x = tw.convert_to_tensor(inputs)
        self._check_ndim(x, ndim=3)
        start, end = self.cropping
        steps = x.shape[1].value
        if steps is not None and start + end >= steps:
            raise ValueError(
                "`cropping` parameter of `Cropping1D` layer must be smaller than the input length. "
                f"Received: input_shape={tuple(x.shape.as_list())}, cropping={self.cropping}"
            )
        return x[:, start : (steps - end if steps is not None else tw.shape(x)[1] - end), :]


class UpSampling3D(_Layer):
    """Repeats each step of the three spatial axes `size` times."""

    def __init__(self, size=(2, 2, 2), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.size = _tuple(size, 3, "size", positive=True)
        self.data_format = data_format or "channels_last"

    def call(self, inputs):
        x = tw.convert_to_tensor(inputs)
        self._check_ndim(x, ndim=5)
        first = 2 if self.data_format == "channels_first" else 1
        for i, n in enumerate(self.size):
            x = _repeat(x, first + i, n)
        return x


class Cropping3D(_Layer):
    """Drops `cropping` steps from both ends of the three spatial axes."""

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.cropping = _pairs(cropping, 3, "cropping")
        self.data_format = data_format or "channels_last"

    def call(self, inputs):
        x = tw.convert_to_tensor(inputs)
        self._check_ndim(x, ndim=5)
        first = 2 if self.data_format == "channels_first" else 1
        slices = [slice(None)] * 5
        for i, (start, end) in enumerate(self.cropping):
            size = x.shape[first + i].value
            if size is not None and start + end >= size:
                raise ValueError(
                    "`cropping` parameter of `Cropping3D` layer must be smaller than the input shape. "
                    f"Received: inputs.shape={tuple(x.shape.as_list())}, and cropping={self.cropping}"
                )
            slices[first + i] = slice(start, (size - end) if size is not None else (-end or None))
        return x[tuple(slices)]

"""tw.layers: the convolution and pooling layers beyond conv2d and 2-d pooling (TensorFlow v1's conv1d, conv3d,
conv2d_transpose, conv3d_transpose, separable_conv1d/2d, 1-d and 3-d pooling), with TF1's variable names
("conv3d/kernel", "separable_conv2d/depthwise_kernel", ...) and output-size rules."""

from tensorweave._src.framework import ops
from tensorweave._src.layers import core
from tensorweave._src.ops import array_ops, init_ops


def _tuple(value, n, what):
    if isinstance(value, int):
        return (value,) * n
    value = tuple(int(v) for v in value)
    if len(value) != n:
        raise ValueError(f"The `{what}` argument must be a tuple of {n} integers. Received: {value}")
    return value


def _padding(padding):
    padding = str(padding).lower()
    if padding not in ("valid", "same"):
        raise ValueError(f"The `padding` argument must be one of 'valid', 'same'. Received: {padding}")
    return padding.upper()


def _channels(x, fn):
    if x.shape.ndims is None or x.shape[-1].value is None:
        raise ValueError(f"The channel dimension of the inputs to `{fn}` should be defined. Found `None`.")
    return x.shape[-1].value


def _check_rank(x, rank, fn):
    if x.shape.ndims is not None and x.shape.ndims != rank + 2:
        raise ValueError(
            f"Input 0 of layer {fn} is incompatible with the layer: expected ndim={rank + 2}, found "
            f"ndim={x.shape.ndims}. Full shape received: {x.shape}"
        )


def _finish(
    y, use_bias, filters, dtype, bias_initializer, bias_regularizer, trainable, activation, activity_regularizer
):
    from tensorweave._src.ops import nn_ops

    if use_bias:
        bias = core._make_var("bias", [filters], dtype, bias_initializer, bias_regularizer, trainable)
        y = nn_ops.bias_add(y, bias)
    y = core._activate(y, activation)
    core._activity_regularize(y, activity_regularizer)
    return y


def _conv(
    rank,
    default_name,
    inputs,
    filters,
    kernel_size,
    strides,
    padding,
    data_format,
    dilation_rate,
    activation,
    use_bias,
    kernel_initializer,
    bias_initializer,
    kernel_regularizer,
    bias_regularizer,
    activity_regularizer,
    trainable,
    name,
    reuse,
):
    from tensorweave._src.ops import nn_conv_ops, nn_volume_ops

    core._check_channels_last(data_format)
    x = ops.convert_to_tensor(inputs)
    _check_rank(x, rank, default_name)
    kernel_size = _tuple(kernel_size, rank, "kernel_size")
    strides = _tuple(strides, rank, "strides")
    dilation_rate = _tuple(dilation_rate, rank, "dilation_rate")
    pad = _padding(padding)
    in_channels = _channels(x, default_name)
    with core._scope(name, default_name, reuse):
        kernel = core._make_var(
            "kernel", list(kernel_size) + [in_channels, filters], x.dtype, kernel_initializer, kernel_regularizer,
            trainable,
        )  # fmt: skip
        if rank == 1:
            y = nn_conv_ops.conv1d(x, kernel, strides[0], pad, dilations=dilation_rate[0])
        else:
            y = nn_volume_ops.conv3d(x, kernel, [1, *strides, 1], pad, dilations=[1, *dilation_rate, 1])
        return _finish(
            y, use_bias, filters, x.dtype, bias_initializer, bias_regularizer, trainable, activation,
            activity_regularizer,
        )  # fmt: skip


def conv1d(
    inputs,
    filters,
    kernel_size,
    strides=1,
    padding="valid",
    data_format="channels_last",
    dilation_rate=1,
    activation=None,
    use_bias=True,
    kernel_initializer=None,
    bias_initializer=init_ops.zeros_initializer(),
    kernel_regularizer=None,
    bias_regularizer=None,
    activity_regularizer=None,
    kernel_constraint=None,
    bias_constraint=None,
    trainable=True,
    name=None,
    reuse=None,
):
    """A 1-D convolution layer over [batch, width, channels] inputs, with a bias and activation.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     print(tw.layers.conv1d(tw.placeholder(tw.float32, [None, 10, 3]), 4, 3).shape)
      (?, 8, 4)
    """
    return _conv(
        1, "conv1d", inputs, filters, kernel_size, strides, padding, data_format, dilation_rate, activation,
        use_bias, kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer, activity_regularizer,
        trainable, name, reuse,
    )  # fmt: skip


def conv3d(
    inputs,
    filters,
    kernel_size,
    strides=(1, 1, 1),
    padding="valid",
    data_format="channels_last",
    dilation_rate=(1, 1, 1),
    activation=None,
    use_bias=True,
    kernel_initializer=None,
    bias_initializer=init_ops.zeros_initializer(),
    kernel_regularizer=None,
    bias_regularizer=None,
    activity_regularizer=None,
    kernel_constraint=None,
    bias_constraint=None,
    trainable=True,
    name=None,
    reuse=None,
):
    """A 3-D convolution layer over [batch, depth, height, width, channels] inputs.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     print(tw.layers.conv3d(tw.placeholder(tw.float32, [None, 5, 6, 7, 2]), 4, 3).shape)
      (?, 3, 4, 5, 4)
    """
    return _conv(
        3, "conv3d", inputs, filters, kernel_size, strides, padding, data_format, dilation_rate, activation,
        use_bias, kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer, activity_regularizer,
        trainable, name, reuse,
    )  # fmt: skip


def _deconv_length(length, kernel, padding, stride, output_padding=None):
    """TF's deconv_output_length: the output size of a transposed convolution along one axis (`length` an int, a
    scalar tensor or None)."""
    if length is None:
        return None
    if output_padding is not None:
        pad = kernel // 2 if padding == "SAME" else 0
        return (length - 1) * stride + kernel - 2 * pad + output_padding
    if padding == "SAME":
        return length * stride
    return length * stride + max(kernel - stride, 0)


def _conv_transpose(
    rank,
    default_name,
    inputs,
    filters,
    kernel_size,
    strides,
    padding,
    data_format,
    activation,
    use_bias,
    kernel_initializer,
    bias_initializer,
    kernel_regularizer,
    bias_regularizer,
    activity_regularizer,
    trainable,
    name,
    reuse,
    output_padding=None,
):
    from tensorweave._src.ops import nn_conv_ops, nn_volume_ops

    core._check_channels_last(data_format)
    x = ops.convert_to_tensor(inputs)
    _check_rank(x, rank, default_name)
    kernel_size = _tuple(kernel_size, rank, "kernel_size")
    strides = _tuple(strides, rank, "strides")
    if output_padding is not None:
        output_padding = _tuple(output_padding, rank, "output_padding")
        for stride, extra in zip(strides, output_padding):
            if extra >= stride:
                raise ValueError(
                    f"Strides must be greater than output padding. Received strides={strides}, "
                    f"output_padding={output_padding}."
                )
    pad = _padding(padding)
    in_channels = _channels(x, default_name)
    with core._scope(name, default_name, reuse):
        kernel = core._make_var(
            "kernel", list(kernel_size) + [filters, in_channels], x.dtype, kernel_initializer, kernel_regularizer,
            trainable,
        )  # fmt: skip
        dynamic = array_ops.shape(x)
        sizes, static = [dynamic[0]], [x.shape[0].value]
        for i in range(rank):
            extra = None if output_padding is None else output_padding[i]
            out = _deconv_length(x.shape[i + 1].value, kernel_size[i], pad, strides[i], extra)
            static.append(out)
            sizes.append(_deconv_length(dynamic[i + 1], kernel_size[i], pad, strides[i], extra) if out is None else out)
        sizes.append(filters)
        static.append(filters)
        output_shape = array_ops.stack(sizes)
        if rank == 2:
            y = nn_conv_ops.conv2d_transpose(x, kernel, output_shape, [1, *strides, 1], pad)
        else:
            y = nn_volume_ops.conv3d_transpose(x, kernel, output_shape, [1, *strides, 1], pad)
        y.set_shape(static)
        return _finish(
            y, use_bias, filters, x.dtype, bias_initializer, bias_regularizer, trainable, activation,
            activity_regularizer,
        )  # fmt: skip


def conv2d_transpose(
    inputs,
    filters,
    kernel_size,
    strides=(1, 1),
    padding="valid",
    data_format="channels_last",
    activation=None,
    use_bias=True,
    kernel_initializer=None,
    bias_initializer=init_ops.zeros_initializer(),
    kernel_regularizer=None,
    bias_regularizer=None,
    activity_regularizer=None,
    kernel_constraint=None,
    bias_constraint=None,
    trainable=True,
    name=None,
    reuse=None,
    output_padding=None,
):
    """A transposed 2-D convolution ("deconvolution") layer; kernel [kh, kw, filters, in_channels].

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     print(tw.layers.conv2d_transpose(tw.placeholder(tw.float32, [None, 4, 4, 3]), 2, 3, 2).shape)
      (?, 9, 9, 2)
    """
    return _conv_transpose(
        2, "conv2d_transpose", inputs, filters, kernel_size, strides, padding, data_format, activation, use_bias,
        kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer, activity_regularizer, trainable,
        name, reuse, output_padding,
    )  # fmt: skip


def conv3d_transpose(
    inputs,
    filters,
    kernel_size,
    strides=(1, 1, 1),
    padding="valid",
    data_format="channels_last",
    activation=None,
    use_bias=True,
    kernel_initializer=None,
    bias_initializer=init_ops.zeros_initializer(),
    kernel_regularizer=None,
    bias_regularizer=None,
    activity_regularizer=None,
    kernel_constraint=None,
    bias_constraint=None,
    trainable=True,
    name=None,
    reuse=None,
    output_padding=None,
):
    """A transposed 3-D convolution layer; kernel [kd, kh, kw, filters, in_channels].

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     print(tw.layers.conv3d_transpose(tw.placeholder(tw.float32, [None, 2, 3, 4, 3]), 2, 2, 2).shape)
      (?, 4, 6, 8, 2)
    """
    return _conv_transpose(
        3, "conv3d_transpose", inputs, filters, kernel_size, strides, padding, data_format, activation, use_bias,
        kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer, activity_regularizer, trainable,
        name, reuse, output_padding,
    )  # fmt: skip


def _separable(
    rank,
    default_name,
    inputs,
    filters,
    kernel_size,
    strides,
    padding,
    data_format,
    dilation_rate,
    depth_multiplier,
    activation,
    use_bias,
    depthwise_initializer,
    pointwise_initializer,
    bias_initializer,
    depthwise_regularizer,
    pointwise_regularizer,
    bias_regularizer,
    activity_regularizer,
    trainable,
    name,
    reuse,
):
    from tensorweave._src.ops import nn_conv_ops

    core._check_channels_last(data_format)
    x = ops.convert_to_tensor(inputs)
    _check_rank(x, rank, default_name)
    kernel_size = _tuple(kernel_size, rank, "kernel_size")
    strides = _tuple(strides, rank, "strides")
    dilation_rate = _tuple(dilation_rate, rank, "dilation_rate")
    pad = _padding(padding)
    in_channels = _channels(x, default_name)
    with core._scope(name, default_name, reuse):
        depthwise = core._make_var(
            "depthwise_kernel", list(kernel_size) + [in_channels, depth_multiplier], x.dtype, depthwise_initializer,
            depthwise_regularizer, trainable,
        )  # fmt: skip
        pointwise = core._make_var(
            "pointwise_kernel", [1] * rank + [in_channels * depth_multiplier, filters], x.dtype,
            pointwise_initializer, pointwise_regularizer, trainable,
        )  # fmt: skip
        if rank == 1:
            x4 = array_ops.expand_dims(x, 1)
            d4 = array_ops.expand_dims(depthwise, 0)
            p4 = array_ops.expand_dims(pointwise, 0)
            y = nn_conv_ops.separable_conv2d(x4, d4, p4, [1, 1, strides[0], 1], pad, rate=[1, dilation_rate[0]])
            y = array_ops.squeeze(y, [1])
        else:
            y = nn_conv_ops.separable_conv2d(x, depthwise, pointwise, [1, *strides, 1], pad, rate=list(dilation_rate))
        return _finish(
            y, use_bias, filters, x.dtype, bias_initializer, bias_regularizer, trainable, activation,
            activity_regularizer,
        )  # fmt: skip


def separable_conv1d(
    inputs,
    filters,
    kernel_size,
    strides=1,
    padding="valid",
    data_format="channels_last",
    dilation_rate=1,
    depth_multiplier=1,
    activation=None,
    use_bias=True,
    depthwise_initializer=None,
    pointwise_initializer=None,
    bias_initializer=init_ops.zeros_initializer(),
    depthwise_regularizer=None,
    pointwise_regularizer=None,
    bias_regularizer=None,
    activity_regularizer=None,
    depthwise_constraint=None,
    pointwise_constraint=None,
    bias_constraint=None,
    trainable=True,
    name=None,
    reuse=None,
):
    """A depthwise 1-D convolution then a pointwise one mixing channels.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     print(tw.layers.separable_conv1d(tw.placeholder(tw.float32, [None, 10, 3]), 4, 3).shape)
      (?, 8, 4)
    """
    return _separable(
        1, "separable_conv1d", inputs, filters, kernel_size, strides, padding, data_format, dilation_rate,
        depth_multiplier, activation, use_bias, depthwise_initializer, pointwise_initializer, bias_initializer,
        depthwise_regularizer, pointwise_regularizer, bias_regularizer, activity_regularizer, trainable, name, reuse,
    )  # fmt: skip


def separable_conv2d(
    inputs,
    filters,
    kernel_size,
    strides=(1, 1),
    padding="valid",
    data_format="channels_last",
    dilation_rate=(1, 1),
    depth_multiplier=1,
    activation=None,
    use_bias=True,
    depthwise_initializer=None,
    pointwise_initializer=None,
    bias_initializer=init_ops.zeros_initializer(),
    depthwise_regularizer=None,
    pointwise_regularizer=None,
    bias_regularizer=None,
    activity_regularizer=None,
    depthwise_constraint=None,
    pointwise_constraint=None,
    bias_constraint=None,
    trainable=True,
    name=None,
    reuse=None,
):
    """A depthwise 2-D convolution then a pointwise (1x1) one mixing channels.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     print(tw.layers.separable_conv2d(tw.placeholder(tw.float32, [None, 8, 8, 3]), 4, 3).shape)
      (?, 6, 6, 4)
    """
    return _separable(
        2, "separable_conv2d", inputs, filters, kernel_size, strides, padding, data_format, dilation_rate,
        depth_multiplier, activation, use_bias, depthwise_initializer, pointwise_initializer, bias_initializer,
        depthwise_regularizer, pointwise_regularizer, bias_regularizer, activity_regularizer, trainable, name, reuse,
    )  # fmt: skip


def _pool(rank, kind, inputs, pool_size, strides, padding, data_format, name):
    from tensorweave._src.ops import nn_volume_ops

    core._check_channels_last(data_format)
    default = f"{'max' if kind == 'max' else 'average'}_pooling{rank}d"
    x = ops.convert_to_tensor(inputs)
    _check_rank(x, rank, default)
    pool_size = _tuple(pool_size, rank, "pool_size")
    strides = _tuple(strides, rank, "strides")
    pad = _padding(padding)
    with ops.get_default_graph().name_scope(name or default):
        if rank == 1:
            # As TF's Pooling1D: ExpandDims at axis 2, a 2-D MaxPool / AvgPool over (width, 1), Squeeze.
            from tensorweave._src.ops import array_ops, nn_ops

            fn = nn_ops.max_pool if kind == "max" else nn_ops.avg_pool
            y = fn(array_ops.expand_dims(x, 2), [1, pool_size[0], 1, 1], [1, strides[0], 1, 1], pad)
            return array_ops.squeeze(y, [2])
        fn = nn_volume_ops.max_pool3d if kind == "max" else nn_volume_ops.avg_pool3d
        return fn(x, [1, *pool_size, 1], [1, *strides, 1], pad)


def max_pooling1d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    """1-D max pooling over [batch, width, channels] inputs.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     print(tw.layers.max_pooling1d(tw.placeholder(tw.float32, [None, 10, 3]), 2, 2).shape)
      (?, 5, 3)
    """
    return _pool(1, "max", inputs, pool_size, strides, padding, data_format, name)


def average_pooling1d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    """1-D average pooling over [batch, width, channels] inputs.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     print(tw.layers.average_pooling1d(tw.placeholder(tw.float32, [None, 10, 3]), 3, 3).shape)
      (?, 3, 3)
    """
    return _pool(1, "avg", inputs, pool_size, strides, padding, data_format, name)


def max_pooling3d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    """3-D max pooling over [batch, depth, height, width, channels] inputs.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     print(tw.layers.max_pooling3d(tw.placeholder(tw.float32, [None, 4, 4, 4, 3]), 2, 2).shape)
      (?, 2, 2, 2, 3)
    """
    return _pool(3, "max", inputs, pool_size, strides, padding, data_format, name)


def average_pooling3d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    """3-D average pooling over [batch, depth, height, width, channels] inputs.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     print(tw.layers.average_pooling3d(tw.placeholder(tw.float32, [None, 4, 4, 4, 3]), 2, 2).shape)
      (?, 2, 2, 2, 3)
    """
    return _pool(3, "avg", inputs, pool_size, strides, padding, data_format, name)

"""TensorFlow 1's convolution and pooling functions beyond conv2d/max_pool/avg_pool: the 1-d forms (a 2-d op on
an input with a unit height, as TF builds them), transposed convolutions (the input backprop), atrous and
separable convolutions, the rank-dispatching `convolution`, `pool`, `conv_transpose`, and the depthwise
backprops."""

import numpy as np

from tensorweave._src.framework import ops
from tensorweave._src.ops import array_ops, gen_ops, nn_ops


def _scope(name, default):
    return ops.get_default_graph().name_scope(name or default)


def _sequence(value, n, what):
    """n ints from an int or a sequence of 1 or n (TF's _get_sequence without the batch and channel dims)."""
    if value is None:
        return [1] * n
    if isinstance(value, int):
        return [value] * n
    value = [int(v) for v in value]
    if len(value) == 1:
        return value * n
    if len(value) == n:
        return value
    if len(value) == n + 2:
        return value[1:-1]
    raise ValueError(f"{what} should be of length 1, {n} or {n + 2} but was {len(value)}")


def _check_nwc(data_format, fn):
    if data_format not in (None, "NWC", "NHWC"):
        raise ValueError(f"{fn}: data_format {data_format!r}: only 'NWC' runs on CPU")


def conv1d(
    value=None,
    filters=None,
    stride=None,
    padding=None,
    use_cudnn_on_gpu=None,
    data_format=None,
    name=None,
    input=None,
    dilations=None,
):
    """A 1-d convolution of value [batch, width, in_channels] with filters [width, in_channels, out_channels]: a
    Conv2D over a unit height.

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant(np.ones([1, 4, 1], np.float32))
      ...     w = tw.constant(np.ones([2, 1, 1], np.float32))
      ...     print(sess.run(tw.nn.conv1d(x, w, 1, "VALID")).ravel())
      [2. 2. 2.]
    """
    value = input if value is None else value
    _check_nwc(data_format, "conv1d")
    with _scope(name, "conv1d") as scope:
        strides = [1, 1] + _sequence(stride, 1, "stride") + [1]
        dil = [1, 1] + _sequence(dilations, 1, "dilations") + [1]
        value = array_ops.expand_dims(nn_ops._float_tensor(value), -3)
        filters = array_ops.expand_dims(ops.convert_to_tensor(filters, dtype=value.dtype), 0)
        result = nn_ops.conv2d(value, filters, strides, padding, dilations=dil, name="Conv2D")
        return array_ops.squeeze(result, [-3], name=scope)


def _output_shape(output_shape, n, what):
    """output_shape as a list of ints when static, else as an int32 tensor; its length is checked."""
    if isinstance(output_shape, ops.Tensor):
        if output_shape.shape.ndims is not None and output_shape.shape.num_elements() not in (None, n):
            raise ValueError(f"{what} must have shape ({n},), got {output_shape.shape}")
        return output_shape
    output_shape = list(output_shape)
    if len(output_shape) != n:
        raise ValueError(f"{what} must have shape ({n},), got {len(output_shape)} elements")
    if all(not isinstance(v, ops.Tensor) for v in output_shape):
        return [int(v) for v in output_shape]
    return array_ops.stack(output_shape)


def _check_transpose_channels(value, filters, out_axis):
    """TF1's static check of a transposed convolution: value's channels are the filter's out-channels (the
    output's channels against the filter's in-channels are checked when the op runs, as in TF)."""
    known = value.shape.ndims is not None and filters.shape.ndims is not None
    if known and not value.shape[-1].is_compatible_with(filters.shape[out_axis]):
        raise ValueError(
            f"input channels does not match filter's input channels, {value.shape[-1]} != {filters.shape[out_axis]}"
        )


def conv2d_transpose(
    value=None,
    filter=None,
    output_shape=None,
    strides=None,
    padding="SAME",
    data_format="NHWC",
    name=None,
    input=None,
    filters=None,
    dilations=None,
):
    """The transpose (gradient) of conv2d: value [batch, h, w, out_channels], filter [kh, kw, in_channels,
    out_channels] and the output's shape.

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant(np.ones([1, 1, 1, 1], np.float32))
      ...     w = tw.constant(np.ones([2, 2, 1, 1], np.float32))
      ...     print(sess.run(tw.nn.conv2d_transpose(x, w, [1, 2, 2, 1], [1, 1, 1, 1], "VALID")).ravel())
      [1. 1. 1. 1.]
    """
    value = input if value is None else value
    filter = filters if filter is None else filter
    with _scope(name, "conv2d_transpose") as scope:
        value = nn_ops._float_tensor(value)
        filter = ops.convert_to_tensor(filter, dtype=value.dtype, name="filter")
        output_shape = _output_shape(output_shape, 4, "output_shape")
        _check_transpose_channels(value, filter, 3)
        return nn_ops.conv2d_backprop_input(
            output_shape,
            filter,
            value,
            strides,
            padding,
            data_format=data_format,
            dilations=dilations if dilations is not None else [1, 1, 1, 1],
            name=scope,
        )


def conv1d_transpose(
    input,
    filters,
    output_shape,
    strides,
    padding="SAME",
    data_format="NWC",
    dilations=None,
    name=None,
):
    """The transpose of conv1d: input [batch, w, out_channels], filters [kw, in_channels, out_channels].

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant(np.ones([1, 1, 1], np.float32))
      ...     w = tw.constant(np.ones([2, 1, 1], np.float32))
      ...     print(sess.run(tw.nn.conv1d_transpose(x, w, [1, 2, 1], 1, "VALID")).ravel())
      [1. 1.]
    """
    _check_nwc(data_format, "conv1d_transpose")
    with _scope(name, "conv1d_transpose") as scope:
        value = nn_ops._float_tensor(input)
        filters = ops.convert_to_tensor(filters, dtype=value.dtype, name="filters")
        output_shape = _output_shape(output_shape, 3, "output_shape")
        _check_transpose_channels(value, filters, 2)
        if isinstance(output_shape, list):
            shape4 = [output_shape[0], 1] + output_shape[1:]
        else:
            shape4 = array_ops.concat([output_shape[:1], [1], output_shape[1:]], 0)
        strides = [1, 1] + _sequence(strides, 1, "strides") + [1]
        dil = [1, 1] + _sequence(dilations, 1, "dilations") + [1]
        value = array_ops.expand_dims(value, 1)
        filters = array_ops.expand_dims(filters, 0)
        result = nn_ops.conv2d_backprop_input(shape4, filters, value, strides, padding, dilations=dil)
        return array_ops.squeeze(result, [1], name=scope)


def atrous_conv2d(value, filters, rate, padding, name=None):
    """conv2d with `rate - 1` zeros between the filter taps (dilation `rate`), stride 1.

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant(np.arange(5, dtype=np.float32).reshape([1, 1, 5, 1]))
      ...     w = tw.constant(np.ones([1, 2, 1, 1], np.float32))
      ...     print(sess.run(tw.nn.atrous_conv2d(x, w, 2, "VALID")).ravel())
      [2. 4. 6.]
    """
    if int(rate) < 1:
        raise ValueError(f"rate {rate} should be greater than or equal to 1.")
    if nn_ops._padding(padding) not in ("SAME", "VALID"):
        raise ValueError(f"`padding` must be one of 'SAME' or 'VALID'. Received: padding={padding}")
    with _scope(name, "convolution") as scope:
        return nn_ops.conv2d(value, filters, [1, 1, 1, 1], padding, dilations=[1, rate, rate, 1], name=scope)


def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """The transpose of atrous_conv2d.

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant(np.ones([1, 1, 2, 1], np.float32))
      ...     w = tw.constant(np.ones([1, 2, 1, 1], np.float32))
      ...     print(sess.run(tw.nn.atrous_conv2d_transpose(x, w, [1, 1, 4, 1], 2, "VALID")).ravel())
      [1. 1. 1. 1.]
    """
    if int(rate) < 1:
        raise ValueError(f"rate {rate} should be greater than or equal to 1.")
    padding = nn_ops._padding(padding)
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"padding must be either VALID or SAME: {padding}")
    with _scope(name, "atrous_conv2d_transpose") as scope:
        value = nn_ops._float_tensor(value)
        filters = ops.convert_to_tensor(filters, dtype=value.dtype, name="filters")
        output_shape = _output_shape(output_shape, 4, "output_shape")
        _check_transpose_channels(value, filters, 3)
        return nn_ops.conv2d_backprop_input(
            output_shape, filters, value, [1, 1, 1, 1], padding, dilations=[1, rate, rate, 1], name=scope
        )


def separable_conv2d(
    input,
    depthwise_filter,
    pointwise_filter,
    strides,
    padding,
    rate=None,
    name=None,
    data_format=None,
    dilations=None,
):
    """A depthwise convolution then a 1x1 convolution mixing channels: depthwise_filter [kh, kw, in_channels,
    multiplier], pointwise_filter [1, 1, in_channels * multiplier, out_channels].

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant(np.ones([1, 2, 2, 2], np.float32))
      ...     dw = tw.constant(np.ones([2, 2, 2, 1], np.float32))
      ...     pw = tw.constant(np.ones([1, 1, 2, 1], np.float32))
      ...     print(sess.run(tw.nn.separable_conv2d(x, dw, pw, [1, 1, 1, 1], "VALID")).ravel())
      [8.]
    """
    rate = dilations if dilations is not None else rate
    with _scope(name, "separable_conv2d") as scope:
        x = nn_ops._float_tensor(input)
        depthwise_filter = ops.convert_to_tensor(depthwise_filter, dtype=x.dtype, name="depthwise_filter")
        pointwise_filter = ops.convert_to_tensor(pointwise_filter, dtype=x.dtype, name="pointwise_filter")
        if depthwise_filter.shape.ndims is not None and depthwise_filter.shape.ndims != 4:
            raise ValueError(f"Shape must be rank 4 but is rank {depthwise_filter.shape.ndims} (depthwise_filter)")
        if pointwise_filter.shape.ndims is not None:
            if pointwise_filter.shape.ndims != 4:
                raise ValueError(f"Shape must be rank 4 but is rank {pointwise_filter.shape.ndims} (pointwise_filter)")
            for d in (0, 1):
                if not pointwise_filter.shape[d].is_compatible_with(1):
                    raise ValueError(
                        f"Dimension {pointwise_filter.shape[d]} of the pointwise filter must be 1, got shape "
                        f"{pointwise_filter.shape}"
                    )
        dil = [1, 1, 1, 1] if rate is None else nn_ops._nhwc_list(rate, "rate")
        depthwise = nn_ops.depthwise_conv2d_native(
            x, depthwise_filter, strides, padding, data_format or "NHWC", dil, name="depthwise"
        )
        return nn_ops.conv2d(depthwise, pointwise_filter, [1, 1, 1, 1], "VALID", data_format or "NHWC", name=scope)


def depthwise_conv2d_native_backprop_input(
    input_sizes,
    filter,
    out_backprop,
    strides,
    padding,
    data_format="NHWC",
    dilations=[1, 1, 1, 1],  # noqa: B006
    name=None,
):
    """The gradient of depthwise_conv2d_native with respect to its input (of shape `input_sizes`).

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     w = tw.constant(np.ones([2, 2, 1, 1], np.float32))
      ...     dy = tw.constant(np.ones([1, 1, 1, 1], np.float32))
      ...     dx = tw.nn.depthwise_conv2d_native_backprop_input([1, 2, 2, 1], w, dy, [1, 1, 1, 1], "VALID")
      ...     print(sess.run(dx).ravel())
      [1. 1. 1. 1.]
    """
    out_backprop = nn_ops._float_tensor(out_backprop)
    with _scope(name, "DepthwiseConv2dNativeBackpropInput") as scope:
        sizes = nn_ops._sizes(input_sizes, "input_sizes")
        f = ops.convert_to_tensor(filter, dtype=out_backprop.dtype)
        attrs = nn_ops._conv_attrs(strides, padding, data_format, dilations)
        return gen_ops.depthwise_conv2d_native_backprop_input(sizes, f, out_backprop, **attrs, name=scope)


def depthwise_conv2d_native_backprop_filter(
    input,
    filter_sizes,
    out_backprop,
    strides,
    padding,
    data_format="NHWC",
    dilations=[1, 1, 1, 1],  # noqa: B006
    name=None,
):
    """The gradient of depthwise_conv2d_native with respect to its filter (of shape `filter_sizes`).

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant(np.ones([1, 2, 2, 1], np.float32))
      ...     dy = tw.constant(np.ones([1, 1, 1, 1], np.float32))
      ...     dw = tw.nn.depthwise_conv2d_native_backprop_filter(x, [2, 2, 1, 1], dy, [1, 1, 1, 1], "VALID")
      ...     print(sess.run(dw).ravel())
      [1. 1. 1. 1.]
    """
    x = nn_ops._float_tensor(input)
    with _scope(name, "DepthwiseConv2dNativeBackpropFilter") as scope:
        sizes = nn_ops._sizes(filter_sizes, "filter_sizes")
        dy = ops.convert_to_tensor(out_backprop, dtype=x.dtype)
        attrs = nn_ops._conv_attrs(strides, padding, data_format, dilations)
        return gen_ops.depthwise_conv2d_native_backprop_filter(x, sizes, dy, **attrs, name=scope)


def _pool1d(pool_fn, input, ksize, strides, padding, data_format, name, default):
    _check_nwc(data_format, default)
    with _scope(name, default) as scope:
        x = array_ops.expand_dims(nn_ops._float_tensor(input), 1)
        ksize = [1, 1] + _sequence(ksize, 1, "ksize") + [1]
        strides = [1, 1] + _sequence(strides, 1, "strides") + [1]
        # As TF: the pool op takes the scope's name ("MaxPool1d"), the Squeeze after it is "MaxPool1d/Squeeze".
        return array_ops.squeeze(pool_fn(x, ksize, strides, padding, name=scope), [1])


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    """Max pooling of input [batch, width, channels] over windows of `ksize` (a MaxPool over a unit height).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.max_pool1d([[[1.0], [3.0], [2.0], [0.0]]], 2, 2, "VALID")).ravel())
      [3. 2.]
    """
    return _pool1d(nn_ops.max_pool, input, ksize, strides, padding, data_format, name, "MaxPool1d")


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    """Average pooling of input [batch, width, channels] (an AvgPool over a unit height).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.avg_pool1d([[[1.0], [3.0], [2.0], [0.0]]], 2, 2, "VALID")).ravel())
      [2. 1.]
    """
    return _pool1d(nn_ops.avg_pool, input, ksize, strides, padding, data_format, name, "AvgPool1D")


def _spatial_rank(input, what):
    rank = input.shape.ndims
    if rank is None:
        raise ValueError(f"{what}: the rank of the input must be known")
    if rank not in (3, 4, 5):
        raise ValueError(f"{what}: input must have rank 3, 4 or 5 (1 to 3 spatial dimensions), got rank {rank}")
    return rank - 2


def _pool_fn(kind, n):
    from tensorweave._src.ops import nn_volume_ops

    table = {
        ("MAX", 1): max_pool1d,
        ("MAX", 2): nn_ops.max_pool,
        ("MAX", 3): nn_volume_ops.max_pool3d,
        ("AVG", 1): avg_pool1d,
        ("AVG", 2): nn_ops.avg_pool,
        ("AVG", 3): nn_volume_ops.avg_pool3d,
    }
    return table[(kind, n)]


def max_pool_v2(input, ksize, strides, padding, data_format=None, name=None):
    """Max pooling over 1, 2 or 3 spatial dimensions, chosen by the input's rank.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.max_pool_v2([[[1.0], [3.0]]], 2, 2, "VALID")).ravel())
      [3.]
    """
    x = nn_ops._float_tensor(input)
    n = _spatial_rank(x, "max_pool_v2")
    fn = _pool_fn("MAX", n)
    if n == 2:
        return fn(x, _full(ksize, n), _full(strides, n), padding, data_format or "NHWC", name=name)
    return fn(x, ksize, strides, padding, name=name)


def avg_pool_v2(input, ksize, strides, padding, data_format=None, name=None):
    """Average pooling over 1, 2 or 3 spatial dimensions, chosen by the input's rank.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.avg_pool_v2([[[1.0], [3.0]]], 2, 2, "VALID")).ravel())
      [2.]
    """
    x = nn_ops._float_tensor(input)
    n = _spatial_rank(x, "avg_pool_v2")
    fn = _pool_fn("AVG", n)
    if n == 2:
        return fn(x, _full(ksize, n), _full(strides, n), padding, data_format or "NHWC", name=name)
    return fn(x, ksize, strides, padding, name=name)


def _full(value, n):
    return [1] + _sequence(value, n, "ksize/strides") + [1]


def pool(
    input,
    window_shape,
    pooling_type,
    padding,
    dilation_rate=None,
    strides=None,
    name=None,
    data_format=None,
    dilations=None,
):
    """N-d max or average pooling ("MAX" or "AVG") over windows `window_shape`, N = len(window_shape) in 1..3.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.pool([[[1.0], [3.0], [5.0], [7.0]]], [2], "AVG", "VALID", strides=[2])).ravel())
      [2. 6.]
    """
    dilation_rate = dilations if dilations is not None else dilation_rate
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError(f"Invalid pooling_type: {pooling_type}")
    window_shape = [int(w) for w in window_shape]
    n = len(window_shape)
    if n not in (1, 2, 3):
        raise ValueError(f"It is required that 1 <= num_spatial_dims <= 3, got {n}")
    x = nn_ops._float_tensor(input)
    if x.shape.ndims is not None and x.shape.ndims != n + 2:
        raise ValueError(f"Input tensor must be of rank {n + 2} but was {x.shape.ndims}")
    dilation_rate = _sequence(dilation_rate, n, "dilation_rate")
    strides = _sequence(strides, n, "strides")
    if any(r < 1 for r in dilation_rate):
        raise ValueError(f"Dilation rate must be positive, got {dilation_rate}")
    if any(s < 1 for s in strides):
        raise ValueError(f"Strides must be positive, got {strides}")
    if any(r > 1 for r in dilation_rate) and any(s > 1 for s in strides):
        raise ValueError("strides > window_shape not supported due to inconsistency between CPU and GPU")
    if any(r > 1 for r in dilation_rate) and padding == "SAME":
        raise ValueError(
            "pooling with 'SAME' padding is not implemented for `dilation_rate` > 1. Received: "
            f"padding={padding} and dilation_rate={np.array(dilation_rate)}"
        )
    if data_format not in (None, "NWC", "NHWC", "NDHWC"):
        raise ValueError(f"pool: data_format {data_format!r}: only channels-last runs on CPU")
    with _scope(name, f"{pooling_type.lower()}_pool") as scope:
        fn = _pool_fn(pooling_type, n)

        def pool_fn(value, pool_padding, name=None):
            if n == 2:
                return fn(value, [1] + window_shape + [1], [1] + strides + [1], pool_padding, name=name)
            return fn(value, window_shape, strides, pool_padding, name=name)

        if all(r == 1 for r in dilation_rate):
            return pool_fn(x, padding, name=scope)
        return _with_space_to_batch(x, window_shape, dilation_rate, padding, pool_fn, scope)


def _with_space_to_batch(x, window_shape, rates, padding, fn, name):
    """fn over a dilated window as TF's `with_space_to_batch`: the input's spatial dims split into `rates`
    interleaved batches (SAME: padded with zeros for the dilated window), `fn` run VALID on them, and the
    batches put back."""
    spatial = x.shape.as_list()[1 : 1 + len(rates)]
    if any(d is None for d in spatial):
        raise NotImplementedError(f"a dilated window needs the input's spatial dims known, got {x.shape}")
    if padding == "SAME":
        extra = [(k - 1) * r for k, r in zip(window_shape, rates)]
        base = [[e // 2, e - e // 2] for e in extra]
    elif padding == "VALID":
        base = [[0, 0] for _ in rates]
    else:
        raise ValueError(f"Invalid padding method {padding!r}")
    paddings, crops = [], []
    for d, r, (start, end) in zip(spatial, rates, base):
        end_extra = (r - (d + start + end) % r) % r
        paddings.append([start, end + end_extra])
        crops.append([0, end_extra])
    from tensorweave._src.ops import array_nd_ops

    batched = array_nd_ops.space_to_batch_nd(x, rates, paddings)
    return array_nd_ops.batch_to_space_nd(fn(batched, "VALID"), rates, crops, name=name)


def convolution(
    input,
    filter=None,
    padding=None,
    strides=None,
    dilation_rate=None,
    name=None,
    data_format=None,
    filters=None,
    dilations=None,
):
    """An N-d convolution (N = 1, 2 or 3, from the input's rank) with strides and dilation rates.

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant(np.ones([1, 4, 1], np.float32))
      ...     w = tw.constant(np.ones([2, 1, 1], np.float32))
      ...     print(sess.run(tw.nn.convolution(x, w, "VALID")).ravel())
      [2. 2. 2.]
    """
    filter = filters if filter is None else filter
    dilation_rate = dilations if dilations is not None else dilation_rate
    x = nn_ops._float_tensor(input)
    n = _spatial_rank(x, "convolution")
    strides = _sequence(strides, n, "strides")
    dilation_rate = _sequence(dilation_rate, n, "dilation_rate")
    if any(r > 1 for r in dilation_rate) and any(s > 1 for s in strides):
        raise ValueError("strides > 1 not supported in conjunction with dilation_rate > 1")
    with _scope(name, "convolution") as scope:
        if n == 1:
            return conv1d(x, filter, strides, padding, data_format=data_format, dilations=dilation_rate, name=scope)
        if n == 2:
            return nn_ops.conv2d(
                x,
                filter,
                [1] + strides + [1],
                padding,
                data_format=data_format or "NHWC",
                dilations=[1] + dilation_rate + [1],
                name=scope,
            )
        from tensorweave._src.ops import nn_volume_ops

        return nn_volume_ops.conv3d(
            x, filter, [1] + strides + [1], padding, data_format=data_format or "NDHWC",
            dilations=[1] + dilation_rate + [1], name=scope,
        )  # fmt: skip


def conv_transpose(
    input,
    filters,
    output_shape,
    strides,
    padding="SAME",
    data_format=None,
    dilations=None,
    name=None,
):
    """The transpose of `convolution`: N (1 to 3) from the length of `output_shape`.

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant(np.ones([1, 1, 1], np.float32))
      ...     w = tw.constant(np.ones([2, 1, 1], np.float32))
      ...     print(sess.run(tw.nn.conv_transpose(x, w, [1, 2, 1], 1, "VALID")).ravel())
      [1. 1.]
    """
    if isinstance(output_shape, ops.Tensor):
        n = output_shape.shape.num_elements()
        if n is None:
            raise ValueError("conv_transpose: output_shape must have a known length")
    else:
        n = len(output_shape)
    with _scope(name, "conv_transpose") as scope:
        if n == 3:
            return conv1d_transpose(input, filters, output_shape, strides, padding, data_format or "NWC", dilations)
        if n == 4:
            return conv2d_transpose(
                input, filters, output_shape, _full(strides, 2), padding, data_format or "NHWC",
                dilations=None if dilations is None else _full(dilations, 2), name=scope,
            )  # fmt: skip
        if n == 5:
            from tensorweave._src.ops import nn_volume_ops

            return nn_volume_ops.conv3d_transpose(
                input, filters, output_shape, _full(strides, 3), padding, data_format or "NDHWC",
                dilations=None if dilations is None else _full(dilations, 3), name=scope,
            )  # fmt: skip
        raise ValueError(f"output_shape must have length 3, 4 or 5 (1 to 3 spatial dimensions), got {n}")


def _morphology_attrs(strides, rates, padding):
    return {
        "strides": nn_ops._nhwc_list(strides, "strides"),
        "rates": nn_ops._nhwc_list(rates, "rates"),
        "padding": nn_ops._padding(padding),
    }


@gen_ops.doc_from("Dilation2D")
def dilation2d(
    input,
    filter=None,
    strides=None,
    rates=None,
    padding=None,
    name=None,
    filters=None,
    dilations=None,
):
    """input [batch, h, w, depth], filter [kh, kw, depth]; strides and rates 4 ints [1, r, c, 1].

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant([[[[1.0], [5.0], [2.0]]]])
      ...     y = tw.nn.dilation2d(x, tw.zeros([1, 2, 1]), [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
      ...     print(sess.run(y).ravel())
      [5. 5.]
    """
    filter = filters if filter is None else filter
    rates = dilations if dilations is not None else rates
    x = ops.convert_to_tensor(input)
    f = ops.convert_to_tensor(filter, dtype=x.dtype)
    return gen_ops.dilation2d(x, f, **_morphology_attrs(strides, rates, padding), name=name)


def erosion2d(value, kernel, strides, rates, padding, name=None):
    """Grayscale erosion: -dilation2d(-value, kernel reversed in both spatial dims).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant([[[[1.0], [5.0], [2.0]]]])
      ...     y = tw.nn.erosion2d(x, tw.zeros([1, 2, 1]), [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
      ...     print(sess.run(y).ravel())
      [1. 2.]
    """
    from tensorweave._src.ops import array_nd_ops, math_ops

    with _scope(name, "erosion2d") as scope:
        value = ops.convert_to_tensor(value, name="value")
        kernel = ops.convert_to_tensor(kernel, dtype=value.dtype, name="kernel")
        # As TF names them: the Dilation2D op takes the scope's name, the final Neg is "<scope>/Neg_1".
        dilated = gen_ops.dilation2d(
            math_ops.negative(value),
            array_nd_ops.reverse_v2(kernel, [0, 1]),
            **_morphology_attrs(strides, rates, padding),
            name=scope,
        )
        return math_ops.negative(dilated)


def with_space_to_batch(
    input,
    dilation_rate,
    padding,
    op,
    filter_shape=None,
    spatial_dims=None,
    data_format=None,
):
    """op(input, num_spatial_dims, padding) applied with dilation `dilation_rate`: the input is rearranged by
    space_to_batch_nd (padded as `padding` and `filter_shape` require), `op` runs with VALID padding and
    batch_to_space_nd puts the result back, as TensorFlow builds it.

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant(np.arange(8, dtype=np.float32).reshape([1, 1, 8, 1]))
      ...     op = lambda t, n, p: tw.nn.max_pool(t, [1, 1, 2, 1], [1, 1, 1, 1], p)
      ...     print(sess.run(tw.nn.with_space_to_batch(x, [1, 2], "VALID", op)).ravel())
      [2. 3. 4. 5. 6. 7.]
    """
    import numpy as np

    from tensorweave._src.ops import array_nd_ops

    x = ops.convert_to_tensor(input, name="input")
    rates = np.asarray(dilation_rate, dtype=np.int64).reshape(-1)
    n = rates.size
    if spatial_dims is None:
        spatial_dims = list(range(1, n + 1))
    spatial_dims = sorted(int(d) for d in spatial_dims)
    if len(spatial_dims) != n or spatial_dims != list(range(spatial_dims[0], spatial_dims[0] + n)):
        raise ValueError("spatial_dims must be a contiguous, increasing list of dilation_rate's length")
    if spatial_dims[0] < 1:
        raise ValueError("spatial_dims must be >= 1")
    if np.any(rates < 1):
        raise ValueError(f"dilation_rate must be positive, got {list(rates)}")
    padding = nn_ops._padding(padding)
    if np.all(rates == 1):
        return op(x, n, padding)
    if padding == "SAME":
        if filter_shape is None:
            raise ValueError("filter_shape must be specified for SAME padding")
        filter_shape = np.asarray(filter_shape, dtype=np.int64).reshape(-1)
        dilated = (filter_shape - 1) * rates + 1
        pad_extra = dilated - 1
        base = np.stack([pad_extra // 2, pad_extra - pad_extra // 2], axis=1)
    elif padding == "VALID":
        base = np.zeros([n, 2], np.int64)
    else:
        raise ValueError(f"Invalid padding method {padding!r}")
    sizes = [x.shape[d].value if x.shape.ndims else None for d in spatial_dims]
    if any(s is None for s in sizes):
        raise NotImplementedError("with_space_to_batch needs the spatial dimensions known statically in tensorweave")
    full = np.asarray(sizes) + base[:, 0] + base[:, 1]
    pad_end_extra = (rates - full % rates) % rates
    paddings = np.stack([base[:, 0], base[:, 1] + pad_end_extra], axis=1)
    crops = np.stack([np.zeros(n, np.int64), pad_end_extra], axis=1)
    lead = spatial_dims[0] - 1
    if lead:
        # Leading dims between batch and space: TF moves none; space_to_batch_nd works on dims 1..n only.
        raise NotImplementedError("with_space_to_batch with spatial_dims not starting at 1 is not supported")
    converted = array_nd_ops.space_to_batch_nd(x, rates, paddings)
    result = op(converted, n, "VALID")
    return array_nd_ops.batch_to_space_nd(result, rates, crops)

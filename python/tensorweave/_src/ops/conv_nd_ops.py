"""TF1's raw-op convolution entry points: `tf.conv` (the N-d Conv op with batch_dims and groups) and
`tf.conv2d_backprop_filter_v2` / `tf.conv2d_backprop_input_v2` (which take the filter or the input itself
instead of its shape), composed of the Conv2D/Conv3D ops and their backprops."""

from tensorweave._src.framework import dtypes, ops
from tensorweave._src.ops import array_ops, math_ops, nn_ops, nn_volume_ops

_CONV_TYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32)


def _allowed(op_type, attr, value, allowed):
    if value not in allowed:
        quoted = ", ".join(f'"{a}"' for a in allowed)
        raise ValueError(f"Attr '{attr}' of '{op_type}' Op passed string '{value}' not in: {quoted}.")


def _ints(values, what):
    return [int(v) for v in values] if values is not None else []


def _pairs(explicit_paddings, rank, op_type):
    if len(explicit_paddings) != 2 * rank:
        raise ValueError(
            f"explicit_paddings attribute of {op_type} must contain {2 * rank} values, but got: "
            f"{len(explicit_paddings)}"
        )
    return [explicit_paddings[2 * i : 2 * i + 2] for i in range(rank)]


def _conv_same_rank(x, f, n, strides, padding, dilations):
    """Conv2D (n=2) or Conv3D (n=3) of a channels-last x: padding "SAME", "VALID" or a list of pairs."""
    if isinstance(padding, list):
        x = array_ops.pad(x, padding)
        padding = "VALID"
    if n == 2:
        return nn_ops.conv2d(x, f, strides, padding, dilations=dilations)
    return nn_volume_ops.conv3d(x, f, strides, padding, dilations=dilations)


def conv(
    input,  # noqa: A002 - TensorFlow's signature
    filter,  # noqa: A002
    strides,
    padding,
    explicit_paddings=[],  # noqa: B006
    data_format="CHANNELS_LAST",
    dilations=[],  # noqa: B006
    batch_dims=1,
    groups=1,
    name=None,
):
    """An N-d convolution (N = 2 or 3) of `input` [*batch_shape (batch_dims dims), *spatial, in_channels] (or
    channels before the spatial dims with data_format "CHANNELS_FIRST") with `filter` [*spatial_filter,
    in_channels / groups, out_channels]: TF's Conv op. `strides` and `dilations` have N + 2 values (dilations
    [] means ones), `padding` is "SAME", "VALID" or "EXPLICIT" with `explicit_paddings` (2 per dim of the
    N + 2). Grouped convolutions (groups > 1) convolve each group of channels with its own slice of the
    filter's output channels. int32 is computed in float64 (exact while the sums fit in int32). Unlike
    TF's Conv op (no registered gradient) it is differentiable: it is built of Conv2D/Conv3D.

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant(np.ones([1, 3, 3, 1], np.float32))
      ...     w = tw.constant(np.ones([2, 2, 1, 1], np.float32))
      ...     print(sess.run(tw.conv(x, w, [1, 1, 1, 1], "VALID"))[0, :, :, 0])
      [[4. 4.]
       [4. 4.]]
    """
    with ops.name_scope(name, "Conv", [input, filter]) as scope:
        x = ops.convert_to_tensor(input, name="input")
        f = ops.convert_to_tensor(filter, dtype=x.dtype, name="filter")
        if x.dtype not in _CONV_TYPES:
            raise TypeError(
                f"Value passed to parameter 'input' has DataType {x.dtype.name} not in list of allowed values: "
                "float16, bfloat16, float32, float64, int32"
            )
        padding = nn_ops._padding(padding)
        _allowed("Conv", "padding", padding, ("SAME", "VALID", "EXPLICIT"))
        _allowed("Conv", "data_format", data_format, ("CHANNELS_FIRST", "CHANNELS_LAST"))
        batch_dims = int(batch_dims)
        groups = int(groups)
        if batch_dims < 1:
            raise ValueError(f"batch_dims of Conv must be at least 1, but got: {batch_dims}")
        if groups < 1:
            raise ValueError(f"groups of Conv must be at least 1, but got: {groups}")
        if f.shape.ndims is None or x.shape.ndims is None:
            raise ValueError("Conv needs the ranks of its input and filter known when the graph is built")
        if f.shape.ndims not in (4, 5):
            raise ValueError(f"Filter tensor must be rank 4 or 5, but got: {f.shape.ndims}")
        standard_rank = x.shape.ndims - (batch_dims - 1)
        if standard_rank not in (4, 5):
            raise ValueError(
                f"Input tensor must be rank 4 or 5, excluding extra batch dimensions, but got: {standard_rank}"
            )
        if standard_rank != f.shape.ndims:
            raise ValueError(
                f"Input tensor rank ({standard_rank}, excluding extra batch dimensions) must be the filter's "
                f"({f.shape.ndims})"
            )
        n = f.shape.ndims - 2
        strides = _ints(strides, "strides")
        if len(strides) != n + 2:
            raise ValueError(f"Stride attribute should contain {n + 2} values, but got: {len(strides)}")
        dilations = _ints(dilations, "dilations") or [1] * (n + 2)
        if len(dilations) != n + 2:
            raise ValueError(f"Dilations attribute should contain {n + 2} values, but got: {len(dilations)}")
        if any(s < 1 for s in strides) or any(d < 1 for d in dilations):
            raise ValueError(f"Conv's strides and dilations must be positive, got {strides} and {dilations}")
        channels_last = data_format == "CHANNELS_LAST"
        if not channels_last:
            # Strides, dilations and paddings come in the input's layout: move the channel entry last.
            strides = [strides[0]] + strides[2:] + [strides[1]]
            dilations = [dilations[0]] + dilations[2:] + [dilations[1]]
        if padding == "EXPLICIT":
            pairs = _pairs(_ints(explicit_paddings, "explicit_paddings"), n + 2, "Conv")
            if not channels_last:
                pairs = [pairs[0]] + pairs[2:] + [pairs[1]]
            if pairs[0] != [0, 0] or pairs[-1] != [0, 0]:
                raise ValueError("Conv's explicit paddings of the batch and channel dimensions must be 0")
            padding = pairs
        elif explicit_paddings:
            raise ValueError(
                f"explicit_paddings attribute of Conv must be empty when padding is not EXPLICIT, "
                f"got {list(explicit_paddings)}"
            )
        if strides[0] != 1 or strides[-1] != 1 or dilations[0] != 1 or dilations[-1] != 1:
            raise ValueError(
                "Conv does not support strides or dilations in the batch and channel dimensions, got strides "
                f"{strides} and dilations {dilations} (channels last)"
            )
        if not channels_last:
            perm = list(range(batch_dims)) + list(range(batch_dims + 1, batch_dims + 1 + n)) + [batch_dims]
            x = array_ops.transpose(x, perm)
        in_depth = x.shape[-1].value
        filter_in, filter_out = f.shape[-2].value, f.shape[-1].value
        if in_depth is not None and filter_in is not None:
            if filter_in == 0 or in_depth % filter_in != 0:
                raise ValueError(
                    f"Depth of input ({in_depth}) is not a multiple of input depth of filter ({filter_in})"
                )
            if in_depth // filter_in != groups:
                raise ValueError(
                    f"Input depth divided by filter input depth does not match with groups parameter ({groups})"
                )
        if filter_out is not None and filter_out % groups != 0:
            raise ValueError(f"Depth of output ({filter_out}) is not a multiple of the number of groups ({groups})")
        if in_depth is None and groups > 1:
            raise ValueError("A grouped Conv needs the input's channel dimension known when the graph is built")
        out_dtype = x.dtype
        if out_dtype == dtypes.int32:
            x, f = math_ops.cast(x, dtypes.float64), math_ops.cast(f, dtypes.float64)
        batch_shape = None
        if batch_dims > 1:
            full_shape = array_ops.shape(x)
            batch_shape = full_shape[:batch_dims]
            x = array_ops.reshape(x, array_ops.concat([[-1], full_shape[batch_dims:]], 0))
        if groups == 1:
            y = _conv_same_rank(x, f, n, strides, padding, dilations)
        else:
            xs = array_ops.split(x, groups, axis=-1)
            fs = array_ops.split(f, groups, axis=-1)
            y = array_ops.concat(
                [_conv_same_rank(xg, fg, n, strides, padding, dilations) for xg, fg in zip(xs, fs)], -1
            )
        if batch_shape is not None:
            y = array_ops.reshape(y, array_ops.concat([batch_shape, array_ops.shape(y)[1:]], 0))
        if out_dtype == dtypes.int32:
            y = math_ops.cast(y, dtypes.int32)
        if not channels_last:
            rank = batch_dims + n + 1
            y = array_ops.transpose(y, list(range(batch_dims)) + [rank - 1] + list(range(batch_dims, rank - 1)))
        return array_ops.identity(y, name=scope)


def _v2_padding(padding, explicit_paddings, op_type):
    padding = nn_ops._padding(padding)
    _allowed(op_type, "padding", padding, ("SAME", "VALID", "EXPLICIT"))
    if padding == "EXPLICIT":
        return _pairs(_ints(explicit_paddings, "explicit_paddings"), 4, op_type)
    if explicit_paddings:
        raise ValueError(
            f"explicit_paddings attribute of {op_type} must be empty when padding is not EXPLICIT, got "
            f"{list(explicit_paddings)}"
        )
    return padding


def _shape_of(t):
    return t.shape.as_list() if t.shape.is_fully_defined() else array_ops.shape(t)


def conv2d_backprop_filter_v2(
    input,  # noqa: A002 - TensorFlow's signature
    filter,  # noqa: A002
    out_backprop,
    strides,
    padding,
    use_cudnn_on_gpu=True,
    explicit_paddings=[],  # noqa: B006
    data_format="NHWC",
    dilations=[1, 1, 1, 1],  # noqa: B006
    name=None,
):
    """The gradient of conv2d with respect to its filter, as `conv2d_backprop_filter`, but given the `filter`
    itself (only its shape is used) instead of its sizes: TF's Conv2DBackpropFilterV2.

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant(np.ones([1, 2, 2, 1], np.float32))
      ...     w = tw.zeros([2, 2, 1, 1])
      ...     dy = tw.constant(np.ones([1, 1, 1, 1], np.float32))
      ...     print(sess.run(tw.conv2d_backprop_filter_v2(x, w, dy, [1, 1, 1, 1], "VALID")).ravel())
      [1. 1. 1. 1.]
    """
    with ops.name_scope(name, "Conv2DBackpropFilterV2", [input, filter, out_backprop]) as scope:
        x = ops.convert_to_tensor(input, name="input")
        f = ops.convert_to_tensor(filter, dtype=x.dtype, name="filter")
        dy = ops.convert_to_tensor(out_backprop, dtype=x.dtype, name="out_backprop")
        padding = _v2_padding(padding, explicit_paddings, "Conv2DBackpropFilterV2")
        return nn_ops.conv2d_backprop_filter(
            x, _shape_of(f), dy, strides, padding, use_cudnn_on_gpu, data_format, dilations, name=scope
        )


def conv2d_backprop_input_v2(
    input,  # noqa: A002 - TensorFlow's signature
    filter,  # noqa: A002
    out_backprop,
    strides,
    padding,
    use_cudnn_on_gpu=True,
    explicit_paddings=[],  # noqa: B006
    data_format="NHWC",
    dilations=[1, 1, 1, 1],  # noqa: B006
    name=None,
):
    """The gradient of conv2d with respect to its input, as `conv2d_backprop_input`, but given the `input`
    itself (only its shape is used) instead of its sizes: TF's Conv2DBackpropInputV2.

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.zeros([1, 2, 2, 1])
      ...     w = tw.constant(np.ones([2, 2, 1, 1], np.float32))
      ...     dy = tw.constant(np.ones([1, 1, 1, 1], np.float32))
      ...     print(sess.run(tw.conv2d_backprop_input_v2(x, w, dy, [1, 1, 1, 1], "VALID")).ravel())
      [1. 1. 1. 1.]
    """
    with ops.name_scope(name, "Conv2DBackpropInputV2", [input, filter, out_backprop]) as scope:
        x = ops.convert_to_tensor(input, name="input")
        f = ops.convert_to_tensor(filter, dtype=x.dtype, name="filter")
        dy = ops.convert_to_tensor(out_backprop, dtype=x.dtype, name="out_backprop")
        padding = _v2_padding(padding, explicit_paddings, "Conv2DBackpropInputV2")
        return nn_ops.conv2d_backprop_input(
            _shape_of(x), f, dy, strides, padding, use_cudnn_on_gpu, data_format, dilations, name=scope
        )

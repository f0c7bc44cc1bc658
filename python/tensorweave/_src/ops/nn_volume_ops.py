"""TensorFlow 1's 3-D convolution and pooling (NDHWC), local response normalization and max pooling with argmax:
wrappers of the C++ ops with TF1's names, signatures and defaults."""

import collections

from tensorweave._src.framework import dtypes, ops
from tensorweave._src.ops import gen_ops, nn_ops


def _ndhwc_list(values, what):
    """A 5-element NDHWC list from an int, 3 ints or 5 ints."""
    if isinstance(values, int):
        return [1, values, values, values, 1]
    values = [int(v) for v in values]
    if len(values) == 1:
        return [1] + values * 3 + [1]
    if len(values) == 3:
        return [1] + values + [1]
    if len(values) == 5:
        return values
    raise ValueError(f"{what} should be of length 1, 3 or 5 but was {len(values)}")


def _check_ndhwc(data_format, fn):
    if data_format not in (None, "NDHWC"):
        raise ValueError(f"{fn}: data_format {data_format!r}: only 'NDHWC' runs on CPU")


@gen_ops.doc_from("Conv3D")
def conv3d(
    input,
    filter=None,
    strides=None,
    padding=None,
    data_format="NDHWC",
    dilations=[1, 1, 1, 1, 1],  # noqa: B006
    name=None,
    filters=None,
):
    """Args: input [batch, depth, height, width, channels], filter [kd, kh, kw, in_channels, out_channels],
    strides 5 ints [1, sd, sh, sw, 1], padding "SAME" or "VALID".

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant(np.ones([1, 2, 2, 2, 1], np.float32))
      ...     w = tw.constant(np.ones([2, 2, 2, 1, 1], np.float32))
      ...     print(sess.run(tw.nn.conv3d(x, w, [1, 1, 1, 1, 1], "VALID")).ravel())
      [8.]
    """
    filter = filters if filter is None else filter
    _check_ndhwc(data_format, "conv3d")
    x = nn_ops._float_tensor(input)
    f = ops.convert_to_tensor(filter, dtype=x.dtype)
    return gen_ops.conv3d(
        x,
        f,
        strides=_ndhwc_list(strides, "strides"),
        padding=nn_ops._padding(padding),
        dilations=_ndhwc_list(dilations, "dilations"),
        name=name,
    )


@gen_ops.doc_from("Conv3DBackpropFilterV2")
def conv3d_backprop_filter_v2(
    input,
    filter_sizes,
    out_backprop,
    strides,
    padding,
    data_format="NDHWC",
    dilations=[1, 1, 1, 1, 1],  # noqa: B006
    name=None,
):
    """`filter_sizes`: the filter's shape, a list or an int32 tensor.

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant(np.ones([1, 2, 2, 2, 1], np.float32))
      ...     dy = tw.constant(np.ones([1, 1, 1, 1, 1], np.float32))
      ...     print(sess.run(tw.nn.conv3d_backprop_filter_v2(x, [2, 2, 2, 1, 1], dy, [1] * 5, "VALID")).ravel())
      [1. 1. 1. 1. 1. 1. 1. 1.]
    """
    _check_ndhwc(data_format, "conv3d_backprop_filter_v2")
    x = nn_ops._float_tensor(input)
    with ops.get_default_graph().name_scope(name or "Conv3DBackpropFilterV2") as scope:
        sizes = nn_ops._sizes(filter_sizes, "filter_sizes")
        dy = ops.convert_to_tensor(out_backprop, dtype=x.dtype)
        return gen_ops.conv3d_backprop_filter_v2(
            x,
            sizes,
            dy,
            strides=_ndhwc_list(strides, "strides"),
            padding=nn_ops._padding(padding),
            dilations=_ndhwc_list(dilations, "dilations"),
            name=scope,
        )


conv3d_backprop_filter = conv3d_backprop_filter_v2


def conv3d_transpose(
    value=None,
    filter=None,
    output_shape=None,
    strides=None,
    padding="SAME",
    data_format="NDHWC",
    name=None,
    input=None,
    filters=None,
    dilations=None,
):
    """The transpose (gradient) of conv3d: value [batch, d, h, w, out_channels], filter [kd, kh, kw, in_channels,
    out_channels] and the output's shape.

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant(np.ones([1, 1, 1, 1, 1], np.float32))
      ...     w = tw.constant(np.ones([2, 1, 1, 1, 1], np.float32))
      ...     print(sess.run(tw.nn.conv3d_transpose(x, w, [1, 2, 1, 1, 1], [1] * 5, "VALID")).ravel())
      [1. 1.]
    """
    from tensorweave._src.ops import nn_conv_ops

    value = input if value is None else value
    filter = filters if filter is None else filter
    _check_ndhwc(data_format, "conv3d_transpose")
    with ops.get_default_graph().name_scope(name or "conv3d_transpose") as scope:
        value = nn_ops._float_tensor(value)
        filter = ops.convert_to_tensor(filter, dtype=value.dtype, name="filter")
        output_shape = nn_conv_ops._output_shape(output_shape, 5, "output_shape")
        nn_conv_ops._check_transpose_channels(value, filter, 4)
        sizes = nn_ops._sizes(output_shape, "output_shape")
        return gen_ops.conv3d_backprop_input_v2(
            sizes,
            filter,
            value,
            strides=_ndhwc_list(strides, "strides"),
            padding=nn_ops._padding(padding),
            dilations=_ndhwc_list(dilations if dilations is not None else 1, "dilations"),
            name=scope,
        )


def _pool3d(op_type, input, ksize, strides, padding, data_format, name):
    _check_ndhwc(data_format, op_type)
    return gen_ops.wrapper(op_type)(
        nn_ops._float_tensor(input),
        ksize=_ndhwc_list(ksize, "ksize"),
        strides=_ndhwc_list(strides, "strides"),
        padding=nn_ops._padding(padding),
        name=name,
    )


@gen_ops.doc_from("MaxPool3D")
def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    """ksize and strides: an int, 3 ints or 5 ints.

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant(np.arange(8, dtype=np.float32).reshape([1, 2, 2, 2, 1]))
      ...     print(sess.run(tw.nn.max_pool3d(x, 2, 2, "VALID")).ravel())
      [7.]
    """
    return _pool3d("MaxPool3D", input, ksize, strides, padding, data_format, name)


@gen_ops.doc_from("AvgPool3D")
def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    """ksize and strides: an int, 3 ints or 5 ints.

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant(np.arange(8, dtype=np.float32).reshape([1, 2, 2, 2, 1]))
      ...     print(sess.run(tw.nn.avg_pool3d(x, 2, 2, "VALID")).ravel())
      [3.5]
    """
    return _pool3d("AvgPool3D", input, ksize, strides, padding, data_format, name)


@gen_ops.doc_from("LRN")
def local_response_normalization(input, depth_radius=5, bias=1, alpha=1, beta=0.5, name=None):
    """Also `tw.nn.lrn`.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.lrn([[[[1.0, 1.0]]]], depth_radius=1, bias=0.0, alpha=0.5, beta=1.0)).ravel())
      [1. 1.]
    """
    x = ops.convert_to_tensor(input)
    if not x.dtype.is_floating:
        raise TypeError(f"Value passed to parameter 'input' has DataType {x.dtype.name} not in list of allowed "
                        "values: float32, float64")  # fmt: skip
    return gen_ops.lrn(
        x, depth_radius=int(depth_radius), bias=float(bias), alpha=float(alpha), beta=float(beta), name=name
    )


lrn = local_response_normalization

_MaxPoolWithArgmax = collections.namedtuple("MaxPoolWithArgmax", ["output", "argmax"])


@gen_ops.doc_from("MaxPoolWithArgmax")
def max_pool_with_argmax(
    input,
    ksize,
    strides,
    padding,
    data_format="NHWC",
    Targmax=None,
    name=None,
    output_dtype=None,
    include_batch_in_index=False,
):
    """Returns (output, argmax); `Targmax` (or `output_dtype`) int64 by default.

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant(np.array([1.0, 4.0, 3.0, 2.0], np.float32).reshape([1, 2, 2, 1]))
      ...     out, argmax = sess.run(tw.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"))
      ...     print(out.ravel(), argmax.ravel())
      [4.] [1]
    """
    if data_format != "NHWC":
        raise ValueError("Data formats other than 'NHWC' are not yet supported")
    if Targmax is not None and output_dtype is not None and Targmax != output_dtype:
        raise ValueError("Targmax and output_dtype should be the same")
    dtype = dtypes.as_dtype(Targmax or output_dtype or dtypes.int64)
    out = gen_ops.max_pool_with_argmax(
        nn_ops._float_tensor(input),
        ksize=nn_ops._nhwc_list(ksize, "ksize"),
        strides=nn_ops._nhwc_list(strides, "strides"),
        padding=nn_ops._padding(padding),
        Targmax=dtype,
        include_batch_in_index=bool(include_batch_in_index),
        name=name,
    )
    return _MaxPoolWithArgmax(out[0], out[1])

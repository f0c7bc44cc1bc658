"""Neural-network ops (TensorFlow v1 names): activations, bias, convolution,
pooling, softmax and losses, batch normalization."""

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import errors
from tensorweave._src.framework import ops
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import constant_op
from tensorweave._src.ops import gen_ops


def _float_tensor(value, name="x"):
    t = ops.convert_to_tensor(value)
    if not t.dtype.is_floating and isinstance(value, ops.Tensor):
        # As TensorFlow: a tensor of a dtype the op does not take is a TypeError.
        raise TypeError(f"Value passed to {name} has DataType {t.dtype.name}, not a floating-point type ({t.name})")
    if not t.dtype.is_floating:
        t = ops.convert_to_tensor(value, dtype=dtypes.float32)
    return t


def _unary(op_type, features, name, **attrs):
    return gen_ops.wrapper(op_type)(_float_tensor(features), name=name, **attrs)


@gen_ops.doc_from("Relu")
def relu(features, name=None):
    """Element-wise.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.relu([-1.0, 2.0])))
      [0. 2.]
    """
    # Integers stay integers (as TF); the op's dtypes refuse bool and string.
    return gen_ops.relu(ops.convert_to_tensor(features), name=name)


@gen_ops.doc_from("Relu6")
def relu6(features, name=None):
    """Element-wise.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.relu6([-1.0, 3.0, 9.0])))
      [0. 3. 6.]
    """
    return gen_ops.relu6(ops.convert_to_tensor(features), name=name)


@gen_ops.doc_from("Elu")
def elu(features, name=None):
    """Element-wise.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.elu([0.0, 2.0])))
      [0. 2.]
    """
    return _unary("Elu", features, name)


@gen_ops.doc_from("Selu")
def selu(features, name=None):
    """Scaled ELU, element-wise.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.selu([0.0])))
      [0.]
    """
    return _unary("Selu", features, name)


@gen_ops.doc_from("Softplus")
def softplus(features, name=None):
    """Element-wise.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.softplus([0.0])))
      [0.6931472]
    """
    return _unary("Softplus", features, name)


@gen_ops.doc_from("LeakyRelu")
def leaky_relu(features, alpha=0.2, name=None):
    """Element-wise; `alpha` may be a numpy scalar.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.leaky_relu([-1.0, 2.0], alpha=0.1)))
      [-0.1  2. ]
    """
    return _unary("LeakyRelu", features, name, alpha=float(alpha))


@gen_ops.doc_from("BiasAdd")
def bias_add(value, bias, data_format=None, name=None):
    """`data_format` None is NHWC.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.bias_add([[1.0, 2.0]], [10.0, 20.0])))
      [[11. 22.]]
    """
    value = ops.convert_to_tensor(value)
    bias = ops.convert_to_tensor(bias, dtype=value.dtype)
    return gen_ops.bias_add(value, bias, data_format=data_format or "NHWC", name=name)


def _nhwc_list(values, what):
    """A 4-element NHWC list from an int, a pair or a 4-list (TensorFlow's
    conventions)."""
    if isinstance(values, int):
        return [1, values, values, 1]
    values = [int(v) for v in values]
    if len(values) == 1:
        return [1, values[0], values[0], 1]
    if len(values) == 2:
        return [1, values[0], values[1], 1]
    if len(values) == 4:
        return values
    raise ValueError(f"{what} must have 1, 2 or 4 elements, got {values}")


def _padding(padding):
    """The padding string as given: as in TensorFlow, "same" is the op's ValueError (its allowed values)."""
    if isinstance(padding, bytes):
        padding = padding.decode()
    return str(padding)


def _padding_attrs(padding):
    """{padding, explicit_paddings}: "SAME"/"VALID" in any case, or a list of 4 [before, after] pairs (one per
    NHWC dimension), which becomes padding "EXPLICIT" with the 8 values flattened, as TensorFlow's wrappers do."""
    if not isinstance(padding, (list, tuple)):
        value = _padding(padding)
        if value == "EXPLICIT":
            raise ValueError("padding 'EXPLICIT' is not a value to pass: give the explicit paddings as a list instead")
        return {"padding": value}
    flat = []
    for i, pair in enumerate(padding):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise ValueError(f"each element of a padding list must be a [before, after] pair; element {i} of {padding}")
        flat.extend(int(v) for v in pair)
    if len(padding) != 4:
        raise ValueError(f"a padding list must have 4 pairs (N, H, W, C), got {len(padding)}: {padding}")
    return {"padding": "EXPLICIT", "explicit_paddings": flat}


def _conv_attrs(strides, padding, data_format, dilations, **more):
    """The attrs of a convolution op as TensorFlow 1's wrappers take them: strides and dilations as an int, a
    pair or 4 ints, padding in any case or as a list of explicit [before, after] pairs."""
    return dict(
        strides=_nhwc_list(strides, "strides"),
        **_padding_attrs(padding),
        data_format=data_format,
        dilations=_nhwc_list(dilations, "dilations"),
        **more,
    )


@gen_ops.doc_from("Conv2D")
def conv2d(
    input,  # noqa: A002
    filter=None,  # noqa: A002
    strides=None,
    padding=None,
    use_cudnn_on_gpu=True,
    data_format="NHWC",
    dilations=[1, 1, 1, 1],  # noqa: B006
    name=None,
    filters=None,
):
    """Args:
      input: a float32 or float64 [batch, height, width, channels] tensor.
      filter: a [filter_height, filter_width, in_channels, out_channels] tensor.
      strides: 4 ints, [1, stride_h, stride_w, 1].
      padding: "SAME" or "VALID", or explicit paddings [[0, 0], [top, bottom], [left, right], [0, 0]].
      data_format: "NHWC" or "NCHW" (run as transposes around the NHWC op).
      dilations: 4 ints, [1, dilation_h, dilation_w, 1].

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant(np.ones([1, 3, 3, 1], np.float32))
      ...     w = tw.constant(np.ones([2, 2, 1, 1], np.float32))
      ...     print(sess.run(tw.nn.conv2d(x, w, [1, 1, 1, 1], "VALID"))[0, :, :, 0])
      [[4. 4.]
       [4. 4.]]
    """
    if filter is None:
        filter = filters  # noqa: A001
    x = _float_tensor(input)
    f = ops.convert_to_tensor(filter, dtype=x.dtype)
    if data_format == "NCHW":
        with ops.name_scope(name, "Conv2D", [x, f]) as scope:
            if isinstance(padding, (list, tuple)):
                padding = _from_nchw(padding)
            attrs = _conv_attrs(
                _nchw_list(strides, "strides"), padding, "NHWC", _nchw_list(dilations, "dilations"),
                use_cudnn_on_gpu=bool(use_cudnn_on_gpu),
            )  # fmt: skip
            y = gen_ops.conv2d(_to_nhwc(x), f, **attrs)
            return _to_nchw(y, scope)
    attrs = _conv_attrs(strides, padding, data_format, dilations, use_cudnn_on_gpu=bool(use_cudnn_on_gpu))
    return gen_ops.conv2d(x, f, **attrs, name=name)


def _from_nchw(values):
    return [values[0], values[2], values[3], values[1]]


def _nchw_list(values, what):
    """An NHWC 4-list from an int, a pair (spatial) or a 4-list in NCHW order."""
    if not isinstance(values, int) and len(values) == 4:
        return _from_nchw([int(v) for v in values])
    return _nhwc_list(values, what)


def _to_nhwc(x):
    """NCHW data as NHWC: tensorweave's kernels run NHWC, so an NCHW op is a transpose, the NHWC op and a
    transpose back (TensorFlow runs NCHW natively; the values are the same)."""
    from tensorweave._src.ops import array_ops

    if x.shape.ndims is not None and x.shape.ndims != 4:
        raise ValueError(f"data_format NCHW needs a 4-D input, got shape {x.shape}")
    return array_ops.transpose(x, [0, 2, 3, 1])


def _to_nchw(y, scope):
    from tensorweave._src.ops import array_ops

    return array_ops.transpose(y, [0, 3, 1, 2], name=scope)


def _sizes(value, name):
    if isinstance(value, ops.Tensor):
        return value
    return constant_op.constant([int(v) for v in value], dtype=dtypes.int32, name=name)


@gen_ops.doc_from("Conv2DBackpropInput")
def conv2d_backprop_input(
    input_sizes,
    filter,  # noqa: A002
    out_backprop,
    strides,
    padding,
    use_cudnn_on_gpu=True,
    data_format="NHWC",
    dilations=[1, 1, 1, 1],  # noqa: B006
    name=None,
):
    """`input_sizes`: the input's shape, a list or an int32 tensor.

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     w = tw.constant(np.ones([2, 2, 1, 1], np.float32))
      ...     dy = tw.constant(np.ones([1, 1, 1, 1], np.float32))
      ...     dx = tw.nn.conv2d_backprop_input([1, 2, 2, 1], w, dy, [1, 1, 1, 1], "VALID")
      ...     print(sess.run(dx).ravel())
      [1. 1. 1. 1.]
    """
    out_backprop = ops.convert_to_tensor(out_backprop)
    graph = ops.get_default_graph()
    with graph.name_scope(name or "Conv2DBackpropInput") as scope:
        sizes = _sizes(input_sizes, "input_sizes")
        attrs = _conv_attrs(strides, padding, data_format, dilations, use_cudnn_on_gpu=bool(use_cudnn_on_gpu))
        f = ops.convert_to_tensor(filter, dtype=out_backprop.dtype)
        return gen_ops.conv2d_backprop_input(sizes, f, out_backprop, **attrs, name=scope)


@gen_ops.doc_from("Conv2DBackpropFilter")
def conv2d_backprop_filter(
    input,  # noqa: A002
    filter_sizes,
    out_backprop,
    strides,
    padding,
    use_cudnn_on_gpu=True,
    data_format="NHWC",
    dilations=[1, 1, 1, 1],  # noqa: B006
    name=None,
):
    """`filter_sizes`: the filter's shape, a list or an int32 tensor.

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant(np.ones([1, 2, 2, 1], np.float32))
      ...     dy = tw.constant(np.ones([1, 1, 1, 1], np.float32))
      ...     dw = tw.nn.conv2d_backprop_filter(x, [2, 2, 1, 1], dy, [1, 1, 1, 1], "VALID")
      ...     print(sess.run(dw).ravel())
      [1. 1. 1. 1.]
    """
    x = ops.convert_to_tensor(input)
    graph = ops.get_default_graph()
    with graph.name_scope(name or "Conv2DBackpropFilter") as scope:
        sizes = _sizes(filter_sizes, "filter_sizes")
        attrs = _conv_attrs(strides, padding, data_format, dilations, use_cudnn_on_gpu=bool(use_cudnn_on_gpu))
        dy = ops.convert_to_tensor(out_backprop, dtype=x.dtype)
        return gen_ops.conv2d_backprop_filter(x, sizes, dy, **attrs, name=scope)


@gen_ops.doc_from("DepthwiseConv2dNative")
def depthwise_conv2d_native(
    input,  # noqa: A002
    filter,  # noqa: A002
    strides,
    padding,
    data_format="NHWC",
    dilations=[1, 1, 1, 1],  # noqa: B006
    name=None,
):
    """Example:
    >>> import numpy as np
    >>> import tensorweave as tw
    >>> with tw.Graph().as_default(), tw.Session() as sess:
    ...     x = tw.constant(np.ones([1, 2, 2, 2], np.float32))
    ...     w = tw.constant(np.ones([2, 2, 2, 1], np.float32))
    ...     print(sess.run(tw.nn.depthwise_conv2d_native(x, w, [1, 1, 1, 1], "VALID")).ravel())
    [4. 4.]
    """
    x = _float_tensor(input)
    f = ops.convert_to_tensor(filter, dtype=x.dtype)
    return gen_ops.depthwise_conv2d_native(x, f, **_conv_attrs(strides, padding, data_format, dilations), name=name)


def depthwise_conv2d(
    input,  # noqa: A002
    filter,  # noqa: A002
    strides,
    padding,
    rate=None,
    name=None,
    data_format="NHWC",
    dilations=None,
):
    """tf.nn.depthwise_conv2d: depthwise convolution, `rate` (or `dilations`)
    being the dilation.

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant(np.ones([1, 3, 3, 1], np.float32))
      ...     w = tw.constant(np.ones([2, 2, 1, 2], np.float32))
      ...     print(sess.run(tw.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "VALID")).shape)
      (1, 2, 2, 2)
    """
    rate = dilations if dilations is not None else rate
    dil = [1, 1, 1, 1] if rate is None else _nhwc_list(rate, "rate")
    return depthwise_conv2d_native(input, filter, strides, padding, data_format, dil, name=name or "depthwise")


def _pool(op_type, value, ksize, strides, padding, data_format, name):
    if data_format == "NCHW":
        x = _float_tensor(value)
        with ops.name_scope(name, op_type, [x]) as scope:
            y = gen_ops.wrapper(op_type)(
                _to_nhwc(x),
                ksize=_nchw_list(ksize, "ksize"),
                strides=_nchw_list(strides, "strides"),
                padding=_padding(padding),
                data_format="NHWC",
            )
            return _to_nchw(y, scope)
    return gen_ops.wrapper(op_type)(
        _float_tensor(value),
        ksize=_nhwc_list(ksize, "ksize"),
        strides=_nhwc_list(strides, "strides"),
        padding=_padding(padding),
        data_format=data_format or "NHWC",
        name=name,
    )


@gen_ops.doc_from("MaxPool")
def max_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):  # noqa: A002
    """`input` is TensorFlow 2's name of `value`.

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant(np.arange(16, dtype=np.float32).reshape([1, 4, 4, 1]))
      ...     print(sess.run(tw.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"))[0, :, :, 0])
      [[ 5.  7.]
       [13. 15.]]
    """
    return _pool("MaxPool", value if input is None else input, ksize, strides, padding, data_format, name)


@gen_ops.doc_from("AvgPool")
def avg_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):  # noqa: A002
    """`input` is TensorFlow 2's name of `value`.

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant(np.arange(16, dtype=np.float32).reshape([1, 4, 4, 1]))
      ...     print(sess.run(tw.nn.avg_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"))[0, :, :, 0])
      [[ 2.5  4.5]
       [10.5 12.5]]
    """
    return _pool("AvgPool", value if input is None else input, ksize, strides, padding, data_format, name)


def _check_last_axis(logits, axis, fn):
    if axis is None or axis == -1:
        return
    rank = logits.shape.ndims
    if rank is not None and axis == rank - 1:
        return
    raise ValueError(f"{fn} supports only the last axis, got axis={axis}")


def _other_axis_perm(x, axis, fn):
    """None when `axis` is the last axis of x; else the permutation that swaps it with the last (its own
    inverse), as TensorFlow computes softmax on another axis."""
    if axis is None or axis == -1:
        return None
    rank = x.shape.ndims
    if rank is None:
        raise ValueError(f"{fn} on axis {axis} needs a known rank, got a tensor of unknown rank")
    if not -rank <= axis < rank:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"{fn}: `dim` must be in the range [{-rank}, {rank}) where {rank} is the number of dimensions in the "
            f"input. Received: dim={axis}",
        )
    axis %= rank
    if axis == rank - 1:
        return None
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    return perm


def _on_axis(op_type, x, axis, name, fn):
    perm = _other_axis_perm(x, axis, fn)
    op = gen_ops.wrapper(op_type)
    if perm is None:
        return op(x, name=name)
    return array_ops.transpose(op(array_ops.transpose(x, perm), name=name), perm)


@gen_ops.doc_from("Softmax")
def softmax(logits, axis=None, name=None, dim=None):
    """Another `axis` (or its old name `dim`) is moved last and back.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.softmax([[0.0, 0.0]])))
      [[0.5 0.5]]
    """
    x = _float_tensor(logits)
    return _on_axis("Softmax", x, axis if axis is not None else dim, name, "softmax")


@gen_ops.doc_from("LogSoftmax")
def log_softmax(logits, axis=None, name=None, dim=None):
    """Another `axis` (or its old name `dim`) is moved last and back.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.log_softmax([[0.0, 0.0]])))
      [[-0.6931472 -0.6931472]]
    """
    x = _float_tensor(logits)
    return _on_axis("LogSoftmax", x, axis if axis is not None else dim, name, "log_softmax")


def softmax_cross_entropy_with_logits_v2(labels, logits, axis=-1, name=None, dim=None):
    """Per-row cross entropy between `labels` (a distribution per row) and
    softmax(logits); both [batch, classes]. Gradients flow into labels too.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     loss = tw.nn.softmax_cross_entropy_with_logits_v2(
      ...         labels=[[0.0, 1.0]], logits=[[0.0, 0.0]])
      ...     print(sess.run(loss))
      [0.6931472]
    """
    x = _float_tensor(logits)
    y = ops.convert_to_tensor(labels, dtype=x.dtype)
    graph = ops.get_default_graph()
    # As TensorFlow builds it (and names it): the class axis moved last, logits and labels flattened to
    # [rows, classes] (Reshape, Reshape_1), the op, the loss reshaped to the logits' leading shape (Reshape_2).
    with graph.name_scope(name or "softmax_cross_entropy_with_logits"):
        perm = _other_axis_perm(x, dim if dim is not None else axis, "softmax_cross_entropy_with_logits")
        if perm is not None:
            x, y = array_ops.transpose(x, perm), array_ops.transpose(y, perm)
        flat_x = array_ops.reshape(x, _flat_rows_shape(x))
        flat_y = array_ops.reshape(y, _flat_rows_shape(y))
        loss, _ = gen_ops.softmax_cross_entropy_with_logits(flat_x, flat_y, name="SoftmaxCrossEntropyWithLogits")
        if x.shape.ndims is not None and x.shape[:-1].is_fully_defined():
            leading = x.shape[:-1].as_list()
        else:
            leading = array_ops.shape(x)[:-1]
        out = array_ops.reshape(loss, leading)
        if x.shape.ndims is not None and isinstance(leading, ops.Tensor):
            out.set_shape(x.shape[:-1])
        return out


def _flat_rows_shape(t):
    """[-1, classes]: the static class count when known, else read at run time."""
    classes = t.shape[-1].value if t.shape.ndims else None
    if classes is not None:
        return [-1, classes]
    return array_ops.concat([[-1], array_ops.shape(t)[-1:]], 0)


def softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, dim=-1, name=None, axis=None):
    """TF1's softmax_cross_entropy_with_logits: as _v2, but labels pass through
    StopGradient (once that op is registered) so that no gradient flows into
    them.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     loss = tw.nn.softmax_cross_entropy_with_logits(
      ...         labels=[[1.0, 0.0]], logits=[[0.0, 0.0]])
      ...     print(sess.run(loss))
      [0.6931472]
    """
    if _sentinel is not None:
        raise ValueError("pass labels= and logits= by name")
    from tensorweave._src.ops import array_ops

    # As TF's: the labels' StopGradient and then the _v2 loss under "softmax_cross_entropy_with_logits_sg/".
    with ops.get_default_graph().name_scope(name or "softmax_cross_entropy_with_logits_sg") as scope:
        x = _float_tensor(logits)
        y = ops.convert_to_tensor(labels, dtype=x.dtype)
        y = array_ops.stop_gradient(y, name="labels_stop_gradient")
    return softmax_cross_entropy_with_logits_v2(y, x, axis=axis if axis is not None else dim, name=scope)


def _stop_gradient(t):
    from tensorweave._src.ops import array_ops

    return array_ops.stop_gradient(t)


def sparse_softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
    """Per-row cross entropy of logits [batch, classes] against class indices
    labels [batch] (int32 or int64). A label outside [0, classes) is an
    InvalidArgumentError naming its index.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     loss = tw.nn.sparse_softmax_cross_entropy_with_logits(
      ...         labels=[1], logits=[[0.0, 0.0]])
      ...     print(sess.run(loss))
      [0.6931472]
    """
    if _sentinel is not None:
        raise ValueError("pass labels= and logits= by name")
    x = _float_tensor(logits)
    y = ops.convert_to_tensor(labels)
    if y.dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"labels must be int32 or int64, got {y.dtype.name}")
    if x.shape.ndims is not None and y.shape.ndims is not None:  # TF's checks and wording
        if y.shape.ndims != x.shape.ndims - 1:
            raise ValueError(
                "`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: "
                f"labels.shape={y.shape} of rank {y.shape.ndims} and logits.shape={x.shape} of rank {x.shape.ndims}"
            )
        if not y.shape.is_compatible_with(x.shape[:-1]):
            raise ValueError(
                "`labels.shape` must equal `logits.shape` except for the last dimension. Received: "
                f"labels.shape={y.shape} and logits.shape={x.shape}"
            )
    if x.shape.ndims is not None and x.shape.ndims != 2:
        # Other ranks: the op works on [rows, classes]; the loss has the labels' shape.
        graph = ops.get_default_graph()
        with graph.name_scope(name or "SparseSoftmaxCrossEntropyWithLogits") as scope:
            flat_x = array_ops.reshape(x, array_ops.concat([[-1], array_ops.shape(x)[-1:]], 0))
            flat_y = array_ops.reshape(y, [-1])
            loss, _ = gen_ops.sparse_softmax_cross_entropy_with_logits(flat_x, flat_y)
            if y.shape.is_fully_defined():
                return array_ops.reshape(loss, y.shape.as_list(), name=scope)
            out = array_ops.reshape(loss, array_ops.shape(y), name=scope)
            out.set_shape(x.shape[:-1])
            return out
    graph = ops.get_default_graph()
    with graph.name_scope(name or "SparseSoftmaxCrossEntropyWithLogits"):
        # As TensorFlow names it: the op inside a scope of its own name.
        loss, _ = gen_ops.sparse_softmax_cross_entropy_with_logits(x, y, name="SparseSoftmaxCrossEntropyWithLogits")
    return loss


@gen_ops.doc_from("L2Loss")
def l2_loss(t, name=None):
    """A scalar.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.l2_loss([1.0, 2.0])))
      2.5
    """
    return gen_ops.l2_loss(_float_tensor(t), name=name)


@gen_ops.doc_from("FusedBatchNorm")
def fused_batch_norm(
    x, scale, offset, mean=None, variance=None, epsilon=0.001, data_format="NHWC", is_training=True, name=None
):
    """Returns (y, batch_mean, batch_variance); `mean` and `variance` may be left out in training.

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant(np.array([1.0, 3.0], np.float32).reshape([2, 1, 1, 1]))
      ...     y, m, v = tw.nn.fused_batch_norm(x, [1.0], [0.0], epsilon=0.0)
      ...     print(sess.run(y).ravel(), sess.run(m), sess.run(v))
      [-1.  1.] [2.] [2.]
    """
    x = _float_tensor(x)
    scale = ops.convert_to_tensor(scale, dtype=x.dtype)
    offset = ops.convert_to_tensor(offset, dtype=x.dtype)
    if is_training:
        empty = constant_op.constant([], dtype=x.dtype)
        mean = empty if mean is None else ops.convert_to_tensor(mean, dtype=x.dtype)
        variance = empty if variance is None else ops.convert_to_tensor(variance, dtype=x.dtype)
    else:
        if mean is None or variance is None:
            raise ValueError("fused_batch_norm needs mean and variance when is_training=False")
        mean = ops.convert_to_tensor(mean, dtype=x.dtype)
        variance = ops.convert_to_tensor(variance, dtype=x.dtype)
    outputs = gen_ops.fused_batch_norm(
        x,
        scale,
        offset,
        mean,
        variance,
        epsilon=float(epsilon),
        data_format=data_format,
        is_training=bool(is_training),
        name=name,
    )
    return outputs.y, outputs.batch_mean, outputs.batch_variance


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x / sqrt(max(sum(x**2, axis), epsilon)) along `axis` (all axes if None).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.l2_normalize([3.0, 4.0])))
      [0.6 0.8]
    """
    from tensorweave._src.ops import math_ops

    axis = dim if axis is None else axis
    graph = ops.get_default_graph()
    with graph.name_scope(name or "l2_normalize") as scope:
        x = _float_tensor(x)
        square_sum = math_ops.reduce_sum(math_ops.square(x), axis, keepdims=True)
        inv_norm = math_ops.rsqrt(math_ops.maximum(square_sum, epsilon))
        return math_ops.multiply(x, inv_norm, name=scope)


def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):
    """(mean, variance) of x over `axes`.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     mean, variance = sess.run(tw.nn.moments(tw.constant([1.0, 3.0]), [0]))
      ...     print(float(mean), float(variance))
      2.0 1.0
    """
    from tensorweave._src.ops import array_ops
    from tensorweave._src.ops import math_ops

    keep = bool(keepdims if keepdims is not None else keep_dims)
    graph = ops.get_default_graph()
    with graph.name_scope(name or "moments"):
        x = ops.convert_to_tensor(x)  # integer inputs give integer moments, as in TensorFlow
        mean = math_ops.reduce_mean(x, axes, keepdims=True, name="mean")
        variance = math_ops.reduce_mean(
            math_ops.squared_difference(x, array_ops.stop_gradient(mean)), axes, keepdims=True, name="variance"
        )
        if not keep:
            mean = array_ops.squeeze(mean, axes)
            variance = array_ops.squeeze(variance, axes)
        return mean, variance

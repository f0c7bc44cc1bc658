"""tw.layers: TensorFlow v1's functional layers, built from primitive ops
and variables made with `get_variable` inside a variable scope per layer
("dense/kernel", "conv2d_1/bias", ...)."""

import contextlib

import numpy as np

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.ops import init_ops
from tensorweave._src.ops import variables as variables_lib


class LayerScope(str):
    """The `name` a layer object passes its layer function: the scope name on the first call (the variable scope
    opened is kept in `.scope`); on later calls (`reenter`) its first call's name scope, absolute ("dense/"), with
    `.scope` that call's variable scope, re-entered with reuse, as TF's layers do."""

    def __new__(cls, value, scope=None, reenter=False, default=False):
        obj = super().__new__(cls, value)
        obj.scope = scope
        obj.reenter = reenter
        obj.default = default  # opened as variable_scope(None, default_name=value)
        return obj


@contextlib.contextmanager
def _scope(name, default_name, reuse):
    if isinstance(name, LayerScope) and name.reenter:
        with ops.get_default_graph().name_scope(str(name)):
            if name.scope is None:
                yield None
                return
            with variables_lib.variable_scope(name.scope, reuse=True, auxiliary_name_scope=False) as vs:
                yield vs
        return
    layer_scope = name if isinstance(name, LayerScope) else None
    if layer_scope is not None and layer_scope.default:
        scope_cm = variables_lib.variable_scope(None, default_name=str(name), reuse=reuse)
    else:
        scope_cm = variables_lib.variable_scope(name, default_name=default_name, reuse=reuse)
    with scope_cm as vs:
        if layer_scope is not None:
            layer_scope.scope = vs
        yield vs


def _activate(x, activation):
    return activation(x) if activation is not None else x


def _regularize(var, regularizer):
    if regularizer is not None:
        # As TF's layers: the loss ops live under "<variable name>/Regularizer/".
        with var.graph.name_scope(var.op.name + "/Regularizer/"):
            loss = regularizer(var.value())
        if loss is not None:
            ops.add_to_collection(ops.GraphKeys.REGULARIZATION_LOSSES, loss)


def _activity_regularize(y, regularizer):
    """As TF's layers: the regularizer's loss of the output over the batch size, under "ActivityRegularizer/",
    in REGULARIZATION_LOSSES."""
    if regularizer is None:
        return
    from tensorweave._src.ops import array_ops, math_ops

    with ops.get_default_graph().name_scope("ActivityRegularizer"):
        loss = regularizer(y)
        batch = math_ops.cast(array_ops.shape(y)[0], loss.dtype)
        ops.add_to_collection(ops.GraphKeys.REGULARIZATION_LOSSES, math_ops.truediv(loss, batch))


def _make_var(name, shape, dtype, initializer, regularizer, trainable):
    var = variables_lib.get_variable(name, shape, dtype=dtype, initializer=initializer, trainable=trainable)
    _regularize(var, regularizer)
    return var


def _pair(value, what):
    if isinstance(value, int):
        return (value, value)
    value = tuple(int(v) for v in value)
    if len(value) != 2:
        raise ValueError(f"{what} must be an int or a pair of ints, got {value}")
    return value


def _channels_first(data_format):
    """True for "channels_first" / "NCHW", False for "channels_last" / "NHWC"; a ValueError for anything else."""
    if data_format in ("channels_first", "NCHW"):
        return True
    if data_format in ("channels_last", "NHWC", None):
        return False
    raise ValueError(
        f"The `data_format` argument must be one of `channels_first`, `channels_last`. Received: {data_format}"
    )


def _check_channels_last(data_format):
    if data_format not in ("channels_last", "NHWC"):
        raise ValueError(f"data_format {data_format!r}: only 'channels_last' (NHWC) is supported")


def dense(
    inputs,
    units,
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
    """A fully connected layer: activation(inputs @ kernel + bias).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     y = tw.layers.dense(tw.placeholder(tw.float32, [None, 4]), 3)
      ...     print(y.shape, [v.name for v in tw.trainable_variables()])
      (?, 3) ['dense/kernel:0', 'dense/bias:0']
    """
    from tensorweave._src.ops import math_ops
    from tensorweave._src.ops import nn_ops

    x = ops.convert_to_tensor(inputs)
    in_dim = x.shape[-1].value if x.shape.ndims else None
    if in_dim is None:
        raise ValueError(
            "The last dimension of the inputs to a Dense layer should be defined. Found None. Full input shape "
            f"received: {x.shape}"
        )
    with _scope(name, "dense", reuse):
        kernel = _make_var("kernel", [in_dim, units], x.dtype, kernel_initializer, kernel_regularizer, trainable)
        if x.shape.ndims > 2:
            from tensorweave._src.ops import array_ops

            flat = array_ops.reshape(x, [-1, in_dim])
            y = math_ops.matmul(flat, kernel)
            out_shape = array_ops.concat([array_ops.shape(x)[:-1], [units]], 0)
            y = array_ops.reshape(y, out_shape)
        else:
            y = math_ops.matmul(x, kernel)
        if use_bias:
            bias = _make_var("bias", [units], x.dtype, bias_initializer, bias_regularizer, trainable)
            y = nn_ops.bias_add(y, bias)
        y = _activate(y, activation)
        _activity_regularize(y, activity_regularizer)
        return y


def conv2d(
    inputs,
    filters,
    kernel_size,
    strides=(1, 1),
    padding="valid",
    data_format="channels_last",
    dilation_rate=(1, 1),
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
    """A 2-D convolution layer over NHWC inputs (NCHW with data_format="channels_first"), with a bias and activation.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     y = tw.layers.conv2d(tw.placeholder(tw.float32, [None, 28, 28, 1]), 6, 5)
      ...     print(y.shape)
      (?, 24, 24, 6)
    """
    from tensorweave._src.ops import nn_ops

    first = _channels_first(data_format)
    x = ops.convert_to_tensor(inputs)
    if x.shape.ndims is not None and x.shape.ndims < 4:  # TF's InputSpec(min_ndim=4) of the layer
        raise ValueError(
            f'Input 0 of layer "{name if isinstance(name, str) else "conv2d"}" is incompatible with the layer: '
            f"expected min_ndim=4, found ndim={x.shape.ndims}. Full shape received: {tuple(x.shape)}"
        )
    kh, kw = _pair(kernel_size, "kernel_size")
    sh, sw = _pair(strides, "strides")
    dh, dw = _pair(dilation_rate, "dilation_rate")
    in_channels = x.shape[1 if first else -1].value if x.shape.ndims else None
    if in_channels is None:
        raise ValueError(f"The channel dimension of the inputs to `conv2d` should be defined, got {x.shape}")
    with _scope(name, "conv2d", reuse):
        kernel = _make_var(
            "kernel", [kh, kw, in_channels, filters], x.dtype, kernel_initializer, kernel_regularizer, trainable
        )
        if first:
            y = nn_ops.conv2d(
                x, kernel, strides=[1, 1, sh, sw], padding=padding.upper(), dilations=[1, 1, dh, dw], data_format="NCHW"
            )
        else:
            y = nn_ops.conv2d(x, kernel, strides=[1, sh, sw, 1], padding=padding.upper(), dilations=[1, dh, dw, 1])
        if use_bias:
            bias = _make_var("bias", [filters], x.dtype, bias_initializer, bias_regularizer, trainable)
            y = nn_ops.bias_add(y, bias, data_format="NCHW" if first else "NHWC")
        y = _activate(y, activation)
        _activity_regularize(y, activity_regularizer)
        return y


def _pool(op_name, inputs, pool_size, strides, padding, data_format, name, default):
    from tensorweave._src.ops import nn_ops

    ph, pw = _pair(pool_size, "pool_size")
    sh, sw = _pair(strides, "strides")
    fn = nn_ops.max_pool if op_name == "max" else nn_ops.avg_pool
    graph = ops.get_default_graph()
    with graph.name_scope(name or default):
        if _channels_first(data_format):
            return fn(inputs, ksize=[1, 1, ph, pw], strides=[1, 1, sh, sw], padding=padding.upper(), data_format="NCHW")
        return fn(inputs, ksize=[1, ph, pw, 1], strides=[1, sh, sw, 1], padding=padding.upper())


def max_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    """2-D max pooling over NHWC inputs (or NCHW, data_format="channels_first")."""
    return _pool("max", inputs, pool_size, strides, padding, data_format, name, "max_pooling2d")


def average_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    """2-D average pooling over NHWC inputs (or NCHW, data_format="channels_first")."""
    return _pool("avg", inputs, pool_size, strides, padding, data_format, name, "average_pooling2d")


def flatten(inputs, name=None, data_format="channels_last"):
    """Flattens every dimension but the first (the batch)."""
    from tensorweave._src.ops import array_ops

    x = ops.convert_to_tensor(inputs)
    rank = x.shape.ndims
    if rank == 0:
        raise ValueError(
            f'Input 0 of layer "{name or "flatten"}" is incompatible with the layer: expected min_ndim=1, found '
            "ndim=0. Full shape received: ()"
        )
    graph = ops.get_default_graph()
    with graph.name_scope(name or "flatten"):
        if _channels_first(data_format) and rank is not None and rank >= 3:
            x = array_ops.transpose(x, [0, *range(2, rank), 1])  # as TF: flattened in channels_last order
        rest = x.shape[1:]
        if rest.is_fully_defined():
            return array_ops.reshape(x, [-1, int(np.prod(rest.as_list()))])
        return array_ops.reshape(x, array_ops.stack([array_ops.shape(x)[0], -1]))


def _select_training(training, train_fn, infer_fn):
    """train_fn() when `training` (a bool or a bool Tensor), else infer_fn()."""
    if isinstance(training, (bool, np.bool_)):
        return train_fn() if training else infer_fn()
    from tensorweave._src.ops import math_ops

    training = ops.convert_to_tensor(training, dtype=dtypes.bool)
    return math_ops.where(training, train_fn(), infer_fn())


def _renorm_variables(moving_mean_initializer, moving_variance_initializer, shape, dtype):
    """Batch renormalization's (moving_stddev, renorm_mean, renorm_stddev), made as TF's after moving_variance."""
    from tensorweave._src.ops import math_ops

    def stddev_initializer(*args, **kwargs):
        return math_ops.sqrt(moving_variance_initializer(*args, **kwargs))

    return tuple(
        variables_lib.get_variable(name, shape, dtype=dtype, initializer=init, trainable=False)
        for name, init in (
            ("moving_stddev", stddev_initializer),
            ("renorm_mean", moving_mean_initializer),
            ("renorm_stddev", stddev_initializer),
        )
    )


def _renorm_train(x, gamma, beta, stats, training, momentum, epsilon, clipping, renorm_momentum):
    """Batch renormalization (Ioffe, 2017) in training, as TF's BatchNormalization(renorm=True): the batch
    moments corrected by r = stddev / renorm_stddev and d = (mean - renorm_mean) / renorm_stddev (clipped, no
    gradient) toward the renorm averages, which this step updates with renorm_momentum; the moving mean and
    stddev (the variance as stddev**2 - epsilon) are updated by the ops added to UPDATE_OPS."""
    from tensorweave._src.ops import array_ops, math_ops, nn_impl, nn_ops, state_ops

    moving_mean, moving_var, moving_stddev, renorm_mean, renorm_stddev = stats
    flag = None if isinstance(training, (bool, np.bool_)) else ops.convert_to_tensor(training, dtype=dtypes.bool)

    def assign_moving_average(variable, value, decay_from):
        # TF's _assign_moving_average; under a training tensor, a step that is not training leaves it as it is.
        delta = (variable.value() - value) * (1.0 - decay_from)
        if flag is not None:
            delta = math_ops.where(flag, delta, array_ops.zeros_like(delta))
        return state_ops.assign_sub(variable, delta, name="AssignMovingAvg")

    mean, variance = nn_ops.moments(x, list(range(x.shape.ndims - 1)))
    stddev = math_ops.sqrt(variance + epsilon)
    floor = math_ops.maximum(renorm_stddev.value(), math_ops.sqrt(ops.convert_to_tensor(epsilon, x.dtype)))
    r = stddev / floor
    d = (mean - renorm_mean.value()) / floor
    with ops.control_dependencies([r, d]):  # the corrections read the averages before this step's update
        mean, stddev = array_ops.identity(mean), array_ops.identity(stddev)
    if clipping.get("rmin") is not None:
        r = math_ops.maximum(r, clipping["rmin"])
    if clipping.get("rmax") is not None:
        r = math_ops.minimum(r, clipping["rmax"])
    if clipping.get("dmax") is not None:
        d = math_ops.minimum(math_ops.maximum(d, -clipping["dmax"]), clipping["dmax"])
    updates = [assign_moving_average(v, t, renorm_momentum) for v, t in ((renorm_mean, mean), (renorm_stddev, stddev))]
    with ops.control_dependencies(updates):
        mean, variance = array_ops.identity(mean), array_ops.identity(variance)
    r = array_ops.stop_gradient(r, name="renorm_r")
    d = array_ops.stop_gradient(d, name="renorm_d")
    scale, offset = (r, d) if gamma is None else (r * gamma, d * gamma)
    offset = offset if beta is None else offset + beta
    y = nn_impl.batch_normalization(x, mean, variance, offset, scale, epsilon)
    new_stddev = assign_moving_average(moving_stddev, math_ops.sqrt(variance + epsilon), momentum)
    new_variance = nn_ops.relu(new_stddev * new_stddev - epsilon)
    if flag is not None:
        new_variance = math_ops.where(flag, new_variance, moving_var.value())
    for update in (assign_moving_average(moving_mean, mean, momentum), state_ops.assign(moving_var, new_variance)):
        ops.add_to_collection(ops.GraphKeys.UPDATE_OPS, update.op)
    return y


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    """Drops each element with probability `rate` (scaling the rest by
    1/(1-rate)) when `training`; the identity otherwise."""
    from tensorweave._src.ops import array_ops
    from tensorweave._src.ops import nn_ops_dropout

    x = ops.convert_to_tensor(inputs)
    graph = ops.get_default_graph()
    with graph.name_scope(name or "dropout"):

        def dropped():
            return nn_ops_dropout.dropout(x, rate=rate, noise_shape=noise_shape, seed=seed)

        if isinstance(training, (bool, np.bool_)):
            return dropped() if training else array_ops.identity(x)
        # A cond (TF's smart_cond): at inference the random op does not run, so it draws nothing from its stream.
        from tensorweave._src.ops import control_flow_ops

        training = ops.convert_to_tensor(training, dtype=dtypes.bool)
        return control_flow_ops.cond(training, dropped, lambda: array_ops.identity(x))


def batch_normalization(
    inputs,
    axis=-1,
    momentum=0.99,
    epsilon=1e-3,
    center=True,
    scale=True,
    beta_initializer=init_ops.zeros_initializer(),
    gamma_initializer=init_ops.ones_initializer(),
    moving_mean_initializer=init_ops.zeros_initializer(),
    moving_variance_initializer=init_ops.ones_initializer(),
    beta_regularizer=None,
    gamma_regularizer=None,
    beta_constraint=None,
    gamma_constraint=None,
    training=False,
    trainable=True,
    name=None,
    reuse=None,
    renorm=False,
    renorm_clipping=None,
    renorm_momentum=0.99,
    fused=None,
    virtual_batch_size=None,
    adjustment=None,
):
    """Batch normalization over the last axis: with `training`, normalizes by
    the batch's statistics and adds the moving-average updates to
    UPDATE_OPS (run them with the train op); otherwise uses the moving
    averages."""
    from tensorweave._src.ops import array_ops
    from tensorweave._src.ops import math_ops
    from tensorweave._src.ops import nn_ops
    from tensorweave._src.ops import state_ops

    x = ops.convert_to_tensor(inputs)
    input_dtype = x.dtype.base_dtype
    if input_dtype in (dtypes.float16, dtypes.bfloat16):
        # As TF: float32 parameters and moving averages, the normalization computed in float32.
        x = math_ops.cast(x, dtypes.float32)
    rank = x.shape.ndims
    if isinstance(axis, (list, tuple)) and len(axis) == 1:
        axis = axis[0]
    channels_first = rank == 4 and axis in (1, -3)
    if rank is None or not (channels_first or axis in (-1, rank - 1)):
        raise ValueError("batch_normalization supports the last axis, or axis 1 of a 4-D input (NCHW), only")
    channels = x.shape[1 if channels_first else -1].value
    if virtual_batch_size is not None or adjustment is not None:
        raise NotImplementedError("virtual batches / adjustment are not supported")
    if renorm:
        renorm_clipping = renorm_clipping or {}
        keys = ["rmax", "rmin", "dmax"]
        if set(renorm_clipping) - set(keys):
            raise ValueError(
                f"Received invalid keys for `renorm_clipping` argument: {renorm_clipping}. Supported values: {keys}."
            )
        if fused:
            raise ValueError("Passing both `fused=True` and `renorm=True` is not supported")
        if channels_first:
            raise NotImplementedError("batch renormalization over axis 1 (NCHW) is not supported")
    with _scope(name, "batch_normalization", reuse):
        dtype = x.dtype
        gamma = (
            _make_var("gamma", [channels], dtype, gamma_initializer, gamma_regularizer, trainable) if scale else None
        )
        beta = _make_var("beta", [channels], dtype, beta_initializer, beta_regularizer, trainable) if center else None
        moving_mean = variables_lib.get_variable(
            "moving_mean", [channels], dtype=dtype, initializer=moving_mean_initializer, trainable=False
        )
        moving_var = variables_lib.get_variable(
            "moving_variance", [channels], dtype=dtype, initializer=moving_variance_initializer, trainable=False
        )
        one = array_ops.ones([channels], dtype) if gamma is None else gamma
        zero = array_ops.zeros([channels], dtype) if beta is None else beta
        x4 = x if rank == 4 else array_ops.reshape(x, [-1, 1, 1, channels])
        data_format = "NCHW" if channels_first else "NHWC"

        def train():
            # The batch variance FusedBatchNorm returns is already unbiased
            # (Bessel's correction), as the moving average wants it.
            y, mean, var = nn_ops.fused_batch_norm(
                x4, one, zero, epsilon=epsilon, is_training=True, data_format=data_format
            )[:3]
            if rank != 4 or fused is False:
                # TensorFlow fuses only 4-D inputs (and not with fused=False); unfused, it updates the moving
                # variance with the biased batch variance of nn.moments: var * (n - 1) / n, n the values per
                # channel.
                n = math_ops.cast(array_ops.size(x), dtype) / float(channels)
                var = var * ((n - 1.0) / n)
            for variable, value in ((moving_mean, mean), (moving_var, var)):
                delta = (variable.value() - value) * (1.0 - momentum)
                if not isinstance(training, (bool, np.bool_)):
                    # TF's smart_cond on a training tensor: run while not training, the update leaves the
                    # moving averages as they are.
                    flag = ops.convert_to_tensor(training, dtype=dtypes.bool)
                    delta = math_ops.where(flag, delta, array_ops.zeros_like(delta))
                update = state_ops.assign_sub(variable, delta, name="AssignMovingAvg")
                ops.add_to_collection(ops.GraphKeys.UPDATE_OPS, update.op)
            return y

        def infer():
            return nn_ops.fused_batch_norm(
                x4,
                one,
                zero,
                mean=moving_mean.value(),
                variance=moving_var.value(),
                epsilon=epsilon,
                is_training=False,
                data_format=data_format,
            )[0]

        if renorm:
            stats = (moving_mean, moving_var) + _renorm_variables(moving_mean_initializer, moving_variance_initializer,
                                                                   [channels], dtype)  # fmt: skip
            y = _select_training(
                training,
                lambda: _renorm_train(
                    x, gamma, beta, stats, training, momentum, epsilon, renorm_clipping, renorm_momentum
                ),  # fmt: skip
                lambda: array_ops.reshape(infer(), array_ops.shape(x)),
            )
            return y if input_dtype == y.dtype.base_dtype else math_ops.cast(y, input_dtype)
        y = _select_training(training, train, infer)
        y = y if rank == 4 else array_ops.reshape(y, array_ops.shape(x))
        return y if input_dtype == y.dtype.base_dtype else math_ops.cast(y, input_dtype)

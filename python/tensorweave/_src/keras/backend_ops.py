"""The rest of `tf.keras.backend` (Keras 2's `K.`): element-wise math, reductions, shapes, random tensors,
convolutions, losses and control helpers, each a thin wrapper with tf_keras's arguments and defaults."""

import numpy as np

from tensorweave._src.framework import ops


def _tw():
    import tensorweave as tw  # the public API: K. composes its ops

    return tw


def _floatx(dtype):
    from tensorweave._src.keras.backend import floatx

    return dtype or floatx()


# --- element-wise and comparisons ------------------------------------------------------------------------------------
def abs(x):
    return _tw().abs(x)


def sign(x):
    return _tw().sign(x)


def round(x):
    return _tw().round(x)


def sin(x):
    return _tw().sin(x)


def cos(x):
    return _tw().cos(x)


def tanh(x):
    return _tw().tanh(x)


def sigmoid(x):
    return _tw().sigmoid(x)


def hard_sigmoid(x):
    """clip(0.2 x + 0.5, 0, 1), as Keras 2."""
    tw = _tw()
    return tw.clip_by_value(0.2 * x + 0.5, 0.0, 1.0)


def softplus(x):
    return _tw().nn.softplus(x)


def softsign(x):
    return _tw().nn.softsign(x)


def elu(x, alpha=1.0):
    tw = _tw()
    res = tw.nn.elu(x)
    return res if alpha == 1 else tw.where(x > 0, res, alpha * res)


def relu(x, alpha=0.0, max_value=None, threshold=0.0):
    from tensorweave._src.keras import activations

    return activations.relu(x, alpha=alpha, max_value=max_value, threshold=threshold)


def pow(x, a):
    return _tw().pow(x, a)


def maximum(x, y):
    return _tw().maximum(x, y)


def minimum(x, y):
    return _tw().minimum(x, y)


def equal(x, y):
    return _tw().equal(x, y)


def not_equal(x, y):
    return _tw().not_equal(x, y)


def greater(x, y):
    return _tw().greater(x, y)


def greater_equal(x, y):
    return _tw().greater_equal(x, y)


def less(x, y):
    return _tw().less(x, y)


def less_equal(x, y):
    return _tw().less_equal(x, y)


def l2_normalize(x, axis=None):
    return _tw().nn.l2_normalize(x, axis=axis)


def stop_gradient(variables):
    tw = _tw()
    if isinstance(variables, (list, tuple)):
        return [tw.stop_gradient(v) for v in variables]
    return tw.stop_gradient(variables)


# --- reductions --------------------------------------------------------------------------------------------------------
def _bool_reduce(fn, x, axis, keepdims):
    tw = _tw()
    return fn(tw.cast(x, tw.bool), axis, keepdims)


def max(x, axis=None, keepdims=False):
    return _tw().reduce_max(x, axis, keepdims)


def min(x, axis=None, keepdims=False):
    return _tw().reduce_min(x, axis, keepdims)


def prod(x, axis=None, keepdims=False):
    return _tw().reduce_prod(x, axis, keepdims)


def var(x, axis=None, keepdims=False):
    tw = _tw()
    if x.dtype.base_dtype == tw.bool:
        x = tw.cast(x, _floatx(None))
    return tw.math.reduce_variance(x, axis=axis, keepdims=keepdims)


def std(x, axis=None, keepdims=False):
    return _tw().sqrt(var(x, axis, keepdims))


def any(x, axis=None, keepdims=False):
    return _bool_reduce(_tw().reduce_any, x, axis, keepdims)


def all(x, axis=None, keepdims=False):
    return _bool_reduce(_tw().reduce_all, x, axis, keepdims)


def argmax(x, axis=-1):
    return _tw().argmax(x, axis)


def argmin(x, axis=-1):
    return _tw().argmin(x, axis)


def cumsum(x, axis=0):
    return _tw().cumsum(x, axis=axis)


def cumprod(x, axis=0):
    return _tw().cumprod(x, axis=axis)


# --- shapes and construction -------------------------------------------------------------------------------------------
def ndim(x):
    return x.shape.ndims


def dtype(x):
    return x.dtype.base_dtype.name


def count_params(x):
    return int(np.prod(x.shape.as_list()))


def is_sparse(tensor):
    return isinstance(tensor, _tw().SparseTensor)


def to_dense(tensor):
    return _tw().sparse.to_dense(tensor) if is_sparse(tensor) else tensor


def zeros(shape, dtype=None, name=None):
    from tensorweave._src.keras.backend import variable

    return variable(np.zeros(shape, _floatx(dtype)), dtype, name)


def ones(shape, dtype=None, name=None):
    from tensorweave._src.keras.backend import variable

    return variable(np.ones(shape, _floatx(dtype)), dtype, name)


def eye(size, dtype=None, name=None):
    from tensorweave._src.keras.backend import variable

    return variable(np.eye(size, dtype=_floatx(dtype)), dtype, name)


def zeros_like(x, dtype=None, name=None):
    return _tw().zeros_like(x, dtype=dtype, name=name)


def ones_like(x, dtype=None, name=None):
    return _tw().ones_like(x, dtype=dtype, name=name)


def arange(start, stop=None, step=1, dtype="int32"):
    tw = _tw()
    if stop is None and start < 0:
        start = 0
    return tw.cast(tw.range(start, limit=stop, delta=step), dtype)


def cast_to_floatx(x):
    return np.asarray(x, dtype=_floatx(None))


def transpose(x):
    return _tw().transpose(x)


def permute_dimensions(x, pattern):
    return _tw().transpose(x, perm=pattern)


def flatten(x):
    return _tw().reshape(x, [-1])


def batch_flatten(x):
    tw = _tw()
    x = tw.convert_to_tensor(x)
    if x.shape[1:].is_fully_defined():  # the static width, as TF's constant folding of the shape finds it
        return tw.reshape(x, tw.stack([-1, int(np.prod(x.shape[1:].as_list()))]))
    return tw.reshape(x, tw.stack([-1, tw.reduce_prod(tw.shape(x)[1:])]))


def tile(x, n):
    if isinstance(n, int):
        n = [n]
    return _tw().tile(x, n)


def repeat(x, n):
    """[batch, dim] -> [batch, n, dim]."""
    tw = _tw()
    return tw.tile(tw.expand_dims(x, 1), [1, n, 1])


def repeat_elements(x, rep, axis):
    return _tw().repeat(x, rep, axis=axis)


def reverse(x, axes):
    if isinstance(axes, int):
        axes = [axes]
    return _tw().reverse(x, axes)


def gather(reference, indices):
    return _tw().gather(reference, indices)


def one_hot(indices, num_classes):
    return _tw().one_hot(indices, depth=num_classes, axis=-1)


def batch_dot(x, y, axes=None):
    """Keras 2's batch_dot: contracts `axes` of x and y per batch element."""
    tw = _tw()
    x_ndim, y_ndim = x.shape.ndims, y.shape.ndims
    if x_ndim < 2 or y_ndim < 2:
        raise ValueError(
            f"Cannot do batch_dot on inputs with rank < 2. Received inputs with shapes {x.shape} and {y.shape}."
        )
    if isinstance(axes, int):
        axes = (axes, axes)
    if axes is None:
        axes = (x_ndim - 1, y_ndim - 2 if y_ndim > 2 else y_ndim - 1)
    a0, a1 = (a % n for a, n in zip(axes, (x_ndim, y_ndim)))
    if 0 in (a0, a1):
        raise ValueError("Cannot perform batch_dot over axis 0.")
    letters = "abcdefghijklmnopqrstuvwxy"
    xs = letters[:x_ndim]
    ys = "z" + letters[x_ndim : x_ndim + y_ndim - 1]
    ys = ys[:a1] + xs[a0] + ys[a1 + 1 :] if a1 else ys
    ys = "a" + ys[1:]
    out = xs.replace(xs[a0], "") + ys[1:].replace(xs[a0], "")
    result = tw.einsum(f"{xs},{ys}->{out}", x, y)
    if result.shape.ndims == 1:
        result = tw.expand_dims(result, 1)
    return result


def bias_add(x, bias, data_format=None):
    tw = _tw()
    if bias.shape.ndims == 1:
        return tw.nn.bias_add(x, bias)
    return x + tw.reshape(bias, [1] * (x.shape.ndims - bias.shape.ndims) + bias.shape.as_list())


def temporal_padding(x, padding=(1, 1)):
    return _tw().pad(x, [[0, 0], list(padding), [0, 0]])


def spatial_2d_padding(x, padding=((1, 1), (1, 1)), data_format=None):
    pads = [[0, 0], list(padding[0]), list(padding[1]), [0, 0]]
    if data_format == "channels_first":
        pads = [[0, 0], [0, 0], list(padding[0]), list(padding[1])]
    return _tw().pad(x, pads)


def spatial_3d_padding(x, padding=((1, 1), (1, 1), (1, 1)), data_format=None):
    pads = [[0, 0]] + [list(p) for p in padding] + [[0, 0]]
    if data_format == "channels_first":
        pads = [[0, 0], [0, 0]] + [list(p) for p in padding]
    return _tw().pad(x, pads)


def resize_images(x, height_factor, width_factor, data_format, interpolation="nearest"):
    tw = _tw()
    if data_format == "channels_first":
        x = tw.transpose(x, [0, 2, 3, 1])
    h, w = x.shape.as_list()[1:3]
    method = {"nearest": tw.image.ResizeMethod.NEAREST_NEIGHBOR, "bilinear": tw.image.ResizeMethod.BILINEAR}
    if interpolation not in method:
        raise ValueError(
            f"`interpolation` argument should be one of `'nearest'` or `'bilinear'`. Received: {interpolation}."
        )
    out = tw.image.resize_images(x, [h * height_factor, w * width_factor], method=method[interpolation])
    return tw.transpose(out, [0, 3, 1, 2]) if data_format == "channels_first" else out


def resize_volumes(x, depth_factor, height_factor, width_factor, data_format):
    tw = _tw()
    axes = (2, 3, 4) if data_format == "channels_first" else (1, 2, 3)
    for axis, factor in zip(axes, (depth_factor, height_factor, width_factor)):
        x = tw.repeat(x, factor, axis=axis)
    return x


# --- variables and updates ---------------------------------------------------------------------------------------------
def update(x, new_x):
    return _tw().assign(x, new_x)


def update_add(x, increment):
    return _tw().assign_add(x, increment)


def update_sub(x, decrement):
    return _tw().assign_sub(x, decrement)


def moving_average_update(x, value, momentum):
    from tensorweave._src.training import moving_averages

    return moving_averages.assign_moving_average(x, value, momentum, zero_debias=True)


def batch_set_value(tuples):
    from tensorweave._src.keras.backend import set_value

    for x, value in tuples:
        set_value(x, value)


def random_uniform_variable(shape, low, high, dtype=None, name=None, seed=None):
    from tensorweave._src.keras.backend import variable

    tw = _tw()
    init = tw.random_uniform_initializer(low, high, seed=seed)(shape, dtype=_floatx(dtype))
    return variable(init, dtype, name)


def random_normal_variable(shape, mean, scale, dtype=None, name=None, seed=None):
    from tensorweave._src.keras.backend import variable

    tw = _tw()
    init = tw.random_normal_initializer(mean, scale, seed=seed)(shape, dtype=_floatx(dtype))
    return variable(init, dtype, name)


# --- random tensors ----------------------------------------------------------------------------------------------------
def _seed(seed):
    return np.random.randint(10e6) if seed is None else seed


def random_uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    return _tw().random_uniform(shape, minval, maxval, dtype=_floatx(dtype), seed=_seed(seed))


def random_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    return _tw().random_normal(shape, mean, stddev, dtype=_floatx(dtype), seed=_seed(seed))


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    return _tw().truncated_normal(shape, mean, stddev, dtype=_floatx(dtype), seed=_seed(seed))


def random_bernoulli(shape, p=0.0, dtype=None, seed=None):
    tw = _tw()
    dtype = _floatx(dtype)
    return tw.where(
        tw.random_uniform(shape, dtype=dtype, seed=_seed(seed)) <= p, tw.ones(shape, dtype), tw.zeros(shape, dtype)
    )


random_binomial = random_bernoulli


def dropout(x, level, noise_shape=None, seed=None):
    return _tw().nn.dropout(x, rate=level, noise_shape=noise_shape, seed=_seed(seed))


# --- losses (element-wise, as Keras's backend gives them) -------------------------------------------------------------
def binary_crossentropy(target, output, from_logits=False):
    from tensorweave._src.keras import losses

    return losses._backend_binary_crossentropy(target, output, from_logits)


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    from tensorweave._src.keras import losses

    return losses._backend_categorical_crossentropy(target, output, from_logits, axis)


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1, ignore_class=None):
    from tensorweave._src.keras import losses

    return losses._backend_sparse_categorical_crossentropy(target, output, from_logits, axis, ignore_class)


def binary_focal_crossentropy(target, output, apply_class_balancing=False, alpha=0.25, gamma=2.0, from_logits=False):
    from tensorweave._src.keras import losses

    return losses._backend_binary_focal_crossentropy(target, output, apply_class_balancing, alpha, gamma, from_logits)


def categorical_focal_crossentropy(target, output, alpha=0.25, gamma=2.0, from_logits=False, axis=-1):
    from tensorweave._src.keras import losses

    return losses._backend_categorical_focal_crossentropy(target, output, alpha, gamma, from_logits, axis)


def in_top_k(predictions, targets, k):
    return _tw().nn.in_top_k(predictions, targets, k)


def ctc_batch_cost(y_true, y_pred, input_length, label_length):
    """CTC loss per batch element ([batch, 1]) of softmax outputs y_pred [batch, time, classes] (blank last)."""
    tw = _tw()
    label_length = tw.cast(tw.squeeze(label_length, axis=-1), tw.int32)
    input_length = tw.cast(tw.squeeze(input_length, axis=-1), tw.int32)
    sparse = ctc_label_dense_to_sparse(y_true, label_length)
    logits = tw.log(tw.transpose(y_pred, [1, 0, 2]) + 1e-7)
    return tw.expand_dims(tw.nn.ctc_loss(sparse, logits, input_length), 1)


def ctc_label_dense_to_sparse(labels, label_lengths):
    """Dense [batch, max_len] labels, each row's first label_lengths[i] used, as an int32 SparseTensor."""
    tw = _tw()
    labels = tw.cast(labels, tw.int32)
    max_len = tw.shape(labels)[1]
    mask = tw.sequence_mask(label_lengths, max_len)
    indices = tw.where(mask)
    return tw.SparseTensor(indices, tw.gather_nd(labels, indices), tw.cast(tw.shape(labels), tw.int64))


# --- convolutions and pooling ------------------------------------------------------------------------------------------
def _channels_last(x, data_format, ndim):
    if data_format == "channels_first":
        perm = [0] + list(range(2, ndim)) + [1]
        return _tw().transpose(x, perm), True
    return x, False


def _back(x, moved):
    if not moved:
        return x
    ndim = x.shape.ndims
    return _tw().transpose(x, [0, ndim - 1] + list(range(1, ndim - 1)))


def _padding(padding):
    if padding not in ("same", "valid", "causal"):
        raise ValueError(f"Unknown padding: {padding}")
    return padding.upper()


def conv1d(x, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    tw = _tw()
    x, moved = _channels_last(x, data_format, 3)
    if padding == "causal":
        x = temporal_padding(x, (dilation_rate * (kernel.shape.as_list()[0] - 1), 0))
        padding = "valid"
    out = tw.nn.convolution(x, kernel, _padding(padding), strides=[strides], dilation_rate=[dilation_rate])
    return _back(out, moved)


def conv2d(x, kernel, strides=(1, 1), padding="valid", data_format=None, dilation_rate=(1, 1)):
    x, moved = _channels_last(x, data_format, 4)
    out = _tw().nn.convolution(x, kernel, _padding(padding), strides=list(strides), dilation_rate=list(dilation_rate))
    return _back(out, moved)


def conv3d(x, kernel, strides=(1, 1, 1), padding="valid", data_format=None, dilation_rate=(1, 1, 1)):
    x, moved = _channels_last(x, data_format, 5)
    out = _tw().nn.convolution(x, kernel, _padding(padding), strides=list(strides), dilation_rate=list(dilation_rate))
    return _back(out, moved)


def conv2d_transpose(x, kernel, output_shape, strides=(1, 1), padding="valid", data_format=None, dilation_rate=(1, 1)):
    tw = _tw()
    x, moved = _channels_last(x, data_format, 4)
    if data_format == "channels_first":
        output_shape = (output_shape[0], output_shape[2], output_shape[3], output_shape[1])
    out = tw.nn.conv2d_transpose(x, kernel, output_shape, [1] + list(strides) + [1], padding=_padding(padding))
    return _back(out, moved)


def depthwise_conv2d(x, depthwise_kernel, strides=(1, 1), padding="valid", data_format=None, dilation_rate=(1, 1)):
    x, moved = _channels_last(x, data_format, 4)
    out = _tw().nn.depthwise_conv2d(
        x, depthwise_kernel, [1] + list(strides) + [1], _padding(padding), rate=list(dilation_rate)
    )
    return _back(out, moved)


def separable_conv2d(
    x, depthwise_kernel, pointwise_kernel, strides=(1, 1), padding="valid", data_format=None, dilation_rate=(1, 1)
):
    x, moved = _channels_last(x, data_format, 4)
    out = _tw().nn.separable_conv2d(
        x, depthwise_kernel, pointwise_kernel, [1] + list(strides) + [1], _padding(padding), rate=list(dilation_rate)
    )
    return _back(out, moved)


def pool2d(x, pool_size, strides=(1, 1), padding="valid", data_format=None, pool_mode="max"):
    if pool_mode not in ("max", "avg"):
        raise ValueError(f"Invalid pooling mode: {pool_mode}")
    x, moved = _channels_last(x, data_format, 4)
    pool = _tw().nn.max_pool if pool_mode == "max" else _tw().nn.avg_pool
    out = pool(x, [1] + list(pool_size) + [1], [1] + list(strides) + [1], _padding(padding))
    return _back(out, moved)


def pool3d(x, pool_size, strides=(1, 1, 1), padding="valid", data_format=None, pool_mode="max"):
    if pool_mode not in ("max", "avg"):
        raise ValueError(f"Invalid pooling mode: {pool_mode}")
    x, moved = _channels_last(x, data_format, 5)
    pool = _tw().nn.max_pool3d if pool_mode == "max" else _tw().nn.avg_pool3d
    out = pool(x, [1] + list(pool_size) + [1], [1] + list(strides) + [1], _padding(padding))
    return _back(out, moved)


def batch_normalization(x, mean, var, beta, gamma, axis=-1, epsilon=1e-3):
    return _tw().nn.batch_normalization(x, mean, var, beta, gamma, epsilon)


def normalize_batch_in_training(x, gamma, beta, reduction_axes, epsilon=1e-3):
    tw = _tw()
    mean, variance = tw.nn.moments(x, reduction_axes, keep_dims=False)
    shape = [1 if i in reduction_axes else d for i, d in enumerate(x.shape.as_list())]
    normed = tw.nn.batch_normalization(
        x,
        tw.reshape(mean, shape),
        tw.reshape(variance, shape),
        None if beta is None else tw.reshape(beta, shape),
        None if gamma is None else tw.reshape(gamma, shape),
        epsilon,
    )
    return normed, mean, variance


# --- control -----------------------------------------------------------------------------------------------------------
def switch(condition, then_expression, else_expression):
    tw = _tw()
    then_fn = then_expression if callable(then_expression) else (lambda: then_expression)
    else_fn = else_expression if callable(else_expression) else (lambda: else_expression)
    if condition.dtype != tw.bool:
        condition = tw.cast(condition, tw.bool)
    if condition.shape.ndims == 0:
        return tw.cond(condition, then_fn, else_fn)
    then_t, else_t = then_fn(), else_fn()
    while condition.shape.ndims < then_t.shape.ndims:
        condition = tw.expand_dims(condition, -1)
    condition = tw.logical_and(condition, tw.ones_like(then_t, dtype=tw.bool))
    return tw.where(condition, then_t, else_t)


def in_train_phase(x, alt, training=None):
    from tensorweave._src.keras.backend import learning_phase

    training = learning_phase() if training is None else training
    if isinstance(training, (bool, int)):
        chosen = x if training else alt
        return chosen() if callable(chosen) else chosen
    return switch(training, x, alt)


def in_test_phase(x, alt, training=None):
    return in_train_phase(alt, x, training=training)


def map_fn(fn, elems, name=None, dtype=None):
    return _tw().map_fn(fn, elems, name=name, dtype=dtype)


def foldl(fn, elems, initializer=None, name=None):
    return _tw().foldl(fn, elems, initializer=initializer, name=name)


def foldr(fn, elems, initializer=None, name=None):
    return _tw().foldr(fn, elems, initializer=initializer, name=name)


def print_tensor(x, message="", summarize=3):
    return _tw().Print(x, [x], message, summarize=summarize)


def name_scope(name):
    return ops.name_scope(name)


def image_data_format():
    return _IMAGE_DATA_FORMAT["value"]


def set_image_data_format(data_format):
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(f"Unknown data_format: {data_format}")
    _IMAGE_DATA_FORMAT["value"] = str(data_format)


def set_epsilon(value):
    from tensorweave._src.keras import backend

    backend._EPSILON["value"] = value


def backend():
    return "tensorflow"


def is_keras_tensor(x):
    tw = _tw()
    from tensorweave._src.layers import base

    if not isinstance(x, (tw.Tensor, tw.Variable, tw.SparseTensor)):
        raise ValueError(  # noqa: TRY004 - tf_keras's error class
            "Unexpectedly found an instance of type `" + str(type(x)) + "`. Expected a symbolic tensor instance."
        )
    return base.keras_history(x) is not None


_IMAGE_DATA_FORMAT = {"value": "channels_last"}
_UIDS = {}


def get_uid(prefix=""):
    graph = ops.get_default_graph()
    counts = _UIDS.setdefault(graph, {})
    counts[prefix] = counts.get(prefix, 0) + 1
    return counts[prefix]


def reset_uids():
    _UIDS.clear()


def manual_variable_initialization(value):
    from tensorweave._src.keras import backend

    backend._MANUAL_VAR_INIT["value"] = bool(value)

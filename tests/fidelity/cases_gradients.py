"""Gradients: `tf.gradients` values (first and second order) of every differentiable op, what has no gradient,
and optimizers' variables and slots after a few dense and sparse steps, against TensorFlow 1."""

import numpy as np

from tests.fidelity.harness import case

X = [-2.0, -0.5, 0.0, 0.5, 3.0]
POS = [0.25, 0.5, 1.0, 2.0, 4.0]
M = [[1.0, -2.0, 3.0], [0.5, 0.0, -1.5]]


def _grads(tf, f, values, dtype=None, order=1):
    """[d^k/dx^k sum(f(x)) for k = 1..order] at x = values (None where TensorFlow gives none)."""
    x = tf.constant(values, dtype or tf.float32)
    y = f(x)
    out, target = [], y
    for _ in range(order):
        (g,) = tf.gradients(target, x)
        out.append(g)
        if g is None:
            break
        target = g
    return out


# --- what has no gradient ------------------------------------------------------------------------------------


@case
def gradient_of_integer_tensor_is_none(tf, sess):
    x = tf.constant([1, 2, 3])
    return tf.gradients(x * 2 + 1, x)


@case
def gradient_through_int_cast_is_none(tf, sess):
    x = tf.constant([1.5, 2.5])
    return tf.gradients(tf.cast(tf.cast(x, tf.int32), tf.float32) * x, x)


@case
def gradient_of_int64_reduce_sum_is_none(tf, sess):
    x = tf.constant([1, 2], tf.int64)
    return tf.gradients(tf.reduce_sum(x * x), x)


@case
def gradient_through_float64_cast(tf, sess):
    x = tf.constant([1.5, -2.0])
    return tf.gradients(tf.square(tf.cast(x, tf.float64)), x)


@case
def gradient_unconnected_is_none(tf, sess):
    x, z = tf.constant([1.0]), tf.constant([2.0])
    return tf.gradients(z * 3.0, [x, z])


@case
def gradient_through_stop_gradient_is_none(tf, sess):
    x = tf.constant([1.0, 2.0])
    return tf.gradients(tf.stop_gradient(x) * x, x)


@case
def gradient_with_stop_gradients_argument(tf, sess):
    x = tf.constant(2.0)
    y = x * x
    z = y * x
    return tf.gradients(z, x, stop_gradients=[y])


@case
def gradient_of_argmax_is_none(tf, sess):
    x = tf.constant([1.0, 3.0])
    return tf.gradients(tf.cast(tf.argmax(x), tf.float32), x)


@case
def gradient_of_floor_round_ceil_sign(tf, sess):
    x = tf.constant([1.5, -0.5])
    return [tf.gradients(f(x), x) for f in (tf.floor, tf.round, tf.ceil, tf.sign)]


@case
def gradient_of_floordiv_is_none(tf, sess):
    x = tf.constant([7.0, -7.0])
    return tf.gradients(tf.floordiv(x, 2.0), x)


@case
def gradient_through_placeholder_with_default(tf, sess):
    x = tf.constant([1.0, 2.0])
    p = tf.placeholder_with_default(x, [2])
    return tf.gradients(p * p, x)


@case
def gradient_with_grad_ys(tf, sess):
    x = tf.constant([1.0, 2.0])
    return tf.gradients(x * x, x, grad_ys=tf.constant([3.0, -1.0]))


@case
def gradient_of_list_of_ys_sums(tf, sess):
    x = tf.constant([1.0, 2.0])
    return tf.gradients([x * x, 3.0 * x], x)


@case
def gradient_of_x_used_twice(tf, sess):
    x = tf.constant(3.0)
    return tf.gradients(x * x * x + x, x)


# --- activations ---------------------------------------------------------------------------------------------


@case
def selu_gradient_at_zero(tf, sess):
    return _grads(tf, tf.nn.selu, [0.0])


@case
def selu_gradients(tf, sess):
    return _grads(tf, tf.nn.selu, X, order=2)


@case
def elu_gradients(tf, sess):
    return _grads(tf, tf.nn.elu, X, order=2)


@case
def elu_gradients_float64(tf, sess):
    return _grads(tf, tf.nn.elu, X, tf.float64, order=2)


@case
def softplus_gradients(tf, sess):
    return _grads(tf, tf.nn.softplus, X, order=2)


@case
def softplus_third_order(tf, sess):
    return _grads(tf, tf.nn.softplus, [0.5, -1.0], order=3)


@case
def relu_gradients(tf, sess):
    return _grads(tf, tf.nn.relu, X, order=2)


@case
def relu6_gradients(tf, sess):
    return _grads(tf, tf.nn.relu6, [-1.0, 0.0, 3.0, 6.0, 7.0], order=2)


@case
def leaky_relu_gradients(tf, sess):
    return _grads(tf, lambda x: tf.nn.leaky_relu(x, alpha=0.3), X, order=2)


@case
def tanh_gradients(tf, sess):
    return _grads(tf, tf.tanh, X, order=2)


@case
def sigmoid_gradients(tf, sess):
    return _grads(tf, tf.sigmoid, X, order=2)


@case
def sigmoid_third_order(tf, sess):
    return _grads(tf, tf.sigmoid, [0.3, -1.2], order=3)


@case
def relu_gradient_of_relu_gradient_input(tf, sess):
    x = tf.constant(X)
    w = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0])
    (g,) = tf.gradients(tf.nn.relu(x * w), x)
    return tf.gradients(g, w)


# --- softmax and cross-entropies -----------------------------------------------------------------------------


@case
def softmax_gradients(tf, sess):
    return _grads(tf, lambda x: tf.nn.softmax(x) * [[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], M, order=2)


@case
def softmax_second_order_of_weighted(tf, sess):
    x = tf.constant(M)
    y = tf.reduce_sum(tf.square(tf.nn.softmax(x)))
    (g,) = tf.gradients(y, x)
    return g, tf.gradients(g, x)


@case
def log_softmax_gradients(tf, sess):
    return _grads(tf, lambda x: tf.nn.log_softmax(x) * [[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], M, order=2)


@case
def log_softmax_second_order_of_squares(tf, sess):
    x = tf.constant(M)
    y = tf.reduce_sum(tf.square(tf.nn.log_softmax(x)))
    (g,) = tf.gradients(y, x)
    return g, tf.gradients(g, x)


@case
def softmax_xent_v2_gradients(tf, sess):
    labels = tf.constant([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]])
    x = tf.constant(M)
    loss = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=x)
    (g,) = tf.gradients(loss, x)
    return g, tf.gradients(g * [[1.0, 2.0, 3.0], [3.0, 1.0, 2.0]], x), tf.gradients(loss, labels)


@case
def softmax_xent_second_order(tf, sess):
    labels = tf.constant([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]])
    x = tf.constant(M)
    loss = tf.reduce_sum(tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=x))
    (g,) = tf.gradients(loss, x)
    return g, tf.gradients(tf.reduce_sum(tf.square(g)), x)


@case
def softmax_xent_v1_no_gradient_to_labels(tf, sess):
    labels = tf.constant([[0.2, 0.8]])
    loss = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=tf.constant([[1.0, 2.0]]))
    return tf.gradients(loss, labels)


@case
def sparse_softmax_xent_gradients(tf, sess):
    x = tf.constant(M)
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([2, 0]), logits=x)
    (g,) = tf.gradients(loss * [1.0, 3.0], x)
    return g, tf.gradients(tf.reduce_sum(tf.square(g)), x)


@case
def l2_loss_gradients(tf, sess):
    return _grads(tf, tf.nn.l2_loss, X, order=2)


@case
def l2_normalize_gradients(tf, sess):
    return _grads(tf, lambda x: tf.nn.l2_normalize(x, axis=1) * [[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]], M)


@case
def moments_gradients(tf, sess):
    def f(x):
        mean, var = tf.nn.moments(x, axes=[0])
        return mean * [1.0, 2.0, 3.0] + var * [3.0, 2.0, 1.0]

    return _grads(tf, f, M, order=2)


@case
def bias_add_gradients(tf, sess):
    x = tf.constant(M)
    b = tf.constant([1.0, 2.0, 3.0])
    y = tf.nn.bias_add(x, b) * [[1.0, 2.0, 3.0]]
    return tf.gradients(y, [x, b])


# --- math ops ------------------------------------------------------------------------------------------------


@case
def exp_log_gradients(tf, sess):
    return _grads(tf, tf.exp, X, order=2), _grads(tf, tf.log, POS, order=2)


@case
def log1p_sqrt_rsqrt_gradients(tf, sess):
    return [_grads(tf, f, POS, order=2) for f in (tf.log1p, tf.sqrt, tf.rsqrt)]


@case
def square_reciprocal_gradients(tf, sess):
    return _grads(tf, tf.square, X, order=2), _grads(tf, tf.reciprocal, POS, order=2)


@case
def abs_gradient_at_zero(tf, sess):
    return _grads(tf, tf.abs, X, order=2)


@case
def negative_gradient(tf, sess):
    return _grads(tf, tf.negative, X, order=2)


@case
def sqrt_gradient_at_zero(tf, sess):
    return _grads(tf, tf.sqrt, [0.0])


@case
def log_gradient_at_zero(tf, sess):
    return _grads(tf, tf.log, [0.0])


@case
def pow_gradients(tf, sess):
    x = tf.constant([2.0, 0.0, -2.0, 3.0])
    y = tf.constant([3.0, 2.0, 2.0, 0.5])
    return tf.gradients(tf.pow(x, y), [x, y])


@case
def pow_gradient_at_zero_base_zero_exponent(tf, sess):
    x = tf.constant([0.0])
    y = tf.constant([0.0])
    return tf.gradients(tf.pow(x, y), [x, y])


@case
def pow_second_order(tf, sess):
    return _grads(tf, lambda x: tf.pow(x, 3.0), X, order=2)


@case
def div_gradients(tf, sess):
    x = tf.constant([1.0, -2.0, 3.0])
    y = tf.constant([2.0, 4.0, -0.5])
    (gx, gy) = tf.gradients(tf.div(x, y), [x, y])
    return gx, gy, tf.gradients(gy, [x, y])


@case
def truediv_operator_gradients(tf, sess):
    x = tf.constant([1.0, -2.0, 3.0])
    y = tf.constant(2.0)
    return tf.gradients(x / y, [x, y])


@case
def floormod_gradients(tf, sess):
    x = tf.constant([7.0, -7.0, 5.5])
    y = tf.constant([3.0, 3.0, -2.0])
    return tf.gradients(tf.floormod(x, y), [x, y])


@case
def maximum_gradients_with_ties(tf, sess):
    x = tf.constant([1.0, 2.0, 3.0])
    y = tf.constant([2.0, 2.0, 1.0])
    return tf.gradients(tf.maximum(x, y), [x, y])


@case
def minimum_gradients_with_ties(tf, sess):
    x = tf.constant([1.0, 2.0, 3.0])
    y = tf.constant([2.0, 2.0, 1.0])
    return tf.gradients(tf.minimum(x, y), [x, y])


@case
def maximum_gradient_broadcast(tf, sess):
    x = tf.constant([[1.0, 5.0], [3.0, -1.0]])
    y = tf.constant(2.0)
    return tf.gradients(tf.maximum(x, y), [x, y])


@case
def squared_difference_gradients(tf, sess):
    x = tf.constant([1.0, 2.0])
    y = tf.constant([[3.0], [0.5]])
    return tf.gradients(tf.squared_difference(x, y), [x, y])


@case
def mul_add_sub_broadcast_gradients(tf, sess):
    x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    y = tf.constant([[2.0], [3.0]])
    z = tf.constant([1.0, -1.0, 2.0])
    return tf.gradients(x * y - z + y, [x, y, z])


@case
def clip_by_value_gradients(tf, sess):
    x = tf.constant([-2.0, 0.0, 0.5, 1.0, 3.0])
    return tf.gradients(tf.clip_by_value(x, 0.0, 1.0), x)


@case
def add_n_gradients(tf, sess):
    x = tf.constant([1.0, 2.0])
    return tf.gradients(tf.add_n([x, x * x, 3.0 * x]), x)


@case
def where_gradients(tf, sess):
    x = tf.constant([1.0, 2.0, 3.0])
    y = tf.constant([4.0, 5.0, 6.0])
    return tf.gradients(tf.where([True, False, True], x * x, y * y), [x, y])


@case
def matmul_gradients(tf, sess):
    a = tf.constant(M)
    b = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    return tf.gradients(tf.matmul(a, b) * [[1.0, 2.0], [3.0, 4.0]], [a, b])


@case
def matmul_transposed_gradients(tf, sess):
    a = tf.constant(M)
    b = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    return tf.gradients(tf.matmul(a, b, transpose_a=True), [a, b]), tf.gradients(
        tf.matmul(a, b, transpose_b=True), [a, b]
    )


@case
def matmul_second_order(tf, sess):
    a = tf.constant(M)
    b = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    (ga,) = tf.gradients(tf.square(tf.matmul(a, b)), a)
    return tf.gradients(ga, [a, b])


@case
def batch_matmul_gradients(tf, sess):
    a = tf.reshape(tf.range(12.0), [2, 2, 3])
    b = tf.reshape(tf.range(6.0), [3, 2])
    return tf.gradients(tf.matmul(a, b), [a, b])


# --- reductions ----------------------------------------------------------------------------------------------


@case
def reduce_sum_mean_gradients(tf, sess):
    x = tf.constant(M)
    return tf.gradients(tf.reduce_sum(x, 1) * [1.0, 2.0], x), tf.gradients(tf.reduce_mean(x, 0, keepdims=True), x)


@case
def reduce_mean_negative_axis_gradient(tf, sess):
    x = tf.reshape(tf.range(24.0), [2, 3, 4])
    return tf.gradients(tf.reduce_mean(x, axis=[-1, 0]), x)


@case
def reduce_max_gradient_splits_ties(tf, sess):
    x = tf.constant([[1.0, 3.0, 3.0], [2.0, 0.0, -1.0]])
    return tf.gradients(tf.reduce_max(x, axis=1), x), tf.gradients(tf.reduce_max(x), x)


@case
def reduce_min_gradient(tf, sess):
    x = tf.constant([[1.0, 1.0, 3.0], [2.0, 0.0, -1.0]])
    return tf.gradients(tf.reduce_min(x, axis=0), x)


@case
def reduce_prod_gradients(tf, sess):
    x = tf.constant([[1.0, 2.0, 3.0], [4.0, 0.0, 6.0]])
    return tf.gradients(tf.reduce_prod(x, axis=1), x), tf.gradients(tf.reduce_prod(x), x)


@case
def reduce_prod_second_order(tf, sess):
    return _grads(tf, lambda x: tf.reduce_prod(x), [1.0, 2.0, 3.0], order=2)


# --- array ops -----------------------------------------------------------------------------------------------


@case
def reshape_transpose_gradients(tf, sess):
    x = tf.constant(M)
    y = tf.transpose(tf.reshape(x, [3, 2])) * [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    return tf.gradients(y, x)


@case
def concat_split_gradients(tf, sess):
    a, b = tf.constant([[1.0, 2.0]]), tf.constant([[3.0], [4.0]])
    c = tf.concat([tf.transpose(a), b], axis=1)
    p, q = tf.split(c * [[1.0, 2.0], [3.0, 4.0]], 2, axis=0)
    return tf.gradients(p * 2.0 + q, [a, b])


@case
def stack_unstack_gradients(tf, sess):
    x = tf.constant([1.0, 2.0, 3.0])
    parts = tf.unstack(x)
    return tf.gradients(tf.stack([parts[2] * 2.0, parts[0]]) * [1.0, 5.0], x)


@case
def slice_strided_slice_gradients(tf, sess):
    x = tf.reshape(tf.range(12.0), [3, 4])
    return tf.gradients(tf.slice(x, [1, 1], [2, 2]), x), tf.gradients(x[::2, 1:3] * 3.0, x)


@case
def gather_gradient_dense_value(tf, sess):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    (g,) = tf.gradients(tf.gather(x, [2, 0, 2]) * [[1.0], [2.0], [3.0]], x)
    return tf.convert_to_tensor(g)


@case
def pad_tile_gradients(tf, sess):
    x = tf.constant([[1.0, 2.0]])
    y = tf.pad(x, [[1, 0], [0, 2]]) * tf.reshape(tf.range(8.0), [2, 4])
    return tf.gradients(y, x), tf.gradients(tf.tile(x, [3, 2]) * tf.reshape(tf.range(12.0), [3, 4]), x)


@case
def expand_dims_squeeze_gradients(tf, sess):
    x = tf.constant([1.0, 2.0])
    return tf.gradients(tf.squeeze(tf.expand_dims(x, 0)) * [3.0, 4.0], x)


@case
def unsorted_segment_sum_gradient(tf, sess):
    x = tf.constant([1.0, 2.0, 3.0, 4.0])
    return tf.gradients(tf.unsorted_segment_sum(x, [0, 1, 0, 1], 2) * [10.0, 100.0], x)


@case
def identity_and_cast_gradients(tf, sess):
    x = tf.constant([1.0, 2.0])
    return tf.gradients(tf.identity(x) * tf.cast(tf.cast(x, tf.float64) * 3.0, tf.float32), x)


# --- conv and pooling ----------------------------------------------------------------------------------------


def _image(tf):
    return tf.reshape(tf.range(32.0) / 10.0, [1, 4, 4, 2])


@case
def conv2d_gradients(tf, sess):
    x = _image(tf)
    w = tf.reshape(tf.range(24.0) / 24.0, [2, 2, 2, 3])
    y = tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME")
    return tf.gradients(tf.reduce_sum(tf.square(y)), [x, w])


@case
def conv2d_strided_valid_gradients(tf, sess):
    x = _image(tf)
    w = tf.reshape(tf.range(16.0) / 16.0, [2, 2, 2, 2])
    y = tf.nn.conv2d(x, w, strides=[1, 2, 2, 1], padding="VALID")
    return tf.gradients(y * tf.reshape(tf.range(8.0), [1, 2, 2, 2]), [x, w])


@case
def depthwise_conv2d_gradients(tf, sess):
    x = _image(tf)
    w = tf.reshape(tf.range(8.0) / 8.0, [2, 2, 2, 1])
    y = tf.nn.depthwise_conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME")
    return tf.gradients(tf.reduce_sum(tf.square(y)), [x, w])


@case
def max_pool_gradient(tf, sess):
    x = _image(tf)
    y = tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    return tf.gradients(y * tf.reshape(tf.range(8.0), [1, 2, 2, 2]), x)


@case
def avg_pool_gradients(tf, sess):
    x = _image(tf)
    y = tf.nn.avg_pool(x, [1, 3, 3, 1], [1, 1, 1, 1], "SAME")
    (g,) = tf.gradients(tf.reduce_sum(tf.square(y)), x)
    return g, tf.gradients(tf.reduce_sum(g * x), x)


@case
def fused_batch_norm_gradients(tf, sess):
    x = _image(tf) * tf.reshape(tf.range(32.0), [1, 4, 4, 2])
    scale = tf.constant([1.0, 2.0])
    offset = tf.constant([0.5, -0.5])
    y, _, _ = tf.nn.fused_batch_norm(x, scale, offset, is_training=True)
    return tf.gradients(tf.reduce_sum(tf.square(y) * tf.reshape(tf.range(32.0), [1, 4, 4, 2])), [x, scale, offset])


# --- optimizers: variables and slots after a few steps ---------------------------------------------------------


def _embedding_steps(tf, sess, make_optimizer, slot_names, steps=3, indices=(0, 2, 0), dense=False):
    """Trains a [4, 2] embedding through a gather of `indices` for `steps` steps; returns the variable and its
    slots (rows 1 and 3 are never read)."""
    emb = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]], name="emb")
    rows = tf.gather(emb, list(indices))
    loss = tf.reduce_sum(tf.square(rows - 1.0) * [[1.0, 2.0], [0.5, 1.0], [2.0, 1.0]][: len(indices)])
    if dense:
        loss = loss + 0.0 * tf.reduce_sum(emb)
    opt = make_optimizer()
    train = opt.minimize(loss)
    sess.run(tf.global_variables_initializer())
    for _ in range(steps):
        sess.run(train)
    return [sess.run(emb)] + [sess.run(opt.get_slot(emb, name)) for name in slot_names]


@case
def momentum_sparse_keeps_untouched_slots(tf, sess):
    return _embedding_steps(tf, sess, lambda: tf.train.MomentumOptimizer(0.1, 0.9), ["momentum"])


@case
def momentum_sparse_nesterov(tf, sess):
    return _embedding_steps(tf, sess, lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True), ["momentum"])


@case
def momentum_sparse_step_skipping_a_row(tf, sess):
    emb = tf.Variable([[1.0], [2.0], [3.0]])
    which = tf.placeholder(tf.int32, [1])
    loss = tf.reduce_sum(tf.gather(emb, which) * 2.0)
    opt = tf.train.MomentumOptimizer(0.5, 0.5)
    train = opt.minimize(loss)
    sess.run(tf.global_variables_initializer())
    for i in (0, 1, 1, 2):
        sess.run(train, {which: [i]})
    return sess.run(emb), sess.run(opt.get_slot(emb, "momentum"))


@case
def momentum_dense(tf, sess):
    return _embedding_steps(tf, sess, lambda: tf.train.MomentumOptimizer(0.1, 0.9), ["momentum"], dense=True)


@case
def rmsprop_sparse_keeps_untouched_slots(tf, sess):
    return _embedding_steps(tf, sess, lambda: tf.train.RMSPropOptimizer(0.1), ["rms", "momentum"])


@case
def rmsprop_sparse_with_momentum(tf, sess):
    return _embedding_steps(tf, sess, lambda: tf.train.RMSPropOptimizer(0.1, momentum=0.5), ["rms", "momentum"])


@case
def rmsprop_sparse_centered(tf, sess):
    return _embedding_steps(
        tf, sess, lambda: tf.train.RMSPropOptimizer(0.05, momentum=0.3, centered=True), ["rms", "mg", "momentum"]
    )


@case
def rmsprop_dense(tf, sess):
    return _embedding_steps(
        tf, sess, lambda: tf.train.RMSPropOptimizer(0.1, momentum=0.5), ["rms", "momentum"], dense=True
    )


@case
def rmsprop_dense_centered(tf, sess):
    return _embedding_steps(
        tf, sess, lambda: tf.train.RMSPropOptimizer(0.05, centered=True), ["rms", "mg", "momentum"], dense=True
    )


@case
def adagrad_sparse(tf, sess):
    return _embedding_steps(tf, sess, lambda: tf.train.AdagradOptimizer(0.1), ["accumulator"])


@case
def adagrad_dense(tf, sess):
    return _embedding_steps(tf, sess, lambda: tf.train.AdagradOptimizer(0.1, 0.5), ["accumulator"], dense=True)


@case
def adam_sparse_decays_all_rows(tf, sess):
    return _embedding_steps(tf, sess, lambda: tf.train.AdamOptimizer(0.1), ["m", "v"])


@case
def adam_dense(tf, sess):
    return _embedding_steps(tf, sess, lambda: tf.train.AdamOptimizer(0.1, 0.8, 0.9, 1e-3), ["m", "v"], dense=True)


@case
def adam_beta_powers(tf, sess):
    v = tf.Variable([1.0, 2.0])
    opt = tf.train.AdamOptimizer(0.1, beta1=0.5, beta2=0.25)
    train = opt.minimize(tf.reduce_sum(v * v))
    sess.run(tf.global_variables_initializer())
    sess.run(train)
    sess.run(train)
    return [sess.run(x) for x in opt._get_beta_accumulators()] + [sess.run(v)]


@case
def gradient_descent_sparse(tf, sess):
    return _embedding_steps(tf, sess, lambda: tf.train.GradientDescentOptimizer(0.1), [])


@case
def gradient_descent_with_tensor_learning_rate(tf, sess):
    v = tf.Variable([1.0, -2.0])
    lr = tf.placeholder(tf.float32, [])
    train = tf.train.GradientDescentOptimizer(lr).minimize(tf.reduce_sum(tf.square(v)))
    sess.run(tf.global_variables_initializer())
    sess.run(train, {lr: 0.25})
    sess.run(train, {lr: 0.1})
    return sess.run(v)


@case
def momentum_with_global_step(tf, sess):
    v = tf.Variable([1.0])
    step = tf.train.get_or_create_global_step()
    train = tf.train.MomentumOptimizer(0.1, 0.5).minimize(tf.reduce_sum(v * v), global_step=step)
    sess.run(tf.global_variables_initializer())
    sess.run(train)
    sess.run(train)
    return sess.run(v), sess.run(step)


@case
def optimizer_slot_names(tf, sess):
    v = tf.Variable([1.0], name="w")
    loss = tf.reduce_sum(v * v)
    out = []
    for opt in (
        tf.train.MomentumOptimizer(0.1, 0.9),
        tf.train.RMSPropOptimizer(0.1, centered=True),
        tf.train.AdagradOptimizer(0.1),
        tf.train.AdamOptimizer(0.1),
    ):
        opt.minimize(loss)
        out.append(sorted(opt.get_slot_names()))
    return out


# --- batch normalization ---------------------------------------------------------------------------------------


def _batch_norm_moving(tf, sess, x, **kwargs):
    x = tf.constant(x)
    y = tf.layers.batch_normalization(x, training=True, **kwargs)
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    sess.run(tf.global_variables_initializer())
    with tf.control_dependencies(updates):
        y = tf.identity(y)
    out = sess.run(y)
    moving = sorted((v for v in tf.global_variables() if "moving" in v.name), key=lambda v: v.name)
    return out, [sess.run(v) for v in moving]


@case
def batch_norm_2d_moving_variance_is_unbiased(tf, sess):
    return _batch_norm_moving(tf, sess, [[1.0], [2.0], [4.0]], momentum=0.5)


@case
def batch_norm_3d_moving_variance(tf, sess):
    return _batch_norm_moving(tf, sess, [[[1.0, 2.0], [3.0, 5.0]], [[0.0, 1.0], [2.0, 7.0]]], momentum=0.9)


@case
def batch_norm_4d_moving_variance(tf, sess):
    x = np.arange(24.0, dtype=np.float32).reshape([2, 3, 2, 2]) ** 1.5
    return _batch_norm_moving(tf, sess, x, momentum=0.8)


@case
def batch_norm_2d_gradients(tf, sess):
    x = tf.constant([[1.0, 2.0], [2.0, -1.0], [4.0, 0.5]])
    y = tf.layers.batch_normalization(x, training=True)
    gamma_beta = [v for v in tf.trainable_variables()]
    sess.run(tf.global_variables_initializer())
    return tf.gradients(tf.reduce_sum(tf.square(y) * [[1.0, 2.0]]), [x] + gamma_beta)


@case
def batch_norm_inference_uses_moving_stats(tf, sess):
    x = tf.constant([[1.0], [2.0], [4.0]])
    y = tf.layers.batch_normalization(x, training=False)
    sess.run(tf.global_variables_initializer())
    return y


# --- variables ---------------------------------------------------------------------------------------------------


@case
def get_variable_initializer_shape_mismatch(tf, sess):
    return tf.get_variable("h", [3], initializer=tf.constant([1.0, 2.0])).shape


@case
def get_variable_tensor_initializer_without_shape(tf, sess):
    v = tf.get_variable("h", initializer=tf.constant([1.0, 2.0]))
    sess.run(tf.global_variables_initializer())
    return v.shape, sess.run(v)


@case
def get_variable_tensor_initializer_matching_shape(tf, sess):
    v = tf.get_variable("h", [2], initializer=tf.constant([1.0, 2.0]))
    sess.run(tf.global_variables_initializer())
    return sess.run(v)

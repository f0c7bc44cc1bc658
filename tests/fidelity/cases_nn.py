"""tf.nn beyond conv2d/pools/softmax (issue 16): the sigmoid and weighted losses, batch normalization in both
layouts, 1-d and 3-d convolution and pooling, transposed, atrous and separable convolutions, LRN,
max_pool_with_argmax, the moments helpers, crelu/selu/swish/softsign, xw_plus_b, relu_layer, zero_fraction,
embedding_lookup: values, static shapes, gradients (`tf.gradients`) and error classes against TensorFlow 1."""

import numpy as np

from tests.fidelity.harness import case


def _rand(*shape, seed=0, low=-1.0, high=1.0):
    return np.random.default_rng(seed).uniform(low, high, size=shape).astype(np.float32)


def _distinct(*shape, seed=0):
    n = int(np.prod(shape))
    return (np.random.default_rng(seed).permutation(n).astype(np.float32) / n - 0.5).reshape(shape)


def _with_grads(tf, y, xs):
    """y, its static shape and d sum(y * w) / d xs for a fixed random w."""
    w = tf.constant(_rand(*y.shape.as_list(), seed=99))
    return [y, y.shape, tf.gradients(tf.reduce_sum(y * w), xs)]


# --- losses ---------------------------------------------------------------------


@case
def sigmoid_cross_entropy_with_logits(tf, sess):
    logits = tf.constant(_rand(3, 4, low=-5, high=5))
    labels = tf.constant(_rand(3, 4, seed=1, low=0, high=1))
    y = tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
    return _with_grads(tf, y, [logits, labels]) + [y.op.name]


@case
def sigmoid_cross_entropy_with_logits_shape_mismatch(tf, sess):
    return tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.ones([2, 3]), logits=tf.ones([3, 2]))


@case
def sigmoid_cross_entropy_with_logits_positional(tf, sess):
    return tf.nn.sigmoid_cross_entropy_with_logits(tf.ones([2]), tf.ones([2]))


@case
def weighted_cross_entropy_with_logits(tf, sess):
    logits = tf.constant(_rand(3, 4, low=-5, high=5))
    labels = tf.constant(_rand(3, 4, seed=1, low=0, high=1))
    y = tf.nn.weighted_cross_entropy_with_logits(labels=labels, logits=logits, pos_weight=2.5)
    return _with_grads(tf, y, [logits, labels]) + [y.op.name]


@case
def weighted_cross_entropy_with_logits_targets(tf, sess):
    return tf.nn.weighted_cross_entropy_with_logits(targets=[[1.0, 0.0]], logits=[[0.5, -2.0]], pos_weight=0.5)


@case
def log_poisson_loss(tf, sess):
    targets = tf.constant([0.0, 0.5, 1.0, 2.0, 7.0])
    log_input = tf.constant([0.1, -0.3, 1.2, 0.7, 2.0])
    return [
        tf.nn.log_poisson_loss(targets, log_input),
        tf.nn.log_poisson_loss(targets, log_input, compute_full_loss=True),
    ]


@case
def sigmoid_cross_entropy_extreme_logits(tf, sess):
    return tf.nn.sigmoid_cross_entropy_with_logits(labels=[1.0, 0.0, 1.0], logits=[100.0, -100.0, -100.0])


# --- normalization -------------------------------------------------------------


@case
def batch_normalization(tf, sess):
    x = tf.constant(_rand(2, 3, 4))
    mean, var = tf.constant(_rand(4, seed=1)), tf.constant(_rand(4, seed=2, low=0.5, high=2))
    offset, scale = tf.constant(_rand(4, seed=3)), tf.constant(_rand(4, seed=4))
    y = tf.nn.batch_normalization(x, mean, var, offset, scale, 0.001)
    no_scale = tf.nn.batch_normalization(x, mean, var, None, None, 0.01)
    return _with_grads(tf, y, [x, mean, var, offset, scale]) + [no_scale]


@case
def batch_norm_with_global_normalization(tf, sess):
    x = tf.constant(_rand(2, 2, 2, 3))
    m, v = tf.constant(_rand(3, seed=1)), tf.constant(_rand(3, seed=2, low=0.5, high=2))
    beta, gamma = tf.constant(_rand(3, seed=3)), tf.constant(_rand(3, seed=4))
    return [
        tf.nn.batch_norm_with_global_normalization(x, m, v, beta, gamma, 0.001, True),
        tf.nn.batch_norm_with_global_normalization(x, m, v, beta, gamma, 0.001, False),
    ]


def _fused(tf, data_format, is_training):
    shape = [2, 3, 4, 5] if data_format == "NCHW" else [2, 4, 5, 3]
    x = tf.constant(_rand(*shape))
    scale, offset = tf.constant(_rand(3, seed=1)), tf.constant(_rand(3, seed=2))
    if is_training:
        y, m, v = tf.nn.fused_batch_norm(x, scale, offset, epsilon=0.01, data_format=data_format)
    else:
        mean, var = tf.constant(_rand(3, seed=3)), tf.constant(_rand(3, seed=4, low=0.5, high=2))
        y, m, v = tf.nn.fused_batch_norm(
            x, scale, offset, mean, var, epsilon=0.01, data_format=data_format, is_training=False
        )
    return _with_grads(tf, y, [x, scale, offset]) + [m, v, m.shape]


@case
def fused_batch_norm_nchw_training(tf, sess):
    return _fused(tf, "NCHW", True)


@case
def fused_batch_norm_nhwc_training(tf, sess):
    return _fused(tf, "NHWC", True)


@case
def fused_batch_norm_nchw_wrong_scale(tf, sess):
    x = tf.ones([2, 3, 4, 4])
    return tf.nn.fused_batch_norm(x, tf.ones([4]), tf.ones([4]), data_format="NCHW")[0]


@case
def lrn_values_and_grad(tf, sess):
    x = tf.constant(_rand(2, 3, 3, 7))
    y = tf.nn.lrn(x, depth_radius=2, bias=1.5, alpha=0.3, beta=0.75)
    return _with_grads(tf, y, [x]) + [y.op.type]


@case
def local_response_normalization_defaults(tf, sess):
    x = tf.constant(_rand(1, 2, 2, 12, low=0.0))
    return tf.nn.local_response_normalization(x)


@case
def lrn_needs_rank_4(tf, sess):
    return tf.nn.lrn(tf.ones([2, 3]))


@case
def l2_normalize_axis(tf, sess):
    x = tf.constant(_rand(3, 4))
    return [tf.nn.l2_normalize(x, axis=1), tf.nn.l2_normalize(x, axis=0, epsilon=0.5)]


# --- moments ---------------------------------------------------------------------


@case
def moments_keepdims(tf, sess):
    x = tf.constant(_rand(2, 3, 4))
    m, v = tf.nn.moments(x, [0, 2], keep_dims=True)
    m2, v2 = tf.nn.moments(x, [1])
    return [m, v, m.shape, m2, v2, v2.shape]


@case
def sufficient_statistics_and_normalize_moments(tf, sess):
    x = tf.constant(_rand(3, 4))
    counts, m_ss, v_ss, shift = tf.nn.sufficient_statistics(x, [0])
    mean, var = tf.nn.normalize_moments(counts, m_ss, v_ss, shift)
    c2, m2, v2, s2 = tf.nn.sufficient_statistics(x, [1], shift=0.5, keep_dims=True)
    mean2, var2 = tf.nn.normalize_moments(c2, m2, v2, s2)
    return [counts, m_ss, v_ss, mean, var, c2, m2, v2, mean2, var2, m2.shape]


@case
def weighted_moments(tf, sess):
    x = tf.constant(_rand(3, 4))
    w = tf.constant(_rand(3, 1, seed=1, low=0.1, high=2))
    m, v = tf.nn.weighted_moments(x, [0], w)
    mk, vk = tf.nn.weighted_moments(x, [0, 1], w, keep_dims=True)
    return [m, v, m.shape, mk, vk, vk.shape]


@case
def zero_fraction(tf, sess):
    return [
        tf.nn.zero_fraction([[0.0, 1.0], [0.0, 0.0]]),
        tf.nn.zero_fraction(tf.constant([1, 0, 3], tf.int32)),
        tf.nn.zero_fraction(tf.zeros([5])).dtype,
    ]


# --- activations -------------------------------------------------------------------


@case
def crelu_selu_swish_softsign(tf, sess):
    x = tf.constant(_rand(2, 3, low=-3, high=3))
    ys = [tf.nn.crelu(x), tf.nn.crelu(x, axis=0), tf.nn.selu(x), tf.nn.swish(x), tf.nn.softsign(x)]
    ys.append(tf.nn.leaky_relu(x))
    ys.append(tf.nn.log_softmax(x, axis=0))
    grads = [tf.gradients(tf.reduce_sum(y * y), x)[0] for y in ys]
    return ys + [y.shape for y in ys] + grads


@case
def xw_plus_b_and_relu_layer(tf, sess):
    x, w, b = tf.constant(_rand(3, 4)), tf.constant(_rand(4, 2, seed=1)), tf.constant(_rand(2, seed=2))
    y = tf.nn.xw_plus_b(x, w, b)
    r = tf.nn.relu_layer(x, w, b)
    return _with_grads(tf, y, [x, w, b]) + [r, r.shape, y.op.name, r.op.name]


# --- convolution ----------------------------------------------------------------------


@case
def conv1d(tf, sess):
    x, w = tf.constant(_rand(2, 9, 3)), tf.constant(_rand(3, 3, 4, seed=1))
    y = tf.nn.conv1d(x, w, 2, "SAME")
    return _with_grads(tf, y, [x, w]) + [tf.nn.conv1d(x, w, stride=1, padding="VALID", dilations=2)]


@case
def conv1d_unknown_batch_shape(tf, sess):
    x = tf.placeholder(tf.float32, [None, 9, 3])
    return tf.nn.conv1d(x, tf.ones([3, 3, 4]), 2, "VALID").shape


@case
def conv2d_transpose(tf, sess):
    x, w = tf.constant(_rand(2, 3, 3, 4)), tf.constant(_rand(3, 3, 2, 4, seed=1))
    y = tf.nn.conv2d_transpose(x, w, [2, 6, 6, 2], [1, 2, 2, 1], "SAME")
    v = tf.nn.conv2d_transpose(x, w, [2, 7, 7, 2], [1, 2, 2, 1], "VALID")
    return _with_grads(tf, y, [x, w]) + [v, v.shape]


@case
def conv2d_transpose_channel_mismatch(tf, sess):
    return tf.nn.conv2d_transpose(tf.ones([1, 3, 3, 5]), tf.ones([3, 3, 2, 4]), [1, 6, 6, 2], [1, 2, 2, 1])


@case
def conv2d_transpose_output_channel_mismatch(tf, sess):
    return tf.nn.conv2d_transpose(tf.ones([1, 3, 3, 4]), tf.ones([3, 3, 2, 4]), [1, 6, 6, 3], [1, 2, 2, 1])


@case
def conv2d_transpose_dynamic_shape(tf, sess):
    x = tf.placeholder(tf.float32, [None, 3, 3, 4])
    out_shape = tf.stack([tf.shape(x)[0], 6, 6, 2])
    y = tf.nn.conv2d_transpose(x, tf.ones([3, 3, 2, 4]), out_shape, [1, 2, 2, 1])
    return [y.shape, sess.run(y, {x: np.ones([2, 3, 3, 4], np.float32)})]


@case
def conv1d_transpose(tf, sess):
    x, w = tf.constant(_rand(2, 4, 3)), tf.constant(_rand(3, 2, 3, seed=1))
    y = tf.nn.conv1d_transpose(x, w, [2, 8, 2], 2, "SAME")
    return _with_grads(tf, y, [x, w])


@case
def atrous_conv2d(tf, sess):
    x, w = tf.constant(_rand(1, 7, 7, 2)), tf.constant(_rand(3, 3, 2, 3, seed=1))
    y = tf.nn.atrous_conv2d(x, w, 2, "SAME")
    return _with_grads(tf, y, [x, w]) + [tf.nn.atrous_conv2d(x, w, 2, "VALID")]


@case
def atrous_conv2d_bad_rate(tf, sess):
    return tf.nn.atrous_conv2d(tf.ones([1, 5, 5, 1]), tf.ones([2, 2, 1, 1]), 0, "SAME")


@case
def atrous_conv2d_transpose(tf, sess):
    x, w = tf.constant(_rand(1, 5, 5, 3)), tf.constant(_rand(3, 3, 2, 3, seed=1))
    return [
        tf.nn.atrous_conv2d_transpose(x, w, [1, 5, 5, 2], 2, "SAME"),
        tf.nn.atrous_conv2d_transpose(x, w, [1, 9, 9, 2], 2, "VALID"),
    ]


@case
def separable_conv2d(tf, sess):
    x = tf.constant(_rand(2, 6, 6, 3))
    dw, pw = tf.constant(_rand(3, 3, 3, 2, seed=1)), tf.constant(_rand(1, 1, 6, 4, seed=2))
    y = tf.nn.separable_conv2d(x, dw, pw, [1, 2, 2, 1], "SAME")
    r = tf.nn.separable_conv2d(x, dw, pw, [1, 1, 1, 1], "VALID", rate=[2, 2])
    return _with_grads(tf, y, [x, dw, pw]) + [r, r.shape]


@case
def separable_conv2d_bad_pointwise(tf, sess):
    return tf.nn.separable_conv2d(tf.ones([1, 4, 4, 2]), tf.ones([2, 2, 2, 1]), tf.ones([2, 1, 2, 3]), [1] * 4, "SAME")


@case
def depthwise_conv2d_gradients(tf, sess):
    x, w = tf.constant(_rand(2, 5, 5, 3)), tf.constant(_rand(3, 3, 3, 2, seed=1))
    y = tf.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], "SAME")
    d = tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "VALID", rate=[2, 2])
    return _with_grads(tf, y, [x, w]) + _with_grads(tf, d, [x, w])


@case
def depthwise_backprops(tf, sess):
    x, w = tf.constant(_rand(1, 4, 4, 2)), tf.constant(_rand(2, 2, 2, 2, seed=1))
    dy = tf.constant(_rand(1, 4, 4, 4, seed=2))
    return [
        tf.nn.depthwise_conv2d_native_backprop_input([1, 4, 4, 2], w, dy, [1, 1, 1, 1], "SAME"),
        tf.nn.depthwise_conv2d_native_backprop_filter(x, [2, 2, 2, 2], dy, [1, 1, 1, 1], "SAME"),
        tf.nn.depthwise_conv2d_backprop_input([1, 4, 4, 2], w, dy, [1, 1, 1, 1], "SAME"),
    ]


@case
def conv3d(tf, sess):
    x, w = tf.constant(_rand(2, 4, 5, 5, 2)), tf.constant(_rand(2, 3, 2, 2, 3, seed=1))
    y = tf.nn.conv3d(x, w, [1, 1, 2, 1, 1], "SAME")
    v = tf.nn.conv3d(x, w, [1, 2, 1, 2, 1], "VALID")
    return _with_grads(tf, y, [x, w]) + _with_grads(tf, v, [x, w]) + [y.op.type]


@case
def conv3d_dilated(tf, sess):
    x, w = tf.constant(_rand(1, 5, 5, 5, 1)), tf.constant(_rand(2, 2, 2, 1, 2, seed=1))
    return tf.nn.conv3d(x, w, [1, 1, 1, 1, 1], "VALID", dilations=[1, 2, 2, 2, 1])


@case
def conv3d_channel_mismatch(tf, sess):
    return tf.nn.conv3d(tf.ones([1, 3, 3, 3, 2]), tf.ones([2, 2, 2, 3, 1]), [1] * 5, "SAME")


@case
def conv3d_bad_strides(tf, sess):
    return tf.nn.conv3d(tf.ones([1, 3, 3, 3, 2]), tf.ones([2, 2, 2, 2, 1]), [2, 1, 1, 1, 1], "SAME")


@case
def conv3d_transpose(tf, sess):
    x, w = tf.constant(_rand(1, 2, 3, 3, 4)), tf.constant(_rand(2, 2, 2, 3, 4, seed=1))
    y = tf.nn.conv3d_transpose(x, w, [1, 4, 6, 6, 3], [1, 2, 2, 2, 1], "SAME")
    return _with_grads(tf, y, [x, w])


@case
def conv3d_backprop_filter(tf, sess):
    x, dy = tf.constant(_rand(1, 3, 3, 3, 2)), tf.constant(_rand(1, 2, 2, 2, 3, seed=1))
    return tf.nn.conv3d_backprop_filter_v2(x, [2, 2, 2, 2, 3], dy, [1] * 5, "VALID")


@case
def convolution_dispatch(tf, sess):
    x1, w1 = tf.constant(_rand(1, 6, 2)), tf.constant(_rand(2, 2, 3, seed=1))
    x2, w2 = tf.constant(_rand(1, 5, 5, 2)), tf.constant(_rand(2, 2, 2, 3, seed=2))
    x3, w3 = tf.constant(_rand(1, 4, 4, 4, 1)), tf.constant(_rand(2, 2, 2, 1, 2, seed=3))
    return [
        tf.nn.convolution(x1, w1, "SAME", strides=[2]),
        tf.nn.convolution(x2, w2, "VALID", dilation_rate=[2, 2]),
        tf.nn.convolution(x3, w3, "SAME"),
    ]


@case
def conv_transpose_dispatch(tf, sess):
    x1, w1 = tf.constant(_rand(1, 3, 3)), tf.constant(_rand(2, 2, 3, seed=1))
    x2, w2 = tf.constant(_rand(1, 3, 3, 3)), tf.constant(_rand(2, 2, 2, 3, seed=2))
    return [
        tf.nn.conv_transpose(x1, w1, [1, 6, 2], 2),
        tf.nn.conv_transpose(x2, w2, [1, 6, 6, 2], [2, 2]),
    ]


# --- pooling ----------------------------------------------------------------------------


@case
def pool1d(tf, sess):
    x = tf.constant(_distinct(2, 9, 3))
    m = tf.nn.max_pool1d(x, 3, 2, "SAME")
    a = tf.nn.avg_pool1d(x, [2], [2], "VALID")
    return _with_grads(tf, m, [x]) + _with_grads(tf, a, [x])


@case
def pool3d(tf, sess):
    x = tf.constant(_distinct(2, 4, 5, 6, 2))
    m = tf.nn.max_pool3d(x, [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "SAME")
    a = tf.nn.avg_pool3d(x, [1, 3, 2, 2, 1], [1, 1, 2, 2, 1], "SAME")
    v = tf.nn.avg_pool3d(x, [1, 2, 3, 2, 1], [1, 2, 1, 2, 1], "VALID")
    return _with_grads(tf, m, [x]) + _with_grads(tf, a, [x]) + _with_grads(tf, v, [x])


@case
def max_pool3d_window_too_large(tf, sess):
    return tf.nn.max_pool3d(tf.ones([1, 2, 2, 2, 1]), [1, 3, 3, 3, 1], [1, 1, 1, 1, 1], "VALID")


@case
def pool_generic(tf, sess):
    x1 = tf.constant(_distinct(1, 8, 2))
    x2 = tf.constant(_distinct(1, 6, 6, 2))
    x3 = tf.constant(_distinct(1, 4, 4, 4, 1))
    return [
        tf.nn.pool(x1, [2], "MAX", "VALID", strides=[2]),
        tf.nn.pool(x2, [3, 3], "AVG", "SAME", strides=[2, 2]),
        tf.nn.pool(x3, [2, 2, 2], "MAX", "SAME"),
        tf.nn.max_pool_v2(x2, 2, 2, "VALID"),
        tf.nn.avg_pool_v2(x1, 2, 2, "VALID"),
        tf.nn.max_pool2d(x2, 3, 1, "SAME"),
        tf.nn.avg_pool2d(x2, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
    ]


@case
def pool_bad_type(tf, sess):
    return tf.nn.pool(tf.ones([1, 4, 4, 1]), [2, 2], "MIN", "VALID")


@case
def max_pool_with_argmax(tf, sess):
    x = tf.constant(_distinct(2, 5, 5, 3))
    out, argmax = tf.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    _, batch_argmax = tf.nn.max_pool_with_argmax(x, [1, 3, 3, 1], [1, 2, 2, 1], "VALID", include_batch_in_index=True)
    _, argmax32 = tf.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 1, 1, 1], "VALID", Targmax=tf.int32)
    return _with_grads(tf, out, [x]) + [argmax, argmax.dtype, batch_argmax, argmax32, argmax32.dtype]


# --- embeddings ---------------------------------------------------------------------


@case
def embedding_lookup(tf, sess):
    table = _rand(7, 3)
    ids = tf.constant([[0, 6], [3, 3]])
    shards = [tf.constant(table[0:3]), tf.constant(table[3:5]), tf.constant(table[5:7])]
    mod_shards = [tf.constant(table[0::3]), tf.constant(table[1::3]), tf.constant(table[2::3])]
    single = tf.constant(table)
    y = tf.nn.embedding_lookup(single, ids)
    return [
        y,
        y.shape,
        tf.nn.embedding_lookup(shards, ids, partition_strategy="div"),
        tf.nn.embedding_lookup(mod_shards, ids),
        tf.nn.embedding_lookup(single, ids, max_norm=0.5),
    ]


# --- CTC (dense labels) ---------------------------------------------------------------


@case
def ctc_loss_v2_dense(tf, sess):
    logits = tf.constant(_rand(6, 3, 5, low=-2, high=2))
    labels = tf.constant([[1, 2, 2, 0], [3, 3, 1, 4], [4, 0, 0, 0]])
    loss = tf.nn.ctc_loss_v2(labels, logits, label_length=[3, 4, 1], logit_length=[6, 6, 4])
    return [loss, loss.shape, tf.gradients(tf.reduce_sum(loss), logits)]


@case
def ctc_loss_v2_batch_major_blank_last(tf, sess):
    logits = tf.constant(_rand(2, 5, 4, seed=3, low=-2, high=2))
    labels = tf.constant([[0, 1], [2, 2]])
    loss = tf.nn.ctc_loss_v2(
        labels, logits, label_length=[2, 2], logit_length=[5, 5], logits_time_major=False, blank_index=-1
    )
    return [loss, tf.gradients(tf.reduce_sum(loss), logits)]


@case
def collapse_repeated(tf, sess):
    labels, lengths = tf.nn.collapse_repeated(tf.constant([[1, 1, 2, 2, 3, 3], [4, 4, 4, 5, 0, 0]]), [5, 4])
    return [labels, lengths]


# --- morphology ---------------------------------------------------------------------


@case
def dilation2d(tf, sess):
    x = tf.constant(_distinct(2, 6, 5, 2))
    f = tf.constant(_rand(2, 3, 2, seed=4))
    same = tf.nn.dilation2d(x, f, [1, 2, 1, 1], [1, 1, 2, 1], "SAME")
    valid = tf.nn.dilation2d(x, f, [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
    return _with_grads(tf, same, [x, f]) + _with_grads(tf, valid, [x, f])


@case
def erosion2d(tf, sess):
    x = tf.constant(_distinct(1, 5, 6, 3))
    k = tf.constant(_rand(3, 2, 3, seed=5))
    y = tf.nn.erosion2d(x, k, [1, 1, 2, 1], [1, 2, 1, 1], "SAME")
    return _with_grads(tf, y, [x, k]) + [y.op.name]


@case
def dilation2d_depth_mismatch(tf, sess):
    return tf.nn.dilation2d(tf.ones([1, 3, 3, 2]), tf.ones([2, 2, 3]), [1, 1, 1, 1], [1, 1, 1, 1], "SAME")


@case
def with_space_to_batch(tf, sess):
    x = tf.constant(_rand(2, 7, 9, 2))
    f = tf.constant(_rand(3, 2, 2, 3, seed=1))

    def conv(t, num_spatial_dims, padding):
        return tf.nn.conv2d(t, f, [1, 1, 1, 1], padding)

    def pool(t, num_spatial_dims, padding):
        return tf.nn.max_pool(t, [1, 2, 2, 1], [1, 1, 1, 1], padding)

    same = tf.nn.with_space_to_batch(x, [2, 3], "SAME", conv, filter_shape=[3, 2])
    valid = tf.nn.with_space_to_batch(x, [2, 2], "VALID", pool)
    plain = tf.nn.with_space_to_batch(x, [1, 1], "SAME", conv)
    return _with_grads(tf, same, [x, f]) + [valid, valid.shape, plain]


# --- candidate sampling and sampled losses ----------------------------------------------


def _sampled_values(tf):
    sampled = tf.constant([3, 0, 7, 5], tf.int64)
    true_expected = tf.constant([[0.5, 0.25], [0.75, 0.1], [0.3, 0.6]])
    sampled_expected = tf.constant([0.2, 0.9, 0.4, 0.05])
    return sampled, true_expected, sampled_expected


@case
def nce_loss_with_sampled_values(tf, sess):
    weights = tf.constant(_rand(10, 4))
    biases = tf.constant(_rand(10, seed=1))
    inputs = tf.constant(_rand(3, 4, seed=2))
    labels = tf.constant([[1, 3], [0, 9], [5, 2]], tf.int64)
    loss = tf.nn.nce_loss(weights, biases, labels, inputs, 4, 10, num_true=2, sampled_values=_sampled_values(tf))
    hits = tf.nn.nce_loss(
        weights, biases, labels, inputs, 4, 10, num_true=2, sampled_values=_sampled_values(tf),
        remove_accidental_hits=True,
    )  # fmt: skip
    return [loss, loss.shape, hits, tf.gradients(tf.reduce_sum(loss), [weights, biases, inputs])[2]]


@case
def sampled_softmax_loss_with_sampled_values(tf, sess):
    weights = [tf.constant(_rand(5, 4)), tf.constant(_rand(5, 4, seed=3))]
    biases = tf.constant(_rand(10, seed=1))
    inputs = tf.constant(_rand(3, 4, seed=2))
    labels = tf.constant([[1, 3], [0, 9], [5, 2]], tf.int64)
    loss = tf.nn.sampled_softmax_loss(
        weights, biases, labels, inputs, 4, 10, num_true=2, sampled_values=_sampled_values(tf)
    )
    div = tf.nn.sampled_softmax_loss(
        weights, biases, labels, inputs, 4, 10, num_true=2, sampled_values=_sampled_values(tf),
        remove_accidental_hits=False, partition_strategy="div",
    )  # fmt: skip
    return [loss, div, tf.gradients(tf.reduce_sum(loss), inputs)]


@case
def all_candidate_sampler_and_accidental_hits(tf, sess):
    true_classes = tf.constant([[1, 4], [2, 0]], tf.int64)
    sampled, true_expected, sampled_expected = tf.nn.all_candidate_sampler(true_classes, 2, 5, True)
    indices, ids, weights = tf.nn.compute_accidental_hits(true_classes, tf.constant([4, 2, 6], tf.int64), 2)
    return [sampled, true_expected, sampled_expected, sampled.shape, true_expected.shape, indices, ids, weights]


@case
def candidate_samplers_draw_in_range(tf, sess):
    true_classes = tf.constant([[1], [3]], tf.int64)
    uniform = tf.nn.uniform_candidate_sampler(true_classes, 1, 6, True, 6, seed=3)
    log_uniform = tf.nn.log_uniform_candidate_sampler(true_classes, 1, 20, False, 50, seed=4)
    u, lu = sess.run([uniform, log_uniform])
    return [
        sorted(u[0].tolist()),
        [s.shape for s in uniform],
        [s.dtype for s in log_uniform],
        bool((lu[0] >= 0).all() and (lu[0] < 50).all()),
        # Without repeats the expected count is p * num_sampled: 20 * log((k + 2) / (k + 1)) / log(51).
        np.allclose(lu[2], 20 * np.log((lu[0] + 2.0) / (lu[0] + 1.0)) / np.log(51.0), rtol=1e-5),
    ]


@case
def uniform_candidate_sampler_range_too_small(tf, sess):
    return tf.nn.uniform_candidate_sampler(tf.constant([[1]], tf.int64), 1, 5, True, 3)[0]


@case
def fixed_unigram_candidate_sampler(tf, sess):
    true_classes = tf.constant([[2, 5], [0, 4]], tf.int64)
    unigrams = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0]
    # With repeats the expected counts are p * num_sampled, p from unigrams ** distortion: no randomness.
    _, true_expected, _ = tf.nn.fixed_unigram_candidate_sampler(
        true_classes, 2, 7, False, 8, distortion=0.75, num_reserved_ids=2, unigrams=unigrams, seed=1
    )
    sampled, _, sampled_expected = tf.nn.fixed_unigram_candidate_sampler(
        true_classes, 2, 3, True, 6, unigrams=[0.0, 2.0, 0.0, 1.0, 0.0, 5.0], seed=2
    )
    s, e = sess.run([sampled, sampled_expected])
    return [true_expected, sorted(s.tolist()), e.shape, true_expected.shape]


@case
def fixed_unigram_candidate_sampler_needs_weights(tf, sess):
    return tf.nn.fixed_unigram_candidate_sampler(tf.constant([[1]], tf.int64), 1, 1, True, 3)[0]

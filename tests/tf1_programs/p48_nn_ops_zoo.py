"""tf.nn and tf.losses ops beyond the basics, as TF1 models used them, with their gradients: conv2d_transpose,
atrous_conv2d, depthwise/separable conv, conv3d and pool3d, max_pool_with_argmax, local_response_normalization,
fused_batch_norm (training and inference), moments/weighted_moments/sufficient_statistics, ctc_loss,
log_poisson_loss, weighted_cross_entropy_with_logits, softmax_cross_entropy_with_logits_v2, in_top_k, crelu,
tf.nn.pool with dilation, and tf.losses reductions with weights and label smoothing."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(48)
    x = tf.constant(rng.randn(2, 6, 6, 3).astype(np.float32))
    k = tf.constant(rng.randn(3, 3, 3, 4).astype(np.float32) * 0.3)
    out = {}
    out["conv_t"] = tf.nn.conv2d_transpose(
        x, tf.constant(rng.randn(3, 3, 5, 3).astype(np.float32)), [2, 12, 12, 5], [1, 2, 2, 1]
    )
    out["atrous"] = tf.nn.atrous_conv2d(x, k, rate=2, padding="SAME")
    dk = tf.constant(rng.randn(3, 3, 3, 2).astype(np.float32))
    out["depthwise"] = tf.nn.depthwise_conv2d(x, dk, [1, 1, 1, 1], "VALID")
    out["separable"] = tf.nn.separable_conv2d(
        x, dk, tf.constant(rng.randn(1, 1, 6, 4).astype(np.float32)), [1, 2, 2, 1], "SAME"
    )
    v = tf.constant(rng.randn(1, 4, 4, 4, 2).astype(np.float32))
    out["conv3d"] = tf.nn.conv3d(v, tf.constant(rng.randn(2, 2, 2, 2, 3).astype(np.float32)), [1, 1, 1, 1, 1], "SAME")
    out["pool3d"] = [
        tf.nn.max_pool3d(v, [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "VALID"),
        tf.nn.avg_pool3d(v, [1, 2, 2, 2, 1], [1, 1, 1, 1, 1], "SAME"),
    ]
    pooled, argmax = tf.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    out["argmax"] = [pooled, argmax]
    out["lrn"] = tf.nn.local_response_normalization(x, depth_radius=1, bias=1.0, alpha=0.5, beta=0.75)
    scale, offset = tf.constant([1.0, 2.0, 0.5]), tf.constant([0.0, 0.1, -0.1])
    y_train, mean, var = tf.nn.fused_batch_norm(x, scale, offset, epsilon=1e-3)
    y_inf, _, _ = tf.nn.fused_batch_norm(
        x, scale, offset, mean=tf.constant([0.1, 0.0, -0.1]), variance=tf.constant([1.0, 2.0, 0.5]), is_training=False
    )
    out["fused_bn"] = [y_train, mean, var, y_inf]
    out["moments"] = tf.nn.moments(x, [0, 1, 2])
    out["weighted_moments"] = tf.nn.weighted_moments(x, [1, 2], tf.constant(rng.rand(2, 6, 6, 1).astype(np.float32)))
    out["sufficient"] = tf.nn.sufficient_statistics(x, [0, 1], shift=tf.constant(0.5))[1:3]
    logits = tf.constant(rng.randn(5, 2, 4).astype(np.float32))  # time-major [T, B, classes]
    labels = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([1, 2, 1], tf.int32), [2, 2])
    ctc = tf.nn.ctc_loss(labels, logits, [5, 4])
    out["ctc"] = [ctc, tf.gradients(tf.reduce_sum(ctc), logits)[0]]
    t = tf.constant(rng.rand(4, 3).astype(np.float32))
    lg = tf.constant(rng.randn(4, 3).astype(np.float32))
    out["log_poisson"] = tf.nn.log_poisson_loss(t * 3.0, lg, compute_full_loss=True)
    out["weighted_xent"] = tf.nn.weighted_cross_entropy_with_logits(labels=t, logits=lg, pos_weight=2.5)
    out["xent_v2"] = tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=t / tf.reduce_sum(t, 1, keepdims=True), logits=lg
    )
    out["in_top_k"] = tf.nn.in_top_k(lg, [0, 1, 2, 0], 2)
    out["crelu"] = tf.nn.crelu(lg)
    out["pool_dilated"] = [
        tf.nn.pool(x, [2, 2], "MAX", "VALID", dilation_rate=[2, 2]),
        tf.nn.pool(x, [3, 2], "AVG", "VALID", dilation_rate=[2, 3]),
    ]
    onehot = tf.one_hot([0, 2, 1, 1], 3)
    w = tf.constant([1.0, 0.5, 2.0, 0.0])
    out["losses"] = [
        tf.losses.softmax_cross_entropy(onehot, lg, weights=w, label_smoothing=0.1),
        tf.losses.sigmoid_cross_entropy(onehot, lg, weights=2.0, label_smoothing=0.2),
        tf.losses.mean_squared_error(t, lg, weights=[[1.0], [0.0], [2.0], [1.0]], reduction=tf.losses.Reduction.SUM),
        tf.losses.huber_loss(t, lg, delta=0.5, reduction=tf.losses.Reduction.MEAN),
        tf.losses.absolute_difference(t, lg, reduction=tf.losses.Reduction.NONE, loss_collection=None),
        tf.losses.hinge_loss(onehot, lg),
        tf.losses.cosine_distance(tf.nn.l2_normalize(t, 1), tf.nn.l2_normalize(lg, 1), axis=1),
        tf.losses.log_loss(onehot, tf.sigmoid(lg)),
        tf.losses.get_total_loss(add_regularization_losses=False),
    ]
    grads = tf.gradients(
        tf.reduce_sum(out["conv_t"])
        + tf.reduce_sum(out["separable"] ** 2)
        + tf.reduce_sum(out["lrn"])
        + tf.reduce_sum(y_train * x)
        + tf.reduce_sum(out["pool_dilated"][0]),
        [x, k, dk],
    )
    out["grads"] = [g for g in grads if g is not None]
    with tf.Session() as sess:
        got = sess.run(out)
    got["shapes"] = {k_: v_.shape.as_list() for k_, v_ in out.items() if hasattr(v_, "shape")}
    return got

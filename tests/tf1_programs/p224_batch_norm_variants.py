"""Batch-normalization variants of TF1 model code: tf.nn.batch_norm_with_global_normalization, fused_batch_norm in
training (batch statistics, the variance it returns) and inference (given mean/variance) modes, weighted_moments
with frequency weights, sufficient_statistics + normalize_moments with a shift, tf.layers.batch_normalization with
renorm (renorm_clipping, renorm_momentum) under a training tensor and a Python bool, with momentum/center=False and
unfused over axis 1 with scale=False, their UPDATE_OPS and moving statistics over
a few training steps, and the error of fused_batch_norm on a rank-2 input."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(224)
    x_np = rng.randn(4, 3, 3, 2).astype(np.float32) * 2.0 + 1.0
    x = tf.constant(x_np)
    mean, var = tf.constant([0.5, -0.5]), tf.constant([2.0, 0.5])
    beta, gamma = tf.constant([0.1, 0.2]), tf.constant([1.5, 0.5])
    fetch = {
        "global_norm": tf.nn.batch_norm_with_global_normalization(x, mean, var, beta, gamma, 1e-3, True),
        "fused_train": list(tf.nn.fused_batch_norm(x, gamma, beta, epsilon=1e-3)),
        "fused_infer": tf.nn.fused_batch_norm(x, gamma, beta, mean=mean, variance=var, is_training=False)[0],
        "weighted": list(tf.nn.weighted_moments(x, [0, 1, 2], tf.constant([1.0, 2.0, 0.0, 1.0])[:, None, None, None])),
    }
    counts, m_ss, v_ss, shift = tf.nn.sufficient_statistics(x, [0, 1, 2], shift=tf.constant([1.0, 1.0]))
    fetch["normalized_moments"] = list(tf.nn.normalize_moments(counts, m_ss, v_ss, shift))
    training = tf.placeholder_with_default(True, [])
    renorm = tf.layers.batch_normalization(
        x, training=training, renorm=True, renorm_momentum=0.9, momentum=0.8, name="renorm",
        renorm_clipping={"rmax": 1.5, "rmin": 0.5, "dmax": 0.5},
    )  # fmt: skip
    plain = tf.layers.batch_normalization(x, training=training, momentum=0.5, center=False, name="plain")
    renorm_2d = tf.layers.batch_normalization(tf.reshape(x, [-1, 2]), training=True, renorm=True, center=False,
                                              name="renorm_2d")  # fmt: skip
    virtual = tf.layers.batch_normalization(x, training=training, fused=False, scale=False, axis=1, name="axis1")
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    out = {
        "update_ops": len(updates),
        "vars": sorted((v.op.name, v.shape.as_list()) for v in tf.global_variables()),
        "shapes": [renorm.shape.as_list(), virtual.shape.as_list(), renorm_2d.shape.as_list()],
    }
    try:
        tf.nn.fused_batch_norm(tf.ones([3, 2]), gamma, beta)
        out["rank2"] = None
    except ValueError as e:
        out["rank2"] = type(e).__name__
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["values"] = sess.run(fetch)
        trace = []
        for _ in range(3):
            trace.append(sess.run([renorm, plain, virtual, renorm_2d] + updates)[:4])
        out["trace"] = trace
        out["moving"] = sess.run([v for v in tf.global_variables() if "moving" in v.op.name])
        out["inference"] = sess.run([renorm, plain, virtual], {training: False})
        out["after_inference"] = sess.run([v for v in tf.global_variables() if "renorm" in v.op.name])
    return out

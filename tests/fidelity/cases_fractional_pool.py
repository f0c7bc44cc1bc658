"""tf.nn.fractional_max_pool / fractional_avg_pool where the pooling sequences are fixed (each length divisible by
its output length: every draw gives the same steps), their gradients, static shapes, names and errors, and what
tf.image.generate_bounding_box_proposals builds (TensorFlow has no CPU kernel for it, so its values are compared
with a numpy oracle in tests/test_bbox_proposals.py instead)."""

import numpy as np

from tests.fidelity.harness import case


def _distinct(*shape, seed=0):
    n = int(np.prod(shape))
    return (np.random.default_rng(seed).permutation(n).astype(np.float32) / n - 0.5).reshape(shape)


def _pool_with_grads(tf, pool, x, ratio, **kw):
    out, rows, cols = pool(x, ratio, **kw)
    w = tf.constant(np.random.default_rng(99).uniform(-1, 1, out.shape.as_list()).astype(np.float32))
    return [out, rows, cols, out.shape, out.op.name, tf.gradients(tf.reduce_sum(out * w), x)]


@case
def fractional_max_pool_divisible(tf, sess):
    x = tf.constant(_distinct(2, 12, 10, 3))
    return _pool_with_grads(tf, tf.nn.fractional_max_pool, x, [1.0, 3.0, 2.0, 1.0]) + _pool_with_grads(
        tf, tf.nn.fractional_max_pool, x, [1.0, 4.0, 5.0, 1.0], pseudo_random=True, overlapping=True
    )


@case
def fractional_avg_pool_divisible(tf, sess):
    x = tf.constant(_distinct(1, 8, 9, 2, seed=1))
    return _pool_with_grads(tf, tf.nn.fractional_avg_pool, x, [1.0, 2.0, 3.0, 1.0], overlapping=True) + (
        _pool_with_grads(tf, tf.nn.fractional_avg_pool, x, [1.0, 4.0, 1.0, 1.0], pseudo_random=True, name="avg")
    )


@case
def fractional_avg_pool_int32(tf, sess):
    x = tf.constant(np.arange(-30, 42, dtype=np.int32).reshape(1, 6, 4, 3))
    out, rows, cols = tf.nn.fractional_avg_pool(x, [1.0, 3.0, 2.0, 1.0])
    return [out, rows, cols]


@case
def fractional_max_pool_static_shape(tf, sess):
    x = tf.placeholder(tf.float32, [None, 17, None, 3])
    return tf.nn.fractional_max_pool(x, [1.0, 1.5, 1.44, 1.0])[0].shape


@case
def fractional_max_pool_ratio_on_batch(tf, sess):
    return tf.nn.fractional_max_pool(tf.ones([2, 4, 4, 1]), [2.0, 1.5, 1.5, 1.0])[0]


@case
def fractional_avg_pool_ratio_below_one(tf, sess):
    return tf.nn.fractional_avg_pool(tf.ones([1, 4, 4, 1]), [1.0, 0.5, 1.5, 1.0])[0]


@case
def fractional_max_pool_rank_3(tf, sess):
    return tf.nn.fractional_max_pool(tf.ones([4, 4, 1]), [1.0, 1.5, 1.5, 1.0])[0]


@case
def fractional_max_pool_ratio_above_size(tf, sess):
    return tf.nn.fractional_max_pool(tf.ones([1, 3, 4, 1]), [1.0, 4.0, 1.5, 1.0])[0]


@case
def fractional_avg_pool_seed_without_deterministic(tf, sess):
    return tf.nn.fractional_avg_pool(tf.ones([1, 4, 4, 1]), [1.0, 1.5, 1.5, 1.0], seed=3)[0]


@case
def generate_bounding_box_proposals_builds(tf, sess):
    rois, probs = tf.image.generate_bounding_box_proposals(
        tf.placeholder(tf.float32, [None, 3, 4, 2]),
        np.zeros([2, 3, 4, 8], np.float32),
        np.zeros([2, 5], np.float32),
        np.zeros([3, 4, 8], np.float32),
        post_nms_topn=7,
    )
    return [rois.shape, probs.shape, rois.op.name, rois.dtype, probs.dtype]


@case
def generate_bounding_box_proposals_anchors_rank_2(tf, sess):
    return tf.image.generate_bounding_box_proposals(
        np.zeros([1, 1, 1, 2], np.float32),
        np.zeros([1, 1, 1, 8], np.float32),
        np.zeros([1, 5], np.float32),
        np.zeros([2, 4], np.float32),
    )[0]

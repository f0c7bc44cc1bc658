"""tf.losses (issue 16): every loss against TensorFlow 1 — values under each reduction and weights, names of the
final ops, the LOSSES collection, gradients, label smoothing and argument errors."""

import numpy as np

from tests.fidelity.harness import case


def _rand(*shape, seed=0, low=-1.0, high=1.0):
    return np.random.default_rng(seed).uniform(low, high, size=shape).astype(np.float32)


_REDUCTIONS = (
    "none",
    "weighted_sum",
    "weighted_mean",
    "weighted_sum_over_batch_size",
    "weighted_sum_by_nonzero_weights",
)


def _all_reductions(tf, fn, labels, predictions, **kwargs):
    """fn under each reduction, with scalar and per-element weights (one of them 0)."""
    weights = np.ones(predictions.shape, np.float32)
    weights[0, 0] = 0.0
    weights[-1, -1] = 2.5
    outs = []
    for reduction in _REDUCTIONS:
        for w in (1.0, tf.constant(weights)):
            outs.append(fn(labels, predictions, weights=w, reduction=reduction, **kwargs))
    return outs


@case
def absolute_difference(tf, sess):
    labels, predictions = tf.constant(_rand(3, 4)), tf.constant(_rand(3, 4, seed=1))
    outs = _all_reductions(tf, tf.losses.absolute_difference, labels, predictions)
    grad = tf.gradients(outs[-1], predictions)
    return [outs, grad, outs[-1].op.name, len(tf.get_collection(tf.GraphKeys.LOSSES))]


@case
def cosine_distance(tf, sess):
    labels = tf.nn.l2_normalize(tf.constant(_rand(3, 4)), axis=1)
    predictions = tf.nn.l2_normalize(tf.constant(_rand(3, 4, seed=1)), axis=1)
    outs = [
        tf.losses.cosine_distance(labels, predictions, axis=1),
        tf.losses.cosine_distance(labels, predictions, axis=1, reduction="none"),
        tf.losses.cosine_distance(labels, predictions, dim=0, weights=tf.constant([[1.0, 0.0, 2.0, 1.0]])),
    ]
    return [outs, [o.shape for o in outs]]


@case
def cosine_distance_needs_axis(tf, sess):
    return tf.losses.cosine_distance(tf.ones([2, 2]), tf.ones([2, 2]))


@case
def hinge_loss(tf, sess):
    labels = tf.constant((_rand(3, 4, seed=2) > 0).astype(np.float32))
    logits = tf.constant(_rand(3, 4, low=-2, high=2))
    outs = _all_reductions(tf, tf.losses.hinge_loss, labels, logits)
    return [outs, tf.gradients(outs[-1], logits), outs[-1].op.name]


@case
def huber_loss(tf, sess):
    labels, predictions = tf.constant(_rand(3, 4)), tf.constant(_rand(3, 4, seed=1, low=-3, high=3))
    outs = _all_reductions(tf, tf.losses.huber_loss, labels, predictions, delta=0.7)
    return [outs, tf.gradients(outs[-1], predictions), tf.losses.huber_loss(labels, predictions)]


@case
def log_loss(tf, sess):
    labels = tf.constant(_rand(3, 4, low=0, high=1))
    predictions = tf.constant(_rand(3, 4, seed=1, low=0.05, high=0.95))
    outs = _all_reductions(tf, tf.losses.log_loss, labels, predictions)
    return [outs, tf.gradients(outs[-1], predictions), tf.losses.log_loss(labels, predictions, epsilon=0.1)]


@case
def mean_pairwise_squared_error(tf, sess):
    labels, predictions = tf.constant(_rand(3, 4)), tf.constant(_rand(3, 4, seed=1))
    labels3, predictions3 = tf.constant(_rand(2, 3, 2, seed=2)), tf.constant(_rand(2, 3, 2, seed=3))
    outs = [
        tf.losses.mean_pairwise_squared_error(labels, predictions),
        tf.losses.mean_pairwise_squared_error(labels, predictions, weights=tf.constant([1.0, 0.0, 2.0])[:, None]),
        tf.losses.mean_pairwise_squared_error(labels3, predictions3, weights=2.0),
        tf.losses.mean_pairwise_squared_error(labels, predictions, weights=tf.zeros([3, 1])),
    ]
    return [outs, tf.gradients(outs[1], predictions), outs[0].op.name]


@case
def sigmoid_cross_entropy(tf, sess):
    labels = tf.constant((_rand(3, 4, seed=2) > 0).astype(np.float32))
    logits = tf.constant(_rand(3, 4, low=-3, high=3))
    outs = [
        tf.losses.sigmoid_cross_entropy(labels, logits),
        tf.losses.sigmoid_cross_entropy(labels, logits, label_smoothing=0.2),
        tf.losses.sigmoid_cross_entropy(labels, logits, weights=tf.constant([[1.0], [0.0], [3.0]])),
        tf.losses.sigmoid_cross_entropy(labels, logits, reduction=tf.losses.Reduction.NONE),
        tf.losses.sigmoid_cross_entropy(tf.constant([[1, 0, 1, 1]] * 3), logits),
    ]
    return [outs, tf.gradients(outs[1], logits), outs[0].op.name]


@case
def softmax_cross_entropy_label_smoothing(tf, sess):
    labels = tf.one_hot([0, 2, 1], 3)
    logits = tf.constant(_rand(3, 3, low=-2, high=2))
    outs = [
        tf.losses.softmax_cross_entropy(labels, logits, label_smoothing=0.1),
        tf.losses.softmax_cross_entropy(labels, logits, weights=tf.constant([1.0, 0.0, 2.0])),
        tf.losses.softmax_cross_entropy(labels, logits, reduction=tf.losses.Reduction.MEAN),
        tf.losses.sparse_softmax_cross_entropy([0, 2, 1], logits, reduction=tf.losses.Reduction.SUM),
    ]
    return [outs, tf.gradients(outs[0], logits)]


@case
def mean_squared_error_reductions(tf, sess):
    labels, predictions = tf.constant(_rand(3, 4)), tf.constant(_rand(3, 4, seed=1))
    return _all_reductions(tf, tf.losses.mean_squared_error, labels, predictions)


@case
def compute_weighted_loss_and_collections(tf, sess):
    losses = tf.constant(_rand(2, 3, low=0, high=2))
    a = tf.losses.compute_weighted_loss(losses, weights=tf.constant([[1.0], [0.0]]))
    b = tf.losses.compute_weighted_loss(losses, reduction=tf.losses.Reduction.SUM_OVER_BATCH_SIZE)
    c = tf.losses.compute_weighted_loss(losses, loss_collection=None)
    tf.losses.add_loss(tf.constant(5.0))
    total = tf.losses.get_total_loss()
    return [a, b, c, len(tf.losses.get_losses()), total, a.op.name, sorted(tf.losses.Reduction.all())]


@case
def loss_shape_mismatch(tf, sess):
    return tf.losses.absolute_difference(tf.ones([2, 3]), tf.ones([3, 2]))


@case
def loss_bad_reduction(tf, sess):
    return tf.losses.compute_weighted_loss(tf.ones([2]), reduction="mean")


@case
def loss_none_labels(tf, sess):
    return tf.losses.huber_loss(None, tf.ones([2]))

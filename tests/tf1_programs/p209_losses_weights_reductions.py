"""tf.losses as model code weighted them: each loss (mean_squared_error, absolute_difference, huber_loss with
delta, log_loss with epsilon, hinge_loss, sigmoid_cross_entropy with label_smoothing, softmax_cross_entropy with
label_smoothing, sparse_softmax_cross_entropy, cosine_distance with axis, mean_pairwise_squared_error) under every
Reduction (NONE, SUM, MEAN, SUM_OVER_BATCH_SIZE, SUM_BY_NONZERO_WEIGHTS) with scalar, per-example and broadcast
weights including zeros; compute_weighted_loss; the LOSSES collection and loss_collection=None; get_regularization_loss,
get_total_loss over a collection holding unreduced losses; and the error for weights of a non-broadcastable shape."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(209)
    labels = tf.constant(rng.rand(4, 3).astype(np.float32))
    preds = tf.constant(rng.rand(4, 3).astype(np.float32))
    binary = tf.constant((rng.rand(4, 3) > 0.5).astype(np.float32))
    logits = tf.constant(rng.randn(4, 3).astype(np.float32))
    onehot = tf.one_hot([0, 2, 1, 2], 3)
    sparse = tf.constant([0, 2, 1, 2])
    unit = tf.nn.l2_normalize(preds, 1)
    unit_labels = tf.nn.l2_normalize(labels, 1)
    R = tf.losses.Reduction
    weights = {"scalar": 2.0, "per_example": tf.constant([[1.0], [0.0], [2.0], [0.5]]),
               "full": tf.constant((rng.rand(4, 3) > 0.3).astype(np.float32))}  # fmt: skip
    losses = {
        "mse": lambda w, r: tf.losses.mean_squared_error(labels, preds, w, reduction=r),
        "abs": lambda w, r: tf.losses.absolute_difference(labels, preds, w, reduction=r),
        "huber": lambda w, r: tf.losses.huber_loss(labels, preds * 3.0, w, delta=0.5, reduction=r),
        "log": lambda w, r: tf.losses.log_loss(binary, preds, w, epsilon=1e-4, reduction=r),
        "hinge": lambda w, r: tf.losses.hinge_loss(binary, logits, w, reduction=r),
        "sigmoid": lambda w, r: tf.losses.sigmoid_cross_entropy(binary, logits, w, label_smoothing=0.1, reduction=r),
    }
    example_losses = {
        "softmax": lambda w, r: tf.losses.softmax_cross_entropy(onehot, logits, w, label_smoothing=0.2, reduction=r),
        "sparse": lambda w, r: tf.losses.sparse_softmax_cross_entropy(sparse, logits, w, reduction=r),
    }
    fetch = {}
    for name, fn in losses.items():
        for wname, w in weights.items():
            for r in (R.NONE, R.SUM, R.MEAN, R.SUM_OVER_BATCH_SIZE, R.SUM_BY_NONZERO_WEIGHTS):
                fetch[f"{name}/{wname}/{r}"] = fn(w, r)
    example_w = tf.constant([1.0, 0.0, 2.0, 0.5])
    for name, fn in example_losses.items():
        for wname, w in (("scalar", 2.0), ("per_example", example_w)):
            for r in (R.NONE, R.SUM, R.SUM_BY_NONZERO_WEIGHTS):
                fetch[f"{name}/{wname}/{r}"] = fn(w, r)
    fetch["cosine"] = tf.losses.cosine_distance(unit_labels, unit, axis=1, weights=weights["per_example"])
    fetch["cosine_none"] = tf.losses.cosine_distance(unit_labels, unit, axis=1, reduction=R.NONE)
    fetch["pairwise"] = tf.losses.mean_pairwise_squared_error(labels, preds, weights=[[1.0], [2.0], [0.0], [1.0]])
    fetch["weighted"] = tf.losses.compute_weighted_loss(tf.abs(labels - preds), weights["full"])
    fetch["weighted_sum"] = tf.losses.compute_weighted_loss(tf.abs(labels - preds), 0.5, reduction=R.SUM)
    n_collected = len(tf.get_collection(tf.GraphKeys.LOSSES))
    tf.losses.mean_squared_error(labels, preds, loss_collection=None)
    w = tf.get_variable("w", [3], initializer=tf.constant_initializer([1.0, -2.0, 0.5]),
                        regularizer=tf.contrib.layers.l2_regularizer(0.1) if hasattr(tf, "contrib")
                        else lambda v: 0.05 * tf.reduce_sum(tf.square(v)))  # fmt: skip
    tf.losses.add_loss(tf.reduce_sum(w))
    out = {
        "shapes": {k: v.shape.as_list() for k, v in fetch.items()},
        "collected": [n_collected, len(tf.get_collection(tf.GraphKeys.LOSSES))],
        "reg": len(tf.losses.get_regularization_losses()),
        "reductions": sorted(R.all()),
    }
    try:
        tf.losses.mean_squared_error(labels, preds, weights=tf.ones([3, 3]))
        out["bad_weights"] = None
    except ValueError as e:
        out["bad_weights"] = type(e).__name__
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["values"] = sess.run(fetch)
        out["regularization"] = sess.run(tf.losses.get_regularization_loss())
        try:  # the Reduction.NONE losses in the LOSSES collection are not scalars: AddN refuses them
            tf.losses.get_total_loss()
            out["total"] = None
        except ValueError as e:
            out["total"] = type(e).__name__
    return out

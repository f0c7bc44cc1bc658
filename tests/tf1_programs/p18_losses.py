"""tf.losses.* with weights and each Reduction, the LOSSES collection and get_total_loss with a regularizer,
tf.nn losses (sparse / dense softmax cross entropy, sigmoid, weighted, l2_loss)."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(18)
    logits_np = rng.randn(4, 5).astype(np.float32)
    labels_np = rng.randint(0, 5, 4)
    preds_np = rng.rand(4, 3).astype(np.float32)
    targ_np = rng.rand(4, 3).astype(np.float32)
    logits = tf.constant(logits_np)
    labels = tf.constant(labels_np)
    onehot = tf.one_hot(labels, 5)
    preds = tf.constant(preds_np)
    targ = tf.constant(targ_np)
    weights = tf.constant([[1.0], [0.0], [2.0], [0.5]])
    R = tf.losses.Reduction
    out = {}
    for red in ("NONE", "SUM", "MEAN", "SUM_OVER_BATCH_SIZE", "SUM_BY_NONZERO_WEIGHTS", "SUM_OVER_NONZERO_WEIGHTS"):
        if not hasattr(R, red):
            continue
        r = getattr(R, red)
        kw = dict(reduction=r, loss_collection=None)  # (unreduced losses cannot join the total loss)
        out[red] = [
            tf.losses.mean_squared_error(targ, preds, weights=weights, **kw),
            tf.losses.absolute_difference(targ, preds, weights=weights, **kw),
            tf.losses.huber_loss(targ, preds * 3.0, delta=0.5, **kw),
            tf.losses.log_loss(targ, preds, **kw),
            tf.losses.hinge_loss(tf.round(targ), preds, **kw),
            tf.losses.cosine_distance(tf.nn.l2_normalize(targ, 1), tf.nn.l2_normalize(preds, 1), axis=1, **kw),
        ]
    default = [
        tf.losses.softmax_cross_entropy(onehot, logits),
        tf.losses.softmax_cross_entropy(onehot, logits, label_smoothing=0.1),
        tf.losses.sparse_softmax_cross_entropy(labels, logits, weights=2.0),
        tf.losses.sigmoid_cross_entropy(tf.round(targ), preds, label_smoothing=0.2),
        tf.losses.mean_pairwise_squared_error(targ, preds),
    ]
    nn = [
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits),
        tf.nn.softmax_cross_entropy_with_logits(labels=onehot, logits=logits),
        tf.nn.sigmoid_cross_entropy_with_logits(labels=targ, logits=preds),
        tf.nn.weighted_cross_entropy_with_logits(targets=targ, logits=preds, pos_weight=2.0),
        tf.nn.l2_loss(preds),
        tf.nn.log_softmax(logits),
        tf.reduce_logsumexp(logits, axis=1),
    ]
    v = tf.get_variable("v", initializer=tf.constant([1.0, -2.0]), regularizer=lambda t: tf.reduce_sum(tf.abs(t)) * 0.1)
    tf.losses.add_loss(tf.reduce_sum(v))
    with tf.variable_scope("reg", regularizer=lambda t: 0.5 * tf.reduce_sum(tf.square(t))):
        rv = tf.get_variable("rv", initializer=tf.constant([3.0]))
    reg = tf.losses.get_regularization_loss()
    total = tf.losses.get_total_loss()
    n_losses = len(tf.losses.get_losses())
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        vals = sess.run({"out": out, "default": default, "nn": nn, "reg": reg, "total": total})
    vals["n_losses"] = n_losses
    vals["n_reg"] = len(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES))
    vals["shapes"] = {k: [t.shape.as_list() for t in ts] for k, ts in out.items()}
    vals["names"] = [default[0].op.name, nn[0].op.type]
    return vals

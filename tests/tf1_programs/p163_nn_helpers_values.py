"""tf.nn helpers with their less common arguments, values and gradients compared: softmax / log_softmax over
axis 0, moments with keep_dims and over several axes, weighted_moments, sufficient_statistics +
normalize_moments, l2_normalize over an axis list, zero_fraction, weighted_cross_entropy_with_logits(pos_weight),
softmax_cross_entropy_with_logits (v1: no gradient to the labels) against _v2 (gradient to both),
log_poisson_loss(compute_full_loss=True), relu_layer / xw_plus_b, embedding_lookup with max_norm,
safe_embedding_lookup_sparse with a default id and pruned negative ids, and tf.nn.top_k ties (the lower index
first)."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(163)
    logits = tf.constant(rng.randn(3, 4).astype(np.float32))
    labels = tf.constant(np.eye(4, dtype=np.float32)[[0, 2, 3]] * 0.8 + 0.05)
    x = tf.constant(rng.randn(4, 3, 2).astype(np.float32))
    w = tf.constant(rng.rand(4, 3, 2).astype(np.float32))
    counts, mean_ss, var_ss, shift = tf.nn.sufficient_statistics(x, [0, 1], shift=0.5)
    emb = tf.constant(rng.randn(6, 3).astype(np.float32) * 2.0)
    sp_ids = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [3, 0]], tf.constant([1, -1, 4, 2], tf.int64), [4, 2])
    sp_w = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [3, 0]], [1.0, 2.0, 0.5, 1.5], [4, 2])
    ops = {
        "softmax_axis0": tf.nn.softmax(logits, axis=0),
        "log_softmax_axis0": tf.nn.log_softmax(logits, axis=0),
        "moments_keep": tf.nn.moments(x, axes=[0, 2], keep_dims=True),
        "weighted_moments": tf.nn.weighted_moments(x, [0, 1], w),
        "normalized": tf.nn.normalize_moments(counts, mean_ss, var_ss, shift),
        "l2_axes": tf.nn.l2_normalize(x, axis=[1, 2]),
        "zero_fraction": tf.nn.zero_fraction(tf.nn.relu(x)),
        "weighted_xent": tf.nn.weighted_cross_entropy_with_logits(targets=tf.ones([3, 4]) * 0.5, logits=logits, pos_weight=3.0),
        "xent_v1": tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits),
        "poisson_full": tf.nn.log_poisson_loss(tf.constant([0.0, 1.0, 3.0, 5.0]), tf.constant([0.1, 0.2, 1.0, 1.5]), compute_full_loss=True),
        "relu_layer": tf.nn.relu_layer(logits, tf.ones([4, 2]) * 0.3, [0.1, -5.0]),
        "xw_plus_b": tf.nn.xw_plus_b(logits, tf.ones([4, 2]) * 0.3, [0.1, -5.0]),
        "max_norm": tf.nn.embedding_lookup(emb, [0, 2, 5], max_norm=1.5),
        "safe_sparse": tf.nn.safe_embedding_lookup_sparse(emb, sp_ids, sp_w, combiner="mean", default_id=5),
        "safe_sparse_sqrtn": tf.nn.safe_embedding_lookup_sparse(emb, sp_ids, None, combiner="sqrtn"),
        "top_k_ties": tf.nn.top_k(tf.constant([1.0, 3.0, 3.0, 2.0, 3.0]), k=3),
    }
    loss_v1 = tf.reduce_sum(tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    loss_v2 = tf.reduce_sum(tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits))
    grads = {
        "v1_labels_none": tf.gradients(loss_v1, labels)[0] is None,
        "v2_labels": tf.gradients(loss_v2, labels)[0],
        "v1_logits": tf.gradients(loss_v1, logits)[0],
        "weighted_moments_w": tf.gradients(tf.reduce_sum(tf.nn.weighted_moments(x, [0], w)[1]), w)[0],
        "l2_axes": tf.gradients(tf.reduce_sum(tf.nn.l2_normalize(x, axis=[1, 2]) * w), x)[0],
    }
    out = {"shapes": {k: tf.nest.map_structure(lambda t: t.shape.as_list(), v) for k, v in ops.items()}}
    out["v1_labels_none"] = grads.pop("v1_labels_none")
    with tf.Session() as sess:
        out["values"] = sess.run(ops)
        out["grads"] = sess.run(grads)
    out["values"]["top_k_ties"] = list(out["values"]["top_k_ties"])
    out["shapes"]["top_k_ties"] = list(out["shapes"]["top_k_ties"])
    return out

"""Retrieval-style evaluation with streaming top-k metrics: precision_at_k / recall_at_k over logits (with
class_id and weights, dense and multi-label labels), precision_at_top_k / recall_at_top_k over tf.nn.top_k ids,
plus mean_per_class_accuracy and auc, accumulated over batches."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(36)
    logits = tf.placeholder(tf.float32, [None, 5])
    labels = tf.placeholder(tf.int64, [None])
    multi = tf.placeholder(tf.int64, [None, 2])
    w = tf.placeholder(tf.float32, [None])
    metrics = {
        "p_at_2": tf.metrics.precision_at_k(labels, logits, k=2),
        "r_at_2": tf.metrics.recall_at_k(labels, logits, k=2),
        "p_at_1_c3": tf.metrics.precision_at_k(labels, logits, k=1, class_id=3),
        "r_at_3_c1": tf.metrics.recall_at_k(labels, logits, 3, class_id=1),
        "p_multi": tf.metrics.precision_at_k(multi, logits, k=3),
        "r_multi_w": tf.metrics.recall_at_k(multi, logits, k=2, weights=w),
        "p_top": tf.metrics.precision_at_top_k(labels, tf.nn.top_k(logits, 2).indices),
        "r_top": tf.metrics.recall_at_top_k(labels, tf.nn.top_k(logits, 4)[1], k=4),
        "per_class": tf.metrics.mean_per_class_accuracy(labels, tf.argmax(logits, 1), num_classes=5),
        "auc": tf.metrics.auc(tf.equal(labels, 0), tf.nn.softmax(logits)[:, 0]),
    }
    updates = {k: v[1] for k, v in metrics.items()}
    values = {k: v[0] for k, v in metrics.items()}
    history = []
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        for _ in range(3):
            feed = {
                logits: rng.randn(6, 5).astype(np.float32),
                labels: rng.randint(0, 5, 6),
                multi: rng.randint(0, 5, (6, 2)),
                w: rng.rand(6).astype(np.float32),
            }
            history.append(sess.run(updates, feed))
        final = sess.run(values)
    return {
        "history": history,
        "final": final,
        "names": sorted(v[0].op.name for v in metrics.values() if "at" in v[0].op.name),
        "dtypes": {k: v[0].dtype.name for k, v in metrics.items()},
        "local": sorted(v.op.name for v in tf.local_variables() if "_at_" in v.op.name),
    }

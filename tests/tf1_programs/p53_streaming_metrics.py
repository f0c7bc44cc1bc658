"""Evaluation loops with tf.metrics as TF1 scripts ran them: precision, recall, auc (ROC and PR, with
num_thresholds), mean_iou over a segmentation map, root_mean_squared_error, mean_absolute_error,
false_negatives/true_positives, mean_cosine_distance and percentage_below, with weights; the update ops run
batch by batch after tf.local_variables_initializer, the metric variables' names and collections, and a reset
by re-running the local variables' initializer."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(53)
    labels = tf.placeholder(tf.int64, [None])
    scores = tf.placeholder(tf.float32, [None])
    weights = tf.placeholder(tf.float32, [None])
    preds = tf.cast(scores > 0.5, tf.int64)
    seg_true = tf.placeholder(tf.int32, [None, 4, 4])
    seg_pred = tf.placeholder(tf.int32, [None, 4, 4])
    reg_true = tf.placeholder(tf.float32, [None, 3])
    reg_pred = tf.placeholder(tf.float32, [None, 3])
    metrics = {
        "precision": tf.metrics.precision(labels, preds, weights=weights),
        "recall": tf.metrics.recall(labels, preds),
        "auc": tf.metrics.auc(labels, scores, num_thresholds=50),
        "auc_pr": tf.metrics.auc(
            labels, scores, curve="PR", num_thresholds=50, summation_method="careful_interpolation"
        ),
        "tp": tf.metrics.true_positives(labels, preds),
        "fn": tf.metrics.false_negatives(labels, preds, weights=weights),
        "miou": tf.metrics.mean_iou(seg_true, seg_pred, num_classes=3),
        "rmse": tf.metrics.root_mean_squared_error(reg_true, reg_pred),
        "mae": tf.metrics.mean_absolute_error(reg_true, reg_pred, weights=tf.ones_like(reg_true) * 0.5),
        "cos": tf.metrics.mean_cosine_distance(tf.nn.l2_normalize(reg_true, 1), tf.nn.l2_normalize(reg_pred, 1), dim=1),
        "below": tf.metrics.percentage_below(reg_pred, 0.0),
    }
    updates = {k: v[1] for k, v in metrics.items()}
    values = {k: v[0] for k, v in metrics.items()}
    out = {
        "local_vars": sorted(v.op.name for v in tf.local_variables()),
        "metric_vars": len(tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)),
        "global_vars": len(tf.global_variables()),
        "value_names": sorted(v.op.name for v in values.values()),
    }
    batches = []
    for _ in range(3):
        n = 8
        batches.append(
            {
                labels: rng.randint(0, 2, n),
                scores: rng.rand(n).astype(np.float32),
                weights: rng.choice([0.0, 1.0, 2.0], n).astype(np.float32),
                seg_true: rng.randint(0, 3, (2, 4, 4)),
                seg_pred: rng.randint(0, 3, (2, 4, 4)),
                reg_true: rng.randn(n, 3).astype(np.float32),
                reg_pred: rng.randn(n, 3).astype(np.float32),
            }
        )
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        steps = []
        for feed in batches:
            steps.append(sess.run(updates, feed))
        out["steps"] = steps
        out["final"] = sess.run(values)
        sess.run(tf.local_variables_initializer())
        out["after_reset"] = sess.run(values["rmse"])
        sess.run(updates, batches[0])
        out["one_batch"] = sess.run(values)
    return out

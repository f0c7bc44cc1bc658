"""tf.metrics that evaluation scripts used beyond accuracy/auc, streamed over three batches with their local
variables: mean_relative_error (normalizer), mean_tensor (an element-wise running mean; a ValueError for a partly known shape), recall_at_thresholds /
false_negatives_at_thresholds / false_positives_at_thresholds with a threshold list, average_precision_at_k
(ranking evaluation) with dense labels, mean_per_class_accuracy with weights, the metric variables' names in the
LOCAL_VARIABLES and METRIC_VARIABLES collections, metrics_collections / updates_collections arguments, and
re-initializing the local variables to start over."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(194)
    labels = tf.placeholder(tf.float32, [None])
    preds = tf.placeholder(tf.float32, [None])
    try:  # its running total needs a fully defined shape
        tf.metrics.mean_tensor(tf.placeholder(tf.float32, [None, 3]))
        partial_shape = None
    except ValueError as e:
        partial_shape = ["ValueError", "partially known TensorShape" in str(e)]
    vec = tf.placeholder(tf.float32, [6, 3])
    int_labels = tf.placeholder(tf.int64, [None])
    logits = tf.placeholder(tf.float32, [None, 4])
    weights = tf.placeholder(tf.float32, [None])
    thresholds = [0.25, 0.5, 0.75]
    mre = tf.metrics.mean_relative_error(labels, preds, normalizer=labels + 1.0, name="mre")
    mt = tf.metrics.mean_tensor(vec, name="mean_tensor")
    rec = tf.metrics.recall_at_thresholds(labels > 0.5, preds, thresholds, name="rat")
    fn = tf.metrics.false_negatives_at_thresholds(labels > 0.5, preds, thresholds)
    fp = tf.metrics.false_positives_at_thresholds(labels > 0.5, preds, thresholds)
    apk = tf.metrics.average_precision_at_k(int_labels, logits, k=2, name="apk")
    mpca = tf.metrics.mean_per_class_accuracy(
        int_labels, tf.argmax(logits, 1), num_classes=4, weights=weights, name="mpca",
        metrics_collections=["my_metrics"], updates_collections=["my_updates"],
    )  # fmt: skip
    metrics = [mre, mt, rec, fn, fp, apk, mpca]
    out = {
        "partial_shape": partial_shape,
        "local": sorted(v.op.name for v in tf.local_variables()),
        "metric_vars": len(tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)),
        "collections": [len(tf.get_collection("my_metrics")), len(tf.get_collection("my_updates"))],
        "names": [m[0].name for m in metrics],
    }
    batches = []
    for _ in range(3):
        lab = rng.rand(6).astype(np.float32)
        batches.append(
            {
                labels: lab,
                preds: np.clip(lab + rng.randn(6).astype(np.float32) * 0.3, 0, 1),
                vec: rng.rand(6, 3),
                int_labels: rng.randint(0, 4, 6),
                logits: rng.rand(6, 4),
                weights: rng.rand(6),
            }
        )
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        out["per_batch"] = [sess.run([m[1] for m in metrics], b) for b in batches]
        out["final"] = sess.run([m[0] for m in metrics])
        sess.run(tf.local_variables_initializer())
        sess.run([m[1] for m in metrics], batches[0])
        out["restarted"] = sess.run([m[0] for m in metrics])
    return out

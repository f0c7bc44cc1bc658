"""tf.metrics of segmentation, ranking and detection evaluation streamed over batches: mean_iou with
num_classes and weights (its total_confusion_matrix variable), sparse_precision_at_k / recall_at_k with
class_id, precision_at_top_k from top_k indices, auc with curve='PR' and summation_method='careful_interpolation'
and num_thresholds, specificity_at_sensitivity and sensitivity_at_specificity, precision_at_thresholds,
percentage_below, root_mean_squared_error, mean_cosine_distance, the update ops' values per batch and the final
values, and a metric under a variable_scope's name."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(210)
    seg_true = tf.placeholder(tf.int32, [None, 4])
    seg_pred = tf.placeholder(tf.int32, [None, 4])
    seg_w = tf.placeholder(tf.float32, [None, 4])
    cls = tf.placeholder(tf.int64, [None])
    scores = tf.placeholder(tf.float32, [None, 5])
    binary = tf.placeholder(tf.bool, [None])
    prob = tf.placeholder(tf.float32, [None])
    with tf.variable_scope("eval"):
        miou = tf.metrics.mean_iou(seg_true, seg_pred, num_classes=3, weights=seg_w)
    metrics = {
        "miou": miou,
        "p_at_2": tf.metrics.sparse_precision_at_k(cls, scores, k=2),
        "p_at_2_c1": tf.metrics.sparse_precision_at_k(cls, scores, k=2, class_id=1),
        "r_at_3": tf.metrics.recall_at_k(cls, scores, k=3),
        "r_at_3_c4": tf.metrics.recall_at_k(cls, scores, k=3, class_id=4),
        "p_top_k": tf.metrics.precision_at_top_k(cls, tf.nn.top_k(scores, 2).indices),
        "auc_roc": tf.metrics.auc(binary, prob, num_thresholds=50),
        "auc_pr": tf.metrics.auc(binary, prob, curve="PR", summation_method="careful_interpolation"),
        "auc_minoring": tf.metrics.auc(binary, prob, summation_method="minoring", num_thresholds=20),
        "spec_at_sens": tf.metrics.specificity_at_sensitivity(binary, prob, 0.7),
        "sens_at_spec": tf.metrics.sensitivity_at_specificity(binary, prob, 0.6),
        "prec_at_t": tf.metrics.precision_at_thresholds(binary, prob, [0.3, 0.6]),
        "pct_below": tf.metrics.percentage_below(prob, 0.4),
        "rmse": tf.metrics.root_mean_squared_error(tf.cast(binary, tf.float32), prob),
        "cosine": tf.metrics.mean_cosine_distance(
            tf.nn.l2_normalize(scores[:, :3], 1), tf.nn.l2_normalize(scores[:, 2:], 1), dim=1
        ),
    }
    out = {
        "local": sorted((v.op.name, v.shape.as_list()) for v in tf.local_variables() if "eval" in v.op.name),
        "names": {k: v[0].op.name for k, v in metrics.items() if k != "miou"},
    }
    batches = []
    for _ in range(3):
        batches.append(
            {
                seg_true: rng.randint(0, 3, [5, 4]),
                seg_pred: rng.randint(0, 3, [5, 4]),
                seg_w: (rng.rand(5, 4) > 0.2).astype(np.float32),
                cls: rng.randint(0, 5, 5),
                scores: rng.rand(5, 5),
                binary: rng.rand(5) > 0.5,
                prob: rng.rand(5),
            }
        )
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        out["updates"] = [sess.run({k: v[1] for k, v in metrics.items()}, b) for b in batches]
        out["final"] = sess.run({k: v[0] for k, v in metrics.items()})
        out["confusion"] = sess.run(tf.get_default_graph().get_tensor_by_name("eval/mean_iou/total_confusion_matrix:0"))
    return out

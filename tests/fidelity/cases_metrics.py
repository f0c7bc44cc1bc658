"""tf.compat.v1.metrics against TensorFlow 1: values after several update steps in a session loop (with and
without weights), the names of the state variables and of value/update tensors, the LOCAL_VARIABLES and
METRIC_VARIABLES collections, metrics/updates collections, local_variables_initializer resetting the state, dtype
casts and the argument errors."""

import numpy as np

from tests.fidelity.harness import case


def _rng(seed):
    return np.random.default_rng(seed)


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is the observation
        return type(e).__name__
    return "no error"


def _stream(tf, sess, metric, feeds, steps=3):
    """Runs update_op once per batch (fed through placeholders) and observes the updates and the final value."""
    value, update = metric
    sess.run(tf.local_variables_initializer())
    updates = [sess.run(update, feed) for feed in feeds[:steps]]
    return [updates, sess.run(value), value.name, update.name]


def _batches(seed, n=3, size=8, classes=None):
    rng = _rng(seed)
    out = []
    for _ in range(n):
        if classes:
            out.append((rng.integers(0, classes, size), rng.integers(0, classes, size), rng.uniform(0, 2, size)))
        else:
            out.append((rng.integers(0, 2, size), rng.uniform(0, 1, size).astype(np.float32), rng.uniform(0, 2, size)))
    return out


def _placeholders(tf, ldtype, pdtype):
    return tf.placeholder(ldtype, [None]), tf.placeholder(pdtype, [None]), tf.placeholder(tf.float32, [None])


@case
def accuracy_streams(tf, sess):
    labels, preds, w = _placeholders(tf, tf.int64, tf.int32)
    data = _batches(0, classes=3)
    plain = tf.metrics.accuracy(labels, preds)
    weighted = tf.metrics.accuracy(labels, preds, weights=w, name="wacc")
    feeds = [{labels: a, preds: b, w: c} for a, b, c in data]
    out = [_stream(tf, sess, plain, feeds), _stream(tf, sess, weighted, feeds)]
    names = sorted(v.name for v in tf.local_variables())
    metric_vars = sorted(v.name for v in tf.get_collection(tf.GraphKeys.METRIC_VARIABLES))
    return [out, names, metric_vars, [v.name for v in tf.global_variables()], plain[0].dtype]


@case
def accuracy_reset_by_local_init(tf, sess):
    acc, update = tf.metrics.accuracy([1, 0, 1, 1], [1, 1, 1, 0])
    sess.run(tf.local_variables_initializer())
    first = [sess.run(update), sess.run(update)]
    sess.run(tf.local_variables_initializer())
    return [first, sess.run(acc), sess.run(update)]


@case
def accuracy_squeezes_and_casts(tf, sess):
    # predictions [N, 1] against labels [N]; float predictions against int labels are cast to the labels' dtype.
    acc, update = tf.metrics.accuracy(tf.constant([1, 2, 3]), tf.constant([[1.0], [2.7], [3.0]]))
    sess.run(tf.local_variables_initializer())
    return [sess.run(update), acc.dtype]


@case
def accuracy_shape_mismatch(tf, sess):
    return _error(lambda: tf.metrics.accuracy(tf.constant([1, 2, 3]), tf.constant([1, 2])))


@case
def mean_and_mean_tensor(tf, sess):
    v = tf.placeholder(tf.float64, [2, 3])
    w = tf.placeholder(tf.float32, [2, 1])
    m = tf.metrics.mean(v)
    mw = tf.metrics.mean(v, weights=w)
    mt = tf.metrics.mean_tensor(v)
    mtw = tf.metrics.mean_tensor(v, weights=w, name="mt")
    rng = _rng(1)
    feeds = [{v: rng.normal(size=(2, 3)), w: rng.uniform(0, 1, (2, 1))} for _ in range(3)]
    names = sorted(x.name for x in tf.local_variables())
    return [_stream(tf, sess, x, feeds) for x in (m, mw, mt, mtw)] + [names]


@case
def mean_collections(tf, sess):
    value, _ = tf.metrics.mean([1.0, 2.0], metrics_collections=["mc"], updates_collections=["uc"])
    return [tf.get_collection("mc")[0].name, tf.get_collection("uc")[0].name, value.name]


@case
def mean_in_variable_scope_and_zero_weights(tf, sess):
    with tf.variable_scope("eval"):
        value, update = tf.metrics.mean([1.0, 2.0], weights=[0.0, 0.0])
    sess.run(tf.local_variables_initializer())
    return [sess.run(update), sess.run(value), sorted(v.name for v in tf.local_variables())]


@case
def precision_recall_streams(tf, sess):
    labels, preds, w = _placeholders(tf, tf.int64, tf.float32)
    data = _batches(2)
    feeds = [{labels: a, preds: (b > 0.5).astype(np.float32), w: c} for a, b, c in data]
    metrics = [
        tf.metrics.precision(labels, preds),
        tf.metrics.recall(labels, preds),
        tf.metrics.precision(labels, preds, weights=w, name="wp"),
        tf.metrics.recall(labels, preds, weights=w, name="wr"),
    ]
    out = [_stream(tf, sess, m, feeds) for m in metrics]
    return [out, sorted(v.name for v in tf.local_variables())]


@case
def precision_with_no_positives_is_zero(tf, sess):
    p, up = tf.metrics.precision([1, 1], [0, 0])
    sess.run(tf.local_variables_initializer())
    return [sess.run(up), sess.run(p)]


@case
def counts_and_at_thresholds(tf, sess):
    labels, preds, w = _placeholders(tf, tf.int64, tf.float32)
    data = _batches(3)
    feeds = [{labels: a, preds: b, w: c} for a, b, c in data]
    th = [0.0, 0.25, 0.5, 0.9]
    binary = tf.cast(preds > 0.5, tf.float32)
    metrics = [
        tf.metrics.true_positives(labels, binary),
        tf.metrics.false_positives(labels, binary, weights=w),
        tf.metrics.true_negatives(labels, binary),
        tf.metrics.false_negatives(labels, binary, weights=w),
        tf.metrics.true_positives_at_thresholds(labels, preds, th),
        tf.metrics.false_positives_at_thresholds(labels, preds, th, weights=w),
        tf.metrics.true_negatives_at_thresholds(labels, preds, th),
        tf.metrics.false_negatives_at_thresholds(labels, preds, th),
        tf.metrics.precision_at_thresholds(labels, preds, th),
        tf.metrics.recall_at_thresholds(labels, preds, th, weights=w),
    ]
    out = [_stream(tf, sess, m, feeds)[:2] for m in metrics]
    return [out, sorted(v.name for v in tf.local_variables())]


@case(tol=1e-4)
def auc_roc_pr(tf, sess):
    labels, preds, w = _placeholders(tf, tf.int64, tf.float32)
    data = _batches(4, size=32)
    feeds = [{labels: a, preds: b, w: c} for a, b, c in data]
    metrics = [
        tf.metrics.auc(labels, preds),
        tf.metrics.auc(labels, preds, weights=w, name="wauc"),
        tf.metrics.auc(labels, preds, curve="PR"),
        tf.metrics.auc(labels, preds, curve="PR", summation_method="careful_interpolation"),
        tf.metrics.auc(labels, preds, num_thresholds=7, summation_method="minoring"),
        tf.metrics.auc(labels, preds, summation_method="majoring"),
        tf.metrics.auc(labels, preds, thresholds=[0.3, 0.1, 0.7]),
    ]
    out = [_stream(tf, sess, m, feeds) for m in metrics]
    return [out, sorted(v.name for v in tf.local_variables())[:4]]


@case
def auc_errors(tf, sess):
    return [
        _error(lambda: tf.metrics.auc(tf.constant([1, 0]), tf.constant([0.5, 0.5]), curve="XY")),
        _error(lambda: tf.metrics.auc(tf.constant([1, 0]), tf.constant([0.5, 0.5]), summation_method="nope")),
    ]


@case
def auc_predictions_out_of_range(tf, sess):
    _, update = tf.metrics.auc(tf.constant([1, 0]), tf.constant([1.5, 0.5]))
    sess.run(tf.local_variables_initializer())
    return _error(lambda: sess.run(update))


@case
def regression_errors(tf, sess):
    labels = tf.placeholder(tf.float32, [None, 2])
    preds = tf.placeholder(tf.float32, [None, 2])
    norm = tf.placeholder(tf.float32, [None, 2])
    w = tf.placeholder(tf.float32, [None, 1])
    rng = _rng(5)
    feeds = []
    for _ in range(3):
        n = rng.uniform(0.5, 2, (4, 2)).astype(np.float32)
        n[0, 0] = 0
        feeds.append(
            {labels: rng.normal(size=(4, 2)), preds: rng.normal(size=(4, 2)), norm: n, w: rng.uniform(0, 1, (4, 1))}
        )
    metrics = [
        tf.metrics.mean_squared_error(labels, preds),
        tf.metrics.mean_squared_error(labels, preds, weights=w),
        tf.metrics.mean_absolute_error(labels, preds, weights=w),
        tf.metrics.root_mean_squared_error(labels, preds),
        tf.metrics.mean_relative_error(labels, preds, norm),
        tf.metrics.mean_cosine_distance(tf.nn.l2_normalize(labels, 1), tf.nn.l2_normalize(preds, 1), dim=1),
        tf.metrics.percentage_below(preds, 0.2),
        tf.metrics.percentage_below(preds, 0.2, weights=w),
    ]
    return [_stream(tf, sess, m, feeds) for m in metrics]


@case
def mean_iou_and_per_class_accuracy(tf, sess):
    labels, preds, w = _placeholders(tf, tf.int64, tf.int64)
    data = _batches(6, classes=4)
    feeds = [{labels: a, preds: b, w: c} for a, b, c in data]
    metrics = [
        tf.metrics.mean_iou(labels, preds, 4),
        tf.metrics.mean_iou(labels, preds, 4, weights=w, name="wiou"),
        tf.metrics.mean_per_class_accuracy(labels, preds, 4),
        tf.metrics.mean_per_class_accuracy(labels, preds, 4, weights=w, name="wpca"),
    ]
    out = [_stream(tf, sess, m, feeds) for m in metrics]
    return [out, sorted(v.name for v in tf.local_variables())]


@case
def mean_iou_missing_class(tf, sess):
    value, update = tf.metrics.mean_iou(tf.constant([0, 0, 2]), tf.constant([0, 2, 2]), 3)
    sess.run(tf.local_variables_initializer())
    return [sess.run(update), sess.run(value)]


@case(tol=1e-4)
def sensitivity_specificity(tf, sess):
    labels, preds, w = _placeholders(tf, tf.int64, tf.float32)
    data = _batches(7, size=40)
    feeds = [{labels: a, preds: b, w: c} for a, b, c in data]
    metrics = [
        tf.metrics.sensitivity_at_specificity(labels, preds, 0.7),
        tf.metrics.sensitivity_at_specificity(labels, preds, 0.4, weights=w, num_thresholds=50),
        tf.metrics.specificity_at_sensitivity(labels, preds, 0.6),
        tf.metrics.specificity_at_sensitivity(labels, preds, 0.9, weights=w, num_thresholds=20),
    ]
    return [_stream(tf, sess, m, feeds) for m in metrics]


@case
def sensitivity_specificity_range_errors(tf, sess):
    return [
        _error(lambda: tf.metrics.sensitivity_at_specificity([1], [0.5], 1.5)),
        _error(lambda: tf.metrics.specificity_at_sensitivity([1], [0.5], -0.1)),
    ]

"""tw.metrics against numpy (the oracle) over several update steps; collections, names, reset and errors.
(The comparison with TensorFlow itself is in tests/fidelity/cases_metrics.py.)"""

import numpy as np
import pytest
import tensorweave as tw


def _run_stream(metric_fn, batches, **kwargs):
    with tw.Graph().as_default(), tw.Session() as sess:
        phs = [tw.placeholder(tw.as_dtype(np.asarray(a).dtype), [None]) for a in batches[0]]
        value, update = metric_fn(*phs, **kwargs)
        sess.run(tw.local_variables_initializer())
        for batch in batches:
            sess.run(update, dict(zip(phs, batch)))
        return sess.run(value)


def _batches(seed=0, n=3, size=10):
    rng = np.random.default_rng(seed)
    return [(rng.integers(0, 3, size), rng.integers(0, 3, size)) for _ in range(n)]


def test_accuracy_accumulates_over_updates():
    batches = _batches()
    expected = np.mean(np.concatenate([a == b for a, b in batches]))
    assert _run_stream(tw.metrics.accuracy, batches) == pytest.approx(expected, rel=1e-6)


def test_weighted_mean_and_names():
    with tw.Graph().as_default(), tw.Session() as sess:
        v = tw.placeholder(tw.float32, [None])
        w = tw.placeholder(tw.float32, [None])
        value, update = tw.metrics.mean(v, weights=w)
        assert value.name == "mean/value:0" and update.name == "mean/update_op:0"
        assert [x.name for x in tw.local_variables()] == ["mean/total:0", "mean/count:0"]
        assert len(tw.get_collection(tw.GraphKeys.METRIC_VARIABLES)) == 2
        assert tw.trainable_variables() == [] and tw.global_variables() == []
        sess.run(tw.local_variables_initializer())
        vals = [np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0])]
        ws = [np.array([1.0, 0.0, 2.0]), np.array([0.5, 0.5])]
        for a, b in zip(vals, ws):
            sess.run(update, {v: a, w: b})
        expected = sum((a * b).sum() for a, b in zip(vals, ws)) / sum(b.sum() for b in ws)
        assert sess.run(value) == pytest.approx(expected, rel=1e-6)
        sess.run(tw.local_variables_initializer())  # resets the state
        assert sess.run(value) == 0.0


def test_precision_recall_against_numpy():
    rng = np.random.default_rng(1)
    batches = [(rng.integers(0, 2, 20), rng.integers(0, 2, 20)) for _ in range(3)]
    labels = np.concatenate([a for a, _ in batches]).astype(bool)
    preds = np.concatenate([b for _, b in batches]).astype(bool)
    tp, fp, fn = (labels & preds).sum(), (~labels & preds).sum(), (labels & ~preds).sum()
    assert _run_stream(tw.metrics.precision, batches) == pytest.approx(tp / (tp + fp), rel=1e-6)
    assert _run_stream(tw.metrics.recall, batches) == pytest.approx(tp / (tp + fn), rel=1e-6)
    assert _run_stream(tw.metrics.false_negatives, batches) == fn


def test_auc_roc_against_numpy_trapezoid():
    rng = np.random.default_rng(2)
    labels = rng.integers(0, 2, 50)
    preds = rng.uniform(0, 1, 50).astype(np.float32)
    got = _run_stream(tw.metrics.auc, [(labels, preds)])
    n = 200
    th = np.array([-1e-7] + [(i + 1) / (n - 1) for i in range(n - 2)] + [1 + 1e-7], np.float32)
    pos = preds[None, :] > th[:, None]
    lab = labels.astype(bool)[None, :]
    tp, fp = (pos & lab).sum(1), (pos & ~lab).sum(1)
    fn, tn = (~pos & lab).sum(1), (~pos & ~lab).sum(1)
    tpr = (tp + 1e-6) / (tp + fn + 1e-6)
    fpr = fp / (fp + tn + 1e-6)
    expected = np.sum((fpr[:-1] - fpr[1:]) * (tpr[:-1] + tpr[1:]) / 2)
    assert got == pytest.approx(expected, rel=1e-4)


def test_mean_iou_against_numpy():
    batches = _batches(3, size=30)
    labels = np.concatenate([a for a, _ in batches])
    preds = np.concatenate([b for _, b in batches])
    cm = np.zeros((3, 3))
    np.add.at(cm, (labels, preds), 1)
    iou = np.diag(cm) / (cm.sum(0) + cm.sum(1) - np.diag(cm))
    assert _run_stream(tw.metrics.mean_iou, batches, num_classes=3) == pytest.approx(iou.mean(), rel=1e-5)


def test_rmse_and_collections():
    with tw.Graph().as_default(), tw.Session() as sess:
        value, update = tw.metrics.root_mean_squared_error(
            tw.constant([1.0, 2.0]), tw.constant([2.0, 4.0]), metrics_collections=["m"], updates_collections=["u"]
        )
        assert tw.get_collection("m") == [value] and tw.get_collection("u") == [update]
        sess.run(tw.local_variables_initializer())
        assert sess.run(update) == pytest.approx(np.sqrt(2.5))


def test_errors():
    with tw.Graph().as_default():
        with pytest.raises(ValueError):
            tw.metrics.accuracy(tw.constant([1, 2, 3]), tw.constant([1, 2]))
        with pytest.raises(ValueError):
            tw.metrics.auc(tw.constant([1]), tw.constant([0.5]), curve="XY")
        with pytest.raises(ValueError):
            tw.metrics.sensitivity_at_specificity(tw.constant([1]), tw.constant([0.5]), 2.0)
        with pytest.raises(ValueError):
            tw.metrics.mean(tw.constant([[1.0, 2.0]]), weights=tw.constant([[1.0, 2.0, 3.0]]))
        # Predictions outside [0, 1]: InvalidArgumentError (when the graph is built, for constants, as TF1).
        with pytest.raises(tw.errors.InvalidArgumentError):
            tw.metrics.auc(tw.constant([1, 0]), tw.constant([1.5, 0.5]))
        p = tw.placeholder(tw.float32, [None])
        _, update = tw.metrics.auc(tw.constant([1, 0]), p)
        with tw.Session() as sess:
            sess.run(tw.local_variables_initializer())
            with pytest.raises(tw.errors.InvalidArgumentError):
                sess.run(update, {p: [1.5, 0.5]})

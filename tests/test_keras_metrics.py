"""tw.keras.metrics against tf_keras's metrics in TF1 graph mode: functions, stateful classes over several
batches (with sample weights), reset, collections, get and errors."""

import numpy as np
import pytest
import tensorweave as tw

M = tw.keras.metrics

RNG = np.random.RandomState(1)
PROBS = RNG.rand(6, 4).astype(np.float32)
PROBS /= PROBS.sum(-1, keepdims=True)
IDS = np.array([0, 3, 1, 1, 2, 0], np.int64)
ONE_HOT = np.eye(4, dtype=np.float32)[IDS]
BIN_T = (RNG.rand(6, 4) > 0.5).astype(np.float32)
SCORES = RNG.rand(6, 4).astype(np.float32)
REG_T = RNG.randn(6, 4).astype(np.float32)
REG_P = RNG.randn(6, 4).astype(np.float32)
W = np.array([1.0, 0.5, 0.0, 2.0, 1.0, 1.5], np.float32)


def _tf_keras():
    tf1 = pytest.importorskip("tensorflow.compat.v1")
    tf_keras = pytest.importorskip("tf_keras")
    tf1.disable_v2_behavior()
    return tf1, tf_keras


def _run_both(build):
    """`build(lib, metrics)` -> (update ops, result tensors, metric objects); runs both libraries."""
    tf1, _ = _tf_keras()
    import tf_keras.src.metrics as their_functions  # accuracy and cosine_similarity are not exported

    results = []
    libs = ((tw, M, tw.Graph, tw.Session), (tf1, their_functions, tf1.Graph, tf1.Session))
    for lib, mod, graph, session in libs:
        with graph().as_default(), session() as sess:
            updates, values, metrics = build(lib, mod)
            sess.run(lib.variables_initializer([v for m in metrics for v in m.variables]))
            for op in updates:
                sess.run(op)
            results.append(sess.run(values))
    return results


FUNCTION_CASES = [
    ("accuracy", IDS, np.array([0, 3, 2, 1, 2, 1], np.int64), {}),
    ("binary_accuracy", BIN_T, SCORES, {}),
    ("binary_accuracy", BIN_T, SCORES, {"threshold": 0.7}),
    ("categorical_accuracy", ONE_HOT, PROBS, {}),
    ("sparse_categorical_accuracy", IDS, PROBS, {}),
    ("sparse_categorical_accuracy", IDS[:, None], PROBS, {}),
    ("top_k_categorical_accuracy", ONE_HOT, PROBS, {"k": 2}),
    ("sparse_top_k_categorical_accuracy", IDS, PROBS, {"k": 2}),
    ("cosine_similarity", REG_T, REG_P, {}),
    ("mse", REG_T, REG_P, {}),
    ("categorical_crossentropy", ONE_HOT, PROBS, {}),
]


@pytest.mark.parametrize(
    "name,y_true,y_pred,kwargs", FUNCTION_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(FUNCTION_CASES)]
)
def test_functions_match_tf_keras(name, y_true, y_pred, kwargs):
    ours, theirs = _run_both(
        lambda lib, m: ([], [getattr(m, name)(lib.constant(y_true), lib.constant(y_pred), **kwargs)], [])
    )
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5, atol=1e-6)


CLASS_CASES = [
    ("Accuracy", {}, IDS, np.array([0, 3, 2, 1, 2, 1], np.int64)),
    ("BinaryAccuracy", {"threshold": 0.4}, BIN_T, SCORES),
    ("CategoricalAccuracy", {}, ONE_HOT, PROBS),
    ("SparseCategoricalAccuracy", {}, IDS, PROBS),
    ("TopKCategoricalAccuracy", {"k": 2}, ONE_HOT, PROBS),
    ("SparseTopKCategoricalAccuracy", {"k": 3}, IDS, PROBS),
    ("MeanSquaredError", {}, REG_T, REG_P),
    ("RootMeanSquaredError", {}, REG_T, REG_P),
    ("MeanAbsoluteError", {}, REG_T, REG_P),
    ("MeanAbsolutePercentageError", {}, REG_T, REG_P),
    ("CategoricalCrossentropy", {"label_smoothing": 0.1}, ONE_HOT, PROBS),
    ("SparseCategoricalCrossentropy", {}, IDS, PROBS),
    ("SparseCategoricalCrossentropy", {"ignore_class": 0}, IDS, PROBS),
    ("BinaryCrossentropy", {}, BIN_T, SCORES),
    ("Hinge", {}, BIN_T, REG_P),
    ("KLDivergence", {}, ONE_HOT, PROBS),
    ("LogCoshError", {}, REG_T, REG_P),
    ("CosineSimilarity", {}, REG_T, REG_P),
    ("TruePositives", {}, BIN_T, SCORES),
    ("FalsePositives", {"thresholds": [0.2, 0.6]}, BIN_T, SCORES),
    ("TrueNegatives", {}, BIN_T, SCORES),
    ("FalseNegatives", {"thresholds": 0.3}, BIN_T, SCORES),
    ("Precision", {}, BIN_T, SCORES),
    ("Precision", {"thresholds": [0.3, 0.5, 0.8]}, BIN_T, SCORES),
    ("Precision", {"class_id": 2}, BIN_T, SCORES),
    ("Precision", {"top_k": 2}, BIN_T, SCORES),
    ("Recall", {}, BIN_T, SCORES),
    ("Recall", {"thresholds": [0.1, 0.9], "class_id": 1}, BIN_T, SCORES),
    ("AUC", {}, BIN_T, SCORES),
    ("AUC", {"num_thresholds": 7, "curve": "PR"}, BIN_T, SCORES),
    ("AUC", {"num_thresholds": 11, "summation_method": "minoring"}, BIN_T, SCORES),
    ("AUC", {"thresholds": [0.25, 0.5, 0.75], "summation_method": "majoring"}, BIN_T, SCORES),
    ("MeanIoU", {"num_classes": 4}, IDS, np.array([0, 3, 2, 1, 2, 2], np.int64)),
    ("AUC", {"multi_label": True}, BIN_T, SCORES),
    ("AUC", {"multi_label": True, "num_labels": 4, "curve": "PR"}, BIN_T, SCORES),
    ("AUC", {"multi_label": True, "label_weights": [1.0, 0.0, 2.0, 0.5], "num_thresholds": 9}, BIN_T, SCORES),
    ("AUC", {"label_weights": [1.0, 0.0, 2.0, 0.5]}, BIN_T, SCORES),
    ("AUC", {"from_logits": True}, BIN_T, REG_P),
    ("SensitivityAtSpecificity", {"specificity": 0.5}, BIN_T, SCORES),
    ("SpecificityAtSensitivity", {"sensitivity": 0.8, "num_thresholds": 11}, BIN_T, SCORES),
    ("PrecisionAtRecall", {"recall": 0.7, "class_id": 1}, BIN_T, SCORES),
    ("RecallAtPrecision", {"precision": 0.6}, BIN_T, SCORES),
    ("RecallAtPrecision", {"precision": 1.0, "num_thresholds": 1}, BIN_T, SCORES),
]


@pytest.mark.parametrize(
    "name,kwargs,y_true,y_pred", CLASS_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CLASS_CASES)]
)
def test_classes_over_batches_match_tf_keras(name, kwargs, y_true, y_pred):
    def build(lib, m):
        metric = getattr(m, name)(**kwargs)
        unweighted = getattr(m, name)(**kwargs)
        updates = [
            metric.update_state(lib.constant(y_true[:3]), lib.constant(y_pred[:3]), sample_weight=W[:3]),
            metric.update_state(lib.constant(y_true[3:]), lib.constant(y_pred[3:]), sample_weight=W[3:]),
            unweighted.update_state(lib.constant(y_true), lib.constant(y_pred)),
        ]
        return updates, [metric.result(), unweighted.result()], [metric, unweighted]

    ours, theirs = _run_both(build)
    for a, b in zip(ours, theirs):
        assert np.shape(a) == np.shape(b)
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_mean_and_sum_with_weights():
    def build(lib, m):
        mean, total = m.Mean(), m.Sum()
        values = lib.constant(REG_T)
        updates = [
            mean.update_state(values, sample_weight=W),
            mean.update_state([1.0, 2.0]),
            total.update_state(values, sample_weight=W[:, None]),
        ]
        return updates, [mean.result(), total.result()], [mean, total]

    ours, theirs = _run_both(build)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)


def test_call_reset_and_collections():
    with tw.Graph().as_default(), tw.Session().as_default() as sess:
        acc = M.BinaryAccuracy()
        out = acc(tw.constant([[1.0], [0.0]]), tw.constant([[0.9], [0.8]]))
        names = [v.name for v in acc.variables]
        assert names == ["binary_accuracy/total:0", "binary_accuracy/count:0"]
        assert set(acc.variables) <= set(tw.local_variables())
        assert set(acc.variables) <= set(tw.get_collection(tw.GraphKeys.METRIC_VARIABLES))
        assert not tw.trainable_variables()
        sess.run(tw.local_variables_initializer())
        assert sess.run(out) == pytest.approx(0.5)
        assert sess.run(out) == pytest.approx(0.5)
        assert sess.run(acc.variables) == [2.0, 4.0]
        acc.reset_states()
        assert sess.run(acc.variables) == [0.0, 0.0]
        assert sess.run(acc.result()) == 0.0
        assert [M.AUC().name, M.AUC().name, M.AUC(name="x").name] == ["auc", "auc_1", "x"]


def test_get_and_engine_accuracy():
    assert M.get("accuracy") is M.accuracy
    assert M.get("acc") is M.accuracy
    assert M.get("mse") is M.mean_squared_error
    assert M.get("categorical_accuracy") is M.categorical_accuracy
    with tw.Graph().as_default():
        assert isinstance(M.get("AUC"), M.AUC)
        assert isinstance(M.get({"class_name": "Precision", "config": {"thresholds": 0.3}}), M.Precision)
        metric = M.CategoricalCrossentropy(from_logits=True)
        assert M.deserialize(M.serialize(metric)).get_config() == metric.get_config()
    L = tw.keras.losses
    assert M.engine_accuracy(L.binary_crossentropy) is M.binary_accuracy
    assert M.engine_accuracy(L.SparseCategoricalCrossentropy()) is M.sparse_categorical_accuracy
    assert M.engine_accuracy(L.categorical_crossentropy) is M.categorical_accuracy
    assert M.engine_accuracy(L.mse, output_shape=(None, 1)) is M.binary_accuracy
    assert M.get_metric_function("ce", (None, 3), L.SparseCategoricalCrossentropy()) is (
        M.sparse_categorical_crossentropy
    )
    assert M.get_metric_function("crossentropy", (None, 1), L.mse) is M.binary_crossentropy
    assert M.get_metric_function("acc", (None, 3), L.MeanSquaredError()) is M.categorical_accuracy
    assert M.get_metric_function("mae") is M.mean_absolute_error


def test_config_matches_tf_keras():
    tf1, tf_keras = _tf_keras()
    for name, kwargs, _, _ in CLASS_CASES:
        with tw.Graph().as_default():
            ours = getattr(M, name)(**kwargs).get_config()
        with tf1.Graph().as_default():
            theirs = getattr(tf_keras.metrics, name)(**kwargs).get_config()
        for k, v in ours.items():
            assert k in theirs, (name, k)
            if isinstance(theirs[k], np.ndarray):
                np.testing.assert_allclose(v, theirs[k])
            else:
                assert v == (theirs[k] if not isinstance(theirs[k], float) else pytest.approx(theirs[k])), (name, k)


def test_errors():
    with pytest.raises(ValueError, match="Unknown metric function: 'foo'"):
        M.get("foo")
    with pytest.raises(ValueError, match="Could not interpret metric identifier: 42"):
        M.get(42)
    with tw.Graph().as_default():
        with pytest.raises(ValueError, match="Invalid AUC curve value"):
            M.AUC(curve="XY")
        with pytest.raises(ValueError, match="Threshold values must be in"):
            M.Precision(thresholds=[0.5, 1.5])
        with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
            M.BinaryAccuracy(foo=1)


def test_subclassed_metric_without_returned_op():
    class CountPositives(M.Metric):
        def __init__(self, name="count_positives", **kwargs):
            super().__init__(name=name, **kwargs)
            self.n = self.add_weight(name="n", initializer="zeros")

        def update_state(self, y_true, y_pred, sample_weight=None):
            self.n.assign_add(tw.reduce_sum(tw.cast(y_pred > 0.5, tw.float32)))  # returns nothing, as TF2 code

        def result(self):
            return self.n.read_value()

    with tw.Graph().as_default(), tw.Session() as sess:
        metric = CountPositives()
        op = metric.update_state(None, tw.constant([0.2, 0.7, 0.9]))
        out = metric(None, tw.constant([0.6]))
        assert [v.name for v in metric.variables] == ["count_positives/n:0"]
        sess.run(tw.local_variables_initializer())
        sess.run(op)
        assert sess.run(metric.result()) == 2.0
        assert sess.run(out) == 3.0

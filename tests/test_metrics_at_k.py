"""tf.compat.v1.metrics' average_precision_at_k (and its sparse_ alias)
against TensorFlow and a numpy oracle: dense and sparse labels, weights,
examples without labels (NaN, as TF), the streaming mean over updates."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tw

LOGITS = np.random.RandomState(0).rand(6, 8).astype(np.float32)
DENSE = np.array([[1], [2], [3], [0], [7], [5]], np.int64)
SPARSE = ([[0, 0], [0, 1], [1, 0], [3, 0], [3, 1], [3, 2], [5, 0]], [1, 4, 2, 0, 6, 3, 5], [6, 3])
WEIGHTS = [1.0, 2.0, 0.0, 1.0, 3.0, 1.0]


def _oracle(labels_per_row, k, weights=None):
    aps = []
    for logits, labels in zip(LOGITS, labels_per_row):
        top = np.argsort(-logits, kind="stable")[:k]
        hits = np.isin(top, list(labels)).astype(float)
        precision = np.cumsum(hits) / np.arange(1, k + 1)
        count = min(len(labels), k)
        aps.append((precision * hits).sum() / count if count else np.nan)
    aps = np.array(aps)
    w = np.ones(len(aps)) if weights is None else np.array(weights)
    return (aps * w).sum() / w.sum()


def _run(t):
    with t.Graph().as_default(), t.Session() as sess:
        sparse = t.SparseTensor(SPARSE[0], np.array(SPARSE[1], np.int64), SPARSE[2])
        metrics = []
        for k in (1, 3, 5):
            metrics.append(t.metrics.average_precision_at_k(DENSE, LOGITS, k))
            metrics.append(t.metrics.average_precision_at_k(sparse, LOGITS, k, weights=WEIGHTS))
            metrics.append(t.metrics.sparse_average_precision_at_k(DENSE[:, 0], LOGITS, k))
        sess.run(t.local_variables_initializer())
        first = sess.run([m[1] for m in metrics])
        second = sess.run([m[1] for m in metrics])
        return first, second, sess.run([m[0] for m in metrics]), [m[0].name for m in metrics]


def test_against_numpy():
    first, second, values, names = _run(tw)
    sparse_rows = [[1, 4], [2], [], [0, 6, 3], [], [5]]
    for i, k in enumerate((1, 3, 5)):
        dense = _oracle(DENSE.tolist(), k)
        np.testing.assert_allclose([first[3 * i], second[3 * i], values[3 * i], first[3 * i + 2]], dense)
        np.testing.assert_allclose(first[3 * i + 1], _oracle(sparse_rows, k, WEIGHTS), equal_nan=True)
    assert names[0] == "average_precision_at_1/mean:0"


def test_matches_tensorflow():
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_v2_behavior()
    want, got = _run(tf), _run(tw)
    for a, b in zip(got[:3], want[:3]):
        np.testing.assert_allclose(a, b, equal_nan=True)
    assert got[3] == want[3]


def test_errors():
    with tw.Graph().as_default():
        with pytest.raises(ValueError, match="Invalid k=0"):
            tw.metrics.average_precision_at_k(DENSE, LOGITS, 0)
        with pytest.raises(ValueError, match="weights can not be broadcast"):
            tw.metrics.average_precision_at_k(DENSE, LOGITS, 2, weights=np.ones([6, 2]))

"""tw.losses against numpy, with weights and reductions."""

import numpy as np
import pytest

import tensorweave as tw


@pytest.fixture
def sess():
    with tw.Graph().as_default(), tw.Session() as s:
        yield s


def _softmax_xent(labels, logits):
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    return -(labels * log_probs).sum(axis=-1)


def test_softmax_cross_entropy_mean_and_collection(sess):
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((4, 3)).astype(np.float32)
    labels = np.eye(3, dtype=np.float32)[[0, 2, 1, 1]]
    loss = tw.losses.softmax_cross_entropy(labels, logits)
    np.testing.assert_allclose(sess.run(loss), _softmax_xent(labels, logits).mean(), rtol=1e-5)
    assert tw.losses.get_losses() == [loss]


def test_sparse_softmax_cross_entropy_weights(sess):
    rng = np.random.default_rng(1)
    logits = rng.standard_normal((4, 5)).astype(np.float32)
    labels = np.array([4, 0, 2, 2])
    weights = np.array([1.0, 0.0, 2.0, 1.0], np.float32)
    per_example = _softmax_xent(np.eye(5)[labels], logits)
    loss = tw.losses.sparse_softmax_cross_entropy(labels, logits, weights=weights)
    # SUM_BY_NONZERO_WEIGHTS: the weighted sum over the 3 non-zero weights.
    np.testing.assert_allclose(sess.run(loss), (per_example * weights).sum() / 3, rtol=1e-5)
    none = tw.losses.sparse_softmax_cross_entropy(labels, logits, weights=weights, reduction=tw.losses.Reduction.NONE)
    np.testing.assert_allclose(sess.run(none), per_example * weights, rtol=1e-5)


def test_mean_squared_error_and_total_loss(sess):
    labels = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    predictions = np.array([[1.5, 2.0], [2.0, 6.0]], np.float32)
    mse = tw.losses.mean_squared_error(labels, predictions)
    np.testing.assert_allclose(sess.run(mse), ((labels - predictions) ** 2).mean(), rtol=1e-6)
    summed = tw.losses.mean_squared_error(labels, predictions, reduction=tw.losses.Reduction.SUM)
    np.testing.assert_allclose(sess.run(summed), ((labels - predictions) ** 2).sum(), rtol=1e-6)
    total = tw.losses.get_total_loss()
    np.testing.assert_allclose(sess.run(total), sess.run(mse) + sess.run(summed), rtol=1e-6)


def test_label_smoothing(sess):
    logits = np.array([[2.0, 0.0, -1.0]], np.float32)
    labels = np.array([[1.0, 0.0, 0.0]], np.float32)
    loss = tw.losses.softmax_cross_entropy(labels, logits, label_smoothing=0.3)
    smoothed = labels * 0.7 + 0.1
    np.testing.assert_allclose(sess.run(loss), _softmax_xent(smoothed, logits).mean(), rtol=1e-5)


def test_bad_labels_are_reported(sess):
    loss = tw.losses.sparse_softmax_cross_entropy([3], [[0.0, 1.0]])
    with pytest.raises(tw.errors.InvalidArgumentError, match="label"):
        sess.run(loss)
    with pytest.raises(ValueError, match="No losses"):
        with tw.Graph().as_default():
            tw.losses.get_total_loss()

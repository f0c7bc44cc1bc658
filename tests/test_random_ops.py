"""RandomShuffle, Multinomial and dropout: reproducible with seeds, and
statistically right within loose (about 4 sigma) bounds."""

import numpy as np
import pytest

import tensorweave as tw
from tensorweave._src.ops.nn_ops_dropout import dropout


def _values(build, runs=1):
    """Values of the tensor `build()` makes, in a fresh graph and session."""
    with tw.Graph().as_default(), tw.Session() as sess:
        t = build()
        return [sess.run(t) for _ in range(runs)]


def test_random_shuffle_is_a_permutation_of_rows():
    x = np.arange(40).reshape(20, 2)
    (y,) = _values(lambda: tw.random_shuffle(x, seed=3))
    assert sorted(map(tuple, y)) == sorted(map(tuple, x))
    assert not np.array_equal(y, x)


def test_random_shuffle_reproducible_and_advancing():
    build = lambda: tw.random_shuffle(np.arange(50), seed=11)  # noqa: E731
    first = _values(build, runs=2)
    again = _values(build, runs=2)
    np.testing.assert_array_equal(first[0], again[0])
    np.testing.assert_array_equal(first[1], again[1])
    assert not np.array_equal(first[0], first[1])
    with tw.Graph().as_default():
        assert tw.random_shuffle([1, 2]).op.type == "RandomShuffle"


def test_random_shuffle_is_uniform():
    # Position of element 0 over many shuffles of 4 elements: each 1/4.
    with tw.Graph().as_default(), tw.Session() as sess:
        t = tw.random_shuffle(np.arange(4), seed=5)
        counts = np.zeros(4)
        for _ in range(2000):
            counts[np.argmax(sess.run(t) == 0)] += 1
    sigma = np.sqrt(2000 * 0.25 * 0.75)
    assert np.all(np.abs(counts - 500) < 4 * sigma), counts


def test_random_shuffle_scalar_and_empty():
    (s,) = _values(lambda: tw.random_shuffle(7, seed=1))
    assert s == 7
    (e,) = _values(lambda: tw.random_shuffle(np.zeros((0, 3)), seed=1))
    assert e.shape == (0, 3)


def test_multinomial_frequencies_within_4_sigma():
    probs = np.array([[0.1, 0.2, 0.7], [0.5, 0.5, 0.0]])
    logits = np.log(np.maximum(probs, 1e-30))
    n = 20000
    (samples,) = _values(lambda: tw.multinomial(logits, n, seed=4))
    assert samples.shape == (2, n) and samples.dtype == np.int64
    for row in range(2):
        freq = np.bincount(samples[row], minlength=3)
        sigma = np.sqrt(n * probs[row] * (1 - probs[row]))
        assert np.all(np.abs(freq - n * probs[row]) <= 4 * sigma + 1e-9), (row, freq)


def test_multinomial_reproducible_dtype_and_shape():
    build = lambda: tw.multinomial([[0.0, 1.0, 2.0]], 50, seed=9, output_dtype=tw.int32)  # noqa: E731
    a = _values(build, runs=2)
    b = _values(build, runs=2)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert a[0].dtype == np.int32 and not np.array_equal(a[0], a[1])
    with tw.Graph().as_default():
        t = tw.multinomial([[0.0, 1.0]], 4)
        assert t.op.type == "Multinomial" and t.shape == (1, 4)


def test_multinomial_skips_non_finite_logits_and_rejects_bad_input():
    (s,) = _values(lambda: tw.multinomial([[-np.inf, 0.0, -np.inf]], 100, seed=2))
    assert np.all(s == 1)
    with tw.Graph().as_default():
        with pytest.raises(ValueError, match="rank 2"):
            tw.multinomial([0.0, 1.0], 3)
        with pytest.raises(ValueError, match="nonnegative"):
            tw.multinomial([[0.0, 1.0]], -1)
        n = tw.placeholder(tw.int32, [])
        t = tw.multinomial(np.zeros((2, 0)), n, name="draw")
        with tw.Session() as sess, pytest.raises(tw.errors.InvalidArgumentError, match="draw"):
            sess.run(t, {n: 3})


def test_dropout_keeps_with_probability_and_scales():
    (y,) = _values(lambda: dropout(tw.ones([20000]), rate=0.3, seed=1))
    kept = y > 0
    np.testing.assert_allclose(y[kept], 1 / 0.7, rtol=1e-6)
    sigma = np.sqrt(20000 * 0.7 * 0.3)
    assert abs(kept.sum() - 14000) < 4 * sigma


def test_dropout_noise_shape_and_arguments():
    (y,) = _values(lambda: dropout(tw.ones([50, 4]), keep_prob=0.5, noise_shape=[50, 1], seed=2))
    assert np.all((y == y[:, :1]))  # one decision per row
    with tw.Graph().as_default():
        with pytest.raises(ValueError):
            dropout(tw.ones([2]), rate=1.0)
        with pytest.raises(ValueError):
            dropout(tw.ones([2]), keep_prob=0.5, rate=0.5)
        with pytest.raises(ValueError):
            dropout(tw.ones([2], dtype=tw.int32), rate=0.5)


@pytest.mark.parametrize(
    "fn, op_type",
    [
        (tw.random_uniform, "RandomUniform"),
        (tw.random_normal, "RandomStandardNormal"),
        (tw.truncated_normal, "TruncatedNormal"),
    ],
)
def test_existing_random_ops_reproducible_and_distributed(fn, op_type):
    def build():
        t = fn([20000], seed=3, dtype=tw.float64)
        assert any(op.type == op_type for op in tw.get_default_graph().get_operations())
        return t

    (a,) = _values(build)
    (b,) = _values(build)
    np.testing.assert_array_equal(a, b)
    if op_type == "RandomUniform":
        assert 0 <= a.min() and a.max() < 1 and abs(a.mean() - 0.5) < 4 * np.sqrt(1 / 12 / a.size)
    elif op_type == "RandomStandardNormal":
        assert abs(a.mean()) < 4 / np.sqrt(a.size) and abs(a.std() - 1) < 0.03
    else:
        assert np.abs(a).max() <= 2 and abs(a.mean()) < 4 * 0.88 / np.sqrt(a.size)

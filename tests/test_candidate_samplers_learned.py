"""tf.nn.learned_unigram_candidate_sampler (the LearnedUnigramCandidateSampler op): counts that start at 1 and
learn each run's true classes after its draw, against TensorFlow's expected counts and a statistical test."""

import numpy as np
import pytest
import tensorweave as tw


def tf1():
    tf = pytest.importorskip("tensorflow")
    tf.compat.v1.disable_eager_execution()
    return tf.compat.v1


def test_shapes_dtypes_range_and_aliases(graph):
    assert tw.random.learned_unigram_candidate_sampler is tw.nn.learned_unigram_candidate_sampler
    true = tw.constant([[0, 4], [7, 7], [2, 1]], tw.int64)
    sampled, true_count, sampled_count = tw.nn.learned_unigram_candidate_sampler(true, 2, 6, True, 9, seed=5)
    assert sampled.dtype == tw.int64 and true_count.dtype == tw.float32 and sampled_count.dtype == tw.float32
    assert sampled.shape.as_list() == [6] and true_count.shape.as_list() == [3, 2]
    assert sampled_count.shape.as_list() == [6]
    with tw.Session() as sess:
        for _ in range(20):
            s, t, e = sess.run([sampled, true_count, sampled_count])
            assert len(set(s.tolist())) == 6  # unique
            assert s.min() >= 0 and s.max() < 9
            assert t.shape == (3, 2) and e.shape == (6,)
            assert np.all((e > 0) & (e <= 1.0 + 1e-6)) and np.all((t > 0) & (t <= 1.0 + 1e-6))


def test_expected_counts_match_tensorflow_as_counts_are_learned():
    """Non-unique draws: each expected count is num_sampled * count(k) / sum(count), the counts learning each
    run's true classes after its draw: the same in TensorFlow and tensorweave, run after run."""
    tf = tf1()
    runs = [[[1], [1], [3]], [[4], [1], [0]], [[3], [3], [3]], [[2], [9], [1]]]
    range_max, num_sampled = 10, 7

    def collect(lib, graph):
        with graph.as_default():
            true = lib.placeholder(lib.int64, [3, 1])
            out = lib.nn.learned_unigram_candidate_sampler(true, 1, num_sampled, False, range_max, seed=11)
            with lib.Session() as sess:
                return [sess.run(out, {true: np.array(r)}) for r in runs]

    want = collect(tf, tf.Graph())
    got = collect(tw, tw.Graph())
    counts = np.ones(range_max)
    for (ws, wt, we), (gs, gt, ge), r in zip(want, got, runs):
        np.testing.assert_allclose(gt, wt, rtol=1e-6)
        np.testing.assert_allclose(gt, num_sampled * counts[np.array(r)] / counts.sum(), rtol=1e-6)
        np.testing.assert_allclose(ge, num_sampled * counts[gs] / counts.sum(), rtol=1e-6)
        np.testing.assert_allclose(we, num_sampled * counts[ws] / counts.sum(), rtol=1e-6)
        np.add.at(counts, np.array(r).ravel(), 1)


def test_unique_expected_counts_follow_the_tries_formula(graph):
    range_max, num_sampled = 6, 4
    true = tw.placeholder(tw.int64, [2, 1])
    out = tw.nn.learned_unigram_candidate_sampler(true, 1, num_sampled, True, range_max, seed=2)
    counts = np.ones(range_max)
    seen_retries = False
    with tw.Session() as sess:
        for step in range(10):
            r = np.array([[step % 3], [0]])
            s, t, e = sess.run(out, {true: r})
            p = counts / counts.sum()
            if np.allclose(e, num_sampled * p[s], rtol=1e-5):
                # No class drawn twice (tries == num_sampled): TF's p * num_sampled.
                np.testing.assert_allclose(t[:, 0], num_sampled * p[r[:, 0]], rtol=1e-5)
                retried = False
            else:
                # One number of tries explains every expected count: 1 - (1 - p) ** tries.
                # (A float32 count that rounds to 1 says nothing about tries: the others do.)
                unsaturated = e < 1.0
                tries = np.round(np.median(np.log1p(-e[unsaturated].astype(np.float64)) / np.log1p(-p[s][unsaturated])))
                assert tries > num_sampled
                np.testing.assert_allclose(e, -np.expm1(tries * np.log1p(-p[s])), rtol=1e-5)
                np.testing.assert_allclose(t[:, 0], -np.expm1(tries * np.log1p(-p[r[:, 0]])), rtol=1e-5)
                retried = True
            seen_retries = seen_retries or retried
            np.add.at(counts, r.ravel(), 1)
    assert seen_retries


def test_frequencies_follow_the_learned_distribution(graph):
    """After learning a skewed set of true classes, a large non-unique draw's class frequencies match
    count(k) / sum(count) (chi-square, fixed seed)."""
    range_max, num_sampled = 5, 20000
    true = tw.placeholder(tw.int64, [4, 1])
    out = tw.nn.learned_unigram_candidate_sampler(true, 1, num_sampled, False, range_max, seed=7)
    counts = np.ones(range_max)
    with tw.Session() as sess:
        for r in ([[2], [2], [2], [4]], [[2], [2], [0], [4]], [[2], [2], [2], [2]]):
            sess.run(out, {true: np.array(r)})
            np.add.at(counts, np.array(r).ravel(), 1)
        s, _, e = sess.run(out, {true: np.zeros([4, 1], np.int64)})
    expected = num_sampled * counts / counts.sum()
    observed = np.bincount(s, minlength=range_max)
    chi2 = ((observed - expected) ** 2 / expected).sum()
    assert chi2 < 18.5  # the 99.9% point of chi-square with 4 degrees of freedom
    np.testing.assert_allclose(e, expected[s], rtol=1e-5)
    assert observed.argmax() == 2


def test_classes_outside_the_range_are_an_error(graph):
    true = tw.placeholder(tw.int64, [1, 2])
    out = tw.nn.learned_unigram_candidate_sampler(true, 2, 3, False, 4, seed=1)
    with tw.Session() as sess:
        with pytest.raises(tw.errors.InvalidArgumentError, match=r"`true_candidate` out of range \[0, 4\), received 9"):
            sess.run(out, {true: [[9, -1]]})  # as TensorFlow's samplers
        _, t, _ = sess.run(out, {true: [[0, 3]]})
    np.testing.assert_allclose(t, [[3 / 4, 3 / 4]], rtol=1e-6)  # the failed step taught nothing: counts all 1


def test_errors_match_tensorflow():
    tf = tf1()
    for lib, graph_cls in ((tf, tf.Graph), (tw, tw.Graph)):
        with graph_cls().as_default():
            with pytest.raises(ValueError, match="range_max"):  # the attr's minimum, 1
                lib.nn.learned_unigram_candidate_sampler(lib.constant([[1]], lib.int64), 1, 2, False, 0)
            too_many = lib.nn.learned_unigram_candidate_sampler(lib.constant([[1]], lib.int64), 1, 6, True, 5)
            with lib.Session() as sess, pytest.raises(lib.errors.InvalidArgumentError, match="range is too small"):
                sess.run(too_many)
            true = lib.placeholder(lib.int64, [None, None])
            wrong_columns = lib.nn.learned_unigram_candidate_sampler(true, 1, 2, True, 5)
            with lib.Session() as sess, pytest.raises(lib.errors.InvalidArgumentError, match="true_classes"):
                sess.run(wrong_columns, {true: [[1, 2]]})
    # A static shape that contradicts num_true is an error at construction in tensorweave (TF: at run time).
    with tw.Graph().as_default(), pytest.raises(ValueError, match="num_true"):
        tw.nn.learned_unigram_candidate_sampler(tw.constant([[1, 2]], tw.int64), 1, 2, True, 5)


def test_no_gradient(graph):
    true = tw.constant([[1]], tw.int64)
    _, t, _ = tw.nn.learned_unigram_candidate_sampler(true, 1, 2, True, 5)
    assert t.op.type == "LearnedUnigramCandidateSampler"
    assert tw.gradients(t, [true]) == [None]

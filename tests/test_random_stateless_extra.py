"""tf.random.stateless_binomial and tf.random.stateless_parameterized_truncated_normal (issue 16).

Both follow TensorFlow's kernels on TensorFlow's stateless generator: the values are compared with TensorFlow's
bit for bit (tf.compat.v1 in a graph, skipped where TF is not installed), for each sampler (binomial inversion
and BTRS; the normal, uniform and exponential truncated-normal samplers), each dtype and broadcast parameters.
Independent checks: moments of large samples against the distributions' formulas, bounds, and the failure paths
(an InvalidArgumentError naming what was wrong, never a hang)."""

import numpy as np
import pytest
import tensorweave as tw

INF = float("inf")


@pytest.fixture(autouse=True)
def graph():
    with tw.Graph().as_default() as g:
        yield g


def _run(fetches):
    with tw.Session() as sess:
        return sess.run(fetches)


_TF1 = None


def _tf1():
    global _TF1
    if _TF1 is None:
        tf1 = pytest.importorskip("tensorflow.compat.v1")
        tf1.disable_eager_execution()
        _TF1 = tf1
    return _TF1


def _tf_run(build):
    """build(tf1) -> fetches, in a fresh TF graph on one intra-op thread (TF's truncated normal kernel could
    otherwise split its stream by shard; its values agreed on 16 threads too, up to 1e5 draws)."""
    tf1 = _tf1()
    config = tf1.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)
    with tf1.Graph().as_default() as g, tf1.Session(graph=g, config=config) as sess:
        return sess.run(build(tf1))


# ------------------------------------------------------------------------------------------- binomial
BINOMIAL_CASES = [
    # shape, seed, counts, probs, output_dtype
    ([5], [1, 2], 10.0, 0.3, "int32"),  # inversion (n p < 10)
    ([4, 3], [7, 11], [5.0, 50.0, 400.0], [0.2, 0.5, 0.9], "int32"),  # inversion, BTRS, flipped BTRS
    ([2, 3, 2], [-3, 2**40], [[100.0], [1000.0], [3.0]], [0.05, 0.97], "int64"),  # broadcast counts x probs
    ([6], [0, 0], [0.0, -2.0, 5.0, 5.0, 7.5, 1e6], [0.5, 0.5, 0.0, 1.0, 0.6, 1e-6], "float64"),
    ([3, 2], [5, 6], [20.0, 2000.0], [0.75, 0.4], "float32"),
    ([4], [9, 9], 30.0, 0.5, "float16"),
]


@pytest.mark.parametrize("shape,seed,counts,probs,out", BINOMIAL_CASES)
@pytest.mark.parametrize("param_dtype", ["float32", "float64"])
def test_binomial_matches_tensorflow(shape, seed, counts, probs, out, param_dtype):
    def build(m):
        probs_t = m.constant(probs, dtype=param_dtype)
        counts_t = m.constant(counts, dtype=param_dtype)
        return m.random.stateless_binomial(shape, seed, counts_t, probs_t, output_dtype=out)

    got = _run(build(tw))
    want = _tf_run(build)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_binomial_half_parameters_and_int64_seed_match_tensorflow():
    def build(m):
        seed = m.constant([123456789012, -5], m.int64)
        return m.random.stateless_binomial(
            [40, 2], seed, m.constant([30.0, 8.0], m.float16), m.constant([0.5, 0.25], m.float16)
        )

    np.testing.assert_array_equal(_run(build(tw)), _tf_run(build))


def test_binomial_defaults_and_names_as_tensorflow():
    x = tw.random.stateless_binomial([3], [1, 2], counts=10, probs=0.5)
    assert x.dtype == tw.int32 and x.shape.as_list() == [3]
    assert x.op.type == "StatelessRandomBinomial"
    assert x.op.get_attr("T") == tw.float32  # probs default float32; counts take probs' dtype
    assert x.name.startswith("stateless_random_binomial/")
    assert tw.gradients(tw.cast(x, tw.float32), []) == []


def test_binomial_moments():
    n = np.array([4.0, 25.0, 300.0])
    p = np.array([0.3, 0.7, 0.45])
    draws = _run(tw.random.stateless_binomial([20000, 3], [3, 4], n, p, output_dtype=tw.float64))
    assert draws.min() >= 0 and (draws <= n).all() and (draws == np.round(draws)).all()
    mean, var = n * p, n * p * (1 - p)
    assert (np.abs(draws.mean(axis=0) - mean) < 5 * np.sqrt(var / 20000)).all(), (draws.mean(axis=0), mean)
    np.testing.assert_allclose(draws.var(axis=0), var, rtol=0.06)


def test_binomial_is_a_function_of_the_seed():
    a = tw.random.stateless_binomial([50], [1, 2], 40.0, 0.5)
    b = tw.random.stateless_binomial([50], [1, 2], 40.0, 0.5)
    c = tw.random.stateless_binomial([50], [1, 3], 40.0, 0.5)
    va, vb, vc = _run([a, b, c])
    np.testing.assert_array_equal(va, vb)
    assert not np.array_equal(va, vc)


@pytest.mark.parametrize(
    "shape,counts,probs,out,message",
    [
        ([3], [1.0, 2.0], [0.1, 0.2, 0.3], tw.int32, "counts and probs must have compatible batch dimensions"),
        ([2, 3], [1.0, 2.0], 0.5, tw.int32, "must end with broadcasted shape"),
        ([2], float("nan"), 0.5, tw.int32, "counts must be finite"),
        ([2], INF, 0.5, tw.float32, "counts must be finite"),
        ([2], 5.0, float("nan"), tw.int64, "probs has a NaN"),
        ([2], 3e9, 1.0, tw.int32, "does not fit the output dtype int32"),
    ],
)
def test_binomial_bad_parameters_are_invalid_argument(shape, counts, probs, out, message):
    x = tw.random.stateless_binomial(shape, [1, 2], counts, probs, output_dtype=out)
    with pytest.raises(tw.errors.InvalidArgumentError, match=message):
        _run(x)


def test_binomial_nan_prob_gives_nan_for_a_float_output_as_tensorflow():
    def build(m):
        return m.random.stateless_binomial([2, 2], [1, 2], [5.0, 6.0], [float("nan"), 0.5], output_dtype=m.float32)

    got, want = _run(build(tw)), _tf_run(build)
    np.testing.assert_array_equal(got, want)
    assert np.isnan(got[:, 0]).all()


def test_binomial_bad_seed_and_shape():
    with pytest.raises(ValueError, match=r"seed must have shape \[2\]"):
        tw.random.stateless_binomial([2], [1, 2, 3], 5.0, 0.5)
    x = tw.random.stateless_binomial(tw.constant([-1, 2]), [1, 2], 5.0, 0.5)
    with pytest.raises(tw.errors.InvalidArgumentError):
        _run(x)
    assert _run(tw.random.stateless_binomial([0, 3], [1, 2], 5.0, 0.5)).shape == (0, 3)


# ---------------------------------------------------------------------------- parameterized truncated normal
PTN_CASES = [
    # shape, seed, means, stddevs, minvals, maxvals
    ([10], [1, 2], 0.0, 1.0, -2.0, 2.0),  # normal rejection sampler
    ([7, 3], [3, 4], [0.0, 1.0, -2.0], [1.0, 0.5, 2.0], [0.0, 1.1, -2.5], [0.1, 1.3, -1.0]),  # uniform proposals
    ([9, 2], [5, 6], 0.0, [1.0, 2.0], [3.0, 4.0], INF),  # exponential proposals, one-sided
    ([5, 2], [7, 8], [1.0, 0.0], 1.0, -INF, [-2.5, -4.0]),  # bounds flipped: upper tail of the reflection
    ([3, 2, 4], [-1, 2**35], [[0.5], [-0.5]], [0.3, 1.0, 2.0, 0.7], -1.0, [1.0, 5.0, 0.2, 3.0]),
    ([400], [11, 12], 2.0, 3.0, -1.0, 10.0),  # many blocks, one stream (TF on one intra-op thread)
]


@pytest.mark.parametrize("shape,seed,means,stddevs,minvals,maxvals", PTN_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_parameterized_truncated_normal_matches_tensorflow(shape, seed, means, stddevs, minvals, maxvals, dtype):
    def build(m):
        params = [m.constant(v, dtype=dtype) for v in (means, stddevs, minvals, maxvals)]
        return m.random.stateless_parameterized_truncated_normal(shape, seed, *params)

    got = _run(build(tw))
    want = _tf_run(build)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_parameterized_truncated_normal_defaults_and_names():
    x = tw.random.stateless_parameterized_truncated_normal([4, 2], [1, 2])
    assert x.dtype == tw.float32 and x.shape.as_list() == [4, 2]
    assert x.op.type == "StatelessParameterizedTruncatedNormal"
    assert x.name.startswith("stateless_parameterized_truncated_normal/")
    v = _run(x)
    assert (np.abs(v) <= 2.0).all()


def test_parameterized_truncated_normal_moments_and_bounds():
    stats = pytest.importorskip("scipy.stats")
    lo = np.array([-1.0, 0.5, 3.0, -INF], np.float32)
    hi = np.array([1.0, 0.7, INF, -2.0], np.float32)
    draws = _run(
        tw.random.stateless_parameterized_truncated_normal([20000, 4], [2, 3], 0.0, 1.0, lo, hi, name="ptn")
    ).astype(np.float64)
    assert (draws >= lo).all() and (draws <= hi).all()
    mean, var = stats.truncnorm.stats(lo, hi, moments="mv")
    assert (np.abs(draws.mean(axis=0) - mean) < 5 * np.sqrt(var / 20000)).all(), (draws.mean(axis=0), mean)
    np.testing.assert_allclose(draws.var(axis=0), var, rtol=0.06)


@pytest.mark.parametrize(
    "stddev,minval,maxval",
    [(0.0, -1.0, 1.0), (-1.0, -1.0, 1.0), (1.0, 1.0, 1.0), (1.0, 2.0, 1.0), (1.0, -INF, INF), (float("nan"), 0.0, 1.0)],
)
def test_parameterized_truncated_normal_invalid_parameters(stddev, minval, maxval):
    x = tw.random.stateless_parameterized_truncated_normal([3], [1, 2], 0.0, stddev, minval, maxval)
    with pytest.raises(tw.errors.InvalidArgumentError, match="Invalid parameters"):
        _run(x)


def test_parameterized_truncated_normal_bad_shapes():
    with pytest.raises(ValueError):  # the parameters do not broadcast: at graph construction
        tw.random.stateless_parameterized_truncated_normal([3], [1, 2], [0.0, 1.0], [1.0, 1.0, 1.0])
    x = tw.random.stateless_parameterized_truncated_normal([3, 2], [1, 2], [0.0, 1.0, 2.0])
    with pytest.raises(tw.errors.InvalidArgumentError, match="must end with broadcasted shape"):
        _run(x)
    # A NaN mean passes TF's check; the samplers then give up after their iteration limit (no hang).
    x = tw.random.stateless_parameterized_truncated_normal([3], [1, 2], float("nan"), 1.0, 0.0, 1.0)
    with pytest.raises(tw.errors.InternalError, match="failed to accept a sample"):
        _run(x)


def test_parameterized_truncated_normal_gradient_matches_tensorflow():
    def build(m):
        means = m.constant([0.3, -0.2], m.float64)
        stddevs = m.constant([1.2, 0.7], m.float64)
        minvals = m.constant(-1.0, m.float64)
        maxvals = m.constant([2.0, 0.5], m.float64)
        x = m.random.stateless_parameterized_truncated_normal([5, 2], [4, 5], means, stddevs, minvals, maxvals)
        weights = m.constant(np.arange(10.0).reshape(5, 2))
        return m.gradients(m.reduce_sum(x * weights), [means, stddevs, minvals, maxvals])

    got, want = _run(build(tw)), _tf_run(build)
    for g, w in zip(got, want):
        assert np.shape(g) == np.shape(w)
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)

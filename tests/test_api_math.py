"""tf.math and tw.random against numpy (the fidelity cases in tests/fidelity/cases_math.py and cases_random.py
compare the same names with TensorFlow itself): values, op types, and the errors of bad input."""

import math

import numpy as np
import pytest
import tensorweave as tw


def _run(t, feed=None):
    with tw.Session() as sess:
        return sess.run(t, feed)


@pytest.fixture(autouse=True)
def _graph():
    with tw.Graph().as_default():
        yield


@pytest.mark.parametrize(
    "fn, op_type, oracle",
    [
        (tw.is_nan, "IsNan", np.isnan),
        (tw.is_inf, "IsInf", np.isinf),
        (tw.is_finite, "IsFinite", np.isfinite),
    ],
)
def test_float_predicates(fn, op_type, oracle):
    x = np.array([0.0, -1.5, np.nan, np.inf, -np.inf], np.float32)
    y = fn(x)
    assert y.op.type == op_type and y.dtype == tw.bool
    np.testing.assert_array_equal(_run(y), oracle(x))
    with pytest.raises(TypeError):
        fn(tw.constant([1, 2]))


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
def test_truncatediv_truncatemod_round_toward_zero(dtype):
    x = np.array([-7, 7, -7, 7, 5], dtype)
    y = np.array([2, 2, -2, -2, 5], dtype)
    q, r = tw.truncatediv(x, y), tw.truncatemod(x, y)
    assert q.op.type == "TruncateDiv" and r.op.type == "TruncateMod"
    np.testing.assert_array_equal(_run(q), np.trunc(x / y).astype(dtype))
    np.testing.assert_array_equal(_run(r), np.fmod(x, y))


def test_integer_truncatediv_by_zero_is_an_invalid_argument():
    with pytest.raises(tw.errors.InvalidArgumentError, match="division by zero"):
        _run(tw.truncatediv(tw.constant([1, 2]), tw.constant([1, 0])))
    with pytest.raises(tw.errors.InvalidArgumentError, match="division by zero"):
        _run(tw.truncatemod(tw.constant([1, 2]), tw.constant([0, 1])))


def test_nextafter_steps_one_ulp():
    x = np.array([1.0, 0.0, -1.0])
    y = tw.math.nextafter(x, np.array([2.0, -1.0, -2.0]))
    assert y.op.type == "NextAfter"
    np.testing.assert_array_equal(_run(y), np.nextafter(x, [2.0, -1.0, -2.0]))


@pytest.mark.parametrize(
    "fn, oracle",
    [
        (tw.sin, np.sin),
        (tw.acosh, np.arccosh),
        (tw.atanh, np.arctanh),
        (tw.expm1, np.expm1),
        (tw.rint, np.rint),
        (tw.erf, np.vectorize(math.erf)),
        (tw.erfc, np.vectorize(math.erfc)),
        (tw.lgamma, np.vectorize(lambda v: math.lgamma(v) if v > 0 or v != int(v) else np.inf)),
    ],
)
def test_unary_values_against_numpy(fn, oracle):
    x = np.array([-2.5, -0.5, 0.25, 0.5, 1.0, 1.5, 3.0, 12.0])
    with np.errstate(invalid="ignore", divide="ignore"):
        np.testing.assert_allclose(_run(fn(x)), oracle(x), rtol=1e-12, atol=1e-12, equal_nan=True)


def test_digamma_against_the_derivative_of_lgamma():
    x = np.array([0.3, 1.0, 2.5, 7.0])
    h = 1e-6
    numeric = (np.vectorize(math.lgamma)(x + h) - np.vectorize(math.lgamma)(x - h)) / (2 * h)
    np.testing.assert_allclose(_run(tw.digamma(x)), numeric, rtol=1e-6)


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_cumsum_cumprod_against_numpy(exclusive, reverse, axis):
    x = np.arange(1, 13, dtype=np.float64).reshape(3, 4) / 3

    def oracle(op, identity):
        v = np.flip(x, axis) if reverse else x
        out = op(v, axis=axis)
        if exclusive:
            out = np.concatenate([np.full_like(np.take(out, [0], axis), identity), out], axis)
            out = np.take(out, range(x.shape[axis]), axis)
        return np.flip(out, axis) if reverse else out

    s = tw.cumsum(x, axis=axis, exclusive=exclusive, reverse=reverse)
    p = tw.cumprod(x, axis=axis, exclusive=exclusive, reverse=reverse)
    np.testing.assert_allclose(_run(s), oracle(np.cumsum, 0.0), rtol=1e-12)
    np.testing.assert_allclose(_run(p), oracle(np.cumprod, 1.0), rtol=1e-12)


def test_cumsum_bad_axis_fails_when_run():
    x = tw.placeholder(tw.float32)
    with pytest.raises(tw.errors.InvalidArgumentError, match="axis"):
        _run(tw.cumsum(x, axis=2), {x: np.ones([2, 2], np.float32)})


def test_reduce_logsumexp_is_stable():
    x = np.array([[1000.0, 1000.0], [-1000.0, -1001.0], [-np.inf, -np.inf]])
    got = _run(tw.reduce_logsumexp(x, axis=1))
    with np.errstate(divide="ignore"):
        expected = [1000.0 + math.log(2.0), -1000.0 + math.log1p(math.exp(-1.0)), -np.inf]
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_clip_by_norm_against_numpy():
    x = np.array([[3.0, 4.0], [6.0, 8.0]])
    np.testing.assert_allclose(_run(tw.clip_by_norm(x, 5.0)), x * 5.0 / np.linalg.norm(x))
    rows = _run(tw.clip_by_norm(x, 5.0, axes=[1]))
    np.testing.assert_allclose(rows, [[3.0, 4.0], [3.0, 4.0]])


def test_get_seed_rules():
    assert tw.get_seed(None) == (None, None)
    assert tw.get_seed(7) == (87654321, 7)
    tw.set_random_seed(0)
    assert tw.get_seed(0) == (0, 2**31 - 1)
    assert tw.get_seed(None) == (0, 2**31 - 1)  # the first op seed offset is 0
    assert tw.get_seed(None) == (0, 1)


def test_random_gamma_and_poisson_moments():
    g = tw.random_gamma([20000], [0.5, 3.0], beta=[1.0, 2.0], seed=3)
    p = tw.random_poisson([2.0, 40.0], [20000], seed=3)
    assert g.op.inputs[0].op.type == "RandomGamma" or "RandomGamma" in [o.type for o in g.graph.get_operations()]
    assert p.op.type == "RandomPoissonV2"
    gv, pv = _run([g, p])
    np.testing.assert_allclose(gv.mean(axis=0), [0.5, 1.5], rtol=0.05)
    np.testing.assert_allclose(gv.var(axis=0), [0.5, 0.75], rtol=0.1)
    np.testing.assert_allclose(pv.mean(axis=0), [2.0, 40.0], rtol=0.03)
    np.testing.assert_allclose(pv.var(axis=0), [2.0, 40.0], rtol=0.1)
    assert (pv == np.round(pv)).all()


def test_seeded_draws_repeat_in_fresh_sessions_and_differ_without_seed():
    tw.set_random_seed(11)
    draws = [tw.random_gamma([4], 2.0), tw.random_poisson(3.0, [4]), tw.random.categorical([[0.0, 0.0]], 8)]
    assert _run(draws)[0].tolist() == _run(draws)[0].tolist()
    for a, b in zip(_run(draws), _run(draws)):
        np.testing.assert_array_equal(a, b)
    with tw.Graph().as_default():
        unseeded = tw.random_gamma([64], 2.0)
        assert not np.array_equal(_run(unseeded), _run(unseeded))


def test_random_crop_is_a_slice_of_the_value():
    x = np.arange(60).reshape(3, 4, 5)
    crop = _run(tw.random_crop(x, [2, 2, 5], seed=4))
    found = any(np.array_equal(crop, x[i : i + 2, j : j + 2, :]) for i in range(2) for j in range(3))
    assert found
    with pytest.raises(tw.errors.InvalidArgumentError):
        tw.random_crop(x, [4, 1, 1])


@pytest.mark.parametrize(
    "fn, reduce, empty",
    [
        (tw.segment_sum, np.sum, 0.0),
        (tw.segment_mean, np.mean, 0.0),
        (tw.segment_prod, np.prod, 1.0),
        (tw.segment_min, np.min, 0.0),
        (tw.segment_max, np.max, 0.0),
    ],
)
def test_sorted_segments_against_numpy(fn, reduce, empty):
    rng = np.random.default_rng(1)
    data = rng.normal(size=(7, 3))
    ids = np.array([0, 0, 1, 4, 4, 4, 6])
    got = _run(fn(data, ids))
    expected = np.full((7, 3), empty)
    for s in np.unique(ids):
        expected[s] = reduce(data[ids == s], axis=0)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.parametrize(
    "fn, reduce, empty",
    [
        (tw.unsorted_segment_prod, np.prod, 1.0),
        (tw.unsorted_segment_min, np.min, np.finfo(np.float64).max),
        (tw.unsorted_segment_max, np.max, np.finfo(np.float64).min),
        (tw.unsorted_segment_mean, np.mean, 0.0),
    ],
)
def test_unsorted_segments_against_numpy(fn, reduce, empty):
    rng = np.random.default_rng(2)
    data = rng.normal(size=(6, 2))
    ids = np.array([3, -1, 0, 3, 0, 3])
    got = _run(fn(data, ids, 5))
    expected = np.full((5, 2), empty)
    for s in (0, 3):
        expected[s] = reduce(data[ids == s], axis=0)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize(
    "fn, reduce, empty",
    [(tw.segment_sum, np.sum, 0), (tw.segment_mean, np.mean, 0), (tw.segment_prod, np.prod, 1)],
)
def test_sorted_segments_of_complex_values(fn, reduce, empty, dtype):
    rng = np.random.default_rng(3)
    data = (rng.normal(size=(5, 2)) + 1j * rng.normal(size=(5, 2))).astype(dtype)
    ids = np.array([0, 0, 2, 2, 2])
    got = _run(fn(data, ids))
    expected = np.full((3, 2), empty, dtype)
    for s in (0, 2):
        expected[s] = reduce(data[ids == s], axis=0)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, expected, rtol=1e-5)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.uint32, np.uint64])
def test_segments_of_small_integers_wrap_as_the_dtype(dtype):
    data = np.array([100, 100, 7, 3], dtype)
    ids = [0, 0, 1, 1]
    np.testing.assert_array_equal(_run(tw.segment_sum(data, ids)), [np.add(data[0], data[1], dtype=dtype), 10])
    np.testing.assert_array_equal(_run(tw.segment_max(data, ids)), [100, 7])
    np.testing.assert_array_equal(_run(tw.unsorted_segment_min(data, [1, 1, 0, 0], 3)), [3, 100, np.iinfo(dtype).max])


def test_scatter_nd_of_complex_values_and_unordered_max():
    updates = np.array([1 + 1j, 2 - 1j, 1j], np.complex64)
    np.testing.assert_array_equal(_run(tw.scatter_nd([[0], [1], [0]], updates, [3])), [1 + 2j, 2 - 1j, 0])
    base = np.array([1j, 1, 2, 3], np.complex128)
    np.testing.assert_array_equal(_run(tw.tensor_scatter_nd_sub(base, [[3]], [1j])), [1j, 1, 2, 3 - 1j])
    with pytest.raises(tw.errors.InvalidArgumentError, match="complex numbers are not ordered"):
        _run(tw.tensor_scatter_nd_max(base, [[0]], [2j]))


def test_segment_ids_must_be_sorted_and_in_range():
    with pytest.raises(tw.errors.InvalidArgumentError, match="not increasing"):
        _run(tw.segment_sum([1.0, 2.0], [1, 0]))
    with pytest.raises(tw.errors.InvalidArgumentError, match="out of range"):
        _run(tw.unsorted_segment_max([1.0, 2.0], [0, 3], 2))


def test_selection_ops_against_numpy():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(4, 6))
    r = tw.nn.top_k(x, 3)
    assert r.values.op.type == "TopKV2"
    order = np.argsort(-x, axis=1, kind="stable")[:, :3]
    np.testing.assert_array_equal(_run(r.indices), order)
    np.testing.assert_array_equal(_run(tw.sort(x, axis=0)), np.sort(x, axis=0))
    np.testing.assert_array_equal(_run(tw.argsort(x)), np.argsort(x, axis=1, kind="stable"))
    hit = tw.nn.in_top_k(x.astype(np.float32), [0, 1, 2, 3], 2)
    assert hit.op.type == "InTopKV2"
    np.testing.assert_array_equal(_run(hit), [t in order[i, :2] for i, t in enumerate([0, 1, 2, 3])])


def test_unique_setdiff_bincount_against_numpy():
    x = np.array([5, 2, 5, 7, 2, 2])
    u = tw.unique_with_counts(x)
    assert u.y.op.type == "UniqueWithCounts" and tw.unique(x).y.op.type == "Unique"
    y, idx, count = _run(u)
    np.testing.assert_array_equal(y, [5, 2, 7])
    np.testing.assert_array_equal(y[idx], x)
    np.testing.assert_array_equal(count, [2, 3, 1])
    d = tw.setdiff1d(x, [2])
    assert d.out.op.type == "ListDiff"
    np.testing.assert_array_equal(_run(d.out), [5, 5, 7])
    b = tw.bincount(x)
    assert "Bincount" in [o.type for o in b.graph.get_operations()]
    np.testing.assert_array_equal(_run(b), np.bincount(x))
    with pytest.raises(tw.errors.InvalidArgumentError):
        _run(tw.bincount([1, -2]))


def test_v2_switches_refuse_and_are_not_counted_as_coverage():
    for switch in (tw.enable_eager_execution, tw.enable_v2_behavior, tw.enable_resource_variables):
        with pytest.raises(NotImplementedError, match="TF1"):
            switch()
        assert switch._tw_unsupported
    assert tw.disable_v2_behavior() is None and tw.executing_eagerly() is False


def test_histogram_fixed_width_against_numpy():
    rng = np.random.default_rng(3)
    v = rng.uniform(-1.0, 6.0, size=200)
    got = _run(tw.histogram_fixed_width(v, [0.0, 5.0], nbins=5))
    expected = np.histogram(np.clip(v, 0.0, 5.0 - 1e-9), bins=5, range=(0.0, 5.0))[0]
    np.testing.assert_array_equal(got, expected)


def test_stateless_ops_depend_on_the_seed_only():
    def draws(seed):
        with tw.Graph().as_default():
            ops_ = [
                tw.random.stateless_uniform([50], seed),
                tw.random.stateless_normal([50], seed),
                tw.random.stateless_truncated_normal([50], seed),
                tw.random.stateless_uniform([50], seed, minval=0, maxval=10, dtype=tw.int64),
                tw.random.stateless_categorical(np.zeros([1, 4], np.float32), 50, seed),
                tw.random.stateless_gamma([50], seed, alpha=2.0),
                tw.random.stateless_poisson([50], seed, lam=3.0),
            ]
            types = {op.type for op in tw.get_default_graph().get_operations()}
            return _run(ops_), types

    a, types = draws([1, 2])
    b, _ = draws([1, 2])
    c, _ = draws([1, 3])
    for name in (
        "StatelessRandomUniform",
        "StatelessRandomNormal",
        "StatelessTruncatedNormal",
        "StatelessRandomUniformInt",
        "StatelessMultinomial",
        "StatelessRandomGammaV2",
        "StatelessRandomPoisson",
    ):
        assert any(name in t for t in types), name
    for x, y, z in zip(a, b, c):
        np.testing.assert_array_equal(x, y)
        assert not np.array_equal(x, z)
    assert np.abs(a[2]).max() <= 2.0 and a[3].min() >= 0 and a[3].max() < 10
    np.testing.assert_allclose([a[0].mean(), a[1].mean()], [0.5, 0.0], atol=0.35)

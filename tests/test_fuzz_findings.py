"""The kernel fuzzer's findings of 2026-11-26 (core/fuzz/pending_crashes.txt
and the long runs), each as the error or the value a TF1 program observes.

Each of these crashed (UBSan: signed overflow, a null vector index; an
uncaught std::bad_alloc / length_error) or hung. The
expected errors are TensorFlow 1's classes (tf.compat.v1 on the same
programs); the expected values are numpy's or TensorFlow's (noted where TF
itself crashes or hangs). The regression graphs are in core/fuzz/regressions.
"""

import numpy as np
import pytest
import tensorweave as tw

INVALID = tw.errors.InvalidArgumentError
OOM = tw.errors.ResourceExhaustedError
I64_MAX = 2**63 - 1
I64_MIN = -(2**63)


def _run_error(sess, fetch, feeds, error_class, node_name, *fragments):
    """Runs `fetch`, asserting `error_class` whose message names the node and
    holds each fragment."""
    with pytest.raises(error_class) as info:
        sess.run(fetch, feeds)
    msg = str(info.value)
    assert type(info.value) is error_class, msg
    assert f"[[node {node_name}" in msg, msg
    for fragment in fragments:
        assert fragment in msg, msg
    return msg


# --- SparseSegmentSum/Mean/SqrtN (+WithNumSegments) ---------------------------


def _np_sparse_segment(kind, data, indices, ids, num_segments):
    out = np.zeros((num_segments,) + data.shape[1:], data.dtype)
    for s in range(num_segments):
        rows = [data[i] for i, sid in zip(indices, ids) if sid == s]
        if not rows:
            continue
        total = np.sum(rows, axis=0)
        if kind == "mean":
            total = total / len(rows)
        elif kind == "sqrt_n":
            total = total / np.sqrt(len(rows))
        out[s] = total
    return out


@pytest.mark.parametrize("kind", ["sum", "mean", "sqrt_n"])
@pytest.mark.parametrize("with_num", [False, True])
def test_sparse_segment_of_unknown_rank_inputs(sess, kind, with_num):
    # Indices and ids of unknown rank: the shape function read dim 0 of an
    # empty shape (UBSan: reference binding to null). Now it builds, and the
    # values are numpy's (segments of 3, 1 and 0 rows: the mean's and
    # sqrt_n's count per segment).
    fn = {
        "sum": tw.sparse.segment_sum,
        "mean": tw.sparse.segment_mean,
        "sqrt_n": tw.sparse.segment_sqrt_n,
    }[kind]
    data = np.arange(12, dtype=np.float32).reshape(4, 3) - 5
    indices = tw.placeholder(tw.int32)
    ids = tw.placeholder(tw.int64)
    kwargs = {"num_segments": 5} if with_num else {}
    out = fn(data, indices, ids, **kwargs)
    idx, sid = [3, 0, 1, 2], [0, 0, 0, 2]
    got = sess.run(out, {indices: idx, ids: sid})
    want = _np_sparse_segment(kind, data, idx, sid, 5 if with_num else 3)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_sparse_segment_negative_num_segments_is_an_error():
    with pytest.raises(ValueError, match="Cannot specify a negative value for num_segments"):
        tw.sparse.segment_sum(tw.zeros([2, 2]), [0], [0], num_segments=-1)


def test_sparse_segment_id_int64_max_is_invalid_argument(sess):
    # seg.back() + 1 overflowed int64.
    ids = tw.placeholder(tw.int64, [None])
    out = tw.sparse.segment_sum(tw.zeros([2, 0]), [0], ids, name="sss")
    _run_error(sess, out, {ids: [I64_MAX]}, INVALID, "sss", str(I64_MAX))


def test_sparse_segment_mean_with_huge_num_segments_of_empty_rows(sess):
    # A table of num_segments counts was allocated for a [2^40, 0] output
    # (std::bad_alloc); the output is empty, as in TF.
    out = tw.sparse.segment_mean(tw.zeros([2, 0]), [0, 1], [0, 7], num_segments=2**40)
    assert sess.run(out).shape == (2**40, 0)


# --- SegmentSum/Mean/Prod/Min/Max, UnsortedSegment* ---------------------------


@pytest.mark.parametrize("fn", [tw.math.segment_sum, tw.math.segment_prod, tw.math.segment_max])
def test_segment_id_int64_max_is_invalid_argument(sess, fn):
    # ids.back() + 1 overflowed int64 (UBSan); TF: InvalidArgument.
    ids = tw.placeholder(tw.int64, [None])
    out = fn(tw.zeros([1, 0]), ids, name="seg")
    _run_error(sess, out, {ids: [I64_MAX]}, INVALID, "seg", str(I64_MAX))


@pytest.mark.parametrize("fn", [tw.math.segment_sum, tw.math.segment_mean, tw.math.segment_min, tw.math.segment_prod])
def test_segment_of_empty_rows_and_a_huge_id(sess, fn):
    # A count table of 2^40 + 1 entries and a loop over it (abort, hang);
    # TF gives the empty [2^40 + 1, 0] output.
    out = fn(tw.zeros([1, 0]), tw.constant([2**40], tw.int64))
    assert sess.run(out).shape == (2**40 + 1, 0)


@pytest.mark.parametrize(
    "fn",
    [
        tw.math.unsorted_segment_prod,
        tw.math.unsorted_segment_min,
        tw.math.unsorted_segment_max,
        tw.math.unsorted_segment_sum,
    ],
)
def test_unsorted_segment_of_empty_rows_and_huge_num_segments(sess, fn):
    # UnsortedSegmentProd aborted (std::bad_alloc of a 2^40 count table).
    out = fn(tw.zeros([3, 0]), [0, 5, 2], tw.constant(2**40, tw.int64))
    assert sess.run(out).shape == (2**40, 0)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_segment_mean_of_integers_truncates_as_tensorflow(sess, dtype):
    # The integer mean divides in int64 now (the count as the dtype could
    # wrap); TF 2.21 gives [-2, 5]: the sum over the count, toward zero.
    out = tw.math.segment_mean(np.array([-7, 2, 5], dtype), [0, 0, 1])
    got = sess.run(out)
    np.testing.assert_array_equal(got, [-2, 5])
    assert got.dtype == dtype


def test_segment_values_still_match_numpy(sess):
    data = np.array([[1, -2], [3, 4], [-5, 6], [7, 8]], np.float32)
    ids = np.array([0, 0, 2, 2])
    got = sess.run(
        [
            tw.math.segment_sum(data, ids),
            tw.math.segment_mean(data, ids),
            tw.math.segment_max(data, ids),
            tw.math.unsorted_segment_prod(data, [1, 0, 1, -1], 3),
        ]
    )
    np.testing.assert_allclose(got[0], [[4, 2], [0, 0], [2, 14]])
    np.testing.assert_allclose(got[1], [[2, 1], [0, 0], [1, 7]])
    np.testing.assert_allclose(got[2], [[3, 4], [0, 0], [7, 8]])
    np.testing.assert_allclose(got[3], [[3, 4], [-5, -12], [1, 1]])


# --- SpaceToDepth / DepthToSpace -------------------------------------------------


@pytest.mark.parametrize("fn", [tw.space_to_depth, tw.depth_to_space])
def test_space_depth_block_size_beyond_int32_is_an_error(fn):
    # block_size * block_size overflowed int64 in the shape function; TF
    # reads block_size as an int32: "out of range for an int32".
    with pytest.raises(ValueError, match="out of range for an int32"):
        fn(tw.zeros([1, 0, 0, 1]), 2**40)


def test_depth_to_space_output_dims_overflow_is_invalid_argument(sess):
    # h * block_size overflowed in the kernel (an empty input of huge dims).
    x = tw.placeholder(tw.float32)
    out = tw.depth_to_space(x, 2**31 - 1, name="d2s")
    feed = np.zeros([1, 2**40, 1, 0], np.float32)
    _run_error(sess, out, {x: feed}, INVALID, "d2s", "overflows int64")


def test_space_to_depth_values_match_numpy(sess):
    x = np.arange(2 * 4 * 6 * 3, dtype=np.float32).reshape(2, 4, 6, 3)
    b = 2
    want = x.reshape(2, 2, b, 3, b, 3).transpose(0, 1, 3, 2, 4, 5).reshape(2, 2, 3, 12)
    np.testing.assert_array_equal(sess.run(tw.space_to_depth(x, b)), want)
    np.testing.assert_array_equal(sess.run(tw.depth_to_space(want, b)), x)


# --- DynamicStitch, Cross, UnravelIndex -------------------------------------------


def test_dynamic_stitch_index_int32_max_shape_in_int64():
    # max(index) + 1 overflowed int32 in the shape function (UBSan).
    out = tw.dynamic_stitch([tw.constant([2**31 - 1, 0])], [tw.constant([1.0, 2.0])])
    assert out.shape.as_list() == [2**31]


def test_dynamic_stitch_values_match_numpy(sess):
    out = tw.dynamic_stitch([[0, 4], [3, 1]], [[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(sess.run(out), [1, 4, 0, 3, 2])


def test_cross_of_int64_extremes_wraps_as_tensorflow(sess):
    # Signed overflow in the kernel (UBSan); TF 2.21 gives these values.
    a = tw.constant([2**62, 3, 2**62], tw.int64)
    b = tw.constant([5, 2**62, 7], tw.int64)
    np.testing.assert_array_equal(sess.run(tw.linalg.cross(a, b)), [21, I64_MIN, -15])
    f = sess.run(tw.linalg.cross([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]))
    np.testing.assert_allclose(f, np.cross([1, 2, 3], [4, 5, 6]))


def test_unravel_index_dims_product_overflow_is_invalid_argument(sess):
    # The product of dims overflowed int64 (UBSan); TF: InvalidArgument.
    dims = tw.placeholder(tw.int64, [None])
    out = tw.unravel_index(tw.constant(2, tw.int64), dims, name="unravel")
    _run_error(sess, out, {dims: [2, 2**62, 2**32]}, INVALID, "unravel", "overflows int64")
    np.testing.assert_array_equal(sess.run(out, {dims: [3, 4, 5]}), np.unravel_index(2, [3, 4, 5]))


# --- RandomPoissonV2, stateless draws -------------------------------------------


def test_random_poisson_of_a_huge_shape_with_no_rates_is_empty(sess):
    # A loop of 2^40 empty rows (over 20 s: the fuzzer's hang). TF 2.21
    # gives the same (2^20, 2^20, 0).
    out = tw.random.poisson(tw.zeros([0]), [2**20, 2**20], seed=1)
    assert sess.run(out).shape == (2**20, 2**20, 0)


def test_random_poisson_large_rates_have_the_right_moments(sess):
    # rate >= 10 draws by transformed rejection (PTRS), O(1) per draw.
    rates = np.array([15.0, 1e4, 1e9], np.float64)
    draws = sess.run(tw.random.poisson(rates, [4000], dtype=tw.float64, seed=7))
    mean, var = draws.mean(axis=0), draws.var(axis=0)
    # Poisson: mean = var = rate; 6 standard errors of each.
    assert np.all(np.abs(mean - rates) <= 6 * np.sqrt(rates / 4000)), mean
    np.testing.assert_allclose(var, rates, rtol=6 * np.sqrt(2.0 / 4000))
    assert np.all(draws == np.floor(draws))


@pytest.mark.parametrize("rate", [float("nan"), 1e30])
def test_random_poisson_integer_draw_that_does_not_fit_is_invalid_argument(sess, rate):
    # A NaN or 1e30 draw converted to int64 (undefined). TF 2.21 hangs on
    # NaN and 1e30; here it is an error naming the node.
    out = tw.random.poisson([rate], [2], dtype=tw.int64, seed=1, name="pois")
    _run_error(sess, out, None, INVALID, "pois", "does not fit the output dtype int64")


def test_random_poisson_negative_rate_draws_zero_as_tensorflow(sess):
    out = tw.random.poisson([-1.0, -np.inf], [2], dtype=tw.int64, seed=1)
    np.testing.assert_array_equal(sess.run(out), [[0, 0], [0, 0]])


# --- FixedUnigramCandidateSampler, stateless ops -----------------------------------


def test_fixed_unigram_negative_reserved_ids_is_invalid_argument(sess):
    # weights_.assign(-1) threw std::length_error (abort).
    true = tw.constant([[1]], tw.int64)
    out = tw.nn.fixed_unigram_candidate_sampler(
        true, 1, 2, False, range_max=2, unigrams=[1.0, 1.0, 1.0], num_reserved_ids=-1
    )
    with pytest.raises(INVALID, match="num_reserved_ids must be >= 0"):
        sess.run(out[0])


def test_fixed_unigram_huge_range_is_resource_exhausted(sess):
    true = tw.constant([[1]], tw.int64)
    out = tw.nn.fixed_unigram_candidate_sampler(
        true, 1, 1, False, range_max=2**62, unigrams=[1.0], num_reserved_ids=2**62 - 1
    )
    with pytest.raises(OOM, match="range_max"):
        sess.run(out[0])


def test_stateless_uniform_int_over_the_whole_int64_range(sess):
    # maxval - minval overflowed int64 (UBSan).
    out = tw.random.stateless_uniform([1000], seed=[1, 2], minval=I64_MIN, maxval=I64_MAX, dtype=tw.int64)
    v = sess.run(out)
    assert v.dtype == np.int64 and v.shape == (1000,)
    # Uniform over 2^64 values: both signs, and spread (not one value).
    assert (v < 0).sum() > 400 and (v > 0).sum() > 400
    assert len(np.unique(v)) == 1000


def test_stateless_categorical_of_no_rows_and_huge_classes(sess):
    # A cdf of 2^40 doubles for logits of shape [0, 2^40] (std::bad_alloc).
    out = tw.random.stateless_categorical(tw.zeros([0, 2**40]), 5, seed=[1, 2])
    assert sess.run(out).shape == (0, 5)


def test_placeholder_with_default_checks_a_run_time_default_against_its_shape(sess):
    # Found by the kernel fuzzer: the shapes inferred downstream trust the shape attr.
    n = tw.placeholder(tw.int32, [])
    value = tw.placeholder_with_default(tw.zeros(tw.stack([n, 3])), [2, None])
    assert sess.run(value, {n: 2}).shape == (2, 3)
    assert sess.run(value, {n: 4, value: np.ones([2, 7])}).shape == (2, 7)  # a feed replaces the default
    with pytest.raises(tw.errors.InvalidArgumentError, match=r"default value's shape \[4,3\] does not match"):
        sess.run(value, {n: 4})

"""The bulk kernels benchmarks/kernel_ops.py times (resize_bilinear, top_k, gather_nd, unsorted_segment_sum,
cumsum) against numpy oracles, at sizes that run them on the intra-op thread pool (several parts) as well as
inline: the interpolated-row cache of ResizeBilinear across output rows and images, top_k's heap on rows with
many ties and on sorted rows (its worst case), and GatherNd's one-pass index check. The fidelity cases
(tests/fidelity) compare the same names with TensorFlow itself."""

import numpy as np
import pytest
import tensorweave as tw


def _run(t, feed=None):
    config = tw.ConfigProto(intra_op_parallelism_threads=2, inter_op_parallelism_threads=2)
    with tw.Session(config=config) as sess:
        return sess.run(t, feed)


@pytest.fixture(autouse=True)
def _graph():
    with tw.Graph().as_default():
        yield


def _lerp_table(out_size, in_size, align_corners, half_pixel):
    if align_corners and out_size > 1:
        scale = np.float32(in_size - 1) / np.float32(out_size - 1)
    else:
        scale = np.float32(in_size) / np.float32(out_size)
    i = np.arange(out_size, dtype=np.float32)
    pos = (i + np.float32(0.5)) * scale - np.float32(0.5) if half_pixel else i * scale
    floor = np.floor(pos)
    lower = np.maximum(floor, 0).astype(np.int64)
    upper = np.minimum(np.ceil(pos), in_size - 1).astype(np.int64)
    return lower, upper, (pos - floor).astype(np.float32)


def _resize_bilinear(x, out_h, out_w, align_corners=False, half_pixel=False):
    """TF's ResizeBilinear: horizontal lerps of the two source rows, then the vertical lerp, each product and sum
    rounded to float32 (TF's CPU kernel agrees with this bit for bit)."""
    x = x.astype(np.float32)
    yl, yu, yw = _lerp_table(out_h, x.shape[1], align_corners, half_pixel)
    xl, xu, xw = _lerp_table(out_w, x.shape[2], align_corners, half_pixel)
    xw = xw[None, None, :, None]
    top = x[:, yl][:, :, xl] + (x[:, yl][:, :, xu] - x[:, yl][:, :, xl]) * xw
    bottom = x[:, yu][:, :, xl] + (x[:, yu][:, :, xu] - x[:, yu][:, :, xl]) * xw
    return top + (bottom - top) * yw[None, :, None, None]


@pytest.mark.parametrize(
    "shape, size",
    [
        ((3, 20, 30, 5), (37, 23)),  # up in height, down in width; several parts
        ((4, 17, 9, 3), (40, 40)),  # upscale: output rows share source rows
        ((2, 64, 48, 1), (16, 13)),  # downscale
        ((2, 5, 7, 4), (5, 7)),  # same size
        ((1, 1, 1, 2), (3, 4)),  # a single source pixel
        ((5, 30, 30, 3), (1, 1)),
    ],
)
@pytest.mark.parametrize("mode", ["legacy", "align_corners", "half_pixel"])
def test_resize_bilinear_matches_the_formula(shape, size, mode):
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    kwargs = {"align_corners": mode == "align_corners", "half_pixel_centers": mode == "half_pixel"}
    got = _run(tw.image.resize_bilinear(tw.constant(x), list(size), **kwargs))
    want = _resize_bilinear(x, *size, align_corners=kwargs["align_corners"], half_pixel=mode == "half_pixel")
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)  # TF's rounding: no fused multiply-add


def test_resize_bilinear_of_integers_and_of_a_fed_batch():
    x = np.random.default_rng(2).integers(0, 255, size=(6, 31, 22, 3)).astype(np.uint8)
    p = tw.placeholder(tw.uint8, [None, None, None, 3])
    got = _run(tw.image.resize_bilinear(p, [45, 45], half_pixel_centers=True), {p: x})
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, _resize_bilinear(x, 45, 45, half_pixel=True))


def _top_k(x, k):
    """Largest first; of equal values the lower index first (a stable sort of the negated values)."""
    order = np.argsort(-x, axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, order, axis=-1), order.astype(np.int32)


@pytest.mark.parametrize("k", [0, 1, 7, 100, 200])
@pytest.mark.parametrize("kind", ["ties", "ascending", "descending", "normal"])
def test_top_k_matches_a_stable_sort(k, kind):
    rng = np.random.default_rng(3)
    if kind == "ties":
        x = rng.integers(0, 5, size=(300, 200)).astype(np.float32)
    elif kind == "ascending":
        x = np.tile(np.arange(200, dtype=np.float32), (300, 1))
    elif kind == "descending":
        x = np.tile(np.arange(200, 0, -1, dtype=np.float32), (300, 1))
    else:
        x = rng.standard_normal((300, 200)).astype(np.float32)
    values, indices = _run(tw.nn.top_k(tw.constant(x), k))
    want_values, want_indices = _top_k(x, k)
    np.testing.assert_array_equal(values, want_values)
    np.testing.assert_array_equal(indices, want_indices)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float64])
def test_top_k_of_other_dtypes_and_ranks(dtype):
    x = np.random.default_rng(4).integers(-3, 3, size=(4, 5, 50)).astype(dtype)
    values, indices = _run(tw.nn.top_k(tw.constant(x), 9))
    want_values, want_indices = _top_k(x, 9)
    assert values.dtype == dtype
    np.testing.assert_array_equal(values, want_values)
    np.testing.assert_array_equal(indices, want_indices)


def test_top_k_errors():
    k = tw.placeholder(tw.int32, [])
    top = tw.nn.top_k(tw.constant(np.zeros((2, 3), np.float32)), k)
    with pytest.raises(tw.errors.InvalidArgumentError, match="at least k columns"):
        _run(top, {k: 4})
    with pytest.raises(tw.errors.InvalidArgumentError, match="k >= 0"):
        _run(top, {k: -1})


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_gather_nd_matches_numpy(index_dtype, depth):
    rng = np.random.default_rng(5)
    params = rng.standard_normal((40, 30, 8)).astype(np.float32)
    indices = np.stack([rng.integers(0, params.shape[d], size=(500, 7)) for d in range(depth)], -1)
    got = _run(tw.gather_nd(tw.constant(params), tw.constant(indices.astype(index_dtype))))
    want = params[tuple(indices[..., d] for d in range(depth))]
    np.testing.assert_array_equal(got, want)


def test_gather_nd_of_strings_and_an_empty_index_row():
    params = np.array([["a", "b"], ["c", "d"]], dtype=object)
    got = _run(tw.gather_nd(tw.constant(params), tw.constant([[1, 0], [0, 1]])))
    assert [s.decode() for s in got] == ["c", "b"]
    whole = _run(tw.gather_nd(tw.constant(np.arange(6.0).reshape(2, 3)), tw.constant(np.zeros((2, 0), np.int32))))
    np.testing.assert_array_equal(whole, np.tile(np.arange(6.0).reshape(1, 2, 3), (2, 1, 1)))


@pytest.mark.parametrize("bad, value", [(-1, r"\[-1, 2\]"), (40, r"\[40, 2\]")])
def test_gather_nd_names_the_first_bad_index_row(bad, value):
    params = np.zeros((40, 30, 8), np.float32)
    indices = np.ones((50000, 2), np.int64)
    indices[31337] = [bad, 2]
    indices[40000] = [0, 99]
    with pytest.raises(tw.errors.InvalidArgumentError, match=r"indices\[31337\] = " + value + " does not index into"):
        _run(tw.gather_nd(tw.constant(params), tw.constant(indices)))


def test_unsorted_segment_sum_and_cumsum_match_numpy():
    rng = np.random.default_rng(6)
    data = rng.standard_normal((5000, 16)).astype(np.float32)
    ids = rng.integers(-1, 100, size=5000).astype(np.int32)
    want = np.zeros((100, 16), np.float32)
    for i, s in enumerate(ids):
        if s >= 0:
            want[s] += data[i]
    got = _run(tw.math.unsorted_segment_sum(tw.constant(data), tw.constant(ids), 100))
    np.testing.assert_array_equal(got, want)
    x = rng.standard_normal((300, 200)).astype(np.float32)
    for axis in (0, 1):
        got = _run(tw.cumsum(tw.constant(x), axis=axis, exclusive=True, reverse=True))
        flipped = np.flip(x, axis)
        want = np.flip(np.cumsum(flipped, axis=axis, dtype=np.float32) - flipped, axis)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)

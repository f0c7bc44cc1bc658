"""Bad shapes and indices given to ops: TensorFlow's error class (tensorflow.compat.v1 on the same program where
it has the API) with a message naming the node and what was wrong, never a crash, an OOM kill or a silently
wrong value."""

import numpy as np
import pytest
import tensorweave as tw

from tests.bad_inputs_util import error_of, expect_error, need_tf

OOM = tw.errors.ResourceExhaustedError
INVALID = tw.errors.InvalidArgumentError


# --- shapes that overflow int32 or int64 -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "build",
    [
        lambda tf: tf.zeros([2**33, 2]),
        lambda tf: tf.ones([2**33, 2]),
        lambda tf: tf.fill([2**33, 2], 1.0),
        lambda tf: tf.broadcast_to(1.0, [2**33, 2]),
        lambda tf: tf.random_uniform([2**33, 2]),
    ],
    ids=["zeros", "ones", "fill", "broadcast_to", "random_uniform"],
)
def test_shape_beyond_int32_is_not_wrapped(build):
    # 2**33 went into an int32 shape constant as 0: an empty (0, 2) tensor instead of TF's OOM error
    # (tensorflow.compat.v1 2.21 raises ResourceExhaustedError for each; not asked here: it takes 10-20 s each).
    error = expect_error(tw, build, OOM, "[8589934592,2]", oracle=False)
    assert "[[node " in str(error)


def test_zeros_with_more_elements_than_int64_is_invalid_argument(graph):
    # np.prod wrapped 2**62 * 4 to 0 (TF 2.21 itself returns an empty tensor here).
    for shape, dtype in (([2**62, 4], tw.int8), ([2**40, 2**40], tw.float32)):
        error = error_of(tw, lambda tf: tf.zeros(shape, dtype))
        assert isinstance(error, INVALID) and "has too many elements" in str(error), repr(error)


def test_reshape_to_a_huge_constant_shape_names_it():
    # The message showed the wrapped shape [0,0,0].
    error = error_of(tw, lambda tf: tf.reshape(tf.zeros([4]), [2**40, 2**40, 0]))
    assert isinstance(error, ValueError) and "[1099511627776,1099511627776,0]" in str(error), repr(error)


def test_shape_of_tensors_and_big_numbers_is_int64(sess):
    n = tw.placeholder(tw.int32, [])
    out = tw.fill([n, 2**33], 1.0)
    with pytest.raises(OOM, match=r"\[1,8589934592\]"):
        sess.run(out, {n: 1})


@pytest.mark.parametrize(
    "build,fragment",
    [
        (lambda tf: tf.tile(tf.zeros([2, 2]), _run_time(tf, [2**40, 2**40])), "too many elements"),
        (lambda tf: tf.fill(_run_time(tf, [2**40, 2**40, 2**40]), 1.0), "too many elements"),
        (lambda tf: tf.reshape(tf.zeros([4]), _run_time(tf, [2**40, 2**40, 4])), "2**63 - 1"),
        (lambda tf: tf.pad(tf.zeros([2]), _run_time(tf, [[2**62, 2**62]])), "does not fit in int64"),
    ],
    ids=["tile", "fill", "reshape", "pad"],
)
def test_int64_overflow_of_a_run_time_shape(build, fragment):
    expect_error(tw, build, INVALID, fragment)


def _run_time(tf, value, dtype="int64"):
    """`value` known only when the graph runs (neither side folds it into a construction-time error)."""
    value = np.asarray(value, dtype)
    return tf.placeholder_with_default(value, value.shape)


def test_tile_to_more_bytes_than_memory_is_resource_exhausted():
    def build(tf):
        m = tf.placeholder(tf.int32, [2], name="m")
        return tf.tile(tf.zeros([1, 1], tf.int8), m)

    expect_error(
        tw,
        build,
        OOM,
        "OOM when allocating",
        oracle=False,
        feed=lambda t: {t.graph.get_tensor_by_name("m:0"): [2**31 - 1] * 2},
    )


def test_fill_with_a_negative_dimension():
    def build(tf):
        s = tf.placeholder(tf.int32, [2], name="s")
        return tf.fill(s, 1.0)

    expect_error(tw, build, INVALID, "-1", feed=lambda t: {t.graph.get_tensor_by_name("s:0"): [-1, 3]})


# --- sparse indices ---------------------------------------------------------------------------------------------


def _fed_indices(tf, make, dtype="int64"):
    return make(tf, tf.placeholder(getattr(tf, dtype), name="i"))


def _feed(value):
    return lambda t: {t.graph.get_tensor_by_name("i:0"): value}


@pytest.mark.parametrize(
    "value,fragment", [([2, 0], "indices[1] = [0] is out of order"), ([1, 1], "indices[1] = [1] is repeated")]
)
def test_sparse_to_dense_unsorted_or_repeated(value, fragment):
    build = lambda tf: _fed_indices(tf, lambda tf, i: tf.sparse_to_dense(i, [3], 1.0))  # noqa: E731
    error = expect_error(tw, build, INVALID, fragment, feed=_feed(value))
    assert "[[node SparseToDense" in str(error)


def test_sparse_tensor_to_dense_out_of_order():
    def build(tf):
        return _fed_indices(tf, lambda tf, i: tf.sparse.to_dense(tf.SparseTensor(i, [1.0, 2.0], [2, 2])))

    expect_error(tw, build, INVALID, "indices[1] = [0,0] is out of order", feed=_feed([[1, 0], [0, 0]]))


def test_sparse_to_dense_of_indices_of_unknown_rank(sess):
    # A vector of indices fed to an unknown-rank placeholder was read as one 2-D index.
    i = tw.placeholder(tw.int64)
    out = tw.sparse_to_dense(i, [4], 5.0)
    np.testing.assert_array_equal(sess.run(out, {i: [0, 2]}), [5, 0, 5, 0])
    np.testing.assert_array_equal(sess.run(out, {i: 3}), [0, 0, 0, 5])
    i2 = tw.placeholder(tw.int64)
    np.testing.assert_array_equal(
        sess.run(tw.sparse_to_dense(i2, [2, 2], 1.0), {i2: [[0, 1], [1, 0]]}), [[0, 1], [1, 0]]
    )


@pytest.mark.parametrize("row", [-1, 2])
def test_sparse_dense_matmul_row_out_of_range(row):
    # A negative row was silently dropped (zeros).
    def build(tf):
        return _fed_indices(
            tf, lambda tf, i: tf.sparse.sparse_dense_matmul(tf.SparseTensor(i, [1.0], [2, 2]), tf.ones([2, 2]))
        )

    expect_error(tw, build, INVALID, "out of bounds", f"[{row}, 0]", feed=_feed([[row, 0]]))


def test_sparse_fill_empty_rows_negative_row():
    # A negative row was silently kept in the result.
    def build(tf):
        return _fed_indices(
            tf, lambda tf, i: tf.sparse.fill_empty_rows(tf.SparseTensor(i, [1.0], [2, 2]), 0.0)[0].values
        )

    expect_error(tw, build, INVALID, "out of bounds", feed=_feed([[-9, 0]]))


# --- dense indices ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make,value,fragment",
    [
        (lambda tf, i: tf.gather(tf.zeros([4, 3]), i), [1, 7], "indices[1] = 7 is not in [0, 4)"),
        (lambda tf, i: tf.gather_nd(tf.zeros([4, 3]), i), [[-1, 0]], "indices[0] = [-1, 0] does not index"),
        (lambda tf, i: tf.scatter_nd(i, [1.0], [4]), [[9]], "indices[0] = [9] does not index"),
        (lambda tf, i: tf.tensor_scatter_nd_update(tf.zeros([4]), i, [1.0]), [[4]], "indices[0] = [4]"),
        (lambda tf, i: tf.segment_sum([1.0, 2.0, 3.0], i), [1, 0, 1], "not increasing"),
        (lambda tf, i: tf.unsorted_segment_sum([1.0, 2.0, 3.0], i, 2), [0, 5, 1], "segment_ids[1] = 5"),
        (lambda tf, i: tf.nn.embedding_lookup(tf.zeros([4, 3]), i), [-1], "indices[0] = -1 is not in [0, 4)"),
        (lambda tf, i: tf.math.bincount(i), [1, -1], "must be non-negative"),
    ],
    ids=[
        "gather",
        "gather_nd",
        "scatter_nd",
        "tensor_scatter_update",
        "segment_sum",
        "unsorted_segment",
        "embedding",
        "bincount",
    ],
)
def test_index_out_of_range_names_the_index(make, value, fragment):
    error = expect_error(tw, lambda tf: _fed_indices(tf, make, "int32"), INVALID, fragment, feed=_feed(value))
    assert "[[node " in str(error)


# --- composites that had no check -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value_range,nbins,fragment",
    [([1.0, 0.0], 3, "value_range should satisfy"), ([0.0, 1.0], -1, "nbins should be a positive number")],
)
def test_histogram_fixed_width_bad_range_or_bins(value_range, nbins, fragment):
    # A reversed range silently gave counts.
    def build(tf):
        return tf.histogram_fixed_width(
            [0.5], _run_time(tf, value_range, "float32"), nbins=_run_time(tf, nbins, "int32")
        )

    expect_error(tw, build, INVALID, fragment)


def test_matrix_band_part_takes_int32_bounds(sess):
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    lower = tw.placeholder(tw.int32, [])
    out = sess.run(tw.matrix_band_part(x, lower, lower), {lower: 0})
    np.testing.assert_array_equal(out, np.eye(4, 3, dtype=np.float32) * x)  # the diagonal band


def test_resize_to_a_negative_size_fed_at_run_time():
    # A size tensor of unknown shape was refused at construction ("must be a 1-D Tensor of 2 elements").
    def build(tf):
        return tf.image.resize_images(tf.zeros([1, 4, 4, 1]), tf.placeholder(tf.int32, name="i"))

    expect_error(tw, build, INVALID, "must be positive", feed=_feed([-2, 2]))


def test_tf_oracle_available_or_skipped():
    need_tf()

"""tf.ragged.boolean_mask, tf.ragged.cross / cross_hashed, tf.sparse.cross / cross_hashed (the RaggedCross op) and
RaggedFeature's RowStarts / ValueRowIds partitions, against TensorFlow."""

import numpy as np
import pytest
import tensorweave as tw


def tf1():
    tf = pytest.importorskip("tensorflow")
    tf.compat.v1.disable_eager_execution()
    return tf.compat.v1


def run_tf(build):
    tf = tf1()
    with tf.Graph().as_default():
        fetches = build(tf)
        with tf.Session() as sess:
            return sess.run(fetches)


def run_tw(build):
    with tw.Graph().as_default():
        fetches = build(tw)
        with tw.Session() as sess:
            return sess.run(fetches)


def as_list(value):
    return value.to_list() if hasattr(value, "to_list") else np.asarray(value).tolist()


# --- boolean_mask --------------------------------------------------------------------------------------------------

_CUBE = np.arange(24).reshape(2, 3, 4)
MASK_CASES = [
    ([[1, 2, 3], [4, 5, 6]], [[True, False, True], [False, False, True]], False, False),
    ([[1, 2, 3], [4, 5, 6]], [True, False], False, False),
    ([[1, 2, 3], [4], [5, 6]], [True, False, True], True, False),
    ([[1, 2, 3], [4], [5, 6]], [[True, False, True], [False], [True, True]], True, True),
    ([[[1, 2], [3]], [[4]]], [[True, False], [True]], True, True),
    ([[[1, 2], [3]], [[4]]], [[[True, False], [True]], [[False]]], True, True),
    (_CUBE.tolist(), (_CUBE % 3 == 0).tolist(), False, False),
    (_CUBE.tolist(), (np.arange(6).reshape(2, 3) % 2 == 0).tolist(), False, False),
    ([[1, 2], [3, 4]], [[True, False], [True, True]], True, False),
    ([["a", "b"], ["c"]], [[False, True], [True]], True, True),
]


@pytest.mark.parametrize("data,mask,ragged_data,ragged_mask", MASK_CASES)
def test_boolean_mask_matches_tensorflow(data, mask, ragged_data, ragged_mask):
    def build(lib):
        d = lib.ragged.constant(data) if ragged_data else lib.constant(data)
        m = lib.ragged.constant(mask) if ragged_mask else lib.constant(mask)
        return lib.ragged.boolean_mask(d, m)

    want, got = run_tf(build), run_tw(build)
    assert as_list(got) == as_list(want)
    assert hasattr(got, "to_list") == hasattr(want, "to_list")


def test_boolean_mask_errors(graph):
    with pytest.raises(ValueError, match="mask cannot be scalar"):
        tw.ragged.boolean_mask(tw.constant([1, 2]), True)
    with pytest.raises(ValueError, match="must be known statically"):
        tw.ragged.boolean_mask(tw.constant([1, 2]), tw.placeholder(tw.bool))
    rt = tw.ragged.boolean_mask(tw.ragged.constant([[1, 2], [3]]), tw.ragged.constant([[True], [True, False]]))
    with tw.Session() as sess, pytest.raises(tw.errors.InvalidArgumentError, match="identical ragged splits"):
        sess.run(rt)


# --- cross / cross_hashed ------------------------------------------------------------------------------------------

RAGGED = [["a", "b"], ["c"], []]
DENSE = [[1, 2], [3, 4], [5, 6]]


def _inputs(lib):
    sparse = lib.SparseTensor([[0, 0], [2, 0], [2, 1]], ["x", "y", "z"], [3, 2])
    return lib.ragged.constant(RAGGED), lib.constant(DENSE, lib.int64), sparse


CROSSES = {
    "ragged_dense": lambda lib, r, d, s: lib.ragged.cross([r, d]),
    "ragged_dense_sparse": lambda lib, r, d, s: lib.ragged.cross([r, d, s]),
    "sparse_dense_ragged": lambda lib, r, d, s: lib.ragged.cross([s, d, r]),
    "int32_dense": lambda lib, r, d, s: lib.ragged.cross([lib.constant([[1, 2], [3, 4], [5, 6]]), r]),
    "hashed": lambda lib, r, d, s: lib.ragged.cross_hashed([r, d]),
    "hashed_buckets": lambda lib, r, d, s: lib.ragged.cross_hashed([r, d, s], num_buckets=100),
    "hashed_ints": lambda lib, r, d, s: lib.ragged.cross_hashed([d]),
    "hashed_key": lambda lib, r, d, s: lib.ragged.cross_hashed([r], hash_key=7),
}


@pytest.mark.parametrize("case", sorted(CROSSES))
def test_ragged_cross_matches_tensorflow(case):
    def build(lib):
        return CROSSES[case](lib, *_inputs(lib))

    want, got = run_tf(build), run_tw(build)
    assert got.to_list() == want.to_list()
    assert got.row_splits.dtype == want.row_splits.dtype


def test_ragged_cross_keeps_int32_splits():
    def build(lib):
        a = lib.ragged.constant([[1, 2], [3]], row_splits_dtype=lib.int32)
        b = lib.ragged.constant([["p"], ["q", "r"]], row_splits_dtype=lib.int32)
        return lib.ragged.cross([a, b])

    want, got = run_tf(build), run_tw(build)
    assert got.to_list() == want.to_list() == [[b"1_X_p", b"2_X_p"], [b"3_X_q", b"3_X_r"]]
    assert got.row_splits.dtype == want.row_splits.dtype == np.int32


SPARSE_CROSSES = {
    "cross": lambda lib, r, d, s: lib.sparse.cross([s, d]),
    "separator": lambda lib, r, d, s: lib.sparse.cross([s, d], separator="--"),
    "hashed": lambda lib, r, d, s: lib.sparse.cross_hashed([s, d], num_buckets=10),
    "hashed_key": lambda lib, r, d, s: lib.sparse.cross_hashed([d, s], hash_key=12345),
}


@pytest.mark.parametrize("case", sorted(SPARSE_CROSSES))
def test_sparse_cross_matches_tensorflow(case):
    def build(lib):
        return SPARSE_CROSSES[case](lib, *_inputs(lib))

    want, got = run_tf(build), run_tw(build)
    np.testing.assert_array_equal(got.indices, want.indices)
    np.testing.assert_array_equal(got.values, want.values)
    np.testing.assert_array_equal(got.dense_shape, want.dense_shape)


def test_cross_errors(graph):
    r = tw.ragged.constant([["a"], ["b"], ["c"]])
    with pytest.raises(ValueError, match="Unexpected dtype for inputs\\[1\\]"):
        tw.ragged.cross([r, tw.constant([[1.0], [2.0], [3.0]])])
    with pytest.raises(ValueError, match="rank=2"):
        tw.ragged.cross([tw.ragged.constant([[[1]]])])
    with pytest.raises(TypeError, match="Inputs must be a list"):
        tw.ragged.cross(r)
    with pytest.raises(ValueError, match="non-empty"):
        tw.ragged.cross([])
    short = tw.ragged.cross([r, tw.constant([[1], [2]], tw.int64)])
    with tw.Session() as sess, pytest.raises(tw.errors.InvalidArgumentError, match="same batch dimension size"):
        sess.run(short)
    unordered = tw.SparseTensor([[1, 0], [0, 0]], ["x", "y"], [3, 1])
    with tw.Session() as sess, pytest.raises(tw.errors.InvalidArgumentError, match="out of row order"):
        sess.run(tw.ragged.cross([r, unordered]))


def test_cross_has_no_gradient(graph):
    ids = tw.ragged.cross_hashed([tw.constant([[1], [2]], tw.int64)], num_buckets=5)
    assert ids.values.op.type == "RaggedCross"
    assert tw.gradients(tw.cast(ids.values, tw.float32), []) == []


# --- RaggedFeature RowStarts / ValueRowIds -------------------------------------------------------------------------


def _example(tf, values, starts, rowids):
    feature = {
        "v": tf.train.Feature(float_list=tf.train.FloatList(value=values)),
        "s": tf.train.Feature(int64_list=tf.train.Int64List(value=starts)),
        "r": tf.train.Feature(int64_list=tf.train.Int64List(value=rowids)),
    }
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


def _serialized():
    tf = tf1()
    return [
        _example(tf, [1.0, 2.0, 3.0, 4.0, 5.0], [0, 2, 3], [0, 0, 1, 3, 3]),
        _example(tf, [6.0], [0], [0]),
        _example(tf, [7.0, 8.0], [1], [1, 1]),
        _example(tf, [], [], []),
    ]


PARTITIONS = {
    "row_starts": lambda R: [R.RowStarts("s")],
    "value_rowids": lambda R: [R.ValueRowIds("r")],
    "value_rowids_splits_int64": lambda R: [R.ValueRowIds("r")],
    "uniform_then_rowids": lambda R: [R.ValueRowIds("r"), R.UniformRowLength(1)],
}


@pytest.mark.parametrize("case", sorted(PARTITIONS))
@pytest.mark.parametrize("single", [False, True])
def test_ragged_feature_partitions_match_tensorflow(case, single):
    serialized = _serialized()

    def build(lib):
        R = lib.io.RaggedFeature
        splits = lib.int64 if case.endswith("int64") else lib.int32
        spec = R(lib.float32, value_key="v", partitions=PARTITIONS[case](R), row_splits_dtype=splits)
        if single:
            return [lib.io.parse_single_example(s, {"f": spec})["f"] for s in serialized]
        return lib.io.parse_example(serialized, {"f": spec})["f"]

    want, got = run_tf(build), run_tw(build)
    if single:
        assert [g.to_list() for g in got] == [w.to_list() for w in want]
    else:
        assert got.to_list() == want.to_list()
        assert got.row_splits.dtype == want.row_splits.dtype

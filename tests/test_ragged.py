"""tw.RaggedTensor and tw.ragged against TensorFlow 1's graph mode (tf.compat.v1, a Session): the same program
built with both, compared on values, row splits, dtypes and static shapes; bad row partitions with
validate=True are InvalidArgumentErrors when run; RaggedRange's hostile inputs are clear errors."""

import pytest
import tensorweave as tw

tf1 = pytest.importorskip("tensorflow.compat.v1")


def run_both(build, feed=None):
    """build(module) under tw and under TF1 graph mode; both fetched values."""
    out = []
    for m in (tw, tf1):
        with m.Graph().as_default(), m.Session() as sess:
            fetches = build(m)
            out.append(sess.run(fetches, feed(m, fetches) if feed else None))
    return out


def as_list(v):
    if hasattr(v, "to_list"):
        return v.to_list()
    return v.tolist()


def assert_same(build, check_dtype=True):
    ours, theirs = run_both(build)
    if isinstance(ours, (list, tuple)):
        for a, b in zip(ours, theirs):
            assert_value_same(a, b, check_dtype)
    else:
        assert_value_same(ours, theirs, check_dtype)
    return ours


def assert_value_same(a, b, check_dtype=True):
    assert as_list(a) == as_list(b)
    if hasattr(b, "row_splits"):
        assert type(a).__name__ == "RaggedTensorValue"
        for x, y in zip(a.nested_row_splits, b.nested_row_splits):
            assert x.dtype == y.dtype and x.tolist() == y.tolist()
        if check_dtype:
            assert a.flat_values.dtype == b.flat_values.dtype or a.flat_values.dtype.kind in "OS"
    elif check_dtype and hasattr(b, "dtype"):
        assert a.dtype == b.dtype or (a.dtype.kind in "OS" and b.dtype.kind in "OS")


def static_shapes(build):
    shapes = []
    for m in (tw, tf1):
        with m.Graph().as_default():
            shapes.append(build(m).shape.as_list())
    assert shapes[0] == shapes[1], shapes
    return shapes[0]


VALUES = [3, 1, 4, 1, 5, 9, 2]


@pytest.mark.parametrize(
    "factory",
    [
        lambda m: m.RaggedTensor.from_row_splits(VALUES, [0, 2, 2, 5, 7]),
        lambda m: m.RaggedTensor.from_row_lengths(VALUES, [2, 0, 3, 2]),
        lambda m: m.RaggedTensor.from_row_starts(VALUES, [0, 2, 2, 5]),
        lambda m: m.RaggedTensor.from_row_limits(VALUES, [2, 2, 5, 7]),
        lambda m: m.RaggedTensor.from_value_rowids(VALUES, [0, 0, 2, 2, 2, 3, 3]),
        lambda m: m.RaggedTensor.from_value_rowids(VALUES, [0, 0, 2, 2, 2, 3, 3], nrows=6),
        lambda m: m.RaggedTensor.from_nested_row_splits(VALUES, [[0, 2, 3], [0, 2, 2, 7]]),
        lambda m: m.RaggedTensor.from_nested_row_lengths(VALUES, [[1, 0, 2], [3, 1, 3]]),
        lambda m: m.RaggedTensor.from_row_splits(m.constant(VALUES), m.constant([0, 3, 7], m.int32)),
        lambda m: m.RaggedTensor.from_row_splits(m.reshape(m.range(12.0), [6, 2]), [0, 1, 6]),
        lambda m: m.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0]]),
        lambda m: m.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0]], padding=0),
        lambda m: m.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0]], lengths=[1, 3]),
        lambda m: m.RaggedTensor.from_tensor([[[1, 0], [0, 0]], [[2, 3], [4, 0]]], padding=0, ragged_rank=2),
        lambda m: m.RaggedTensor.from_tensor([[[1, 0], [0, 0]], [[2, 3], [4, 0]]], ragged_rank=2),
        lambda m: m.RaggedTensor.from_tensor([[[1, 0], [0, 0]], [[2, 3], [0, 0]]], padding=[0, 0]),
        lambda m: m.RaggedTensor.from_sparse(m.SparseTensor([[0, 0], [0, 1], [2, 0]], [1, 2, 3], [4, 3])),
        lambda m: m.ragged.constant([[1, 2], [], [3]]),
        lambda m: m.ragged.constant([[[1.5, 2.0], [3.0]], [], [[4.0]]]),
        lambda m: m.ragged.constant([["a", "bc"], ["d"]]),
        lambda m: m.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1),
        lambda m: m.ragged.constant([[1, 2], [3]], dtype=m.int64, row_splits_dtype=m.int32),
        lambda m: m.ragged.constant([[], []]),
    ],
)
def test_factories_match_tensorflow(factory):
    value = assert_same(factory)
    assert type(value).__name__ == "RaggedTensorValue"
    static_shapes(factory)
    with tw.Graph().as_default():
        rt = factory(tw)
        assert isinstance(rt, tw.RaggedTensor)
        with tf1.Graph().as_default():
            ref = factory(tf1)
            assert rt.ragged_rank == ref.ragged_rank
            assert rt.dtype.name == ref.dtype.name
            assert rt.row_splits.dtype.name == ref.row_splits.dtype.name


RT = lambda m: m.RaggedTensor.from_row_splits(VALUES, [0, 2, 2, 5, 7])  # noqa: E731
RT2 = lambda m: m.RaggedTensor.from_nested_row_splits(VALUES, [[0, 2, 3], [0, 2, 2, 7]])  # noqa: E731


@pytest.mark.parametrize(
    "method",
    [
        lambda rt, m: rt.values,
        lambda rt, m: rt.flat_values,
        lambda rt, m: rt.row_splits,
        lambda rt, m: list(rt.nested_row_splits),
        lambda rt, m: rt.row_lengths(),
        lambda rt, m: rt.row_starts(),
        lambda rt, m: rt.row_limits(),
        lambda rt, m: rt.value_rowids(),
        lambda rt, m: rt.nrows(),
        lambda rt, m: rt.nrows(out_type=m.int32),
        lambda rt, m: rt.bounding_shape(),
        lambda rt, m: rt.to_tensor(),
        lambda rt, m: rt.to_tensor(default_value=-1),
        lambda rt, m: rt.to_tensor(shape=[2] + [1] * rt.ragged_rank),
        lambda rt, m: rt.to_tensor(shape=[6] + [None] * rt.ragged_rank),
        lambda rt, m: rt[0],
        lambda rt, m: rt[-1],
        lambda rt, m: rt[1:3],
        lambda rt, m: rt[:-1],
        lambda rt, m: rt[5:],
        lambda rt, m: rt * 2 + 1,
        lambda rt, m: -rt,
        lambda rt, m: rt > 2,
        lambda rt, m: rt + rt,
        lambda rt, m: m.ragged.map_flat_values(m.square, rt),
        lambda rt, m: rt.with_flat_values(m.cast(rt.flat_values, m.float32)),
        lambda rt, m: rt.with_row_splits_dtype(m.int32),
        lambda rt, m: (lambda sp: [sp.indices, sp.values, sp.dense_shape])(rt.to_sparse()),
    ],
)
@pytest.mark.parametrize("rt_fn", [RT, RT2], ids=["rank1", "rank2"])
def test_methods_match_tensorflow(method, rt_fn):
    assert_same(lambda m: method(rt_fn(m), m))


@pytest.mark.parametrize(
    "method",
    [
        lambda rt, m: rt.to_tensor(),
        lambda rt, m: rt.to_tensor(default_value=-1),
        lambda rt, m: rt.merge_dims(0, 1),
        lambda rt, m: rt.merge_dims(1, 2),
        lambda rt, m: rt.merge_dims(0, 2),
        lambda rt, m: rt[1],
        lambda rt, m: rt[0, 1],
        lambda rt, m: rt.row_lengths(axis=2),
        lambda rt, m: list(rt.nested_row_lengths()),
        lambda rt, m: rt.bounding_shape(axis=1),
    ],
)
def test_nested_methods_match_tensorflow(method):
    assert_same(lambda m: method(RT2(m), m))


def test_uniform_inner_dimensions():
    dense = lambda m: m.RaggedTensor.from_row_splits(m.reshape(m.range(12), [6, 2]), [0, 2, 6])  # noqa: E731
    for method in (lambda rt: rt.to_tensor(), lambda rt: rt.merge_dims(1, 2), lambda rt: rt.bounding_shape()):
        assert_same(lambda m: method(dense(m)))
    assert static_shapes(lambda m: dense(m).to_tensor()) == [2, None, 2]


def test_static_shapes():
    assert static_shapes(RT) == [4, None]
    assert static_shapes(RT2) == [2, None, None]
    assert static_shapes(lambda m: RT(m).to_tensor()) == [4, None]
    assert static_shapes(lambda m: m.RaggedTensor.from_tensor(m.zeros([3, 4, 5]))) == [3, 4, 5]
    assert static_shapes(lambda m: m.RaggedTensor.from_tensor(m.zeros([3, 4, 5]), padding=[0.0] * 5)) == [3, None, 5]
    assert static_shapes(lambda m: m.ragged.placeholder(m.float32, 2, [3])) == [None, None, None, 3]


def test_string_values_to_tensor():
    assert_same(lambda m: m.ragged.constant([["a", "bc"], [], ["d"]]).to_tensor())
    assert_same(lambda m: m.ragged.constant([["a", "bc"], [], ["d"]]).to_tensor(default_value="?"))


def test_constant_value():
    for pylist, kw in [([[1, 2], [3]], {}), ([[[1.0], []], [[2.0, 3.0]]], {}), ([[1, 2], []], {"dtype": tw.int64})]:
        ours = tw.ragged.constant_value(pylist, **kw)
        theirs = tf1.ragged.constant_value(pylist, **{k: tf1.as_dtype(v.name) for k, v in kw.items()})
        assert_value_same(ours, theirs)
    with pytest.raises(ValueError):
        tw.ragged.constant_value([[1, [2]], [3]])


def test_placeholder_feeds_a_ragged_tensor_value():
    def feed(m, fetches):
        return {fetches[1]: m.ragged.constant_value([[1.0], [], [2.0, 3.0]])}

    def build(m):
        p = m.ragged.placeholder(m.float32, 1)
        return [m.ragged.map_flat_values(lambda v: v * 2.0, p), p]

    ours, theirs = run_both(lambda m: build(m), feed=lambda m, f: feed(m, f))
    assert as_list(ours[0]) == as_list(theirs[0]) == [[2.0], [], [4.0, 6.0]]
    with tw.Graph().as_default(), tw.Session() as sess:
        p = tw.ragged.placeholder(tw.int32, 2)
        value = tw.ragged.constant_value([[[1], []], [[2, 3]]])
        assert sess.run(p.to_tensor(), {p: value}).tolist() == [[[1, 0], [0, 0]], [[2, 3], [0, 0]]]
        with pytest.raises(ValueError, match="ragged_rank"):
            sess.run(p, {p: tw.ragged.constant_value([[1]])})
        with pytest.raises(TypeError, match="RaggedTensorValue"):
            sess.run(p, {p: [[1]]})


def test_ragged_range_matches_tensorflow():
    for args in [
        ([3, 0, 5],),
        ([0, 5, 8], [3, 3, 12]),
        ([0, 5], [10, 2], [3, -1]),
        (2, [5, 8]),
        ([0.5, 1.0], 2.0, 0.5),
        ([0, 10], [5, 0], [2, -3]),
    ]:
        assert_same(lambda m: m.ragged.range(*args))
    assert_same(lambda m: m.ragged.range([3, 1], row_splits_dtype=m.int32))
    assert_same(lambda m: m.ragged.range(m.constant([3, 1], m.int64)))
    assert_same(lambda m: m.ragged.range(4))
    with tw.Graph().as_default():
        assert tw.ragged.range([1, 2]).values.op.type == "RaggedRange"


@pytest.mark.parametrize(
    "args, message",
    [
        (([0, 1], [5, 5], [1, 0]), "delta != 0"),
        ((0, 2**62, 1), "exceeds the supported maximum"),
        (([0, 1], [5, 5, 5], 1), "same shape"),
    ],
)
def test_ragged_range_hostile_inputs(args, message):
    with tw.Graph().as_default(), tw.Session() as sess:
        starts, limits, deltas = (tw.placeholder_with_default(tw.constant(a, tw.int64), None) for a in args)
        with pytest.raises(tw.errors.InvalidArgumentError, match=message):
            sess.run(tw.ragged.range(starts, limits, deltas))


def test_ragged_range_int32_splits_overflow_is_an_error():
    with tw.Graph().as_default(), tw.Session() as sess:
        rr = tw.ragged.range(tw.constant([2**31 - 1, 1], tw.int64), row_splits_dtype=tw.int32)
        with pytest.raises(tw.errors.InvalidArgumentError, match="too many for int32"):
            sess.run(rr)


@pytest.mark.parametrize(
    "factory, splits",
    [
        (lambda m, s: m.RaggedTensor.from_row_splits([1, 2, 3], s), [1, 2, 3]),  # not starting at 0
        (lambda m, s: m.RaggedTensor.from_row_splits([1, 2, 3], s), [0, 2, 1, 3]),  # decreasing
        (lambda m, s: m.RaggedTensor.from_row_splits([1, 2, 3], s), [0, 2, 5]),  # last != nvals
        (lambda m, s: m.RaggedTensor.from_row_lengths([1, 2, 3], s), [2, -1, 2]),  # negative
        (lambda m, s: m.RaggedTensor.from_row_lengths([1, 2, 3], s), [2, 2]),  # sum != nvals
        (lambda m, s: m.RaggedTensor.from_row_limits([1, 2, 3], s), [2, 1, 3]),
        (lambda m, s: m.RaggedTensor.from_value_rowids([1, 2, 3], s), [0, 2, 1]),
        (lambda m, s: m.RaggedTensor.from_value_rowids([1, 2, 3], s, nrows=2), [0, 1, 2]),
    ],
)
def test_validate_raises_invalid_argument_when_run(factory, splits):
    for m in (tw, tf1):
        with m.Graph().as_default(), m.Session() as sess:
            s = m.placeholder(m.int64, [None])
            rt = factory(m, s)
            with pytest.raises(m.errors.InvalidArgumentError) as info:
                sess.run(rt.to_tensor(), {s: splits})
            assert "do not form a valid" in str(info.value)
    with tw.Graph().as_default(), tw.Session() as sess:  # validate=False: no check
        s = tw.placeholder(tw.int64, [None])
        rt = tw.RaggedTensor.from_row_splits([1, 2, 3], s, validate=False)
        assert sess.run(rt.row_splits, {s: [0, 3]}).tolist() == [0, 3]


def test_errors_at_construction():
    with tw.Graph().as_default():
        with pytest.raises(ValueError, match="private"):
            tw.RaggedTensor(tw.constant([1]), tw.constant([0, 1], tw.int64))
        with pytest.raises(ValueError, match="int32 or int64"):
            tw.RaggedTensor.from_row_splits([1, 2], tw.constant([0.0, 2.0]))
        with pytest.raises(ValueError):
            tw.RaggedTensor.from_row_splits([1, 2], [[0, 2]])
        with pytest.raises(ValueError, match="ragged_rank"):
            tw.RaggedTensor.from_tensor([1, 2])
        with pytest.raises(TypeError, match="boolean"):
            bool(tw.ragged.constant([[1]]))
        with pytest.raises(TypeError, match="not a Tensor.*to_tensor"):
            tw.add(tw.ragged.constant([[1]]), 1)
        with pytest.raises(ValueError, match="scalar or a RaggedTensor"):
            tw.ragged.constant([[1]]) + tw.constant([1, 2])
        with pytest.raises(ValueError, match="ragged_rank"):
            tw.ragged.constant([[1]]) + tw.ragged.constant([[[1]]])


def test_row_splits_segment_ids_conversions():
    assert_same(lambda m: m.ragged.row_splits_to_segment_ids([0, 3, 3, 5, 6, 9]))
    assert_same(lambda m: m.ragged.segment_ids_to_row_splits([0, 0, 0, 2, 2, 3, 4, 4, 4]))
    assert_same(lambda m: m.ragged.segment_ids_to_row_splits([0, 0, 2], num_segments=5))


def test_stack_and_concat_match_tensorflow():
    a = lambda m: m.ragged.constant([[1, 2], [3]])  # noqa: E731
    b = lambda m: m.ragged.constant([[4], []])  # noqa: E731
    for axis in (0, 1):
        assert_same(lambda m: m.ragged.stack([a(m), b(m)], axis=axis))
    assert_same(lambda m: m.concat([a(m), b(m)], axis=0) if m is tf1 else m.ragged.concat([a(m), b(m)], 0))
    assert_same(lambda m: m.concat([a(m), b(m)], axis=1) if m is tf1 else m.ragged.concat([a(m), b(m)], 1))
    c = lambda m: m.ragged.constant([[[1], [2, 3]], [[4]]])  # noqa: E731
    assert_same(lambda m: m.ragged.stack([c(m), c(m)], axis=1))


def test_fetched_value_api():
    with tw.Graph().as_default(), tw.Session() as sess:
        value = sess.run(tw.ragged.constant([[[1], []], [[2, 3]]]))
    assert isinstance(value, tw.ragged.RaggedTensorValue)
    assert value.ragged_rank == 2 and value.to_list() == [[[1], []], [[2, 3]]]
    assert value.flat_values.tolist() == [1, 2, 3] and value.row_splits.tolist() == [0, 2, 3]
    assert isinstance(value.values, tw.ragged.RaggedTensorValue)


def _examples(m):
    def ex(**feats):
        feature = {}
        for k, v in feats.items():
            if v and isinstance(v[0], float):
                feature[k] = m.train.Feature(float_list=m.train.FloatList(value=v))
            elif k == "w":
                feature[k] = m.train.Feature(bytes_list=m.train.BytesList(value=v))
            else:
                feature[k] = m.train.Feature(int64_list=m.train.Int64List(value=v))
        return m.train.Example(features=m.train.Features(feature=feature)).SerializeToString()

    return [
        ex(v=[1, 2, 3, 4, 5], splits=[0, 2, 5], lengths=[1, 0, 4], limits=[3, 5], w=[b"a"]),
        ex(v=[], splits=[0], lengths=[], limits=[], w=[b"b", b"c"]),
        ex(v=[6, 7], splits=[0, 0, 2], lengths=[2], limits=[1, 2], w=[]),
    ]


@pytest.mark.parametrize(
    "feature",
    [
        lambda m: m.io.RaggedFeature(m.int64, "v"),
        lambda m: m.io.RaggedFeature(m.string, "w", row_splits_dtype=m.int64),
        lambda m: m.io.RaggedFeature(m.int64, "v", [m.io.RaggedFeature.RowSplits("splits")]),
        lambda m: m.io.RaggedFeature(m.int64, "v", [m.io.RaggedFeature.RowLengths("lengths")]),
        lambda m: m.io.RaggedFeature(m.int64, "v", [m.io.RaggedFeature.RowLimits("limits")]),
    ],
)
def test_ragged_feature_parse_example_matches_tensorflow(feature):
    assert_same(lambda m: m.io.parse_example(_examples(m), {"r": feature(m)})["r"])
    for i in range(3):
        assert_same(lambda m: m.io.parse_single_example(_examples(m)[i], {"r": feature(m)})["r"])


def test_ragged_feature_with_other_features_and_uniform_length():
    def build(m):
        spec = m.io.RaggedFeature(m.int64, partitions=[m.io.RaggedFeature.UniformRowLength(1)])
        parsed = m.io.parse_example(
            _examples(m), {"v": spec, "w": m.io.VarLenFeature(m.string), "lengths": m.io.RaggedFeature(m.int64)}
        )
        return [parsed["v"], parsed["lengths"], parsed["w"].values]

    assert_same(build)


def test_dataset_spec_matches_tensorflow():
    def specs(m):
        ds = m.data.Dataset.from_tensor_slices(({"a": [[1.0, 2.0]]}, [3]))
        spec = m.data.DatasetSpec.from_value(ds)
        same = m.data.DatasetSpec(ds.element_spec)
        other = m.data.DatasetSpec(m.TensorSpec([None], m.int64) if m is tf1 else ds.element_spec[1])
        return spec, same, other, ds

    for m in (tw, tf1):
        with m.Graph().as_default():
            spec, same, other, ds = specs(m)
            assert spec == same and spec != other
            assert spec.is_compatible_with(ds) and not spec.is_compatible_with(other)
            assert spec.element_spec[0]["a"].shape.as_list() == [2]
            assert spec.element_spec[1].dtype == m.int32

"""ParseExampleV2 (sparse, variable-length dense), ParseSequenceExampleV2 and the sparse serialization ops:
values against numpy built from the same protos, and the kernels' answers to hostile input (malformed shapes,
key counts, huge sizes, corrupt serialized protos and TensorProtos): a clear InvalidArgument, never a crash.
TensorFlow's own outputs are compared in tests/fidelity/cases_sequence_example.py."""

import numpy as np
import pytest
import tensorweave as tw


def _run(fetches, feed_dict=None):
    with tw.Session() as sess:
        return sess.run(fetches, feed_dict=feed_dict)


@pytest.fixture(autouse=True)
def _graph():
    with tw.Graph().as_default():
        yield


def _example(**features):
    feats = {}
    for key, values in features.items():
        if values and isinstance(values[0], float):
            feats[key] = tw.train.Feature(float_list=tw.train.FloatList(value=values))
        elif values and isinstance(values[0], bytes):
            feats[key] = tw.train.Feature(bytes_list=tw.train.BytesList(value=values))
        else:
            feats[key] = tw.train.Feature(int64_list=tw.train.Int64List(value=values))
    return tw.train.Example(features=tw.train.Features(feature=feats)).SerializeToString()


def _sequence(lists, context=None):
    ex = tw.train.SequenceExample()
    for key, values in (context or {}).items():
        ex.context.feature[key].int64_list.value.extend(values)
    for key, steps in lists.items():
        fl = ex.feature_lists.feature_list[key]
        for step in steps:
            fl.feature.add().float_list.value.extend(step)
    return ex.SerializeToString()


def test_varlen_matches_numpy_ragged_layout():
    rng = np.random.default_rng(0)
    rows = [list(rng.integers(-5, 5, size=n)) for n in (3, 0, 5, 1)]
    out = tw.io.parse_example([_example(a=[int(v) for v in r]) for r in rows], {"a": tw.io.VarLenFeature(tw.int64)})
    value = _run(out["a"])
    want_idx = [[b, k] for b, r in enumerate(rows) for k in range(len(r))]
    np.testing.assert_array_equal(value.indices, want_idx)
    np.testing.assert_array_equal(value.values, np.concatenate(rows))
    np.testing.assert_array_equal(value.dense_shape, [4, 5])


def test_fixed_len_sequence_pads_with_default():
    rows = [[1.0, 2.0, 3.0, 4.0], [], [5.0, 6.0]]
    out = tw.io.parse_example(
        [_example(f=r) if r else _example() for r in rows],
        {"f": tw.io.FixedLenSequenceFeature([2], tw.float32, allow_missing=True, default_value=-1.0)},
    )
    want = np.full([3, 2, 2], -1.0, np.float32)
    want[0] = [[1, 2], [3, 4]]
    want[2, 0] = [5, 6]
    assert out["f"].shape.as_list() == [3, None, 2]
    np.testing.assert_array_equal(_run(out["f"]), want)


def test_sparse_feature_builds_the_merged_tensor():
    ex = [_example(i=[4, 1], v=[1.0, 2.0]), _example(i=[0], v=[3.0])]
    out = tw.io.parse_example(ex, {"sp": tw.io.SparseFeature("i", "v", tw.float32, 6)})
    assert sorted(out) == ["sp"]
    dense = _run(tw.sparse.to_dense(out["sp"]))
    want = np.zeros([2, 6], np.float32)
    want[0, 4], want[0, 1], want[1, 0] = 1.0, 2.0, 3.0
    np.testing.assert_array_equal(dense, want)


def test_sequence_example_batch_against_numpy():
    steps = [[[1.0, 2.0]] * 3, [[3.0, 4.0]], []]
    ser = [_sequence({"x": s}, {"n": [len(s)]}) for s in steps]
    context, seq, lengths = tw.io.parse_sequence_example(
        ser,
        context_features={"n": tw.io.FixedLenFeature([], tw.int64)},
        sequence_features={"x": tw.io.FixedLenSequenceFeature([2], tw.float32), "y": tw.io.VarLenFeature(tw.float32)},
    )
    n, x, length, y = _run([context["n"], seq["x"], lengths["x"], seq["y"]])
    want = np.zeros([3, 3, 2], np.float32)
    for b, s in enumerate(steps):
        if s:
            want[b, : len(s)] = s
    np.testing.assert_array_equal(x, want)
    np.testing.assert_array_equal(n, [3, 1, 0])
    np.testing.assert_array_equal(length, [3, 1, 0])
    assert y.values.shape == (0,) and list(y.dense_shape) == [3, 0, 0]


def test_single_sequence_example_drops_the_batch_dimension():
    context, seq = tw.io.parse_single_sequence_example(
        _sequence({"x": [[1.0], [2.0]]}), sequence_features={"x": tw.FixedLenSequenceFeature([1], tw.float32)}
    )
    assert context == {}
    np.testing.assert_array_equal(_run(seq["x"]), [[1.0], [2.0]])


def test_serialize_many_sparse_round_trip():
    rng = np.random.default_rng(1)
    dense = rng.integers(0, 3, size=[4, 3, 2]) * (rng.random([4, 3, 2]) < 0.4)
    idx = np.argwhere(dense).astype(np.int64)
    sp = tw.SparseTensor(idx, dense[tuple(idx.T)].astype(np.int32), dense.shape)
    back = tw.io.deserialize_many_sparse(tw.io.serialize_many_sparse(sp), tw.int32, rank=3)
    assert back.indices.shape.as_list() == [None, 3]
    value = _run(back)
    got = np.zeros(value.dense_shape, np.int64)
    got[tuple(value.indices.T)] = value.values
    # Each entry keeps its own dense shape [3, 2]; the output takes the largest of each dimension.
    np.testing.assert_array_equal(value.dense_shape, [4, 3, 2])
    np.testing.assert_array_equal(got, dense)


def test_serialize_sparse_components_parse_as_tensors():
    sp = tw.SparseTensor([[0, 1], [2, 0]], np.array([1.5, -2.0], np.float32), [3, 2])
    s = tw.io.serialize_sparse(sp)
    parts = [
        tw.io.parse_tensor(s[0], tw.int64),
        tw.io.parse_tensor(s[1], tw.float32),
        tw.io.parse_tensor(s[2], tw.int64),
    ]
    ix, v, shape = _run(parts)
    np.testing.assert_array_equal(ix, [[0, 1], [2, 0]])
    np.testing.assert_array_equal(v, [1.5, -2.0])
    np.testing.assert_array_equal(shape, [3, 2])


def test_wrappers_build_tensorflows_op_types():
    sp = tw.SparseTensor([[0, 1]], np.array([1.5], np.float32), [3, 2])
    built = {
        "SerializeSparse": tw.io.serialize_sparse(sp),
        "SerializeManySparse": tw.io.serialize_many_sparse(sp),
        "DeserializeManySparse": tw.io.deserialize_many_sparse(
            tw.io.serialize_many_sparse(sp), tw.float32, rank=2
        ).values,
        "DecodeJSONExample": tw.io.decode_json_example(["{}"]),
        "ParseSequenceExampleV2": tw.io.parse_sequence_example(
            [b""], sequence_features={"x": tw.io.FixedLenSequenceFeature([], tw.int64)}
        )[1]["x"],
    }
    graph = tw.get_default_graph()
    for op_type, t in built.items():
        producers = [t.op.type] + [i.op.type for i in t.op.inputs]
        assert op_type in producers, (op_type, producers)
    assert {"SerializeSparse", "DecodeJSONExample"} <= {op.type for op in graph.get_operations()}


# --- hostile input: every malformed input is an InvalidArgument naming what is wrong -----------------------


def _parse_raw(serialized, dense_shapes, defaults, dense_keys=None, names=(), sparse_keys=(), sparse_types=()):
    dense_keys = [f"k{i}" for i in range(len(dense_shapes))] if dense_keys is None else dense_keys
    return tw.raw_ops.ParseExampleV2(
        serialized=tw.convert_to_tensor(serialized, tw.string),
        names=tw.constant(list(names), tw.string),
        sparse_keys=tw.constant(list(sparse_keys), tw.string),
        dense_keys=tw.constant(dense_keys, tw.string),
        ragged_keys=tw.constant([], tw.string),
        dense_defaults=defaults,
        num_sparse=len(sparse_keys),
        sparse_types=list(sparse_types),
        ragged_value_types=[],
        ragged_split_types=[],
        dense_shapes=dense_shapes,
    )


@pytest.mark.parametrize(
    "shapes, default, match",
    [
        ([[2, None]], np.zeros([0], np.float32), "unknown dimension"),
        ([[None, 1 << 40, 1 << 40]], np.float32(0.0), "too many elements"),
        ([[None, 2]], np.array([1.0, 2.0], np.float32), "scalar padding"),
        ([[3]], np.array([1.0, 2.0], np.float32), "has 2 values"),
    ],
)
def test_parse_example_rejects_bad_dense_specs(shapes, default, match):
    out = _parse_raw([_example(k0=[1.0, 2.0])], shapes, [tw.constant(default)])
    with pytest.raises(tw.errors.InvalidArgumentError, match=match):
        _run(out.dense_values)


def test_parse_example_rejects_bad_keys_names_and_bytes():
    with pytest.raises(tw.errors.InvalidArgumentError, match="dense_keys"):
        _run(_parse_raw([_example()], [[1]], [tw.constant([0.0])], dense_keys=["a", "b"]).dense_values)
    with pytest.raises(tw.errors.InvalidArgumentError, match="names"):
        _run(_parse_raw([_example()], [[1]], [tw.constant([0.0])], names=["x", "y", "z"]).dense_values)
    with pytest.raises(tw.errors.InvalidArgumentError, match="Could not parse example input"):
        _run(_parse_raw([b"\xff\xff\xff\x0f"], [[1]], [tw.constant([0.0])]).dense_values)
    with pytest.raises(tw.errors.InvalidArgumentError, match=r"Name: ex0, .*Key: k0.*Data types don't match"):
        _run(_parse_raw([_example(k0=[1])], [[1]], [tw.constant([0.0])], names=["ex0"]).dense_values)


def test_parse_example_random_bytes_never_crash():
    rng = np.random.default_rng(2)
    good = _example(k0=[1.0], s=[1, 2])
    blobs = [bytes(rng.integers(0, 256, size=n, dtype=np.uint8)) for n in range(1, 40)]
    blobs += [good[:n] for n in range(len(good))]
    ph = tw.placeholder(tw.string, [None])
    out = _parse_raw(ph, [[None]], [tw.constant(0.0)], sparse_keys=["s"], sparse_types=[tw.int64])
    for blob in blobs:
        try:
            _run(out.dense_values, {ph: [blob]})
        except tw.errors.InvalidArgumentError:
            pass


def test_sequence_example_rejects_bad_input():
    def parse(ser, missing_assumed_empty, shape=(2,)):
        return tw.raw_ops.ParseSequenceExampleV2(
            serialized=tw.convert_to_tensor(ser, tw.string),
            debug_name=tw.constant([], tw.string),
            context_sparse_keys=tw.constant([], tw.string),
            context_dense_keys=tw.constant([], tw.string),
            context_ragged_keys=tw.constant([], tw.string),
            feature_list_sparse_keys=tw.constant([], tw.string),
            feature_list_dense_keys=tw.constant(["x"], tw.string),
            feature_list_ragged_keys=tw.constant([], tw.string),
            feature_list_dense_missing_assumed_empty=tw.constant(missing_assumed_empty, tw.bool),
            context_dense_defaults=[],
            Nfeature_list_dense=1,
            feature_list_dense_types=[tw.float32],
            feature_list_dense_shapes=[list(shape)],
        ).feature_list_dense_values[0]

    with pytest.raises(tw.errors.InvalidArgumentError, match="feature_list_dense_missing_assumed_empty"):
        _run(parse([_sequence({})], [True, False]))
    with pytest.raises(tw.errors.InvalidArgumentError, match="'x' is required"):
        _run(parse([_sequence({})], [False]))
    with pytest.raises(tw.errors.InvalidArgumentError, match="values != expected"):
        _run(parse([_sequence({"x": [[1.0, 2.0], [3.0]]})], [False]))
    with pytest.raises(tw.errors.InvalidArgumentError, match="too many elements"):
        _run(parse([_sequence({"x": []})], [False], shape=(1 << 40, 1 << 40)))
    ph = tw.placeholder(tw.string)
    with pytest.raises(tw.errors.InvalidArgumentError, match="scalar or a vector"):
        _run(parse(ph, [True]), {ph: [[_sequence({})]]})


def test_deserialize_rejects_hostile_components():
    good = tw.io.serialize_sparse(tw.SparseTensor([[0]], [1.0], [2]))
    float_indices = tw.io.serialize_tensor(tw.constant([[0.0]]))
    neg_shape = tw.io.serialize_tensor(tw.constant([-3], tw.int64))
    wrong_rows = tw.io.serialize_tensor(tw.constant([[0], [1]], tw.int64))
    cases = {
        "must be int64": tw.stack([float_indices, good[1], good[2]]),
        "is negative": tw.stack([good[0], good[1], neg_shape]),
        "rows but values": tw.stack([wrong_rows, good[1], good[2]]),
        "Could not parse": tw.constant(["\x08", "x", "y"]),
    }
    for match, row in cases.items():
        with pytest.raises(tw.errors.InvalidArgumentError, match=match):
            _run(tw.io.deserialize_many_sparse(tw.reshape(row, [1, 3]), tw.float32).indices)
    # Strings in tensor_content (TensorFlow's encoding): lengths that do not add up, a length past the end.
    good_s = tw.io.serialize_sparse(tw.SparseTensor([[0], [1]], ["ab", ""], [2]))
    for content in (b'"\x04\x05\x01ab', b'"\x02\xff\xff'):
        bad = tw.constant(b"\x08\x07\x12\x04\x12\x02\x08\x02" + content)
        with pytest.raises(tw.errors.InvalidArgumentError, match="tensor_content"):
            _run(tw.io.deserialize_many_sparse(tw.reshape(tw.stack([good_s[0], bad, good_s[2]]), [1, 3]), tw.string))
    value = _run(tw.io.deserialize_many_sparse(tw.reshape(good_s, [1, 3]), tw.string))
    assert list(value.values) == [b"ab", b""]
    with pytest.raises(tw.errors.InvalidArgumentError, match="3 columns"):
        _run(tw.io.deserialize_many_sparse([[b"a", b"b"]], tw.float32).indices)


def test_serialize_many_sparse_rejects_bad_indices():
    ph = tw.placeholder(tw.int64, [None, 2])
    s = tw.io.serialize_many_sparse(tw.SparseTensor(ph, [1.0, 2.0], [2, 2]))
    for bad, match in (([[0, 0], [0, 0]], "out of order"), ([[0, 0], [-1, 0]], "out of bounds")):
        with pytest.raises(tw.errors.InvalidArgumentError, match=match):
            _run(s, {ph: bad})
    big = tw.io.serialize_many_sparse(tw.SparseTensor(tw.zeros([0, 2], tw.int64), tw.zeros([0]), [1 << 40, 2]))
    with pytest.raises(tw.errors.InvalidArgumentError, match="too large"):
        _run(big)

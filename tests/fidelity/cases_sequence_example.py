"""Example and SequenceExample parsing against TensorFlow 1: VarLenFeature, SparseFeature and
FixedLenSequenceFeature in parse_example / parse_single_example, parse_sequence_example and
parse_single_sequence_example (context and sequence features, lengths, padding), the error classes of bad
protos, wrong types and counts and missing features; serialize_sparse, serialize_many_sparse and
deserialize_many_sparse (the serialized bytes themselves are compared)."""

import numpy as np

from tests.fidelity.harness import case


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is the observation
        for cls in type(e).__mro__:
            if cls.__name__.endswith("Error"):
                return cls.__name__
        return type(e).__name__
    return "no error"


def _feature(tf, values):
    if isinstance(values, tuple):  # an empty Feature (no list)
        return tf.train.Feature()
    if values and isinstance(values[0], bytes):
        return tf.train.Feature(bytes_list=tf.train.BytesList(value=values))
    if values and isinstance(values[0], float):
        return tf.train.Feature(float_list=tf.train.FloatList(value=values))
    return tf.train.Feature(int64_list=tf.train.Int64List(value=values))


def _example(tf, **features):
    return tf.train.Example(
        features=tf.train.Features(feature={k: _feature(tf, v) for k, v in features.items()})
    ).SerializeToString()


def _seq_example(tf, context, lists):
    ex = tf.train.SequenceExample(context=tf.train.Features(feature={k: _feature(tf, v) for k, v in context.items()}))
    for key, steps in lists.items():
        fl = ex.feature_lists.feature_list[key]
        for step in steps:
            fl.feature.add().CopyFrom(_feature(tf, step))
    return ex.SerializeToString()


def _batch(tf):
    return [
        _example(tf, a=[1, 2, 3], s=[b"x"], f=[1.0, 2.0, 3.0, 4.0], idx=[3, 0], val=[10.0, 20.0]),
        _example(tf, a=[], f=[5.0, 6.0], idx=[1], val=[30.0]),
        _example(tf, a=[7], s=[b"y", b"zz"], idx=(), val=()),
    ]


@case
def parse_example_varlen_sparse(tf, sess):
    out = tf.io.parse_example(_batch(tf), {"a": tf.io.VarLenFeature(tf.int64), "s": tf.io.VarLenFeature(tf.string)})
    return [out["a"], out["s"], out["a"].shape, sorted(out)]


@case
def parse_example_fixed_len_sequence_padded(tf, sess):
    out = tf.io.parse_example(
        _batch(tf),
        {
            "f": tf.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True),
            "a": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True, default_value=-1),
            "s": tf.io.FixedLenSequenceFeature([], tf.string, allow_missing=True),
        },
    )
    return [out["f"], out["a"], out["s"], out["f"].shape.as_list(), out["a"].shape.as_list()]


@case
def parse_example_sparse_feature(tf, sess):
    out = tf.io.parse_example(
        _batch(tf),
        {"sp": tf.io.SparseFeature("idx", "val", tf.float32, 5), "m": tf.io.FixedLenFeature([], tf.int64, -5)},
    )
    return [out["sp"], out["m"], sorted(out), out["sp"].dtype]


@case
def parse_example_sparse_feature_sorted(tf, sess):
    ex = [_example(tf, idx=[0, 2], val=[1, 2]), _example(tf, idx=[4], val=[3])]
    out = tf.io.parse_example(ex, {"sp": tf.io.SparseFeature("idx", "val", tf.int64, 6, already_sorted=True)})
    return tf.sparse.to_dense(out["sp"])


@case
def parse_single_example_varlen_and_sequence(tf, sess):
    ser = _example(tf, a=[4, 5, 6], f=[1.0, 2.0, 3.0, 4.0])
    out = tf.io.parse_single_example(
        ser,
        {
            "a": tf.io.VarLenFeature(tf.int64),
            "f": tf.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True),
            "m": tf.io.VarLenFeature(tf.float32),
        },
    )
    return [out["a"], out["f"], out["m"], out["f"].shape.as_list()]


@case
def parse_example_empty_feature_matches_any_type(tf, sess):
    ex = [_example(tf, a=()), _example(tf, a=[1])]
    out = tf.io.parse_example(ex, {"a": tf.io.VarLenFeature(tf.int64)})
    return out["a"]


@case
def parse_example_sequence_feature_errors(tf, sess):
    def not_multiple():
        out = tf.io.parse_example(
            [_example(tf, f=[1.0, 2.0, 3.0])], {"f": tf.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True)}
        )
        sess.run(out["f"])

    def wrong_type():
        out = tf.io.parse_example([_example(tf, a=[1.0])], {"a": tf.io.VarLenFeature(tf.int64)})
        sess.run(out["a"].values)

    def not_allow_missing():
        tf.io.parse_example([_example(tf, a=[1])], {"a": tf.io.FixedLenSequenceFeature([], tf.int64)})

    def bad_proto():
        out = tf.io.parse_example([b"garbage"], {"a": tf.io.VarLenFeature(tf.int64)})
        sess.run(out["a"].values)

    def padding_not_scalar():
        tf.io.parse_example(
            [_example(tf, a=[1])],
            {"a": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True, default_value=[1, 2])},
        )

    return [_error(f) for f in (not_multiple, wrong_type, not_allow_missing, bad_proto, padding_not_scalar)]


def _seq_batch(tf):
    return [
        _seq_example(
            tf,
            {"len": [3], "tags": [b"a", b"b"]},
            {"tok": [[1], [2], [3]], "emb": [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], "ids": [[1, 2], [], [3]]},
        ),
        _seq_example(tf, {"len": [1]}, {"tok": [[9]], "emb": [[7.0, 8.0]], "ids": [[4, 5, 6]]}),
        _seq_example(tf, {"len": [0], "tags": [b"c"]}, {"tok": []}),
    ]


@case
def parse_sequence_example_all_kinds(tf, sess):
    context, seq, lengths = tf.io.parse_sequence_example(
        _seq_batch(tf),
        context_features={
            "len": tf.io.FixedLenFeature([], tf.int64),
            "tags": tf.io.VarLenFeature(tf.string),
            "missing": tf.io.FixedLenFeature([2], tf.float32, default_value=[0.5, 1.5]),
        },
        sequence_features={
            "tok": tf.io.FixedLenSequenceFeature([], tf.int64),
            "emb": tf.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True),
            "ids": tf.io.VarLenFeature(tf.int64),
        },
    )
    return [
        context,
        seq,
        lengths,
        seq["emb"].shape.as_list(),
        seq["tok"].shape.as_list(),
        lengths["tok"].shape.as_list(),
        sorted(lengths),
    ]


@case
def parse_single_sequence_example_all_kinds(tf, sess):
    ser = _seq_batch(tf)[0]
    context, seq = tf.io.parse_single_sequence_example(
        ser,
        context_features={"len": tf.io.FixedLenFeature([], tf.int64), "tags": tf.io.VarLenFeature(tf.string)},
        sequence_features={
            "tok": tf.io.FixedLenSequenceFeature([], tf.int64),
            "emb": tf.io.FixedLenSequenceFeature([2], tf.float32),
            "ids": tf.io.VarLenFeature(tf.int64),
            "absent": tf.io.FixedLenSequenceFeature([3], tf.string, allow_missing=True),
        },
    )
    return [context, seq, seq["emb"].shape.as_list(), seq["absent"].shape.as_list(), seq["ids"].shape]


@case
def parse_single_sequence_example_top_level_alias(tf, sess):
    context, seq = tf.parse_single_sequence_example(
        _seq_batch(tf)[1], sequence_features={"tok": tf.FixedLenSequenceFeature([], tf.int64)}
    )
    return [context, seq]


@case
def parse_sequence_example_errors(tf, sess):
    def missing_list():
        _, seq, _ = tf.io.parse_sequence_example(
            _seq_batch(tf), sequence_features={"emb": tf.io.FixedLenSequenceFeature([2], tf.float32)}
        )
        sess.run(seq["emb"])

    def wrong_step_size():
        ser = _seq_example(tf, {}, {"emb": [[1.0, 2.0], [3.0]]})
        _, seq, _ = tf.io.parse_sequence_example(
            [ser], sequence_features={"emb": tf.io.FixedLenSequenceFeature([2], tf.float32)}
        )
        sess.run(seq["emb"])

    def wrong_type():
        ser = _seq_example(tf, {}, {"ids": [[1.0]]})
        _, seq, _ = tf.io.parse_sequence_example([ser], sequence_features={"ids": tf.io.VarLenFeature(tf.int64)})
        sess.run(seq["ids"].values)

    def missing_context():
        c, _, _ = tf.io.parse_sequence_example(
            _seq_batch(tf), context_features={"nope": tf.io.FixedLenFeature([], tf.int64)}
        )
        sess.run(c["nope"])

    def bad_proto():
        c, _, _ = tf.io.parse_sequence_example([b"garbage"], context_features={"a": tf.io.VarLenFeature(tf.int64)})
        sess.run(c["a"].values)

    def no_features():
        tf.io.parse_sequence_example(_seq_batch(tf))

    def default_in_sequence():
        tf.io.parse_sequence_example(
            _seq_batch(tf),
            sequence_features={"tok": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True, default_value=0)},
        )

    def not_scalar():
        tf.io.parse_single_sequence_example(
            _seq_batch(tf), sequence_features={"tok": tf.io.FixedLenSequenceFeature([], tf.int64)}
        )

    return [
        _error(f)
        for f in (
            missing_list,
            wrong_step_size,
            wrong_type,
            missing_context,
            bad_proto,
            no_features,
            default_in_sequence,
            not_scalar,
        )
    ]


def _sp(tf):
    return tf.SparseTensor(
        np.array([[0, 0, 1], [0, 2, 0], [2, 1, 1]], np.int64), np.array([1.5, -2.0, 3.0], np.float32), [3, 3, 2]
    )


@case
def serialize_sparse_bytes(tf, sess):
    sp = _sp(tf)
    s = tf.io.serialize_sparse(sp)
    s_str = tf.serialize_sparse(tf.SparseTensor([[0], [4]], np.array([b"a", b"bc"]), [5]))
    back = tf.io.deserialize_many_sparse(tf.stack([s_str, s_str]), tf.string)
    return [s, s_str, s.shape.as_list(), back]


@case
def serialize_many_sparse_bytes_and_round_trip(tf, sess):
    sp = _sp(tf)
    many = tf.io.serialize_many_sparse(sp)
    back = tf.io.deserialize_many_sparse(many, tf.float32)
    return [many, back, tf.deserialize_many_sparse(tf.serialize_many_sparse(sp), tf.float32, rank=3).shape]


@case
def deserialize_many_sparse_takes_the_largest_dims(tf, sess):
    a = tf.serialize_sparse(tf.SparseTensor([[0, 1]], np.array([1], np.int32), [1, 2]))
    b = tf.serialize_sparse(tf.SparseTensor([[2, 0], [3, 0]], np.array([2, 3], np.int32), [4, 1]))
    return tf.io.deserialize_many_sparse(tf.stack([a, b]), tf.int32)


@case
def serialize_sparse_errors(tf, sess):
    def wrong_dtype():
        s = tf.io.serialize_many_sparse(_sp(tf))
        sess.run(tf.io.deserialize_many_sparse(s, tf.int64).values)

    def garbage():
        sess.run(tf.io.deserialize_many_sparse([[b"\xff", b"x", b"y"]], tf.float32).values)

    def rank_one_many():
        sess.run(tf.io.serialize_many_sparse(tf.SparseTensor([[0]], [1.0], [3])))

    def mixed_ranks():
        a = tf.serialize_sparse(tf.SparseTensor([[0]], [1.0], [2]))
        b = tf.serialize_sparse(tf.SparseTensor([[0, 0]], [1.0], [2, 2]))
        sess.run(tf.io.deserialize_many_sparse(tf.stack([a, b]), tf.float32).indices)

    def unordered():
        sp = tf.SparseTensor([[1, 0], [0, 0]], [1.0, 2.0], [2, 2])
        sess.run(tf.io.serialize_many_sparse(sp))

    def out_of_range():
        sp = tf.SparseTensor([[0, 0], [5, 0]], [1.0, 2.0], [2, 2])
        sess.run(tf.io.serialize_many_sparse(sp))

    return [_error(f) for f in (wrong_dtype, garbage, rank_one_many, mixed_ranks, unordered, out_of_range)]


_JSON = (
    '{"features": {"feature": {"x": {"int64List": {"value": ["3", 4]}}, '
    '"s": {"bytesList": {"value": ["aGk="]}}, "f": {"floatList": {"value": [1.5, -2]}}}}}'
)


@case
def decode_json_example_bytes_and_parse(tf, sess):
    binary = tf.io.decode_json_example([[_JSON, "{}"]])
    parsed = tf.io.parse_example(
        tf.reshape(binary, [-1]),
        {
            "x": tf.io.VarLenFeature(tf.int64),
            "s": tf.io.VarLenFeature(tf.string),
            "f": tf.io.FixedLenFeature([2], tf.float32, default_value=[0.0, 0.0]),
        },
    )
    return [binary, binary.shape.as_list(), parsed]


@case
def decode_json_example_errors(tf, sess):
    def run(text):
        return lambda: sess.run(tf.decode_json_example(text))

    bad = ["{", '{"features": 3}', '{"nope": {}}', '{"features": {"feature": {"x": {"int64List": {"value": ["z"]}}}}}']
    return [_error(run(t)) for t in bad]

"""tw.io.decode_proto / encode_proto (the "DecodeProtoV2" and "EncodeProto" ops): decoding messages serialized by
Python's protobuf (the oracle) for every field type and output dtype, encoding back to the bytes TensorFlow writes,
round trips, the text format, descriptor sources (local://, a file, bytes://), the failure paths, and random or
mutated bytes compared with TensorFlow's kernel (DataLoss or the same values, never a crash)."""

import re

import numpy as np
import pytest
import tensorweave as tw
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format
from tensorweave._src.framework import example_pb2

try:
    import tensorflow as tf
except ImportError:  # pragma: no cover - TensorFlow is optional
    tf = None

needs_tf = pytest.mark.skipif(tf is None, reason="TensorFlow is not installed")

F = descriptor_pb2.FieldDescriptorProto

# Every scalar field type: (name, type, the dtypes it decodes to (the first is the natural one), default text).
SCALARS = [
    ("double", F.TYPE_DOUBLE, [tw.float64], "2.5"),
    ("float", F.TYPE_FLOAT, [tw.float32, tw.float64], "-1.5"),
    ("int64", F.TYPE_INT64, [tw.int64], "-7"),
    ("uint64", F.TYPE_UINT64, [tw.uint64], "18446744073709551615"),
    ("int32", F.TYPE_INT32, [tw.int32, tw.int64], "-5"),
    ("fixed64", F.TYPE_FIXED64, [tw.uint64], "9"),
    ("fixed32", F.TYPE_FIXED32, [tw.uint32, tw.uint64], "4294967295"),
    ("bool", F.TYPE_BOOL, [tw.bool], "true"),
    ("uint32", F.TYPE_UINT32, [tw.uint32, tw.uint64], "4000000000"),
    ("sfixed32", F.TYPE_SFIXED32, [tw.int32, tw.int64], "-3"),
    ("sfixed64", F.TYPE_SFIXED64, [tw.int64], "-9000000000"),
    ("sint32", F.TYPE_SINT32, [tw.int32, tw.int64], "-2"),
    ("sint64", F.TYPE_SINT64, [tw.int64], "-11"),
]
RANGES = {
    "int64": (-(2**63), 2**63),
    "uint64": (0, 2**64),
    "int32": (-(2**31), 2**31),
    "fixed64": (0, 2**64),
    "fixed32": (0, 2**32),
    "uint32": (0, 2**32),
    "sfixed32": (-(2**31), 2**31),
    "sfixed64": (-(2**63), 2**63),
    "sint32": (-(2**31), 2**31),
    "sint64": (-(2**63), 2**63),
}


def _file_set():
    """Two files: codec.All (proto2: every scalar optional with a default, repeated and packed; strings, an enum
    whose first value is 7, nested messages, a group) and codec3.P3 (proto3: repeated scalars packed by default)."""
    f2 = descriptor_pb2.FileDescriptorProto(name="codec_test2.proto", package="codec", syntax="proto2")
    enum = f2.enum_type.add(name="Color")
    enum.value.add(name="BLUE", number=7)
    enum.value.add(name="RED", number=-4)
    enum.value.add(name="GREEN", number=0)
    sub = f2.message_type.add(name="Sub")
    sub.field.add(name="x", number=1, type=F.TYPE_INT32, label=F.LABEL_OPTIONAL)
    sub.field.add(name="y", number=2, type=F.TYPE_STRING, label=F.LABEL_REPEATED)
    msg = f2.message_type.add(name="All")
    number = 1
    for name, ftype, _, default in SCALARS:
        msg.field.add(name=f"o_{name}", number=number, type=ftype, label=F.LABEL_OPTIONAL, default_value=default)
        msg.field.add(name=f"r_{name}", number=number + 1, type=ftype, label=F.LABEL_REPEATED)
        packed = descriptor_pb2.FieldOptions(packed=True)
        msg.field.add(name=f"p_{name}", number=number + 2, type=ftype, label=F.LABEL_REPEATED, options=packed)
        number += 3
    msg.field.add(name="o_string", number=100, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL, default_value="dflt")
    msg.field.add(name="r_bytes", number=101, type=F.TYPE_BYTES, label=F.LABEL_REPEATED)
    msg.field.add(name="o_color", number=102, type=F.TYPE_ENUM, type_name=".codec.Color", label=F.LABEL_OPTIONAL)
    msg.field.add(name="r_color", number=103, type=F.TYPE_ENUM, type_name=".codec.Color", label=F.LABEL_REPEATED)
    msg.field.add(name="o_sub", number=104, type=F.TYPE_MESSAGE, type_name=".codec.Sub", label=F.LABEL_OPTIONAL)
    msg.field.add(name="r_sub", number=105, type=F.TYPE_MESSAGE, type_name=".codec.Sub", label=F.LABEL_REPEATED)
    grp = msg.nested_type.add(name="Grp")
    grp.field.add(name="g", number=107, type=F.TYPE_INT64, label=F.LABEL_OPTIONAL)
    msg.field.add(name="grp", number=106, type=F.TYPE_GROUP, type_name=".codec.All.Grp", label=F.LABEL_OPTIONAL)
    msg.field.add(name="r_bigtag", number=536870911, type=F.TYPE_SINT32, label=F.LABEL_REPEATED)

    f3 = descriptor_pb2.FileDescriptorProto(name="codec_test3.proto", package="codec3", syntax="proto3")
    e3 = f3.enum_type.add(name="Mode")
    e3.value.add(name="OFF", number=0)
    e3.value.add(name="ON", number=5)
    p3 = f3.message_type.add(name="P3")
    p3.field.add(name="ri", number=1, type=F.TYPE_INT32, label=F.LABEL_REPEATED)
    p3.field.add(name="rf", number=2, type=F.TYPE_FLOAT, label=F.LABEL_REPEATED)
    p3.field.add(name="s", number=3, type=F.TYPE_INT64, label=F.LABEL_OPTIONAL)
    p3.field.add(name="mode", number=4, type=F.TYPE_ENUM, type_name=".codec3.Mode", label=F.LABEL_OPTIONAL)
    p3.field.add(name="rs", number=5, type=F.TYPE_STRING, label=F.LABEL_REPEATED)
    return descriptor_pb2.FileDescriptorSet(file=[f2, f3])


FILE_SET = _file_set()
SOURCE = b"bytes://" + FILE_SET.SerializeToString()
_pool = descriptor_pool.DescriptorPool()
for _f in FILE_SET.file:
    _pool.Add(_f)
All = message_factory.GetMessageClass(_pool.FindMessageTypeByName("codec.All"))
Sub = message_factory.GetMessageClass(_pool.FindMessageTypeByName("codec.Sub"))
P3 = message_factory.GetMessageClass(_pool.FindMessageTypeByName("codec3.P3"))
COLORS = [7, -4, 0]


def _scalar(rng, name):
    if name == "double":
        return float(rng.standard_normal() * 1e3)
    if name == "float":
        return float(np.float32(rng.standard_normal() * 100))
    if name == "bool":
        return bool(rng.integers(2))
    lo, hi = RANGES[name]
    if rng.random() < 0.3:  # the extremes
        return [lo, hi - 1, 0, -1 if lo < 0 else 1][rng.integers(4)]
    return int(rng.integers(lo, hi, dtype=np.uint64 if lo >= 0 else np.int64))


def _random_all(rng):
    m = All()
    for name, *_ in SCALARS:
        if rng.random() < 0.6:
            setattr(m, f"o_{name}", _scalar(rng, name))
        getattr(m, f"r_{name}").extend(_scalar(rng, name) for _ in range(rng.integers(4)))
        getattr(m, f"p_{name}").extend(_scalar(rng, name) for _ in range(rng.integers(5)))
    if rng.random() < 0.5:
        m.o_string = f"s{rng.integers(100)}\u00e9"
    m.r_bytes.extend(bytes(rng.integers(0, 256, rng.integers(6), dtype=np.uint8)) for _ in range(rng.integers(3)))
    if rng.random() < 0.5:
        m.o_color = int(rng.choice(COLORS))
    m.r_color.extend(int(rng.choice(COLORS)) for _ in range(rng.integers(4)))
    if rng.random() < 0.5:
        m.o_sub.x = int(rng.integers(-50, 50))
        m.o_sub.y.extend(["a", "bc"][: rng.integers(3)])
    for _ in range(rng.integers(3)):
        m.r_sub.add(x=int(rng.integers(100)))
    if rng.random() < 0.5:
        m.grp.g = int(rng.integers(-(2**40), 2**40))
    m.r_bigtag.extend(int(v) for v in rng.integers(-(2**31), 2**31, rng.integers(3)))
    return m


def _field_values(msg, name):
    """(values, default) of field `name` of a Python message, strings of nested messages serialized."""
    field = msg.DESCRIPTOR.fields_by_name[name]
    value = getattr(msg, name)
    is_message = field.type in (F.TYPE_MESSAGE, F.TYPE_GROUP)
    if field.is_repeated:
        values = [v.SerializeToString() for v in value] if is_message else list(value)
    elif not field.has_presence:  # proto3: a value equal to the zero is not on the wire
        values = [value] if value else []
    elif msg.HasField(name):
        values = [value.SerializeToString() if is_message else value]
    else:
        values = []
    if is_message:
        default = b""
    elif field.type == F.TYPE_ENUM:
        default = field.enum_type.values[0].number
    elif field.is_repeated:  # protobuf's zero of the type
        default = b"" if field.type in (F.TYPE_STRING, F.TYPE_BYTES) else 0
    else:
        default = field.default_value
    return values, default


def _expected(msgs, batch_shape, names, dtypes):
    """What decode_proto should return for `msgs` (a flat list), from Python's parse of them."""
    sizes = np.zeros((len(msgs), len(names)), np.int32)
    values = []
    for i, (name, dtype) in enumerate(zip(names, dtypes)):
        per = [_field_values(m, name) for m in msgs]
        width = max([1] + [len(v) for v, _ in per])
        np_dtype = object if dtype == tw.string else dtype.as_numpy_dtype
        out = np.empty((len(msgs), width), np_dtype)
        for j, (vals, default) in enumerate(per):
            sizes[j, i] = len(vals)
            row = [v.encode() if isinstance(v, str) else v for v in vals]
            fill = default.encode() if isinstance(default, str) else default
            for k, v in enumerate(row + [fill] * (width - len(row))):
                out[j, k] = v
        values.append(out.reshape(batch_shape + [width]))
    return sizes.reshape(batch_shape + [len(names)]), values


def _all_requests(variant=None):
    """Every field of codec.All with every dtype it may decode to (variant None: each field once per dtype), or
    each field once: with its first (variant 0) or last (variant 1) dtype. For TensorFlow, whose kernel fills a
    field named twice only once, and whose group values keep the group's tags (`grp` left out)."""
    names, dtypes = [], []
    for name, _, allowed, _ in SCALARS:
        for prefix in ("o_", "r_", "p_"):
            for dtype in allowed if variant is None else [allowed[-variant]]:
                names.append(prefix + name)
                dtypes.append(dtype)
    for name, dtype in [
        ("o_string", tw.string),
        ("r_bytes", tw.string),
        ("o_color", tw.int32),
        ("r_color", tw.int32),
        ("o_sub", tw.string),
        ("r_sub", tw.string),
        ("grp", tw.string),
        ("r_bigtag", tw.int32),
    ]:
        if name == "grp" and variant is not None:
            continue
        names.append(name)
        dtypes.append(dtype)
    return names, dtypes


def _tf_requests(variant):
    """_all_requests(variant) without p_int32 as int64: TensorFlow's packed int32 -> int64 path does not
    sign-extend (checked in its own test below)."""
    names, dtypes = _all_requests(variant)
    keep = [i for i, (n, d) in enumerate(zip(names, dtypes)) if not (n == "p_int32" and d == tw.int64)]
    return [names[i] for i in keep], [dtypes[i] for i in keep]


def _decode_tw(serialized, names, dtypes, **kwargs):
    with tw.Graph().as_default(), tw.Session() as sess:
        sizes, values = tw.io.decode_proto(serialized, kwargs.pop("message_type", "codec.All"), names, dtypes, **kwargs)
        return sess.run([sizes, values])


def _tf_dtype(dtype):
    return tf.as_dtype(dtype.name)


def _tf_run(build):
    """TF's values of what `build` makes, in a graph and session of its own (other test files turn TF's eager
    execution off for the whole process)."""
    with tf.Graph().as_default():
        fetches = build()
        with tf.compat.v1.Session() as sess:
            return sess.run(fetches)


def _decode_tf(serialized, names, dtypes, **kwargs):
    kwargs.setdefault("descriptor_source", SOURCE)
    message_type = kwargs.pop("message_type", "codec.All")
    sizes, values = _tf_run(
        lambda: tuple(tf.io.decode_proto(serialized, message_type, names, [_tf_dtype(d) for d in dtypes], **kwargs))
    )
    return sizes, list(values)


def _assert_same(got, want):
    sizes, values = got
    np.testing.assert_array_equal(sizes, want[0])
    assert len(values) == len(want[1])
    for g, w in zip(values, want[1]):
        assert g.shape == w.shape
        if w.dtype == object:
            assert g.tolist() == w.tolist()
        else:
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)


def _messages(seed, n):
    rng = np.random.default_rng(seed)
    msgs = [_random_all(rng) for _ in range(n)]
    msgs[0] = All()  # an empty message: every field takes its default
    return msgs


def test_decode_every_field_type_and_dtype_matches_python_protobuf():
    msgs = _messages(1, 6)
    names, dtypes = _all_requests()
    serialized = np.array([m.SerializeToString() for m in msgs], dtype=object).reshape(2, 3)
    got = _decode_tw(serialized, names, dtypes, descriptor_source=SOURCE)
    _assert_same(got, _expected(msgs, [2, 3], names, dtypes))


@needs_tf
@pytest.mark.parametrize("variant", [0, 1])
def test_decode_matches_tensorflow(variant):
    msgs = _messages(2, 5)
    names, dtypes = _tf_requests(variant)
    serialized = [m.SerializeToString() for m in msgs]
    _assert_same(_decode_tw(serialized, names, dtypes, descriptor_source=SOURCE), _decode_tf(serialized, names, dtypes))


def test_group_value_is_the_group_message():
    m = All()
    m.grp.g = -12345
    sizes, values = _decode_tw([m.SerializeToString()], ["grp"], [tw.string], descriptor_source=SOURCE)
    assert sizes.tolist() == [[1]]
    Grp = message_factory.GetMessageClass(_pool.FindMessageTypeByName("codec.All.Grp"))
    assert Grp.FromString(values[0][0, 0]).g == -12345


def test_packed_negative_int32_as_int64_is_sign_extended():
    # Python's protobuf and TensorFlow's non-packed path give -1 (TensorFlow's packed path gives 2**32 - 1).
    m = All(p_int32=[-1, 5, -(2**31)], r_int32=[-1])
    sizes, values = _decode_tw(
        [m.SerializeToString()], ["p_int32", "r_int32"], [tw.int64, tw.int64], descriptor_source=SOURCE
    )
    assert sizes.tolist() == [[3, 1]]
    assert values[0].tolist() == [[-1, 5, -(2**31)]]
    assert values[1].tolist() == [[-1]]


def _encode_inputs(msgs, names, dtypes):
    sizes, values = _expected(msgs, [len(msgs)], names, dtypes)
    return sizes, values


def test_encode_parses_back_with_python_protobuf():
    msgs = _messages(3, 4)
    names, dtypes = _all_requests()
    sizes, values = _encode_inputs(msgs, names, dtypes)
    # Each field once, with its natural dtype.
    first = {}
    for i, n in enumerate(names):
        first.setdefault(n, i)
    idx = sorted(first.values())
    with tw.Graph().as_default(), tw.Session() as sess:
        out = tw.io.encode_proto(
            sizes[:, idx],
            [tw.constant(values[i], dtype=dtypes[i]) for i in idx],
            [names[i] for i in idx],
            "codec.All",
            descriptor_source=SOURCE,
        )
        assert out.shape.as_list() == [4]
        encoded = sess.run(out)
    for m, b in zip(msgs, encoded):
        assert All.FromString(b) == m


@needs_tf
def test_encode_writes_tensorflows_bytes():
    msgs = _messages(4, 4) + [All(p_int32=[-1], r_sint32=[-(2**31)], o_uint64=2**64 - 1)]
    names, dtypes = _all_requests()
    sizes, values = _encode_inputs(msgs, names, dtypes)
    with tw.Graph().as_default(), tw.Session() as sess:
        ours = sess.run(
            tw.io.encode_proto(
                sizes,
                [tw.constant(v, dtype=d) for v, d in zip(values, dtypes)],
                names,
                "codec.All",
                descriptor_source=SOURCE,
            )
        )
    theirs = _tf_run(
        lambda: tf.io.encode_proto(
            sizes,
            [tf.constant(v, dtype=_tf_dtype(d)) for v, d in zip(values, dtypes)],
            names,
            "codec.All",
            descriptor_source=SOURCE,
        )
    )
    assert ours.tolist() == theirs.tolist()


def test_round_trip_proto3_packed_by_default():
    msgs = [P3(ri=[1, -2, 3], rf=[0.5], s=-9, mode=5, rs=["x", ""]), P3(), P3(rs=["only"])]
    names, dtypes = ["ri", "rf", "s", "mode", "rs"], [tw.int32, tw.float32, tw.int64, tw.int32, tw.string]
    serialized = [m.SerializeToString() for m in msgs]
    with tw.Graph().as_default(), tw.Session() as sess:
        sizes, values = tw.io.decode_proto(serialized, "codec3.P3", names, dtypes, descriptor_source=SOURCE)
        again = tw.io.encode_proto(sizes, values, names, "codec3.P3", descriptor_source=SOURCE)
        got_sizes, got_values, encoded = sess.run([sizes, values, again])
    _assert_same((got_sizes, got_values), _expected(msgs, [3], names, dtypes))
    assert encoded.tolist() == serialized  # proto3 repeated scalars are written packed, as protobuf does


def test_last_value_wins_and_unrequested_or_mismatched_values_are_skipped():
    # Concatenated serializations merge: a non-repeated field keeps the last value, repeated ones append.
    a = All(o_int32=1, r_int32=[1, 2], o_string="a").SerializeToString()
    b = All(o_int32=2, r_int32=[3], o_double=0.25).SerializeToString()
    # Field o_int32 (number 13) as a fixed64 value: a wire type it cannot have, skipped as TensorFlow does.
    odd = bytes([13 << 3 | 1]) + bytes(8)
    serialized = [a + b, a + odd, b"" + odd]
    names, dtypes = ["o_int32", "r_int32", "o_string"], [tw.int32, tw.int32, tw.string]
    sizes, values = _decode_tw(serialized, names, dtypes, descriptor_source=SOURCE)
    assert sizes.tolist() == [[1, 3, 1], [1, 2, 1], [0, 0, 0]]
    assert values[0].tolist() == [[2], [1], [-5]]
    assert values[1].tolist() == [[1, 2, 3], [1, 2, 0], [0, 0, 0]]
    assert values[2].tolist() == [[b"a"], [b"a"], [b"dflt"]]
    if tf is not None:
        _assert_same((sizes, values), _decode_tf(serialized, names, dtypes))


def test_text_format_and_sanitize():
    msgs = _messages(5, 3)
    names, dtypes = _all_requests()
    texts = [text_format.MessageToString(m).encode() for m in msgs]
    want = _expected(msgs, [3], names, dtypes)
    _assert_same(_decode_tw(texts, names, dtypes, descriptor_source=SOURCE, message_format="text"), want)
    binary = [m.SerializeToString() for m in msgs]
    _assert_same(_decode_tw(binary, names, dtypes, descriptor_source=SOURCE, sanitize=True), want)
    if tf is not None:
        names, dtypes = _tf_requests(1)
        _assert_same(
            _decode_tw(texts, names, dtypes, descriptor_source=SOURCE, message_format="text"),
            _decode_tf(texts, names, dtypes, message_format="text"),
        )


def test_local_descriptors_and_a_descriptor_file(tmp_path):
    ex = example_pb2.Example()
    ex.features.feature["x"].int64_list.value.extend([1, 2])
    ex.features.feature["y"].bytes_list.value.append(b"hi")
    with tw.Graph().as_default(), tw.Session() as sess:
        sizes, (features,) = tw.io.decode_proto(
            [ex.SerializeToString()], "tensorweave.Example", ["features"], [tw.string]
        )
        s, f = sess.run([sizes, features])
    assert s.tolist() == [[1]]
    assert example_pb2.Features.FromString(f[0, 0]) == ex.features
    if tf is not None:
        # TensorFlow's own Example, linked into it: the same wire format.
        _, (tf_features,) = _tf_run(
            lambda: tf.io.decode_proto([ex.SerializeToString()], "tensorflow.Example", ["features"], [tf.string])
        )
        assert tf_features.tolist() == f.tolist()
    path = tmp_path / "set.pb"
    path.write_bytes(FILE_SET.SerializeToString())
    m = P3(ri=[4, 5])
    sizes, values = _decode_tw(
        [m.SerializeToString()], ["ri"], [tw.int32], message_type="codec3.P3", descriptor_source=str(path)
    )
    assert sizes.tolist() == [[2]] and values[0].tolist() == [[4, 5]]


def test_static_shapes(graph):
    bytes_ = tw.placeholder(tw.string, [None, 3])
    sizes, values = tw.io.decode_proto(
        bytes_, "codec.All", ["r_int32", "o_string"], [tw.int32, tw.string], descriptor_source=SOURCE
    )
    assert sizes.shape.as_list() == [None, 3, 2]
    assert [v.shape.as_list() for v in values] == [[None, 3, None], [None, 3, None]]
    assert [v.dtype for v in values] == [tw.int32, tw.string]
    out = tw.io.encode_proto(
        tw.placeholder(tw.int32, [None, 2]),
        [tw.zeros([4, 3], tw.int32), tw.placeholder(tw.string, [None, 1])],
        ["r_int32", "o_string"],
        "codec.All",
        descriptor_source=SOURCE,
    )
    assert out.shape.as_list() == [4]
    assert {op.type for op in graph.get_operations()} >= {"DecodeProtoV2", "EncodeProto"}


def _decode_error(serialized, names, dtypes, **kwargs):
    kwargs.setdefault("descriptor_source", SOURCE)
    with pytest.raises(tw.errors.OpError) as info:
        _decode_tw(serialized, names, dtypes, **kwargs)
    return info.value


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (
            {"message_type": "codec.Nope"},
            tw.errors.InvalidArgumentError,
            "No descriptor found for message type codec.Nope",
        ),
        ({"names": ["nope"]}, tw.errors.InvalidArgumentError, "Unknown field: nope in message type codec.All"),
        (
            {"dtypes": [tw.string]},
            tw.errors.InvalidArgumentError,
            "Unexpected output type for codec.All.r_int32: int32 to string",
        ),
        ({"dtypes": [tw.float32]}, tw.errors.InvalidArgumentError, "Unexpected output type"),
        ({"message_format": "json"}, tw.errors.InvalidArgumentError, "format must be one of binary or text"),
        ({"descriptor_source": "/no/such/file.pb"}, tw.errors.InvalidArgumentError, "neither 'local://'"),
        (
            {"descriptor_source": b"bytes://\xff\xff\xff"},
            tw.errors.InvalidArgumentError,
            "does not hold a serialized FileDescriptorSet",
        ),
        ({"serialized": np.array([], dtype=object)}, tw.errors.InvalidArgumentError, "at least one value"),
        (
            {"serialized": [b"\x08"]},
            tw.errors.DataLossError,
            "Malformed value of field number 1 in serialized codec.All",
        ),
        (
            {"serialized": [b"ri: 1"], "message_format": "text"},
            tw.errors.DataLossError,
            "Unable to parse text protobuf",
        ),
        ({"serialized": [b"\x0a\x05ab"], "sanitize": True}, tw.errors.DataLossError, "Unable to parse binary protobuf"),
    ],
)
def test_decode_errors(kwargs, error, match):
    serialized = kwargs.pop("serialized", [All(r_int32=[1]).SerializeToString()])
    names = kwargs.pop("names", ["r_int32"])
    dtypes = kwargs.pop("dtypes", [tw.int32])
    err = _decode_error(serialized, names, dtypes, **kwargs)
    assert type(err) is error
    assert match in str(err)


def test_descriptor_set_whose_import_is_missing_is_an_error():
    f = descriptor_pb2.FileDescriptorProto(name="needs.proto", package="n", dependency=["codec_test2.proto"])
    f.message_type.add(name="M").field.add(
        name="s", number=1, type=F.TYPE_MESSAGE, type_name=".codec.Sub", label=F.LABEL_OPTIONAL
    )
    source = b"bytes://" + descriptor_pb2.FileDescriptorSet(file=[f]).SerializeToString()
    err = _decode_error([b""], ["s"], [tw.string], message_type="n.M", descriptor_source=source)
    assert isinstance(err, tw.errors.InvalidArgumentError) and "needs.proto" in str(err)


def test_decode_attr_lengths_must_match(graph):
    with pytest.raises(ValueError, match="field_names and output_types"):
        tw.io.decode_proto([b""], "codec.All", ["r_int32", "o_int32"], [tw.int32], descriptor_source=SOURCE)


MALFORMED = [
    b"\xff",  # a truncated tag
    b"\x00",  # field number 0
    b"\x0f",  # wire type 7
    b"\x08",  # o_double's tag, no value
    b"\x09\x01\x02",  # a truncated fixed64
    b"\x32\x05ab",  # a length past the end
    b"\x68\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01",  # an 11-byte varint
    b"\x0c",  # an end-group tag without its start
    b"\xd3\x06\x08\x01",  # grp's start tag, no end
    b"\xd3\x06\xdc\x06",  # grp ended by another field's end tag
    b"\x1a\x03\x01\x02\x03",  # p_double packed: 3 bytes
    b"\x92\x01\x03\x01\x02\x03",  # p_fixed64 packed: 3 bytes
    b"\xba\x02\x01\x80",  # p_sint64 packed: a varint cut short
    b"\xd2\x06\x00",  # grp as a length-delimited value
]


@pytest.mark.parametrize("serialized", MALFORMED)
def test_malformed_bytes_are_data_loss_as_in_tensorflow(serialized):
    names, dtypes = _all_requests()
    err = _decode_error([serialized], names, dtypes)
    assert isinstance(err, tw.errors.DataLossError), err
    if tf is not None:
        with pytest.raises(tf.errors.DataLossError):
            _decode_tf([serialized], names, dtypes)


@pytest.mark.parametrize(
    "sizes, values, names, error, match",
    [
        ([[1]], [[[1]]], ["nope"], tw.errors.InvalidArgumentError, "Unknown field: nope in message type codec.All"),
        (
            [[1]],
            [[["x"]]],
            ["r_int32"],
            tw.errors.InvalidArgumentError,
            "Incompatible type for field r_int32.  Saw dtype: string but field type is: int32",
        ),
        (
            [[3]],
            [[[1, 2]]],
            ["r_int32"],
            tw.errors.InvalidArgumentError,
            "must not be larger than value tensor; but saw: 3 > 2 at message 0 field 0",
        ),
        ([[-1]], [[[1, 2]]], ["r_int32"], tw.errors.InvalidArgumentError, "must not be negative"),
        (
            "feed",
            [[[1, 2]]],
            ["r_int32"],
            tw.errors.InvalidArgumentError,
            "sizes should be batch_size + [len(field_names)].  Saw: [1,2] but expected: [1,1]",
        ),
        (
            [[1, 1]],
            "feed",
            ["r_int32", "o_int32"],
            tw.errors.InvalidArgumentError,
            "Values must match up to the last dimension",
        ),
    ],
)
def test_encode_errors(sizes, values, names, error, match):
    with tw.Graph().as_default(), tw.Session() as sess:
        feeds = {}
        if sizes == "feed":
            sizes = tw.placeholder(tw.int32)
            feeds[sizes] = [[1, 1]]
        if values == "feed":
            v0, v1 = tw.placeholder(tw.int32), tw.placeholder(tw.int32)
            values = [v0, v1]
            feeds.update({v0: [[1]], v1: [[1], [2]]})
        values = [tw.constant(v) if not isinstance(v, tw.Tensor) else v for v in values]
        out = tw.io.encode_proto(sizes, values, names, "codec.All", descriptor_source=SOURCE)
        with pytest.raises(error, match=re.escape(match)):
            sess.run(out, feed_dict=feeds)


def test_encode_shape_errors_at_construction(graph):
    with pytest.raises(ValueError, match="should be at least a matrix"):
        tw.io.encode_proto([2], [tw.constant([1, 2])], ["r_int32"], "codec.All", descriptor_source=SOURCE)
    with pytest.raises(ValueError, match="Values must match up to the last dimension"):
        tw.io.encode_proto(
            [[1, 1]],
            [tw.zeros([1, 2], tw.int32), tw.zeros([2, 2], tw.int32)],
            ["r_int32", "o_int32"],
            "codec.All",
            descriptor_source=SOURCE,
        )
    with pytest.raises(ValueError, match="sizes should be batch_size"):
        tw.io.encode_proto([[1, 1]], [tw.zeros([1, 2], tw.int32)], ["r_int32"], "codec.All", descriptor_source=SOURCE)
    with pytest.raises(ValueError, match="Length of inputs list must match field_names"):
        tw.io.encode_proto(
            [[1]], [tw.zeros([1, 2], tw.int32)], ["r_int32", "o_int32"], "codec.All", descriptor_source=SOURCE
        )
    with pytest.raises(TypeError):
        tw.io.encode_proto([[1]], tw.zeros([1, 2], tw.int32), ["r_int32"], "codec.All", descriptor_source=SOURCE)


def test_not_differentiable(graph):
    x = tw.constant([[1.5]])
    out = tw.io.encode_proto([[1]], [x], ["r_float"], "codec.All", descriptor_source=SOURCE)
    _, (y,) = tw.io.decode_proto(out, "codec.All", ["r_float"], [tw.float32], descriptor_source=SOURCE)
    assert tw.gradients(y, x) == [None]


def _mutations(rng, seeds, count):
    for _ in range(count):
        base = bytearray(seeds[rng.integers(len(seeds))])
        kind = rng.integers(4)
        if kind == 0 or not base:
            yield bytes(rng.integers(0, 256, rng.integers(1, 24), dtype=np.uint8))
        elif kind == 1:  # flip bytes
            for _ in range(rng.integers(1, 4)):
                base[rng.integers(len(base))] = rng.integers(256)
            yield bytes(base)
        elif kind == 2:  # truncate
            yield bytes(base[: rng.integers(len(base))])
        else:  # splice random bytes in
            at = rng.integers(len(base) + 1)
            yield bytes(base[:at] + bytes(rng.integers(0, 256, rng.integers(1, 6), dtype=np.uint8)) + base[at:])


def test_random_and_mutated_bytes_never_crash_and_agree_with_tensorflow():
    rng = np.random.default_rng(7)
    seeds = [m.SerializeToString() for m in _messages(8, 6)]
    names, dtypes = _tf_requests(1)
    inputs = list(_mutations(rng, seeds, 400))
    with tw.Graph().as_default(), tw.Session() as sess:
        feed = tw.placeholder(tw.string, [1])
        sizes, values = tw.io.decode_proto(feed, "codec.All", names, dtypes, descriptor_source=SOURCE)
        ok = lost = 0
        for data in inputs:
            try:
                got = sess.run([sizes, values], {feed: [data]})
            except tw.errors.DataLossError:
                got = None
                lost += 1
            else:
                ok += 1
            if tf is None:
                continue
            try:
                want = _decode_tf([data], names, dtypes)
            except tf.errors.DataLossError as e:
                # TensorFlow's own quirk: a packed run after a non-repeated field's value overflows its buffer.
                if "Tried to write more entries than allowed" in str(e):
                    continue
                want = None
            assert (got is None) == (want is None), data
            if got is not None:
                _assert_same(got, want)
    assert ok > 10 and lost > 10  # both outcomes were exercised

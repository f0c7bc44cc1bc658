"""TensorProtos from outside: TensorFlow's serialized tensors, hand-made and hostile protos.

The oracle is TensorFlow 1 (tensorflow.compat.v1): tests/data/tf_tensor_protos.json holds bytes TensorFlow wrote and
what TensorFlow read from each proto (tests/data/make_tf_tensor_protos.py writes it; where TensorFlow is installed,
one test runs it again in a separate process and compares). Every proto that TensorFlow cannot load must give
InvalidArgumentError naming the node here too, never a crash or a huge allocation.
"""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import tensorweave as tw
from tensorweave._src.framework import graph_pb2

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
with open(os.path.join(DATA, "tf_tensor_protos.json")) as _f:
    TF = json.load(_f)

ERRORS = {"InvalidArgumentError": tw.errors.InvalidArgumentError}


def from_json(entry):
    """The numpy array a to_json entry of the generator describes."""
    if entry["dtype"] == "string":
        return np.array([bytes.fromhex(v) for v in entry["values"]], dtype=object).reshape(entry["shape"])
    return np.array(entry["values"], dtype=entry["dtype"]).reshape(entry["shape"])


def assert_same(got, want):
    got = np.array(got, dtype=object) if isinstance(got, bytes) else np.asarray(got)  # a string scalar: bytes
    assert got.shape == want.shape
    if want.dtype == object:
        assert got.dtype == object
        assert got.reshape(-1).tolist() == want.reshape(-1).tolist()
    else:
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def _id(entry):
    return f"{entry['dtype']}-{'x'.join(map(str, entry['value']['shape'])) or 'scalar'}"


@pytest.fixture(scope="module")
def sess():
    with tw.Graph().as_default(), tw.Session() as s:
        yield s


@pytest.mark.parametrize("entry", TF["serialized"], ids=_id)
def test_parse_tensor_reads_what_tensorflow_serialized(sess, entry):
    data = bytes.fromhex(entry["hex"])
    got = sess.run(tw.io.parse_tensor(data, getattr(tw, entry["dtype"])))
    assert_same(got, from_json(entry["value"]))


@pytest.mark.parametrize("entry", TF["serialized"], ids=_id)
def test_serialize_tensor_writes_tensorflows_bytes(sess, entry):
    # The bytes are identical to TensorFlow's (numbers in tensor_content, strings in string_val).
    value = from_json(entry["value"])
    got = sess.run(tw.io.serialize_tensor(tw.constant(value, dtype=getattr(tw, entry["dtype"]))))
    assert got.hex() == entry["hex"]


@pytest.mark.parametrize("entry", TF["protos"], ids=lambda e: e["name"])
def test_parse_tensor_of_handmade_protos_as_tensorflow(sess, entry):
    data = tw.placeholder(tw.string, [])
    parsed = tw.io.parse_tensor(data, getattr(tw, entry["out_type"]), name="parse_" + entry["name"])
    feed = {data: bytes.fromhex(entry["hex"])}
    if "error" in entry:
        with pytest.raises(ERRORS[entry["error"]]) as info:
            sess.run(parsed, feed)
        assert "parse_" + entry["name"] in str(info.value)
    else:
        assert_same(sess.run(parsed, feed), from_json(entry["value"]))


def _proto(dtype, dims, **fields):
    proto = graph_pb2.TensorProto(dtype=dtype.as_datatype_enum)
    for d in dims:
        proto.tensor_shape.dim.add().size = d
    for key, value in fields.items():
        if key == "tensor_content":
            proto.tensor_content = value
        else:
            getattr(proto, key).extend(value)
    return proto


def test_huge_fill_errors_name_the_op_shape_and_dtype(sess):
    proto = _proto(tw.float32, [2**36], float_val=[1.0])
    with pytest.raises(tw.errors.InvalidArgumentError) as info:
        sess.run(tw.io.parse_tensor(proto.SerializeToString(), tw.float32, name="giant"))
    message = str(info.value)
    assert "[68719476736]" in message and "float32" in message and "node giant" in message, message


def test_fill_that_cannot_be_allocated_is_invalid_argument_not_a_crash():
    # Under an address-space limit a fill that fits the machine's free memory fails to allocate: an error, as
    # TensorFlow's ParseTensor (which gives InvalidArgumentError for it), and the process carries on.
    script = textwrap.dedent(
        """
        import resource, sys
        import tensorweave as tw
        from tensorweave._src.framework import graph_pb2
        proto = graph_pb2.TensorProto(dtype=tw.float64.as_datatype_enum, double_val=[1.5])
        proto.tensor_shape.dim.add().size = 3 << 27  # 3 GiB of doubles
        with open("/proc/self/statm") as f:
            used = int(f.read().split()[0]) * resource.getpagesize()
        resource.setrlimit(resource.RLIMIT_AS, (used + (1 << 30), resource.RLIM_INFINITY))
        with tw.Graph().as_default(), tw.Session() as sess:
            try:
                sess.run(tw.io.parse_tensor(proto.SerializeToString(), tw.float64, name="fill"))
                print("no error")
            except tw.errors.InvalidArgumentError as e:
                print("InvalidArgumentError", "fill" in str(e))
            print(sess.run(tw.io.parse_tensor(tw.io.serialize_tensor([1, 2]), tw.int32)).tolist())
        """
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run(
        [sys.executable, "-c", script], check=False, capture_output=True, text=True, env=env, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split("\n")[:2] == ["InvalidArgumentError True", "[1, 2]"], out.stdout


def _const_graph_def(name, proto):
    graph_def = graph_pb2.GraphDef()
    node = graph_def.node.add(name=name, op="Const")
    node.attr["dtype"].type = proto.dtype
    node.attr["value"].tensor.CopyFrom(proto)
    return graph_def


@pytest.mark.parametrize(
    "proto",
    [
        _proto(tw.float32, [2**40], float_val=[1.0]),
        _proto(tw.float32, [2**40, 2**40]),
        _proto(tw.int64, [-3], int64_val=[1]),
        _proto(tw.float32, [2**62], tensor_content=b"\x00" * 8),
        _proto(tw.string, [2**40], string_val=[b"x"]),
        _proto(tw.string, [2], tensor_content=b"\x09\x00abc"),
    ],
    ids=["fill", "overflow", "negative", "content", "strings", "string_content"],
)
def test_hostile_const_in_an_imported_graph_def_is_an_error(proto):
    # The import may refuse the node at once, or the run; either way an InvalidArgumentError naming the node.
    with tw.Graph().as_default(), pytest.raises(tw.errors.InvalidArgumentError, match="hostile"):
        (c,) = tw.import_graph_def(_const_graph_def("hostile", proto), return_elements=["hostile:0"], name="")
        with tw.Session() as s:
            s.run(c)


def test_consts_of_a_tensorflow_graph_def():
    graph_def = graph_pb2.GraphDef.FromString(bytes.fromhex(TF["graph_def"]["hex"]))
    values = TF["graph_def"]["values"]
    with tw.Graph().as_default():
        tw.import_graph_def(graph_def, name="")
        with tw.Session() as s:
            got = s.run({name: name + ":0" for name in values})
    for name, want in values.items():
        assert_same(got[name], from_json(want))


def _sparse_triple(indices, values, shape):
    return np.array([p.SerializeToString() for p in (indices, values, shape)], dtype=object)


@pytest.mark.parametrize("which", [0, 1, 2])
def test_deserialize_sparse_with_a_hostile_proto(sess, which):
    good = [
        _proto(tw.int64, [1, 1], int64_val=[0]),
        _proto(tw.float32, [1], float_val=[1.0]),
        _proto(tw.int64, [1], int64_val=[3]),
    ]
    triple = list(good)
    triple[which] = _proto(triple[which].dtype and tw.as_dtype(triple[which].dtype), [2**41, 2**20])
    serialized = _sparse_triple(*good).reshape(1, 3)
    ok = sess.run(tw.io.deserialize_many_sparse(serialized, tw.float32))
    np.testing.assert_array_equal(ok.values, [1.0])
    bad = _sparse_triple(*triple).reshape(1, 3)
    with pytest.raises(tw.errors.InvalidArgumentError):
        sess.run(tw.io.deserialize_many_sparse(bad, tw.float32))


@pytest.mark.parametrize("entry", TF["make_tensor_proto"], ids=lambda e: e["hex"][:24])
def test_make_tensor_proto_and_make_ndarray_as_tensorflow(entry):
    values = entry["values"]
    if isinstance(values, dict):
        values = [bytes.fromhex(s) for s in values["strings_hex"]]
    elif entry["values_dtype"]:
        values = np.array(values, dtype=entry["values_dtype"])
    dtype = getattr(tw, entry["dtype"]) if entry["dtype"] else None
    proto = tw.make_tensor_proto(values, dtype=dtype, shape=entry["shape"])
    want = graph_pb2.TensorProto.FromString(bytes.fromhex(entry["hex"]))
    # The same bytes: tensor_content or the *_val field as TensorFlow picks, a fill kept as one value.
    assert proto.SerializeToString().hex() == entry["hex"]
    assert_same(tw.make_ndarray(proto), from_json(entry["ndarray"]))
    assert_same(tw.make_ndarray(want), from_json(entry["ndarray"]))


@pytest.mark.parametrize(
    "entry", [e for e in TF["protos"] if "value" in e and e["name"] != "dtype_is_not_out_type"], ids=lambda e: e["name"]
)
def test_make_ndarray_of_handmade_protos(entry):
    # Where TensorFlow's make_ndarray (Python) gives a value, the same value. Where it raises (more values than
    # elements, strings in tensor_content, no string values, int_val 300 into int8, an empty tensor with values),
    # tensorweave reads the proto as TensorFlow's C++ FromProto (parse_tensor) does: a deliberate difference.
    proto = graph_pb2.TensorProto.FromString(bytes.fromhex(entry["hex"]))
    want = entry["value"] if "ndarray_error" in entry else entry["ndarray"]
    assert_same(tw.make_ndarray(proto), from_json(want))


@pytest.mark.parametrize("entry", [e for e in TF["protos"] if "error" in e], ids=lambda e: e["name"])
def test_make_ndarray_refuses_what_parse_tensor_refuses(entry):
    proto = graph_pb2.TensorProto.FromString(bytes.fromhex(entry["hex"]))
    if entry["name"] in ("dtype_is_not_out_type",):
        return  # a valid proto: only parse_tensor's out_type differs
    if entry["name"].startswith("huge") or entry["name"] in ("element_count_overflows", "byte_size_overflows"):
        pytest.skip("make_ndarray has no memory cap: as TensorFlow's, it allocates what the shape asks")
    with pytest.raises((ValueError, TypeError)):
        tw.make_ndarray(proto)


def test_tensorflow_agrees_with_the_stored_file_and_reads_tensorweaves_bytes(tmp_path, sess):
    """Where TensorFlow is installed: regenerate the file in a separate process and compare; then TensorFlow
    parses what tensorweave serialized (a string tensor from tensor_content included)."""
    pytest.importorskip("tensorflow", reason="TensorFlow is not installed")
    subprocess.run(
        [sys.executable, os.path.join(DATA, "make_tf_tensor_protos.py"), str(tmp_path)],
        check=True,
        capture_output=True,
        timeout=600,
        preexec_fn=lambda: __import__("resource").setrlimit(__import__("resource").RLIMIT_AS, (8 << 30, 8 << 30)),
    )
    with open(tmp_path / "tf_tensor_protos.json") as f:
        fresh = json.load(f)
    assert fresh["serialized"] == TF["serialized"]
    assert fresh["protos"] == TF["protos"]
    assert fresh["graph_def"]["values"] == TF["graph_def"]["values"]

    ours = []
    for entry in TF["serialized"]:
        value = from_json(entry["value"])
        data = sess.run(tw.io.serialize_tensor(tw.constant(value, dtype=getattr(tw, entry["dtype"]))))
        ours.append({"dtype": entry["dtype"], "hex": data.hex()})
    script = textwrap.dedent(
        """
        import json, sys
        import numpy as np
        import tensorflow.compat.v1 as tf
        tf.disable_v2_behavior()
        entries = json.load(open(sys.argv[1]))
        out = []
        with tf.Session() as s:
            for e in entries:
                v = s.run(tf.io.parse_tensor(bytes.fromhex(e["hex"]), getattr(tf, e["dtype"])))
                v = np.array(v, dtype=object) if isinstance(v, bytes) else v
                out.append({"shape": list(v.shape), "values": [x.hex() if isinstance(x, bytes) else x
                            for x in v.reshape(-1).tolist()]})
        json.dump(out, open(sys.argv[2], "w"))
        """
    )
    (tmp_path / "ours.json").write_text(json.dumps(ours))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "ours.json"), str(tmp_path / "tf_read.json")],
        check=True,
        capture_output=True,
        env=env,
        timeout=600,
    )
    tf_read = json.loads((tmp_path / "tf_read.json").read_text())
    for entry, got in zip(TF["serialized"], tf_read):
        assert got["shape"] == entry["value"]["shape"]
        assert got["values"] == entry["value"]["values"], entry["dtype"]


_CONVERTER_DTYPES = ("float32", "float64", "int32", "uint8", "int64", "bool")


@pytest.mark.parametrize(
    "entry", [e for e in TF["protos"] if "value" in e and e["out_type"] in _CONVERTER_DTYPES], ids=lambda e: e["name"]
)
def test_converters_read_const_values_as_tensorflow(entry):
    from converters import graph_util

    proto = graph_pb2.TensorProto.FromString(bytes.fromhex(entry["hex"]))
    assert_same(graph_util.tensor_proto_to_numpy(proto), from_json(entry["value"]))


@pytest.mark.parametrize(
    "proto",
    [
        _proto(tw.float32, [2**40], float_val=[1.0]),
        _proto(tw.int64, [2**20, 2**20]),
        _proto(tw.float32, [2**40, 2**40], float_val=[1.0]),
        _proto(tw.float32, [-3], float_val=[1.0]),
        _proto(tw.float32, [3], tensor_content=b"\x00" * 8),
        _proto(tw.float64, [2**62], tensor_content=b"\x00" * 8),
    ],
    ids=["fill", "zero_fill", "overflow", "negative", "short_content", "content_huge_shape"],
)
def test_converters_refuse_hostile_const_values(proto):
    from converters import graph_util
    from converters.errors import ConversionError

    with pytest.raises(ConversionError):
        graph_util.tensor_proto_to_numpy(proto)

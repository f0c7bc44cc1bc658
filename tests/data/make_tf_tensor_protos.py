"""Writes tf_tensor_protos.json: TensorProto bytes that TensorFlow 1 (tensorflow.compat.v1, v2 behaviour off)
writes or reads, and what TensorFlow makes of them. tests/test_tensor_proto_boundary.py checks tensorweave against
it (and, where TensorFlow is installed, runs parts of this again). Sections:

- "serialized": tf.io.serialize_tensor of every dtype both have (float16/32/64, int8/16/32/64, uint8/16/32/64,
  bool, string) at shapes [], [0], [3], [2, 3]: the bytes and the values.
- "protos": hand-made TensorProtos (value counts, strings in tensor_content, lies about the shape, huge fills) and
  what tf.io.parse_tensor returns for each: the values, or the error class. Run under an 8 GB address-space limit
  (ulimit -v) so that a huge fill fails to allocate instead of taking the machine.
- "graph_def": a GraphDef of Const nodes (tensor_content, *_val fields, a broadcast fill, strings) and their values.
- "make_tensor_proto": tf.make_tensor_proto(values, dtype, shape) bytes for a few calls.

  python tests/data/make_tf_tensor_protos.py [output directory, default: this script's directory]
"""

import json
import os
import sys

import numpy as np

DTYPES = [
    "float16",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "bool",
    "string",
]
SHAPES = [[], [0], [3], [2, 3]]
STRINGS = [b"", b"a", b"hello", b"\x00\xff", b"x" * 200, b"zz"]


def sample(dtype, shape):
    """Deterministic values of `dtype` and `shape`, with the dtype's extremes."""
    n = int(np.prod(shape, dtype=np.int64))
    if dtype == "string":
        return np.array([STRINGS[i % 6] for i in range(n)], dtype=object).reshape(shape)
    if dtype == "bool":
        return (np.arange(n) % 2 == 0).reshape(shape)
    np_dtype = np.dtype(dtype)
    if np_dtype.kind == "f":
        base = [1.5, -2.25, 0.0, 3e3, -0.5, 7.0]
    elif np_dtype.kind == "u":
        base = [int(np.iinfo(np_dtype).max), 0, 1, 7, 200, 3]
    else:
        base = [int(np.iinfo(np_dtype).min), int(np.iinfo(np_dtype).max), -1, 0, 5, 100]
    return np.array([base[i % 6] for i in range(n)], dtype=object).astype(np_dtype).reshape(shape)


def to_json(array):
    """A numpy array as JSON: dtype, shape and flat values (strings as hex)."""
    array = np.asarray(array)
    if array.dtype == object or array.dtype.kind == "S":
        values = [bytes(v).hex() for v in array.reshape(-1)]
        dtype = "string"
    else:
        values = array.reshape(-1).tolist()
        dtype = array.dtype.name
    return {"dtype": dtype, "shape": list(array.shape), "values": values}


def proto_cases(tensor_pb2, types_pb2):
    """(name, out_type, TensorProto) triples."""

    def make(dtype, dims, **fields):
        proto = tensor_pb2.TensorProto(dtype=getattr(types_pb2, dtype))
        for d in dims:
            proto.tensor_shape.dim.add().size = d
        for key, value in fields.items():
            if key == "tensor_content":
                proto.tensor_content = value
            else:
                getattr(proto, key).extend(value)
        return proto

    string_content = b"\x02\x00\xc8\x01" + b"ab" + b"x" * 200
    return [
        ("fewer_values_repeat_the_last", "float32", make("DT_FLOAT", [4], float_val=[1, 2])),
        ("no_values_are_zeros", "float32", make("DT_FLOAT", [3])),
        ("more_values_are_cut", "float32", make("DT_FLOAT", [2], float_val=[1, 2, 3, 4])),
        ("empty_tensor_ignores_content", "int32", make("DT_INT32", [0], tensor_content=b"abcd")),
        ("empty_2d_ignores_values", "int64", make("DT_INT64", [2, 0], int64_val=[5])),
        ("string_tensor_content", "string", make("DT_STRING", [3], tensor_content=string_content)),
        ("string_tensor_content_2d", "string", make("DT_STRING", [2, 1], tensor_content=b"\x01\x01ab")),
        ("string_fewer_values", "string", make("DT_STRING", [3], string_val=[b"a", b"b"])),
        ("string_no_values", "string", make("DT_STRING", [2])),
        ("int8_int_val_wraps", "int8", make("DT_INT8", [2], int_val=[300, -1])),
        ("uint16_int_val_wraps", "uint16", make("DT_UINT16", [2], int_val=[70000])),
        ("uint8_int_val", "uint8", make("DT_UINT8", [3], int_val=[255, 1])),
        ("half_val_bits", "float16", make("DT_HALF", [3], half_val=[0x3C00, 0xC000])),
        ("bool_ignores_int_val", "bool", make("DT_BOOL", [2], int_val=[1])),
        ("bool_val", "bool", make("DT_BOOL", [3], bool_val=[False, True])),
        ("uint32_val", "uint32", make("DT_UINT32", [2], uint32_val=[4294967295])),
        ("uint64_val", "uint64", make("DT_UINT64", [2], uint64_val=[18446744073709551615, 3])),
        ("int64_val_scalar", "int64", make("DT_INT64", [], int64_val=[-(2**63)])),
        ("double_content", "float64", make("DT_DOUBLE", [2], tensor_content=np.array([1.5, -2.0]).tobytes())),
        # Errors.
        ("content_too_short", "float32", make("DT_FLOAT", [3], tensor_content=b"abcd")),
        ("content_too_long", "float32", make("DT_FLOAT", [1], tensor_content=b"abcdefgh")),
        ("content_for_a_huge_shape", "float32", make("DT_FLOAT", [2**62], tensor_content=b"abcd")),
        ("negative_dim", "float32", make("DT_FLOAT", [-1], float_val=[1])),
        ("very_negative_dim", "float32", make("DT_FLOAT", [-5], float_val=[1])),
        ("element_count_overflows", "float32", make("DT_FLOAT", [2**40, 2**40], float_val=[1])),
        ("byte_size_overflows", "float64", make("DT_DOUBLE", [2**61, 2], double_val=[1])),
        ("huge_fill_one_value", "float32", make("DT_FLOAT", [2**36], float_val=[1])),
        ("huge_fill_no_value", "int64", make("DT_INT64", [2**20, 2**20])),
        ("huge_string_fill", "string", make("DT_STRING", [2**40], string_val=[b"s"])),
        ("string_content_too_short", "string", make("DT_STRING", [3], tensor_content=b"\x02\x00")),
        ("string_content_lengths_lie", "string", make("DT_STRING", [2], tensor_content=b"\x05\x00ab")),
        ("string_content_bad_varint", "string", make("DT_STRING", [1], tensor_content=b"\xff\xff\xff\xff\xff\x0f")),
        ("dtype_is_not_out_type", "float32", make("DT_INT32", [2], int_val=[3, 1])),
        ("invalid_dtype", "float32", make("DT_INVALID", [1], float_val=[1])),
    ]


def main(out_dir):
    import tensorflow.compat.v1 as tf
    from tensorflow.core.framework import tensor_pb2, types_pb2

    tf.disable_v2_behavior()
    result = {"serialized": [], "protos": [], "graph_def": {}, "make_tensor_proto": []}
    with tf.Graph().as_default(), tf.Session() as sess:
        for dtype in DTYPES:
            for shape in SHAPES:
                value = sample(dtype, shape)
                data = sess.run(tf.io.serialize_tensor(tf.constant(value, dtype=getattr(tf, dtype))))
                back = sess.run(tf.io.parse_tensor(data, getattr(tf, dtype)))
                result["serialized"].append({"hex": data.hex(), "value": to_json(back), "dtype": dtype})

        serialized = tf.placeholder(tf.string, [])
        for name, out_type, proto in proto_cases(tensor_pb2, types_pb2):
            entry = {"name": name, "out_type": out_type, "hex": proto.SerializeToString().hex()}
            try:
                parsed = tf.io.parse_tensor(serialized, getattr(tf, out_type))
                entry["value"] = to_json(sess.run(parsed, {serialized: proto.SerializeToString()}))
            except tf.errors.OpError as e:
                entry["error"] = type(e).__name__
            if "value" in entry:
                try:
                    entry["ndarray"] = to_json(tf.make_ndarray(proto))
                except Exception as e:  # noqa: BLE001 - recorded for the test to compare
                    entry["ndarray_error"] = type(e).__name__
            result["protos"].append(entry)

    graph = tf.Graph()
    with graph.as_default():
        consts = {
            "content_f32": tf.constant(sample("float32", [2, 3]), name="content_f32"),
            "content_i64": tf.constant(sample("int64", [3]), name="content_i64"),
            "strings": tf.constant(sample("string", [2, 3]), name="strings"),
            "half_scalar": tf.constant(np.float16(1.5), name="half_scalar"),
            "int8_vector": tf.constant(sample("int8", [3]), name="int8_vector"),
            "uint16_matrix": tf.constant(sample("uint16", [2, 3]), name="uint16_matrix"),
            "bool_vector": tf.constant(sample("bool", [3]), name="bool_vector"),
            "fill_f64": tf.constant(2.5, dtype=tf.float64, shape=[100, 100], name="fill_f64"),
            "empty_f32": tf.constant(np.zeros([0, 4], np.float32), name="empty_f32"),
        }
    graph_def = graph.as_graph_def()
    with tf.Session(graph=graph) as sess:
        values = sess.run(consts)
    result["graph_def"] = {
        "hex": graph_def.SerializeToString().hex(),
        "values": {name: to_json(v) for name, v in values.items()},
    }

    for args in [
        ([[1.0, 2.0], [3.0, 4.0]], None, None),
        (7, "int64", [2, 2]),
        ([1, 2, 3], "int32", None),
        ([b"a", b"bc"], "string", None),
        (np.arange(6, dtype=np.uint16).reshape(2, 3), None, None),
        (0.5, "float16", [3]),
        (True, "bool", [2]),
        (5, None, None),
        ([1, 2], "int32", [4]),
        (7, "int64", [2, 0]),
        ([True, False], None, None),
        (3, "uint16", [2, 2]),
        ([[1.5]], None, None),
        ("ab", None, [3]),
    ]:
        values, dtype, shape = args
        proto = tf.make_tensor_proto(values, dtype=getattr(tf, dtype) if dtype else None, shape=shape)
        stored = values.tolist() if isinstance(values, np.ndarray) else values
        if isinstance(stored, list) and stored and isinstance(stored[0], bytes):
            stored = {"strings_hex": [s.hex() for s in stored]}
        result["make_tensor_proto"].append(
            {
                "values": stored,
                "values_dtype": values.dtype.name if isinstance(values, np.ndarray) else None,
                "dtype": dtype,
                "shape": shape,
                "hex": proto.SerializeToString().hex(),
                "ndarray": to_json(tf.make_ndarray(proto)),
            }
        )

    path = os.path.join(out_dir, "tf_tensor_protos.json")
    with open(path, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    print("wrote", path)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))

"""TF1's `tf.io.decode_proto` and `tf.io.encode_proto` (kernels in core/kernels/decode_proto_op.cc and
encode_proto_op.cc): fields of serialized protocol buffers as tensors, and tensors as serialized messages, for
any message type whose descriptor is linked into the core (`descriptor_source="local://"`, e.g.
`tensorweave.Example`) or given as a serialized `FileDescriptorSet` (a file path, or `b"bytes://" + set`)."""

from tensorweave._src.framework import dtypes, ops
from tensorweave._src.ops import gen_ops, gradients_impl


def _names(value, what):
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise TypeError(f"Expected list for '{what}' argument, not {value!r}.")
    return list(value)


def decode_proto(
    bytes,
    message_type,
    field_names,
    output_types,
    descriptor_source="local://",
    message_format="binary",
    sanitize=False,
    name=None,
):
    """The fields `field_names` of serialized `message_type` messages (TF1's `tf.io.decode_proto`).

    Returns a namedtuple `(sizes, values)`: `sizes`, int32 of shape `bytes.shape + [len(field_names)]`, counts
    the values of each field in each message (0 or 1 for a non-repeated field, which keeps the last value on the
    wire); `values[i]`, of dtype `output_types[i]` and shape `bytes.shape + [max count, at least 1]`, holds field
    i's values, padded with the field's default. Output types by field type: double -> float64; float ->
    float32/float64; int32, sint32, sfixed32 -> int32/int64; int64, sint64, sfixed64 -> int64; uint32, fixed32 ->
    uint32/uint64; uint64, fixed64 -> uint64; bool -> bool; enum -> int32; string, bytes, a nested message or a
    group -> string (the nested message serialized; decode it with another `decode_proto`).

    `message_format` is "binary" or "text" (the text format); `sanitize=True` parses and reserializes binary
    input with protobuf first. Malformed input is a `DataLossError`; an unknown message type or field, or an
    output type the field cannot have, an `InvalidArgumentError` when the op runs. Not differentiable.

    Example:
      >>> import tensorweave as tw
      >>> from tensorweave._src.framework import example_pb2
      >>> ex = example_pb2.Int64List(value=[3, 1, 4])
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     sizes, values = tw.io.decode_proto(
      ...         [ex.SerializeToString()], "tensorweave.Int64List", ["value"], [tw.int64])
      ...     print(sess.run(sizes), sess.run(values[0]))
      [[3]] [[3 1 4]]
    """
    field_names = _names(field_names, "field_names")
    output_types = _names(output_types, "output_types")
    return gen_ops.wrapper("DecodeProtoV2")(
        ops.convert_to_tensor(bytes, dtype=dtypes.string),
        message_type=message_type,
        field_names=field_names,
        output_types=output_types,
        descriptor_source=descriptor_source,
        message_format=message_format,
        sanitize=sanitize,
        name=name,
    )


def encode_proto(sizes, values, field_names, message_type, descriptor_source="local://", name=None):
    """Serialized `message_type` messages built from tensors (TF1's `tf.io.encode_proto`; the inverse of
    `decode_proto`).

    `values[i]` (at least a matrix: batch shape + [max count]) holds field `field_names[i]`'s values, with the
    dtypes `decode_proto` gives; `sizes` (int32, batch shape + [len(field_names)]) says how many of each row to
    write: message b's field i gets `values[i][b, :sizes[b, i]]`. Returns the batch of serialized messages
    (string, batch shape). Fields are written in field-number order, repeated scalars packed where the field is
    (proto3's default). Not differentiable.

    Example:
      >>> import tensorweave as tw
      >>> from tensorweave._src.framework import example_pb2
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     values = tw.constant([[3, 1, 0]], dtype=tw.int64)
      ...     out = tw.io.encode_proto([[2]], [values], ["value"], "tensorweave.Int64List")
      ...     list(example_pb2.Int64List.FromString(sess.run(out)[0]).value)
      [3, 1]
    """
    field_names = _names(field_names, "field_names")
    if isinstance(values, ops.Tensor) or not isinstance(values, (list, tuple)):
        raise TypeError(f"Expected list for 'values' argument to 'encode_proto' Op, not {values!r}.")
    values = [ops.convert_to_tensor(v, name=f"values_{i}") for i, v in enumerate(values)]
    return gen_ops.wrapper("EncodeProto")(
        ops.convert_to_tensor(sizes, dtype=dtypes.int32),
        values,
        field_names=field_names,
        message_type=message_type,
        descriptor_source=descriptor_source,
        name=name,
    )


for _op in ("DecodeProtoV2", "EncodeProto"):
    gradients_impl.NotDifferentiable(_op)

"""TF1's `tf.io.decode_csv`, `decode_compressed`, `serialize_tensor` and `parse_tensor` (kernels in
core/kernels/io_extra_ops.cc)."""

from tensorweave._src.framework import dtypes, ops
from tensorweave._src.ops import gen_ops, gradients_impl


def decode_csv(
    records, record_defaults, field_delim=",", use_quote_delim=True, name=None, na_value="", select_cols=None
):
    """Splits CSV records into columns (TF1's `tf.io.decode_csv`).

    `record_defaults` has one entry per output column: a one-value tensor (its dtype is the column's; float32,
    float64, int32, int64 or string) used for an empty or `na_value` field, or an empty tensor for a required
    column. `select_cols` picks (strictly increasing) columns of the records.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     a, b = tw.io.decode_csv(["1,x", ",y"], record_defaults=[[7], [""]])
      ...     print(sess.run(a), sess.run(b))
      [1 7] [b'x' b'y']
    """
    if select_cols is not None:
        select_cols = list(select_cols)
        if any(select_cols[i] >= select_cols[i + 1] for i in range(len(select_cols) - 1)):
            raise ValueError("select_cols is not strictly increasing.")
        if select_cols and select_cols[0] < 0:
            raise ValueError("select_cols contains negative values.")
        if len(select_cols) != len(record_defaults):
            raise ValueError("Length of select_cols and record_defaults do not match.")
    defaults = [ops.convert_to_tensor(d, name=f"record_defaults_{i}") for i, d in enumerate(record_defaults)]
    return gen_ops.wrapper("DecodeCSV")(
        ops.convert_to_tensor(records, dtype=dtypes.string),
        defaults,
        field_delim=field_delim,
        use_quote_delim=bool(use_quote_delim),
        na_value=na_value,
        select_cols=select_cols or [],
        name=name,
    )


def decode_compressed(bytes, compression_type="", name=None):
    """Decompresses each string of `bytes`: "ZLIB", "GZIP", or "" (no compression)."""
    return gen_ops.wrapper("DecodeCompressed")(
        ops.convert_to_tensor(bytes, dtype=dtypes.string), compression_type=compression_type, name=name
    )


def serialize_tensor(tensor, name=None):
    """The serialized TensorProto of `tensor` (a string scalar; the bytes TensorFlow writes)."""
    return gen_ops.wrapper("SerializeTensor")(ops.convert_to_tensor(tensor), name=name)


def parse_tensor(serialized, out_type, name=None):
    """The tensor a serialized TensorProto holds; its dtype must be `out_type`.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     s = tw.io.serialize_tensor([[1, 2], [3, 4]])
      ...     print(sess.run(tw.io.parse_tensor(s, tw.int32)))
      [[1 2]
       [3 4]]
    """
    return gen_ops.wrapper("ParseTensor")(
        ops.convert_to_tensor(serialized, dtype=dtypes.string), out_type=dtypes.as_dtype(out_type), name=name
    )


for _op in ("DecodeCSV", "DecodeCompressed", "SerializeTensor", "ParseTensor"):
    gradients_impl.NotDifferentiable(_op)

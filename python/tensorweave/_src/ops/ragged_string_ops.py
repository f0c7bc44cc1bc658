"""The tf.strings functions that return RaggedTensors, as TensorFlow builds them: unicode_decode (the UnicodeDecode
op), unicode_decode_with_offsets, unicode_split, unicode_split_with_offsets, bytes_split, unicode_script and the
ragged results of strings.split / string_split. Host-only C++ ops (core/kernels/unicode_ops.cc); a scalar input
gives a Tensor, an input of rank N a RaggedTensor of rank N + 1."""

from tensorweave._src.framework import dtypes, ops
from tensorweave._src.ops import gen_ops, gradients_impl
from tensorweave._src.ops.ragged_tensor import RaggedTensor, _tw, convert_to_tensor_or_ragged_tensor


def _strings_input(input, name="input"):  # noqa: A002
    return convert_to_tensor_or_ragged_tensor(input, dtype=dtypes.string, name=name)


def _unicode_decode(input, input_encoding, errors, replacement_char, replace_control_characters, with_offsets):  # noqa: A002
    tw = _tw()
    input = _strings_input(input)
    ndims = input.shape.ndims
    if ndims is None:
        raise ValueError("Rank of `input` must be statically known.")
    if ndims > 1:
        if not isinstance(input, RaggedTensor):
            input = RaggedTensor.from_tensor(input, ragged_rank=ndims - 1)
        elif input.ragged_rank < ndims - 1:
            input = input.with_flat_values(
                RaggedTensor.from_tensor(input.flat_values, ragged_rank=ndims - input.ragged_rank - 1)
            )
    flat = tw.reshape(input.flat_values if isinstance(input, RaggedTensor) else input, [-1])
    op = gen_ops.unicode_decode_with_offsets if with_offsets else gen_ops.unicode_decode
    result = op(
        flat,
        input_encoding=input_encoding,
        errors=errors,
        replacement_char=replacement_char,
        replace_control_characters=replace_control_characters,
    )
    outputs = [result.char_values] + ([result.char_to_byte_starts] if with_offsets else [])
    if ndims > 0:
        outputs = [RaggedTensor.from_row_splits(t, result.row_splits, validate=False) for t in outputs]
        if ndims > 1:
            outputs = [input.with_flat_values(t) for t in outputs]
    return tuple(outputs) if with_offsets else outputs[0]


def unicode_decode(
    input,
    input_encoding,
    errors="replace",
    replacement_char=65533,  # noqa: A002
    replace_control_characters=False,
    name=None,
):
    """The Unicode code points (int32) of each string, decoded from input_encoding (UTF-8, UTF-16-BE or
    UTF-32-BE); ill-formed input is an InvalidArgumentError (errors='strict'), replaced by replacement_char
    ('replace') or skipped ('ignore').

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.strings.unicode_decode(["hé", "€"], "UTF-8")).to_list())
      [[104, 233], [8364]]
    """
    with ops.get_default_graph().name_scope(name or "UnicodeDecode"):
        return _unicode_decode(input, input_encoding, errors, replacement_char, replace_control_characters, False)


def unicode_decode_with_offsets(
    input,
    input_encoding,
    errors="replace",
    replacement_char=65533,  # noqa: A002
    replace_control_characters=False,
    name=None,
):
    """unicode_decode, and the byte offset (int64) in its string at which each character starts.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     cp, starts = tw.strings.unicode_decode_with_offsets(["hé€"], "UTF-8")
      ...     print(sess.run(starts).to_list())
      [[0, 1, 3]]
    """
    with ops.get_default_graph().name_scope(name or "UnicodeDecodeWithOffsets"):
        return _unicode_decode(input, input_encoding, errors, replacement_char, replace_control_characters, True)


def _encode_each(codepoints, encoding, errors, replacement_char):
    """Each code point of a Tensor or RaggedTensor as a string of its own."""
    tw = _tw()
    flat = codepoints.flat_values if isinstance(codepoints, RaggedTensor) else codepoints
    n = tw.size(flat, out_type=dtypes.int64)
    chars = gen_ops.unicode_encode(
        tw.reshape(flat, [-1]),
        tw.range(n + 1, dtype=dtypes.int64),
        errors=errors,
        output_encoding=encoding,
        replacement_char=replacement_char,
    )
    if isinstance(codepoints, RaggedTensor):
        return codepoints.with_flat_values(chars)
    return chars


def unicode_split(input, input_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    """Each string split into its characters (each a string in input_encoding).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.strings.unicode_split(["hé"], "UTF-8")).to_list())
      [[b'h', b'\\xc3\\xa9']]
    """
    with ops.get_default_graph().name_scope(name or "UnicodeSplit"):
        codepoints = _unicode_decode(input, input_encoding, errors, replacement_char, False, False)
        return _encode_each(codepoints, input_encoding, errors, replacement_char)


def unicode_split_with_offsets(input, input_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    """unicode_split, and the byte offset at which each character starts.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     chars, starts = tw.strings.unicode_split_with_offsets(["hé!"], "UTF-8")
      ...     print(sess.run(starts).to_list())
      [[0, 1, 3]]
    """
    with ops.get_default_graph().name_scope(name or "UnicodeSplitWithOffsets"):
        codepoints, offsets = _unicode_decode(input, input_encoding, errors, replacement_char, False, True)
        return _encode_each(codepoints, input_encoding, errors, replacement_char), offsets


def unicode_script(input, name=None):  # noqa: A002
    """ICU's script code (UScriptCode: 0 Common, 25 Latin, ...) of each int32 code point; -1 for a value that
    is not a code point.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.strings.unicode_script([ord("a"), 0x0416, ord("1")])))
      [25  8  0]
    """
    with ops.get_default_graph().name_scope(name or "UnicodeScript") as scope:
        input = ops.convert_to_tensor(input, dtype=dtypes.int32, name="input")
        return gen_ops.unicode_script(input, name=scope)


def bytes_split(input, name=None):  # noqa: A002
    """Each string split into its bytes (one string each).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.strings.bytes_split(["ab", "c"])).to_list())
      [[b'a', b'b'], [b'c']]
    """
    tw = _tw()
    with ops.get_default_graph().name_scope(name or "StringsByteSplit"):
        input = _strings_input(input)
        if isinstance(input, RaggedTensor):
            return input.with_flat_values(bytes_split(input.flat_values))
        rank = input.shape.ndims
        if rank is None:
            raise ValueError("input must have a statically-known rank.")
        if rank == 0:
            return bytes_split(tw.stack([input]))[0]
        if rank == 1:
            indices, values, shape = gen_ops.string_split(input, "", skip_empty=False)
            return RaggedTensor.from_value_rowids(values, indices[:, 0], nrows=shape[0], validate=False)
        return bytes_split(RaggedTensor.from_tensor(input))


def string_split_v2(input, sep=None, maxsplit=-1, name=None):  # noqa: A002
    """Python's str.split on each string (sep None: runs of whitespace) as a RaggedTensor of rank N + 1
    (TensorFlow 2's tf.strings.split; TF1 returns this for result_type='RaggedTensor')."""
    tw = _tw()
    with ops.get_default_graph().name_scope(name or "StringSplit"):
        input = _strings_input(input)
        if isinstance(input, RaggedTensor):
            return input.with_flat_values(string_split_v2(input.flat_values, sep, maxsplit))
        rank = input.shape.ndims
        if rank is None:
            raise ValueError("input must have a statically-known rank.")
        if rank == 0:
            return string_split_v2(tw.stack([input]), sep, maxsplit)[0]
        if rank == 1:
            sep = ops.convert_to_tensor("" if sep is None else sep, dtype=dtypes.string, name="sep")
            indices, values, shape = gen_ops.string_split_v2(input, sep, maxsplit=maxsplit)
            return RaggedTensor.from_value_rowids(values, indices[:, 0], nrows=shape[0], validate=False)
        return string_split_v2(RaggedTensor.from_tensor(input), sep, maxsplit)


for _op in ("UnicodeDecode", "UnicodeDecodeWithOffsets", "UnicodeScript"):
    gradients_impl.NotDifferentiable(_op)

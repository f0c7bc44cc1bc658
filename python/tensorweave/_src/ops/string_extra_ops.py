"""More string ops with TensorFlow 1's names: tf.strings.format, ngrams, unsorted_segment_join,
to_hash_bucket (tf.string_to_hash_bucket), unicode_transcode, unicode_encode and tf.fingerprint. Host-only C++
ops (core/kernels/string_extra_ops.cc, unicode_ops.cc); none is differentiable. The decoders that return
RaggedTensors are in ragged_string_ops."""

from tensorweave._src.framework import dtypes, ops
from tensorweave._src.ops import array_ops, gen_ops, gradients_impl, math_ops


def string_format(template, inputs, placeholder="{}", summarize=3, name=None):
    """The template with each `placeholder` replaced by the next input formatted as tf.print formats tensors
    (`summarize` entries at each end of every dimension; -1 prints all). A scalar string tensor.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.strings.format("x = {}", [tw.constant([1, 2, 3, 4, 5, 6, 7])])))
      b'x = [1 2 3 ... 5 6 7]'
    """
    if isinstance(inputs, ops.Tensor) or hasattr(inputs, "_as_graph_element"):
        inputs = [inputs]
    count = len(template.split(placeholder)) - 1
    if len(inputs) != count:
        raise ValueError(
            f"The template expects {count} tensors, but the inputs only has {len(inputs)}. Please ensure the "
            "number of placeholders in template matches inputs length."
        )
    graph = ops.get_default_graph()
    with graph.name_scope(name or "StringFormat") as scope:
        tensors = [ops.convert_to_tensor(x) for x in inputs]
        return gen_ops.string_format(
            tensors, template=template, placeholder=placeholder, summarize=summarize, name=scope
        )


def _dense_rows(data, out_type):
    """A dense tensor of rank >= 2 as a ragged vector: its values flattened and row splits (one row per
    position of the leading dims)."""
    shape = array_ops.shape(data, out_type=out_type)
    rows = math_ops.reduce_prod(shape[:-1])
    width = shape[-1]
    splits = math_ops.multiply(array_ops.range(0, rows + 1, dtype=out_type), width)
    return array_ops.reshape(data, [-1]), splits, shape


def ngrams(
    data,
    ngram_width,
    separator=" ",
    pad_values=None,
    padding_width=None,
    preserve_short_sequences=False,
    name=None,
):
    """The n-grams of each row (last dimension) of a string tensor, joined by `separator` (TF's
    tf.strings.ngrams: rank-1 data gives a vector, higher ranks [..., number of n-grams], a RaggedTensor the
    n-grams of each of its rows as a RaggedTensor).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.strings.ngrams(["a", "b", "c"], 2)))
      [b'a b' b'b c']
    """
    requested_padding_width = padding_width
    if pad_values is None:
        left_pad = right_pad = ""
    elif isinstance(pad_values, (list, tuple)):
        if not isinstance(pad_values[0], (bytes, str)) or not isinstance(pad_values[1], (bytes, str)):
            raise TypeError("pad_values must be a string, tuple of strings, or None.")
        left_pad, right_pad = pad_values[0], pad_values[1]
    else:
        if not isinstance(pad_values, (bytes, str)):
            raise TypeError("pad_values must be a string, tuple of strings, or None.")
        left_pad = right_pad = pad_values
    if padding_width is not None and padding_width < 1:
        raise ValueError("padding_width must be greater than 0.")
    if padding_width is not None and pad_values is None:
        raise ValueError("pad_values must be provided if padding_width is set.")
    if pad_values is None:
        padding_width = 0
    if pad_values is not None and padding_width is None:
        padding_width = -1
    widths = list(ngram_width) if isinstance(ngram_width, (list, tuple)) else [ngram_width]
    for width in widths:
        if width < 1:
            raise ValueError(f"All ngram_widths must be greater than 0. Got {ngram_width}")
    graph = ops.get_default_graph()
    with graph.name_scope(name or "StringNGrams"):
        from tensorweave._src.ops.ragged_tensor import RaggedTensor, convert_to_tensor_or_ragged_tensor

        data = convert_to_tensor_or_ragged_tensor(data, dtype=dtypes.string, name="data")
        if isinstance(data, RaggedTensor):
            if isinstance(data.values, RaggedTensor) or data.values.shape.ndims != 1:
                return data.with_values(
                    ngrams(
                        data.values,
                        ngram_width,
                        separator,
                        pad_values,
                        requested_padding_width,
                        preserve_short_sequences,
                    )
                )
            grams, splits = gen_ops.string_n_grams(
                data.values,
                data.row_splits,
                separator=separator,
                ngram_widths=widths,
                left_pad=left_pad,
                right_pad=right_pad,
                pad_width=padding_width,
                preserve_short_sequences=preserve_short_sequences,
            )
            return RaggedTensor.from_row_splits(grams, splits, validate=False)
        rank = data.shape.ndims
        if rank is None:
            raise ValueError("Rank of data must be known.")
        if rank == 0:
            raise ValueError("Data must have rank>0")
        values, splits, shape = _dense_rows(data, dtypes.int64)
        grams, _ = gen_ops.string_n_grams(
            values,
            splits,
            separator=separator,
            ngram_widths=widths,
            left_pad=left_pad,
            right_pad=right_pad,
            pad_width=padding_width,
            preserve_short_sequences=preserve_short_sequences,
        )
        if rank == 1:
            return grams
        out_shape = array_ops.concat([shape[:-1], [-1]], axis=0)
        return array_ops.reshape(grams, out_shape)


def unsorted_segment_join(inputs, segment_ids, num_segments, separator="", name=None):
    """Joins the strings of each segment (in input order) with `separator`: output[i] joins the inputs whose
    segment_ids are i ('' for an empty segment); shape [num_segments] + inputs.shape[rank(segment_ids):].

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.strings.unsorted_segment_join(["a", "b", "c"], [1, 0, 1], 2, separator=",")))
      [b'b' b'a,c']
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "UnsortedSegmentJoin") as scope:
        return gen_ops.unsorted_segment_join(
            ops.convert_to_tensor(inputs, dtype=dtypes.string, name="inputs"),
            ops.convert_to_tensor(segment_ids, name="segment_ids"),
            ops.convert_to_tensor(num_segments, name="num_segments"),
            separator=separator,
            name=scope,
        )


def string_to_hash_bucket(string_tensor=None, num_buckets=None, name=None, input=None):
    """Each string's bucket in [0, num_buckets): TensorFlow's legacy Hash64 modulo num_buckets (the same
    buckets as TF's tf.string_to_hash_bucket; prefer to_hash_bucket_fast for new code).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.strings.to_hash_bucket(["hello", ""], 1000)))
      [938 899]
    """
    if string_tensor is not None and input is not None:
        raise ValueError("Cannot specify both 'string_tensor' and 'input'.")
    if input is not None:
        string_tensor = input
    graph = ops.get_default_graph()
    with graph.name_scope(name or "StringToHashBucket") as scope:
        string_tensor = ops.convert_to_tensor(string_tensor, dtype=dtypes.string, name="string_tensor")
        return gen_ops.string_to_hash_bucket(string_tensor, num_buckets=num_buckets, name=scope)


def fingerprint(data, method="farmhash64", name=None):
    """An 8-byte fingerprint (uint8 [data.shape[0], 8]) of each row data[i] (TensorFlow's tf.fingerprint:
    FarmHash64 of the row's bytes, little endian; a row of several strings hashes their fingerprints).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.fingerprint(tw.constant(["hello"]))).shape)
      (1, 8)
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "Fingerprint") as scope:
        data = ops.convert_to_tensor(data, name="data")
        method = ops.convert_to_tensor(method, dtype=dtypes.string, name="method")
        return gen_ops.fingerprint(data, method, name=scope)


def unicode_transcode(
    input,
    input_encoding,
    output_encoding,
    errors="replace",
    replacement_char=65533,
    replace_control_characters=False,
    name=None,
):
    """Each string re-encoded from `input_encoding` to `output_encoding` (UTF-8, UTF-16-BE or UTF-32-BE);
    ill-formed input is an error (errors="strict"), replaced by `replacement_char` (one per maximal ill-formed
    subsequence) or dropped ("ignore").

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.strings.unicode_transcode([b"a\\xffb"], "UTF-8", "UTF-8", replacement_char=63)))
      [b'a?b']
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "UnicodeTranscode") as scope:
        return gen_ops.unicode_transcode(
            ops.convert_to_tensor(input, dtype=dtypes.string, name="input"),
            input_encoding=input_encoding,
            output_encoding=output_encoding,
            errors=errors,
            replacement_char=replacement_char,
            replace_control_characters=replace_control_characters,
            name=scope,
        )


def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533, name=None):
    """Each row (last dimension) of a dense int32 tensor of code points encoded as one string in
    `output_encoding`: shape input.shape[:-1]. Invalid code points are an error (errors="strict"), replaced
    by `replacement_char` or dropped ("ignore"). A RaggedTensor is encoded row by row of its last dimension.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.strings.unicode_encode([[104, 105], [72, 73]], "UTF-8")))
      [b'hi' b'HI']
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "UnicodeEncode"):
        from tensorweave._src.ops.ragged_tensor import RaggedTensor, convert_to_tensor_or_ragged_tensor

        input = convert_to_tensor_or_ragged_tensor(input, name="input_tensor")
        if isinstance(input, RaggedTensor):
            values = input.values
            if isinstance(values, RaggedTensor) or values.shape.ndims != 1:
                return input.with_values(unicode_encode(values, output_encoding, errors, replacement_char))
            return gen_ops.unicode_encode(
                values,
                input.row_splits,
                errors=errors,
                output_encoding=output_encoding,
                replacement_char=replacement_char,
            )
        rank = input.shape.ndims
        if rank is None:
            raise ValueError("Rank of input_tensor must be statically known.")
        if rank == 0:
            raise ValueError("input_tensor's rank must be at least 1.")
        values, splits, shape = _dense_rows(input, dtypes.int64)
        encoded = gen_ops.unicode_encode(
            values,
            splits,
            errors=errors,
            output_encoding=output_encoding,
            replacement_char=replacement_char,
        )
        if rank == 1:
            return array_ops.reshape(encoded, [])
        return array_ops.reshape(encoded, shape[:-1])


for _op in (
    "StringFormat",
    "StringNGrams",
    "UnsortedSegmentJoin",
    "StringToHashBucket",
    "Fingerprint",
    "UnicodeTranscode",
    "UnicodeEncode",
):
    gradients_impl.NotDifferentiable(_op)

"""String ops (tf.strings and TensorFlow 1's top-level string names), host only: one C++ op each, with TF1's
signatures; the splits return a SparseTensor as TF1 does. None of them is differentiable."""

import numpy as np

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.framework.sparse_tensor import SparseTensor
from tensorweave._src.ops import gen_ops
from tensorweave._src.ops import gradients_impl


def _strings(x, name):
    return ops.convert_to_tensor(x, dtype=dtypes.string, name=name)


def _unary(op_type, x, name, default_name=None, **attrs):
    graph = ops.get_default_graph()
    with graph.name_scope(name or default_name or op_type) as scope:
        return gen_ops.wrapper(op_type)(_strings(x, "input"), name=scope, **attrs)


def string_join(inputs, separator="", name=None):
    """Joins the strings of `inputs` element-wise (scalars repeat) with `separator`.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.string_join([["a", "b"], "x"], separator="-")))
      [b'a-x' b'b-x']
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "StringJoin") as scope:
        tensors = [_strings(x, f"inputs_{i}") for i, x in enumerate(inputs)]
        return gen_ops.string_join(tensors, separator=separator, name=scope)


def _sparse(indices, values, shape):
    indices.set_shape([None, 2])
    values.set_shape([None])
    shape.set_shape([2])
    return SparseTensor(indices, values, shape)


def string_split(source, sep=None, skip_empty=True, delimiter=None, result_type="SparseTensor", name=None):
    """TF1's tf.string_split: each string of a vector split at any character of `sep` (default " "; "" splits
    into characters), as a SparseTensor of shape [len(source), most tokens].

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.string_split(["a b", "c"])).values)
      [b'a' b'b' b'c']
    """
    if sep is not None and delimiter is not None:
        raise ValueError("Cannot specify both 'sep' and 'delimiter'")
    delimiter = sep if sep is not None else delimiter
    if result_type not in ("SparseTensor", "RaggedTensor"):
        raise ValueError("result_type must be 'RaggedTensor' or 'SparseTensor'.")
    graph = ops.get_default_graph()
    with graph.name_scope(name or "StringSplit"):
        delimiter = _strings(" " if delimiter is None else delimiter, "delimiter")
        source = _strings(source, "source")
        result = _sparse(*gen_ops.string_split(source, delimiter, skip_empty=skip_empty, name="StringSplit"))
        if result_type == "SparseTensor":
            return result
        from tensorweave._src.ops.ragged_tensor import RaggedTensor

        return RaggedTensor.from_value_rowids(
            result.values, result.indices[:, 0], nrows=result.dense_shape[0], validate=False
        )


def strings_split_v1(input=None, sep=None, maxsplit=-1, result_type="SparseTensor", source=None, name=None):
    """TF1's tf.strings.split: Python's str.split on each string of a scalar or vector (sep None: runs of
    whitespace), as a SparseTensor.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.strings.split(["a,,b"], sep=",")).values)
      [b'a' b'' b'b']
    """
    if input is not None and source is not None:
        raise ValueError("Cannot specify both 'input' and 'source'")
    input = input if input is not None else source
    if result_type not in ("SparseTensor", "RaggedTensor"):
        raise ValueError("result_type must be 'RaggedTensor' or 'SparseTensor'.")
    from tensorweave._src.ops import array_ops, ragged_string_ops
    from tensorweave._src.ops.ragged_tensor import convert_to_tensor_or_ragged_tensor

    graph = ops.get_default_graph()
    with graph.name_scope(name or "StringSplit"):
        input = convert_to_tensor_or_ragged_tensor(input, dtype=dtypes.string, name="input")
        if input.shape.ndims == 0:
            input = array_ops.expand_dims(input, 0)
        if result_type == "RaggedTensor":
            return ragged_string_ops.string_split_v2(input, sep=sep, maxsplit=maxsplit)
        if input.shape.ndims != 1 or not isinstance(input, ops.Tensor):
            return ragged_string_ops.string_split_v2(input, sep=sep, maxsplit=maxsplit).to_sparse()
        sep = _strings("" if sep is None else sep, "sep")
        return _sparse(*gen_ops.string_split_v2(input, sep, maxsplit=maxsplit, name="StringSplitV2"))


def substr(input, pos, len, name=None, unit="BYTE"):  # noqa: A002
    """The substrings [pos, pos + len) (bytes, or UTF-8 characters with unit='UTF8_CHAR'); a negative pos counts
    from the end; pos past the string is InvalidArgumentError.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.substr(["hello", "world"], 1, 3)))
      [b'ell' b'orl']
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "Substr") as scope:
        x = _strings(input, "input")
        pos = ops.convert_to_tensor(pos, name="pos")
        length = ops.convert_to_tensor(len, dtype=pos.dtype, name="len")
        return gen_ops.substr(x, pos, length, unit=unit, name=scope)


def string_to_number(string_tensor, out_type=dtypes.float32, name=None):
    """Each string parsed as a number of `out_type` (InvalidArgumentError when one is not a number).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.string_to_number(["1.5", "-2"])))
      [ 1.5 -2. ]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "StringToNumber") as scope:
        return gen_ops.string_to_number(
            _strings(string_tensor, "string_tensor"), out_type=dtypes.as_dtype(out_type), name=scope
        )


def string_to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002
    """Fingerprint64(s) mod num_buckets, TensorFlow's hash, so the buckets equal TF's.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.string_to_hash_bucket_fast(["a", "b"], 1)))
      [0 0]
    """
    return _unary("StringToHashBucketFast", input, name, num_buckets=num_buckets)


def string_to_hash_bucket_strong(input, num_buckets, key, name=None):  # noqa: A002
    """SipHash-2-4 of each string under the 2-element `key`, mod num_buckets (TensorFlow's strong hash).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.string_to_hash_bucket_strong(["a"], 1, [1, 2])))
      [0]
    """
    return _unary("StringToHashBucketStrong", input, name, num_buckets=num_buckets, key=list(key))


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):  # noqa: A002
    """Each element as a string (printf's %f / %e / %g for floats, %d for integers, "true"/"false").

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.as_string([1.5], precision=2)), sess.run(tw.as_string([7], width=3, fill="0")))
      [b'1.50'] [b'007']
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "AsString") as scope:
        x = ops.convert_to_tensor(input, name="input")
        return gen_ops.as_string(
            x, precision=precision, scientific=scientific, shortest=shortest, width=width, fill=fill, name=scope
        )


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """Replaces the matches of `pattern` by `rewrite` (\\1 names a group). Patterns are ECMAScript regular
    expressions (std::regex) where TF uses RE2: the common syntax agrees.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.regex_replace(["a1b22"], "[0-9]+", "#")))
      [b'a#b#']
    """
    graph = ops.get_default_graph()
    if isinstance(pattern, (str, bytes)) and isinstance(rewrite, (str, bytes)):
        # As TF: Python strings become attributes of a StaticRegexReplace, compiled once.
        with graph.name_scope(name or "StaticRegexReplace") as scope:
            return gen_ops.static_regex_replace(
                _strings(input, "input"),
                pattern=_text(pattern),
                rewrite=_text(rewrite),
                replace_global=replace_global,
                name=scope,
            )
    with graph.name_scope(name or "RegexReplace") as scope:
        return gen_ops.regex_replace(
            _strings(input, "input"),
            _strings(pattern, "pattern"),
            _strings(rewrite, "rewrite"),
            replace_global=replace_global,
            name=scope,
        )


def regex_full_match(input, pattern, name=None):  # noqa: A002
    """Whether each whole string matches `pattern`.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.strings.regex_full_match(["ab", "abc"], "a.")))
      [ True False]
    """
    graph = ops.get_default_graph()
    if isinstance(pattern, (str, bytes)):
        with graph.name_scope(name or "StaticRegexFullMatch") as scope:
            return gen_ops.static_regex_full_match(_strings(input, "input"), pattern=_text(pattern), name=scope)
    with graph.name_scope(name or "RegexFullMatch") as scope:
        return gen_ops.regex_full_match(_strings(input, "input"), _strings(pattern, "pattern"), name=scope)


def _text(value):
    return value.decode("utf-8") if isinstance(value, bytes) else value


def string_length(input, name=None, unit="BYTE"):  # noqa: A002
    """The length of each string in bytes (or UTF-8 characters with unit='UTF8_CHAR').

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.strings.length(["", "abc"])))
      [0 3]
    """
    return _unary("StringLength", input, name, unit=unit)


def lower(input, encoding="", name=None):  # noqa: A002
    """Each string with its ASCII letters lowercased.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.strings.lower("AbC")))
      b'abc'
    """
    return _unary("StringLower", input, name, encoding=encoding)


def upper(input, encoding="", name=None):  # noqa: A002
    """Each string with its ASCII letters uppercased.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.strings.upper("AbC")))
      b'ABC'
    """
    return _unary("StringUpper", input, name, encoding=encoding)


def string_strip(input, name=None):  # noqa: A002
    """Each string without leading and trailing whitespace.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.string_strip(["  a b \\n"])))
      [b'a b']
    """
    return _unary("StringStrip", input, name)


def _ragged_reduce_join(rt, axis, keepdims, separator, name):
    """reduce_join of a 2-D RaggedTensor, as TF's ragged dispatch: each row (axis 1), each column over the rows
    that have it (axis 0), or everything (axis None)."""
    import tensorweave as tw

    from tensorweave._src.ops import string_extra_ops

    if rt.ragged_rank != 1 or rt.flat_values.shape.ndims != 1:
        raise NotImplementedError("reduce_join of a RaggedTensor: tensorweave takes a 2-D one (ragged_rank 1)")
    if axis is not None and not isinstance(axis, (int, np.integer)):
        raise TypeError(f"reduce_join of a RaggedTensor: axis must be an int or None, got {axis!r}")
    with ops.get_default_graph().name_scope(name or "RaggedReduceJoin"):
        if axis is None:
            return reduce_join(rt.flat_values, None, keepdims=keepdims, separator=separator)
        axis = int(axis) + 2 if axis < 0 else int(axis)
        if axis == 1:
            out = string_extra_ops.unsorted_segment_join(rt.values, rt.value_rowids(), rt.nrows(), separator)
        elif axis == 0:
            lengths = rt.row_lengths()
            columns = tw.range(tw.size(rt.values, out_type=lengths.dtype), dtype=lengths.dtype)
            columns -= tw.gather(rt.row_starts(), rt.value_rowids())
            count = tw.maximum(tw.reduce_max(lengths), 0)
            out = string_extra_ops.unsorted_segment_join(rt.values, columns, count, separator)
        else:
            raise ValueError(f"axis={axis} out of bounds: expected -2<=axis<2")
        return tw.expand_dims(out, axis) if keepdims else out


def reduce_join(inputs, axis=None, keep_dims=None, separator="", name=None, reduction_indices=None, keepdims=None):
    """Joins the strings along `axis` (all dims when None; the first listed dim varies fastest, as TF).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.reduce_join([["a", "b"], ["c", "d"]], 0)))
      [b'ac' b'bd']
    """
    if axis is not None and reduction_indices is not None:
        raise ValueError("Cannot specify both 'axis' and 'reduction_indices'")
    if keep_dims is not None and keepdims is not None:
        raise ValueError("Cannot specify both 'keep_dims' and 'keepdims'")
    axis = axis if axis is not None else reduction_indices
    keepdims = bool(keepdims if keepdims is not None else keep_dims)
    from tensorweave._src.ops.ragged_tensor import RaggedTensor

    if isinstance(inputs, RaggedTensor):
        return _ragged_reduce_join(inputs, axis, keepdims, separator, name)
    graph = ops.get_default_graph()
    with graph.name_scope(name or "ReduceJoin") as scope:
        inputs = _strings(inputs, "inputs")
        if axis is None:
            rank = inputs.shape.ndims
            if rank is None:
                from tensorweave._src.ops import array_ops

                r = array_ops.rank(inputs)
                axis = gen_ops.range(r - 1, -1, -1)
            else:
                axis = np.arange(rank - 1, -1, -1, dtype=np.int32)
        axis = ops.convert_to_tensor(axis, dtype=dtypes.int32, name="reduction_indices")
        return gen_ops.reduce_join(inputs, axis, keep_dims=keepdims, separator=separator, name=scope)


for _op in (
    "StringJoin",
    "StringSplit",
    "StringSplitV2",
    "Substr",
    "StringToNumber",
    "StringToHashBucketFast",
    "StringToHashBucketStrong",
    "AsString",
    "RegexReplace",
    "RegexFullMatch",
    "StaticRegexReplace",
    "StaticRegexFullMatch",
    "StringLength",
    "StringLower",
    "StringUpper",
    "StringStrip",
    "ReduceJoin",
):
    gradients_impl.NotDifferentiable(_op)

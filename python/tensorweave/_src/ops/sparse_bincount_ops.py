"""`tf.sparse.bincount`: counts of the values of a tensor, SparseTensor or RaggedTensor as a SparseTensor of the
values that occur (TF's Dense/Sparse/RaggedCountSparseOutput), composed of unique + segment sums, so that its
memory follows the number of distinct values, not the largest value."""

from tensorweave._src.framework import dtypes, ops, sparse_tensor
from tensorweave._src.ops import array_nd_ops, array_ops, logging_ops, math_ops, selection_ops

_COUNT_TYPES = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64)


def _values_rows(values, weights, axis):
    """(flat values, flat row ids or None, flat weights or None, number of rows or None) of the input."""
    from tensorweave._src.ops import ragged_tensor

    if isinstance(values, sparse_tensor.SparseTensor):
        if weights is not None and not isinstance(weights, sparse_tensor.SparseTensor):
            raise ValueError(
                "Argument `weights` must be a SparseTensor if `values` is a SparseTensor. Received "
                f"weights={weights} of type: {type(weights).__name__}"
            )
        w = None if weights is None else weights.values
        rank = values.indices.shape[1].value if values.indices.shape.ndims == 2 else None
        if axis == 0 or rank == 1:
            return values.values, None, w, None
        if rank != 2:
            raise ValueError(f"sparse.bincount with axis=-1 needs a rank 1 or 2 SparseTensor, got rank {rank}")
        return values.values, values.indices[:, 0], w, values.dense_shape[0]
    if isinstance(values, ragged_tensor.RaggedTensor):
        w = None
        if weights is not None:
            if not isinstance(weights, ragged_tensor.RaggedTensor):
                raise ValueError(
                    "Argument `weights` must be a RaggedTensor if `values` is a RaggedTensor. Received "
                    f"weights={weights} of type: {type(weights).__name__}"
                )
            w = weights.flat_values
        if axis == 0:
            return values.flat_values, None, w, None
        if values.ragged_rank != 1:
            raise ValueError("sparse.bincount with axis=-1 needs a RaggedTensor of ragged rank 1")
        return values.values, math_ops.cast(values.value_rowids(), dtypes.int64), w, values.nrows(out_type=dtypes.int64)
    values = ops.convert_to_tensor(values, name="values")
    w = None if weights is None else ops.convert_to_tensor(weights, name="weights")
    if w is not None:
        w.shape.assert_is_compatible_with(values.shape)
    if axis == 0:
        return (
            array_ops.reshape(values, [-1]),
            None,
            None if w is None else array_ops.reshape(w, [-1]),
            None,
        )
    rank = values.shape.ndims
    if rank == 1:
        return values, None, w, None
    if rank != 2:
        raise ValueError(f"Input must be a 1 or 2-dimensional tensor, got shape {values.shape} ({values.name})")
    shape = array_ops.shape(values, out_type=dtypes.int64)
    rows = array_ops.reshape(array_ops.tile(array_ops.expand_dims(array_ops.range(shape[0]), 1), [1, shape[1]]), [-1])
    return array_ops.reshape(values, [-1]), rows, None if w is None else array_ops.reshape(w, [-1]), shape[0]


def sparse_bincount(values, weights=None, axis=0, minlength=None, maxlength=None, binary_output=False, name=None):
    """Counts how often each value occurs in `values` (int32 or int64, never negative): with axis 0 over all of
    them, a 1-D SparseTensor of dense shape [size]; with axis -1 per row of a rank-2 input, [rows, size].
    Only the values that occur are entries, in order. size is the largest value + 1, at least `minlength`,
    at most `maxlength` (values at or past it are not counted). With `weights` (the shape of `values`) the
    entries sum the weights instead of counting; with `binary_output` each entry is 1. The counts have the
    values' dtype (the weights' with weights).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     counts = sess.run(tw.sparse.bincount([[1, 1, 7], [2, 0, 2]], axis=-1))
      >>> counts.indices.tolist(), counts.values.tolist(), counts.dense_shape.tolist()
      ([[0, 1], [0, 7], [1, 0], [1, 2]], [2, 1, 1, 2], [2, 8])
    """
    with ops.name_scope(name, "count", [values, weights]):
        if weights is not None and binary_output:
            raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. Please specify only one.")
        if axis is None:
            axis = 0
        if axis not in (0, -1):
            raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 are currently supported.")
        flat, rows, flat_weights, num_rows = _values_rows(values, weights, axis)
        if flat.dtype not in (dtypes.int32, dtypes.int64):
            raise TypeError(
                f"Value passed to parameter 'values' has DataType {flat.dtype.name} not in list of allowed "
                "values: int32, int64"
            )
        if flat_weights is not None and flat_weights.dtype not in _COUNT_TYPES:
            raise TypeError(
                f"Value passed to parameter 'weights' has DataType {flat_weights.dtype.name} not in list of "
                "allowed values: int32, int64, float32, float64"
            )
        check = logging_ops.Assert(
            math_ops.reduce_all(math_ops.greater_equal(flat, 0)),
            ["Input contains negative values"],
        )
        with ops.control_dependencies([check]):
            flat = array_ops.identity(flat)
        out_dtype = flat.dtype if flat_weights is None else flat_weights.dtype
        if flat_weights is None:
            flat_weights = array_ops.ones_like(flat)
        if maxlength is not None and maxlength >= 0:
            keep = math_ops.less(flat, math_ops.cast(maxlength, flat.dtype))
            flat = array_nd_ops.boolean_mask(flat, keep)
            flat_weights = array_nd_ops.boolean_mask(flat_weights, keep)
            if rows is not None:
                rows = array_nd_ops.boolean_mask(rows, keep)
        flat = math_ops.cast(flat, dtypes.int64)
        size = math_ops.reduce_max(array_ops.concat([flat, array_ops.zeros([1], dtypes.int64)], 0)) + 1
        if minlength is not None and minlength >= 0:
            size = math_ops.maximum(size, int(minlength))
        if maxlength is not None and maxlength >= 0:
            size = math_ops.minimum(size, int(maxlength))
        keys = flat if rows is None else math_ops.cast(rows, dtypes.int64) * size + flat
        distinct, index = selection_ops.unique(keys)
        counts = array_ops.unsorted_segment_sum(flat_weights, index, array_ops.shape(distinct)[0])
        if binary_output:
            counts = array_ops.ones_like(counts)
        order = selection_ops.argsort(distinct)
        distinct = array_ops.gather(distinct, order)
        counts = math_ops.cast(array_ops.gather(counts, order), out_dtype)
        if rows is None:
            indices = array_ops.expand_dims(distinct, 1)
            dense_shape = array_ops.reshape(size, [1])
        else:
            indices = array_ops.stack([math_ops.floordiv(distinct, size), math_ops.floormod(distinct, size)], 1)
            dense_shape = array_ops.stack([math_ops.cast(num_rows, dtypes.int64), size])
        return sparse_tensor.SparseTensor(indices, counts, dense_shape)

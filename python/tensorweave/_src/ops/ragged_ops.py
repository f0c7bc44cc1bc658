"""TF1's tf.ragged functions: constant, constant_value, placeholder, range (the RaggedRange op),
map_flat_values, stack and concat, and the segment-id conversions."""

import numpy as np

from tensorweave._src.framework import dtypes, ops, tensor_shape
from tensorweave._src.ops import gen_ops, gradients_impl
from tensorweave._src.ops.ragged_tensor import (
    RaggedTensor,
    RaggedTensorValue,
    _tw,
    convert_to_tensor_or_ragged_tensor,
)


def _scalar_depths(pylist, depth=0, out=None):
    out = set() if out is None else out
    if isinstance(pylist, (list, tuple)):
        for item in pylist:
            _scalar_depths(item, depth + 1, out)
    elif isinstance(pylist, np.ndarray):
        out.add(depth + pylist.ndim)
    else:
        out.add(depth)
    return out


def _max_list_depth(pylist):
    if isinstance(pylist, (list, tuple)):
        return 1 + max((_max_list_depth(x) for x in pylist), default=0)
    if isinstance(pylist, np.ndarray):
        return pylist.ndim
    return 0


def _partition(pylist, ragged_rank, inner_shape):
    """(flat values as a Python list, nested row splits as int lists) of `pylist` cut at ragged_rank levels."""
    depths = _scalar_depths(pylist)
    if len(depths) > 1:
        raise ValueError("all scalar values must have the same nesting depth")
    if not isinstance(pylist, (list, tuple, np.ndarray)):
        return pylist, []
    depth = depths.pop() if depths else _max_list_depth(pylist)
    inner_rank = len(inner_shape) if inner_shape is not None else 0
    if ragged_rank is None:
        ragged_rank = max(1, depth - 1 - inner_rank) if depth > 1 else 0
        if depth <= 1 + inner_rank:
            ragged_rank = 0
    if depth and ragged_rank >= depth:
        raise ValueError(f"A ragged_rank of {ragged_rank} is too large for a list of depth {depth}")
    nested = []
    level = list(pylist)
    for _ in range(ragged_rank):
        splits = [0]
        flat = []
        for row in level:
            if not isinstance(row, (list, tuple, np.ndarray)):
                raise ValueError("pylist has scalar values at a depth above ragged_rank")
            flat.extend(list(row))
            splits.append(len(flat))
        nested.append(splits)
        level = flat
    return level, nested


def _values_array(flat, dtype, inner_shape, ragged_rank, narrow=True):
    np_dtype = None
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
        np_dtype = object if dtype == dtypes.string else dtype.as_numpy_dtype
    if not flat and np_dtype is None:
        np_dtype = np.float32
    if flat and all(isinstance(x, (bytes, str)) for x in np.asarray(flat, dtype=object).ravel()):
        values = np.array(
            [x.encode() if isinstance(x, str) else x for x in np.asarray(flat, dtype=object).ravel()], dtype=object
        ).reshape(np.shape(flat))
    else:
        values = np.array(flat, dtype=np_dtype)
        if narrow and dtype is None and values.dtype == np.float64:
            values = values.astype(np.float32)
        if narrow and dtype is None and values.dtype == np.int64 and (values.size == 0 or np.abs(values).max() < 2**31):
            values = values.astype(np.int32)
    shape = [len(flat)] + list(inner_shape or [])
    if inner_shape is not None:
        values = values.reshape(shape) if values.size else np.zeros(shape, values.dtype)
    elif ragged_rank > 0 and values.ndim == 1 and values.size == 0:
        values = values.reshape([0])
    return values


def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None, row_splits_dtype=dtypes.int64):
    """A constant RaggedTensor from a nested Python list (a Tensor when ragged_rank is 0).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.ragged.constant([[1, 2], [3]])).to_list())
      [[1, 2], [3]]
    """
    tw = _tw()
    row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
    if isinstance(pylist, (RaggedTensorValue, RaggedTensor)):
        raise TypeError("pylist may not be a RaggedTensor or RaggedTensorValue.")
    with ops.get_default_graph().name_scope(name or "RaggedConstant"):
        flat, nested = _partition(pylist, ragged_rank, inner_shape)
        values = _values_array(flat, dtype, inner_shape, len(nested))
        result = tw.constant(values, dtype=dtype)
        splits = [tw.constant(np.array(s, row_splits_dtype.as_numpy_dtype)) for s in nested]
        return RaggedTensor.from_nested_row_splits(result, splits, validate=False) if splits else result


def constant_value(pylist, dtype=None, ragged_rank=None, inner_shape=None, row_splits_dtype="int64"):
    """A RaggedTensorValue (numpy arrays) from a nested Python list (a numpy array when ragged_rank is 0).

    Example:
      >>> import tensorweave as tw
      >>> tw.ragged.constant_value([[1, 2], [3]]).row_splits
      array([0, 2, 3])
    """
    row_splits_dtype = dtypes.as_dtype(row_splits_dtype).as_numpy_dtype
    flat, nested = _partition(pylist, ragged_rank, inner_shape)
    values = _values_array(flat, dtype, inner_shape, len(nested), narrow=False)
    if values.dtype == object:
        values = values.astype(bytes)
    for splits in reversed(nested):
        values = RaggedTensorValue(values, np.array(splits, row_splits_dtype))
    return values


def placeholder(dtype, ragged_rank, value_shape=None, name=None):
    """A RaggedTensor fed (as a RaggedTensorValue) in Session.run: flat_values of shape [None] + value_shape and
    `ragged_rank` int64 row splits.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     rt = tw.ragged.placeholder(tw.int32, 1)
      ...     print(sess.run(rt * 2, {rt: tw.ragged.constant_value([[1], [2, 3]])}).to_list())
      [[2], [4, 6]]
    """
    tw = _tw()
    if not isinstance(ragged_rank, int) or ragged_rank < 0:
        raise ValueError(f"ragged_rank must be a non-negative int, got {ragged_rank}")
    value_shape = tensor_shape.TensorShape(value_shape if value_shape is not None else [])
    with ops.get_default_graph().name_scope(name or "RaggedPlaceholder"):
        flat = tw.placeholder(dtype, tensor_shape.TensorShape([None]).concatenate(value_shape), name="flat_values")
        if ragged_rank == 0:
            return flat
        splits = [tw.placeholder(dtypes.int64, [None], name=f"row_splits_{i}") for i in range(ragged_rank)]
        return RaggedTensor.from_nested_row_splits(flat, splits, validate=False)


_RANGE_ORDER = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64]


def ragged_range(starts, limits=None, deltas=1, dtype=None, name=None, row_splits_dtype=dtypes.int64):
    """The ragged vector whose row i is range(starts[i], limits[i], deltas[i]) (the RaggedRange op); scalars
    are broadcast, and one argument is the limits.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.ragged.range([3, 0, 5])).to_list())
      [[0, 1, 2], [], [0, 1, 2, 3, 4]]
    """
    tw = _tw()
    if limits is None:
        starts, limits = 0, starts
    with ops.get_default_graph().name_scope(name or "RaggedRange") as scope:
        args = [starts, limits, deltas]
        if dtype is None:
            tensors = [a for a in args if isinstance(a, ops.Tensor)]
            known = [t.dtype for t in tensors]
            for a in args:
                if not isinstance(a, ops.Tensor):
                    known.append(ops.convert_to_tensor(a).dtype if not isinstance(a, ops.Tensor) else a.dtype)
            dtype = max((d for d in known if d in _RANGE_ORDER), key=_RANGE_ORDER.index, default=dtypes.int32)
        dtype = dtypes.as_dtype(dtype)
        converted = []
        for a, what in zip(args, ["starts", "limits", "deltas"]):
            t = (
                ops.convert_to_tensor(a, name=what)
                if isinstance(a, ops.Tensor)
                else ops.convert_to_tensor(a, dtype=dtype, name=what)
            )
            if t.dtype != dtype:
                t = tw.cast(t, dtype)
            converted.append(t)
        splits, values = gen_ops.ragged_range(*converted, Tsplits=dtypes.as_dtype(row_splits_dtype), name=scope)
        return RaggedTensor.from_row_splits(values, splits, validate=False)


def map_flat_values(op, *args, **kwargs):
    """op applied to the flat_values of the RaggedTensor arguments (which must share their row partitions),
    the result with those row partitions.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     rt = tw.ragged.constant([[1, 2], [3]])
      ...     print(sess.run(tw.ragged.map_flat_values(tw.square, rt)).to_list())
      [[1, 4], [9]]
    """
    tw = _tw()
    ragged = []

    def strip(x):
        if isinstance(x, RaggedTensor):
            ragged.append(x)
            return x.flat_values
        if isinstance(x, list):
            return [strip(v) for v in x]
        if isinstance(x, tuple):
            return tuple(strip(v) for v in x)
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items()}
        return x

    args = strip(list(args))
    kwargs = strip(kwargs)
    if not ragged:
        return op(*args, **kwargs)
    first = ragged[0]
    checks = []
    for other in ragged[1:]:
        if other.ragged_rank != first.ragged_rank:
            raise ValueError("Inputs must have identical ragged splits")
        for a, b in zip(first.nested_row_splits, other.nested_row_splits):
            if a is not b:
                if a.dtype != b.dtype:
                    raise ValueError(
                        "Input RaggedTensors have mismatched row_splits dtypes; use "
                        "RaggedTensor.with_row_splits_dtype() to convert them to compatible dtypes."
                    )
                checks.append(tw.debugging.assert_equal(a, b, message="Inputs must have identical ragged splits"))
    if checks:
        with ops.control_dependencies(checks):
            result = op(*args, **kwargs)
            result = tw.identity(result)
    else:
        result = op(*args, **kwargs)
    return first.with_flat_values(result)


def _gather_rows(rt, indices):
    """Rows `indices` of a RaggedTensor (or a Tensor) in that order."""
    tw = _tw()
    if not isinstance(rt, RaggedTensor):
        return tw.gather(rt, indices)
    splits = rt.row_splits
    starts = tw.gather(splits[:-1], indices)
    limits = tw.gather(splits[1:], indices)
    where = ragged_range(starts, limits, dtype=splits.dtype, row_splits_dtype=splits.dtype)
    return RaggedTensor(_gather_rows(rt.values, where.values), where.row_splits, internal=True)


def _concat_rows(rts):
    """The rows of each RaggedTensor (or Tensor) one after another."""
    tw = _tw()
    if not isinstance(rts[0], RaggedTensor):
        return tw.concat(list(rts), axis=0)
    dtype = rts[0].row_splits_dtype
    parts, offset = [tw.zeros([1], dtype)], tw.zeros([], dtype)
    for rt in rts:
        parts.append(rt.row_splits[1:] + offset)
        offset = offset + rt.row_splits[-1]
    return RaggedTensor(_concat_rows([rt.values for rt in rts]), tw.concat(parts, axis=0), internal=True)


def _as_ragged_list(values, ragged_rank=None):
    values = [convert_to_tensor_or_ragged_tensor(v) for v in values]
    if not values:
        raise ValueError("values must not be empty")
    rank = max((v.ragged_rank for v in values if isinstance(v, RaggedTensor)), default=1)
    out = []
    for v in values:
        if not isinstance(v, RaggedTensor):
            if v.shape.ndims is None or v.shape.ndims < 2:
                raise ValueError("dense inputs of ragged.stack/concat must have rank >= 2")
            v = RaggedTensor.from_tensor(v, ragged_rank=min(rank, v.shape.ndims - 1))
        out.append(v)
    if len({v.ragged_rank for v in out}) != 1:
        raise ValueError("tensorweave's ragged.stack/concat needs inputs of the same ragged_rank")
    if len({v.row_splits_dtype for v in out}) != 1:
        raise ValueError("Input RaggedTensors have mismatched row_splits dtypes")
    if len({v.dtype for v in out}) != 1:
        raise ValueError("all inputs must have the same dtype")
    return out


def stack(values, axis=0, name=None):
    """The inputs stacked along a new dimension `axis` (0 or 1).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     a, b = tw.ragged.constant([[1, 2], [3]]), tw.ragged.constant([[4], []])
      ...     print(sess.run(tw.ragged.stack([a, b], axis=1)).to_list())
      [[[1, 2], [4]], [[3], []]]
    """
    tw = _tw()
    with ops.get_default_graph().name_scope(name or "RaggedConcat"):
        rts = _as_ragged_list(values)
        k = len(rts)
        if axis == 0:
            dtype = rts[0].row_splits_dtype
            counts = tw.stack([rt.nrows() for rt in rts])
            splits = tw.concat([tw.zeros([1], dtype), tw.cumsum(counts)], axis=0)
            return RaggedTensor(_concat_rows(rts), splits, internal=True)
        if axis == 1:
            dtype = rts[0].row_splits_dtype
            nrows = rts[0].nrows()
            checks = [
                tw.debugging.assert_equal(
                    rt.nrows(),
                    nrows,
                    message="Input tensors at index 0 (=x) and the others must have the same number of rows",
                )
                for rt in rts[1:]
            ]
            with ops.control_dependencies(checks):
                nrows = tw.identity(nrows)
            rows = tw.range(nrows, dtype=dtype)
            order = tw.reshape(tw.expand_dims(rows, 1) + tw.expand_dims(tw.range(k, dtype=dtype) * nrows, 0), [-1])
            gathered = _gather_rows(_concat_rows(rts), order)
            splits = tw.range(nrows + 1, dtype=dtype) * k
            return RaggedTensor(gathered, splits, internal=True)
        raise ValueError("tensorweave's ragged.stack supports axis 0 and 1")


def concat(values, axis, name=None):
    """The inputs concatenated along dimension `axis` (0: one after another; 1: row by row).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     a, b = tw.ragged.constant([[1, 2], [3]]), tw.ragged.constant([[4], []])
      ...     print(sess.run(tw.ragged.concat([a, b], axis=1)).to_list())
      [[1, 2, 4], [3]]
    """
    with ops.get_default_graph().name_scope(name or "RaggedConcat"):
        rts = _as_ragged_list(values)
        if axis == 0:
            return _concat_rows(rts)
        if axis == 1:
            return stack(rts, axis=1).merge_dims(1, 2)
        raise ValueError("tensorweave's ragged.concat supports axis 0 and 1")


gradients_impl.NotDifferentiable("RaggedRange")

"""TF1's tf.RaggedTensor in graph mode: a composite of `values` (a Tensor or another RaggedTensor) and int64
(or int32) `row_splits`, row i being values[row_splits[i]:row_splits[i + 1]]. As in TensorFlow, every method is
built from plain ops in Python; `validate=True` adds TensorFlow's checks of the row partition as graph asserts
(an InvalidArgumentError when run). Session.run fetches a RaggedTensor as a RaggedTensorValue and feeds one into
a ragged placeholder."""

import numpy as np

from tensorweave._src.framework import dtypes, ops, tensor_shape
from tensorweave._src.ops.ragged_tensor_value import RaggedTensorValue


def constant_value(t):
    from tensorweave._src.ops.array_ops import constant_value as value

    return value(t)


def _tw():
    import tensorweave

    return tensorweave


_SPLIT_DTYPES = (dtypes.int32, dtypes.int64)


def is_ragged(value):
    return isinstance(value, (RaggedTensor, RaggedTensorValue))


def _splits_tensor(value, name, dtype=None):
    """A row partition tensor: an int64 (or int32) vector; Python values default to int64."""
    if isinstance(value, ops.Tensor):
        if value.dtype not in _SPLIT_DTYPES:
            raise ValueError(f"{name} must have dtype int32 or int64, got {value.dtype.name}")
        if dtype is not None and value.dtype != dtype:
            value = _tw().cast(value, dtype)
        return value
    value = ops.convert_to_tensor(value, dtype=dtype or dtypes.int64, name=name)
    if value.dtype not in _SPLIT_DTYPES:
        raise ValueError(f"{name} must have dtype int32 or int64, got {value.dtype.name}")
    return value


def _convert_values(values, name="values"):
    if isinstance(values, RaggedTensor):
        return values
    if isinstance(values, RaggedTensorValue):
        return RaggedTensor.from_nested_row_splits(values.flat_values, values.nested_row_splits, validate=False)
    return ops.convert_to_tensor(values, name=name)


def _nvals(values, dtype):
    """The number of rows of `values` (its first dimension) as a scalar of `dtype`."""
    tw = _tw()
    if isinstance(values, RaggedTensor):
        return values.nrows(out_type=dtype)
    return tw.shape(values, out_type=dtype)[0]


def _valid_message(fn):
    return f"Arguments to {fn} do not form a valid RaggedTensor:"


class RaggedTensor:
    """A tensor with one or more ragged dimensions (TF1's tf.RaggedTensor, graph mode).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     rt = tw.RaggedTensor.from_row_splits([3, 1, 4, 1, 5], row_splits=[0, 2, 2, 5])
      ...     print(sess.run(rt).to_list(), rt.shape)
      [[3, 1], [], [4, 1, 5]] (3, ?)
    """

    def __init__(self, values, row_splits, internal=False):
        if not internal:
            raise ValueError(
                "RaggedTensor constructor is private; please use one of the factory methods instead (e.g., "
                "RaggedTensor.from_row_lengths())"
            )
        if not isinstance(values, (RaggedTensor, ops.Tensor)):
            raise TypeError(f"values must be a Tensor or RaggedTensor, got {type(values).__name__}")
        if values.shape.ndims == 0:
            raise ValueError("values must have rank >= 1")
        if isinstance(values, RaggedTensor) and values.row_splits.dtype != row_splits.dtype:
            raise ValueError(
                "dtype mismatch: values.row_splits is "
                f"{values.row_splits.dtype.name} but row_splits is {row_splits.dtype.name} "
                "(use with_row_splits_dtype to convert)"
            )
        row_splits.shape.with_rank(1)
        self._values = values
        self._row_splits = row_splits

    # ------------------------------------------------------------------ factories

    @classmethod
    def _checked(cls, values, row_splits, checks, validate):
        if validate and checks:
            cf = _tw()
            with ops.control_dependencies(checks):
                row_splits = cf.identity(row_splits)
        return cls(values, row_splits, internal=True)

    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        """The rows values[row_splits[i]:row_splits[i + 1]]."""
        tw = _tw()
        with ops.get_default_graph().name_scope(name or "RaggedFromRowSplits"):
            values = _convert_values(values)
            row_splits = _splits_tensor(row_splits, "row_splits")
            row_splits.shape.with_rank(1)
            checks = []
            if validate:
                msg = _valid_message("from_row_splits")
                nvals = _nvals(values, row_splits.dtype)
                checks = [
                    tw.debugging.assert_equal(row_splits[:1], tw.zeros_like(row_splits[:1]), message=msg + "zero"),
                    tw.debugging.assert_non_negative(row_splits[1:] - row_splits[:-1], message=msg + "monotonic"),
                    tw.debugging.assert_equal(row_splits[-1:], [nvals], message=msg + "nvals"),
                ]
            return cls._checked(values, row_splits, checks, validate)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        """Row i has row_lengths[i] values."""
        tw = _tw()
        with ops.get_default_graph().name_scope(name or "RaggedFromRowLengths"):
            values = _convert_values(values)
            row_lengths = _splits_tensor(row_lengths, "row_lengths")
            row_lengths.shape.with_rank(1)
            zero = tw.zeros([1], row_lengths.dtype)
            row_splits = tw.concat([zero, tw.cumsum(row_lengths)], axis=0)
            checks = []
            if validate:
                msg = _valid_message("from_row_lengths")
                checks = [
                    tw.debugging.assert_non_negative(row_lengths, message=msg + "negative"),
                    tw.debugging.assert_equal(
                        row_splits[-1:], [_nvals(values, row_lengths.dtype)], message=msg + "nvals"
                    ),
                ]
            return cls._checked(values, row_splits, checks, validate)

    @classmethod
    def from_row_starts(cls, values, row_starts, name=None, validate=True):
        """Row i is values[row_starts[i]:row_starts[i + 1]] (the last row runs to the end)."""
        tw = _tw()
        with ops.get_default_graph().name_scope(name or "RaggedFromRowStarts"):
            values = _convert_values(values)
            row_starts = _splits_tensor(row_starts, "row_starts")
            row_starts.shape.with_rank(1)
            nvals = _nvals(values, row_starts.dtype)
            row_splits = tw.concat([row_starts, [nvals]], axis=0)
            checks = []
            if validate:
                msg = _valid_message("from_row_starts")
                checks = [
                    tw.debugging.assert_equal(row_starts[:1], tw.zeros_like(row_starts[:1]), message=msg + "zero"),
                    tw.debugging.assert_non_negative(row_splits[1:] - row_splits[:-1], message=msg + "monotonic"),
                ]
            return cls._checked(values, row_splits, checks, validate)

    @classmethod
    def from_row_limits(cls, values, row_limits, name=None, validate=True):
        """Row i is values[row_limits[i - 1]:row_limits[i]] (the first row starts at 0)."""
        tw = _tw()
        with ops.get_default_graph().name_scope(name or "RaggedFromRowLimits"):
            values = _convert_values(values)
            row_limits = _splits_tensor(row_limits, "row_limits")
            row_limits.shape.with_rank(1)
            row_splits = tw.concat([tw.zeros([1], row_limits.dtype), row_limits], axis=0)
            checks = []
            if validate:
                msg = _valid_message("from_row_limits")
                checks = [
                    tw.debugging.assert_non_negative(row_limits[:1], message=msg + "negative"),
                    tw.debugging.assert_non_negative(row_splits[1:] - row_splits[:-1], message=msg + "monotonic"),
                    tw.debugging.assert_equal(
                        row_splits[-1:], [_nvals(values, row_limits.dtype)], message=msg + "nvals"
                    ),
                ]
            return cls._checked(values, row_splits, checks, validate)

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        """values[j] goes to row value_rowids[j] (sorted); `nrows` defaults to value_rowids[-1] + 1."""
        tw = _tw()
        with ops.get_default_graph().name_scope(name or "RaggedFromValueRowIds"):
            values = _convert_values(values)
            value_rowids = _splits_tensor(value_rowids, "value_rowids")
            value_rowids.shape.with_rank(1)
            dtype = value_rowids.dtype
            if nrows is None:
                n = tw.size(value_rowids, out_type=dtype)
                last = tw.concat([tw.zeros([1], dtype) - 1, value_rowids], axis=0)[n]
                nrows = last + 1
            else:
                nrows = ops.convert_to_tensor(nrows, dtype=dtype, name="nrows")
                nrows.shape.with_rank(0)
            targets = tw.range(tw.cast(nrows, dtypes.int64) + 1, dtype=dtypes.int64)
            row_splits = tw.searchsorted(tw.cast(value_rowids, dtypes.int64), targets, side="left", out_type=dtype)
            checks = []
            if validate:
                msg = _valid_message("from_value_rowids")
                checks = [
                    tw.debugging.assert_non_negative(nrows, message=msg + "nrows must be non-negative"),
                    tw.debugging.assert_non_negative(value_rowids[:1], message=msg + "negative"),
                    tw.debugging.assert_non_negative(value_rowids[1:] - value_rowids[:-1], message=msg + "monotonic"),
                    tw.debugging.assert_less(value_rowids[-1:], [nrows], message=msg + "bounds"),
                    tw.debugging.assert_equal(
                        tw.size(value_rowids, out_type=dtype), _nvals(values, dtype), message=msg + "nvals"
                    ),
                ]
            return cls._checked(values, row_splits, checks, validate)

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None, validate=True):
        """from_row_splits applied once per partition, innermost last."""
        if isinstance(nested_row_splits, ops.Tensor):
            raise TypeError("nested_row_splits must be a list of Tensors")
        with ops.get_default_graph().name_scope(name or "RaggedFromNestedRowSplits"):
            result = flat_values
            for splits in reversed(list(nested_row_splits)):
                result = cls.from_row_splits(result, splits, validate=validate)
            return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None, validate=True):
        """from_row_lengths applied once per partition, innermost last."""
        if isinstance(nested_row_lengths, ops.Tensor):
            raise TypeError("nested_row_lengths must be a list of Tensors")
        with ops.get_default_graph().name_scope(name or "RaggedFromNestedRowLengths"):
            result = flat_values
            for lengths in reversed(list(nested_row_lengths)):
                result = cls.from_row_lengths(result, lengths, validate=validate)
            return result

    @classmethod
    def from_nested_value_rowids(cls, flat_values, nested_value_rowids, nested_nrows=None, name=None, validate=True):
        """from_value_rowids applied once per partition, innermost last."""
        rowids = list(nested_value_rowids)
        nrows = [None] * len(rowids) if nested_nrows is None else list(nested_nrows)
        if len(nrows) != len(rowids):
            raise ValueError("nested_nrows must have the same length as nested_value_rowids")
        with ops.get_default_graph().name_scope(name or "RaggedFromNestedValueRowIds"):
            result = flat_values
            for ids, n in reversed(list(zip(rowids, nrows))):
                result = cls.from_value_rowids(result, ids, n, validate=validate)
            return result

    @classmethod
    def from_uniform_row_length(cls, values, uniform_row_length, nrows=None, validate=True, name=None):
        """Rows of `uniform_row_length` values each."""
        tw = _tw()
        with ops.get_default_graph().name_scope(name or "RaggedFromUniformRowLength"):
            values = _convert_values(values)
            length = ops.convert_to_tensor(uniform_row_length, dtype=dtypes.int64, name="uniform_row_length")
            nvals = _nvals(values, dtypes.int64)
            if nrows is None:
                nrows = tw.where(tw.equal(length, 0), tw.zeros([], dtypes.int64), nvals // tw.maximum(length, 1))
            nrows = ops.convert_to_tensor(nrows, dtype=dtypes.int64, name="nrows")
            row_splits = tw.range(nrows + 1, dtype=dtypes.int64) * length
            checks = []
            if validate:
                msg = _valid_message("from_uniform_row_length")
                checks = [tw.debugging.assert_equal(nrows * length, nvals, message=msg + "nvals")]
            out = cls._checked(values, row_splits, checks, validate)
            static = constant_value(length)
            out._uniform_row_length = None if static is None else int(static)
            return out

    @classmethod
    def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None, row_splits_dtype=dtypes.int64):
        """A dense tensor as a RaggedTensor: every row whole, or cut to `lengths` (a vector, ragged_rank 1) or
        before its trailing `padding` values."""
        tw = _tw()
        if lengths is not None and padding is not None:
            raise ValueError("Specify lengths or padding, but not both")
        if not isinstance(ragged_rank, int) or ragged_rank <= 0:
            raise ValueError(f"ragged_rank must be greater than 0; got {ragged_rank}")
        row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
        with ops.get_default_graph().name_scope(name or "RaggedFromTensor"):
            tensor = ops.convert_to_tensor(tensor, name="tensor")
            rank = tensor.shape.ndims
            if rank is None:
                raise ValueError("tensor's rank must be known statically")
            if rank <= ragged_rank:
                raise ValueError(
                    f"ragged_rank must be less than tensor.rank; got ragged_rank={ragged_rank}, rank={rank}"
                )
            shape = tw.shape(tensor, out_type=row_splits_dtype)
            if ragged_rank > 1:
                merged = tw.reshape(tensor, tw.concat([[shape[0] * shape[1]], shape[2:]], axis=0))
                if lengths is not None:
                    raise ValueError("lengths with ragged_rank > 1 is not supported by tensorweave; use padding")
                inner = cls.from_tensor(
                    merged, padding=padding, ragged_rank=ragged_rank - 1, row_splits_dtype=row_splits_dtype
                )
                splits = tw.range(shape[0] + 1, dtype=row_splits_dtype) * shape[1]
                out = cls(inner, splits, internal=True)
                out._static_nrows = tensor.shape.dims[0]
                out._uniform_row_length = tensor.shape.dims[1]
                return out
            if padding is not None:
                padding = ops.convert_to_tensor(padding, dtype=tensor.dtype, name="padding")
                is_pad = tw.equal(tensor, padding)
                if rank > 2:
                    is_pad = tw.reduce_all(is_pad, axis=list(range(2, rank)))
                positions = tw.range(1, shape[1] + 1, dtype=row_splits_dtype)
                kept = tw.cast(tw.logical_not(is_pad), row_splits_dtype) * positions
                lengths = tw.reduce_max(tw.concat([kept, tw.zeros([shape[0], 1], row_splits_dtype)], axis=1), axis=1)
            if lengths is not None:
                lengths = _splits_tensor(lengths, "lengths", row_splits_dtype)
                lengths.shape.with_rank(1)
                lengths = tw.minimum(lengths, shape[1])
                mask = tw.sequence_mask(lengths, shape[1])
                values = tw.boolean_mask(tensor, mask)
                out = cls.from_row_lengths(values, lengths, validate=False)
            else:
                values = tw.reshape(tensor, tw.concat([[shape[0] * shape[1]], shape[2:]], axis=0))
                splits = tw.range(shape[0] + 1, dtype=row_splits_dtype) * shape[1]
                out = cls(values, splits, internal=True)
                out._uniform_row_length = tensor.shape.dims[1]
            out._static_nrows = tensor.shape.dims[0]
            return out

    @classmethod
    def from_sparse(cls, st_input, name=None, row_splits_dtype=dtypes.int64):
        """A 2-D SparseTensor with its indices in row-major order, each row's columns 0, 1, ... as a
        RaggedTensor of ragged_rank 1."""
        tw = _tw()
        row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
        if not isinstance(st_input, tw.SparseTensor):
            raise TypeError(f"Expected SparseTensor, got {type(st_input).__name__}")
        static = st_input.indices.shape
        if static.ndims is not None and static.dims[1] is not None and static.dims[1] != 2:
            raise ValueError("rank(st_input) must be 2")
        with ops.get_default_graph().name_scope(name or "RaggedFromSparse"):
            rowids = tw.cast(st_input.indices[:, 0], row_splits_dtype)
            nrows = tw.cast(st_input.dense_shape[0], row_splits_dtype)
            return cls.from_value_rowids(st_input.values, rowids, nrows, validate=False)

    # ------------------------------------------------------------------ accessors

    values = property(lambda self: self._values, doc="The concatenated rows.")
    row_splits = property(lambda self: self._row_splits, doc="The row partition: row i is values[s[i]:s[i + 1]].")

    @property
    def flat_values(self):
        v = self._values
        while isinstance(v, RaggedTensor):
            v = v.values
        return v

    @property
    def nested_row_splits(self):
        out, v = [self._row_splits], self._values
        while isinstance(v, RaggedTensor):
            out.append(v.row_splits)
            v = v.values
        return tuple(out)

    @property
    def ragged_rank(self):
        return self._values.ragged_rank + 1 if isinstance(self._values, RaggedTensor) else 1

    @property
    def dtype(self):
        return self.flat_values.dtype

    @property
    def row_splits_dtype(self):
        return self._row_splits.dtype

    @property
    def graph(self):
        return self._row_splits.graph

    @property
    def shape(self):
        """[nrows, None (each ragged dimension), flat_values' inner dimensions]."""
        n = getattr(self, "_static_nrows", None)
        if n is None:
            d = self._row_splits.shape.dims
            n = d[0] - 1 if d is not None and d[0] is not None else None
        inner = self._values.shape
        rest = [getattr(self, "_uniform_row_length", None)] + (inner.as_list()[1:] if inner.ndims is not None else [])
        if inner.ndims is None:
            return tensor_shape.TensorShape(None)
        return tensor_shape.TensorShape([n] + rest)

    def get_shape(self):
        return self.shape

    def nrows(self, out_type=None, name=None):
        tw = _tw()
        with ops.get_default_graph().name_scope(name or "RaggedNRows"):
            n = tw.size(self._row_splits, out_type=self._row_splits.dtype) - 1
            return n if out_type is None or out_type == n.dtype else tw.cast(n, out_type)

    def row_starts(self, name=None):
        with ops.get_default_graph().name_scope(name or "RaggedRowStarts"):
            return self._row_splits[:-1]

    def row_limits(self, name=None):
        with ops.get_default_graph().name_scope(name or "RaggedRowLimits"):
            return self._row_splits[1:]

    def row_lengths(self, axis=1, name=None):
        """The length of each row (axis 1), or of each row of the ragged dimension `axis`."""
        tw = _tw()
        if axis == 0:
            return self.nrows()
        with ops.get_default_graph().name_scope(name or "RaggedRowLengths"):
            if axis == 1:
                return self._row_splits[1:] - self._row_splits[:-1]
            if axis < 0 or axis > self.ragged_rank and self.shape.ndims is None:
                raise ValueError(f"axis {axis} out of bounds")
            if isinstance(self._values, RaggedTensor):
                return self.with_values(self._values.row_lengths(axis - 1))
            shape = tw.shape(self._values, out_type=self._row_splits.dtype)
            return self.with_values(tw.fill([shape[0]], shape[axis - 1]))

    def nested_row_lengths(self, name=None):
        with ops.get_default_graph().name_scope(name or "RaggedNestedRowLengths"):
            out, rt = [], self
            while isinstance(rt, RaggedTensor):
                out.append(rt.row_lengths())
                rt = rt.values
            return tuple(out)

    def value_rowids(self, name=None):
        """The row of each value: value_rowids[j] = i where row_splits[i] <= j < row_splits[i + 1]."""
        with ops.get_default_graph().name_scope(name or "RaggedValueRowIds"):
            return row_splits_to_segment_ids(self._row_splits)

    def nested_value_rowids(self, name=None):
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt.value_rowids())
            rt = rt.values
        return tuple(out)

    # ------------------------------------------------------------------ transforms

    def with_values(self, new_values):
        """The same row partition over `new_values` (as many rows as self.values)."""
        new_values = _convert_values(new_values)
        if isinstance(new_values, RaggedTensor) and new_values.row_splits_dtype != self.row_splits_dtype:
            raise ValueError("new_values.row_splits.dtype must match self.row_splits.dtype")
        out = RaggedTensor(new_values, self._row_splits, internal=True)
        out._static_nrows = getattr(self, "_static_nrows", None)
        out._uniform_row_length = getattr(self, "_uniform_row_length", None)
        return out

    def with_flat_values(self, new_values):
        """The same nested row partitions over `new_values`."""
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    def with_row_splits_dtype(self, dtype):
        """The same ragged tensor with every row partition cast to `dtype` (int32 or int64)."""
        dtype = dtypes.as_dtype(dtype)
        if dtype not in _SPLIT_DTYPES:
            raise ValueError(f"dtype must be int32 or int64, got {dtype.name}")
        if dtype == self.row_splits_dtype:
            return self
        values = self._values
        if isinstance(values, RaggedTensor):
            values = values.with_row_splits_dtype(dtype)
        return RaggedTensor(values, _tw().cast(self._row_splits, dtype), internal=True)

    def merge_dims(self, outer_axis, inner_axis):
        """Dimensions outer_axis..inner_axis merged into one."""
        tw = _tw()
        rank = self.shape.ndims
        if rank is None:
            raise ValueError("merge_dims requires a known rank")
        outer_axis = outer_axis + rank if outer_axis < 0 else outer_axis
        inner_axis = inner_axis + rank if inner_axis < 0 else inner_axis
        if not 0 <= outer_axis < rank or not 0 <= inner_axis < rank:
            raise ValueError(f"axis out of bounds for a tensor of rank {rank}")
        if outer_axis > inner_axis:
            raise ValueError(
                "Expected outer_axis (%d) to be less than or equal to inner_axis (%d)" % (outer_axis, inner_axis)
            )
        if outer_axis == inner_axis:
            return self
        if outer_axis == 0:  # rows 0..inner merged: the values of the merge of 1..inner
            return (self.merge_dims(1, inner_axis) if inner_axis > 1 else self).values
        if outer_axis > 1:
            if isinstance(self._values, RaggedTensor):
                return self.with_values(self._values.merge_dims(outer_axis - 1, inner_axis - 1))
            return self.with_values(_dense_merge_dims(self._values, outer_axis - 1, inner_axis - 1))
        rt = self.merge_dims(2, inner_axis) if inner_axis > 2 else self
        values = rt.values
        if isinstance(values, RaggedTensor):
            return RaggedTensor(values.values, tw.gather(values.row_splits, rt.row_splits), internal=True)
        width = tw.shape(values, out_type=rt.row_splits_dtype)[1]
        return RaggedTensor(_dense_merge_dims(values, 0, 1), rt.row_splits * width, internal=True)

    def bounding_shape(self, axis=None, name=None, out_type=None):
        """The smallest dense shape that holds every row: [nrows, longest row, ...]."""
        tw = _tw()
        out_type = dtypes.as_dtype(out_type) if out_type is not None else self.row_splits_dtype
        with ops.get_default_graph().name_scope(name or "RaggedBoundingBox"):
            dims, rt = [self.nrows(out_type=out_type)], self
            while isinstance(rt, RaggedTensor):
                lengths = tw.cast(rt.row_lengths(), out_type)
                dims.append(tw.reduce_max(tw.concat([lengths, tw.zeros([1], out_type)], axis=0)))
                rt = rt.values
            inner = tw.shape(rt, out_type=out_type)[1:]
            shape = tw.concat([tw.stack(dims), inner], axis=0)
            return shape if axis is None else shape[axis]

    def to_tensor(self, default_value=None, name=None, shape=None):
        """A dense tensor: each row padded with `default_value` (zero or '' by default) to the bounding shape,
        or padded and cut to `shape`."""
        tw = _tw()
        with ops.get_default_graph().name_scope(name or "RaggedToTensor"):
            flat = self.flat_values
            if default_value is None:
                default_value = tw.zeros([], flat.dtype) if flat.dtype != dtypes.string else tw.constant("")
            default_value = ops.convert_to_tensor(default_value, dtype=flat.dtype, name="default_value")
            flat_shape = tw.shape(flat, out_type=dtypes.int64)
            rank = self.shape.ndims
            sizes = [None] * (self.ragged_rank + 1)
            if shape is not None:
                shape = tensor_shape.TensorShape(shape)
                if rank is not None and shape.ndims is not None and shape.ndims != rank:
                    raise ValueError(f"shape {shape} does not match the rank of the ragged tensor ({rank})")
                dims = shape.as_list() if shape.ndims is not None else [None] * (rank or 0)
                sizes = dims[: self.ragged_rank + 1] + [None] * max(0, self.ragged_rank + 1 - len(dims))
                inner = dims[self.ragged_rank + 1 :]
                static_inner = flat.shape.as_list()[1:] if flat.shape.ndims is not None else []
                for want, have in zip(inner, static_inner):
                    if want is not None and have is not None and want != have:
                        raise ValueError("to_tensor(shape=...) can only pad or cut the ragged and outer dimensions")
            nflat = flat_shape[0]
            index = _dense_index(self, nflat, sizes)
            fill = tw.broadcast_to(default_value, flat_shape[1:])
            table = tw.concat([flat, tw.expand_dims(fill, 0)], axis=0)
            dense = tw.gather(table, index)
            static = self.shape.as_list() if self.shape.ndims is not None else None
            if static is not None:
                static = [s if s is not None else d for s, d in zip(sizes + [None] * len(static), static)]
                for i, s in enumerate(sizes):
                    if s is not None and i < len(static):
                        static[i] = s
                dense.set_shape(static)
            return dense

    def to_sparse(self, name=None):
        """A SparseTensor with the same values at their (row, column, ...) positions."""
        tw = _tw()
        with ops.get_default_graph().name_scope(name or "RaggedToSparse"):
            flat = self.flat_values
            if flat.shape.ndims is not None and flat.shape.ndims > 1:
                raise ValueError("to_sparse of a RaggedTensor with uniform inner dimensions is not supported")
            cols = []
            rt = self
            # Positions of each flat value, innermost first: its column in its row, then its row's column in
            # the enclosing row, and so on out to the outermost row.
            chain = []
            while isinstance(rt, RaggedTensor):
                chain.append(rt)
                rt = rt.values
            ids = tw.range(tw.shape(flat, out_type=dtypes.int64)[0], dtype=dtypes.int64)
            for level in reversed(chain):
                splits = tw.cast(level.row_splits, dtypes.int64)
                rowids = row_splits_to_segment_ids(splits, out_type=dtypes.int64)
                row = tw.gather(rowids, ids)
                cols.append(ids - tw.gather(splits, row))
                ids = row
            indices = tw.stack([ids] + list(reversed(cols)), axis=1)
            dense_shape = self.bounding_shape(out_type=dtypes.int64)
            return tw.SparseTensor(indices, flat, dense_shape)

    # ------------------------------------------------------------------ indexing and operators

    def __getitem__(self, key):
        tw = _tw()
        if isinstance(key, tuple):
            if not key:
                return self
            head, rest = key[0], key[1:]
            if rest and not isinstance(head, (int, np.integer)):
                raise ValueError(
                    "tensorweave's RaggedTensor supports only a row index or a slice of rows before further indices"
                )
            out = self[head]
            return out[rest] if rest else out
        splits = self._row_splits
        with ops.get_default_graph().name_scope("RaggedGetItem"):
            if isinstance(key, (int, np.integer)) or (isinstance(key, ops.Tensor) and key.shape.ndims == 0):
                i = tw.cast(key, splits.dtype)
                n = self.nrows()
                i = tw.where(i < 0, i + n, i)
                check = tw.debugging.assert_less(
                    i, n, message="slice index out of bounds for the rows of the RaggedTensor"
                )
                check2 = tw.debugging.assert_non_negative(
                    i, message="slice index out of bounds for the rows of the RaggedTensor"
                )
                with ops.control_dependencies([check, check2]):
                    start = tw.identity(tw.gather(splits, i))
                limit = tw.gather(splits, i + 1)
                return _slice_rows(self._values, start, limit)
            if isinstance(key, slice):
                if key.step not in (None, 1):
                    raise ValueError("tensorweave's RaggedTensor supports only slices of step 1 on the rows")
                n = self.nrows()

                def bound(v, default):
                    if v is None:
                        return default
                    v = tw.cast(v, splits.dtype)
                    v = tw.where(v < 0, v + n, v)
                    return tw.minimum(tw.maximum(v, 0), n)

                start = bound(key.start, tw.zeros([], splits.dtype))
                stop = tw.maximum(bound(key.stop, n), start)
                sub = tw.slice(splits, tw.reshape(start, [1]), tw.reshape(stop - start + 1, [1]))
                values = _slice_rows(self._values, sub[0], sub[-1])
                return RaggedTensor(values, sub - sub[0], internal=True)
            if key is Ellipsis:
                return self
        raise TypeError(f"RaggedTensor indices must be integers or slices, got {type(key).__name__}")

    def _binary(self, other, fn, reverse=False):
        tw = _tw()
        if isinstance(other, RaggedTensor):
            if other.ragged_rank != self.ragged_rank:
                raise ValueError("both RaggedTensors must have the same ragged_rank")
            checks = [
                tw.debugging.assert_equal(a, b, message="Inputs must have identical ragged splits")
                for a, b in zip(self.nested_row_splits, other.nested_row_splits)
            ]
            with ops.control_dependencies(checks):
                theirs = tw.identity(other.flat_values)
        else:
            theirs = ops.convert_to_tensor(other, dtype=self.dtype)
            if theirs.shape.ndims is None or theirs.shape.ndims > 0:
                raise ValueError(
                    "tensorweave's RaggedTensor operators take a scalar or a RaggedTensor of the same row partitions"
                )
        mine = self.flat_values
        return self.with_flat_values(fn(theirs, mine) if reverse else fn(mine, theirs))

    def __add__(self, o):
        return self._binary(o, _tw().add)

    def __radd__(self, o):
        return self._binary(o, _tw().add, True)

    def __sub__(self, o):
        return self._binary(o, _tw().subtract)

    def __rsub__(self, o):
        return self._binary(o, _tw().subtract, True)

    def __mul__(self, o):
        return self._binary(o, _tw().multiply)

    def __rmul__(self, o):
        return self._binary(o, _tw().multiply, True)

    def __truediv__(self, o):
        return self._binary(o, _tw().truediv)

    def __rtruediv__(self, o):
        return self._binary(o, _tw().truediv, True)

    def __floordiv__(self, o):
        return self._binary(o, _tw().floordiv)

    def __mod__(self, o):
        return self._binary(o, _tw().floormod)

    def __pow__(self, o):
        return self._binary(o, _tw().pow)

    def __lt__(self, o):
        return self._binary(o, _tw().less)

    def __le__(self, o):
        return self._binary(o, _tw().less_equal)

    def __gt__(self, o):
        return self._binary(o, _tw().greater)

    def __ge__(self, o):
        return self._binary(o, _tw().greater_equal)

    def __and__(self, o):
        return self._binary(o, _tw().logical_and)

    def __or__(self, o):
        return self._binary(o, _tw().logical_or)

    def __neg__(self):
        return self.with_flat_values(_tw().negative(self.flat_values))

    def __abs__(self):
        return self.with_flat_values(_tw().abs(self.flat_values))

    def __invert__(self):
        return self.with_flat_values(_tw().logical_not(self.flat_values))

    __hash__ = object.__hash__

    def __bool__(self):
        raise TypeError("RaggedTensor may not be used as a boolean.")

    # ------------------------------------------------------------------ Session.run

    def _tw_fetch_components(self):
        return [self.flat_values, *self.nested_row_splits]

    @staticmethod
    def _tw_from_fetched(flat_values, *nested_row_splits):
        out = flat_values
        for splits in reversed(nested_row_splits):
            out = RaggedTensorValue(out, splits)
        return out

    def _tw_feed_values(self, value):
        """The component values of a RaggedTensorValue fed to this ragged tensor (a ragged placeholder)."""
        if not isinstance(value, RaggedTensorValue):
            raise TypeError(f"The value of a RaggedTensor feed must be a RaggedTensorValue, got {type(value).__name__}")
        if value.ragged_rank != self.ragged_rank:
            raise ValueError(
                f"The fed RaggedTensorValue has ragged_rank {value.ragged_rank}, the RaggedTensor {self.ragged_rank}"
            )
        return [value.flat_values, *value.nested_row_splits]

    def eval(self, feed_dict=None, session=None):
        sess = session or ops.get_default_session()
        return sess.run(self, feed_dict=feed_dict)

    def __repr__(self):
        return f"tw.RaggedTensor(values={self._values!r}, row_splits={self._row_splits!r})"


def _no_implicit_conversion(value, dtype=None, name=None):
    raise TypeError(
        f"A RaggedTensor is not a Tensor (converting {value!r}): use rt.to_tensor() for a padded dense tensor, "
        "rt.flat_values for its values, or tw.ragged.map_flat_values(op, rt) for an element-wise op"
    )


ops.register_tensor_conversion_function(RaggedTensor, _no_implicit_conversion)


# ---------------------------------------------------------------------- helpers


def _dense_merge_dims(t, outer, inner):
    tw = _tw()
    shape = tw.shape(t)
    merged = tw.reduce_prod(shape[outer : inner + 1], keepdims=True)
    return tw.reshape(t, tw.concat([shape[:outer], merged, shape[inner + 1 :]], axis=0))


def _slice_rows(values, start, limit):
    """values[start:limit] on the first dimension (a Tensor or a RaggedTensor)."""
    if isinstance(values, RaggedTensor):
        sub = values.row_splits[start : limit + 1]
        return RaggedTensor(_slice_rows(values.values, sub[0], sub[-1]), sub - sub[0], internal=True)
    return values[start:limit]


def _pad_index(splits, sentinel, width=None, nrows=None):
    """[nrows, width] positions into the rows' values (sentinel past each row's end): the gather index that
    pads a ragged level; width defaults to the longest row, nrows to the rows there are."""
    tw = _tw()
    splits = tw.cast(splits, dtypes.int64)
    starts, lengths = splits[:-1], splits[1:] - splits[:-1]
    if nrows is not None:
        n = tw.size(starts, out_type=dtypes.int64)
        extra = tw.maximum(tw.constant(nrows, dtypes.int64) - n, 0)
        starts = tw.concat([starts, tw.zeros(tw.reshape(extra, [1]), dtypes.int64)], axis=0)[:nrows]
        lengths = tw.concat([lengths, tw.zeros(tw.reshape(extra, [1]), dtypes.int64)], axis=0)[:nrows]
    if width is None:
        width = tw.reduce_max(tw.concat([lengths, tw.zeros([1], dtypes.int64)], axis=0))
    cols = tw.range(tw.cast(width, dtypes.int64), dtype=dtypes.int64)
    index = tw.expand_dims(starts, 1) + tw.expand_dims(cols, 0)
    inside = tw.expand_dims(cols, 0) < tw.expand_dims(lengths, 1)
    return tw.where(inside, index, tw.fill(tw.shape(index, out_type=dtypes.int64), tw.cast(sentinel, dtypes.int64)))


def _dense_index(rt, nflat, sizes):
    """For each position of rt's padded dense form, its flat value's index, or nflat (the padding)."""
    tw = _tw()
    if isinstance(rt.values, RaggedTensor):
        inner = _dense_index(rt.values, nflat, [None] + list(sizes[2:]))
        nrows_inner = rt.values.nrows(out_type=dtypes.int64)
        pad_row = tw.fill(tw.concat([[1], tw.shape(inner, out_type=dtypes.int64)[1:]], axis=0), nflat)
        table = tw.concat([inner, pad_row], axis=0)
        outer = _pad_index(rt.row_splits, nrows_inner, sizes[1], sizes[0])
        return tw.gather(table, outer)
    return _pad_index(rt.row_splits, nflat, sizes[1], sizes[0])


def row_splits_to_segment_ids(splits, name=None, out_type=None):
    """The row of each value of a ragged partition: [0] * len(row 0) + [1] * len(row 1) + ...

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.ragged.row_splits_to_segment_ids([0, 3, 3, 5, 6, 9])))
      [0 0 0 2 2 3 4 4 4]
    """
    tw = _tw()
    with ops.get_default_graph().name_scope(name or "RaggedSplitsToSegmentIds"):
        splits = _splits_tensor(splits, "splits")
        splits.shape.with_rank(1)
        out_type = dtypes.as_dtype(out_type) if out_type is not None else splits.dtype
        nvals = tw.cast(splits[-1], dtypes.int64)
        positions = tw.range(nvals, dtype=dtypes.int64)
        ids = tw.searchsorted(tw.cast(splits[1:], dtypes.int64), positions, side="right", out_type=out_type)
        return ids


def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None, name=None):
    """The row splits of a sorted segment id vector (num_segments rows, by default max id + 1).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.ragged.segment_ids_to_row_splits([0, 0, 0, 2, 2, 3, 4, 4, 4])))
      [0 3 3 5 6 9]
    """
    tw = _tw()
    with ops.get_default_graph().name_scope(name or "SegmentIdsToRaggedSplits"):
        segment_ids = _splits_tensor(segment_ids, "segment_ids")
        segment_ids.shape.with_rank(1)
        if out_type is None:
            out_type = segment_ids.dtype
        ids = tw.cast(segment_ids, dtypes.int64)
        if num_segments is None:
            num_segments = tw.reduce_max(tw.concat([ids, [-1]], axis=0)) + 1
        num_segments = tw.cast(num_segments, dtypes.int64)
        counts = tw.math.bincount(
            tw.cast(ids, dtypes.int32),
            minlength=tw.cast(num_segments, dtypes.int32),
            maxlength=tw.cast(num_segments, dtypes.int32),
            dtype=dtypes.int64,
        )
        splits = tw.concat([tw.zeros([1], dtypes.int64), tw.cumsum(counts)], axis=0)
        return tw.cast(splits, out_type)


def convert_to_tensor_or_ragged_tensor(value, dtype=None, name=None):
    """A RaggedTensor or RaggedTensorValue as a RaggedTensor; anything else as a Tensor."""
    if isinstance(value, RaggedTensor):
        if dtype is not None and value.dtype != dtypes.as_dtype(dtype):
            raise ValueError(f"Tensor conversion requested dtype {dtype} for RaggedTensor with dtype {value.dtype}")
        return value
    if isinstance(value, RaggedTensorValue):
        return _convert_values(value)
    return ops.convert_to_tensor(value, dtype=dtype, name=name)

"""TF1's IndexedSlices: a sparse representation of a dense tensor's slices (values at indices along dim 0), and
the conversion helpers that take it."""

import collections

from tensorweave._src.framework import ops

# What Session.run returns for an IndexedSlices (TF1's indexed_slices.IndexedSlicesValue).
IndexedSlicesValue = collections.namedtuple("IndexedSlicesValue", ["values", "indices", "dense_shape"])


class IndexedSlices:
    """values[i] is the slice dense[indices[i]] (repeated indices add); dense_shape the dense tensor's shape.
    Converting it to a Tensor sums the slices into a dense tensor (as TF1, which needs dense_shape)."""

    def __init__(self, values, indices, dense_shape=None):
        self._values = values
        self._indices = indices
        self._dense_shape = dense_shape

    @property
    def values(self):
        return self._values

    @property
    def indices(self):
        return self._indices

    @property
    def dense_shape(self):
        return self._dense_shape

    @property
    def name(self):
        return self._values.name

    @property
    def device(self):
        return self._values.device

    @property
    def op(self):
        return self._values.op

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def graph(self):
        return self._values.graph

    @property
    def shape(self):
        from tensorweave._src.framework.tensor_shape import TensorShape
        from tensorweave._src.ops import array_ops

        if self._dense_shape is None:
            return TensorShape(None)
        value = array_ops.constant_value(self._dense_shape)
        if value is not None:
            return TensorShape([int(d) for d in value])
        return TensorShape(None)

    def get_shape(self):
        return self.shape

    # Session.run's hook: what to fetch, and the value built from it (no dense_shape: None, as TF1).
    def _tw_fetch_components(self):
        parts = [self._values, self._indices]
        return parts + ([self._dense_shape] if self._dense_shape is not None else [])

    @staticmethod
    def _tw_from_fetched(values, indices, dense_shape=None):
        return IndexedSlicesValue(values, indices, dense_shape)

    def __neg__(self):
        from tensorweave._src.ops import math_ops

        return IndexedSlices(math_ops.negative(self._values), self._indices, self._dense_shape)

    def __repr__(self):
        return f"IndexedSlices(indices={self._indices}, values={self._values}" + (
            f", dense_shape={self._dense_shape})" if self._dense_shape is not None else ")"
        )


def _indexed_slices_to_tensor(value, dtype=None, name=None, as_ref=False):
    from tensorweave._src.ops import array_ops

    if dtype is not None and dtype != value.dtype:
        raise ValueError(
            f"Tensor conversion requested dtype {dtype.name} for IndexedSlices with dtype {value.dtype.name}"
        )
    if value.dense_shape is None:
        raise ValueError("Tensor conversion requested for IndexedSlices without dense_shape: " + str(value.name))
    num = ops.convert_to_tensor(value.dense_shape)[0]
    return array_ops.unsorted_segment_sum(value.values, value.indices, num, name=name)


ops.register_tensor_conversion_function(IndexedSlices, _indexed_slices_to_tensor)


def convert_to_tensor_or_indexed_slices(value, dtype=None, name=None):
    """An IndexedSlices as it is (a dtype mismatch a ValueError), anything else through convert_to_tensor."""
    if isinstance(value, IndexedSlices):
        if dtype is not None and value.dtype != dtype:
            raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype {value.dtype.name}")
        return value
    return ops.convert_to_tensor(value, dtype=dtype, name=name)


def register_tensor_conversion_function(base_type, conversion_func, priority=100):
    """Registers conversion_func(value, dtype=None, name=None, as_ref=False) -> Tensor for base_type (TF1's
    signature; the priority orders nothing here: the first registered match wins)."""
    if not callable(conversion_func):
        raise TypeError("conversion_func must be callable.")
    del priority

    def fn(value, dtype=None, name=None):
        return conversion_func(value, dtype=dtype, name=name, as_ref=False)

    ops.register_tensor_conversion_function(base_type, fn)

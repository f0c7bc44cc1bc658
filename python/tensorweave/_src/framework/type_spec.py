"""TF's TypeSpec family, as values that describe graph values: TypeSpec (the base of TensorSpec),
SparseTensorSpec, RaggedTensorSpec, TensorArraySpec, IndexedSlicesSpec, NoneTensorSpec, OptionalSpec, and
type_spec_from_value. Specs compare, hash and print as TensorFlow's (`Name(field, ...)`).

Example:
  >>> import tensorweave as tw
  >>> tw.SparseTensorSpec([2, None], tw.int32)
  SparseTensorSpec(TensorShape([Dimension(2), Dimension(None)]), tf.int32)
"""

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import tensor_shape


class TypeSpec:
    """The base class of the specs: `value_type`, `is_compatible_with`, equality by the fields."""

    __slots__ = ()

    def _serialize(self):
        raise NotImplementedError(f"{type(self).__name__} must define _serialize")

    @property
    def value_type(self):
        raise NotImplementedError(f"{type(self).__name__} must define value_type")

    def is_compatible_with(self, spec_or_value):
        other = spec_or_value if isinstance(spec_or_value, TypeSpec) else type_spec_from_value(spec_or_value)
        if type(other) is not type(self):
            return False
        return all(_compatible(a, b) for a, b in zip(self._serialize(), other._serialize()))

    def most_specific_compatible_type(self, other):
        if type(other) is not type(self) or not self.is_compatible_with(other):
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        fields = [
            a.most_specific_compatible_shape(b) if isinstance(a, tensor_shape.TensorShape) else a
            for a, b in zip(self._serialize(), other._serialize())
        ]
        return type(self)(*fields)

    def _key(self):
        return tuple(
            (None if f.ndims is None else tuple(f.as_list())) if isinstance(f, tensor_shape.TensorShape) else f
            for f in self._serialize()
        )

    def __eq__(self, other):
        return type(other) is type(self) and self._key() == other._key()

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((type(self).__name__, self._key()))

    def __repr__(self):
        return f"{type(self).__name__}{self._serialize()!r}"


def _compatible(a, b):
    if isinstance(a, tensor_shape.TensorShape):
        return a.is_compatible_with(b)
    if isinstance(a, TypeSpec):
        return a.is_compatible_with(b)
    return a == b


def _shape(shape):
    return tensor_shape.TensorShape(shape)


class SparseTensorSpec(TypeSpec):
    """Describes a SparseTensor: its dense `shape` and `dtype`."""

    __slots__ = ("_dtype", "_shape")

    def __init__(self, shape=None, dtype=dtypes.float32):
        self._shape = _shape(shape)
        self._dtype = dtypes.as_dtype(dtype)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)

    @property
    def value_type(self):
        from tensorweave._src.framework.sparse_tensor import SparseTensor

        return SparseTensor

    def _serialize(self):
        return (self._shape, self._dtype)

    @classmethod
    def from_value(cls, value):
        from tensorweave._src.framework import ops

        shape = getattr(value, "shape", None)
        if shape is None:
            shape = ops.convert_to_tensor(value.dense_shape).shape
        return cls(shape, value.dtype)


class RaggedTensorSpec(TypeSpec):
    """Describes a RaggedTensor: `shape`, `dtype`, `ragged_rank` (default rank - 1), `row_splits_dtype`."""

    __slots__ = ("_dtype", "_flat_values_spec", "_ragged_rank", "_row_splits_dtype", "_shape")

    def __init__(
        self, shape=None, dtype=dtypes.float32, ragged_rank=None, row_splits_dtype=dtypes.int64, flat_values_spec=None
    ):
        self._shape = _shape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
        self._flat_values_spec = flat_values_spec
        rank = self._shape.ndims
        if ragged_rank is None:
            if rank is None:
                raise ValueError("Must specify ragged_rank or a shape with a known rank.")
            ragged_rank = rank - 1
        if not isinstance(ragged_rank, int):
            raise TypeError(f"Argument `ragged_rank` must be an int. Received {ragged_rank}.")
        if rank is not None and ragged_rank >= rank:
            raise ValueError(f"Argument `ragged_rank` ({ragged_rank}) must be less than rank ({rank}).")
        self._ragged_rank = ragged_rank

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    ragged_rank = property(lambda self: self._ragged_rank)
    row_splits_dtype = property(lambda self: self._row_splits_dtype)
    flat_values_spec = property(lambda self: self._flat_values_spec)

    @property
    def value_type(self):
        from tensorweave._src.ops.ragged_tensor import RaggedTensor

        return RaggedTensor

    def _serialize(self):
        fields = (self._shape, self._dtype, self._ragged_rank, self._row_splits_dtype)
        return fields if self._flat_values_spec is None else (*fields, self._flat_values_spec)

    @classmethod
    def from_value(cls, value):
        return cls(value.shape, value.dtype, value.ragged_rank, value.row_splits.dtype)


class TensorArraySpec(TypeSpec):
    """Describes a TensorArray: `element_shape`, `dtype`, `dynamic_size`, `infer_shape`."""

    __slots__ = ("_dtype", "_dynamic_size", "_element_shape", "_infer_shape")

    def __init__(self, element_shape=None, dtype=dtypes.float32, dynamic_size=False, infer_shape=True):
        self._element_shape = _shape(element_shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = dynamic_size
        self._infer_shape = infer_shape

    element_shape = property(lambda self: self._element_shape)
    dtype = property(lambda self: self._dtype)
    dynamic_size = property(lambda self: self._dynamic_size)
    infer_shape = property(lambda self: self._infer_shape)

    @property
    def value_type(self):
        from tensorweave._src.ops.tensor_array_ops import TensorArray

        return TensorArray

    def _serialize(self):
        return (self._element_shape, self._dtype, self._dynamic_size, self._infer_shape)

    @classmethod
    def from_value(cls, value):
        element_shape = getattr(value, "element_shape", None)
        return cls(element_shape, value.dtype, None, getattr(value, "_infer_shape", True))


class IndexedSlicesSpec(TypeSpec):
    """Describes IndexedSlices: the dense `shape`, `dtype`, `indices_dtype`, `dense_shape_dtype`, `indices_shape`."""

    __slots__ = ("_dense_shape_dtype", "_dtype", "_indices_dtype", "_indices_shape", "_shape")

    def __init__(
        self, shape=None, dtype=dtypes.float32, indices_dtype=dtypes.int64, dense_shape_dtype=None, indices_shape=None
    ):
        self._shape = _shape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._indices_dtype = dtypes.as_dtype(indices_dtype)
        self._dense_shape_dtype = None if dense_shape_dtype is None else dtypes.as_dtype(dense_shape_dtype)
        self._indices_shape = _shape(indices_shape).with_rank(1) if indices_shape is not None else _shape([None])

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)

    @property
    def value_type(self):
        from tensorweave._src.framework.indexed_slices import IndexedSlices

        return IndexedSlices

    def _serialize(self):
        return (self._shape, self._dtype, self._indices_dtype, self._dense_shape_dtype, self._indices_shape)


class NoneTensorSpec(TypeSpec):
    """The spec of None (a value with no tensors)."""

    __slots__ = ()

    value_type = property(lambda self: type(None))

    def _serialize(self):
        return ()


class OptionalSpec(TypeSpec):
    """Describes an optional value (tf.experimental.Optional) holding `element_spec`."""

    __slots__ = ("_element_spec",)

    def __init__(self, element_spec):
        self._element_spec = element_spec

    element_spec = property(lambda self: self._element_spec)
    value_type = property(lambda self: object)

    def _serialize(self):
        return (self._element_spec,)


def type_spec_from_value(value):
    """The TypeSpec describing `value` (a Tensor, SparseTensor, RaggedTensor, TensorArray, IndexedSlices, None,
    or anything convert_to_tensor accepts; converting a Python value adds no op to the default graph)."""
    from tensorweave._src.framework import ops
    from tensorweave._src.framework.graph_mode_api import TensorSpec
    from tensorweave._src.framework.indexed_slices import IndexedSlices
    from tensorweave._src.framework.sparse_tensor import SparseTensor, SparseTensorValue
    from tensorweave._src.ops.ragged_tensor import RaggedTensor
    from tensorweave._src.ops.tensor_array_ops import TensorArray

    if value is None:
        return NoneTensorSpec()
    if isinstance(value, TypeSpec):
        raise TypeError(f"Could not build a TypeSpec for {value} of unsupported type {type(value)}.")
    if isinstance(value, ops.Tensor):
        return TensorSpec(value.shape, value.dtype)
    if isinstance(value, (SparseTensor, SparseTensorValue)):
        return SparseTensorSpec.from_value(value)
    if isinstance(value, RaggedTensor):
        return RaggedTensorSpec.from_value(value)
    if isinstance(value, TensorArray):
        return TensorArraySpec.from_value(value)
    if isinstance(value, IndexedSlices):
        dense_shape = value.dense_shape
        return IndexedSlicesSpec(
            tensor_shape.TensorShape([None]).concatenate(value.values.shape[1:]),
            value.dtype,
            value.indices.dtype,
            None if dense_shape is None else dense_shape.dtype,
            value.indices.shape,
        )
    if hasattr(value, "dtype") and hasattr(value, "shape") and hasattr(value, "op"):  # a variable
        return TensorSpec(value.shape, value.dtype.base_dtype)
    try:
        with ops.Graph().as_default():
            tensor = ops.convert_to_tensor(value)
    except (TypeError, ValueError):
        raise TypeError(f"Could not build a TypeSpec for {value} of unsupported type {type(value)}.") from None
    return TensorSpec(tensor.shape, tensor.dtype)


__all__ = [
    "IndexedSlicesSpec",
    "NoneTensorSpec",
    "OptionalSpec",
    "RaggedTensorSpec",
    "SparseTensorSpec",
    "TensorArraySpec",
    "TypeSpec",
    "type_spec_from_value",
]

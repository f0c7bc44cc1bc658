"""The element structures of tf.data, as TensorFlow's `tf.data` nest treats them.

An element is a nest of tuples (namedtuples included) and dicts whose leaves are tensors. Unlike the general
`nest` (`tensorweave._src.framework.nest`), a *list* is not a structure here but a value: tf.data converts
`[1, 2]` to one int32 tensor, as TensorFlow does (`from_tensor_slices([1, 2])` is a dataset of int32 scalars).
Dicts are flattened in sorted key order and rebuilt with their own key order.

Example:
  >>> from tensorweave._src.data import structure
  >>> structure.flatten({"b": 1, "a": (2, [3])})
  [2, [3], 1]
"""

import numpy as np

from tensorweave._src.framework import dtypes as _dtypes
from tensorweave._src.framework import nest as _nest
from tensorweave._src.framework import ops, tensor_shape
from tensorweave._src.framework import sparse_tensor as _sparse_tensor


def is_sequence(x):
    return isinstance(x, (tuple, dict))


# The nesting helpers are tf.nest's, with tf.data's rule of what nests.
_sorted_keys = _nest._sorted_keys
_children = _nest._children
_sequence_like = _nest._sequence_like


def flatten(structure):
    """The leaves of an element structure, depth first (dict values in sorted key order)."""
    return _nest.flatten(structure, is_sequence)


def pack_sequence_as(structure, flat_sequence):
    """`flat_sequence` packed into the nesting of `structure`."""
    flat_sequence = list(flat_sequence)
    count = len(flatten(structure))
    if count != len(flat_sequence):
        raise ValueError(
            f"Could not pack sequence. Structure had {count} elements, but flat_sequence had "
            f"{len(flat_sequence)} elements.  Structure: {structure}, flat_sequence: {flat_sequence}."
        )
    return _nest.pack_sequence_as(structure, flat_sequence, is_sequence)


def map_structure(fn, *structures):
    for s in structures[1:]:
        assert_same_structure(structures[0], s)
    flats = [flatten(s) for s in structures]
    return pack_sequence_as(structures[0], [fn(*xs) for xs in zip(*flats)])


def same_structure(a, b):
    """True when `a` and `b` nest the same way (same sequence types, same dict keys, same lengths)."""
    if is_sequence(a) != is_sequence(b):
        return False
    if not is_sequence(a):
        return True
    if isinstance(a, dict) != isinstance(b, dict):
        return False
    if isinstance(a, dict):
        if set(a) != set(b):
            return False
    elif type(a) is not type(b) or len(a) != len(b):
        return False
    return all(same_structure(x, y) for x, y in zip(_children(a), _children(b)))


def assert_same_structure(a, b):
    if not same_structure(a, b):
        raise ValueError(
            f"The two structures don't have the same nested structure.\n\nFirst structure: {a}\n\nSecond structure: {b}"
        )


def normalize_element(element, name="normalize_element"):
    """`element` with every leaf converted to a tensor (TensorFlow's `structure.normalize_element`): Python
    scalars and lists as `convert_to_tensor` makes them (int32, float32, string), numpy arrays keep their dtype.
    The constants are named `normalize_element/component_<i>`."""
    flat = flatten(element)
    with ops.name_scope(name):
        tensors = []
        for i, value in enumerate(flat):
            if isinstance(value, (_sparse_tensor.SparseTensor, _sparse_tensor.SparseTensorValue)):
                tensors.append(_sparse_tensor.SparseTensor.from_value(value))
                continue
            if value is None:
                raise TypeError(
                    f"Failed to convert elements of {element} to Tensor. Consider casting elements to a supported "
                    "type. See https://www.tensorflow.org/api_docs/python/tf/dtypes for supported TF dtypes."
                )
            tensors.append(ops.convert_to_tensor(value, name=f"component_{i}"))
    return pack_sequence_as(element, tensors)


# --- SparseTensor components ------------------------------------------------------------------------------------
#
# A SparseTensor leaf travels through the dataset ops as one string tensor of shape [..., 3], its serialized
# indices, values and dense_shape (TensorFlow's variant encoding, with serialize_sparse's string out_type): [3] for
# one element, [N, 3] once batched. Its output_types / output_shapes are the SparseTensor's dtype and dense shape,
# its output_classes `SparseTensor`, as in TensorFlow.


def is_sparse(value):
    return isinstance(value, (_sparse_tensor.SparseTensor, _sparse_tensor.SparseTensorValue))


def classes_of(element):
    """The output_classes of a normalized element: SparseTensor or Tensor per leaf."""
    return map_structure(lambda t: _sparse_tensor.SparseTensor if is_sparse(t) else ops.Tensor, element)


def dense_classes(types):
    return map_structure(lambda _: ops.Tensor, types)


def has_sparse(classes):
    return any(c is _sparse_tensor.SparseTensor for c in flatten(classes))


def component_types(types, classes):
    """The flat dtypes the dataset ops carry: string for a SparseTensor leaf."""
    return [_dtypes.string if c is _sparse_tensor.SparseTensor else t for t, c in zip(flatten(types), flatten(classes))]


def component_shapes(shapes, classes):
    """The flat static shapes the dataset ops carry: unknown for a SparseTensor leaf (its [..., 3] encoding)."""
    return [
        tensor_shape.unknown_shape() if c is _sparse_tensor.SparseTensor else s
        for s, c in zip(flatten(shapes), flatten(classes))
    ]


def to_components(element, batched=False):
    """The flat tensors of a normalized element, each SparseTensor serialized ([3] string; [N, 3] with `batched`,
    one row per slice along dimension 0)."""
    from tensorweave._src.ops import parsing_ops

    encode = parsing_ops.serialize_many_sparse if batched else parsing_ops.serialize_sparse
    return [encode(t) if is_sparse(t) else t for t in flatten(element)]


def from_components(flat, types, shapes, classes):
    """The element (nested as `types`) from the flat tensors the dataset ops carry, SparseTensors decoded."""
    out = []
    for t, dtype, shape, c in zip(flat, flatten(types), flatten(shapes), flatten(classes)):
        if c is _sparse_tensor.SparseTensor:
            out.append(_decode_sparse(t, dtype, shape))
        else:
            t.set_shape(shape)
            out.append(t)
    return pack_sequence_as(types, out)


def _decode_sparse(encoded, dtype, shape):
    """The SparseTensor of dense shape `shape` that `encoded` ([..., 3] serialized SparseTensors, the leading
    dimensions its batch dimensions) holds."""
    from tensorweave._src.ops import array_ops, parsing_ops, special_math_ops

    with ops.name_scope("DeserializeSparse"):
        lead = array_ops.shape(encoded, out_type=_dtypes.int64)[:-1]
        many = parsing_ops.deserialize_many_sparse(array_ops.reshape(encoded, [-1, 3]), dtype)
        first = array_ops.expand_dims(many.indices[:, 0], 1)
        strides = special_math_ops.cumprod(lead, exclusive=True, reverse=True)
        lead_indices = first // array_ops.expand_dims(strides, 0) % array_ops.expand_dims(lead, 0)
        indices = array_ops.concat([lead_indices, many.indices[:, 1:]], 1)
        dense_shape = array_ops.concat([lead, many.dense_shape[1:]], 0)
    rank = shape.ndims
    if rank is not None:
        indices.set_shape([None, rank])
        dense_shape.set_shape([rank])
    sp = _sparse_tensor.SparseTensor(indices, many.values, dense_shape)
    sp._static_shape = shape
    return sp


def element_spec_of(types, shapes, classes):
    """The element_spec: a TensorSpec per dense leaf, a SparseTensorSpec per SparseTensor leaf."""
    from tensorweave._src.framework.type_spec import SparseTensorSpec

    return map_structure(
        lambda t, s, c: SparseTensorSpec(s, t) if c is _sparse_tensor.SparseTensor else TensorSpec(s, t),
        types,
        shapes,
        classes,
    )


class TensorSpec:
    """The type of one component: its static shape and dtype (TensorFlow's `tf.TensorSpec`, as `element_spec`
    reports it)."""

    def __init__(self, shape, dtype=_dtypes.float32, name=None):
        self._shape = tensor_shape.as_shape(shape)
        self._dtype = _dtypes.as_dtype(dtype)
        self._name = name

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self):
        return self._name

    def is_compatible_with(self, other):
        return self._dtype == other.dtype and self._shape.is_compatible_with(other.shape)

    def __eq__(self, other):
        return (
            isinstance(other, TensorSpec)
            and self._dtype == other._dtype
            and self._shape == other._shape
            and self._name == other._name
        )

    def __hash__(self):
        return hash((self._dtype, tuple(self._shape.as_list()) if self._shape.dims is not None else None))

    def __repr__(self):
        dims = self._shape.as_list() if self._shape.dims is not None else None
        shape = (
            "None"
            if dims is None
            else "(" + "".join(f"{d}, " for d in dims)[:-2] + ("," if len(dims) == 1 else "") + ")"
        )
        return f"TensorSpec(shape={shape}, dtype=tf.{self._dtype.name}, name={self._name!r})"


def leaf_types(element):
    return map_structure(lambda t: t.dtype, element)


def leaf_shapes(element):
    return map_structure(lambda t: t.get_shape(), element)


def as_numpy_dtype_or_object(dtype):
    return object if dtype == _dtypes.string else dtype.as_numpy_dtype


def shapes_from_structure(output_shapes, output_types):
    """`output_shapes` (None: all unknown) as a structure of TensorShapes like `output_types`. A list of ints or
    Nones is one shape (as TF's nest treats lists)."""
    if output_shapes is None:
        return map_structure(lambda _: tensor_shape.unknown_shape(), output_types)
    return _map_up_to(output_types, lambda _t, s: tensor_shape.as_shape(s), output_types, output_shapes)


def types_from_structure(output_types):
    return map_structure(_dtypes.as_dtype, output_types)


def _map_up_to(shallow, fn, *structures):
    """fn over the leaves of `shallow`, taking from the other structures the subtree at each of its leaves."""

    def walk(s, subtrees):
        if not is_sequence(s):
            return fn(*subtrees)
        for t in subtrees:
            if not is_sequence(t) or isinstance(t, dict) != isinstance(s, dict):
                raise TypeError(
                    f"If shallow structure is a sequence, input must also be a sequence. Input has type: {type(t).__name__}."
                )
            if isinstance(s, dict):
                if set(t) != set(s):
                    raise ValueError(f"The two structures don't have the same keys: {sorted(s)} and {sorted(t)}")
            elif len(t) != len(s):
                raise ValueError(
                    f"The two structures don't have the same sequence length. Input structure has length {len(t)}, "
                    f"while shallow structure has length {len(s)}."
                )
        if isinstance(s, dict):
            keys = _sorted_keys(s)
            values = [walk(s[k], [t[k] for t in subtrees]) for k in keys]
        else:
            values = [walk(c, [list(t)[i] for t in subtrees]) for i, c in enumerate(s)]
        return _sequence_like(s, values)

    return walk(shallow, list(structures))


map_structure_up_to = _map_up_to


def numpy_value(value, dtype):
    """`value` as a numpy array of `dtype` (for from_generator), or TypeError/ValueError when it cannot be."""
    if dtype == _dtypes.string:
        arr = np.asarray(value)
        if arr.dtype.kind in ("U", "S", "O"):
            return arr
        raise TypeError(f"cannot convert {value!r} to string")
    array = np.asarray(value, dtype=dtype.as_numpy_dtype)
    source = np.asarray(value)
    if source.dtype.kind in "fc" and array.dtype.kind in "iub" and not np.array_equal(source, array):
        # (1.5 for an int64 component became 1; TF's conversion refuses it)
        raise TypeError(f"cannot convert {value!r} to {dtype.name} without changing it")
    return array


class DatasetSpec:
    """The type of a dataset: the `element_spec` of its elements (TensorFlow's `tf.data.DatasetSpec`; the
    dataset_shape of a batch of datasets is () for one dataset).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     spec = tw.data.DatasetSpec.from_value(tw.data.Dataset.range(3))
      >>> spec.element_spec
      TensorSpec(shape=(), dtype=tf.int64, name=None)
    """

    def __init__(self, element_spec, dataset_shape=()):
        self._element_spec = element_spec
        self._dataset_shape = tensor_shape.as_shape(dataset_shape)

    @property
    def element_spec(self):
        return self._element_spec

    @property
    def value_type(self):
        from tensorweave._src.data.dataset_ops import DatasetV1

        return DatasetV1

    @staticmethod
    def from_value(value):
        """The spec of a dataset."""
        return DatasetSpec(value.element_spec)

    def is_compatible_with(self, spec_or_value):
        """Whether a dataset (or the spec of one) has compatible elements and dataset shape."""
        other = spec_or_value if isinstance(spec_or_value, DatasetSpec) else DatasetSpec.from_value(spec_or_value)
        try:
            assert_same_structure(self._element_spec, other._element_spec)
        except (TypeError, ValueError):
            return False
        pairs = zip(flatten(self._element_spec), flatten(other._element_spec))
        return self._dataset_shape.is_compatible_with(other._dataset_shape) and all(
            a.is_compatible_with(b) for a, b in pairs
        )

    def __eq__(self, other):
        if not isinstance(other, DatasetSpec) or self._dataset_shape != other._dataset_shape:
            return False
        try:
            assert_same_structure(self._element_spec, other._element_spec)
        except (TypeError, ValueError):
            return False
        return flatten(self._element_spec) == flatten(other._element_spec)

    def __hash__(self):
        return hash(tuple(flatten(self._element_spec)))

    def __repr__(self):
        return f"DatasetSpec({self._element_spec!r}, {self._dataset_shape!r})"

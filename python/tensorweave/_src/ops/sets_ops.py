"""Set ops (TensorFlow 1's tf.sets): a set is the last dimension of a dense tensor or of a SparseTensor; the
results are SparseTensors of sorted sets (TF's SetSize and Dense/Sparse set-operation ops). Not
differentiable."""

from tensorweave._src.framework import dtypes
from tensorweave._src.framework.sparse_tensor import SparseTensor
from tensorweave._src.ops import gen_ops, gradients_impl
from tensorweave._src.ops.sparse_ops import convert_to_tensor_or_sparse_tensor

_VALID_DTYPES = frozenset(
    [dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8, dtypes.uint16, dtypes.string]
)


def set_size(a, validate_indices=True):
    """The number of unique values in each set (last dimension) of SparseTensor `a`, as int32 of shape
    a.dense_shape[:-1].

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     st = tw.SparseTensor([[0, 0], [0, 1], [1, 0]], [3, 3, 5], [2, 4])
      ...     print(sess.run(tw.sets.size(st)))
      [1 1]
    """
    a = convert_to_tensor_or_sparse_tensor(a, name="a")
    if not isinstance(a, SparseTensor):
        raise TypeError(f"Expected `SparseTensor`, got {a}.")
    if a.values.dtype.base_dtype not in _VALID_DTYPES:
        raise TypeError(f"Invalid dtype `{a.values.dtype}` not in supported dtypes: `{_VALID_DTYPES}`.")
    return gen_ops.set_size(a.indices, a.values, a.dense_shape, validate_indices=validate_indices)


def _convert(a, b):
    a = convert_to_tensor_or_sparse_tensor(a, name="a")
    if a.dtype.base_dtype not in _VALID_DTYPES:
        raise TypeError(f"'a' has invalid dtype `{a.dtype}` not in supported dtypes: `{_VALID_DTYPES}`.")
    b = convert_to_tensor_or_sparse_tensor(b, name="b")
    if b.dtype.base_dtype != a.dtype.base_dtype:
        raise TypeError(f"Types don't match, {a.dtype} vs {b.dtype}.")
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        return b, a, True
    return a, b, False


def _set_operation(a, b, set_operation, validate_indices):
    if isinstance(a, SparseTensor):
        if not isinstance(b, SparseTensor):
            raise ValueError(  # noqa: TRY004 - TF raises ValueError
                "Sparse,Dense is not supported, but Dense,Sparse is. Please flip the order of your inputs."
            )
        indices, values, shape = gen_ops.sparse_to_sparse_set_operation(
            a.indices,
            a.values,
            a.dense_shape,
            b.indices,
            b.values,
            b.dense_shape,
            set_operation=set_operation,
            validate_indices=validate_indices,
        )
    elif isinstance(b, SparseTensor):
        indices, values, shape = gen_ops.dense_to_sparse_set_operation(
            a, b.indices, b.values, b.dense_shape, set_operation=set_operation, validate_indices=validate_indices
        )
    else:
        indices, values, shape = gen_ops.dense_to_dense_set_operation(
            a, b, set_operation=set_operation, validate_indices=validate_indices
        )
    return SparseTensor(indices, values, shape)


def set_intersection(a, b, validate_indices=True):
    """The intersection of the sets (last dimension) of `a` and `b` (dense or SparseTensor; a SparseTensor
    `a` with a dense `b` is flipped), as a SparseTensor of sorted sets.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.sets.intersection([[1, 2, 3]], [[3, 1, 7]])).values)
      [1 3]
    """
    a, b, _ = _convert(a, b)
    return _set_operation(a, b, "intersection", validate_indices)


def set_union(a, b, validate_indices=True):
    """The union of the sets (last dimension) of `a` and `b`, as a SparseTensor of sorted sets.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.sets.union([[1, 2]], [[3, 1]])).values)
      [1 2 3]
    """
    a, b, _ = _convert(a, b)
    return _set_operation(a, b, "union", validate_indices)


def set_difference(a, b, aminusb=True, validate_indices=True):
    """a - b (or b - a with aminusb=False) for the sets (last dimension) of `a` and `b`, as a SparseTensor of
    sorted sets.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.sets.difference([[1, 2, 3]], [[2]])).values)
      [1 3]
    """
    a, b, flipped = _convert(a, b)
    if flipped:
        aminusb = not aminusb
    return _set_operation(a, b, "a-b" if aminusb else "b-a", validate_indices)


for _op in ("SetSize", "DenseToDenseSetOperation", "DenseToSparseSetOperation", "SparseToSparseSetOperation"):
    gradients_impl.NotDifferentiable(_op)

"""top_k, in_top_k, sort, argsort, unique, unique_with_counts, setdiff1d, bincount and confusion_matrix, with TF1's
names, signatures and result tuples."""

import collections

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import constant_op
from tensorweave._src.ops import gen_ops
from tensorweave._src.ops import math_ops

TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])
Unique = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])
ListDiff = collections.namedtuple("ListDiff", ["out", "idx"])


def top_k(input, k=1, sorted=True, index_type=dtypes.int32, name=None):  # noqa: A002 - TensorFlow's names
    """The k largest entries of the last dimension and their indices, largest first (ties: lower index first).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.top_k([[1.0, 3.0, 2.0]], 2)).indices)
      [[1 2]]
    """
    if dtypes.as_dtype(index_type) != dtypes.int32:
        raise TypeError(f"top_k: tensorweave's TopKV2 gives int32 indices, not {dtypes.as_dtype(index_type).name}")
    graph = ops.get_default_graph()
    with graph.name_scope(name or "TopKV2") as scope:
        x = ops.convert_to_tensor(input, name="input")
        k = ops.convert_to_tensor(k, dtype=dtypes.int32, name="k")
        values, indices = gen_ops.top_kv2(x, k, sorted=sorted, name=scope)
        return TopKV2(values, indices)


def in_top_k(predictions, targets, k, name=None):
    """Whether each row's target class is among its k largest predictions (ties count as in).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.in_top_k([[0.1, 0.8, 0.1]], [2], 2)))
      [ True]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "in_top_k"):
        predictions = ops.convert_to_tensor(predictions, dtype=dtypes.float32, name="predictions")
        targets = ops.convert_to_tensor(targets, name="targets")
        if targets.dtype not in (dtypes.int32, dtypes.int64):
            raise TypeError(f"in_top_k: targets must be int32 or int64, got {targets.dtype.name}")
        k = ops.convert_to_tensor(k, dtype=targets.dtype, name="k")
        return gen_ops.in_top_kv2(predictions, targets, k)


def _descending_sort(values, axis, return_argsort):
    rank = values.shape.ndims
    if rank is None:
        raise ValueError("sort: the rank of values must be known")
    axis = axis + rank if axis < 0 else axis
    if not 0 <= axis < rank:
        raise ValueError(f"axis {axis} is out of range for a tensor of rank {rank}")
    transposed = axis != rank - 1
    if transposed:
        perm = list(range(rank))
        perm[axis], perm[-1] = perm[-1], perm[axis]
        values = array_ops.transpose(values, perm)
    k = values.shape.dims[-1].value
    if k is None:
        k = array_ops.shape(values)[-1]
    top, indices = top_k(values, k=k)
    out = indices if return_argsort else top
    if transposed:
        out = array_ops.transpose(out, perm)
    return out


def _sort_or_argsort(values, axis, direction, return_argsort):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f'direction should be one of "ASCENDING", "DESCENDING", got {direction!r}')
    if not isinstance(axis, int):
        raise ValueError(f"axis must be a constant scalar, got {axis!r}")
    values = ops.convert_to_tensor(values, name="values")
    if direction == "DESCENDING":
        return _descending_sort(values, axis, return_argsort)
    dtype = values.dtype
    if dtype.is_unsigned:
        offset = constant_op.constant(dtype.max, dtype=dtype)
        out = _descending_sort(offset - values, axis, return_argsort)
        return out if return_argsort else offset - out
    if dtype.is_integer:
        one = constant_op.constant(1, dtype=dtype)
        out = _descending_sort(-values - one, axis, return_argsort)
        return out if return_argsort else -out - one
    out = _descending_sort(-values, axis, return_argsort)
    return out if return_argsort else -out


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """values sorted along `axis` (built from TopKV2, as TensorFlow).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.sort([3, 1, 2])))
      [1 2 3]
    """
    with ops.get_default_graph().name_scope(name or "sort"):
        return _sort_or_argsort(values, axis, direction, return_argsort=False)


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """The indices that sort values along `axis` (equal values keep their order: the sort is stable)."""
    del stable  # TopKV2 is stable
    with ops.get_default_graph().name_scope(name or "argsort"):
        return _sort_or_argsort(values, axis, direction, return_argsort=True)


def unique(x, out_idx=dtypes.int32, name=None):
    """The distinct values of a vector in order of first appearance, and each element's index into them."""
    x = ops.convert_to_tensor(x, name="x")
    y, idx = gen_ops.unique(x, out_idx=dtypes.as_dtype(out_idx), name=name or "Unique")
    return Unique(y, idx)


def unique_with_counts(x, out_idx=dtypes.int32, name=None):
    """As unique, and how often each distinct value appears."""
    x = ops.convert_to_tensor(x, name="x")
    y, idx, count = gen_ops.unique_with_counts(x, out_idx=dtypes.as_dtype(out_idx), name=name or "UniqueWithCounts")
    return UniqueWithCounts(y, idx, count)


def setdiff1d(x, y, index_dtype=dtypes.int32, name=None):
    """The elements of vector x not in y, in x's order, and their positions in x.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.setdiff1d([1, 2, 3, 4], [2, 4])).out)
      [1 3]
    """
    x = ops.convert_to_tensor(x, name="x")
    y = ops.convert_to_tensor(y, dtype=x.dtype, name="y")
    out, idx = gen_ops.list_diff(x, y, out_idx=dtypes.as_dtype(index_dtype), name=name or "ListDiff")
    return ListDiff(out, idx)


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=dtypes.int32, name=None):
    """Counts (or sums of weights) of each value of the int32 array arr; the output has max(arr) + 1 bins, at least
    minlength and at most maxlength.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.bincount([1, 1, 3])))
      [0 2 0 1]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "bincount"):
        arr = ops.convert_to_tensor(arr, name="arr", dtype=dtypes.int32)
        array_is_nonempty = math_ops.reduce_prod(array_ops.shape(arr)) > 0
        output_size = math_ops.cast(array_is_nonempty, dtypes.int32) * (math_ops.reduce_max(arr) + 1)
        if minlength is not None:
            minlength = ops.convert_to_tensor(minlength, name="minlength", dtype=dtypes.int32)
            output_size = math_ops.maximum(minlength, output_size)
        if maxlength is not None:
            maxlength = ops.convert_to_tensor(maxlength, name="maxlength", dtype=dtypes.int32)
            output_size = math_ops.minimum(maxlength, output_size)
        if weights is not None:
            weights = ops.convert_to_tensor(weights, name="weights")
            if weights.dtype != dtypes.as_dtype(dtype) and dtype != dtypes.int32:
                weights = math_ops.cast(weights, dtype)
        else:
            weights = constant_op.constant([], dtype=dtypes.as_dtype(dtype))
        return gen_ops.bincount(arr, output_size, weights)


def confusion_matrix(labels, predictions, num_classes=None, dtype=dtypes.int32, name=None, weights=None):
    """The num_classes x num_classes matrix whose [i, j] counts (or sums the weights of) the examples of label i
    predicted as j; num_classes defaults to the largest label or prediction + 1.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.confusion_matrix([0, 1, 1], [0, 1, 0])))
      [[1 0]
       [1 1]]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "confusion_matrix"):
        labels = math_ops.cast(ops.convert_to_tensor(labels, name="labels"), dtypes.int64)
        predictions = math_ops.cast(ops.convert_to_tensor(predictions, name="predictions"), dtypes.int64)
        if num_classes is None:
            num_classes = math_ops.maximum(math_ops.reduce_max(predictions), math_ops.reduce_max(labels)) + 1
        num_classes = math_ops.cast(ops.convert_to_tensor(num_classes, name="num_classes"), dtypes.int64)
        # As TF1's: ids out of range fail their asserts (InvalidArgumentError) and a ScatterNd of int64 indices
        # makes the matrix (a range of num_classes and int32 cells overflowed past 46340 classes: wrong cells).
        from tensorweave._src.ops import array_nd_ops, logging_ops

        checks = [
            logging_ops.assert_non_negative(labels, message="`labels` contains negative values"),
            logging_ops.assert_non_negative(predictions, message="`predictions` contains negative values"),
            logging_ops.assert_less(labels, num_classes, message="`labels` out of bound"),
            logging_ops.assert_less(predictions, num_classes, message="`predictions` out of bound"),
        ]
        with ops.control_dependencies(checks):
            indices = array_ops.stack([labels, predictions], axis=1)
        if weights is None:
            values = array_ops.ones_like(predictions, dtype=dtype)
        else:
            values = math_ops.cast(ops.convert_to_tensor(weights, name="weights"), dtype)
        return array_nd_ops.scatter_nd(indices, values, array_ops.stack([num_classes, num_classes]))

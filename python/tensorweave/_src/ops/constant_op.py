"""Constants: numpy/Python values embedded in the graph."""

import numpy as np

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import errors
from tensorweave._src.framework import ops


def _infer_dtype(value):
    """TensorFlow's rules: Python floats are float32, ints int32 (int64 when
    too large), numpy arrays keep their dtype."""
    if isinstance(value, (np.ndarray, np.generic)):
        return dtypes.as_dtype(value.dtype)
    arr = np.asarray(value)
    if arr.dtype.kind == "f":
        return dtypes.float32
    if arr.dtype.kind in "iu":
        if arr.size and (arr.min() < -(2**31) or arr.max() >= 2**31):
            return dtypes.int64
        return dtypes.int32
    if arr.dtype.kind == "b":
        return dtypes.bool
    if arr.dtype.kind in "SUO":
        return dtypes.string
    raise TypeError(f"Cannot convert {value!r} to a tensor: unsupported type {arr.dtype}")


def _contiguous(arr):
    # Not np.ascontiguousarray: it turns 0-d arrays into 1-d ones.
    return arr if arr.flags.c_contiguous else np.array(arr, order="C")


def to_numpy(value, dtype, what="value"):
    """`value` as a C-contiguous numpy array of `dtype`, refusing lossy
    conversions (a float into an int tensor, an out-of-range int)."""
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    if dtype == dtypes.string:
        arr = np.asarray(value, dtype=object)
        flat = arr.ravel()
        for i, item in enumerate(flat):
            if isinstance(item, str):
                flat[i] = item.encode("utf-8")
            elif not isinstance(item, bytes):
                raise TypeError(f"Expected string, got {item!r} of type {type(item).__name__}")
        return _contiguous(arr)
    try:
        arr = np.asarray(value)
    except ValueError as e:
        raise ValueError(f"Cannot convert {what} {value!r} to a tensor: {e}") from None
    if arr.dtype == np_dtype:
        return _contiguous(arr)
    if arr.dtype.kind in "SUO":
        raise TypeError(f"Expected {dtype.name}, got {value!r} of type {type(value).__name__}")
    if np_dtype.kind in "iub" and arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise TypeError(
                f"Expected {dtype.name}, got {value!r} of type {type(value).__name__} "
                "(a non-integer value cannot be converted losslessly)"
            )
    converted = arr.astype(np_dtype)
    if np_dtype.kind in "iu" and arr.dtype.kind in "iuf":
        if not np.array_equal(converted.astype(arr.dtype), arr):
            raise ValueError(f"{what} {value!r} is out of range for dtype {dtype.name}")
    return _contiguous(converted)


def constant(value, dtype=None, shape=None, name="Const", verify_shape=False):
    """A constant tensor.

    Args:
      value: a Python value or numpy array.
      dtype: the element type; inferred from `value` when None.
      shape: optional; a scalar `value` is broadcast to it, and a value with
        the same number of elements is reshaped.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.constant(0.5, shape=[2])))
      [0.5 0.5]
    """
    if isinstance(value, ops.Tensor):
        raise TypeError("constant() takes a Python or numpy value, not a Tensor")
    dtype = dtypes.as_dtype(dtype) if dtype is not None else _infer_dtype(value)
    arr = to_numpy(value, dtype)
    if shape is not None:
        shape = [int(d) for d in np.atleast_1d(np.asarray(shape, dtype=np.int64))] if np.ndim(shape) else [int(shape)]
        if arr.size == 1:
            arr = _contiguous(np.broadcast_to(arr.reshape(()), shape))
        elif arr.size == int(np.prod(shape)) and not verify_shape:
            arr = arr.reshape(shape)
        else:
            raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, got {arr.shape}.")
    graph = ops.get_default_graph()
    op = graph._create_op(
        "Const",
        [],
        {"value": (arr, dtype.as_datatype_enum), "dtype": dtype.as_datatype_enum},
        name=name,
    )
    return op.outputs[0]


def _constant_conversion(value, dtype=None, name=None):
    return constant(value, dtype=dtype, name=name or "Const")


def _check_feed_dtype(value, dtype):
    try:
        return to_numpy(value, dtype, what="feed value")
    except (TypeError, ValueError) as e:
        raise errors.InvalidArgumentError(None, None, str(e)) from None

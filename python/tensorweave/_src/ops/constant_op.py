"""Constants: numpy/Python values embedded in the graph."""

import numpy as np

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import errors
from tensorweave._src.framework import ops
from tensorweave._src.ops import gen_ops


def _infer_dtype(value):
    """TensorFlow's rules: Python floats are float32, ints int32 (int64 when
    too large), complex numbers complex128, numpy arrays keep their dtype."""
    if isinstance(value, (np.ndarray, np.generic)):
        return dtypes.as_dtype(value.dtype)
    arr = np.asarray(value)
    if arr.dtype.kind == "f":
        return dtypes.float32
    if arr.dtype.kind in "iu":
        if arr.size and (arr.min() < -(2**31) or arr.max() >= 2**31):
            return dtypes.int64
        return dtypes.int32
    if arr.dtype.kind == "c":
        return dtypes.complex128
    if arr.dtype.kind == "b":
        return dtypes.bool
    if arr.dtype.kind in "SUO":
        return dtypes.string
    raise TypeError(f"Cannot convert {value!r} to a tensor: unsupported type {arr.dtype}")


def _contiguous(arr):
    # Not np.ascontiguousarray: it turns 0-d arrays into 1-d ones.
    return arr if arr.flags.c_contiguous else np.array(arr, order="C")


def _wrap_python_ints(value, np_dtype):
    """Python ints (nested lists of them) as an int64/uint64 array, so that out-of-range values wrap as a C cast
    does (numpy refuses to build a uint8 array from -1 directly)."""
    arr = np.asarray(value)
    if arr.dtype.kind == "O":  # beyond 64 bits: keep the low bits, as TensorFlow does
        arr = np.vectorize(lambda v: int(v) & (2**64 - 1), otypes=[np.uint64])(arr)
    return arr


def to_numpy(value, dtype, what="value", lossy=False):
    """`value` as a C-contiguous numpy array of `dtype`, with TensorFlow's conversion rules.

    A constant (`lossy=False`) refuses a Python float for an integer or bool dtype and a number for a string (a
    TypeError, as TensorFlow); integers outside the dtype's range wrap, and numpy values are cast. A fed value
    (`lossy=True`) is cast as `np.asarray(value, dtype)` does: floats truncate toward zero; a string that is not a
    number is a ValueError.
    """
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    if dtype == dtypes.string:
        arr = np.asarray(value, dtype=object)
        flat = arr.ravel()
        for i, item in enumerate(flat):
            if isinstance(item, str):
                flat[i] = item.encode("utf-8")
            elif not isinstance(item, bytes):
                raise TypeError(f"Expected string, but got {item!r} of type '{type(item).__name__}'.")
        return _contiguous(arr)
    try:
        arr = np.asarray(value)
    except ValueError as e:
        raise ValueError(f"Cannot convert {what} {value!r} to a tensor: {e}") from None
    if arr.dtype == np_dtype:
        return _contiguous(arr)
    if arr.dtype.kind in "SUO" and not (arr.dtype.kind == "O" and _all_ints(arr)):
        if lossy:
            try:
                return _contiguous(np.asarray(arr, dtype=np_dtype))
            except (TypeError, ValueError) as e:
                raise ValueError(f"{what}: {e}") from None
        raise TypeError(f"Expected {dtype.name}, but got {value!r} of type '{type(value).__name__}'.")
    if not lossy and arr.size and not isinstance(value, (np.ndarray, np.generic)):
        kind = "f" if dtype == dtypes.bfloat16 else np_dtype.kind  # ml_dtypes' bfloat16 is kind "V"
        if kind in "iub" and arr.dtype.kind in "fc" or kind == "f" and arr.dtype.kind == "c":
            raise TypeError(f"Expected {dtype.name}, but got {value!r} of type '{type(value).__name__}'.")
        if kind == "b" and arr.dtype.kind in "iu":
            raise TypeError(f"Expected {dtype.name}, but got {value!r} of type '{type(value).__name__}'.")
    if arr.dtype.kind in "iuO":
        arr = _wrap_python_ints(arr, np_dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        return _contiguous(arr.astype(np_dtype))


def _all_ints(arr):
    return all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in arr.ravel())


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
    if value is None:  # (TensorFlow's class and message; an op given None as an input says the same)
        raise ValueError("None values not supported.")
    if dtype is None and shape is not None and 0 in np.atleast_1d(np.asarray(shape)).tolist():
        dtype = dtypes.float32  # as TF: an empty shape takes none of the values, nor their type
    dtype = dtypes.as_dtype(dtype) if dtype is not None else _infer_dtype(value)
    arr = to_numpy(value, dtype)
    if shape is not None:
        shape = [int(d) for d in np.atleast_1d(np.asarray(shape, dtype=np.int64))] if np.ndim(shape) else [int(shape)]
        arr = _fit_to_shape(arr, shape, verify_shape)
    return gen_ops.const(value=(arr, dtype.as_datatype_enum), dtype=dtype, name=name)


def _fit_to_shape(arr, shape, verify_shape):
    """TF1's constant(value, shape=...): a scalar is broadcast; fewer elements than the shape holds are padded
    with the last one; more are a ValueError; verify_shape demands the exact shape (a TypeError)."""
    if verify_shape:
        if list(arr.shape) != list(shape):
            raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got {arr.shape}.")
        return arr
    size = int(np.prod(shape))
    if size == 0:
        return np.empty(shape, dtype=arr.dtype)  # as TF: a shape with no elements takes none of the values
    if arr.size == size:
        return arr.reshape(shape)
    if arr.size > size:
        raise ValueError(f"Too many elements provided. Takes at most {size}, but got {arr.size}.")
    if arr.size == 0:
        raise ValueError(f"Cannot fill a tensor of shape {tuple(shape)} from an empty value.")
    flat = arr.reshape(-1)
    return _contiguous(np.concatenate([flat, np.repeat(flat[-1:], size - flat.size)]).reshape(shape))


def _constant_conversion(value, dtype=None, name=None):
    return constant(value, dtype=dtype, name=name or "Const")


def _tensor_shape_conversion(shape, dtype=None, name=None):
    """A fully defined TensorShape as an int32 (int64 for large dims) vector "shape_as_tensor", as TensorFlow."""
    if not shape.is_fully_defined():
        raise ValueError(f"Cannot convert a partially known TensorShape {shape} to a Tensor.")
    dims = shape.as_list()
    if dtype is None:
        dtype = dtypes.int64 if any(d >= 2**31 for d in dims) else dtypes.int32
    return constant(dims, dtype=dtype, name=name or "shape_as_tensor")


def _register_tensor_shape_conversion():
    from tensorweave._src.framework import tensor_shape

    ops.register_tensor_conversion_function(tensor_shape.TensorShape, _tensor_shape_conversion)


_register_tensor_shape_conversion()


def _check_feed_dtype(value, dtype):
    try:
        return to_numpy(value, dtype, what="feed value")
    except (TypeError, ValueError) as e:
        raise errors.InvalidArgumentError(None, None, str(e)) from None

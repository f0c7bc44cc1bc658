"""tf.py_func and tf.numpy_function: a PyFunc node that calls a Python function on numpy arrays while the graph
runs (host only, in the process that built the graph). As TF1: the function gets one numpy array per input,
returns one value per `Tout` entry (a list when `Tout` is a list), each of exactly that dtype; a ValueError or
TypeError it raises is an InvalidArgumentError of the step, StopIteration an OutOfRangeError,
NotImplementedError UnimplementedError, anything else UnknownError."""

import itertools
import threading

import numpy as np

from tensorweave import _pywrap_tensorweave as _pywrap
from tensorweave._src.framework import dtypes
from tensorweave._src.framework import errors
from tensorweave._src.framework import ops
from tensorweave._src.ops import gen_ops
from tensorweave._src.ops import gradients_impl

_FUNCS = {}
_LOCK = threading.Lock()
_TOKENS = itertools.count()

# tf.errors codes (error_codes.proto).
_INVALID_ARGUMENT, _UNKNOWN, _OUT_OF_RANGE, _RESOURCE_EXHAUSTED, _UNIMPLEMENTED = 3, 2, 11, 8, 12


def _convert(value):
    # TF's FuncRegistry._convert: no dtype coercion (the kernel checks it); str becomes bytes.
    result = np.asarray(value, order="C")
    if result.dtype.char == "U":
        return (
            np.vectorize(lambda x: x.encode("utf8"), otypes=[object])(result)
            if result.ndim
            else np.array(result.item().encode("utf8"), dtype=object)
        )
    if result.dtype.char == "S":
        return result.astype(object)
    return result  # np.asarray(order='C') is C-contiguous and keeps 0-d values 0-d


def _code_of(e):
    if isinstance(e, errors.OpError):
        return e.error_code
    if isinstance(e, (ValueError, TypeError)):
        return _INVALID_ARGUMENT
    if isinstance(e, StopIteration):
        return _OUT_OF_RANGE
    if isinstance(e, MemoryError):
        return _RESOURCE_EXHAUSTED
    if isinstance(e, NotImplementedError):
        return _UNIMPLEMENTED
    return _UNKNOWN


def _trampoline(token, args):
    """Called by the PyFunc kernel (GIL held): (code, message, [(array, dtype enum), ...])."""
    func = _FUNCS.get(token)
    if func is None:
        return (_UNKNOWN, f"{token} is not registered (the graph was built in another process)", [])
    try:
        ret = func(*args)
        values = [] if ret is None else list(ret) if isinstance(ret, (list, tuple)) else [ret]
        out = []
        for v in values:
            a = _convert(v)
            out.append((a, dtypes.as_dtype(a.dtype).as_datatype_enum))
        return (0, "", out)
    except BaseException as e:  # noqa: BLE001 - every failure becomes the step's error
        return (_code_of(e), f"{type(e).__name__}: {e}", [])


_pywrap.set_py_func_trampoline(_trampoline)


def py_func(func, inp, Tout, stateful=True, name=None):  # noqa: N803 - TF's argument name
    """Wraps a Python function on numpy arrays as a graph op (TF1's tf.py_func).

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     y = tw.py_func(lambda x: np.sinh(x), [tw.constant([0.0, 1.0], tw.float64)], tw.float64)
      ...     print(sess.run(y).round(4))
      [0.     1.1752]
    """
    is_list = isinstance(Tout, (list, tuple))
    tout = [dtypes.as_dtype(t) for t in (Tout if is_list else [Tout])]
    with _LOCK:
        token = f"pyfunc_{next(_TOKENS)}"
        _FUNCS[token] = func
    graph = ops.get_default_graph()
    with graph.name_scope(name or ("PyFunc" if stateful else "PyFuncStateless")) as scope:
        inputs = [ops.convert_to_tensor(x) for x in inp]
        build = gen_ops.py_func if stateful else gen_ops.py_func_stateless
        result = build(inputs, token=token, Tout=tout, name=scope)
    if isinstance(result, ops.Operation):
        result = []
    result = list(result) if isinstance(result, (list, tuple)) else [result]
    if is_list:
        return result
    return result[0] if result else None


def numpy_function(func, inp, Tout, stateful=True, name=None):  # noqa: N803 - TF's argument name
    """tf.numpy_function: py_func (the function gets and returns numpy arrays)."""
    return py_func(func, inp, Tout, stateful=stateful, name=name)


gradients_impl.NotDifferentiable("PyFunc")
gradients_impl.NotDifferentiable("PyFuncStateless")

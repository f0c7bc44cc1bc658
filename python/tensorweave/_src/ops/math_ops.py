"""Math ops, and the arithmetic operators of tensors."""

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import errors
from tensorweave._src.framework import ops


def _binary_operands(x, y):
    """Converts operands, giving a Python value the dtype of the other side."""
    x_is = isinstance(x, ops.Tensor) or hasattr(x, "_as_graph_element")
    y_is = isinstance(y, ops.Tensor) or hasattr(y, "_as_graph_element")
    if x_is and not y_is:
        x = ops.convert_to_tensor(x)
        y = _convert_like(y, x.dtype)
    elif y_is and not x_is:
        y = ops.convert_to_tensor(y)
        x = _convert_like(x, y.dtype)
    else:
        x = ops.convert_to_tensor(x)
        y = ops.convert_to_tensor(y)
    if x.dtype != y.dtype:
        raise _TypeMismatch(
            None,
            None,
            f"Operands have different dtypes: x is {x.dtype.name} ({x.name}), y is "
            f"{y.dtype.name} ({y.name}). Cast one with tw.cast.",
        )
    return x, y


class _TypeMismatch(errors.InvalidArgumentError, TypeError):
    """A dtype mismatch at graph construction: both InvalidArgumentError and
    TypeError (which TensorFlow raises)."""


def _convert_like(value, dtype):
    try:
        return ops.convert_to_tensor(value, dtype=dtype)
    except (TypeError, ValueError) as e:
        raise _TypeMismatch(None, None, f"Cannot use {value!r} with a {dtype.name} tensor: {e}") from None


def _binary(op_type, x, y, name):
    x, y = _binary_operands(x, y)
    return ops.get_default_graph()._create_op(op_type, [x, y], name=name or op_type).outputs[0]


def add(x, y, name=None):
    """x + y element-wise, with numpy broadcasting.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.add([[1, 2]], [[10], [20]])))
      [[11 12]
       [21 22]]
    """
    return _binary("Add", x, y, name)


def subtract(x, y, name=None):
    """x - y element-wise, with numpy broadcasting."""
    return _binary("Sub", x, y, name)


def multiply(x, y, name=None):
    """x * y element-wise, with numpy broadcasting."""
    return _binary("Mul", x, y, name)


def div(x, y, name=None):
    """x / y with the Div op: integer division truncates toward zero."""
    return _binary("Div", x, y, name)


def truediv(x, y, name=None):
    """x / y as Python 3 divides: integer operands become float64 first."""
    x, y = _binary_operands(x, y)
    if x.dtype.is_integer:
        graph = ops.get_default_graph()
        with graph.name_scope(name or "truediv") as scope:
            x = cast(x, dtypes.float64)
            y = cast(y, dtypes.float64)
            return graph._create_op("Div", [x, y], name=scope).outputs[0]
    return ops.get_default_graph()._create_op("Div", [x, y], name=name or "truediv").outputs[0]


divide = truediv


def negative(x, name=None):
    """-x element-wise."""
    x = ops.convert_to_tensor(x)
    return ops.get_default_graph()._create_op("Neg", [x], name=name or "Neg").outputs[0]


def cast(x, dtype, name=None):
    """x converted to `dtype` element-wise (floats truncate toward zero)."""
    x = ops.convert_to_tensor(x)
    dtype = dtypes.as_dtype(dtype)
    if x.dtype == dtype:
        return x
    return (
        ops.get_default_graph()
        ._create_op("Cast", [x], {"DstT": dtype.as_datatype_enum}, name=name or "Cast")
        .outputs[0]
    )


def to_float(x, name="ToFloat"):
    """x cast to float32."""
    return cast(x, dtypes.float32, name=name)


def matmul(a, b, transpose_a=False, transpose_b=False, name=None):
    """The matrix product of `a` and `b` (2-D).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.matmul([[1.0, 2.0]], [[3.0], [4.0]])))
      [[11.]]
    """
    a, b = _binary_operands(a, b)
    return (
        ops.get_default_graph()
        ._create_op(
            "MatMul",
            [a, b],
            {"transpose_a": bool(transpose_a), "transpose_b": bool(transpose_b)},
            name=name or "MatMul",
        )
        .outputs[0]
    )


def _install_operators():
    def binary(fn, reverse=False):
        if reverse:
            return lambda self, other: fn(other, self)
        return lambda self, other: fn(self, other)

    T = ops.Tensor
    T.__add__ = binary(add)
    T.__radd__ = binary(add, True)
    T.__sub__ = binary(subtract)
    T.__rsub__ = binary(subtract, True)
    T.__mul__ = binary(multiply)
    T.__rmul__ = binary(multiply, True)
    T.__truediv__ = binary(truediv)
    T.__rtruediv__ = binary(truediv, True)
    T.__matmul__ = binary(matmul)
    T.__rmatmul__ = binary(matmul, True)
    T.__neg__ = lambda self: negative(self)


_install_operators()

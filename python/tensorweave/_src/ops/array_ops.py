"""Array ops: placeholders, identity, shapes and reshaping."""

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.framework import tensor_shape
from tensorweave._src.ops import constant_op


def placeholder(dtype, shape=None, name=None):
    """A tensor whose value must be fed to `Session.run`.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.placeholder(tw.float32, [None, 2])
      ...     print(sess.run(x * 2.0, {x: [[1.0, 2.0]]}))
      [[2. 4.]]
    """
    dtype = dtypes.as_dtype(dtype)
    shape = tensor_shape.as_shape(shape) if shape is not None else tensor_shape.TensorShape(None)
    op = ops.get_default_graph()._create_op(
        "Placeholder",
        [],
        {"dtype": dtype.as_datatype_enum, "shape": shape.dims},
        name=name or "Placeholder",
    )
    return op.outputs[0]


def identity(input, name=None):  # noqa: A002 - TensorFlow's signature
    """Returns a tensor with the same value (a snapshot, for a variable)."""
    x = ops.convert_to_tensor(input)
    return ops.get_default_graph()._create_op("Identity", [x], name=name or "Identity").outputs[0]


def shape(input, name=None, out_type=dtypes.int32):  # noqa: A002
    """The shape of `input` as a 1-D int tensor, computed at run time."""
    x = ops.convert_to_tensor(input)
    out_type = dtypes.as_dtype(out_type)
    return (
        ops.get_default_graph()
        ._create_op("Shape", [x], {"out_type": out_type.as_datatype_enum}, name=name or "Shape")
        .outputs[0]
    )


def _shape_tensor(shape_value, name="shape"):
    if isinstance(shape_value, ops.Tensor):
        return shape_value
    if isinstance(shape_value, tensor_shape.TensorShape):
        shape_value = shape_value.as_list()
    dims = [-1 if d is None else d for d in list(shape_value)]
    return constant_op.constant(dims, dtype=dtypes.int32, name=name)


def reshape(tensor, shape, name=None):  # noqa: A002
    """The same elements in a new shape; one dimension may be -1.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.reshape(tw.constant([1, 2, 3, 4]), [2, -1])))
      [[1 2]
       [3 4]]
    """
    x = ops.convert_to_tensor(tensor)
    graph = ops.get_default_graph()
    with graph.name_scope(name or "Reshape") as scope:
        s = _shape_tensor(shape)
        return graph._create_op("Reshape", [x, s], name=scope).outputs[0]


def fill(dims, value, name=None):
    """A tensor of shape `dims` with every element `value`."""
    graph = ops.get_default_graph()
    v = ops.convert_to_tensor(value)
    d = _shape_tensor(dims, name="dims")
    return graph._create_op("Fill", [d, v], name=name or "Fill").outputs[0]


def zeros(shape, dtype=dtypes.float32, name=None):
    """A tensor of zeros."""
    dtype = dtypes.as_dtype(dtype)
    if isinstance(shape, ops.Tensor):
        return fill(shape, constant_op.constant(0, dtype=dtype), name=name or "zeros")
    return constant_op.constant(0, dtype=dtype, shape=list(tensor_shape.as_shape(shape)), name=name or "zeros")


def ones(shape, dtype=dtypes.float32, name=None):
    """A tensor of ones."""
    dtype = dtypes.as_dtype(dtype)
    if isinstance(shape, ops.Tensor):
        return fill(shape, constant_op.constant(1, dtype=dtype), name=name or "ones")
    return constant_op.constant(1, dtype=dtype, shape=list(tensor_shape.as_shape(shape)), name=name or "ones")

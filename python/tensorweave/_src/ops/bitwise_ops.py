"""Bitwise ops (TensorFlow's tf.bitwise and tf.math.popcount) over the integer dtypes: one C++ op each,
element-wise, the binary ones with numpy broadcasting. None of them is differentiable."""

from tensorweave._src.framework import ops
from tensorweave._src.ops import gen_ops, gradients_impl


def _binary(op_type, x, y, name):
    graph = ops.get_default_graph()
    with graph.name_scope(name or op_type) as scope:
        # As TF's generated wrapper: the op's type inference (a tensor of another dtype is a TypeError).
        return gen_ops.wrapper(op_type)(x, y, name=scope)


def bitwise_and(x, y, name=None):
    """x & y element-wise, with broadcasting (integer dtypes).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.bitwise.bitwise_and([12, 10], 6)))
      [4 2]
    """
    return _binary("BitwiseAnd", x, y, name)


def bitwise_or(x, y, name=None):
    """x | y element-wise, with broadcasting (integer dtypes).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.bitwise.bitwise_or([12, 10], 6)))
      [14 14]
    """
    return _binary("BitwiseOr", x, y, name)


def bitwise_xor(x, y, name=None):
    """x ^ y element-wise, with broadcasting (integer dtypes).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.bitwise.bitwise_xor([12, 10], 6)))
      [10 12]
    """
    return _binary("BitwiseXor", x, y, name)


def left_shift(x, y, name=None):
    """x << y element-wise, with broadcasting; as TensorFlow, a shift count outside [0, bits - 1] is clamped
    to it and the result wraps in x's dtype.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.bitwise.left_shift([1, 3], [4, 1])))
      [16  6]
    """
    return _binary("LeftShift", x, y, name)


def right_shift(x, y, name=None):
    """x >> y element-wise, with broadcasting (arithmetic for signed dtypes); as TensorFlow, a shift count
    outside [0, bits - 1] is clamped to it.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.bitwise.right_shift([16, -16], 2)))
      [ 4 -4]
    """
    return _binary("RightShift", x, y, name)


def invert(x, name=None):
    """~x element-wise: every bit flipped (integer dtypes).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.bitwise.invert([0, 5])))
      [-1 -6]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "Invert") as scope:
        return gen_ops.invert(ops.convert_to_tensor(x, name="x"), name=scope)


def popcount(x, name=None):
    """The number of bits set in each element of x, as uint8 (TensorFlow's tf.math.popcount).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.math.popcount([0, 7, -1])))
      [ 0  3 32]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "PopulationCount") as scope:
        return gen_ops.population_count(ops.convert_to_tensor(x, name="x"), name=scope)


for _op in ("BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift", "Invert", "PopulationCount"):
    gradients_impl.NotDifferentiable(_op)

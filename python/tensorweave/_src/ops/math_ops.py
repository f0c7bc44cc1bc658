"""Math ops, and the arithmetic operators of tensors."""

import numpy as np

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import indexed_slices
from tensorweave._src.framework import ops
from tensorweave._src.ops import constant_op
from tensorweave._src.ops import gen_ops


def _binary_operands(x, y, x_name="x", y_name="y"):
    """Converts operands, giving a Python value the dtype of the other side; constants made here are named
    `x_name` and `y_name` (inside the op's name scope: TF1's `mul/y`)."""
    x_is = isinstance(x, ops.Tensor) or hasattr(x, "_as_graph_element")
    y_is = isinstance(y, ops.Tensor) or hasattr(y, "_as_graph_element")
    if x_is and not y_is:
        x = ops.convert_to_tensor(x)
        y = _convert_like(y, x.dtype, y_name)
    elif y_is and not x_is:
        y = ops.convert_to_tensor(y)
        x = _convert_like(x, y.dtype, x_name)
    else:
        x = ops.convert_to_tensor(x, name=x_name)
        y = ops.convert_to_tensor(y, name=y_name)
    if x.dtype != y.dtype:
        raise TypeError(
            f"Operands have different dtypes: x is {x.dtype.name} ({x.name}), y is "
            f"{y.dtype.name} ({y.name}). Cast one with tw.cast.",
        )
    return x, y


def _convert_like(value, dtype, name=None):
    try:
        return ops.convert_to_tensor(value, dtype=dtype, name=name)
    except (TypeError, ValueError) as e:
        raise TypeError(f"Cannot use {value!r} with a {dtype.name} tensor: {e}") from None


def _arg_names(op_type):
    return [arg["name"] for arg in gen_ops.op_def(op_type).inputs]


def _binary(op_type, x, y, name):
    """An op of two operands in a name scope `name` (default: the op type), the op taking the scope's name and
    constants made from Python operands named by the op's argument names, as TensorFlow names them. The op goes
    in the operands' graph (as TF1's name_scope with values), which need not be the default one."""
    graph = ops._get_graph_from_inputs([x, y])
    with gen_ops._as_default(graph), graph.name_scope(name or op_type) as scope:
        x, y = _binary_operands(x, y, *_arg_names(op_type)[:2])
        return gen_ops.wrapper(op_type)(x, y, name=scope)


@gen_ops.doc_from("Add")
def add(x, y, name=None):
    """A Python operand takes the dtype of the other operand.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.add([[1, 2]], [[10], [20]])))
      [[11 12]
       [21 22]]

    The op is an AddV2, named "Add" by default, as TensorFlow's. Strings concatenate (TF's string Add; here a
    StringJoin, so their shapes must be equal or one a scalar).
    """
    graph = ops._get_graph_from_inputs([x, y])
    with gen_ops._as_default(graph), graph.name_scope(name or "Add") as scope:
        x, y = _binary_operands(x, y)
        if x.dtype == dtypes.string:
            return gen_ops.string_join([x, y], separator="", name=scope)
        return gen_ops.wrapper("AddV2")(x, y, name=scope)


@gen_ops.doc_from("Sub")
def subtract(x, y, name=None):
    return _binary("Sub", x, y, name)


@gen_ops.doc_from("Mul")
def multiply(x, y, name=None):
    return _binary("Mul", x, y, name)


def div(x, y, name=None):
    """x / y as Python 2 divides (TensorFlow 1's `tf.div`): integers floor (FloorDiv), floats divide (RealDiv).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.div([-7, 7], [2, -2])))
      [-4 -4]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "div") as scope:
        x, y = _binary_operands(x, y)
        if x.dtype.is_integer:
            return gen_ops.floor_div(x, y, name=scope)
        return gen_ops.real_div(x, y, name=scope)


def truediv(x, y, name=None):
    """x / y as Python 3 divides: integer operands become float64 first."""
    graph = ops.get_default_graph()
    with graph.name_scope(name or "truediv") as scope:
        x, y = _binary_operands(x, y)
        if x.dtype.is_integer:
            # TensorFlow's table: 8- and 16-bit integers divide in float32, wider ones in float64.
            float_dtype = dtypes.float32 if x.dtype.size <= 2 else dtypes.float64
            x = cast(x, float_dtype)
            y = cast(y, float_dtype)
        return gen_ops.real_div(x, y, name=scope)


divide = truediv


@gen_ops.doc_from("Neg")
def negative(x, name=None):
    x = ops.convert_to_tensor(x)
    return gen_ops.neg(x, name=name or "Neg")


@gen_ops.doc_from("Cast")
def cast(x, dtype, name=None):
    """`dtype` is the op's DstT; a tensor of that dtype already is returned as it is. A SparseTensor or
    IndexedSlices has its values cast (TF's tf.cast does the same)."""
    from tensorweave._src.framework import indexed_slices
    from tensorweave._src.framework import sparse_tensor

    if isinstance(x, sparse_tensor.SparseTensor):
        with ops.name_scope(name, "Cast", [x]) as scope:
            values = cast(x.values, dtype, name=scope)
            return sparse_tensor.SparseTensor(x.indices, values, x.dense_shape)
    if isinstance(x, indexed_slices.IndexedSlices):
        with ops.name_scope(name, "Cast", [x]) as scope:
            values = cast(x.values, dtype, name=scope)
            return indexed_slices.IndexedSlices(values, x.indices, x.dense_shape)
    x = ops.convert_to_tensor(x)
    dtype = dtypes.as_dtype(dtype)
    if x.dtype == dtype:
        return x
    return gen_ops.cast(x, DstT=dtype, name=name or "Cast")


def to_float(x, name="ToFloat"):
    """x cast to float32."""
    return cast(x, dtypes.float32, name=name)


def matmul(
    a,
    b,
    transpose_a=False,
    transpose_b=False,
    adjoint_a=False,
    adjoint_b=False,
    a_is_sparse=False,
    b_is_sparse=False,
    name=None,
):
    """The matrix product of `a` and `b`.

    Operands of rank 2 (or less: an error) use the MatMul op; higher (or unknown) ranks use
    BatchMatMulV2: products over the last two dims, the leading batch dims
    broadcast as numpy does. For real dtypes adjoint means transpose; for
    complex ones it is the conjugate transpose.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.matmul([[1.0, 2.0]], [[3.0], [4.0]])))
      [[11.]]
    """
    if transpose_a and adjoint_a:
        raise ValueError("Only one of transpose_a and adjoint_a can be True.")
    if transpose_b and adjoint_b:
        raise ValueError("Only one of transpose_b and adjoint_b can be True.")
    graph = ops.get_default_graph()
    with graph.name_scope(name or "MatMul") as scope:
        a, b = _binary_operands(a, b, "a", "b")
        ranks = (a.shape.ndims, b.shape.ndims)
        if None not in ranks and max(ranks) <= 2:
            # As TF: MatMul unless a rank is unknown or above 2 (a vector fails MatMul's shape check).
            # MatMul's transposes do not conjugate: an adjoint of a complex operand is its conjugate transposed.
            a = _conj_if(a, adjoint_a)
            b = _conj_if(b, adjoint_b)
            return gen_ops.mat_mul(
                a, b, transpose_a=transpose_a or adjoint_a, transpose_b=transpose_b or adjoint_b, name=scope
            )
        # BatchMatMulV2's adj_x/adj_y conjugate: a plain transpose of a complex operand conjugates it first.
        a = _conj_if(a, transpose_a)
        b = _conj_if(b, transpose_b)
        return gen_ops.batch_mat_mul_v2(
            a, b, adj_x=transpose_a or adjoint_a, adj_y=transpose_b or adjoint_b, name=scope
        )


def _conj_if(x, condition):
    """x conjugated when `condition` holds and x is complex, else x."""
    return gen_ops.wrapper("Conj")(x) if condition and x.dtype.is_complex else x


def _unary(op_type, x, name):
    graph = ops.get_default_graph()
    with graph.name_scope(name or op_type) as scope:
        x = ops.convert_to_tensor(x, name=_arg_names(op_type)[0])
        return gen_ops.wrapper(op_type)(x, name=scope)


@gen_ops.doc_from("RealDiv")
def realdiv(x, y, name=None):
    return _binary("RealDiv", x, y, name)


@gen_ops.doc_from("FloorDiv")
def floordiv(x, y, name=None):
    """A Python operand takes the dtype of the other operand.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.floordiv([7, -7], 2)))
      [ 3 -4]
    """
    return _binary("FloorDiv", x, y, name or "floordiv")


@gen_ops.doc_from("FloorMod")
def floormod(x, y, name=None):
    """A Python operand takes the dtype of the other operand.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.floormod([7, -7], 3)))
      [1 2]
    """
    return _binary("FloorMod", x, y, name)


mod = floormod


@gen_ops.doc_from("Maximum")
def maximum(x, y, name=None):
    """A Python operand takes the dtype of the other operand.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.maximum([1, 5], 3)))
      [3 5]
    """
    return _binary("Maximum", x, y, name)


@gen_ops.doc_from("Minimum")
def minimum(x, y, name=None):
    return _binary("Minimum", x, y, name)


@gen_ops.doc_from("Pow")
def pow(x, y, name=None):  # noqa: A001 - TensorFlow's name
    """A Python operand takes the dtype of the other operand.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.pow([2.0, 3.0], 2.0)))
      [4. 9.]
    """
    return _binary("Pow", x, y, name)


@gen_ops.doc_from("SquaredDifference")
def squared_difference(x, y, name=None):
    return _binary("SquaredDifference", x, y, name)


@gen_ops.doc_from("Equal")
def equal(x, y, name=None):
    """A Python operand takes the dtype of the other operand.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.equal([1, 2], 2)))
      [False  True]
    """
    return _binary("Equal", x, y, name)


@gen_ops.doc_from("NotEqual")
def not_equal(x, y, name=None):
    return _binary("NotEqual", x, y, name)


@gen_ops.doc_from("Less")
def less(x, y, name=None):
    return _binary("Less", x, y, name)


@gen_ops.doc_from("LessEqual")
def less_equal(x, y, name=None):
    return _binary("LessEqual", x, y, name)


@gen_ops.doc_from("Greater")
def greater(x, y, name=None):
    return _binary("Greater", x, y, name)


@gen_ops.doc_from("GreaterEqual")
def greater_equal(x, y, name=None):
    return _binary("GreaterEqual", x, y, name)


@gen_ops.doc_from("LogicalAnd")
def logical_and(x, y, name=None):
    """A Python operand takes the dtype of the other operand.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.logical_and([True, True], [True, False])))
      [ True False]
    """
    return _binary("LogicalAnd", x, y, name)


@gen_ops.doc_from("LogicalOr")
def logical_or(x, y, name=None):
    return _binary("LogicalOr", x, y, name)


def logical_xor(x, y, name="LogicalXor"):
    """x XOR y for bool tensors, with numpy broadcasting: (x OR y) AND NOT (x AND y), as TensorFlow builds it."""
    graph = ops.get_default_graph()
    with graph.name_scope(name) as scope:
        return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=scope)


@gen_ops.doc_from("LogicalNot")
def logical_not(x, name=None):
    return _unary("LogicalNot", x, name)


def where(condition, x=None, y=None, name=None):
    """TF1's where: with x and y, picks x where condition else y (the Select
    op: condition is a scalar, of x's shape, or a vector choosing rows of x);
    with the condition alone, the indices of its true elements.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.where([True, False], [1, 2], [10, 20])))
      [ 1 20]
    """
    if x is None and y is None:
        # The coordinates of the true (non-zero) elements: int64 [num_true, rank].
        c = ops.convert_to_tensor(condition)
        return gen_ops.where(c, name=name or "Where")
    if x is None or y is None:
        raise ValueError("where: x and y must both be given, or neither")
    c = ops.convert_to_tensor(condition, dtype=dtypes.bool)
    x, y = _binary_operands(x, y)
    return gen_ops.select(c, x, y, name=name or "Select")


def where_v2(condition, x=None, y=None, name=None):
    """TF2's where: x where condition else y, all three broadcast together
    (the SelectV2 op); with the condition alone, as `where`.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.where_v2([[True], [False]], [1, 2], 0)))
      [[1 2]
       [0 0]]
    """
    if x is None and y is None:
        return where(condition, name=name)
    if x is None or y is None:
        raise ValueError("where_v2: x and y must both be given, or neither")
    c = ops.convert_to_tensor(condition, dtype=dtypes.bool)
    x, y = _binary_operands(x, y)
    return gen_ops.select_v2(c, x, y, name=name or "SelectV2")


@gen_ops.doc_from("AddN")
def add_n(inputs, name=None):
    """A list of one tensor, unnamed, is that tensor itself.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.add_n([[1, 2], [3, 4], [5, 6]])))
      [ 9 12]
    """
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError("add_n needs a non-empty list of tensors")
    tensors = [ops.convert_to_tensor(t) for t in inputs]
    if any(t.dtype != tensors[0].dtype for t in tensors):
        raise TypeError("add_n: inputs have different dtypes: " + ", ".join(t.dtype.name for t in tensors))
    if len(tensors) == 1 and name is None:
        return tensors[0]
    return gen_ops.add_n(tensors, name=name or "AddN")


@gen_ops.doc_from("ClipByValue")
def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Bounds that broadcast against t (but are not of its shape) clip by minimum then maximum.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.clip_by_value([-2.0, 0.5, 3.0], -1.0, 1.0)))
      [-1.   0.5  1. ]

    An IndexedSlices (an embedding's gradient) has its values clipped, as TF's.
    """
    if isinstance(t, indexed_slices.IndexedSlices):
        values = clip_by_value(t.values, clip_value_min, clip_value_max, name)
        return indexed_slices.IndexedSlices(values, t.indices, t.dense_shape)
    t = ops.convert_to_tensor(t)
    lo = _convert_like(clip_value_min, t.dtype)
    hi = _convert_like(clip_value_max, t.dtype)
    graph = ops.get_default_graph()

    def fits(bound):
        return bound.shape.ndims == 0 or (bound.shape.is_fully_defined() and bound.shape == t.shape)

    if not (fits(lo) and fits(hi)):
        # Bounds that broadcast against t (as TensorFlow allows): minimum then maximum, t's shape kept.
        with graph.name_scope(name or "clip_by_value"):
            clipped = maximum(minimum(t, hi), lo)
        if not clipped.shape.is_compatible_with(t.shape):
            raise ValueError(f"clip_by_value: the bounds broadcast t of shape {t.shape} to {clipped.shape}")
        return clipped
    return gen_ops.clip_by_value(t, lo, hi, name=name or "clip_by_value")


@gen_ops.doc_from("Abs")
def abs(x, name=None):  # noqa: A001 - TensorFlow's name
    """A Python value is converted to a tensor first (named `x` in the op's scope).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.abs([-1.5, 2.0])))
      [1.5 2. ]

    Of a complex tensor: its modulus, of the real dtype (op ComplexAbs), as TensorFlow.
    """
    if (isinstance(x, ops.Tensor) and x.dtype.is_complex) or (not isinstance(x, ops.Tensor) and np.iscomplexobj(x)):
        from tensorweave._src.ops import spectral_ops

        graph = ops.get_default_graph()
        with graph.name_scope(name or "Abs") as scope:
            return spectral_ops.complex_abs(ops.convert_to_tensor(x, name="x"), name=scope)
    return _unary("Abs", x, name)


@gen_ops.doc_from("Sign")
def sign(x, name=None):
    """Of a complex tensor: x / |x| (0 at 0) from DivNoNan and ComplexAbs, as TensorFlow's tf.sign, so that it
    differentiates as x / |x| does (the Sign op's gradient is zero)."""
    x = ops.convert_to_tensor(x)
    if x.dtype.is_complex:
        from tensorweave._src.ops import spectral_ops

        graph = ops.get_default_graph()
        with graph.name_scope(name or "Sign") as scope:
            magnitude = cast(spectral_ops.complex_abs(x), x.dtype)
            return gen_ops.div_no_nan(x, magnitude, name=scope)
    return _unary("Sign", x, name)


@gen_ops.doc_from("Exp")
def exp(x, name=None):
    """A Python value is converted to a tensor first (named `x` in the op's scope).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.exp(0.0)))
      1.0
    """
    return _unary("Exp", x, name)


@gen_ops.doc_from("Log")
def log(x, name=None):
    return _unary("Log", x, name)


@gen_ops.doc_from("Log1p")
def log1p(x, name=None):
    return _unary("Log1p", x, name)


@gen_ops.doc_from("Sqrt")
def sqrt(x, name=None):
    """A Python value is converted to a tensor first (named `x` in the op's scope).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.sqrt([4.0, 9.0])))
      [2. 3.]
    """
    return _unary("Sqrt", x, name)


@gen_ops.doc_from("Rsqrt")
def rsqrt(x, name=None):
    return _unary("Rsqrt", x, name)


@gen_ops.doc_from("Square")
def square(x, name=None):
    return _unary("Square", x, name)


@gen_ops.doc_from("Reciprocal")
def reciprocal(x, name=None):
    return _unary("Reciprocal", x, name)


@gen_ops.doc_from("Tanh")
def tanh(x, name=None):
    """A Python value is converted to a tensor first (named `x` in the op's scope).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.tanh(0.0)))
      0.0
    """
    return _unary("Tanh", x, name)


@gen_ops.doc_from("Sigmoid")
def sigmoid(x, name=None):
    """A Python value is converted to a tensor first (named `x` in the op's scope).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.sigmoid(0.0)))
      0.5
    """
    return _unary("Sigmoid", x, name)


@gen_ops.doc_from("Floor")
def floor(x, name=None):
    return _unary("Floor", x, name)


@gen_ops.doc_from("Ceil")
def ceil(x, name=None):
    return _unary("Ceil", x, name)


@gen_ops.doc_from("Round")
def round(x, name=None):  # noqa: A001 - TensorFlow's name
    """An integer tensor is returned as it is.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.round([0.5, 1.5, 2.5, -0.5])))
      [ 0.  2.  2. -0.]
    """
    x = ops.convert_to_tensor(x)
    if x.dtype.is_integer:
        return x
    return _unary("Round", x, name)


# --- reductions -------------------------------------------------------------


def _reduction_axis(axis, reduction_indices, what):
    if axis is not None and reduction_indices is not None:
        raise ValueError(f"{what}: give axis or reduction_indices, not both")
    return axis if axis is not None else reduction_indices


def _keepdims(keepdims, keep_dims, what):
    if keepdims is not None and keep_dims is not None and bool(keepdims) != bool(keep_dims):
        raise ValueError(f"{what}: keepdims and keep_dims disagree")
    value = keepdims if keepdims is not None else keep_dims
    return bool(value) if value is not None else False


def _reduce(op_type, input_tensor, axis, keepdims, name, reduction_indices, keep_dims):
    what = name or op_type
    x = ops.convert_to_tensor(input_tensor)
    axis = _reduction_axis(axis, reduction_indices, what)
    keep = _keepdims(keepdims, keep_dims, what)
    graph = ops.get_default_graph()
    all_axes = axis is None
    if all_axes:
        # TF's _ReductionDims, built before the op's scope: a "Const" of all axes, or range(0, rank(x)) for a
        # scalar or an unknown rank.
        from tensorweave._src.ops import array_ops

        if x.shape.ndims:
            axis = constant_op.constant(np.arange(x.shape.ndims, dtype=np.int32))
        else:
            axis = array_ops.range(0, array_ops.rank(x))
    with graph.name_scope(name or op_type) as scope:
        if not isinstance(axis, ops.Tensor):
            axis = constant_op.constant(axis, dtype=dtypes.int32, name="reduction_indices")
        out = gen_ops.wrapper(op_type)(x, axis, keep_dims=keep, name=scope)
    if all_axes and not keep:
        out.set_shape([])  # TF's _may_reduce_to_scalar: known to be a scalar even for an unknown rank
    return out


def reduce_sum(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    """The sum over `axis` (all axes when None); keepdims keeps them as size 1.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.constant([[1, 2, 3], [4, 5, 6]])
      ...     print(sess.run(tw.reduce_sum(x)), sess.run(tw.reduce_sum(x, 0)))
      ...     print(sess.run(tw.reduce_sum(x, 1, keepdims=True)))
      21 [5 7 9]
      [[ 6]
       [15]]
    """
    return _reduce("Sum", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_mean(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    """The mean over `axis` (all axes when None); integer means truncate.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.reduce_mean([[1.0, 2.0], [3.0, 4.0]], axis=1)))
      [1.5 3.5]
    """
    return _reduce("Mean", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_max(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    """The maximum over `axis` (all axes when None)."""
    return _reduce("Max", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_min(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    """The minimum over `axis` (all axes when None)."""
    return _reduce("Min", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_prod(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    """The product over `axis` (all axes when None)."""
    return _reduce("Prod", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_all(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    """The logical AND of a bool tensor over `axis` (all axes when None).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.reduce_all([[True, False], [True, True]], axis=1)))
      [False  True]
    """
    return _reduce("All", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_any(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    """The logical OR of a bool tensor over `axis` (all axes when None)."""
    return _reduce("Any", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def _arg(op_type, input, axis, name, dimension, output_type):  # noqa: A002
    if axis is not None and dimension is not None:
        raise ValueError(f"{op_type}: give axis or dimension, not both")
    axis = axis if axis is not None else dimension
    if axis is None:
        axis = 0
    x = ops.convert_to_tensor(input)
    with gen_ops._as_default(x.graph):  # (the op goes in its input's graph)
        if not isinstance(axis, ops.Tensor):
            axis = constant_op.constant(axis, dtype=dtypes.int32)
        return gen_ops.wrapper(op_type)(x, axis, output_type=dtypes.as_dtype(output_type), name=name or op_type)


def argmax(input, axis=None, name=None, dimension=None, output_type=dtypes.int64):  # noqa: A002
    """The index of the largest value along `axis` (default 0; first on ties).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.argmax([[1, 9, 3], [7, 2, 7]], axis=1)))
      [1 0]
    """
    return _arg("ArgMax", input, axis, name, dimension, output_type)


def argmin(input, axis=None, name=None, dimension=None, output_type=dtypes.int64):  # noqa: A002
    """The index of the smallest value along `axis` (default 0; first on ties)."""
    return _arg("ArgMin", input, axis, name, dimension, output_type)


@gen_ops.doc_from("BroadcastGradientArgs")
def broadcast_gradient_args(s0, s1, name=None):
    s0 = ops.convert_to_tensor(s0)
    s1 = ops.convert_to_tensor(s1)
    r0, r1 = gen_ops.broadcast_gradient_args(s0, s1, name=name or "BroadcastGradientArgs")
    return r0, r1


def _install_operators():
    # Each operator opens the name scope TensorFlow 1 gives it ("mul", with a constant operand "mul/y").
    def binary(fn, scope, reverse=False):
        if reverse:
            return lambda self, other: fn(other, self, name=scope)
        return lambda self, other: fn(self, other, name=scope)

    T = ops.Tensor
    T.__add__ = binary(add, "add")
    T.__radd__ = binary(add, "add", True)
    T.__sub__ = binary(subtract, "sub")
    T.__rsub__ = binary(subtract, "sub", True)
    T.__mul__ = binary(multiply, "mul")
    T.__rmul__ = binary(multiply, "mul", True)
    T.__truediv__ = binary(truediv, "truediv")
    T.__rtruediv__ = binary(truediv, "truediv", True)
    T.__matmul__ = binary(matmul, "matmul")
    T.__rmatmul__ = binary(matmul, "matmul", True)
    T.__floordiv__ = binary(floordiv, "floordiv")
    T.__rfloordiv__ = binary(floordiv, "floordiv", True)
    T.__mod__ = binary(floormod, "mod")
    T.__rmod__ = binary(floormod, "mod", True)
    T.__pow__ = binary(pow, "pow")
    T.__rpow__ = binary(pow, "pow", True)
    T.__lt__ = binary(less, None)
    T.__le__ = binary(less_equal, None)
    T.__gt__ = binary(greater, None)
    T.__ge__ = binary(greater_equal, None)
    T.__and__ = binary(logical_and, "and")
    T.__rand__ = binary(logical_and, "and", True)
    T.__or__ = binary(logical_or, "or")
    T.__ror__ = binary(logical_or, "or", True)
    T.__xor__ = binary(logical_xor, "xor")
    T.__rxor__ = binary(logical_xor, "xor", True)
    T.__invert__ = lambda self: logical_not(self)
    T.__abs__ = lambda self: abs(self)
    T.__neg__ = lambda self: negative(self)


_install_operators()

"""Gradients of math ops.

Broadcasting binary ops sum each operand's gradient over the axes it was
broadcast along (BroadcastGradientArgs when shapes are only known at run
time, worked out here when they are static), then reshape it back.
"""

import numpy as np

from tensorweave._src.framework import dtypes
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import constant_op
from tensorweave._src.ops import gen_ops
from tensorweave._src.ops import gradients_impl
from tensorweave._src.ops import math_ops


def _static_reduction_axes(out_dims, in_dims):
    """Axes of out_dims that an operand of in_dims was broadcast along."""
    offset = len(out_dims) - len(in_dims)
    return [i for i, d in enumerate(out_dims) if i < offset or (in_dims[i - offset] == 1 and d != 1)]


def _sum_to_shape_of(grad, x):
    """grad (of a broadcast shape) summed down to the shape of x."""
    if grad is None:
        return None
    gs, xs = grad.shape, x.shape
    if gs.is_fully_defined() and xs.is_fully_defined():
        g_dims, x_dims = gs.as_list(), xs.as_list()
        if g_dims == x_dims:
            return grad
        axes = _static_reduction_axes(g_dims, x_dims)
        if axes:
            grad = math_ops.reduce_sum(grad, axes)
        if grad.shape.as_list() != x_dims:
            grad = array_ops.reshape(grad, x_dims)
        return grad
    shape_x = array_ops.shape(x)
    axes, _ = math_ops.broadcast_gradient_args(shape_x, array_ops.shape(grad))
    return array_ops.reshape(math_ops.reduce_sum(grad, axes), shape_x)


def _conj(x):
    """conj(x) of a complex tensor (TensorFlow's gradients of complex ops conjugate), else x."""
    if x.dtype.is_complex:
        return gen_ops.wrapper("Conj")(x)
    return x


def _binary_result(op, gx, gy):
    x, y = op.inputs
    return [_sum_to_shape_of(gx, x), _sum_to_shape_of(gy, y)]


def _scalar(value, dtype):
    return constant_op.constant(value, dtype=dtype)


@gradients_impl.RegisterGradient("Add")
@gradients_impl.RegisterGradient("AddV2")
def _add_grad(op, grad):
    return _binary_result(op, grad, grad)


@gradients_impl.RegisterGradient("Sub")
def _sub_grad(op, grad):
    return _binary_result(op, grad, math_ops.negative(grad))


@gradients_impl.RegisterGradient("Mul")
def _mul_grad(op, grad):
    x, y = op.inputs
    return _binary_result(op, grad * _conj(y), _conj(x) * grad)


def _div_grad(op, grad):
    x, y = op.inputs
    gx = math_ops.realdiv(grad, _conj(y))
    gy = grad * _conj(math_ops.realdiv(math_ops.realdiv(math_ops.negative(x), y), y))
    return _binary_result(op, gx, gy)


gradients_impl.RegisterGradient("Div")(_div_grad)
gradients_impl.RegisterGradient("RealDiv")(_div_grad)


@gradients_impl.RegisterGradient("FloorDiv")
def _floordiv_grad(op, grad):
    # Piecewise constant: zero almost everywhere.
    return [None, None]


@gradients_impl.RegisterGradient("FloorMod")
def _floormod_grad(op, grad):
    x, y = op.inputs
    return _binary_result(op, grad, math_ops.negative(grad) * math_ops.floordiv(x, y))


def _select_mask(mask, grad):
    return grad * math_ops.cast(mask, grad.dtype)


@gradients_impl.RegisterGradient("Maximum")
def _maximum_grad(op, grad):
    x, y = op.inputs
    mask = math_ops.greater_equal(x, y)
    return _binary_result(op, _select_mask(mask, grad), _select_mask(math_ops.logical_not(mask), grad))


@gradients_impl.RegisterGradient("Minimum")
def _minimum_grad(op, grad):
    x, y = op.inputs
    mask = math_ops.less_equal(x, y)
    return _binary_result(op, _select_mask(mask, grad), _select_mask(math_ops.logical_not(mask), grad))


@gradients_impl.RegisterGradient("Pow")
def _pow_grad(op, grad):
    x, y = op.inputs
    z = op.outputs[0]
    if x.dtype.is_complex:  # TensorFlow's rule: the conjugate derivative
        x, y, z = (gen_ops.wrapper("Conj")(t) for t in (x, y, z))
    one = _scalar(1, x.dtype)
    gx = grad * y * math_ops.pow(x, y - one)
    # d/dy x**y = x**y log x, taken as 0 where x <= 0 (x == 0 if complex), as TensorFlow.
    zero = _scalar(0, x.dtype)
    positive = math_ops.not_equal(x, zero) if x.dtype.is_complex else math_ops.greater(x, zero)
    safe_x = math_ops.where_v2(positive, x, one)
    log_x = math_ops.where_v2(positive, math_ops.log(safe_x), zero)
    return _binary_result(op, gx, grad * z * log_x)


@gradients_impl.RegisterGradient("SquaredDifference")
def _squared_difference_grad(op, grad):
    x, y = op.inputs
    gx = grad * (_scalar(2, x.dtype) * (x - y))
    return _binary_result(op, gx, math_ops.negative(gx))


for _op in (
    "Equal",
    "NotEqual",
    "Less",
    "LessEqual",
    "Greater",
    "GreaterEqual",
    "LogicalAnd",
    "LogicalOr",
    "LogicalNot",
    "Floor",
    "Ceil",
    "Round",
    "All",
    "Any",
    "ArgMax",
    "ArgMin",
    "BroadcastGradientArgs",
):
    gradients_impl.NotDifferentiable(_op)


@gradients_impl.RegisterGradient("Sign")
def _sign_grad(op, grad):
    # Zero almost everywhere: zeros, not None (as TensorFlow), so that abs has a second derivative.
    return [array_ops.zeros_like(op.inputs[0])]


@gradients_impl.RegisterGradient("Select")
def _select_grad(op, grad):
    c = op.inputs[0]
    zeros = array_ops.zeros(array_ops.shape(grad), dtype=grad.dtype)
    return [None, math_ops.where(c, grad, zeros), math_ops.where(c, zeros, grad)]


@gradients_impl.RegisterGradient("SelectV2")
def _select_v2_grad(op, grad):
    c, t, e = op.inputs
    zero = _scalar(0, grad.dtype)
    gt = math_ops.where_v2(c, grad, zero)
    ge = math_ops.where_v2(c, zero, grad)
    return [None, _sum_to_shape_of(gt, t), _sum_to_shape_of(ge, e)]


@gradients_impl.RegisterGradient("AddN")
def _add_n_grad(op, grad):
    return [grad] * len(op.inputs)


@gradients_impl.RegisterGradient("ClipByValue")
def _clip_by_value_grad(op, grad):
    t, lo, hi = op.inputs
    below = math_ops.less(t, lo)
    above = math_ops.greater(t, hi)
    inside = math_ops.logical_not(math_ops.logical_or(below, above))
    return [
        _select_mask(inside, grad),
        _sum_to_shape_of(_select_mask(below, grad), lo),
        _sum_to_shape_of(_select_mask(above, grad), hi),
    ]


# --- unary ------------------------------------------------------------------


@gradients_impl.RegisterGradient("Neg")
def _neg_grad(op, grad):
    return [math_ops.negative(grad)]


@gradients_impl.RegisterGradient("Abs")
def _abs_grad(op, grad):
    return [grad * math_ops.sign(op.inputs[0])]


@gradients_impl.RegisterGradient("Square")
def _square_grad(op, grad):
    x = op.inputs[0]
    return [grad * (_scalar(2, x.dtype) * _conj(x))]


@gradients_impl.RegisterGradient("Exp")
def _exp_grad(op, grad):
    return [grad * _conj(op.outputs[0])]


@gradients_impl.RegisterGradient("Log")
def _log_grad(op, grad):
    return [grad * math_ops.reciprocal(_conj(op.inputs[0]))]


@gradients_impl.RegisterGradient("Log1p")
def _log1p_grad(op, grad):
    x = _conj(op.inputs[0])
    return [grad * math_ops.reciprocal(_scalar(1, x.dtype) + x)]


def _grad_op(op_type, y, dy):
    return gen_ops.wrapper(op_type)(y, dy)


def _register_unary_via_grad_op(forward, grad_op, conjugate_y=False):
    @gradients_impl.RegisterGradient(forward)
    def _grad(op, grad):
        y = op.outputs[0]
        return [_grad_op(grad_op, _conj(y) if conjugate_y else y, grad)]

    return _grad


# As TensorFlow: the Sqrt/Rsqrt/ReciprocalGrad kernels conjugate complex y themselves, TanhGrad and SigmoidGrad
# are given conj(y).
for _forward in ("Tanh", "Sigmoid"):
    _register_unary_via_grad_op(_forward, _forward + "Grad", conjugate_y=True)
for _forward in ("Sqrt", "Rsqrt", "Reciprocal"):
    _register_unary_via_grad_op(_forward, _forward + "Grad")
_register_unary_via_grad_op("Inv", "ReciprocalGrad")


# Second derivatives: each *Grad op is f(y) * dy. Of complex dtypes, TensorFlow's formulas (math_grad.py), with
# their conjugates.
@gradients_impl.RegisterGradient("TanhGrad")
def _tanh_grad_grad(op, grad):
    y, dy = map(_conj, op.inputs)
    return [grad * dy * _scalar(-2, y.dtype) * y, _grad_op("TanhGrad", y, grad)]


@gradients_impl.RegisterGradient("SigmoidGrad")
def _sigmoid_grad_grad(op, grad):
    y, dy = map(_conj, op.inputs)
    one, two = _scalar(1, y.dtype), _scalar(2, y.dtype)
    return [grad * dy * (one - two * y), _grad_op("SigmoidGrad", y, grad)]


@gradients_impl.RegisterGradient("SqrtGrad")
def _sqrt_grad_grad(op, grad):
    # op: dy * 0.5 / conj(y); its output is z.
    y, z = op.inputs[0], op.outputs[0]
    g_over_y = grad / y
    return [-_conj(g_over_y) * z, _scalar(0.5, y.dtype) * g_over_y]


@gradients_impl.RegisterGradient("RsqrtGrad")
def _rsqrt_grad_grad(op, grad):
    y, dy = op.inputs
    cy, cgrad = _conj(y), _conj(grad)
    return [cgrad * dy * _scalar(-1.5, y.dtype) * cy * cy, _grad_op("RsqrtGrad", cy, grad)]


def _reciprocal_grad_grad(op, grad):
    y, dy = op.inputs
    cy, cgrad = _conj(y), _conj(grad)
    return [cgrad * dy * _scalar(-2, y.dtype) * cy, _grad_op("ReciprocalGrad", cy, grad)]


gradients_impl.RegisterGradient("ReciprocalGrad")(_reciprocal_grad_grad)
gradients_impl.RegisterGradient("InvGrad")(_reciprocal_grad_grad)


# --- reductions -------------------------------------------------------------


def _kept_shape(op):
    """The reduction's output shape with reduced axes kept as 1 (a Tensor or a list)."""
    x, axes = op.inputs
    rank = x.shape.ndims
    if axes.op.type == "Const" and x.shape.is_fully_defined():
        reduced = {int(a) % rank if rank else 0 for a in np.ravel(axes.op.get_attr("value"))}
        return [1 if i in reduced else d for i, d in enumerate(x.shape.as_list())]
    if rank == 0:
        return []
    # TF's reduced_shape: the input's shape with 1 stitched in at the reduced axes. Only int32 shape
    # arithmetic (kept in host memory on a GPU, as TF's kernels of these ops), so that a GPU step
    # never copies a shape to the device and back (and can be captured as one CUDA graph).
    from tensorweave._src.ops import data_flow_ops

    if axes.dtype != dtypes.int32:
        axes = math_ops.cast(axes, dtypes.int32)
    if rank is None:  # all axes of an unknown rank (tf.reduce_sum(x) of a shapeless placeholder)
        rank_t = array_ops.size(array_ops.shape(x))
        # (a scalar has no axes to wrap: the modulus is kept >= 1 so the empty FloorMod does not divide by 0)
        modulus = math_ops.maximum(rank_t, _scalar(1, dtypes.int32))
        axes = array_ops.reshape(math_ops.floormod(axes, modulus), [-1])
        positions = array_ops.range(0, rank_t)
    else:
        axes = array_ops.reshape(math_ops.floormod(axes, _scalar(rank, dtypes.int32)), [-1])
        positions = constant_op.constant(np.arange(rank, dtype=np.int32))
    ones = array_ops.fill(array_ops.shape(axes), _scalar(1, dtypes.int32))
    return data_flow_ops.dynamic_stitch([positions, axes], [array_ops.shape(x), ones])


def _broadcast_to_input(op, grad):
    """grad of the reduction's output, broadcast back to the input's shape."""
    x = op.inputs[0]
    g = array_ops.reshape(grad, _kept_shape(op))
    if x.shape.is_fully_defined() and g.shape.is_fully_defined() and g.shape.as_list() == x.shape.as_list():
        return g
    return g + array_ops.zeros(array_ops.shape(x), dtype=grad.dtype)


@gradients_impl.RegisterGradient("Sum")
def _sum_grad(op, grad):
    return [_broadcast_to_input(op, grad), None]


def _reduced_count(op, dtype):
    x, y = op.inputs[0], op.outputs[0]
    if x.shape.is_fully_defined() and y.shape.is_fully_defined():
        count = max(int(np.prod(x.shape.as_list())), 1) // max(int(np.prod(y.shape.as_list())), 1)
        return _scalar(count, dtype)
    size_x = math_ops.reduce_prod(array_ops.shape(x))
    size_y = math_ops.maximum(math_ops.reduce_prod(array_ops.shape(y)), _scalar(1, dtypes.int32))
    return math_ops.cast(math_ops.floordiv(size_x, size_y), dtype)


@gradients_impl.RegisterGradient("Mean")
def _mean_grad(op, grad):
    g = _broadcast_to_input(op, grad)
    return [math_ops.realdiv(g, _reduced_count(op, g.dtype)), None]


@gradients_impl.RegisterGradient("Prod")
def _prod_grad(op, grad):
    # The product of the other elements of the slice: prod / x where the
    # slice holds no zero; with exactly one zero, the product of the nonzero
    # elements at the zero and 0 elsewhere; with more zeros, 0 everywhere.
    x, axes = op.inputs
    g = _broadcast_to_input(op, grad)
    kept = _kept_shape(op)
    is_zero = math_ops.equal(x, array_ops.zeros_like(x))
    zero_mask = math_ops.cast(is_zero, x.dtype)
    zeros_in_slice = array_ops.reshape(math_ops.reduce_sum(zero_mask, axes), kept)
    nonzero_x = math_ops.where(is_zero, array_ops.ones_like(x), x)
    nonzero_prod = array_ops.reshape(math_ops.reduce_prod(nonzero_x, axes), kept)
    y = array_ops.reshape(op.outputs[0], kept)
    no_zero = math_ops.cast(math_ops.equal(zeros_in_slice, 0.0), x.dtype)
    one_zero = math_ops.cast(math_ops.equal(zeros_in_slice, 1.0), x.dtype)
    others = no_zero * math_ops.realdiv(y, nonzero_x) + one_zero * zero_mask * nonzero_prod
    if x.dtype.is_complex:  # the conjugate derivative, as TensorFlow
        others = gen_ops.wrapper("Conj")(others)
    return [g * others, None]


def _min_or_max_grad(op, grad):
    x = op.inputs[0]
    y = array_ops.reshape(op.outputs[0], _kept_shape(op))
    indicators = math_ops.cast(math_ops.equal(x, y), grad.dtype)
    count = array_ops.reshape(math_ops.reduce_sum(indicators, op.inputs[1], keepdims=False), _kept_shape(op))
    g = array_ops.reshape(grad, _kept_shape(op))
    return [math_ops.realdiv(indicators, count) * g, None]


gradients_impl.RegisterGradient("Max")(_min_or_max_grad)
gradients_impl.RegisterGradient("Min")(_min_or_max_grad)


# --- matrix products ----------------------------------------------------------


@gradients_impl.RegisterGradient("MatMul")
def _matmul_grad(op, grad):
    a, b = (gen_ops.wrapper("Conj")(t) if t.dtype.is_complex else t for t in op.inputs)
    ta, tb = op.get_attr("transpose_a"), op.get_attr("transpose_b")
    if not ta and not tb:
        from tensorweave._src.ops import control_flow_grad

        b_t = control_flow_grad.loop_invariant_transpose(b)  # a weight read in a while loop: transposed once
        grad_a = math_ops.matmul(grad, b, transpose_b=True) if b_t is None else math_ops.matmul(grad, b_t)
        return [grad_a, math_ops.matmul(a, grad, transpose_a=True)]
    if not ta and tb:
        return [math_ops.matmul(grad, b), math_ops.matmul(grad, a, transpose_a=True)]
    if ta and not tb:
        return [math_ops.matmul(b, grad, transpose_b=True), math_ops.matmul(a, grad)]
    return [
        math_ops.matmul(b, grad, transpose_a=True, transpose_b=True),
        math_ops.matmul(grad, a, transpose_a=True, transpose_b=True),
    ]


def _batch_matmul(x, y, adj_x, adj_y):
    return gen_ops.batch_mat_mul_v2(x, y, adj_x=adj_x, adj_y=adj_y)


@gradients_impl.RegisterGradient("BatchMatMulV2")
def _batch_matmul_grad(op, grad):
    x, y = op.inputs
    ax, ay = op.get_attr("adj_x"), op.get_attr("adj_y")
    if not ax and not ay:
        gx, gy = _batch_matmul(grad, y, False, True), _batch_matmul(x, grad, True, False)
    elif not ax and ay:
        gx, gy = _batch_matmul(grad, y, False, False), _batch_matmul(grad, x, True, False)
    elif ax and not ay:
        gx, gy = _batch_matmul(y, grad, False, True), _batch_matmul(x, grad, False, False)
    else:
        gx, gy = _batch_matmul(y, grad, True, True), _batch_matmul(grad, x, True, True)
    # Sum over the batch dims each operand was broadcast along.
    return [_sum_to_shape_of(gx, x), _sum_to_shape_of(gy, y)]


@gradients_impl.RegisterGradient("Cast")
def _cast_grad(op, grad):
    src = op.inputs[0].dtype
    if (src.is_floating or src.is_complex) and (grad.dtype.is_floating or grad.dtype.is_complex):
        return [math_ops.cast(grad, src)]
    return [None]

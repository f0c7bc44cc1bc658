"""Gradients of the tf.math ops in special_math_ops (TensorFlow's formulas, from the same ops)."""

import math

from tensorweave._src.framework import dtypes
from tensorweave._src.ops import array_ops, gen_ops, gradients_impl, math_ops
from tensorweave._src.ops import special_math_ops as sm
from tensorweave._src.ops.math_grad import _binary_result, _conj

_register = gradients_impl.RegisterGradient


def _const(value, like):
    return math_ops.cast(value, like.dtype)


# Of complex x, TensorFlow's conjugate rule: grad * conj(f'(x)) (math_grad.py).


@_register("Sin")
def _sin_grad(op, grad):
    return [grad * math_ops.cast(sm.cos(_conj(op.inputs[0])), grad.dtype)]


@_register("Cos")
def _cos_grad(op, grad):
    return [-grad * sm.sin(_conj(op.inputs[0]))]


@_register("Tan")
def _tan_grad(op, grad):
    secx = math_ops.reciprocal(sm.cos(_conj(op.inputs[0])))
    return [grad * math_ops.square(secx)]


def _inv_sqrt_one_minus_square(x):
    """1 / sqrt(1 - conj(x)^2): the derivative of asin (of acos, negated)."""
    x = _conj(x)
    return math_ops.reciprocal(math_ops.sqrt(_const(1, x) - math_ops.square(x)))


@_register("Asin")
def _asin_grad(op, grad):
    return [grad * _inv_sqrt_one_minus_square(op.inputs[0])]


@_register("Acos")
def _acos_grad(op, grad):
    return [-grad * _inv_sqrt_one_minus_square(op.inputs[0])]


@_register("Atan")
def _atan_grad(op, grad):
    x = _conj(op.inputs[0])
    return [grad * math_ops.reciprocal(_const(1, x) + math_ops.square(x))]


@_register("Sinh")
def _sinh_grad(op, grad):
    return [grad * sm.cosh(_conj(op.inputs[0]))]


@_register("Cosh")
def _cosh_grad(op, grad):
    return [grad * sm.sinh(_conj(op.inputs[0]))]


@_register("Asinh")
def _asinh_grad(op, grad):
    return [grad / sm.cosh(_conj(op.outputs[0]))]


@_register("Acosh")
def _acosh_grad(op, grad):
    return [grad / sm.sinh(_conj(op.outputs[0]))]


@_register("Atanh")
def _atanh_grad(op, grad):
    x = _conj(op.inputs[0])
    return [grad * math_ops.reciprocal(_const(1, x) - math_ops.square(x))]


@_register("Erf")
def _erf_grad(op, grad):
    x = op.inputs[0]
    two_over_root_pi = _const(2 / math.sqrt(math.pi), x)
    return [grad * two_over_root_pi * math_ops.exp(-math_ops.square(x))]


@_register("Erfc")
def _erfc_grad(op, grad):
    x = op.inputs[0]
    minus_two_over_root_pi = _const(-2 / math.sqrt(math.pi), x)
    return [grad * minus_two_over_root_pi * math_ops.exp(-math_ops.square(x))]


@_register("Erfinv")
def _erfinv_grad(op, grad):
    root_pi_over_two = _const(math.sqrt(math.pi) / 2, grad)
    return [grad * root_pi_over_two * math_ops.exp(math_ops.square(op.outputs[0]))]


@_register("Ndtri")
def _ndtri_grad(op, grad):
    root_two_pi = _const(math.sqrt(2 * math.pi), grad)
    return [grad * root_two_pi * math_ops.exp(math_ops.square(op.outputs[0]) / _const(2, grad))]


@_register("Lgamma")
def _lgamma_grad(op, grad):
    return [grad * sm.digamma(op.inputs[0])]


@_register("Digamma")
def _digamma_grad(op, grad):
    x = op.inputs[0]
    return [grad * sm.polygamma(array_ops.ones_like(x), x)]


@_register("Expm1")
def _expm1_grad(op, grad):
    return [grad * math_ops.exp(_conj(op.inputs[0]))]


@_register("Rint")
def _rint_grad(op, grad):
    return [None]  # piecewise constant, as TensorFlow


@_register("BesselI0e")
def _bessel_i0e_grad(op, grad):
    x, y = op.inputs[0], op.outputs[0]
    return [grad * (sm.bessel_i1e(x) - math_ops.sign(x) * y)]


@_register("BesselI1e")
def _bessel_i1e_grad(op, grad):
    # d/dx i1e(x) = i0e(x) - y * (sign(x) + 1/x); 0.5 at x == 0.
    x, y = op.inputs[0], op.outputs[0]
    zero = array_ops.zeros_like(x)
    safe_x = math_ops.where_v2(math_ops.equal(x, zero), array_ops.ones_like(x), x)
    dy_dx = sm.bessel_i0e(safe_x) - y * (math_ops.sign(safe_x) + math_ops.reciprocal(safe_x))
    dy_dx = math_ops.where_v2(math_ops.equal(x, zero), _const(0.5, x) * array_ops.ones_like(x), dy_dx)
    return [grad * dy_dx]


@_register("BesselI0")
def _bessel_i0_grad(op, grad):
    return [grad * sm.bessel_i1(op.inputs[0])]


@_register("BesselI1")
def _bessel_i1_grad(op, grad):
    # d/dx I1(x) = I0(x) - I1(x) / x; 0.5 at x == 0.
    x, y = op.inputs[0], op.outputs[0]
    zero = array_ops.zeros_like(x)
    safe_x = math_ops.where_v2(math_ops.equal(x, zero), array_ops.ones_like(x), x)
    dy_dx = sm.bessel_i0(safe_x) - y / safe_x
    dy_dx = math_ops.where_v2(math_ops.equal(x, zero), _const(0.5, x) * array_ops.ones_like(x), dy_dx)
    return [grad * dy_dx]


@_register("Atan2")
def _atan2_grad(op, grad):
    y, x = op.inputs
    grad_inv = grad / (math_ops.square(x) + math_ops.square(y))
    return _binary_result(op, x * grad_inv, -y * grad_inv)


def _not_zero(x):
    return math_ops.cast(math_ops.not_equal(x, array_ops.zeros([], dtype=x.dtype)), x.dtype)


@_register("Xdivy")
def _xdivy_grad(op, grad):
    x, y = op.inputs
    partial_x = _not_zero(x) / y
    partial_y = sm.xdivy(math_ops.negative(x), math_ops.square(y))
    return _binary_result(op, partial_x * grad, partial_y * grad)


@_register("Xlogy")
def _xlogy_grad(op, grad):
    x, y = op.inputs
    partial_x = _not_zero(x) * math_ops.log(y)
    partial_y = sm.xdivy(x, y)
    return _binary_result(op, partial_x * grad, partial_y * grad)


@_register("Xlog1py")
def _xlog1py_grad(op, grad):
    x, y = op.inputs
    partial_x = _not_zero(x) * math_ops.log1p(y)
    partial_y = sm.xdivy(x, y + _const(1, y))
    return _binary_result(op, partial_x * grad, partial_y * grad)


@_register("DivNoNan")
def _div_no_nan_grad(op, grad):
    x, y = map(_conj, op.inputs)  # as TensorFlow (Xdivy, Xlogy, Xlog1py and MulNoNan do not conjugate)
    gx = sm.div_no_nan(grad, y)
    gy = grad * sm.div_no_nan(sm.div_no_nan(math_ops.negative(x), y), y)
    return _binary_result(op, gx, gy)


@_register("MulNoNan")
def _mul_no_nan_grad(op, grad):
    x, y = op.inputs
    return _binary_result(op, gen_ops.mul_no_nan(grad, y), gen_ops.mul_no_nan(x, grad))


def _igamma_grad_a(a, x):
    """d/da P(a, x). TensorFlow has an IgammaGradA kernel; tensorweave takes a central difference in float64 with a
    step of 1e-4 * a (truncation error ~1e-8 relative, far below float32's precision)."""
    a64, x64 = math_ops.cast(a, dtypes.float64), math_ops.cast(x, dtypes.float64)
    h = a64 * 1e-4
    partial = (sm.igamma(a64 + h, x64) - sm.igamma(a64 - h, x64)) / (2.0 * h)
    return math_ops.cast(partial, a.dtype)


@_register("Igamma")
def _igamma_grad(op, grad):
    # d/dx P(a, x) = exp(-x + (a - 1) log x - lgamma(a)).
    a, x = op.inputs
    partial_x = math_ops.exp(-x + (a - _const(1, a)) * math_ops.log(x) - sm.lgamma(a))
    return _binary_result(op, _igamma_grad_a(a, x) * grad, partial_x * grad)


@_register("Igammac")
def _igammac_grad(op, grad):
    a, x = op.inputs
    partial_x = math_ops.exp(-x + (a - _const(1, a)) * math_ops.log(x) - sm.lgamma(a))
    return _binary_result(op, -_igamma_grad_a(a, x) * grad, -partial_x * grad)


@_register("Zeta")
def _zeta_grad(op, grad):
    # As TensorFlow: no gradient with respect to x.
    x, q = op.inputs
    partial_q = -x * sm.zeta(x + _const(1, x), q)
    return _binary_result(op, None, partial_q * grad)


@_register("Polygamma")
def _polygamma_grad(op, grad):
    # As TensorFlow: no gradient with respect to the order a.
    n, x = op.inputs
    partial_x = sm.polygamma(n + _const(1, n), x)
    return _binary_result(op, None, partial_x * grad)


@_register("Betainc")
def _betainc_grad(op, grad):
    # As TensorFlow: the gradient with respect to x only,
    # x^(a-1) (1-x)^(b-1) / B(a, b).
    a, b, x = op.inputs
    log_beta = sm.lgamma(a) + sm.lgamma(b) - sm.lgamma(a + b)
    one = _const(1, x)
    partial_x = math_ops.exp((b - one) * math_ops.log1p(-x) + sm.xlogy(a - one, x) - log_beta)
    gx = partial_x * grad
    if x.shape.is_fully_defined() and gx.shape.is_fully_defined() and x.shape.as_list() != gx.shape.as_list():
        gx = math_ops.reduce_sum(gx)  # a scalar x under tensor a, b
    return [None, None, gx]


def _scan_attrs(op):
    return op.get_attr("exclusive"), op.get_attr("reverse")


@_register("Cumsum")
def _cumsum_grad(op, grad):
    exclusive, reverse = _scan_attrs(op)
    return [sm.cumsum(grad, op.inputs[1], exclusive=exclusive, reverse=not reverse), None]


@_register("Cumprod")
def _cumprod_grad(op, grad):
    # As TensorFlow: divides by x, so zeros in x give NaN/inf gradients.
    x, axis = op.inputs
    exclusive, reverse = _scan_attrs(op)
    prod = sm.cumprod(x, axis, exclusive=exclusive, reverse=reverse)
    out = sm.cumsum(prod * grad, axis, exclusive=exclusive, reverse=not reverse)
    return [out / x, None]


@_register("CumulativeLogsumexp")
def _cumulative_logsumexp_grad(op, grad):
    x, axis = op.inputs
    exclusive, reverse = _scan_attrs(op)
    lowest = _const(dtypes.as_dtype(grad.dtype).min, grad)
    log_grad_positive = math_ops.where_v2(math_ops.greater(grad, 0), math_ops.log(grad), lowest)
    log_grad_negative = math_ops.where_v2(math_ops.less(grad, 0), math_ops.log(-grad), lowest)
    output_pos = math_ops.exp(
        sm.cumulative_logsumexp(log_grad_positive - op.outputs[0], axis, exclusive=exclusive, reverse=not reverse) + x
    )
    output_neg = math_ops.exp(
        sm.cumulative_logsumexp(log_grad_negative - op.outputs[0], axis, exclusive=exclusive, reverse=not reverse) + x
    )
    return [output_pos - output_neg, None]


for _op_type in ("IsNan", "IsInf", "IsFinite", "TruncateDiv", "TruncateMod", "NextAfter"):
    gradients_impl.NotDifferentiable(_op_type)

# Random draws: no gradient here. (TensorFlow differentiates RandomGamma's samples with respect to alpha through
# its RandomGammaGrad kernel, which tensorweave does not have; RandomPoissonV2 is not differentiable there either.)
for _op_type in (
    "RandomGamma",
    "RandomPoissonV2",
    "StatelessRandomUniform",
    "StatelessRandomNormal",
    "StatelessTruncatedNormal",
    "StatelessRandomUniformInt",
    "StatelessMultinomial",
    "StatelessRandomGammaV2",
    "StatelessRandomPoisson",
):
    gradients_impl.NotDifferentiable(_op_type)

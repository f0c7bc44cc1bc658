"""Element-wise math of complex64/complex128 tensors: values against numpy and TensorFlow 1 graph mode,
gradients against TensorFlow's tf.gradients (its conjugate rule) and against central differences, and the
ops TensorFlow rejects for complex dtypes rejected here with the same error class.

The finite-difference oracle: for a real loss L = sum(Re(conj(g) * f(x))), TensorFlow's gradient of f at x
with incoming gradient g is dL/dRe(x) + 1j * dL/dIm(x) (for holomorphic element-wise f: g * conj(f'(x))).
"""

import numpy as np
import pytest
import tensorweave as tw

try:
    import tensorflow as tf

    tf1 = tf.compat.v1
except ImportError:  # the numpy and finite-difference oracles still run
    tf = tf1 = None

needs_tf = pytest.mark.skipif(tf is None, reason="TensorFlow is not installed")

COMPLEX = [np.complex64, np.complex128]

# Points off every branch cut (|imag| >= 0.25) and away from the poles of tan and atanh.
_RE = np.array([-1.3, -0.6, 0.0, 0.4, 1.2])
_IM = np.array([-0.7, -0.25, 0.3, 0.8])
GRID = (_RE[:, None] + 1j * _IM[None, :]).ravel()


def _points(dtype, seed=0):
    return GRID.astype(dtype).reshape(4, 5)


def _rand_complex(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)).astype(dtype)


def _tol(dtype):
    return {"rtol": 3e-6, "atol": 1e-6} if dtype == np.complex64 else {"rtol": 1e-12, "atol": 1e-14}


def _sign(x):
    mag = np.abs(x)
    return np.where(mag == 0, 0, x / np.where(mag == 0, 1, mag))


def _tf_inv(x):
    return tf.raw_ops.Inv(x=x)


def _tw_inv(x):
    return tw.raw_ops.Inv(x=x)


# name: (tensorweave function, TensorFlow 1 function (given the module), numpy function).
UNARY = {
    "exp": (tw.exp, lambda: tf1.exp, np.exp),
    "expm1": (tw.math.expm1, lambda: tf1.math.expm1, np.expm1),
    "log": (tw.log, lambda: tf1.log, np.log),
    "log1p": (tw.log1p, lambda: tf1.log1p, np.log1p),
    "sin": (tw.sin, lambda: tf1.sin, np.sin),
    "cos": (tw.cos, lambda: tf1.cos, np.cos),
    "tan": (tw.tan, lambda: tf1.tan, np.tan),
    "asin": (tw.asin, lambda: tf1.asin, np.arcsin),
    "acos": (tw.acos, lambda: tf1.acos, np.arccos),
    "atan": (tw.atan, lambda: tf1.atan, np.arctan),
    "sinh": (tw.sinh, lambda: tf1.sinh, np.sinh),
    "cosh": (tw.cosh, lambda: tf1.cosh, np.cosh),
    "tanh": (tw.tanh, lambda: tf1.tanh, np.tanh),
    "asinh": (tw.asinh, lambda: tf1.asinh, np.arcsinh),
    "acosh": (tw.acosh, lambda: tf1.acosh, np.arccosh),
    "atanh": (tw.atanh, lambda: tf1.atanh, np.arctanh),
    "sqrt": (tw.sqrt, lambda: tf1.sqrt, np.sqrt),
    "rsqrt": (tw.math.rsqrt, lambda: tf1.math.rsqrt, lambda x: 1 / np.sqrt(x)),
    "square": (tw.square, lambda: tf1.square, np.square),
    "reciprocal": (tw.math.reciprocal, lambda: tf1.math.reciprocal, np.reciprocal),
    "inv": (_tw_inv, lambda: _tf_inv, np.reciprocal),
    "sigmoid": (tw.sigmoid, lambda: tf1.sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    "neg": (tw.negative, lambda: tf1.negative, np.negative),
    "sign": (tw.sign, lambda: tf1.sign, _sign),
    "abs": (tw.abs, lambda: tf1.abs, np.abs),
}


def _run_tw(fn, *values):
    with tw.Graph().as_default(), tw.Session() as sess:
        out = fn(*[tw.constant(v) for v in values])
        return out, sess.run(out)


def _run_tf(fn, *values):
    with tf.Graph().as_default(), tf1.Session() as sess:
        out = fn(*[tf.constant(v) for v in values])
        return out, sess.run(out)


def _real_dtype(dtype):
    return np.float32 if dtype == np.complex64 else np.float64


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_values_match_numpy(name, dtype):
    tw_fn, _, np_fn = UNARY[name]
    x = _points(dtype)
    out, got = _run_tw(tw_fn, x)
    want_dtype = _real_dtype(dtype) if name == "abs" else dtype
    assert got.dtype == want_dtype and out.dtype == tw.as_dtype(want_dtype)
    assert out.shape.as_list() == [4, 5]
    np.testing.assert_allclose(got, np_fn(x.astype(np.complex128)), **_tol(dtype))


@needs_tf
@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_values_match_tensorflow(name, dtype):
    tw_fn, tf_fn, _ = UNARY[name]
    x = _points(dtype)
    _, got = _run_tw(tw_fn, x)
    _, want = _run_tf(tf_fn(), x)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, **_tol(dtype))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_sign_of_zero_is_zero_and_of_the_rest_unit_modulus(dtype):
    x = np.array([0, 3 - 4j, -2j, 1e-30 + 0j], dtype)
    _, got = _run_tw(tw.sign, x)
    np.testing.assert_allclose(got, [0, 0.6 - 0.8j, -1j, 1], **_tol(dtype))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_expm1_and_log1p_are_accurate_near_zero(dtype):
    # exp(x) - 1 and log(1 + x) would lose every digit here; the series are exact to rounding.
    x = np.array([1e-9 + 2e-9j, -3e-8 + 1e-10j, 2e-12 - 5e-12j], dtype)
    z = x.astype(np.complex128)
    _, e = _run_tw(tw.math.expm1, x)
    np.testing.assert_allclose(e, z + z**2 / 2 + z**3 / 6, rtol=_tol(dtype)["rtol"], atol=0)
    # Eigen's complex log1p (TensorFlow's, bit for bit) keeps ~9 digits of the real part here; log(1 + x) none.
    _, lg = _run_tw(tw.log1p, x)
    np.testing.assert_allclose(lg, z - z**2 / 2 + z**3 / 3, rtol=max(_tol(dtype)["rtol"], 1e-8), atol=0)


# --- gradients ----------------------------------------------------------------------------------------------


def _fd_grad(np_fn, x, g, h=1e-6):
    """dL/dRe(x) + 1j dL/dIm(x) of L = sum(Re(conj(g) * f(x))), by central differences, element by element."""

    def loss(z):
        return np.sum(np.real(np.conj(g) * np_fn(z)))

    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = h
        d_re = (loss(x + step) - loss(x - step)) / (2 * h)
        d_im = (loss(x + 1j * step) - loss(x - 1j * step)) / (2 * h)
        grad[i] = d_re + 1j * d_im
    return grad


def _tw_grad(fn, xs, g):
    with tw.Graph().as_default(), tw.Session() as sess:
        ts = [tw.constant(v) for v in xs]
        return sess.run(tw.gradients(fn(*ts), ts, grad_ys=tw.constant(g)))


def _tf_grad(fn, xs, g):
    with tf.Graph().as_default(), tf1.Session() as sess:
        ts = [tf.constant(v) for v in xs]
        return sess.run(tf1.gradients(fn(*ts), ts, grad_ys=tf.constant(g)))


DIFFERENTIABLE = sorted(UNARY)


def _incoming(name, x, seed):
    """The incoming gradient: complex, or real for abs (its output is real)."""
    g = _rand_complex(x.shape, x.dtype, seed)
    return np.real(g).astype(_real_dtype(x.dtype)) if name == "abs" else g


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_unary_gradient_matches_finite_differences(name):
    tw_fn, _, np_fn = UNARY[name]
    x = _points(np.complex128)
    g = _incoming(name, x, seed=1)
    (got,) = _tw_grad(tw_fn, [x], g)
    assert got.dtype == np.complex128
    np.testing.assert_allclose(got, _fd_grad(np_fn, x, g), rtol=1e-6, atol=1e-8)


@needs_tf
@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_gradient_matches_tensorflow(name, dtype):
    tw_fn, tf_fn, _ = UNARY[name]
    x = _points(dtype)
    g = _incoming(name, x, seed=2)
    (got,) = _tw_grad(tw_fn, [x], g)
    (want,) = _tf_grad(tf_fn(), [x], g)
    assert got.dtype == want.dtype == dtype
    np.testing.assert_allclose(got, want, **_tol(dtype))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_sign_op_gradient_is_zero(dtype):
    # The Sign op's own gradient (TensorFlow's convention); tw.sign of a complex tensor is x / |x| built from
    # DivNoNan and ComplexAbs, as TensorFlow's tf.sign, and differentiates through them (above).
    x = _points(dtype)
    (got,) = _tw_grad(lambda t: _raw("Sign", t), [x], _rand_complex(x.shape, dtype, 3))
    np.testing.assert_array_equal(got, np.zeros_like(x))


# Second derivatives through the *Grad ops (TensorFlow's formulas, conjugates included).
SECOND_ORDER = ["tanh", "sigmoid", "sqrt", "rsqrt", "reciprocal", "inv"]


@needs_tf
@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", SECOND_ORDER)
def test_second_derivative_matches_tensorflow(name, dtype):
    tw_fn, tf_fn, _ = UNARY[name]
    x = _points(dtype)
    g = _rand_complex(x.shape, dtype, 4)
    h = _rand_complex(x.shape, dtype, 5)

    def run(lib, session, fn, gradients):
        with lib.Graph().as_default(), session() as sess:
            tx, tg = lib.constant(x), lib.constant(g)
            (first,) = gradients(fn(tx), [tx], grad_ys=tg)
            return sess.run(gradients(first, [tx, tg], grad_ys=lib.constant(h)))

    got = run(tw, tw.Session, tw_fn, tw.gradients)
    want = run(tf, tf1.Session, tf_fn(), tf1.gradients)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, **_tol(dtype))


def _raw(op_type, *inputs):
    """The op `op_type` itself (the *Grad ops have no public function)."""
    return tw.get_default_graph()._create_op(op_type, list(inputs)).outputs[0]


# The *Grad ops of (y, dy) as TensorFlow's kernels compute them: Sqrt/Rsqrt/Reciprocal/InvGrad conjugate the
# derivative, TanhGrad and SigmoidGrad do not (their gradient functions pass conj(y)).
GRAD_OPS = {
    "TanhGrad": lambda y, dy: dy * (1 - y * y),
    "SigmoidGrad": lambda y, dy: dy * y * (1 - y),
    "SqrtGrad": lambda y, dy: dy * 0.5 / np.conj(y),
    "RsqrtGrad": lambda y, dy: dy * np.conj(-0.5 * y**3),
    "ReciprocalGrad": lambda y, dy: -dy * np.conj(y * y),
    "InvGrad": lambda y, dy: -dy * np.conj(y * y),
}


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("op_type", sorted(GRAD_OPS))
def test_grad_ops_of_complex_values(op_type, dtype):
    y = _points(dtype)
    dy = _rand_complex(y.shape, dtype, 8)
    _, got = _run_tw(lambda a, b: _raw(op_type, a, b), y, dy)
    np.testing.assert_allclose(got, GRAD_OPS[op_type](y.astype(np.complex128), dy), **_tol(dtype))
    if tf is not None:
        _, want = _run_tf(lambda a, b: getattr(tf.raw_ops, op_type)(y=a, dy=b), y, dy)
        np.testing.assert_allclose(got, want, **_tol(dtype))


# --- binary ops -----------------------------------------------------------------------------------------------


def _xlogy(x, y):
    return np.where(x == 0, 0, x * np.log(y))


def _xdivy(x, y):
    return np.where(x == 0, 0, x / np.where(x == 0, 1, y))


def _xlog1py(x, y):
    return np.where(x == 0, 0, x * np.log1p(y))


def _div_no_nan(x, y):
    return np.where(y == 0, 0, x / np.where(y == 0, 1, y))


def _mul_no_nan(x, y):
    return np.where(y == 0, 0, x * y)


# name: (tensorweave function, TensorFlow 1 function, numpy function, whether TF's gradient conjugates).
BINARY = {
    "add": (tw.add, lambda: tf1.add, np.add, True),
    "sub": (tw.subtract, lambda: tf1.subtract, np.subtract, True),
    "mul": (tw.multiply, lambda: tf1.multiply, np.multiply, True),
    "div": (tw.div, lambda: tf1.div, np.divide, True),
    "truediv": (tw.truediv, lambda: tf1.truediv, np.divide, True),
    "pow": (tw.pow, lambda: tf1.pow, np.power, True),
    "div_no_nan": (tw.div_no_nan, lambda: tf1.div_no_nan, _div_no_nan, True),
    "squared_difference": (
        tw.math.squared_difference,
        lambda: tf1.math.squared_difference,
        lambda x, y: np.abs(x - y) ** 2 + 0j,
        True,
    ),
    # TensorFlow's gradients of these do not conjugate (math_grad.py): matched, not corrected.
    "xlogy": (tw.math.xlogy, lambda: tf1.math.xlogy, _xlogy, False),
    "xdivy": (tw.math.xdivy, lambda: tf1.math.xdivy, _xdivy, False),
    "xlog1py": (tw.math.xlog1py, lambda: tf1.math.xlog1py, _xlog1py, False),
    "multiply_no_nan": (tw.math.multiply_no_nan, lambda: tf1.math.multiply_no_nan, _mul_no_nan, False),
}


def _binary_inputs(name, dtype):
    x = _points(dtype)
    y = _points(dtype)[::-1, ::-1] * np.array(0.7 - 0.2j, dtype)
    # Exact zeros where the safe ops decide by them (x of xlogy/xdivy, y of the no-nan ones). A complex zero
    # divisor is left out of the others: C++'s complex division gives inf there, numpy's and TensorFlow's
    # (Eigen's) nan.
    x[0, 2] = 0
    y[1, 2] = 0 if name in ("div_no_nan", "multiply_no_nan", "add", "sub", "mul", "squared_difference") else 1
    if name == "pow":
        x[0, 2] = 1  # 0 ** y is exp(y * log(0)): no value to compare
    return x, y


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_values_match_numpy(name, dtype):
    tw_fn, _, np_fn, _ = BINARY[name]
    x, y = _binary_inputs(name, dtype)
    out, got = _run_tw(tw_fn, x, y)
    assert got.dtype == dtype and out.shape.as_list() == [4, 5]
    with np.errstate(all="ignore"):
        want = np_fn(x.astype(np.complex128), y.astype(np.complex128))
    np.testing.assert_allclose(got, want, **_tol(dtype))


@needs_tf
@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_values_match_tensorflow(name, dtype):
    tw_fn, tf_fn, _, _ = BINARY[name]
    x, y = _binary_inputs(name, dtype)
    _, got = _run_tw(tw_fn, x, y)
    _, want = _run_tf(tf_fn(), x, y)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, **_tol(dtype))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_equal_and_not_equal_compare_both_parts(dtype):
    x = np.array([1 + 2j, 1 + 2j, 1 - 2j, 0j], dtype)
    y = np.array([1 + 2j, 1 + 3j, 1 + 2j, -0.0 + 0j], dtype)
    _, eq = _run_tw(tw.equal, x, y)
    _, ne = _run_tw(tw.not_equal, x, y)
    np.testing.assert_array_equal(eq, [True, False, False, True])
    np.testing.assert_array_equal(ne, ~eq)


def _binary_grad_inputs(name):
    x = _points(np.complex128) * 0.8
    y = _points(np.complex128)[::-1, ::-1] + (0.5 + 0.1j)
    g = _rand_complex(x.shape, np.complex128, 6)
    if name == "squared_difference":
        # |x - y|^2 is real and not holomorphic: TensorFlow's 2 * g * (x - y) is dL/dRe + i dL/dIm for a real g.
        g = np.real(g) + 0j
    return x, y, g


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_gradient_matches_finite_differences(name):
    tw_fn, _, np_fn, conjugates = BINARY[name]
    x, y, g = _binary_grad_inputs(name)
    got_x, got_y = _tw_grad(tw_fn, [x, y], g)
    if conjugates:
        want_x = _fd_grad(lambda z: np_fn(z, y), x, g)
        want_y = _fd_grad(lambda z: np_fn(x, z), y, g)
    else:  # g * df/dx = conj(conj(g) * conj(df/dx))
        want_x = np.conj(_fd_grad(lambda z: np_fn(z, y), x, np.conj(g)))
        want_y = np.conj(_fd_grad(lambda z: np_fn(x, z), y, np.conj(g)))
    np.testing.assert_allclose(got_x, want_x, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got_y, want_y, rtol=1e-6, atol=1e-8)


@needs_tf
@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_gradient_matches_tensorflow(name, dtype):
    tw_fn, tf_fn, _, _ = BINARY[name]
    x, y, g = (v.astype(dtype) for v in _binary_grad_inputs(name))
    got = _tw_grad(tw_fn, [x, y], g)
    want = _tf_grad(tf_fn(), [x, y], g)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, **_tol(dtype))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_binary_gradient_sums_over_broadcast_axes(dtype):
    x = _points(dtype)
    y = np.array([0.5 + 0.5j, -1 + 0.2j, 0.3 - 0.9j, 2j, 1.5 + 0j], dtype)
    g = _rand_complex(x.shape, dtype, 7)
    got_x, got_y = _tw_grad(tw.div_no_nan, [x, y], g)
    xd, yd, gd = (v.astype(np.complex128) for v in (x, y, g))
    np.testing.assert_allclose(got_x, gd / np.conj(yd), **_tol(dtype))
    np.testing.assert_allclose(got_y, np.sum(gd * np.conj(-xd / yd**2), axis=0), **_tol(dtype))


# --- what TensorFlow rejects for complex dtypes ------------------------------------------------------------------

# name: (tensorweave function, TensorFlow 1 function, arity, the error class both raise). TypeError: the op's
# type list has no complex dtype (raised as the graph is built); InvalidArgumentError: it has, but no CPU
# kernel does (raised when the session runs it).
REJECTED = {
    "floor": (lambda: tw.floor, lambda: tf1.floor, 1, "TypeError"),
    "ceil": (lambda: tw.ceil, lambda: tf1.ceil, 1, "TypeError"),
    "rint": (lambda: tw.math.rint, lambda: tf1.math.rint, 1, "TypeError"),
    "erf": (lambda: tw.math.erf, lambda: tf1.math.erf, 1, "TypeError"),
    "lgamma": (lambda: tw.math.lgamma, lambda: tf1.math.lgamma, 1, "TypeError"),
    "is_nan": (lambda: tw.math.is_nan, lambda: tf1.math.is_nan, 1, "TypeError"),
    "abs_op": (lambda: lambda x: tw.raw_ops.Abs(x=x), lambda: lambda x: tf.raw_ops.Abs(x=x), 1, "TypeError"),
    "atan2": (lambda: tw.math.atan2, lambda: tf1.math.atan2, 2, "TypeError"),
    "maximum": (lambda: tw.maximum, lambda: tf1.maximum, 2, "TypeError"),
    "minimum": (lambda: tw.minimum, lambda: tf1.minimum, 2, "TypeError"),
    "floormod": (lambda: tw.math.floormod, lambda: tf1.math.floormod, 2, "TypeError"),
    "less": (lambda: tw.less, lambda: tf1.less, 2, "TypeError"),
    "round": (lambda: tw.round, lambda: tf1.round, 1, "InvalidArgumentError"),
    "floordiv": (lambda: tw.math.floordiv, lambda: tf1.math.floordiv, 2, "InvalidArgumentError"),
}


def _error_class(lib, session, fn, arity, x):
    with lib.Graph().as_default():
        try:
            out = fn(*[lib.constant(x)] * arity)
            with session() as sess:
                sess.run(out)
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            return type(e).__name__, str(e)
    return None, None


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", sorted(REJECTED))
def test_rejected_for_complex_with_tensorflows_error_class(name, dtype):
    tw_fn, tf_fn, arity, expected = REJECTED[name]
    x = _points(dtype)[0]
    got, message = _error_class(tw, tw.Session, tw_fn(), arity, x)
    assert got == expected, message
    assert tw.as_dtype(dtype).name in message
    if tf is not None:
        assert _error_class(tf, tf1.Session, tf_fn(), arity, x)[0] == expected


# --- other ops TensorFlow's CPU kernels have for complex dtypes ---------------------------------------------------

_BIAS = np.array([0.5 - 1j, -2 + 0.25j, 1j, 3 + 0j, -0.5 - 0.5j], np.complex128)

# name: (tensorweave function, TensorFlow 1 function, numpy function) of one [4, 5] complex tensor.
OTHER = {
    "bias_add": (
        lambda x: tw.nn.bias_add(x, tw.constant(_BIAS.astype(x.dtype.as_numpy_dtype))),
        lambda: lambda x: tf1.nn.bias_add(x, tf.constant(_BIAS.astype(x.dtype.as_numpy_dtype))),
        lambda x: x + _BIAS,
    ),
    "cumsum": (lambda x: tw.cumsum(x, 1), lambda: lambda x: tf1.cumsum(x, 1), lambda x: np.cumsum(x, 1)),
    "cumsum_exclusive_reverse": (
        lambda x: tw.cumsum(x, 0, exclusive=True, reverse=True),
        lambda: lambda x: tf1.cumsum(x, 0, exclusive=True, reverse=True),
        lambda x: np.cumsum(x[::-1], 0)[::-1] - x,
    ),
    "cumprod": (lambda x: tw.cumprod(x, 1), lambda: lambda x: tf1.cumprod(x, 1), lambda x: np.cumprod(x, 1)),
    "adjoint": (tw.linalg.adjoint, lambda: tf1.linalg.adjoint, lambda x: np.conj(x.T)),
}


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", sorted(OTHER))
def test_other_ops_values(name, dtype):
    tw_fn, tf_fn, np_fn = OTHER[name]
    x = _points(dtype)
    _, got = _run_tw(tw_fn, x)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, np_fn(x.astype(np.complex128)), **_tol(dtype))
    if tf is not None:
        _, want = _run_tf(tf_fn(), x)
        np.testing.assert_allclose(got, want, **_tol(dtype))


@pytest.mark.parametrize("name", ["bias_add", "cumsum", "adjoint"])
def test_other_ops_gradients(name):
    # Linear maps: the gradient is the adjoint map applied to g, which central differences see exactly.
    tw_fn, tf_fn, np_fn = OTHER[name]
    x = _points(np.complex128)
    g = _rand_complex(np_fn(x).shape, np.complex128, 9)
    (got,) = _tw_grad(tw_fn, [x], g)
    np.testing.assert_allclose(got, _fd_grad(np_fn, x, g), rtol=1e-6, atol=1e-8)
    if tf is not None:
        (want,) = _tf_grad(tf_fn(), [x], g)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)

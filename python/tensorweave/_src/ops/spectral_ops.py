"""Complex-number ops (tf.complex, tf.real, tf.imag, tf.conj, tf.angle, tf.abs of complex) and the FFT family
(tf.signal / tf.spectral: fft, ifft, fft2d, ifft2d, fft3d, ifft3d, rfft, irfft and their 2-D and 3-D forms),
with their gradients as TensorFlow 1 registers them (for a real loss, the gradient w.r.t. a complex z is
dL/dRe(z) + i dL/dIm(z))."""

import numpy as np

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import constant_op
from tensorweave._src.ops import gen_ops
from tensorweave._src.ops import gradients_impl
from tensorweave._src.ops import math_ops

_COMPLEX_OF = {dtypes.float32: dtypes.complex64, dtypes.float64: dtypes.complex128}


def _scoped(op_type, name, fn):
    graph = ops.get_default_graph()
    with graph.name_scope(name or op_type) as scope:
        return fn(scope)


def complex(real, imag, name=None):  # noqa: A001 - TensorFlow's name
    """real + imag * 1j element-wise (float32 -> complex64, float64 -> complex128).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.complex([1.0], [2.0])))
      [1.+2.j]
    """

    def build(scope):
        re = ops.convert_to_tensor(real, name="real")
        im = ops.convert_to_tensor(imag, name="imag")
        if re.dtype != im.dtype or re.dtype not in _COMPLEX_OF:
            raise TypeError(
                f"The `real` and `imag` components have incorrect types: {re.dtype.name} {im.dtype.name}. They must "
                "be consistent, and one of [tf.float32, tf.float64]"
            )
        return gen_ops.wrapper("Complex")(re, im, Tout=_COMPLEX_OF[re.dtype], name=scope)

    return _scoped("Complex", name, build)


def _part(op_type, x, name, fallback):
    def build(scope):
        t = ops.convert_to_tensor(x, name="input")
        if t.dtype.is_complex:
            return gen_ops.wrapper(op_type)(t, Tout=t.dtype.real_dtype, name=scope)
        if not (t.dtype.is_floating or t.dtype.is_integer):
            raise TypeError(f"{op_type} of a tensor of dtype {t.dtype.name}: expected a numeric tensor")
        return fallback(t)

    return _scoped(op_type, name, build)


def real(input, name=None):  # noqa: A002
    """The real part of a complex tensor (a real tensor is returned as it is)."""
    return _part("Real", input, name, lambda t: t)


def imag(input, name=None):  # noqa: A002
    """The imaginary part of a complex tensor (zeros for a real tensor)."""
    return _part("Imag", input, name, lambda t: array_ops.zeros_like(t))


def angle(input, name=None):  # noqa: A002
    """The argument of each element (for a real tensor: pi where it is negative, else 0)."""

    def real_angle(t):
        pi = constant_op.constant(np.pi, dtype=t.dtype)
        return math_ops.where(math_ops.less(t, 0), array_ops.ones_like(t) * pi, array_ops.zeros_like(t))

    return _part("Angle", input, name, real_angle)


def conj(x, name=None):
    """The complex conjugate (a real tensor is returned as it is)."""

    def build(scope):
        t = ops.convert_to_tensor(x, name="input")
        if t.dtype.is_complex:
            return gen_ops.wrapper("Conj")(t, name=scope)
        if t.dtype.is_floating or t.dtype.is_integer:
            return t
        raise TypeError(f"Expected numeric or variant tensor, got dtype {t.dtype.name}")

    return _scoped("Conj", name, build)


def complex_abs(x, name=None):
    """|x| of a complex tensor, of its real dtype (op ComplexAbs)."""
    return _scoped(
        "ComplexAbs", name, lambda scope: gen_ops.wrapper("ComplexAbs")(x, Tout=x.dtype.real_dtype, name=scope)
    )


# --- FFT ---------------------------------------------------------------------------------------------------


def _fft(op_type):
    def fn(input, name=None):  # noqa: A002
        def build(scope):
            t = ops.convert_to_tensor(input, name="input")
            return gen_ops.wrapper(op_type)(t, name=scope)

        return _scoped(op_type, name, build)

    fn.__name__ = op_type.lower()
    fn.__doc__ = f"TensorFlow's tf.signal.{op_type.lower()} (op {op_type}) over the innermost dims of a complex tensor."
    return fn


fft, ifft = _fft("FFT"), _fft("IFFT")
fft2d, ifft2d = _fft("FFT2D"), _fft("IFFT2D")
fft3d, ifft3d = _fft("FFT3D"), _fft("IFFT3D")


def _static_inner(t, rank):
    dims = t.shape.as_list() if t.shape.dims is not None else None
    if dims is None or len(dims) < rank or any(d is None for d in dims[-rank:]):
        return None
    return dims[-rank:]


def _rfft(op_type, rank):
    def fn(input_tensor, fft_length=None, name=None):
        def build(scope):
            t = ops.convert_to_tensor(input_tensor, name="input_tensor", dtype=_real_input_dtype(input_tensor))
            if t.dtype not in _COMPLEX_OF:
                raise TypeError(f"{op_type}: input must be float32 or float64, got {t.dtype.name}")
            length = fft_length
            if length is None:
                length = _static_inner(t, rank)
                if length is None:
                    length = array_ops.shape(t)[-rank:]
            length = ops.convert_to_tensor(length, dtype=dtypes.int32, name="fft_length")
            return gen_ops.wrapper(op_type)(t, length, Tcomplex=_COMPLEX_OF[t.dtype], name=scope)

        return _scoped(op_type, name, build)

    fn.__name__ = op_type.lower()
    fn.__doc__ = f"TensorFlow's tf.signal.{op_type.lower()} (op {op_type}): the DFT of a real signal."
    return fn


def _real_input_dtype(value):
    if isinstance(value, ops.Tensor):
        return None
    return dtypes.float32


def _irfft(op_type, rank):
    def fn(input_tensor, fft_length=None, name=None):
        def build(scope):
            t = ops.convert_to_tensor(input_tensor, name="input_tensor", dtype=_complex_input_dtype(input_tensor))
            if not t.dtype.is_complex:
                raise TypeError(f"{op_type}: input must be complex64 or complex128, got {t.dtype.name}")
            length = fft_length
            if length is None:
                inner = _static_inner(t, rank)
                if inner is not None:
                    length = inner[:-1] + [max(0, 2 * (inner[-1] - 1))]  # an empty input: 0, as TF
                else:
                    shape = array_ops.shape(t)[-rank:]
                    last = math_ops.maximum(0, 2 * (shape[-1:] - 1))
                    length = array_ops.concat([shape[:-1], last], 0)
            length = ops.convert_to_tensor(length, dtype=dtypes.int32, name="fft_length")
            return gen_ops.wrapper(op_type)(t, length, Treal=t.dtype.real_dtype, name=scope)

        return _scoped(op_type, name, build)

    fn.__name__ = op_type.lower()
    fn.__doc__ = f"TensorFlow's tf.signal.{op_type.lower()} (op {op_type}): the inverse of the real DFT."
    return fn


def _complex_input_dtype(value):
    if isinstance(value, ops.Tensor):
        return None
    return dtypes.complex64


rfft, irfft = _rfft("RFFT", 1), _irfft("IRFFT", 1)
rfft2d, irfft2d = _rfft("RFFT2D", 2), _irfft("IRFFT2D", 2)
rfft3d, irfft3d = _rfft("RFFT3D", 3), _irfft("IRFFT3D", 3)


# --- gradients ---------------------------------------------------------------------------------------------


def _sum_to(grad, x):
    from tensorweave._src.ops import math_grad

    return math_grad._sum_to_shape_of(grad, x)


@gradients_impl.RegisterGradient("Complex")
def _complex_grad(op, grad):
    x, y = op.inputs
    return [_sum_to(real(grad), x), _sum_to(imag(grad), y)]


@gradients_impl.RegisterGradient("Real")
def _real_grad(op, grad):
    return [complex(grad, array_ops.zeros_like(grad))]


@gradients_impl.RegisterGradient("Imag")
def _imag_grad(op, grad):
    return [complex(array_ops.zeros_like(grad), grad)]


@gradients_impl.RegisterGradient("Conj")
def _conj_grad(op, grad):
    return [conj(grad)]


@gradients_impl.RegisterGradient("ComplexAbs")
def _complex_abs_grad(op, grad):
    # grad * x / |x|, 0 where x == 0 (TensorFlow: div_no_nan).
    x, y = op.inputs[0], op.outputs[0]
    safe = y + math_ops.cast(math_ops.equal(y, 0), y.dtype)
    return [x * complex(grad / safe, array_ops.zeros_like(grad))]


@gradients_impl.RegisterGradient("Angle")
def _angle_grad(op, grad):
    x = op.inputs[0]
    z = math_ops.reciprocal(complex(imag(x), real(x)))
    return [-complex(grad, array_ops.zeros_like(grad)) * z]


def _inner_size(t, rank, dtype):
    """The product of t's last `rank` dims as a complex scalar of `dtype`."""
    inner = _static_inner(t, rank)
    if inner is not None:
        return constant_op.constant(float(np.prod(inner)), dtype=dtype)
    n = math_ops.cast(math_ops.reduce_prod(array_ops.shape(t)[-rank:]), dtype.real_dtype)
    return complex(n, array_ops.zeros_like(n))


def _register_fft_grads(forward, inverse, rank):
    @gradients_impl.RegisterGradient(forward.__name__.upper())
    def _forward_grad(op, grad):
        return [inverse(grad) * _inner_size(grad, rank, grad.dtype)]

    @gradients_impl.RegisterGradient(inverse.__name__.upper())
    def _inverse_grad(op, grad):
        return [forward(grad) / _inner_size(grad, rank, grad.dtype)]


_register_fft_grads(fft, ifft, 1)
_register_fft_grads(fft2d, ifft2d, 2)
_register_fft_grads(fft3d, ifft3d, 3)


def _const_fft_length(op, what):
    value = array_ops.constant_value(op.inputs[1])
    if value is None:
        raise NotImplementedError(f"The gradient of {what} needs a constant fft_length")
    return [int(v) for v in value]


def _fit_inner(t, target, rank):
    """t with its last `rank` dims cropped or zero-padded to `target` (static)."""
    dims = t.shape.as_list()
    lead = len(dims) - rank
    cur = dims[lead:]
    if any(c > n for c, n in zip(cur, target)):
        t = array_ops.slice(t, [0] * len(dims), [-1] * lead + [min(c, n) for c, n in zip(cur, target)])
    if any(c < n for c, n in zip(cur, target)):
        pads = [[0, 0]] * lead + [[0, max(0, n - c)] for c, n in zip(cur, target)]
        t = array_ops.pad(t, pads)
    return t


_IFFT_OF_RANK = {1: ifft, 2: ifft2d, 3: ifft3d}


def _register_real_fft_grads(op_type, rank):
    @gradients_impl.RegisterGradient(op_type)
    def _rfft_grad(op, grad):
        # y = crop_half(FFT(fit(x))): dx = fit_back(Re(N * IFFT(zero_pad(dy)))).
        x = op.inputs[0]
        length = _const_fft_length(op, op_type)
        g = _fit_inner(grad, length, rank)
        g = _IFFT_OF_RANK[rank](g) * constant_op.constant(float(np.prod(length)), dtype=grad.dtype)
        g = real(g)
        inner = _static_inner(x, rank)
        if inner is None:
            raise NotImplementedError(f"The gradient of {op_type} needs a static input shape")
        return [_fit_inner(g, inner, rank), None]

    @gradients_impl.RegisterGradient("I" + op_type)
    def _irfft_grad(op, grad):
        # y = Re(sum_k c_k h_k e^{...}) / N: dh = c * RFFT(dy) / N, c = 2 but for DC (and Nyquist when even).
        x = op.inputs[0]
        length = _const_fft_length(op, "I" + op_type)
        n = length[-1]
        half = n // 2 + 1
        c = np.full([half], 2.0)
        c[0] = 1.0
        if n % 2 == 0:
            c[-1] = 1.0
        c /= float(np.prod(length))
        rfft_fn = {1: rfft, 2: rfft2d, 3: rfft3d}[rank]
        g = rfft_fn(grad, length) * constant_op.constant(c.astype(x.dtype.as_numpy_dtype), dtype=x.dtype)
        inner = _static_inner(x, rank)
        if inner is None:
            raise NotImplementedError(f"The gradient of I{op_type} needs a static input shape")
        return [_fit_inner(g, inner, rank), None]


_register_real_fft_grads("RFFT", 1)
_register_real_fft_grads("RFFT2D", 2)
_register_real_fft_grads("RFFT3D", 3)

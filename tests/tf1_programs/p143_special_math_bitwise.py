"""Element-wise math that statistics and hashing code in TF1 used: lgamma, digamma, igamma / igammac, betainc,
lbeta, erf / erfc, erfinv-free ndtri via tf.math, bessel_i0e / i1e, zeta / polygamma, log1p / expm1, xlogy-free
Poisson log-likelihood by hand, tf.math.softplus / log_sigmoid, squared_difference, tf.math.reciprocal,
tf.math.rsqrt, tf.sign, tf.math.floormod of floats, tf.mod, tf.bitwise (and / or / xor / invert / left_shift /
right_shift on int32 and uint8), tf.dtypes.as_dtype / saturate_cast / cast rounding, tf.dtypes' properties
(is_integer, min, max, size, as_numpy_dtype), complex helpers (real, imag, angle, conj, complex_abs); values with
their dtypes and static shapes, and the gradients of lgamma / digamma / igamma (in a)."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    x = tf.constant([0.5, 1.0, 2.5, 7.0])
    a = tf.constant([0.5, 1.5, 2.0, 4.0])
    ops = {
        "lgamma": tf.lgamma(x),
        "digamma": tf.digamma(x),
        "igamma": tf.igamma(a, x),
        "igammac": tf.igammac(a, x),
        "betainc": tf.betainc([0.5, 1.0, 2.0, 3.0], [2.0, 1.0, 0.5, 3.0], [0.2, 0.5, 0.7, 0.9]),
        "lbeta": tf.lbeta([[1.0, 2.0], [0.5, 0.5], [3.0, 4.0]]),
        "erf": tf.erf(x - 1.0),
        "erfc": tf.erfc(x - 1.0),
        "ndtri": tf.math.ndtri([0.1, 0.5, 0.975]),
        "erfinv": tf.math.erfinv([-0.5, 0.0, 0.9]),
        "i0e": tf.math.bessel_i0e(x),
        "i1e": tf.math.bessel_i1e(x),
        "zeta": tf.zeta([2.0, 3.0, 4.0], [1.0, 1.0, 2.0]),
        "polygamma": tf.polygamma([1.0, 2.0, 1.0], [1.0, 2.0, 3.5]),
        "log1p": tf.log1p([1e-8, 1.0]),
        "expm1": tf.expm1([1e-8, 1.0]),
        "softplus": tf.math.softplus([-20.0, 0.0, 20.0]),
        "log_sigmoid": tf.math.log_sigmoid([-20.0, 0.0, 20.0]),
        "sqdiff": tf.squared_difference([1.0, 2.0], [3.0, -1.0]),
        "reciprocal": tf.math.reciprocal([2.0, 4.0]),
        "rsqrt": tf.rsqrt([4.0, 16.0]),
        "sign": tf.sign([-2.0, 0.0, 3.0]),
        "floormod_f": tf.floormod([5.5, -5.5], [2.0, 2.0]),
        "mod": tf.mod([7, -7], [3, 3]),
        "and": tf.bitwise.bitwise_and([12, 10], [10, 6]),
        "or": tf.bitwise.bitwise_or([12, 10], [10, 6]),
        "xor": tf.bitwise.bitwise_xor([12, 10], [10, 6]),
        "invert": tf.bitwise.invert(tf.constant([0, 5], tf.int32)),
        "invert_u8": tf.bitwise.invert(tf.constant([0, 5], tf.uint8)),
        "lshift": tf.bitwise.left_shift([1, 3], [4, 2]),
        "rshift": tf.bitwise.right_shift([-16, 64], [2, 3]),
        "saturate": tf.saturate_cast([-5.0, 300.0, 12.7], tf.uint8),
        "cast_trunc": tf.cast([-1.7, 1.7, 2.5], tf.int32),
        "real": tf.real(tf.constant([1 + 2j, -3 - 4j], tf.complex64)),
        "imag": tf.imag(tf.constant([1 + 2j, -3 - 4j], tf.complex64)),
        "angle": tf.angle(tf.constant([1j, -1 + 0j], tf.complex64)),
        "conj": tf.conj(tf.constant([1 + 2j], tf.complex128)),
        "cabs": tf.abs(tf.constant([3 + 4j], tf.complex64)),
        "complex": tf.complex([1.0, 2.0], [3.0, 4.0]),
    }
    poisson_ll = tf.reduce_sum(
        tf.constant([1.0, 3.0]) * tf.log(tf.constant([2.0, 2.5])) - 2.0 - 2.5 - tf.lgamma([2.0, 4.0])
    )
    ops["poisson_ll"] = poisson_ll
    grads = {
        "lgamma": tf.gradients(tf.reduce_sum(tf.lgamma(x)), x)[0],
        "digamma": tf.gradients(tf.reduce_sum(tf.digamma(x)), x)[0],
        "igamma_a": tf.gradients(tf.reduce_sum(tf.igamma(a, x)), a)[0],
        "igamma_x": tf.gradients(tf.reduce_sum(tf.igamma(a, x)), x)[0],
        "betainc_x": tf.gradients(tf.reduce_sum(tf.betainc(2.0, 3.0, x / 10.0)), x)[0],
    }
    out = {
        "dtypes": {k: v.dtype.name for k, v in ops.items()},
        "shapes": {k: v.shape.as_list() for k, v in ops.items()},
    }
    with tf.Session() as sess:
        out["values"] = sess.run(ops)
        out["grads"] = sess.run(grads)
    dt = tf.as_dtype(np.int16)
    out["dtype_props"] = [
        dt.name, dt.is_integer, dt.is_floating, dt.min, dt.max, dt.size, dt.as_numpy_dtype.__name__,
        tf.dtypes.as_dtype("float16").max, tf.float32.is_compatible_with(tf.float32), tf.uint8.is_unsigned,
        tf.complex64.real_dtype.name, tf.float32.as_datatype_enum, tf.int64.limits, repr(tf.float32), tf.string.name,
    ]  # fmt: skip
    for name, call in (
        ("bitwise_float", lambda: tf.bitwise.bitwise_and([1.0], [2.0])),
        ("lgamma_int", lambda: tf.lgamma([1, 2])),
        ("complex_mixed", lambda: tf.complex([1.0], tf.constant([1.0], tf.float64))),
    ):
        try:
            call()
            out[name] = None
        except (ValueError, TypeError) as e:
            out[name] = type(e).__name__
    return out

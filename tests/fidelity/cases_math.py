"""tf.math against TensorFlow 1: the trigonometric, hyperbolic, error and gamma functions (values at the edges of
their domains, static shapes, dtypes), float predicates, safe and truncating divisions, scans, TF1's Python
composites (reduce_logsumexp, count_nonzero, clip_by_norm, polyval...), their gradients, and the error classes of
bad input. Both spellings where TF1 has two (tf.X and tf.math.X)."""

import numpy as np

from tests.fidelity.harness import case

NAN = float("nan")
INF = float("inf")

_EDGES = [-3.0, -1.0, -0.5, -0.0, 0.0, 0.25, 0.5, 1.0, 2.5, 10.0, INF, -INF, NAN]


def _register(name, fn, tol=1e-5):
    fn.__name__ = name
    fn.__qualname__ = name
    case(fn, tol=tol)


# --- unary element-wise, over the edges of each domain ------------------------------------------------------------
_UNARY = [
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "asinh",
    "acosh",
    "atanh",
    "erf",
    "erfc",
    "lgamma",
    "digamma",
    "expm1",
    "rint",
    "is_nan",
    "is_inf",
    "is_finite",
]


def _unary_case(fname, top_level):
    def fn(tf, sess):
        module = tf if top_level else tf.math
        f = getattr(module, fname)
        x32 = tf.constant(_EDGES, tf.float32)
        x64 = tf.constant([[0.1, -0.7], [1.5, 4.0]], tf.float64)
        y32, y64 = f(x32), f(x64)
        return [y32, y32.shape, y32.dtype, y64, y64.shape, y32.op.type, y32.op.name]

    return fn


for _f in _UNARY:
    _register(f"math_{_f}_values", _unary_case(_f, top_level=False), tol=2e-5)
    _register(f"top_level_{_f}", _unary_case(_f, top_level=True), tol=2e-5)


def _math_only_unary(fname, values):
    def fn(tf, sess):
        y = getattr(tf.math, fname)(tf.constant(values, tf.float32))
        return [y, y.shape, y.op.type]

    return fn


for _f, _values in [
    ("erfinv", [-0.99, -0.5, 0.0, 0.3, 0.9, 1.0, -1.0, 2.0]),
    ("ndtri", [0.0, 0.01, 0.3, 0.5, 0.9, 1.0, 1.5]),
    ("bessel_i0e", [-3.0, -0.5, 0.0, 0.4, 8.0]),
    ("bessel_i1e", [-3.0, -0.5, 0.0, 0.4, 8.0]),
    ("bessel_i0", [-3.0, -0.5, 0.0, 0.4, 5.0]),
    ("bessel_i1", [-3.0, -0.5, 0.0, 0.4, 5.0]),
    ("log_sigmoid", [-100.0, -1.0, 0.0, 2.0, 50.0]),
    ("reciprocal_no_nan", [-2.0, 0.0, 0.5, 4.0]),
    ("real", [1.0, -2.0]),
    ("imag", [1.0, -2.0]),
    ("conj", [1.0, -2.0]),
    ("angle", [1.0, -2.0, 0.0]),
]:
    _register(f"math_{_f}", _math_only_unary(_f, _values), tol=2e-5)


@case
def unary_math_rejects_integers(tf, sess):
    out = []
    for f in (tf.sin, tf.erf, tf.lgamma, tf.is_nan, tf.is_finite):
        try:
            f(tf.constant([1, 2]))
            out.append("ok")
        except Exception as e:  # noqa: BLE001 - the class is the observation
            out.append(type(e).__name__)
    return out


@case
def half_precision_trig(tf, sess):
    x = tf.constant([0.5, 1.0, -2.0], tf.float16)
    return [tf.sin(x), tf.cos(x), tf.erf(x), tf.expm1(x), tf.is_finite(x)]


# --- binary element-wise ----------------------------------------------------------------------------------------
@case(tol=2e-5)
def atan2_quadrants_and_zeros(tf, sess):
    y = tf.constant([1.0, 1.0, -1.0, -1.0, 0.0, -0.0, 0.0, 3.0])
    x = tf.constant([1.0, -1.0, 1.0, -1.0, 0.0, -1.0, -0.0, 0.0])
    z = tf.atan2(y, x)
    return [z, tf.math.atan2(y=y, x=x), z.op.type, z.shape]


@case
def atan2_broadcasts(tf, sess):
    z = tf.atan2(tf.ones([2, 1, 3]), tf.ones([4, 1]))
    return [z.shape, z]


@case(tol=2e-5)
def xdivy_xlogy_xlog1py(tf, sess):
    x = tf.constant([0.0, 0.0, 1.0, 2.0, 0.0])
    y = tf.constant([0.0, 2.0, 3.0, 0.5, NAN])
    return [tf.math.xdivy(x, y), tf.math.xlogy(x, y), tf.math.xlog1py(x, y), tf.math.xlogy(x, y).op.type]


@case
def div_no_nan_both_spellings(tf, sess):
    x = tf.constant([1.0, -1.0, 0.0, INF, NAN])
    y = tf.constant([0.0, 0.0, 0.0, 2.0, 0.0])
    z = tf.div_no_nan(x, y)
    return [z, tf.math.divide_no_nan(x, y), z.op.name, z.op.type]


@case
def multiply_no_nan(tf, sess):
    x = tf.constant([INF, NAN, 2.0])
    y = tf.constant([0.0, 0.0, 3.0])
    return tf.math.multiply_no_nan(x, y)


@case
def truncatediv_and_truncatemod_of_ints(tf, sess):
    x = tf.constant([-7, 7, -7, 7, 0])
    y = tf.constant([2, 2, -2, -2, 3])
    return [tf.truncatediv(x, y), tf.truncatemod(x, y), tf.truncatediv(x, y).op.type, tf.truncatemod(x, y).op.name]


@case
def truncatediv_and_truncatemod_of_floats(tf, sess):
    x = tf.constant([-7.5, 7.5, -7.0, 7.0])
    y = tf.constant([2.0, 2.0, -2.0, -2.0])
    return [tf.truncatediv(x, y), tf.truncatemod(x, y)]


@case(
    known_difference="TensorFlow 2.21's integer TruncateDiv/TruncateMod kernels do not check the divisor and report an InternalError; tensorweave checks it and raises InvalidArgumentError, as its Div, FloorDiv and FloorMod (and TensorFlow's) do"
)
def truncatediv_by_integer_zero(tf, sess):
    return tf.truncatediv(tf.constant([1, 2]), tf.constant([1, 0]))


@case(
    known_difference="TensorFlow 2.21's integer TruncateDiv/TruncateMod kernels do not check the divisor and report an InternalError; tensorweave checks it and raises InvalidArgumentError, as its Div, FloorDiv and FloorMod (and TensorFlow's) do"
)
def truncatemod_by_integer_zero(tf, sess):
    return tf.truncatemod(tf.constant([1, 2]), tf.constant([0, 1]))


@case
def floor_div_alias(tf, sess):
    return [tf.floor_div(tf.constant([-7, 7]), 2), tf.floordiv(-7.5, 2.0)]


@case(tol=1e-4)
def gamma_family(tf, sess):
    a = tf.constant([0.5, 1.0, 2.5, 5.0])
    x = tf.constant([0.3, 1.0, 2.0, 7.0])
    return [
        tf.igamma(a, x),
        tf.igammac(a, x),
        tf.math.igamma(a, x).op.type,
        tf.zeta(tf.constant([2.0, 3.0, 4.5, 2.0]), x),
        tf.polygamma(tf.constant([0.0, 1.0, 2.0, 3.0]), x),
        tf.betainc(a, tf.constant([1.0, 2.0, 0.5, 3.0]), tf.constant([0.1, 0.5, 0.9, 0.3])),
        tf.betainc(0.5, 2.0, tf.constant([0.1, 0.5])),
        tf.lbeta(tf.constant([[1.0, 2.0], [0.5, 3.0]])),
    ]


@case
def betainc_shape_mismatch(tf, sess):
    return tf.betainc(tf.ones([2]), tf.ones([3]), tf.ones([2]))


@case
def nextafter(tf, sess):
    x = tf.constant([1.0, 0.0, -1.0], tf.float64)
    return [tf.math.nextafter(x, tf.constant(2.0, tf.float64)), tf.math.nextafter(x, tf.constant(-2.0, tf.float64))]


# --- scans ----------------------------------------------------------------------------------------------------------
def _scan_case(fname, exclusive, reverse, axis):
    def fn(tf, sess):
        x = tf.constant(np.arange(1, 25, dtype=np.float32).reshape(2, 3, 4) / 4.0)
        y = getattr(tf, fname)(x, axis=axis, exclusive=exclusive, reverse=reverse)
        yi = getattr(tf.math, fname)(tf.constant([[1, 2, 3], [4, 5, 6]]), axis=tf.constant(1), exclusive=exclusive)
        return [y, y.shape, y.op.type, yi]

    return fn


for _f in ("cumsum", "cumprod"):
    for _excl in (False, True):
        for _rev in (False, True):
            for _axis in (0, 1, -1):
                _register(
                    f"{_f}_excl{int(_excl)}_rev{int(_rev)}_axis{_axis}".replace("-", "m"),
                    _scan_case(_f, _excl, _rev, _axis),
                )


@case
def cumsum_axis_out_of_range(tf, sess):
    return tf.cumsum(tf.ones([2, 3]), axis=2)


@case
def cumsum_of_a_placeholder_with_a_bad_axis_fails_at_run_time(tf, sess):
    x = tf.placeholder(tf.float32)
    y = tf.cumsum(x, axis=3)
    return sess.run(y, {x: np.ones([2, 2], np.float32)})


@case
def cumsum_of_unknown_shape(tf, sess):
    x = tf.placeholder(tf.int32, [None, 3])
    y = tf.cumsum(x, 1, reverse=True)
    return [y.shape, sess.run(y, {x: [[1, 2, 3]]})]


@case(tol=1e-5)
def cumulative_logsumexp(tf, sess):
    x = tf.constant([[1.0, 2.0, -INF, 3.0], [-1000.0, -1000.0, 0.0, 1000.0]])
    return [
        tf.math.cumulative_logsumexp(x, axis=1),
        tf.math.cumulative_logsumexp(x, axis=1, exclusive=True, reverse=True),
    ]


# --- TF1's composites -------------------------------------------------------------------------------------------
@case
def reduce_logsumexp(tf, sess):
    x = tf.constant([[1.0, 2.0, 3.0], [-INF, -INF, -INF], [1000.0, 1000.0, -5.0]])
    y = tf.reduce_logsumexp(x, axis=1)
    return [
        y,
        y.shape,
        y.op.name,
        tf.reduce_logsumexp(x, 1, keepdims=True).shape,
        tf.math.reduce_logsumexp(x),
        tf.reduce_logsumexp(x, reduction_indices=[0], keep_dims=True),
    ]


@case
def count_nonzero(tf, sess):
    x = tf.constant([[0.0, 1.0, -0.0], [2.0, NAN, 0.0]])
    y = tf.count_nonzero(x, axis=1)
    return [
        y,
        y.dtype,
        tf.count_nonzero(x),
        tf.math.count_nonzero(x, 0, keepdims=True, dtype=tf.int32),
        tf.count_nonzero(tf.constant([True, False, True])),
        tf.count_nonzero(input_tensor=tf.constant([[1, 0], [0, 0]]), reduction_indices=1, keep_dims=True),
    ]


@case
def reduce_std_variance_norm(tf, sess):
    x = tf.constant([[1.0, 2.0, 4.0], [3.0, -1.0, 0.5]])
    return [
        tf.math.reduce_variance(x),
        tf.math.reduce_variance(x, axis=1, keepdims=True),
        tf.math.reduce_std(x, axis=0),
        tf.math.reduce_euclidean_norm(x, axis=1),
    ]


@case
def reduce_variance_of_ints_is_a_type_error(tf, sess):
    return tf.math.reduce_variance(tf.constant([1, 2]))


@case
def accumulate_n(tf, sess):
    a = tf.constant([[1.0, 2.0]])
    y = tf.math.accumulate_n([a, a * 2, a * 3])
    return [y, y.shape, tf.accumulate_n([a], shape=[1, 2])]


@case
def accumulate_n_of_nothing(tf, sess):
    return tf.accumulate_n([])


@case
def clip_by_norm(tf, sess):
    x = tf.constant([[3.0, 4.0], [0.0, 0.0]])
    y = tf.clip_by_norm(x, 1.0)
    return [
        y,
        y.op.name,
        tf.clip_by_norm(x, 10.0),
        tf.clip_by_norm(x, 1.0, axes=[1]),
        tf.clip_by_norm(tf.zeros([3]), 1.0),
    ]


@case(tol=1e-5)
def gradient_of_clip_by_average_norm(tf, sess):
    x = tf.constant([[0.5, -1.5, 2.0], [1.0, 3.0, -0.25]])
    return tf.gradients(tf.clip_by_average_norm(x, 0.1), x)[0]


@case
def clip_by_average_norm_of_float64_is_a_type_error(tf, sess):
    return tf.clip_by_average_norm(tf.constant([1.0, 2.0], tf.float64), 0.1)


@case
def clip_by_average_norm(tf, sess):
    x = tf.constant([[3.0, 4.0], [1.0, 0.0]])
    return [tf.clip_by_average_norm(x, 0.1), tf.clip_by_average_norm(x, 10.0)]


@case
def polyval(tf, sess):
    x = tf.constant([[0.0, 1.0], [2.0, -1.5]])
    return [
        tf.math.polyval([1.0, 2.0, 3.0], x),
        tf.math.polyval([tf.constant(2.0)], x),
        tf.math.polyval([], x),
    ]


@case
def polyval_needs_a_list(tf, sess):
    return tf.math.polyval(tf.constant([1.0, 2.0]), 1.0)


@case
def scalar_mul(tf, sess):
    x = tf.constant([1.0, -2.0])
    return [tf.scalar_mul(3.0, x), tf.math.scalar_mul(tf.constant(0.5), x)]


@case
def monotonic_predicates(tf, sess):
    return [
        tf.math.is_non_decreasing([1, 2, 2, 3]),
        tf.math.is_non_decreasing([3, 1]),
        tf.math.is_strictly_increasing([1, 2, 2]),
        tf.math.is_strictly_increasing([[1.0, 2.0], [3.0, 4.0]]),
        tf.is_strictly_increasing([5]),
    ]


# --- gradients against TF's ----------------------------------------------------------------------------------
@case(tol=1e-4)
def gradients_of_unary_math(tf, sess):
    x = tf.constant([0.3, 0.6, 0.9], tf.float64)
    fns = [tf.sin, tf.cos, tf.tan, tf.asin, tf.acos, tf.atan, tf.sinh, tf.cosh, tf.asinh, tf.atanh, tf.erf]
    fns += [tf.erfc, tf.lgamma, tf.digamma, tf.expm1, tf.math.erfinv, tf.math.bessel_i0e, tf.math.bessel_i1e]
    return [tf.gradients(f(x), x)[0] for f in fns] + [tf.gradients(tf.acosh(x + 1.5), x)[0]]


@case(tol=1e-4)
def gradients_of_binary_math(tf, sess):
    x = tf.constant([[0.3, 0.0, 0.9]], tf.float64)
    y = tf.constant([[0.5], [1.5]], tf.float64)
    out = []
    for f in (tf.atan2, tf.math.xdivy, tf.math.xlogy, tf.math.xlog1py, tf.div_no_nan, tf.math.multiply_no_nan):
        out.append(tf.gradients(f(x, y), [x, y]))
    return out


@case(tol=1e-4)
def gradients_of_special_functions(tf, sess):
    a = tf.constant([0.5, 2.0, 3.0], tf.float64)
    x = tf.constant([0.2, 0.5, 0.7], tf.float64)
    return [
        tf.gradients(tf.igamma(a, x), x)[0],
        tf.gradients(tf.igammac(a, x), x)[0],
        tf.gradients(tf.zeta(a + 1.0, x), x)[0],
        tf.gradients(tf.polygamma(tf.constant([0.0, 1.0, 2.0], tf.float64), x), x)[0],
        tf.gradients(tf.betainc(a, a + 1.0, x), x)[0],
    ]


@case(tol=1e-5)
def gradients_of_scans(tf, sess):
    x = tf.constant([[0.5, 1.5, 2.0], [1.0, 3.0, 0.25]], tf.float64)
    w = tf.constant([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], tf.float64)
    out = []
    for excl in (False, True):
        for rev in (False, True):
            out.append(tf.gradients(tf.cumsum(x, 1, exclusive=excl, reverse=rev) * w, x)[0])
            out.append(tf.gradients(tf.cumprod(x, 1, exclusive=excl, reverse=rev) * w, x)[0])
            out.append(tf.gradients(tf.math.cumulative_logsumexp(x, 1, exclusive=excl, reverse=rev) * w, x)[0])
    return out


@case(tol=1e-5)
def gradients_of_composites(tf, sess):
    x = tf.constant([[0.5, -1.5, 2.0], [1.0, 3.0, -0.25]], tf.float64)
    return [
        tf.gradients(tf.reduce_logsumexp(x, 1), x)[0],
        tf.gradients(tf.clip_by_norm(x, 1.0), x)[0],
        tf.gradients(tf.math.reduce_std(x), x)[0],
        tf.gradients(tf.math.polyval([tf.constant(1.0, tf.float64), x, 3.0 * x], x), x)[0],
    ]


@case
def polyval_of_python_floats_and_a_float64_x_is_a_type_error(tf, sess):
    return tf.math.polyval([1.0, 2.0], tf.constant([1.0], tf.float64))


@case
def gradients_of_predicates_and_rint_are_none(tf, sess):
    x = tf.constant([0.5, 1.5])
    return [
        tf.gradients(tf.cast(tf.is_nan(x), tf.float32), x)[0] is None,
        tf.gradients(tf.rint(x), x),
    ]


# --- histograms, numerics checks, v1/v2 switches ----------------------------------------------------------------
@case
def histogram_fixed_width_and_bins(tf, sess):
    v = tf.constant([[-1.0, 0.0, 1.5], [2.0, 5.0, 4.99]])
    h = tf.histogram_fixed_width(v, [0.0, 5.0], nbins=5)
    b = tf.histogram_fixed_width_bins(v, [0.0, 5.0], nbins=5)
    return [h, h.dtype, b, b.shape, tf.histogram_fixed_width(tf.constant([1, 7, 3]), [0, 8], nbins=4)]


@case
def verify_tensor_all_finite_passes_finite_values(tf, sess):
    t = tf.constant([1.0, 2.0])
    return [tf.verify_tensor_all_finite(t, "finite"), tf.verify_tensor_all_finite(x=t, message="m").shape]


@case
def verify_tensor_all_finite_fails_on_inf(tf, sess):
    return tf.verify_tensor_all_finite(tf.constant([1.0]) / 0.0, "inf here")


@case
def add_check_numerics_ops_passes_a_finite_graph(tf, sess):
    x = tf.constant([1.0, 4.0])
    y = tf.sqrt(x) * 2.0
    check = tf.add_check_numerics_ops()
    return sess.run([y, check])[0]


@case
def add_check_numerics_ops_finds_a_nan(tf, sess):
    x = tf.constant([-1.0, 4.0])
    tf.sqrt(x)
    return sess.run(tf.add_check_numerics_ops())


@case
def v1_v2_switches_and_queries(tf, sess):
    return [
        tf.disable_v2_behavior(),
        tf.disable_eager_execution(),
        tf.disable_control_flow_v2(),
        tf.disable_resource_variables(),
        tf.disable_v2_tensorshape(),
        tf.executing_eagerly(),
        tf.control_flow_v2_enabled(),
        tf.resource_variables_enabled(),
    ]


@case
def log_sigmoid_and_is_numeric_tensor(tf, sess):
    x = tf.constant([-3.0, 0.0, 30.0])
    return [
        tf.log_sigmoid(x),
        tf.is_numeric_tensor(x),
        tf.is_numeric_tensor(tf.constant(["a"])),
        tf.is_numeric_tensor(3.0),
    ]

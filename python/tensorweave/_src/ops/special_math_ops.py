"""tf.math beyond the basic arithmetic: trigonometric, hyperbolic, error and gamma functions, float predicates, safe
divisions, cumulative scans, and TF1's Python composites (reduce_logsumexp, count_nonzero, clip_by_norm, polyval...)
built from the same ops, under the same names, as TensorFlow 1 builds them."""

import numpy as np

from tensorweave._src.framework import dtypes, indexed_slices, ops
from tensorweave._src.ops import array_ops, constant_op, gen_ops, math_ops
from tensorweave._src.ops.math_ops import _binary, _unary


def _unary_function(op_type, public_name):
    @gen_ops.doc_from(op_type)
    def function(x, name=None):
        return _unary(op_type, x, name)

    function.__name__ = function.__qualname__ = public_name
    return function


def _scoped_unary_function(op_type, public_name):
    """An op inside a name scope of the function's name (TF's `erfinv/Erfinv`)."""

    @gen_ops.doc_from(op_type)
    def function(x, name=None):
        graph = ops.get_default_graph()
        with graph.name_scope(name or public_name):
            x = ops.convert_to_tensor(x, name="x")
            return gen_ops.wrapper(op_type)(x)

    function.__name__ = function.__qualname__ = public_name
    return function


def _binary_function(op_type, public_name, arg_names=("x", "y"), scoped=False, default_name=None):
    first, second = arg_names

    @gen_ops.doc_from(op_type)
    def function(*args, name=None, **kwargs):
        values = dict(zip(arg_names, args))
        for key, value in kwargs.items():
            if key not in arg_names or key in values:
                raise TypeError(f"{public_name}() got an unexpected or repeated argument {key!r}")
            values[key] = value
        if set(values) != set(arg_names):
            raise TypeError(f"{public_name}() takes the arguments {first} and {second}")
        if scoped:  # TF's `xdivy/Xdivy`: the op inside a scope of the function's name
            graph = ops.get_default_graph()
            with graph.name_scope(name or public_name):
                return _binary(op_type, values[first], values[second], None)
        return _binary(op_type, values[first], values[second], name or default_name)

    function.__name__ = function.__qualname__ = public_name
    return function


# --- element-wise, one op each ---------------------------------------------------------------------------------
sin = _unary_function("Sin", "sin")
cos = _unary_function("Cos", "cos")
tan = _unary_function("Tan", "tan")
asin = _unary_function("Asin", "asin")
acos = _unary_function("Acos", "acos")
atan = _unary_function("Atan", "atan")
sinh = _unary_function("Sinh", "sinh")
cosh = _unary_function("Cosh", "cosh")
asinh = _unary_function("Asinh", "asinh")
acosh = _unary_function("Acosh", "acosh")
atanh = _unary_function("Atanh", "atanh")
erf = _unary_function("Erf", "erf")
erfc = _unary_function("Erfc", "erfc")
erfinv = _scoped_unary_function("Erfinv", "erfinv")
ndtri = _scoped_unary_function("Ndtri", "ndtri")
lgamma = _unary_function("Lgamma", "lgamma")
digamma = _unary_function("Digamma", "digamma")
expm1 = _unary_function("Expm1", "expm1")
rint = _unary_function("Rint", "rint")
bessel_i0e = _scoped_unary_function("BesselI0e", "bessel_i0e")
bessel_i1e = _scoped_unary_function("BesselI1e", "bessel_i1e")
is_nan = _unary_function("IsNan", "is_nan")
is_inf = _unary_function("IsInf", "is_inf")
is_finite = _unary_function("IsFinite", "is_finite")

atan2 = _binary_function("Atan2", "atan2", ("y", "x"))
xdivy = _binary_function("Xdivy", "xdivy", scoped=True)
xlogy = _binary_function("Xlogy", "xlogy")
xlog1py = _binary_function("Xlog1py", "xlog1py", scoped=True)
div_no_nan = _binary_function("DivNoNan", "div_no_nan", default_name="div_no_nan")
floor_div = _binary_function("FloorDiv", "floor_div")
truncatediv = _binary_function("TruncateDiv", "truncatediv")
truncatemod = _binary_function("TruncateMod", "truncatemod")
igamma = _binary_function("Igamma", "igamma", ("a", "x"))
igammac = _binary_function("Igammac", "igammac", ("a", "x"))
zeta = _binary_function("Zeta", "zeta", ("x", "q"))
polygamma = _binary_function("Polygamma", "polygamma", ("a", "x"))
nextafter = _binary_function("NextAfter", "nextafter", ("x1", "x2"))


def divide_no_nan(x, y, name=None):
    """x / y, 0 where y is 0 (TF's tf.math.divide_no_nan; the op is named div_no_nan).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.math.divide_no_nan([1.0, 2.0], [0.0, 4.0])))
      [0.  0.5]
    """
    return _binary("DivNoNan", x, y, name or "div_no_nan")


def multiply_no_nan(x, y, name=None):
    """x * y, 0 where y is 0 even when x is NaN or inf."""
    return _binary("MulNoNan", x, y, name or "multiply_no_nan")


def reciprocal_no_nan(x, name=None):
    """1 / x, 0 where x is 0 (one DivNoNan op, as TensorFlow)."""
    graph = ops.get_default_graph()
    with graph.name_scope(name or "reciprocal_no_nan") as scope:
        x = ops.convert_to_tensor(x, name="x")
        one = constant_op.constant(1, dtype=x.dtype, name="ones")
        return gen_ops.div_no_nan(one, x, name=scope)


def betainc(a, b, x, name=None):
    """The regularized incomplete beta function I_x(a, b); a, b and x of one shape or scalars."""
    graph = ops.get_default_graph()
    with graph.name_scope(name or "Betainc") as scope:
        a = ops.convert_to_tensor(a, name="a")
        b = ops.convert_to_tensor(b, dtype=a.dtype, name="b")
        x = ops.convert_to_tensor(x, dtype=a.dtype, name="x")
        return gen_ops.betainc(a, b, x, name=scope)


bessel_i0 = _scoped_unary_function("BesselI0", "bessel_i0")
bessel_i1 = _scoped_unary_function("BesselI1", "bessel_i1")


# --- scans --------------------------------------------------------------------------------------------------------
def _scan(op_type, x, axis, exclusive, reverse, name):
    graph = ops.get_default_graph()
    with graph.name_scope(name or op_type) as scope:
        x = ops.convert_to_tensor(x, name="x")
        axis = ops.convert_to_tensor(axis, name="axis")
        if not axis.dtype.is_integer:
            raise TypeError(f"{op_type}: axis must be int32 or int64, got {axis.dtype.name}")
        return gen_ops.wrapper(op_type)(x, axis, exclusive=exclusive, reverse=reverse, name=scope)


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """The cumulative sum of x along `axis`; `exclusive` leaves each element out of its own sum, `reverse` sums
    from the end.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.cumsum([1, 2, 3], exclusive=True, reverse=True)))
      [5 3 0]
    """
    return _scan("Cumsum", x, axis, exclusive, reverse, name)


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """The cumulative product of x along `axis` (`exclusive` and `reverse` as in cumsum).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.cumprod([1, 2, 3], exclusive=True)))
      [1 1 2]
    """
    return _scan("Cumprod", x, axis, exclusive, reverse, name)


def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None):
    """The cumulative log(sum(exp(x))) along `axis`, computed stably."""
    return _scan("CumulativeLogsumexp", x, axis, exclusive, reverse, name)


# --- TF1's Python composites ---------------------------------------------------------------------------------------
def reduce_logsumexp(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    """log(sum(exp(x))) over the axes, computed stably (TF1's composite: the max is subtracted first).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(round(float(sess.run(tw.reduce_logsumexp([0.0, 0.0]))), 4))
      0.6931
    """
    axis = math_ops._reduction_axis(axis, reduction_indices, "reduce_logsumexp")
    keep = math_ops._keepdims(keepdims, keep_dims, "reduce_logsumexp")
    graph = ops.get_default_graph()
    with graph.name_scope(name or "ReduceLogSumExp") as scope:
        x = ops.convert_to_tensor(input_tensor, name="input_tensor")
        raw_max = math_ops.reduce_max(x, axis=axis, keepdims=True)
        my_max = array_ops.stop_gradient(math_ops.where_v2(is_finite(raw_max), raw_max, array_ops.zeros_like(raw_max)))
        result = math_ops.log(math_ops.reduce_sum(math_ops.exp(math_ops.subtract(x, my_max)), axis, keepdims=keep))
        if not keep:
            my_max = array_ops.reshape(my_max, array_ops.shape(result))
        return math_ops.add(result, my_max, name=scope)


def count_nonzero(
    input_tensor=None,
    axis=None,
    keepdims=None,
    dtype=dtypes.int64,
    name=None,
    reduction_indices=None,
    keep_dims=None,
    input=None,
):
    """The number of non-zero elements over the axes, as `dtype` (int64).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.count_nonzero([[0, 1], [2, 3]], axis=1)))
      [1 2]
    """
    if input is not None:
        if input_tensor is not None:
            raise ValueError("count_nonzero: give input_tensor or input, not both")
        input_tensor = input
    axis = math_ops._reduction_axis(axis, reduction_indices, "count_nonzero")
    keep = math_ops._keepdims(keepdims, keep_dims, "count_nonzero")
    graph = ops.get_default_graph()
    with graph.name_scope(name or "count_nonzero"):
        x = ops.convert_to_tensor(input_tensor, name="input_tensor")
        zero = array_ops.zeros([], dtype=x.dtype)
        nonzero = math_ops.cast(math_ops.not_equal(x, zero), dtypes.int64)
        return math_ops.cast(math_ops.reduce_sum(nonzero, axis=axis, keepdims=keep), dtype)


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """The variance over the axes (mean of squared deviations from the mean)."""
    graph = ops.get_default_graph()
    with graph.name_scope(name or "reduce_variance"):
        x = ops.convert_to_tensor(input_tensor, name="input_tensor")
        if not x.dtype.is_floating:
            raise TypeError(f"reduce_variance: input must be a float tensor, got {x.dtype.name}")
        means = math_ops.reduce_mean(x, axis=axis, keepdims=True)
        squared_deviations = math_ops.square(x - means)
        return math_ops.reduce_mean(squared_deviations, axis=axis, keepdims=keepdims)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """The standard deviation over the axes."""
    graph = ops.get_default_graph()
    with graph.name_scope(name or "reduce_std"):
        variance = reduce_variance(input_tensor, axis=axis, keepdims=keepdims)
        return math_ops.sqrt(variance)


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """sqrt(sum(x ** 2)) over the axes (a composite here; TensorFlow has one EuclideanNorm op)."""
    graph = ops.get_default_graph()
    with graph.name_scope(name or "EuclideanNorm"):
        x = ops.convert_to_tensor(input_tensor, name="input_tensor")
        return math_ops.sqrt(math_ops.reduce_sum(math_ops.square(x), axis=axis, keepdims=keepdims))


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """The sum of `inputs` (all of one shape and dtype): one AddN op, as TensorFlow 2.x builds it."""
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError("inputs must be a list of at least one Tensor with the same dtype and shape")
    inputs = [ops.convert_to_tensor(t) for t in inputs]
    if tensor_dtype is not None and any(t.dtype != dtypes.as_dtype(tensor_dtype) for t in inputs):
        raise TypeError(f"accumulate_n: tensor_dtype {dtypes.as_dtype(tensor_dtype).name} does not match the inputs")
    if shape is not None:
        from tensorweave._src.framework import tensor_shape

        want = tensor_shape.TensorShape(shape)
        for t in inputs:
            if not t.shape.is_compatible_with(want):
                raise ValueError(f"accumulate_n: shape {want} does not match input {t.name} of shape {t.shape}")
    return math_ops.add_n(inputs, name=name)


def _norm_along(t, axes):
    return math_ops.reduce_sum(t * t, axes, keepdims=True)


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """t scaled so that its L2 norm (over `axes`, all by default) is at most clip_norm.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.clip_by_norm([3.0, 4.0], 1.0)))
      [0.6 0.8]

    An IndexedSlices (an embedding's gradient) has its values clipped, their norm taken over `axes` of the
    values, as TF's.
    """
    if isinstance(t, indexed_slices.IndexedSlices):
        values = clip_by_norm(t.values, clip_norm, axes, name)
        return indexed_slices.IndexedSlices(values, t.indices, t.dense_shape)
    graph = ops.get_default_graph()
    with graph.name_scope(name or "clip_by_norm") as scope:
        t = ops.convert_to_tensor(t, name="t")
        l2sum = _norm_along(t, axes)
        pred = math_ops.greater(l2sum, 0)
        l2sum_safe = math_ops.where(pred, l2sum, array_ops.ones_like(l2sum))
        l2norm = math_ops.where(pred, math_ops.sqrt(l2sum_safe), l2sum)
        # A negative clip_norm counts as 0, as TensorFlow's.
        if isinstance(clip_norm, (int, float, np.integer, np.floating)):
            clip_norm = max(clip_norm, 0)
        else:
            clip_norm = math_ops.cast(math_ops.maximum(clip_norm, 0), t.dtype)
        clip_norm = ops.convert_to_tensor(clip_norm, dtype=t.dtype, name="clip_norm")
        intermediate = t * clip_norm
        values_clip = math_ops.truediv(intermediate, math_ops.maximum(l2norm, clip_norm))
        return array_ops.identity(values_clip, name=scope)


def clip_by_average_norm(t, clip_norm, name=None):
    """t scaled so that its L2 norm divided by its number of elements is at most clip_norm."""
    graph = ops.get_default_graph()
    with graph.name_scope(name or "clip_by_average_norm") as scope:
        t = ops.convert_to_tensor(t, name="t")
        n_element = math_ops.cast(array_ops.size(t), dtypes.float32)
        rank = t.shape.ndims
        axes = list(range(rank)) if rank is not None else array_ops.range(array_ops.rank(t))
        l2norm_inv = math_ops.rsqrt(math_ops.reduce_sum(t * t, axes))
        clip_norm = ops.convert_to_tensor(clip_norm, dtype=t.dtype, name="clip_norm")
        # As TF1: the count stays float32, so t of another float dtype is a TypeError.
        tclip = (
            t
            * clip_norm
            * math_ops.minimum(l2norm_inv * n_element, constant_op.constant(1.0, dtype=t.dtype) / clip_norm)
        )
        return array_ops.identity(tclip, name=scope)


def polyval(coeffs, x, name=None):
    """coeffs[0] * x**(n-1) + ... + coeffs[n-1], by Horner's method (`coeffs` a list of tensors or numbers).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.math.polyval([1.0, 2.0, 3.0], 2.0)))
      11.0
    """
    if not isinstance(coeffs, (list, tuple)):
        raise ValueError(f"Argument coeffs must be list type found {type(coeffs)}.")  # noqa: TRY004 - as TF
    graph = ops.get_default_graph()
    with graph.name_scope(name or "polyval"):
        x = ops.convert_to_tensor(x, name="x")
        if not coeffs:
            return array_ops.zeros_like(x, name=name)
        # As TF1: each coefficient converts on its own (Python floats to float32; a mismatch is a TypeError).
        coeffs = [ops.convert_to_tensor(c, name=f"coeff_{i}") for i, c in enumerate(coeffs)]
        p = coeffs[0]
        for c in coeffs[1:]:
            p = c + p * x
        return p


def log_sigmoid(x, name=None):
    """log(sigmoid(x)) = -softplus(-x), computed stably."""
    from tensorweave._src.ops import nn_ops

    graph = ops.get_default_graph()
    with graph.name_scope(name or "LogSigmoid") as scope:
        x = ops.convert_to_tensor(x, name="x")
        return math_ops.negative(nn_ops.softplus(math_ops.negative(x)), name=scope)


def scalar_mul(scalar, x, name=None):
    """scalar * x, where `scalar` is a 0-d value."""
    scalar = ops.convert_to_tensor(scalar, dtype=ops.convert_to_tensor(x).dtype, name="scalar")
    if scalar.shape.ndims not in (0, None):
        raise ValueError(f"Only scalar multiply works, got shape {scalar.shape}")
    return math_ops.multiply(scalar, x, name=name)


def lbeta(x, name=None):
    """log(|Beta(x)|) over the last dimension: sum(lgamma(x)) - lgamma(sum(x))."""
    graph = ops.get_default_graph()
    with graph.name_scope(name or "lbeta"):
        x = ops.convert_to_tensor(x, name="x")
        log_prod_gamma_x = math_ops.reduce_sum(lgamma(x), axis=[-1])
        sum_x = math_ops.reduce_sum(x, axis=[-1])
        log_gamma_sum_x = lgamma(sum_x)
        return log_prod_gamma_x - log_gamma_sum_x


def _is_monotonic(x, compare, name):
    graph = ops.get_default_graph()
    with graph.name_scope(name):
        x = ops.convert_to_tensor(x, name="x")
        if not (x.dtype.is_floating or x.dtype.is_integer):
            raise TypeError(f"Expected x to be numeric, got {x.dtype.name}")
        flat = array_ops.reshape(x, [-1])
        return math_ops.reduce_all(compare(flat[:-1], flat[1:]))


def is_non_decreasing(x, name=None):
    """Whether x, flattened, never decreases (true for fewer than 2 elements)."""
    return _is_monotonic(x, math_ops.less_equal, name or "is_non_decreasing")


def is_strictly_increasing(x, name=None):
    """Whether x, flattened, always increases (true for fewer than 2 elements)."""
    return _is_monotonic(x, math_ops.less, name or "is_strictly_increasing")


def erfcinv(x, name=None):
    """The inverse of erfc, on [0, 2]: -ndtri(x / 2) / sqrt(2) (TF's composite)."""
    graph = ops.get_default_graph()
    with graph.name_scope(name or "erfcinv"):
        x = ops.convert_to_tensor(x, name="start")
        return -ndtri(0.5 * x) * constant_op.constant(0.7071067811865476, dtype=x.dtype)


def arg_max(input, dimension, output_type=dtypes.int64, name=None):
    """TF1's deprecated spelling of argmax (one ArgMax op)."""
    return math_ops.argmax(input, axis=dimension, name=name, output_type=output_type)


def arg_min(input, dimension, output_type=dtypes.int64, name=None):
    """TF1's deprecated spelling of argmin (one ArgMin op)."""
    return math_ops.argmin(input, axis=dimension, name=name, output_type=output_type)


def to_double(x, name="ToDouble"):
    """x cast to float64."""
    return math_ops.cast(x, dtypes.float64, name=name)


def to_bfloat16(x, name="ToBFloat16"):
    """x cast to bfloat16."""
    return math_ops.cast(x, dtypes.bfloat16, name=name)


def to_complex64(x, name="ToComplex64"):
    """x cast to complex64 (a real x becomes the real part)."""
    return math_ops.cast(x, dtypes.complex64, name=name)


def to_complex128(x, name="ToComplex128"):
    """x cast to complex128 (a real x becomes the real part)."""
    return math_ops.cast(x, dtypes.complex128, name=name)


def to_int32(x, name="ToInt32"):
    """x cast to int32."""
    return math_ops.cast(x, dtypes.int32, name=name)


def to_int64(x, name="ToInt64"):
    """x cast to int64."""
    return math_ops.cast(x, dtypes.int64, name=name)


def saturate_cast(value, dtype, name=None):
    """value cast to `dtype`, first clamped to the range `dtype` can hold (TF's composite).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.saturate_cast([-5.0, 300.0], tw.uint8)))
      [  0 255]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "saturate_cast") as scope:
        value = ops.convert_to_tensor(value, name="value")
        dtype = dtypes.as_dtype(dtype)
        in_dtype = value.dtype
        if in_dtype.min < dtype.min:
            value = math_ops.maximum(
                value, ops.convert_to_tensor(in_dtype.as_numpy_dtype(dtype.min), dtype=in_dtype, name="min")
            )
        if in_dtype.max > dtype.max:
            value = math_ops.minimum(
                value, ops.convert_to_tensor(in_dtype.as_numpy_dtype(dtype.max), dtype=in_dtype, name="max")
            )
        return math_ops.cast(value, dtype, name=scope)


# --- numerics checks -----------------------------------------------------------------------------------------
def _check_numerics(tensor, message):
    from tensorweave._src.ops.array_nd_ops import check_numerics

    return check_numerics(tensor, message)


def verify_tensor_all_finite(t=None, msg=None, name=None, x=None, message=None):
    """t, after a CheckNumerics of it has run (TF1's composite: an Identity with a control dependency)."""
    t = x if t is None else t
    msg = message if msg is None else msg
    if t is None or msg is None:
        raise ValueError("verify_tensor_all_finite needs a tensor (t or x) and a message (msg or message)")
    graph = ops.get_default_graph()
    with graph.name_scope(name or "VerifyFinite") as scope:
        t = ops.convert_to_tensor(t, name="t")
        verify_input = _check_numerics(t, msg)
        with ops.control_dependencies([verify_input]):
            return array_ops.identity(t, name=scope)


def add_check_numerics_ops():
    """A CheckNumerics op for every float output of the default graph (message "<op name>:<output index>"), run one
    after another; returns the group of them."""
    graph = ops.get_default_graph()
    check_op = None
    for op in list(graph.get_operations()):
        for i, output in enumerate(op.outputs):
            if output.dtype.is_floating:
                message = f"{op.name}:{i}"
                deps = [check_op] if check_op is not None else []
                with ops.control_dependencies(deps):
                    check_op = _check_numerics(output, message).op
    if check_op is None:
        return gen_ops.no_op(name="CheckNumerics")
    with ops.control_dependencies([check_op]):
        return gen_ops.no_op(name="group_deps")


# --- histograms -------------------------------------------------------------------------------------------------
def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """The bin (of nbins equal bins over value_range, the outer ones open-ended) of each value.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.histogram_fixed_width_bins([-1.0, 0.0, 1.5, 2.0, 5.0], [0.0, 5.0], nbins=5)))
      [0 0 1 2 4]
    """
    from tensorweave._src.ops import math_ops as m

    graph = ops.get_default_graph()
    with graph.name_scope(name or "histogram_fixed_width"):
        values = ops.convert_to_tensor(values, name="values")
        shape = array_ops.shape(values)
        values = array_ops.reshape(values, [-1])
        value_range = ops.convert_to_tensor(value_range, dtype=values.dtype, name="value_range")
        nbins = ops.convert_to_tensor(nbins, dtype=dtypes.int32, name="nbins")
        nbins_float = m.cast(nbins, values.dtype)
        scaled_values = m.truediv(values - value_range[0], value_range[1] - value_range[0], name="scaled_values")
        indices = m.floor(nbins_float * scaled_values, name="indices")
        indices = m.cast(m.clip_by_value(indices, 0, nbins_float - 1), dtype)
        return array_ops.reshape(indices, shape)


def histogram_fixed_width(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """How many values fall in each of nbins equal bins over value_range (values outside go to the outer bins).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.histogram_fixed_width([-1.0, 0.0, 1.5, 2.0, 5.0], [0.0, 5.0], nbins=5)))
      [2 1 1 0 1]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "histogram_fixed_width"):
        values = ops.convert_to_tensor(values, name="values")
        value_range = ops.convert_to_tensor(value_range, dtype=values.dtype, name="value_range")
        if values.dtype.is_integer:  # TensorFlow's HistogramFixedWidth kernel takes integers too
            values = math_ops.cast(values, dtypes.float64)
            value_range = math_ops.cast(value_range, dtypes.float64)
        from tensorweave._src.ops import logging_ops

        nbins_t = ops.convert_to_tensor(nbins, name="nbins")
        checks = [  # TF's HistogramFixedWidth kernel's checks (a bad range silently gave counts)
            logging_ops.Assert(
                math_ops.less(value_range[0], value_range[1]),
                ["value_range should satisfy value_range[0] < value_range[1], but got", value_range],
            ),
            logging_ops.Assert(math_ops.greater(nbins_t, 0), ["nbins should be a positive number, but got", nbins_t]),
        ]
        if values.dtype.is_floating:  # NaN fell into the first bin
            no_nan = math_ops.logical_not(math_ops.reduce_any(is_nan(values)))
            checks.append(logging_ops.Assert(no_nan, ["Histogram values must not contain NaN"]))
        with ops.control_dependencies(checks):
            values = array_ops.identity(values)
        bins = histogram_fixed_width_bins(values, value_range, nbins=nbins, dtype=dtypes.int32)
        flat = array_ops.reshape(bins, [-1])
        ones = math_ops.cast(array_ops.ones_like(flat), dtype)
        return array_ops.unsorted_segment_sum(ones, flat, nbins)


def is_numeric_tensor(tensor):
    """Whether `tensor` is a Tensor of a numeric dtype."""
    return isinstance(tensor, ops.Tensor) and (tensor.dtype.is_floating or tensor.dtype.is_integer)

"""Gradient cases for the tf.math ops of special_math_ops (trig, hyperbolic, error and gamma functions, safe
divisions, scans)."""

import tensorweave as tw

from gradient_cases import GradientCase

_POS = {"low": 0.5, "high": 2.0}
_UNIT = {"low": -0.8, "high": 0.8}
_F64 = tw.float64

CASES = [
    GradientCase("Sin", lambda x: tw.sin(x), [[2, 3]], ops=["Sin"]),
    GradientCase("Cos", lambda x: tw.cos(x), [[2, 3]], ops=["Cos"]),
    GradientCase("Tan", lambda x: tw.tan(x), [[2, 3]], ops=["Tan"]),
    GradientCase("Asin", lambda x: tw.asin(x), [[2, 3]], **_UNIT, ops=["Asin"]),
    GradientCase("Acos", lambda x: tw.acos(x), [[2, 3]], **_UNIT, ops=["Acos"]),
    GradientCase("Atan", lambda x: tw.atan(x), [[2, 3]], ops=["Atan"]),
    GradientCase("Sinh", lambda x: tw.sinh(x), [[2, 3]], ops=["Sinh"]),
    GradientCase("Cosh", lambda x: tw.cosh(x), [[2, 3]], ops=["Cosh"]),
    GradientCase("Asinh", lambda x: tw.asinh(x), [[2, 3]], ops=["Asinh"]),
    GradientCase("Acosh", lambda x: tw.acosh(x), [[2, 3]], low=1.2, high=3.0, ops=["Acosh"]),
    GradientCase("Atanh", lambda x: tw.atanh(x), [[2, 3]], **_UNIT, ops=["Atanh"]),
    GradientCase("Erf", lambda x: tw.erf(x), [[2, 3]], ops=["Erf"]),
    GradientCase("Erfc", lambda x: tw.erfc(x), [[2, 3]], ops=["Erfc"]),
    GradientCase("Erfinv", lambda x: tw.math.erfinv(x), [[2, 3]], **_UNIT, ops=["Erfinv"]),
    GradientCase("Ndtri", lambda x: tw.math.ndtri(x), [[2, 3]], low=0.1, high=0.9, ops=["Ndtri"]),
    GradientCase("Lgamma", lambda x: tw.lgamma(x), [[2, 3]], **_POS, ops=["Lgamma"]),
    GradientCase("Digamma", lambda x: tw.digamma(x), [[2, 3]], **_POS, ops=["Digamma"]),
    GradientCase("Expm1", lambda x: tw.expm1(x), [[2, 3]], ops=["Expm1"]),
    GradientCase(
        "Rint (zero almost everywhere)", lambda x: tw.rint(x) + x, [[4]], values=[[0.2, 1.3, -0.7, 2.6]], ops=["Rint"]
    ),
    GradientCase("BesselI0e", lambda x: tw.math.bessel_i0e(x), [[2, 3]], ops=["BesselI0e"]),
    GradientCase(
        "BesselI1e", lambda x: tw.math.bessel_i1e(x), [[5]], values=[[-1.5, -0.3, 0.0, 0.4, 2.0]], ops=["BesselI1e"]
    ),
    GradientCase("BesselI0", lambda x: tw.math.bessel_i0(x), [[2, 3]], ops=["BesselI0"]),
    GradientCase(
        "BesselI1", lambda x: tw.math.bessel_i1(x), [[5]], values=[[-1.5, -0.3, 0.0, 0.4, 2.0]], ops=["BesselI1"]
    ),
    GradientCase("Atan2 broadcast", lambda y, x: tw.atan2(y, x), [[2, 3], [3]], **_POS, ops=["Atan2"]),
    GradientCase("Xdivy", lambda x, y: tw.math.xdivy(x, y), [[2, 3], [3]], **_POS, ops=["Xdivy"]),
    GradientCase("Xlogy", lambda x, y: tw.math.xlogy(x, y), [[2, 3], [2, 1]], **_POS, ops=["Xlogy"]),
    GradientCase("Xlog1py", lambda x, y: tw.math.xlog1py(x, y), [[3], [2, 3]], **_POS, ops=["Xlog1py"]),
    GradientCase("DivNoNan", lambda x, y: tw.div_no_nan(x, y), [[2, 3], [3]], **_POS, ops=["DivNoNan"]),
    GradientCase("MulNoNan", lambda x, y: tw.math.multiply_no_nan(x, y), [[2, 3], [3]], ops=["MulNoNan"]),
    GradientCase(
        "Igamma (x)", lambda x: tw.igamma(tw.constant([0.7, 1.5, 3.0], _F64), x), [[3]], **_POS, ops=["Igamma"]
    ),
    GradientCase(
        "Igammac (x)", lambda x: tw.igammac(tw.constant([0.7, 1.5, 3.0], _F64), x), [[3]], **_POS, ops=["Igammac"]
    ),
    GradientCase("Zeta (q)", lambda q: tw.zeta(tw.constant(2.5, _F64), q), [[2, 3]], **_POS, ops=["Zeta"]),
    GradientCase(
        "Polygamma (x)", lambda x: tw.polygamma(tw.constant(1.0, _F64), x), [[2, 3]], **_POS, ops=["Polygamma"]
    ),
    GradientCase(
        "Betainc (x)",
        lambda x: tw.betainc(tw.constant([0.5, 2.0, 3.0], _F64), tw.constant([1.5, 2.0, 0.7], _F64), x),
        [[3]],
        low=0.2,
        high=0.8,
        ops=["Betainc"],
    ),
    GradientCase("Cumsum", lambda x: tw.cumsum(x, axis=1), [[2, 4]], ops=["Cumsum"]),
    GradientCase("Cumsum exclusive reverse", lambda x: tw.cumsum(x, axis=0, exclusive=True, reverse=True), [[3, 2]]),
    GradientCase("Cumprod", lambda x: tw.cumprod(x, axis=-1), [[2, 4]], **_POS, ops=["Cumprod"]),
    GradientCase(
        "Cumprod exclusive reverse", lambda x: tw.cumprod(x, axis=0, exclusive=True, reverse=True), [[3, 2]], **_POS
    ),
    GradientCase(
        "CumulativeLogsumexp",
        lambda x: tw.math.cumulative_logsumexp(x, axis=1, reverse=True),
        [[2, 4]],
        ops=["CumulativeLogsumexp"],
    ),
    # TF1's Python composites, through the ops above.
    GradientCase("reduce_logsumexp", lambda x: tw.reduce_logsumexp(x, axis=1), [[3, 4]]),
    GradientCase("clip_by_norm", lambda x: tw.clip_by_norm(x, 0.5), [[2, 3]]),
    # clip_by_average_norm keeps TF1's float32 element count, so it takes float32 only: its gradient is compared
    # with TensorFlow's in tests/fidelity/cases_math.py.
    GradientCase("polyval", lambda c, x: tw.math.polyval([c, 2.0 * c, c * c], x), [[], [4]]),
    GradientCase("reduce_std", lambda x: tw.math.reduce_std(x, axis=0), [[4, 2]]),
    GradientCase("lbeta", lambda x: tw.lbeta(x), [[2, 3]], **_POS),
]

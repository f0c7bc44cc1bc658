"""Gradient cases for the foundation ops."""

import tensorweave as tw
from gradient_cases import GradientCase

CASES = [
    GradientCase("Neg", lambda x: -x, [[2, 3]], ops=["Neg"]),
    GradientCase("Identity", lambda x: tw.identity(x), [[3]], ops=["Identity"]),
    GradientCase(
        "PlaceholderWithDefault",
        lambda x: tw.placeholder_with_default(x, [2, 3]) * 2.0,
        [[2, 3]],
        ops=["PlaceholderWithDefault"],
    ),
    # float64 -> float32 -> float64: inputs small enough that float32's
    # rounding (2**-24 relative) stays far below the 1e-6 differencing step.
    GradientCase(
        "Cast",
        lambda x: tw.cast(tw.cast(x, tw.float32), tw.float64) * 3.0,
        [[2, 3]],
        low=0.001,
        high=0.01,
        rtol=2e-3,
        ops=["Cast"],
    ),
    GradientCase("Reshape", lambda x: tw.reshape(x, [3, 2]), [[2, 3]], ops=["Reshape"]),
    GradientCase("MatMul", lambda a, b: tw.matmul(a, b), [[2, 3], [3, 4]], ops=["MatMul"]),
    GradientCase("MatMul transpose_a", lambda a, b: tw.matmul(a, b, transpose_a=True), [[3, 2], [3, 4]]),
    GradientCase("MatMul transpose_b", lambda a, b: tw.matmul(a, b, transpose_b=True), [[2, 3], [4, 3]]),
    GradientCase(
        "MatMul transpose both", lambda a, b: tw.matmul(a, b, transpose_a=True, transpose_b=True), [[3, 2], [4, 3]]
    ),
]

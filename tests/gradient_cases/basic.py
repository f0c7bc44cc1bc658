"""Gradient cases for the foundation ops."""

import tensorweave as tw
from gradient_cases import GradientCase

CASES = [
    GradientCase("Neg", lambda x: -x, [[2, 3]], ops=["Neg"]),
    GradientCase("Identity", lambda x: tw.identity(x), [[3]], ops=["Identity"]),
    GradientCase("Reshape", lambda x: tw.reshape(x, [3, 2]), [[2, 3]], ops=["Reshape"]),
    GradientCase("MatMul", lambda a, b: tw.matmul(a, b), [[2, 3], [3, 4]], ops=["MatMul"]),
    GradientCase("MatMul transpose_a", lambda a, b: tw.matmul(a, b, transpose_a=True), [[3, 2], [3, 4]]),
    GradientCase("MatMul transpose_b", lambda a, b: tw.matmul(a, b, transpose_b=True), [[2, 3], [4, 3]]),
    GradientCase(
        "MatMul transpose both", lambda a, b: tw.matmul(a, b, transpose_a=True, transpose_b=True), [[3, 2], [4, 3]]
    ),
]

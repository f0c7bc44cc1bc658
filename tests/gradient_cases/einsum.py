"""Gradient cases for einsum and tensordot (compositions: the ops they build are covered elsewhere)."""

import tensorweave as tw
from gradient_cases import GradientCase

CASES = [
    GradientCase("einsum batch matmul", lambda a, b: tw.einsum("bij,bjk->bik", a, b), [[2, 3, 4], [2, 4, 2]]),
    GradientCase("einsum three operands", lambda a, b, c: tw.einsum("ij,jk,k->i", a, b, c), [[2, 3], [3, 4], [4]]),
    GradientCase("tensordot", lambda a, b: tw.tensordot(a, b, [[0, 2], [1, 0]]), [[2, 3, 4], [4, 2, 5]]),
]

"""Gradient cases for TopKV2 (and sort, built from it)."""

import tensorweave as tw
from gradient_cases import GradientCase

CASES = [
    GradientCase("TopKV2", lambda x: tw.nn.top_k(x, 2).values, [[3, 5]], ops=["TopKV2"]),
    GradientCase("sort along axis 0", lambda x: tw.sort(x, axis=0, direction="DESCENDING"), [[4, 2]]),
]

"""Gradient cases for FractionalMaxPool and FractionalAvgPool (float64 central differences). The pooling
sequences are fixed (deterministic, seeded) so that every perturbed run pools the same regions; max pooling
inputs have no ties."""

import numpy as np
import tensorweave as tw

from gradient_cases import GradientCase

_rng = np.random.default_rng(16)


def _distinct(*shape):
    n = int(np.prod(shape))
    return (_rng.permutation(n).astype(np.float64) / n - 0.5).reshape(shape)


def _fixed(pool, **kw):
    return lambda x: pool(x, [1.0, 1.6, 1.4, 1.0], deterministic=True, seed=7, seed2=3, **kw)[0]


CASES = [
    GradientCase(
        "FractionalMaxPool random",
        _fixed(tw.nn.fractional_max_pool),
        None,
        values=[_distinct(2, 9, 7, 2)],
        ops=["FractionalMaxPool"],
    ),
    GradientCase(
        "FractionalMaxPool pseudo-random overlapping",
        _fixed(tw.nn.fractional_max_pool, pseudo_random=True, overlapping=True),
        None,
        values=[_distinct(1, 8, 9, 3)],
    ),
    GradientCase(
        "FractionalAvgPool random",
        _fixed(tw.nn.fractional_avg_pool),
        [[2, 9, 7, 2]],
        ops=["FractionalAvgPool"],
    ),
    GradientCase(
        "FractionalAvgPool pseudo-random overlapping",
        _fixed(tw.nn.fractional_avg_pool, pseudo_random=True, overlapping=True),
        [[1, 8, 9, 3]],
    ),
]

"""Gradient cases for the sparse segment reductions and DynamicPartition/DynamicStitch (indices and ids are
constants; only data is differentiated)."""

import numpy as np

import tensorweave as tw
from gradient_cases import GradientCase

_ROWS = np.array([0, 2, 2, 3])  # rows of data gathered (one twice)
_SEGMENTS = np.array([0, 0, 1, 1])


def _sparse_segment(name, fn, with_num):
    ops = [name + ("WithNumSegments" if with_num else "")]
    extra = {"num_segments": 3} if with_num else {}
    return GradientCase(ops[0], lambda d: fn(d, _ROWS, _SEGMENTS, **extra), [[4, 2]], ops=ops)


CASES = [
    _sparse_segment("SparseSegmentSum", tw.sparse_segment_sum, False),
    _sparse_segment("SparseSegmentSum", tw.sparse_segment_sum, True),
    _sparse_segment("SparseSegmentMean", tw.sparse_segment_mean, False),
    _sparse_segment("SparseSegmentMean", tw.sparse_segment_mean, True),
    _sparse_segment("SparseSegmentSqrtN", tw.sparse_segment_sqrt_n, False),
    _sparse_segment("SparseSegmentSqrtN", tw.sparse_segment_sqrt_n, True),
    GradientCase(
        "DynamicPartition",
        lambda d: tw.concat(tw.dynamic_partition(d, np.array([1, 0, 1, 0]), 2), 0) * [[1.0], [2.0], [3.0], [4.0]],
        [[4, 2]],
        ops=["DynamicPartition"],
    ),
    GradientCase(
        "DynamicStitch",
        lambda a, b: tw.dynamic_stitch([np.array([0, 2]), np.array([1, 3])], [a, b]) * [[1.0], [2.0], [3.0], [4.0]],
        [[2, 2], [2, 2]],
        ops=["DynamicStitch"],
    ),
]

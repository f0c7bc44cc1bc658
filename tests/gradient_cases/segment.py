"""Gradient cases for the segment reductions (ids are constants; only data is differentiated)."""

import numpy as np

import tensorweave as tw
from gradient_cases import GradientCase

_IDS = np.array([0, 0, 2, 2, 2])
_UNSORTED = np.array([2, -1, 0, 2, 0])
# Every segment non-empty: an empty one holds the dtype's extreme value, which overflows the numeric sum.
_UNSORTED_FULL = np.array([2, -1, 0, 1, 0])
# Distinct values, so that min/max have one winner per segment (ties split the gradient, as TensorFlow).
_VALUES = [[[0.3, -0.8], [0.9, 0.1], [-0.5, 0.7], [0.6, -0.2], [0.2, 0.4]]]

CASES = [
    GradientCase("SegmentSum", lambda d: tw.segment_sum(d, _IDS), [[5, 2]], ops=["SegmentSum"]),
    GradientCase("SegmentMean", lambda d: tw.segment_mean(d, _IDS), [[5, 2]], ops=["SegmentMean"]),
    GradientCase("SegmentProd", lambda d: tw.segment_prod(d, _IDS), [[5, 2]], ops=["SegmentProd"]),
    GradientCase(
        "SegmentProd with a zero",
        lambda d: tw.segment_prod(d, _IDS),
        [[5]],
        values=[[0.5, 0.0, 0.7, -0.3, 0.9]],
    ),
    GradientCase("SegmentMin", lambda d: tw.segment_min(d, _IDS), [[5, 2]], values=_VALUES, ops=["SegmentMin"]),
    GradientCase("SegmentMax", lambda d: tw.segment_max(d, _IDS), [[5, 2]], values=_VALUES, ops=["SegmentMax"]),
    GradientCase(
        "UnsortedSegmentProd",
        lambda d: tw.unsorted_segment_prod(d, _UNSORTED, 3),
        [[5, 2]],
        ops=["UnsortedSegmentProd"],
    ),
    GradientCase(
        "UnsortedSegmentMin",
        lambda d: tw.unsorted_segment_min(d, _UNSORTED_FULL, 3),
        [[5, 2]],
        values=_VALUES,
        ops=["UnsortedSegmentMin"],
    ),
    GradientCase(
        "UnsortedSegmentMax",
        lambda d: tw.unsorted_segment_max(d, _UNSORTED_FULL, 3),
        [[5, 2]],
        values=_VALUES,
        ops=["UnsortedSegmentMax"],
    ),
    GradientCase(
        "UnsortedSegmentSum with a negative id",
        lambda d: tw.unsorted_segment_sum(d, _UNSORTED, 3),
        [[5, 2]],
    ),
    GradientCase("unsorted_segment_mean", lambda d: tw.unsorted_segment_mean(d, _UNSORTED, 4), [[5, 2]]),
    GradientCase("unsorted_segment_sqrt_n", lambda d: tw.unsorted_segment_sqrt_n(d, _UNSORTED, 3), [[5, 2]]),
]

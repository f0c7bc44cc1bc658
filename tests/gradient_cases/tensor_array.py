"""Gradient cases through TensorArrays (the gradient arrays of read/write/gather/scatter/concat/split) and the
functional ops built on them, against central differences."""

import tensorweave as tw

from gradient_cases import GradientCase


def _unstack_read(x):
    ta = tw.TensorArray(tw.float64, size=3).unstack(x)
    return ta.read(1) * 3.0 + ta.read(2) * ta.read(0)


def _write_stack(a, b):
    ta = tw.TensorArray(tw.float64, size=2).write(0, a * b).write(1, tw.sin(a))
    return ta.stack() * [[1.0, 2.0], [3.0, 4.0]]


def _scatter_gather(x):
    ta = tw.TensorArray(tw.float64, size=4, clear_after_read=False).scatter([3, 0, 1], x)
    return ta.gather([1, 3, 3]) * [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]


def _split_concat(x):
    ta = tw.TensorArray(tw.float64, size=2, infer_shape=False).split(x, [2, 3])
    return ta.concat() * [1.0, 2.0, 3.0, 4.0, 5.0]


CASES = [
    GradientCase(
        "TensorArray unstack+read", _unstack_read, [[3, 2]], ops=["TensorArrayReadV3", "TensorArrayScatterV3"]
    ),
    GradientCase(
        "TensorArray write+stack", _write_stack, [[2], [2]], ops=["TensorArrayWriteV3", "TensorArrayGatherV3"]
    ),
    GradientCase(
        "TensorArray scatter+gather", _scatter_gather, [[3, 2]], ops=["TensorArrayScatterV3", "TensorArrayGatherV3"]
    ),
    GradientCase("TensorArray split+concat", _split_concat, [[5]], ops=["TensorArraySplitV3", "TensorArrayConcatV3"]),
]

"""Gradient cases for the array ops."""

import tensorweave as tw
from gradient_cases import GradientCase


def _strided_slice_grad_op(dy):
    """StridedSliceGrad itself, differentiated with respect to dy."""
    g = tw.get_default_graph()
    op = g._create_op(
        "StridedSliceGrad",
        [tw.constant([4, 5]), tw.constant([1, 0]), tw.constant([4, 5]), tw.constant([2, 2]), dy],
    )
    return op.outputs[0]


def _mirror_pad_grad_op(x):
    g = tw.get_default_graph()
    op = g._create_op("MirrorPadGrad", [x, tw.constant([[1, 2], [0, 1]])], {"mode": "REFLECT"})
    return op.outputs[0]


def _legacy_gather(params):
    g = tw.get_default_graph()
    return g._create_op("Gather", [params, tw.constant([[2, 0], [2, 2]])]).outputs[0]


CASES = [
    GradientCase("Transpose 2-D", lambda x: tw.transpose(x), [[2, 3]], ops=["Transpose"]),
    GradientCase("Transpose NHWC->NCHW", lambda x: tw.transpose(x, [0, 3, 1, 2]), [[2, 2, 3, 2]]),
    GradientCase("Transpose general", lambda x: tw.transpose(x, [1, 2, 0]), [[2, 3, 2]]),
    GradientCase("ConcatV2", lambda a, b: tw.concat([a, b], 1), [[2, 3], [2, 2]], ops=["ConcatV2"]),
    GradientCase("ConcatV2 negative axis", lambda a, b: tw.concat([a, b], -2), [[1, 3], [2, 3]]),
    GradientCase("Split", lambda x: tw.split(x, 3, axis=1)[1], [[2, 6]], ops=["Split"]),
    GradientCase("SplitV", lambda x: tw.concat(tw.split(x, [1, -1], axis=0)[::-1], 0), [[3, 2]], ops=["SplitV"]),
    GradientCase("Pack", lambda a, b: tw.stack([a, b], axis=1), [[2, 3], [2, 3]], ops=["Pack"]),
    GradientCase("Unpack", lambda x: tw.unstack(x, axis=1)[2], [[2, 3]], ops=["Unpack"]),
    GradientCase("Slice", lambda x: tw.slice(x, [1, 0], [2, -1]), [[4, 3]], ops=["Slice"]),
    GradientCase("StridedSlice", lambda x: x[1:, ::-2, None], [[3, 5]], ops=["StridedSlice"]),
    GradientCase("StridedSlice shrink/ellipsis", lambda x: x[..., 1], [[2, 2, 3]]),
    GradientCase("StridedSliceGrad", _strided_slice_grad_op, [[2, 3]], ops=["StridedSliceGrad"]),
    GradientCase("Pad", lambda x: tw.pad(x, [[1, 0], [2, 1]]), [[2, 3]], ops=["Pad"]),
    GradientCase("PadV2", lambda x: tw.pad(x, [[1, 1]], constant_values=3.0), [[3]], ops=["PadV2"]),
    GradientCase(
        "MirrorPad REFLECT", lambda x: tw.pad(x, [[1, 2], [2, 0]], mode="REFLECT"), [[3, 3]], ops=["MirrorPad"]
    ),
    GradientCase("MirrorPad SYMMETRIC", lambda x: tw.pad(x, [[2, 2]], mode="SYMMETRIC"), [[3]]),
    GradientCase("MirrorPadGrad", _mirror_pad_grad_op, [[6, 3]], ops=["MirrorPadGrad"]),
    GradientCase("Tile", lambda x: tw.tile(x, [2, 3]), [[2, 2]], ops=["Tile"]),
    GradientCase("ExpandDims", lambda x: tw.expand_dims(x, 1), [[2, 3]], ops=["ExpandDims"]),
    GradientCase("Squeeze", lambda x: tw.squeeze(x, [0]), [[1, 3]], ops=["Squeeze"]),
    GradientCase("GatherV2", lambda p: tw.gather(p, [[2, 0], [2, 1]]), [[3, 2]], ops=["GatherV2"]),
    GradientCase("GatherV2 axis 1", lambda p: tw.gather(p, [2, 2, 0], axis=1), [[2, 3, 2]]),
    GradientCase("Gather", _legacy_gather, [[3, 2]], ops=["Gather"]),
    GradientCase(
        "UnsortedSegmentSum",
        lambda d: tw.unsorted_segment_sum(d, [[0, 2], [2, 2]], 3),
        [[2, 2, 3]],
        ops=["UnsortedSegmentSum"],
    ),
    GradientCase("Fill", lambda v: tw.fill([2, 3], v), [[]], ops=["Fill"]),
]

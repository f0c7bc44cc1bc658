"""Gradient cases for issue 16's array ops and the image resizes."""

import tensorweave as tw
from gradient_cases import GradientCase


def _tensor_scatter(fn):
    return lambda t, u: fn(t, [[2], [0]], u)


CASES = [
    GradientCase(
        "SparseToDense",
        lambda v, d: tw.raw_ops.SparseToDense(
            sparse_indices=[[0, 1], [2, 0]], output_shape=[3, 2], sparse_values=v, default_value=d
        ),
        [[2], []],
        ops=["SparseToDense"],
    ),
    GradientCase("GatherNd", lambda p: tw.gather_nd(p, [[1, 0], [0, 2], [1, 0]]), [[2, 3, 2]], ops=["GatherNd"]),
    GradientCase("ScatterNd", lambda u: tw.scatter_nd([[1], [3], [1]], u, [5, 2]), [[3, 2]], ops=["ScatterNd"]),
    GradientCase(
        "TensorScatterUpdate",
        _tensor_scatter(tw.tensor_scatter_nd_update),
        [[3, 2], [2, 2]],
        ops=["TensorScatterUpdate"],
    ),
    GradientCase(
        "TensorScatterAdd", _tensor_scatter(tw.tensor_scatter_nd_add), [[3, 2], [2, 2]], ops=["TensorScatterAdd"]
    ),
    GradientCase(
        "TensorScatterSub", _tensor_scatter(tw.tensor_scatter_nd_sub), [[3, 2], [2, 2]], ops=["TensorScatterSub"]
    ),
    GradientCase("ReverseV2", lambda x: tw.reverse(x, [0, 2]), [[2, 3, 2]], ops=["ReverseV2"]),
    GradientCase("Roll", lambda x: tw.roll(x, [1, -2], [0, 1]), [[3, 4]], ops=["Roll"]),
    GradientCase(
        "ReverseSequence",
        lambda x: tw.reverse_sequence(x, [2, 3], seq_axis=1, batch_axis=0),
        [[2, 4, 2]],
        ops=["ReverseSequence"],
    ),
    GradientCase("BroadcastTo", lambda x: tw.broadcast_to(x, [2, 3, 4]), [[3, 1]], ops=["BroadcastTo"]),
    GradientCase("SpaceToDepth", lambda x: tw.space_to_depth(x, 2), [[1, 4, 2, 3]], ops=["SpaceToDepth"]),
    GradientCase("DepthToSpace", lambda x: tw.depth_to_space(x, 2), [[1, 1, 2, 8]], ops=["DepthToSpace"]),
    GradientCase(
        "SpaceToBatchND",
        lambda x: tw.space_to_batch_nd(x, [2, 2], [[1, 0], [0, 1]]),
        [[1, 3, 3, 2]],
        ops=["SpaceToBatchND"],
    ),
    GradientCase(
        "BatchToSpaceND",
        lambda x: tw.batch_to_space_nd(x, [2, 2], [[1, 0], [0, 1]]),
        [[4, 2, 2, 1]],
        ops=["BatchToSpaceND"],
    ),
    GradientCase(
        "ExtractImagePatches",
        lambda x: tw.extract_image_patches(x, [1, 2, 3, 1], [1, 2, 1, 1], [1, 1, 2, 1], "SAME"),
        [[1, 4, 5, 2]],
        ops=["ExtractImagePatches"],
    ),
    GradientCase("EnsureShape", lambda x: tw.ensure_shape(x, [2, None]) * x, [[2, 3]], ops=["EnsureShape"]),
    GradientCase("IdentityN", lambda a, b: tw.identity_n([a, b])[0] * b, [[3], [3]], ops=["IdentityN"]),
    # ResizeBilinear computes in float32: small inputs keep its rounding far under the tolerance (the op is
    # linear, so its gradient does not depend on them).
    GradientCase(
        "ResizeBilinear",
        lambda x: tw.image.resize_bilinear(x, [5, 3]),
        [[2, 3, 4, 2]],
        low=-1e-3,
        high=1e-3,
        atol=1e-4,
        rtol=1e-3,
        ops=["ResizeBilinear"],
    ),
    GradientCase(
        "ResizeBilinear half-pixel",
        lambda x: tw.image.resize_bilinear(x, [2, 7], half_pixel_centers=True),
        [[1, 3, 4, 1]],
        low=-1e-3,
        high=1e-3,
        atol=1e-4,
        rtol=1e-3,
    ),
    GradientCase(
        "ResizeNearestNeighbor",
        lambda x: tw.image.resize_nearest_neighbor(x, [5, 3], align_corners=True),
        [[2, 3, 4, 2]],
        ops=["ResizeNearestNeighbor"],
    ),
    GradientCase(
        "TensorScatterMax",
        _tensor_scatter(tw.tensor_scatter_nd_max),
        [[3, 2], [2, 2]],
        ops=["TensorScatterMax"],
    ),
    GradientCase(
        "TensorScatterMin",
        _tensor_scatter(tw.tensor_scatter_nd_min),
        [[3, 2], [2, 2]],
        ops=["TensorScatterMin"],
    ),
    GradientCase("CheckNumerics", lambda x: tw.check_numerics(x, "x") * x, [[2, 3]], ops=["CheckNumerics"]),
    GradientCase("Diag", lambda x: tw.diag(x), [[2, 3]], ops=["Diag"]),
    GradientCase("DiagPart", lambda x: tw.diag_part(x), [[3, 2, 3, 2]], ops=["DiagPart"]),
    GradientCase(
        "ResizeBicubic",
        lambda x: tw.image.resize_bicubic(x, [5, 7]),
        [[1, 3, 4, 2]],
        low=-1e-3,
        high=1e-3,
        atol=1e-4,
        rtol=1e-3,
        ops=["ResizeBicubic"],
    ),
    GradientCase(
        "ResizeBicubic half-pixel",
        lambda x: tw.image.resize_bicubic(x, [2, 9], half_pixel_centers=True),
        [[1, 4, 3, 1]],
        low=-1e-3,
        high=1e-3,
        atol=1e-4,
        rtol=1e-3,
    ),
    # CropAndResize computes in float32 (small inputs, as ResizeBilinear); float32 boxes cannot carry a float64
    # difference quotient, so its boxes' gradient is checked in tests/test_api_image.py.
    GradientCase(
        "CropAndResize",
        lambda image: tw.image.crop_and_resize(image, [[0.11, 0.13, 0.82, 0.77], [0.2, 0.1, 0.6, 0.9]], [0, 1], [3, 4]),
        [[2, 4, 5, 2]],
        low=-1e-3,
        high=1e-3,
        atol=1e-4,
        rtol=1e-3,
        ops=["CropAndResize"],
    ),
]

"""Gradient cases of tensorweave._src.ops.image_box_ops (the box ops themselves are not differentiable)."""

import tensorweave as tw

from tests.gradient_cases import GradientCase

CASES = [
    GradientCase(
        "ExtractVolumePatches",
        lambda x: tw.extract_volume_patches(x, [1, 2, 3, 2, 1], [1, 1, 2, 1, 1], "SAME"),
        [[1, 3, 4, 3, 2]],
        ops=["ExtractVolumePatches"],
    ),
]

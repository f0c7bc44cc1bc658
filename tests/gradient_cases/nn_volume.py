"""Gradient cases for the 3-D convolution and pooling ops, LRN and MaxPoolWithArgmax (float64 central
differences); pooling inputs have no ties."""

import numpy as np
import tensorweave as tw

from gradient_cases import GradientCase

_rng = np.random.default_rng(3)


def _distinct(*shape):
    n = int(np.prod(shape))
    return (_rng.permutation(n).astype(np.float64) / n - 0.5).reshape(shape)


def _avg_pool3d_grad(g):
    """AvgPool3DGrad as a function of its incoming gradient g [1, 2, 2, 2, 2]."""
    x = tw.constant(np.zeros([1, 3, 4, 4, 2]))
    y = tw.nn.avg_pool3d(x, [1, 2, 2, 2, 1], [1, 1, 2, 2, 1], "VALID")
    return tw.gradients(y, x, grad_ys=g)[0]


CASES = [
    GradientCase(
        "Conv3D SAME",
        lambda x, w: tw.nn.conv3d(x, w, [1, 1, 2, 1, 1], "SAME"),
        [[2, 3, 4, 3, 2], [2, 2, 3, 2, 3]],
        ops=["Conv3D"],
    ),
    GradientCase(
        "Conv3D VALID dilated",
        lambda x, w: tw.nn.conv3d(x, w, [1, 1, 1, 1, 1], "VALID", dilations=[1, 2, 1, 2, 1]),
        [[1, 4, 3, 4, 1], [2, 2, 2, 1, 2]],
    ),
    GradientCase(
        "Conv3DBackpropInputV2",
        lambda w, dy: tw.nn.conv3d_transpose(dy, w, [1, 4, 4, 4, 2], [1, 2, 2, 2, 1], "SAME"),
        [[2, 2, 2, 2, 3], [1, 2, 2, 2, 3]],
        ops=["Conv3DBackpropInputV2"],
    ),
    GradientCase(
        "Conv3DBackpropFilterV2",
        lambda x, dy: tw.nn.conv3d_backprop_filter_v2(x, [2, 2, 2, 2, 3], dy, [1, 1, 1, 1, 1], "VALID"),
        [[1, 3, 3, 3, 2], [1, 2, 2, 2, 3]],
        ops=["Conv3DBackpropFilterV2"],
    ),
    GradientCase(
        "MaxPool3D",
        lambda x: tw.nn.max_pool3d(x, [1, 2, 2, 2, 1], [1, 2, 1, 2, 1], "SAME"),
        None,
        values=[_distinct(2, 3, 4, 4, 2)],
        ops=["MaxPool3D"],
    ),
    GradientCase(
        "AvgPool3D",
        lambda x: tw.nn.avg_pool3d(x, [1, 2, 3, 2, 1], [1, 1, 2, 2, 1], "SAME"),
        [[2, 3, 4, 4, 2]],
        ops=["AvgPool3D"],
    ),
    GradientCase("AvgPool3DGrad", _avg_pool3d_grad, [[1, 2, 2, 2, 2]], ops=["AvgPool3DGrad"]),
    GradientCase(
        "LRN",
        lambda x: tw.nn.lrn(x, depth_radius=2, bias=1.5, alpha=0.3, beta=0.75),
        [[2, 2, 3, 7]],
        ops=["LRN"],
    ),
    GradientCase(
        "MaxPoolWithArgmax",
        lambda x: tw.nn.max_pool_with_argmax(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME").output,
        None,
        values=[_distinct(2, 5, 5, 3)],
        ops=["MaxPoolWithArgmax"],
    ),
]

CASES.append(
    GradientCase(
        "Dilation2D",
        lambda x, f: tw.nn.dilation2d(x, f, [1, 2, 1, 1], [1, 1, 2, 1], "SAME"),
        None,
        values=[_distinct(2, 5, 5, 2), _distinct(2, 2, 2) * 0.1],
        ops=["Dilation2D"],
    )
)

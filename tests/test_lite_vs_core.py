"""One harness for every lite builtin op: the same small graph runs in the
core, on the lite runtime (.twl) and in onnxruntime (.onnx), and all three
must agree. Cases are data; each exclusion says why.

tests/test_registry.py reads `CASES` through `coverage()`: every lite
builtin (the schema's BuiltinOperator) must come out of converting some
case, and every op type of the tf->twl table must occur in some case's
frozen graph or be listed in `NO_CASE` with the reason.
"""

import dataclasses
import zlib
from collections.abc import Sequence
from typing import Callable

import numpy as np
import pytest
import tensorweave as tw

from converters import freeze, lite_runner, onnx_export, tf_to_twl, twl_schema, twl_writer

LITE_RTOL, LITE_ATOL = 1e-4, 1e-5
ONNX_RTOL, ONNX_ATOL = 1e-5, 1e-6


@dataclasses.dataclass
class Case:
    name: str
    fn: Callable  # placeholder(s) -> Tensor
    shapes: Sequence[Sequence[int]]
    low: float = -2.0
    high: float = 2.0
    dtype: type = np.float32
    onnx: bool = True  # False only with a reason in `why`
    why: str = ""


rng = np.random.default_rng(7)
W = {
    n: rng.standard_normal(s).astype(np.float32)
    for n, s in {
        "fc": (6, 4),
        "conv": (3, 3, 2, 4),
        "dw": (3, 3, 2, 2),
        "bmm": (6, 5),
        "gather": (5, 3),
        "deconv": (3, 3, 2, 3),
        "conv3d": (3, 2, 3, 2, 4),
        "deconv3d": (3, 2, 3, 3, 2),
    }.items()
}


def _rnn(kind, x, *states, linear_before_reset=False, hidden=3, **activations):
    """The converter's _TwlRnn (ONNX's LSTM/GRU/RNN over x [T, N, I]): its sequence plus its final states."""
    gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[kind]
    r = np.random.default_rng(len(kind) + linear_before_reset)
    w, rec, b = (
        tw.constant(r.standard_normal(shape).astype(np.float32) * 0.7)
        for shape in ([1, gates * hidden, x.shape[2]], [1, gates * hidden, hidden], [1, 2 * gates * hidden])
    )
    attrs = {"kind": kind, "hidden_size": hidden, "num_states": len(states), "num_lengths": 0}
    attrs["linear_before_reset"] = linear_before_reset
    attrs.update(activations)  # gate_activation, activation, activation_alpha, activation_beta
    op = tw.get_default_graph()._create_op("_TwlRnn", [x, w, rec, b, list(states)], attrs=attrs, name="rnn")
    total = op.outputs[0]
    for i in range(len(states)):
        total = total + op.outputs[1 + i]  # ([1, N, H], broadcast over the steps)
    return total


_ONLY_TO_TWL = "the ONNX exporter has no exporter for it (converters/tables.py ONLY_TO_TWL)"

CASES = [
    Case("_TwlRnn LSTM", lambda x, h, c: _rnn("LSTM", x, h, c), [[4, 2, 5], [1, 2, 3], [1, 2, 3]]),
    Case("_TwlRnn GRU", lambda x, h: _rnn("GRU", x, h, linear_before_reset=True), [[4, 2, 5], [1, 2, 3]]),
    Case("_TwlRnn GRU reset first", lambda x, h: _rnn("GRU", x, h), [[4, 2, 5], [1, 2, 3]]),
    Case("_TwlRnn RNN", lambda x, h: _rnn("RNN", x, h), [[4, 2, 5], [1, 2, 3]]),
    Case(
        "_TwlRnn LSTM hard_sigmoid gates, relu",
        lambda x, h, c: _rnn("LSTM", x, h, c, gate_activation="HardSigmoid", activation="Relu"),
        [[4, 2, 5], [1, 2, 3], [1, 2, 3]],
    ),
    Case(
        "_TwlRnn GRU reset first, Keras 3 hard_sigmoid gates",
        lambda x, h: _rnn("GRU", x, h, gate_activation="HardSigmoid", activation_alpha=1 / 6),
        [[4, 2, 5], [1, 2, 3]],
    ),
    Case("_TwlRnn RNN relu", lambda x, h: _rnn("RNN", x, h, activation="Relu"), [[4, 2, 5], [1, 2, 3]]),
    Case("Add broadcast", lambda x, y: x + y, [[2, 3, 4], [4]]),
    Case("Sub", lambda x, y: x - y, [[2, 3], [2, 3]]),
    Case("Mul broadcast", lambda x, y: x * y, [[2, 1, 4], [3, 1]]),
    Case("RealDiv", lambda x, y: x / y, [[2, 3], [3]], low=0.5, high=2.0),
    Case("Maximum", lambda x, y: tw.maximum(x, y), [[2, 3], [2, 3]]),
    Case("Minimum", lambda x, y: tw.minimum(x, y), [[2, 3], [3]]),
    Case("MatMul (FULLY_CONNECTED)", lambda x: tw.matmul(x, W["fc"]), [[3, 6]]),
    Case(
        "MatMul + BiasAdd + Relu (fused)",
        lambda x: tw.nn.relu(tw.nn.bias_add(tw.matmul(x, W["fc"]), [0.1, -0.2, 0.3, 0.0])),
        [[3, 6]],
    ),
    Case("BatchMatMulV2", lambda x: tw.matmul(x, W["bmm"]), [[2, 3, 6]]),
    Case("Conv2D VALID", lambda x: tw.nn.conv2d(x, W["conv"], [1, 1, 1, 1], "VALID"), [[2, 6, 6, 2]]),
    Case("Conv2D SAME stride 2", lambda x: tw.nn.conv2d(x, W["conv"], [1, 2, 2, 1], "SAME"), [[1, 7, 7, 2]]),
    Case(
        "Conv2D dilated",
        lambda x: tw.nn.conv2d(x, W["conv"], [1, 1, 1, 1], "VALID", dilations=[1, 2, 2, 1]),
        [[1, 8, 8, 2]],
    ),
    Case(
        "DepthwiseConv2dNative",
        lambda x: tw.nn.depthwise_conv2d_native(x, W["dw"], [1, 1, 1, 1], "SAME"),
        [[1, 5, 5, 2]],
    ),
    Case("MaxPool", lambda x: tw.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"), [[2, 4, 4, 3]]),
    Case("AvgPool SAME", lambda x: tw.nn.avg_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME"), [[1, 5, 5, 2]]),
    Case("Relu", lambda x: tw.nn.relu(x), [[2, 5]]),
    Case("Mul + Relu6 (fused)", lambda x: tw.nn.relu6(x * 4.0), [[2, 5]]),
    Case("Relu6", lambda x: tw.nn.relu6(x), [[2, 5]], low=-3.0, high=9.0),
    Case(
        "Conv2D + BiasAdd + Relu6 (fused)",
        lambda x: tw.nn.relu6(tw.nn.bias_add(tw.nn.conv2d(x, W["conv"], [1, 1, 1, 1], "SAME"), [0.5, -0.5, 1.0, 0.0])),
        [[1, 5, 5, 2]],
    ),
    Case("Sub + Tanh (fused)", lambda x, y: tw.tanh(x - y), [[2, 3], [3]]),
    Case("Sigmoid", lambda x: tw.sigmoid(x), [[2, 5]]),
    Case("Tanh", lambda x: tw.tanh(x), [[2, 5]]),
    Case("Exp", lambda x: tw.exp(x), [[2, 5]]),
    Case("Log", lambda x: tw.log(x), [[2, 5]], low=0.1, high=3.0),
    Case("Sqrt", lambda x: tw.sqrt(x), [[2, 5]], low=0.1, high=3.0),
    Case("Rsqrt", lambda x: tw.rsqrt(x), [[2, 5]], low=0.1, high=3.0),
    Case("Square", lambda x: tw.square(x), [[2, 5]]),
    Case("Neg", lambda x: -x, [[2, 5]]),
    Case("Abs", lambda x: tw.abs(x), [[2, 5]]),
    Case("Softmax", lambda x: tw.nn.softmax(x), [[3, 7]]),
    Case("LogSoftmax", lambda x: tw.nn.log_softmax(x), [[3, 7]]),
    Case("Reshape", lambda x: tw.reshape(x, [-1, 6]), [[2, 3, 4]]),
    Case("Transpose", lambda x: tw.transpose(x, [0, 2, 1, 3]), [[2, 3, 4, 5]]),
    Case("ConcatV2", lambda x, y: tw.concat([x, y, x], axis=1), [[2, 3], [2, 2]]),
    Case("Mean keepdims", lambda x: tw.reduce_mean(x, [1, 2], keepdims=True), [[2, 3, 4, 5]]),
    Case("Pad", lambda x: tw.pad(x, [[0, 1], [2, 0]]), [[2, 3]]),
    Case("GatherV2", lambda x: tw.gather(W["gather"], tw.cast(x, tw.int32)), [[4]], low=0, high=4.99),
    Case("Slice", lambda x: tw.slice(x, [1, 0], [2, 2]), [[3, 4]]),
    Case("StridedSlice", lambda x: x[:, ::2, 1:], [[2, 5, 4]]),
    Case("Squeeze", lambda x: tw.squeeze(x, [1]), [[3, 1, 4]]),
    Case("ExpandDims", lambda x: tw.expand_dims(x, 1), [[3, 4]]),
    Case("ArgMax", lambda x: tw.argmax(x, 1), [[3, 6]]),
    Case("Cast", lambda x: tw.cast(tw.cast(x * 3.0, tw.int32), tw.float32), [[2, 5]]),
    Case("Div", lambda x, y: _op("Div", x, y), [[2, 3], [3]], low=0.5, high=2.0),
    Case("Reciprocal", lambda x: tw.reciprocal(x), [[2, 5]], low=0.5, high=2.0),
    Case("Pow 2, 0.5, -0.5", lambda x: tw.pow(x, 2.0) + tw.pow(x, 0.5) + tw.pow(x, -0.5), [[2, 5]], low=0.1, high=3.0),
    Case(
        "Pow 3, 1.5 and a tensor exponent",
        lambda x, y: tw.pow(x, 3.0) + tw.pow(x, 1.5) + tw.pow(x, y),
        [[2, 5], [5]],
        low=0.1,
        high=2.0,
    ),
    Case("Sum", lambda x: tw.reduce_sum(x, [0, 2]), [[2, 3, 4]]),
    Case("Pack", lambda x, y: tw.stack([x, y], axis=1), [[2, 3], [2, 3]]),
    Case("PadV2", lambda x: tw.pad(x, [[1, 0], [0, 2]], constant_values=1.5), [[2, 3]]),
    Case(
        "FusedBatchNorm inference",
        lambda x: tw.nn.fused_batch_norm(
            x, [1.0, 0.5], [0.1, -0.2], mean=[0.3, -0.1], variance=[0.5, 2.0], epsilon=0.01, is_training=False
        )[0],
        [[1, 3, 3, 2]],
    ),
    # tf->twl only (tables.ONLY_TO_TWL): what TensorFlow's own graphs hold (tf_keras models).
    Case("Split", lambda x: tw.split(x, 2, axis=1)[1] * 2.0, [[2, 4, 3]]),
    Case("SplitV", lambda x: tw.split(x, [1, -1], axis=2)[1], [[2, 3, 4]]),
    Case("Unpack", lambda x: tw.unstack(x, axis=1)[2], [[2, 3, 4]]),
    # More outputs than a lite op has (16): a tree of SPLITs (twl_writer); a static RNN unstacks its steps so.
    Case(
        "Unpack of 20",
        lambda x: tw.stack([t * float(i) for i, t in enumerate(tw.unstack(x, axis=1))], axis=1),
        [[2, 20, 3]],
    ),
    # Comparisons, logic, selection and element-wise math as TF graphs hold them (Keras' ELU with alpha != 1,
    # Masking, GroupNormalization, causal attention masks).
    Case(
        "Comparisons and logic",
        lambda x, y: (
            tw.cast(
                tw.logical_or(tw.logical_and(x > y, x >= 0.0), tw.logical_not(tw.not_equal(x < y, x <= 0.5))),
                tw.float32,
            )
            + tw.cast(tw.equal(x, x), tw.float32)
        ),
        [[2, 5], [5]],
    ),
    Case("Select", lambda x, y: tw.where(x > y, x, y * 2.0), [[2, 5], [2, 5]]),
    Case("Select rows", lambda x, y: tw.where(x[:, 0] > 0, x, y), [[3, 4], [3, 4]]),
    Case(
        "SelectV2",
        lambda x, y: tw.where_v2(x > 0.0, x, y * 2.0),
        [[2, 1, 5], [3, 1]],
    ),
    Case(
        "FloorDiv and FloorMod",
        lambda x, y: (
            tw.floordiv(x - 1.7, y)
            + tw.floormod(x - 1.7, y)
            + tw.cast(tw.floordiv(tw.cast(x * 5.0 - 7.0, tw.int32), tw.cast(y * 2.0, tw.int32)), tw.float32)
        ),
        [[3, 4], [4]],
        low=0.5,
        high=3.0,
    ),
    Case("DivNoNan", lambda x, y: tw.div_no_nan(x, tw.nn.relu(y)), [[2, 6], [2, 6]]),
    Case(
        "Any and All",
        lambda x: tw.cast(tw.reduce_any(x > 1.0, axis=1), tw.float32) + tw.cast(tw.reduce_all(x > -1.5, 1), tw.float32),
        [[4, 3]],
    ),
    Case("DepthToSpace", lambda x: tw.nn.depth_to_space(x, 2) * 2.0, [[1, 2, 3, 8]]),
    Case("SpaceToDepth", lambda x: tw.nn.space_to_depth(x, 2) * 2.0, [[1, 4, 6, 2]]),
    Case(
        "MatrixBandPart",
        lambda x: tw.linalg.band_part(x, -1, 0) + tw.linalg.band_part(x, 1, 2) + tw.linalg.band_part(x, 0, -1),
        [[2, 4, 5]],
    ),
    Case(
        "Element-wise math",
        lambda x: (
            tw.floor(x)
            + tw.ceil(x)
            + tw.round(x)
            + tw.sign(x)
            + tw.sin(x)
            + tw.cos(x)
            + tw.tan(x * 0.5)
            + tw.atan(x)
            + tw.sinh(x)
            + tw.cosh(x)
            + tw.asinh(x)
            + tw.acosh(x * x + 1.0)
        ),
        [[3, 5]],
    ),
    Case(
        "Inverse trigonometry, NaN and Inf tests",
        lambda x: (
            tw.asin(x)
            + tw.acos(x)
            + tw.atanh(x)
            + tw.cast(tw.logical_or(tw.is_nan(tw.log(x)), tw.is_inf(1.0 / tw.nn.relu(x))), tw.float32)
        ),
        [[3, 5]],
        low=-0.9,
        high=0.9,
    ),
    Case("Split into 35", lambda x: tw.concat(tw.split(x, 35, axis=1)[::-1], 1), [[2, 35]]),
    Case(
        "ResizeBilinear align_corners",
        lambda x: tw.image.resize_bilinear(x, [5, 7], align_corners=True),
        [[1, 3, 4, 2]],
    ),
    Case(
        "ResizeNearestNeighbor half_pixel_centers",
        lambda x: tw.image.resize_nearest_neighbor(x, [6, 5], half_pixel_centers=True),
        [[1, 3, 4, 2]],
    ),
    Case(
        "ResizeBilinear half_pixel_centers and asymmetric",
        lambda x: (
            tw.image.resize_bilinear(x, [7, 5], half_pixel_centers=True) * 2.0 + tw.image.resize_bilinear(x, [7, 5])
        ),
        [[1, 3, 4, 2]],
    ),
    Case(
        "ResizeNearestNeighbor align_corners and asymmetric",
        lambda x: (
            tw.image.resize_nearest_neighbor(x, [5, 7], align_corners=True) * 2.0
            + tw.image.resize_nearest_neighbor(x, [5, 7])
        ),
        [[1, 3, 4, 2]],
    ),
    Case(
        "ResizeBicubic half_pixel_centers, align_corners, neither",
        lambda x: (
            tw.image.resize_bicubic(x, [7, 9], half_pixel_centers=True)
            + tw.image.resize_bicubic(x, [7, 9], align_corners=True)
            + tw.image.resize_bicubic(x, [7, 9])
        ),
        [[2, 3, 4, 2]],
        onnx=False,
        why="TensorFlow weighs the taps at fractions rounded to 1/1024 of a pixel, which ONNX's cubic Resize "
        "cannot at these scales (the exporter refuses it; the case below exports)",
    ),
    Case(
        "ResizeBicubic at scales ONNX expresses (2x half_pixel_centers and asymmetric, align_corners 2:1)",
        lambda x: tw.concat(
            [
                tw.reshape(tw.image.resize_bicubic(x, [6, 8], half_pixel_centers=True), [2, -1]),
                tw.reshape(tw.image.resize_bicubic(x, [6, 8]), [2, -1]),
                tw.reshape(tw.image.resize_bicubic(x, [5, 7], align_corners=True), [2, -1]),
            ],
            1,
        ),
        [[2, 3, 4, 2]],
    ),
    Case(
        "ResizeArea shrinking, growing, both",
        lambda x: tw.concat(
            [tw.reshape(tw.image.resize_area(x, s), [-1]) for s in ([2, 3], [8, 12], [2, 12], [8, 3])], 0
        ),
        [[2, 4, 6, 3]],
    ),
    Case(
        "Cumsum (exclusive, reverse)",
        lambda x: tw.cumsum(x, 1) + tw.cumsum(x, 2, exclusive=True, reverse=True),
        [[2, 3, 4]],
    ),
    Case(
        "Cumprod (exclusive, reverse)",
        lambda x: tw.math.cumprod(x, 1) + tw.math.cumprod(x, 2, exclusive=True, reverse=True),
        [[2, 3, 4]],
    ),
    Case(
        "TopKV2 values and indices",
        lambda x: tw.nn.top_k(x, 3).values * tw.cast(tw.nn.top_k(x, 3).indices + 1, tw.float32),
        [[2, 3, 6]],
    ),
    Case(
        "IsFinite",
        lambda x: tw.cast(tw.math.is_finite(tw.math.log(x) / (x - 1.0)), tw.float32),
        [[3, 5]],
        low=-1.0,
        high=1.0,
    ),
    Case(
        "Conv3D SAME strided, VALID dilated",
        lambda x: tw.concat(
            [
                tw.reshape(tw.nn.conv3d(x, W["conv3d"], [1, 2, 1, 2, 1], "SAME"), [2, -1]),
                tw.reshape(tw.nn.conv3d(x, W["conv3d"], [1, 1, 1, 1, 1], "VALID", dilations=[1, 2, 1, 1, 1]), [2, -1]),
            ],
            1,
        ),
        [[2, 5, 4, 5, 2]],
    ),
    Case(
        "Conv3DBackpropInputV2 SAME strided, VALID (Keras' Conv3DTranspose)",
        lambda x: tw.concat(
            [
                tw.reshape(
                    tw.nn.conv3d_transpose(x, W["deconv3d"], [2, 6, 7, 10, 3], [1, 2, 2, 2, 1], "SAME"), [2, -1]
                ),
                tw.reshape(
                    tw.nn.conv3d_transpose(x, W["deconv3d"], [2, 5, 9, 7, 3], [1, 1, 2, 1, 1], "VALID"), [2, -1]
                ),
            ],
            1,
        ),
        [[2, 3, 4, 5, 2]],
    ),
    Case(
        "MaxPool3D SAME, AvgPool3D SAME and VALID",
        lambda x: tw.concat(
            [
                tw.reshape(tw.nn.max_pool3d(x, [1, 2, 3, 2, 1], [1, 2, 2, 1, 1], "SAME"), [2, -1]),
                tw.reshape(tw.nn.avg_pool3d(x, [1, 3, 2, 2, 1], [1, 2, 1, 2, 1], "SAME"), [2, -1]),
                tw.reshape(tw.nn.avg_pool3d(x, [1, 2, 2, 2, 1], [1, 1, 2, 2, 1], "VALID"), [2, -1]),
            ],
            1,
        ),
        [[2, 5, 4, 5, 3]],
    ),
    Case(
        "Sum of int32 (a mask's count)",
        lambda x: tw.cast(tw.reduce_sum(tw.cast(x > 0.3, tw.int32), [1, 2]), tw.float32),
        [[3, 4, 5]],
        onnx=False,
        why=_ONLY_TO_TWL + " (Greater)",
    ),
    Case(
        "ArgMin",
        lambda x: (
            tw.cast(tw.argmin(x, 1), tw.float32) + tw.cast(tw.argmin(x, 2, output_type=tw.int32), tw.float32)[:, :1]
        ),
        [[2, 3, 4]],
    ),
    Case(
        "OneHot (a negative index: off values), BroadcastTo",
        lambda x: (
            tw.one_hot(tw.cast(x, tw.int32) - 1, 4, on_value=2.0, off_value=-1.0, axis=1)
            + tw.broadcast_to(x[:1, None, :], [3, 4, 5])
        ),
        [[3, 5]],
        low=0.0,
        high=4.9,
    ),
    Case(
        "GatherNd of computed indices",
        lambda x: tw.gather_nd(x, tw.stack([tw.constant([1, 0, 2]), tw.cast(tw.argmax(x[:, :, 0], 1), tw.int32)], 1)),
        [[3, 4, 2]],
    ),
    Case(
        "Atan2 in every quadrant, on the axes and at the origin",
        lambda y, x: tw.math.atan2(tw.round(y * 2.0) / 2.0 + 0.0, tw.round(x * 2.0) / 2.0 + 0.0),  # (no -0.0)
        [[4, 6], [4, 6]],
    ),
    Case(
        "Rint, Expm1, Log1p",
        lambda x: tw.math.rint(x * 2.0) + tw.math.expm1(x) + tw.math.log1p(tw.abs(x)),
        [[2, 5]],
    ),
    Case(
        "MirrorPad REFLECT, SYMMETRIC",
        lambda x: (
            tw.pad(x, [[0, 0], [2, 1], [1, 2], [0, 0]], mode="REFLECT")
            + tw.pad(x, [[0, 0], [2, 1], [1, 2], [0, 0]], mode="SYMMETRIC")
        ),
        [[2, 4, 3, 2]],
    ),
    Case(
        "ReverseSequence",
        lambda x: tw.reverse_sequence(x, [3, 1, 5], seq_axis=1, batch_axis=0),
        [[3, 5, 2]],
    ),
    Case(
        "LRN",
        lambda x: tw.nn.local_response_normalization(x, depth_radius=2, bias=1.5, alpha=0.3, beta=0.75),
        [[2, 3, 3, 7]],
    ),
    Case(
        "SpaceToBatchND, BatchToSpaceND",
        lambda x: tw.batch_to_space_nd(
            tw.space_to_batch_nd(x, [2, 2], [[1, 1], [0, 2]]) * 2.0, [2, 2], [[1, 1], [0, 2]]
        ),
        [[1, 4, 6, 2]],
    ),
    Case(
        "StridedSlice with ellipsis and new axes",
        lambda x: tw.reduce_sum(x[..., None, 1:3], [2, 3]) + x[None, :, ::-1, 0][0] * x[:, tw.newaxis, :, 2][:, 0],
        [[2, 3, 4]],
    ),
    Case("Elu", lambda x: tw.nn.elu(x), [[2, 5]]),
    Case("Selu", lambda x: tw.nn.selu(x), [[2, 5]]),
    Case("Softplus", lambda x: tw.nn.softplus(x), [[2, 5]]),
    Case("LeakyRelu", lambda x: tw.nn.leaky_relu(x, alpha=0.3), [[2, 5]]),
    Case("Erf", lambda x: tw.math.erf(x), [[2, 5]]),
    Case("Erfc", lambda x: tw.math.erfc(x), [[2, 5]]),
    Case("SquaredDifference", lambda x, y: tw.squared_difference(x, y), [[2, 5], [1, 5]]),
    Case("Tile", lambda x: tw.tile(x, [2, 1, 3]), [[2, 3, 2]]),
    Case("ReverseV2", lambda x: tw.reverse(x, [0, 2]), [[2, 3, 4]]),
    Case("IdentityN", lambda x: tw.identity_n([x * 2.0, x])[0] + 1.0, [[2, 3]]),
    Case(
        "Max, Min, Prod",
        lambda x: tw.reduce_max(x, 1) + tw.reduce_min(x, [1, 2], keepdims=False)[:, None] * tw.reduce_prod(x, 1),
        [[2, 3, 4]],
    ),
    Case(
        "Conv2DBackpropInput",
        lambda x: tw.nn.conv2d_transpose(x, W["deconv"], [1, 8, 8, 2], [1, 2, 2, 1], "SAME"),
        [[1, 4, 4, 3]],
    ),
    Case(
        "Conv2DBackpropInput VALID, odd output",
        lambda x: tw.nn.relu(tw.nn.conv2d_transpose(x, W["deconv"], [1, 10, 9, 2], [1, 2, 2, 1], "VALID")),
        [[1, 4, 4, 3]],
    ),
]

_NOT_A_CORE_OP = (
    "a TensorFlow op type the core does not define: a GraphDef holding it does not import into the core "
    "(the converter's shape inference), so no case can hold it and the entry is unreachable today"
)
# Entries of the tf->twl table (converters/tf_to_twl.py LOWERINGS) that no
# case's frozen graph can hold, each with the reason.
NO_CASE = {
    "BatchMatMul": _NOT_A_CORE_OP,
    "FusedBatchNormV2": _NOT_A_CORE_OP,
    "FusedBatchNormV3": _NOT_A_CORE_OP,
    "Snapshot": _NOT_A_CORE_OP,
    "Shape": "freezing folds the Shape of a static shape, and every case's placeholders are static (a run-time "
    "batch's Shape: tests/test_converters_real_exports_s18.py, Keras Conv2DTranspose)",
    "Fill": "freezing folds a Fill of constant dims, and every case's placeholders are static (a Fill of a run-time "
    "batch, Keras' RNN initial states: tests/test_converters_tf_models.py)",
    "ZerosLike": "freezing folds it where the shape is static, as in every case (a run-time batch's: "
    "tests/test_converters_tf_models.py, Keras' GroupNormalization)",
    "OnesLike": "freezing folds it where the shape is static, as in every case (a run-time batch's: "
    "tests/test_converters_tf_models.py, Keras' GroupNormalization)",
    "StopGradient": "freezing removes it (an identity at inference): no frozen graph holds it",
    "FusedBatchNorm": "freezing turns every inference batch norm with constant parameters into Mul + Add "
    "(the case 'FusedBatchNorm inference'); what it leaves (parameters not constant, batch statistics read) "
    "the lowering refuses, so no frozen core graph reaches it",
}


def _op(op_type, *inputs):
    """A raw op of `op_type` (for op types no public wrapper makes)."""
    return tw.get_default_graph()._create_op(op_type, list(inputs)).outputs[0]


def _outputs(case):
    values_rng = np.random.default_rng(zlib.crc32(case.name.encode()))  # the same values in any test order
    values = [values_rng.uniform(case.low, case.high, size=s).astype(case.dtype) for s in case.shapes]
    with tw.Graph().as_default(), tw.Session() as sess:
        xs = [tw.placeholder(tw.float32, v.shape, name=f"x{i}") for i, v in enumerate(values)]
        y = tw.identity(case.fn(*xs), name="y")
        expected = sess.run(y, dict(zip(xs, values)))
        frozen = freeze.freeze_session(sess, xs, [y])
    names = [f"x{i}" for i in range(len(values))]
    return frozen, names, values, expected


# Builtins only the ONNX importer produces (no TF1 core op lowers to them): each is compared with onnxruntime, op
# by op and in whole models, in tests/test_converters_transformer.py (encoders), tests/test_converters_rnn.py
# (recurrent nets) and tests/test_converters_elementwise_ops.py (elementwise math); test_registry checks that one of them names it.
ONNX_ONLY_BUILTINS = {"EQUAL", "ERF", "GELU", "GRU", "LAYER_NORM", "LSTM", "RNN", "SELECT", "RESIZE"}
# The index and data-movement ops (tests/test_converters_index_ops.py).
ONNX_ONLY_BUILTINS |= {
    "SPLIT",
    "TILE",
    "BROADCAST_TO",
    "TRILU",
    "CUMSUM",
    "CUMPROD",
    "GATHER_ELEMENTS",
    "SCATTER_ELEMENTS",
    "SCATTER_ND",
    "GATHER_ND",
    "ONE_HOT",
    "DEPTH_TO_SPACE",
    "SPACE_TO_DEPTH",
    "TOP_K",
    "REVERSE_SEQUENCE",
}
# Run-time shape values of models with several dynamic dims (tests/test_converters_dynamic_dims.py).
ONNX_ONLY_BUILTINS |= {"SHAPE"}
# Comparisons, logic, bitwise ops and reductions (tests/test_converters_logic_reduce_ops.py).
ONNX_ONLY_BUILTINS |= {
    *("NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL", "LOGICAL_AND", "LOGICAL_OR", "LOGICAL_NOT"),
    *("BITWISE_AND", "BITWISE_OR", "BITWISE_XOR", "BITWISE_NOT", "LEFT_SHIFT", "RIGHT_SHIFT"),
    *("REDUCE_SUM", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD", "ARG_MIN"),
}
# Elementwise math (tests/test_converters_elementwise_ops.py).
ONNX_ONLY_BUILTINS |= {
    *("SIN", "COS", "TAN", "ASIN", "ACOS", "ATAN", "SINH", "COSH", "ASINH", "ACOSH", "ATANH"),
    *("FLOOR", "CEIL", "ROUND", "SIGN", "IS_NAN", "IS_INF", "SOFTPLUS", "SOFTSIGN"),
    *("ELU", "SELU", "CELU", "LEAKY_RELU", "HARD_SIGMOID", "HARD_SWISH", "MISH", "THRESHOLDED_RELU", "SHRINK"),
    *("SWISH", "PRELU", "POW", "FLOOR_MOD", "FMOD"),
}
# Quantization (tests/test_converters_quant_ops.py).
ONNX_ONLY_BUILTINS |= {"DEQUANTIZE", "DYNAMIC_QUANTIZE", "QUANTIZE", "QUANTIZED_BATCH_MATMUL", "QUANTIZED_CONV_2D"}
# Window ops (tests/test_converters_conv_pool_ops.py).
ONNX_ONLY_BUILTINS |= {"LP_POOL_2D", "TRANSPOSE_CONV"}
# Fused attention (tests/test_converters_transformer.py).
ONNX_ONLY_BUILTINS |= {"ATTENTION"}
# Made by post-training quantization, not by a core graph (tests/test_converters_ptq.py).
ONNX_ONLY_BUILTINS |= {"QUANTIZED_ADD"}
# GridSample, RoiAlign, BitCast (tests/test_converters_composite_ops.py).
ONNX_ONLY_BUILTINS |= {"GRID_SAMPLE", "ROI_ALIGN", "BITCAST"}
# Data-dependent output shapes (tests/test_converters_dynamic_shapes.py).
ONNX_ONLY_BUILTINS |= {"NON_ZERO", "NON_MAX_SUPPRESSION"}


def builtin_names():
    """The lite runtime's op set that core graphs convert to: the schema's BuiltinOperator names."""
    return {k for k in vars(twl_schema.enum("BuiltinOperator")) if not k.startswith("_")} - ONNX_ONLY_BUILTINS


def coverage(cases=None):
    """{case name: (lite builtins its .twl holds, op types of its frozen graph)}
    of `cases` (default CASES), converted here (no lite runtime needed)."""
    names = {v: k for k, v in vars(twl_schema.enum("BuiltinOperator")).items() if not k.startswith("_")}
    out = {}
    for case in CASES if cases is None else cases:
        frozen, inputs, _, _ = _outputs(case)
        graph = twl_writer.read_model(tf_to_twl.convert(frozen, inputs, ["y"])).Subgraphs(0)
        builtins = {names[graph.Operators(i).Opcode()] for i in range(graph.OperatorsLength())}
        out[case.name] = (builtins, {node.op for node in frozen.node})
    return out


def uncovered(required, covered_by_case):
    """The names in `required` that no case covers (`covered_by_case`: {case: set})."""
    covered = set().union(*covered_by_case.values()) if covered_by_case else set()
    return sorted(set(required) - covered)


@pytest.mark.skipif(not lite_runner.available(), reason="needs bazel build //lite/c:libtensorweave_lite.so")
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_lite_and_onnxruntime_agree_with_the_core(case):
    frozen, names, values, expected = _outputs(case)
    twl = tf_to_twl.convert(frozen, names, ["y"])
    got = lite_runner.LiteRunner(twl).run(dict(zip(names, values)))["y"]
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=LITE_RTOL, atol=LITE_ATOL, err_msg="lite runtime")
    if not case.onnx:
        assert case.why, "an ONNX exclusion needs a reason"
        return
    import onnxruntime

    model = onnx_export.export(frozen, names, ["y"])
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feeds = {i.name: v for i, v in zip(session.get_inputs(), values)}
    (onnx_out,) = session.run(None, feeds)
    assert onnx_out.dtype == expected.dtype and onnx_out.shape == expected.shape
    np.testing.assert_allclose(onnx_out, expected, rtol=ONNX_RTOL, atol=ONNX_ATOL, err_msg="onnxruntime")

"""Gradient cases for the neural-network ops (float64 central differences).

Inputs of piecewise ops are kept away from their kinks (|x| >= 0.1) and
pooling inputs have no ties, so that central differences are exact.
"""

import numpy as np

import tensorweave as tw
from gradient_cases import GradientCase

_rng = np.random.default_rng(1)


def _vals(*shapes, low=0.1, high=1.0):
    """Random values with |v| in [low, high] and random signs."""
    out = []
    for s in shapes:
        v = _rng.uniform(low, high, size=s) * _rng.choice([-1.0, 1.0], size=s)
        out.append(v)
    return out


def _distinct(*shapes):
    """Values with distinct magnitudes (no ties for max pooling)."""
    out = []
    for s in shapes:
        n = int(np.prod(s))
        out.append((_rng.permutation(n).astype(np.float64) / n - 0.5).reshape(s))
    return out


CASES = [
    GradientCase("Relu", lambda x: tw.nn.relu(x), None, values=_vals([3, 4]), ops=["Relu"]),
    GradientCase("Relu6", lambda x: tw.nn.relu6(x), None, values=[np.array([-4.0, 0.2, 3.0, 5.5, 7.0])], ops=["Relu6"]),
    GradientCase("Elu", lambda x: tw.nn.elu(x), None, values=_vals([3, 4]), ops=["Elu"]),
    GradientCase("Selu", lambda x: tw.nn.selu(x), None, values=_vals([3, 4]), ops=["Selu"]),
    GradientCase("Softplus", lambda x: tw.nn.softplus(x), [[3, 4]], low=-3.0, high=3.0, ops=["Softplus"]),
    GradientCase("LeakyRelu", lambda x: tw.nn.leaky_relu(x, alpha=0.3), None, values=_vals([3, 4]), ops=["LeakyRelu"]),
    # Backprop ops are linear in their gradients input.
    GradientCase("ReluGrad", lambda g: _grad_of(tw.nn.relu, g), [[2, 3]], ops=["ReluGrad"]),
    GradientCase("Relu6Grad", lambda g: _grad_of(tw.nn.relu6, g, scale=8.0), [[2, 3]], ops=["Relu6Grad"]),
    GradientCase(
        "LeakyReluGrad", lambda g: _grad_of(lambda t: tw.nn.leaky_relu(t, 0.3), g), [[2, 3]], ops=["LeakyReluGrad"]
    ),
    # Second derivatives: the backprop ops as functions of both the features
    # (or forward output) and the incoming gradient w.
    GradientCase("EluGrad", lambda x, w: _second(tw.nn.elu, x, w), None, values=_vals([2, 3], [2, 3]), ops=["EluGrad"]),
    GradientCase(
        "SeluGrad", lambda x, w: _second(tw.nn.selu, x, w), None, values=_vals([2, 3], [2, 3]), ops=["SeluGrad"]
    ),
    GradientCase(
        "SoftplusGrad",
        lambda x, w: _second(tw.nn.softplus, x, w),
        [[2, 3], [2, 3]],
        low=-3.0,
        high=3.0,
        ops=["SoftplusGrad"],
    ),
    GradientCase("SoftmaxGrad", lambda x, w: _second(tw.nn.softmax, x, w), [[2, 4], [2, 4]], ops=["SoftmaxGrad"]),
    GradientCase(
        "LogSoftmaxGrad", lambda x, w: _second(tw.nn.log_softmax, x, w), [[2, 4], [2, 4]], ops=["LogSoftmaxGrad"]
    ),
    GradientCase("BiasAdd", lambda x, b: tw.nn.bias_add(x, b), [[2, 3, 4], [4]], ops=["BiasAdd"]),
    GradientCase("BiasAdd NCHW", lambda x, b: tw.nn.bias_add(x, b, data_format="NCHW"), [[2, 3, 2, 2], [3]]),
    GradientCase("BiasAddGrad", lambda g: _grad_of_bias(g), [[3]], ops=["BiasAddGrad"]),
    GradientCase(
        "Conv2D SAME",
        lambda x, w: tw.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"),
        [[2, 5, 5, 2], [3, 3, 2, 3]],
        ops=["Conv2D"],
    ),
    GradientCase(
        "Conv2D VALID stride 2", lambda x, w: tw.nn.conv2d(x, w, [1, 2, 2, 1], "VALID"), [[1, 6, 7, 3], [3, 2, 3, 2]]
    ),
    GradientCase(
        "Conv2D dilated",
        lambda x, w: tw.nn.conv2d(x, w, [1, 1, 1, 1], "SAME", dilations=[1, 2, 2, 1]),
        [[1, 6, 6, 2], [2, 2, 2, 2]],
    ),
    GradientCase(
        "Conv2DBackpropInput",
        lambda w, dy: tw.nn.conv2d_backprop_input([1, 5, 5, 2], w, dy, [1, 2, 2, 1], "SAME"),
        [[3, 3, 2, 3], [1, 3, 3, 3]],
        ops=["Conv2DBackpropInput"],
    ),
    GradientCase(
        "Conv2DBackpropFilter",
        lambda x, dy: tw.nn.conv2d_backprop_filter(x, [3, 3, 2, 3], dy, [1, 1, 1, 1], "VALID"),
        [[1, 5, 5, 2], [1, 3, 3, 3]],
        ops=["Conv2DBackpropFilter"],
    ),
    GradientCase(
        "DepthwiseConv2dNative",
        lambda x, w: tw.nn.depthwise_conv2d_native(x, w, [1, 1, 1, 1], "SAME"),
        [[2, 4, 4, 2], [3, 3, 2, 2]],
        ops=["DepthwiseConv2dNative"],
    ),
    GradientCase(
        "DepthwiseConv2dNative stride 2",
        lambda x, w: tw.nn.depthwise_conv2d_native(x, w, [1, 2, 2, 1], "VALID"),
        [[1, 5, 5, 3], [2, 2, 3, 1]],
    ),
    GradientCase(
        "DepthwiseConv2dNativeBackpropInput",
        lambda w, dy: _dw_input(w, dy),
        [[2, 2, 2, 2], [1, 4, 4, 4]],
        ops=["DepthwiseConv2dNativeBackpropInput"],
    ),
    GradientCase(
        "DepthwiseConv2dNativeBackpropFilter",
        lambda x, dy: _dw_filter(x, dy),
        [[1, 4, 4, 2], [1, 4, 4, 4]],
        ops=["DepthwiseConv2dNativeBackpropFilter"],
    ),
    GradientCase(
        "MaxPool",
        lambda x: tw.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
        None,
        values=_distinct([2, 4, 4, 3]),
        ops=["MaxPool"],
    ),
    GradientCase(
        "MaxPool SAME overlapping",
        lambda x: tw.nn.max_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME"),
        None,
        values=_distinct([1, 5, 5, 2]),
    ),
    GradientCase(
        "AvgPool", lambda x: tw.nn.avg_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"), [[2, 4, 4, 3]], ops=["AvgPool"]
    ),
    GradientCase("AvgPool SAME", lambda x: tw.nn.avg_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME"), [[1, 5, 5, 2]]),
    GradientCase("AvgPoolGrad", lambda g: _avg_pool_grad(g), [[1, 3, 3, 2]], ops=["AvgPoolGrad"]),
    GradientCase("Softmax", lambda x: tw.nn.softmax(x), [[3, 4]], ops=["Softmax"]),
    GradientCase("LogSoftmax", lambda x: tw.nn.log_softmax(x), [[3, 4]], ops=["LogSoftmax"]),
    # The op's backprop, softmax - labels, assumes each row of labels sums
    # to 1: logits are checked against such labels, labels on their own.
    GradientCase(
        "SoftmaxCrossEntropyWithLogits logits",
        lambda x: tw.nn.softmax_cross_entropy_with_logits_v2(
            labels=tw.constant([[0.1, 0.2, 0.3, 0.4], [1.0, 0, 0, 0], [0, 0.5, 0, 0.5]], dtype=tw.float64), logits=x
        ),
        [[3, 4]],
        ops=["SoftmaxCrossEntropyWithLogits"],
    ),
    GradientCase(
        "SoftmaxCrossEntropyWithLogits labels",
        lambda y: tw.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=tw.constant(_vals([3, 4])[0])),
        [[3, 4]],
    ),
    GradientCase(
        "SparseSoftmaxCrossEntropyWithLogits",
        lambda x: tw.nn.sparse_softmax_cross_entropy_with_logits(labels=tw.constant([0, 3, 1]), logits=x),
        [[3, 4]],
        ops=["SparseSoftmaxCrossEntropyWithLogits"],
    ),
    GradientCase("L2Loss", lambda x: tw.nn.l2_loss(x), [[3, 4]], ops=["L2Loss"]),
    GradientCase(
        "FusedBatchNorm training",
        lambda x, s, o: tw.nn.fused_batch_norm(x, s, o, epsilon=0.01)[0],
        [[2, 3, 2, 3], [3], [3]],
        ops=["FusedBatchNorm"],
    ),
    GradientCase(
        "FusedBatchNorm inference",
        lambda x, s, o: tw.nn.fused_batch_norm(
            x, s, o, mean=[0.1, -0.2, 0.3], variance=[0.5, 1.0, 2.0], epsilon=0.01, is_training=False
        )[0],
        [[2, 2, 2, 3], [3], [3]],
    ),
]


def _second(activation, x, w):
    """d activation(x) / dx applied to w: the activation's backprop op."""
    return tw.gradients(activation(x), x, grad_ys=w)[0]


def _grad_of(activation, g, scale=1.0):
    """The backprop op of `activation` at fixed features, as a function of
    the incoming gradient g."""
    features = tw.constant(np.array([[-0.5, 0.3, 0.7], [0.2, -0.9, 0.6]]) * scale)
    y = activation(features)
    return tw.gradients(y, [features], grad_ys=g)[0]


def _grad_of_bias(g):
    value = tw.constant(np.ones([2, 2, 3]))
    out = tw.nn.bias_add(value, g)
    # BiasAddGrad(out) where out depends on g through BiasAdd.
    return tw.get_default_graph()._create_op("BiasAddGrad", [out], {"data_format": "NHWC"}).outputs[0]


def _dw_input(w, dy):
    return (
        tw.get_default_graph()
        ._create_op(
            "DepthwiseConv2dNativeBackpropInput",
            [tw.constant([1, 4, 4, 2]), w, dy],
            {"strides": [1, 1, 1, 1], "padding": "SAME"},
        )
        .outputs[0]
    )


def _dw_filter(x, dy):
    return (
        tw.get_default_graph()
        ._create_op(
            "DepthwiseConv2dNativeBackpropFilter",
            [x, tw.constant([2, 2, 2, 2]), dy],
            {"strides": [1, 1, 1, 1], "padding": "SAME"},
        )
        .outputs[0]
    )


def _avg_pool_grad(g):
    return (
        tw.get_default_graph()
        ._create_op(
            "AvgPoolGrad",
            [tw.constant([1, 5, 5, 2]), g],
            {"ksize": [1, 3, 3, 1], "strides": [1, 2, 2, 1], "padding": "SAME"},
        )
        .outputs[0]
    )

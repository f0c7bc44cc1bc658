"""Gradient cases for element-wise math, reductions and batch matmul."""

import numpy as np

import tensorweave as tw
from gradient_cases import GradientCase

_POS = dict(low=0.5, high=2.0)


def _raw(op_type, *inputs):
    """The op `op_type` itself (for op types no public function makes)."""
    return tw.get_default_graph()._create_op(op_type, list(inputs)).outputs[0]


CASES = [
    # Binary ops, with broadcasting in both directions.
    # What TF 1.15 / compat.v1 graphs make of `+` and tf.add (AddV2), and the Add of older graphs.
    GradientCase("AddV2 broadcast", lambda x, y: x + y, [[2, 3], [3]], ops=["AddV2"]),
    GradientCase("Add broadcast", lambda x, y: _raw("Add", x, y), [[2, 1], [3]], ops=["Add"]),
    GradientCase("Sub broadcast", lambda x, y: x - y, [[2, 1], [1, 3]], ops=["Sub"]),
    GradientCase("Mul broadcast", lambda x, y: x * y, [[2, 3, 4], [3, 1]], ops=["Mul"]),
    # tw.div of floats is RealDiv (as in TensorFlow 1): the Div op itself, raw.
    GradientCase("Div", lambda x, y: _raw("Div", x, y), [[2, 3], [3]], low=0.5, high=2.0, ops=["Div"]),
    GradientCase("RealDiv", lambda x, y: x / y, [[3], [2, 3]], low=0.5, high=2.0, ops=["RealDiv"]),
    GradientCase(
        "FloorMod",
        lambda x, y: tw.floormod(x, y),
        [[4], [4]],
        values=[[0.3, 1.7, 2.4, -0.6], [1.1, 0.7, 1.0, 0.9]],
        ops=["FloorMod"],
    ),
    GradientCase("Maximum", lambda x, y: tw.maximum(x, y), [[2, 3], [3]], ops=["Maximum"]),
    GradientCase("Minimum", lambda x, y: tw.minimum(x, y), [[2, 3], [2, 1]], ops=["Minimum"]),
    GradientCase("Pow", lambda x, y: tw.pow(x, y), [[2, 3], [3]], **_POS, ops=["Pow"]),
    GradientCase(
        "SquaredDifference", lambda x, y: tw.squared_difference(x, y), [[2, 3], [3]], ops=["SquaredDifference"]
    ),
    GradientCase("Select", lambda x, y: tw.where(np.array([True, False]), x, y), [[2, 3], [2, 3]], ops=["Select"]),
    GradientCase(
        "SelectV2", lambda x, y: tw.where_v2(np.array([[True], [False]]), x, y), [[3], [2, 1]], ops=["SelectV2"]
    ),
    GradientCase("AddN", lambda x, y: tw.add_n([x, y, x]), [[2, 3], [2, 3]], ops=["AddN"]),
    GradientCase(
        "ClipByValue",
        lambda t: tw.clip_by_value(t, -0.5, 0.5),
        [[6]],
        values=[[-0.9, -0.3, 0.1, 0.4, 0.7, 0.95]],
        ops=["ClipByValue"],
    ),
    GradientCase(
        "ClipByValue bounds",
        lambda t, lo, hi: tw.clip_by_value(t, lo, hi),
        [[4], [], []],
        values=[[-0.9, -0.3, 0.4, 0.9], -0.5, 0.5],
    ),
    # Unary ops.
    GradientCase("Abs", lambda x: tw.abs(x), [[5]], values=[[-2.0, -0.5, 0.3, 1.0, 4.0]], ops=["Abs"]),
    GradientCase("Square", lambda x: tw.square(x), [[2, 3]], ops=["Square"]),
    GradientCase("Exp", lambda x: tw.exp(x), [[2, 3]], ops=["Exp"]),
    GradientCase("Log", lambda x: tw.log(x), [[2, 3]], **_POS, ops=["Log"]),
    GradientCase("Log1p", lambda x: tw.log1p(x), [[2, 3]], **_POS, ops=["Log1p"]),
    GradientCase("Sqrt", lambda x: tw.sqrt(x), [[2, 3]], **_POS, ops=["Sqrt"]),
    GradientCase("Rsqrt", lambda x: tw.rsqrt(x), [[2, 3]], **_POS, ops=["Rsqrt"]),
    GradientCase("Reciprocal", lambda x: tw.reciprocal(x), [[2, 3]], **_POS, ops=["Reciprocal"]),
    # TensorFlow's older name of Reciprocal (graphs it wrote may hold it).
    GradientCase("Inv", lambda x: _raw("Inv", x), [[2, 3]], **_POS, ops=["Inv"]),
    GradientCase("Tanh", lambda x: tw.tanh(x), [[2, 3]], ops=["Tanh"]),
    GradientCase("Sigmoid", lambda x: tw.sigmoid(x), [[2, 3]], ops=["Sigmoid"]),
    # Second derivatives go through the gradients of the *Grad ops (with
    # respect to both the forward output and the incoming gradient w).
    GradientCase("TanhGrad", lambda x, w: tw.gradients(tw.tanh(x), x, grad_ys=w)[0], [[4], [4]], ops=["TanhGrad"]),
    GradientCase(
        "SigmoidGrad", lambda x, w: tw.gradients(tw.sigmoid(x), x, grad_ys=w)[0], [[4], [4]], ops=["SigmoidGrad"]
    ),
    GradientCase(
        "SqrtGrad", lambda x, w: tw.gradients(tw.sqrt(x), x, grad_ys=w)[0], [[4], [4]], **_POS, ops=["SqrtGrad"]
    ),
    GradientCase(
        "RsqrtGrad", lambda x, w: tw.gradients(tw.rsqrt(x), x, grad_ys=w)[0], [[4], [4]], **_POS, ops=["RsqrtGrad"]
    ),
    GradientCase(
        "ReciprocalGrad",
        lambda x, w: tw.gradients(tw.reciprocal(x), x, grad_ys=w)[0],
        [[4], [4]],
        **_POS,
        ops=["ReciprocalGrad"],
    ),
    GradientCase("InvGrad", lambda x, w: _raw("InvGrad", _raw("Inv", x), w), [[4], [4]], **_POS, ops=["InvGrad"]),
    # Zero gradients: the numeric derivative is 0 away from the steps, and
    # the product with x makes a wrong (non-zero) gradient through them show.
    GradientCase(
        "FloorDiv",
        lambda x, y: tw.floordiv(x, y) * x,
        None,
        values=[[0.3, 1.7, 2.4, -0.6], [1.1, 0.7, 1.0, 0.9]],
        ops=["FloorDiv"],
    ),
    GradientCase("Sign", lambda x: tw.sign(x) * x, None, values=[[-0.9, -0.3, 0.2, 0.8]], ops=["Sign"]),
    # Reductions.
    GradientCase("Sum all", lambda x: tw.reduce_sum(x), [[2, 3]], ops=["Sum"]),
    GradientCase("Sum axis 0", lambda x: tw.reduce_sum(x, 0), [[4, 3]]),
    GradientCase("Sum axes keepdims", lambda x: tw.reduce_sum(x, [0, -1], keepdims=True), [[2, 3, 4]]),
    GradientCase("Mean", lambda x: tw.reduce_mean(x, 1), [[2, 3, 2]], ops=["Mean"]),
    GradientCase("Prod", lambda x: tw.reduce_prod(x, 1), [[2, 3]], **_POS, ops=["Prod"]),
    # Slices with no zero, one zero and two zeros (the product of the others).
    GradientCase(
        "Prod zeros",
        lambda x: tw.reduce_prod(x, [0, 2], keepdims=True),
        [[2, 3, 2]],
        values=[[[[1.5, -2.0], [0.0, 3.0], [0.0, 0.5]], [[0.7, 1.2], [2.0, 1.1], [0.0, 4.0]]]],
    ),
    GradientCase("Prod all", lambda x: tw.reduce_prod(x), [[4]], values=[[2.0, 0.0, -1.5, 3.0]]),
    GradientCase("Max", lambda x: tw.reduce_max(x, 1), [[3, 4]], ops=["Max"]),
    GradientCase("Min", lambda x: tw.reduce_min(x, [0, 1]), [[3, 4]], ops=["Min"]),
    # Batch matmul, with broadcast batch dims summed in the gradient.
    GradientCase("BatchMatMulV2", lambda x, y: tw.matmul(x, y), [[2, 3, 4], [2, 4, 2]], ops=["BatchMatMulV2"]),
    GradientCase("BatchMatMulV2 broadcast", lambda x, y: tw.matmul(x, y), [[2, 1, 3, 4], [3, 4, 2]]),
    GradientCase(
        "BatchMatMulV2 adjoints", lambda x, y: tw.matmul(x, y, adjoint_a=True, adjoint_b=True), [[2, 4, 3], [1, 2, 4]]
    ),
    GradientCase("BatchMatMulV2 adj_x", lambda x, y: tw.matmul(x, y, transpose_a=True), [[4, 3], [2, 4, 2]]),
    GradientCase("BatchMatMulV2 adj_y", lambda x, y: tw.matmul(x, y, transpose_b=True), [[2, 3, 4], [2, 4]]),
]

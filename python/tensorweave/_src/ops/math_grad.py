"""Gradients of math ops."""

from tensorweave._src.ops import gradients_impl
from tensorweave._src.ops import math_ops


@gradients_impl.RegisterGradient("Neg")
def _neg_grad(op, grad):
    return [math_ops.negative(grad)]


@gradients_impl.RegisterGradient("MatMul")
def _matmul_grad(op, grad):
    a, b = op.inputs
    ta, tb = op.get_attr("transpose_a"), op.get_attr("transpose_b")
    if not ta and not tb:
        return [math_ops.matmul(grad, b, transpose_b=True), math_ops.matmul(a, grad, transpose_a=True)]
    if not ta and tb:
        return [math_ops.matmul(grad, b), math_ops.matmul(grad, a, transpose_a=True)]
    if ta and not tb:
        return [math_ops.matmul(b, grad, transpose_b=True), math_ops.matmul(a, grad)]
    return [
        math_ops.matmul(b, grad, transpose_a=True, transpose_b=True),
        math_ops.matmul(grad, a, transpose_a=True, transpose_b=True),
    ]


@gradients_impl.RegisterGradient("Cast")
def _cast_grad(op, grad):
    src = op.inputs[0].dtype
    if src.is_floating and grad.dtype.is_floating:
        return [math_ops.cast(grad, src)]
    return [None]

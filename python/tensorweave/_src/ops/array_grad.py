"""Gradients of array ops."""

from tensorweave._src.ops import array_ops
from tensorweave._src.ops import gradients_impl

for _op in ("Const", "Placeholder", "Shape"):
    gradients_impl.NotDifferentiable(_op)


@gradients_impl.RegisterGradient("Identity")
def _identity_grad(op, grad):
    return [grad]


@gradients_impl.RegisterGradient("Reshape")
def _reshape_grad(op, grad):
    return [array_ops.reshape(grad, array_ops.shape(op.inputs[0])), None]

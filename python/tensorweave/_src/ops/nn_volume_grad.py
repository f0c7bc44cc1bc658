"""Gradients of the 3-D convolution and pooling ops, LRN, MaxPoolWithArgmax and Dilation2D."""

from tensorweave._src.ops import array_ops, gradients_impl, nn_grad

_like = nn_grad._like

nn_grad._register_conv_gradients("Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2")


@gradients_impl.RegisterGradient("MaxPool3D")
def _max_pool3d_grad(op, grad):
    return [_like("MaxPool3DGrad", [op.inputs[0], op.outputs[0], grad], op)]


@gradients_impl.RegisterGradient("AvgPool3D")
def _avg_pool3d_grad(op, grad):
    return [_like("AvgPool3DGrad", [array_ops.shape(op.inputs[0]), grad], op)]


@gradients_impl.RegisterGradient("AvgPool3DGrad")
def _avg_pool3d_grad_grad(op, grad):
    # AvgPool3DGrad is linear in its grad input, with AvgPool3D as its adjoint.
    return [None, _like("AvgPool3D", [grad], op)]


@gradients_impl.RegisterGradient("LRN")
def _lrn_grad(op, grad):
    return [_like("LRNGrad", [grad, op.inputs[0], op.outputs[0]], op)]


@gradients_impl.RegisterGradient("MaxPoolWithArgmax")
def _max_pool_with_argmax_grad(op, grad, unused_argmax_grad):
    return [_like("MaxPoolGradWithArgmax", [op.inputs[0], grad, op.outputs[1]], op)]


# The second derivatives TensorFlow has for these (MaxPool3DGradGrad, ...) are not built here.
gradients_impl.NotDifferentiable("MaxPool3DGrad")
gradients_impl.NotDifferentiable("LRNGrad")
gradients_impl.NotDifferentiable("MaxPoolGradWithArgmax")


@gradients_impl.RegisterGradient("Dilation2D")
def _dilation2d_grad(op, grad):
    x, f = op.inputs
    return [
        _like("Dilation2DBackpropInput", [x, f, grad], op),
        _like("Dilation2DBackpropFilter", [x, f, grad], op),
    ]


gradients_impl.NotDifferentiable("Dilation2DBackpropInput")
gradients_impl.NotDifferentiable("Dilation2DBackpropFilter")

# Samplers draw classes: no gradient flows through them (as in TF).
for _op_type in (
    "UniformCandidateSampler",
    "LogUniformCandidateSampler",
    "AllCandidateSampler",
    "FixedUnigramCandidateSampler",
    "LearnedUnigramCandidateSampler",
    "ComputeAccidentalHits",
):
    gradients_impl.NotDifferentiable(_op_type)

"""Gradients of the neural-network ops."""

from tensorweave._src.framework import ops
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import gen_ops
from tensorweave._src.ops import gradients_impl
from tensorweave._src.ops import math_ops
from tensorweave._src.ops import nn_ops


def _like(op_type, inputs, op):
    """An `op_type` node of `inputs` with the attrs it shares with `op` (by the registry's names: strides,
    padding, alpha, ...), e.g. a convolution's backprop with the convolution's geometry."""
    return gen_ops.wrapper(op_type)(*inputs, **gen_ops.same_attrs(op, op_type))


# --- activations --------------------------------------------------------------


def _activation_grad(grad_op, use_output):
    def fn(op, grad):
        second = op.outputs[0] if use_output else op.inputs[0]
        return [_like(grad_op, [grad, second], op)]

    return fn


# Relu and Relu6 read their outputs, as TensorFlow's _ReluGrad/_Relu6Grad (the
# same mask: relu(x) > 0 exactly where x > 0, relu6(x) in (0, 6) where x is); the
# pre-activation then has the activation as its only reader, so the remapper fuses
# Conv2D/MatMul + BiasAdd + Relu in training graphs too.
for _fwd, _bwd, _use_output in (
    ("Relu", "ReluGrad", True),
    ("Relu6", "Relu6Grad", True),
    ("Elu", "EluGrad", True),
    ("Selu", "SeluGrad", True),
    ("Softplus", "SoftplusGrad", False),
    ("LeakyRelu", "LeakyReluGrad", False),
):
    gradients_impl.RegisterGradient(_fwd)(_activation_grad(_bwd, _use_output))


# Piecewise-linear backprops are linear in `gradients` and locally constant
# in the features: their own gradient is the same backprop, and zeros for the
# features (as TensorFlow, which gives zeros rather than None).
def _piecewise_linear_grad(op, grad):
    features = op.inputs[1]
    return [_like(op.type, [grad, features], op), array_ops.zeros_like(features)]


for _op_type in ("ReluGrad", "Relu6Grad", "LeakyReluGrad"):
    gradients_impl.RegisterGradient(_op_type)(_piecewise_linear_grad)


# Second derivatives of the smooth activations (TensorFlow's formulas). EluGrad and SeluGrad take the forward
# outputs y: d(backprop)/d(gradients) is the same backprop, and d/dy is the incoming gradient where y < 0.
def _exp_family_grad_grad(op, grad):
    dy, y = op.inputs
    ddy = _like(op.type, [grad, y], op)
    zeros = array_ops.zeros_like(y)
    d2y = math_ops.where(math_ops.less(y, zeros), grad * dy, zeros)
    return [ddy, d2y]


for _op_type in ("EluGrad", "SeluGrad"):
    gradients_impl.RegisterGradient(_op_type)(_exp_family_grad_grad)


@gradients_impl.RegisterGradient("SoftplusGrad")
def _softplus_grad_grad(op, grad):
    # SoftplusGrad(dy, x) = dy * sigmoid(x); its derivative in x is dy * sigmoid'(x) = dy / (e^-x + 2 + e^x).
    dy, x = op.inputs
    ddy = gen_ops.softplus_grad(grad, x)
    two = ops.convert_to_tensor(2, dtype=x.dtype)
    d2x = grad * dy / (math_ops.exp(math_ops.negative(x)) + two + math_ops.exp(x))
    return [ddy, d2x]


# --- bias ---------------------------------------------------------------------


@gradients_impl.RegisterGradient("BiasAdd")
def _bias_add_grad(op, grad):
    return [grad, _like("BiasAddGrad", [grad], op)]


@gradients_impl.RegisterGradient("BiasAddGrad")
def _bias_add_grad_grad(op, grad):
    # The adjoint of summing to channels: broadcast grad back over the value.
    value = op.inputs[0]
    zeros = array_ops.fill(array_ops.shape(value), ops.convert_to_tensor(0, dtype=value.dtype))
    return [_like("BiasAdd", [zeros, grad], op)]


# --- convolution ----------------------------------------------------------------


def _register_conv_gradients(forward, backprop_input, backprop_filter):
    """Gradients of a convolution family: the forward op and its two
    backprops, each expressed with the other two (with the same attrs)."""

    @gradients_impl.RegisterGradient(forward)
    def _forward_grad(op, grad):
        x, f = op.inputs
        return [
            _like(backprop_input, [array_ops.shape(x), f, grad], op),
            _like(backprop_filter, [x, array_ops.shape(f), grad], op),
        ]

    @gradients_impl.RegisterGradient(backprop_input)
    def _backprop_input_grad(op, grad):
        _, f, dy = op.inputs
        return [None, _like(backprop_filter, [grad, array_ops.shape(f), dy], op), _like(forward, [grad, f], op)]

    @gradients_impl.RegisterGradient(backprop_filter)
    def _backprop_filter_grad(op, grad):
        x, _, dy = op.inputs
        return [_like(backprop_input, [array_ops.shape(x), grad, dy], op), None, _like(forward, [x, grad], op)]


_register_conv_gradients("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter")
_register_conv_gradients(
    "DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter"
)


# --- pooling --------------------------------------------------------------------


@gradients_impl.RegisterGradient("MaxPool")
def _max_pool_grad(op, grad):
    return [_like("MaxPoolGrad", [op.inputs[0], op.outputs[0], grad], op)]


@gradients_impl.RegisterGradient("AvgPool")
def _avg_pool_grad(op, grad):
    return [_like("AvgPoolGrad", [array_ops.shape(op.inputs[0]), grad], op)]


@gradients_impl.RegisterGradient("AvgPoolGrad")
def _avg_pool_grad_grad(op, grad):
    # AvgPoolGrad is linear in its grad input, with AvgPool as its adjoint.
    return [None, _like("AvgPool", [grad], op)]


# Second derivatives through the argmax are not provided.
gradients_impl.NotDifferentiable("MaxPoolGrad")


# --- softmax and losses -----------------------------------------------------------


@gradients_impl.RegisterGradient("Softmax")
def _softmax_grad(op, grad):
    return [gen_ops.softmax_grad(grad, op.outputs[0])]


@gradients_impl.RegisterGradient("LogSoftmax")
def _log_softmax_grad(op, grad):
    return [gen_ops.log_softmax_grad(grad, op.outputs[0])]


def _sum_last(x):
    return math_ops.reduce_sum(x, -1, keepdims=True)


@gradients_impl.RegisterGradient("SoftmaxGrad")
def _softmax_grad_grad(op, grad):
    # SoftmaxGrad(g, s) = (g - sum(g * s)) * s, linear in g (its adjoint is itself); in s:
    # d/ds_k = grad_k * (g_k - sum(g * s)) - g_k * sum(grad * s).
    g, s = op.inputs
    dg = gen_ops.softmax_grad(grad, s)
    ds = grad * (g - _sum_last(g * s)) - g * _sum_last(grad * s)
    return [dg, ds]


@gradients_impl.RegisterGradient("LogSoftmaxGrad")
def _log_softmax_grad_grad(op, grad):
    # LogSoftmaxGrad(g, l) = g - sum(g) * exp(l): in g, grad - sum(grad * exp(l)); in l, -sum(g) * grad * exp(l).
    g, log_softmax = op.inputs
    softmax = math_ops.exp(log_softmax)
    dg = grad - _sum_last(grad * softmax)
    dl = math_ops.negative(_sum_last(g)) * grad * softmax
    return [dg, dl]


def _column(loss_grad):
    """A [batch] gradient as a [batch, 1] column, to scale rows."""
    return array_ops.reshape(loss_grad, [-1, 1])


def _xent_logits_grad(op, grad_loss, grad_backprop):
    """The gradient in the logits of a cross-entropy op: grad_loss times its backprop output, plus (for second
    derivatives) the gradient reaching the backprop output, softmax(logits) - labels, carried through the
    softmax (as TensorFlow)."""
    d_logits = None
    if grad_loss is not None:
        d_logits = _column(grad_loss) * op.outputs[1]
    if grad_backprop is not None:
        softmax = nn_ops.softmax(op.inputs[0])
        through_softmax = (grad_backprop - _sum_last(grad_backprop * softmax)) * softmax
        d_logits = through_softmax if d_logits is None else d_logits + through_softmax
    return d_logits


@gradients_impl.RegisterGradient("SoftmaxCrossEntropyWithLogits")
def _xent_grad(op, grad_loss, grad_backprop):
    d_logits = _xent_logits_grad(op, grad_loss, grad_backprop)
    d_labels = None
    if grad_loss is not None:
        d_labels = _column(grad_loss) * math_ops.negative(nn_ops.log_softmax(op.inputs[0]))
    return [d_logits, d_labels]


@gradients_impl.RegisterGradient("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_xent_grad(op, grad_loss, grad_backprop):
    return [_xent_logits_grad(op, grad_loss, grad_backprop), None]


@gradients_impl.RegisterGradient("L2Loss")
def _l2_loss_grad(op, grad):
    return [op.inputs[0] * grad]


# --- batch normalization ------------------------------------------------------------


@gradients_impl.RegisterGradient("FusedBatchNorm")
def _fused_batch_norm_grad(op, grad_y, *unused_stat_grads):
    x, scale = op.inputs[0], op.inputs[1]
    is_training = op.get_attr("is_training")
    if is_training:
        mean, variance = op.outputs[3], op.outputs[4]
    else:
        mean, variance = op.inputs[3], op.inputs[4]
    if grad_y is None:
        return [None] * 5
    outs = _like("FusedBatchNormGrad", [grad_y, x, scale, mean, variance], op)
    return [outs[0], outs[1], outs[2], None, None]


gradients_impl.NotDifferentiable("FusedBatchNormGrad")

"""Gradients of the array ops of array_nd_ops (as TensorFlow registers them)."""

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import gen_ops
from tensorweave._src.ops import gradients_impl
from tensorweave._src.ops import math_ops

for _op in ("ShapeN", "LinSpace", "Bitcast", "LowerBound", "UpperBound"):
    gradients_impl.NotDifferentiable(_op)


@gradients_impl.RegisterGradient("GatherNd")
def _gather_nd_grad(op, grad):
    params, indices = op.inputs
    shape = array_ops.shape(params, out_type=indices.dtype)
    return [gen_ops.scatter_nd(indices, grad, shape), None]


@gradients_impl.RegisterGradient("ScatterNd")
def _scatter_nd_grad(op, grad):
    indices = op.inputs[0]
    return [None, gen_ops.gather_nd(grad, indices), None]


@gradients_impl.RegisterGradient("TensorScatterUpdate")
def _tensor_scatter_update_grad(op, grad):
    indices, updates = op.inputs[1], op.inputs[2]
    tensor_grad = gen_ops.tensor_scatter_update(grad, indices, array_ops.zeros_like(updates))
    return [tensor_grad, None, gen_ops.gather_nd(grad, indices)]


@gradients_impl.RegisterGradient("TensorScatterAdd")
def _tensor_scatter_add_grad(op, grad):
    return [grad, None, gen_ops.gather_nd(grad, op.inputs[1])]


@gradients_impl.RegisterGradient("TensorScatterSub")
def _tensor_scatter_sub_grad(op, grad):
    return [grad, None, math_ops.negative(gen_ops.gather_nd(grad, op.inputs[1]))]


@gradients_impl.RegisterGradient("ReverseV2")
def _reverse_v2_grad(op, grad):
    return [gen_ops.reverse_v2(grad, op.inputs[1]), None]


@gradients_impl.RegisterGradient("Roll")
def _roll_grad(op, grad):
    return [gen_ops.roll(grad, math_ops.negative(op.inputs[1]), op.inputs[2]), None, None]


@gradients_impl.RegisterGradient("ReverseSequence")
def _reverse_sequence_grad(op, grad):
    return [
        gen_ops.reverse_sequence(
            grad, op.inputs[1], seq_dim=op.get_attr("seq_dim"), batch_dim=op.get_attr("batch_dim")
        ),
        None,
    ]


@gradients_impl.RegisterGradient("BroadcastTo")
def _broadcast_to_grad(op, grad):
    input_value, broadcast_shape = op.inputs
    input_shape = array_ops.shape(input_value, out_type=broadcast_shape.dtype)
    _, reduction_axes = gen_ops.broadcast_gradient_args(broadcast_shape, input_shape)
    summed = math_ops.reduce_sum(grad, axis=reduction_axes, keepdims=True)
    return [array_ops.reshape(summed, input_shape), None]


@gradients_impl.RegisterGradient("SpaceToDepth")
def _space_to_depth_grad(op, grad):
    return [gen_ops.depth_to_space(grad, op.get_attr("block_size"), data_format=op.get_attr("data_format"))]


@gradients_impl.RegisterGradient("DepthToSpace")
def _depth_to_space_grad(op, grad):
    return [gen_ops.space_to_depth(grad, op.get_attr("block_size"), data_format=op.get_attr("data_format"))]


@gradients_impl.RegisterGradient("SpaceToBatchND")
def _space_to_batch_nd_grad(op, grad):
    return [gen_ops.batch_to_space_nd(grad, op.inputs[1], op.inputs[2]), None, None]


@gradients_impl.RegisterGradient("BatchToSpaceND")
def _batch_to_space_nd_grad(op, grad):
    return [gen_ops.space_to_batch_nd(grad, op.inputs[1], op.inputs[2]), None, None]


@gradients_impl.RegisterGradient("ExtractImagePatches")
def _extract_image_patches_grad(op, grad):
    # As TensorFlow: the patches of an image of 1-based element numbers say which input element each patch
    # element read (0: padding); the gradient sums grad into those elements.
    images = op.inputs[0]
    image_shape = array_ops.shape(images, out_type=dtypes.int64)
    count = math_ops.reduce_prod(image_shape)
    one = ops.convert_to_tensor(1, dtype=dtypes.int64)
    numbers = array_ops.reshape(array_ops.range(one, count + 1, one), image_shape)
    source = gen_ops.extract_image_patches(
        numbers,
        op.get_attr("ksizes"),
        op.get_attr("strides"),
        op.get_attr("rates"),
        op.get_attr("padding"),
    )
    ids = array_ops.reshape(source, [-1]) - 1  # padding becomes -1: dropped
    summed = array_ops.unsorted_segment_sum(array_ops.reshape(grad, [-1]), ids, count)
    return [array_ops.reshape(summed, array_ops.shape(images))]


@gradients_impl.RegisterGradient("EnsureShape")
def _ensure_shape_grad(op, grad):
    return [grad]


@gradients_impl.RegisterGradient("IdentityN")
def _identity_n_grad(op, *grads):
    return list(grads)


for _op in ("BroadcastArgs", "UnravelIndex"):
    gradients_impl.NotDifferentiable(_op)


def _tensor_scatter_min_or_max_grad(op, grad):
    # As TensorFlow: the gradient goes to whichever of tensor and updates gave the output, split evenly on ties.
    x, indices, y = op.inputs
    output = op.outputs[0]
    x_indicators = math_ops.cast(math_ops.equal(x, output), grad.dtype)
    y_output = gen_ops.gather_nd(output, indices)
    y_indicators = math_ops.cast(math_ops.equal(y, y_output), grad.dtype)
    ys_indicators = gen_ops.scatter_nd(indices, y_indicators, array_ops.shape(x, out_type=indices.dtype))
    indicators = x_indicators + ys_indicators
    x_grad = grad * x_indicators / indicators
    y_grad = gen_ops.gather_nd(grad / indicators, indices) * y_indicators
    return [x_grad, None, y_grad]


gradients_impl.RegisterGradient("TensorScatterMax")(_tensor_scatter_min_or_max_grad)
gradients_impl.RegisterGradient("TensorScatterMin")(_tensor_scatter_min_or_max_grad)


@gradients_impl.RegisterGradient("CheckNumerics")
def _check_numerics_grad(op, grad):
    message = op.get_attr("message")
    if isinstance(message, bytes):
        message = message.decode()
    return [
        gen_ops.check_numerics(grad, "Not a number (NaN) or infinity (Inf) values detected in gradient. " + message)
    ]


@gradients_impl.RegisterGradient("Diag")
def _diag_grad(op, grad):
    return [gen_ops.diag_part(grad)]


@gradients_impl.RegisterGradient("DiagPart")
def _diag_part_grad(op, grad):
    return [gen_ops.diag(grad)]

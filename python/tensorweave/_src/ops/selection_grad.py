"""Gradients of TopKV2 (TensorFlow's: the values' gradient goes back to the positions they came from); the
selection and counting ops with integer outputs are not differentiable."""

from tensorweave._src.ops import array_ops
from tensorweave._src.ops import gradients_impl
from tensorweave._src.ops import math_ops


@gradients_impl.RegisterGradient("TopKV2")
def _top_k_grad(op, grad, _indices_grad=None):
    if grad is None:
        return [None, None]
    x = op.inputs[0]
    indices = op.outputs[1]
    in_shape = array_ops.shape(x)
    k = array_ops.shape(indices)[-1]
    n = in_shape[-1]
    ind_2d = array_ops.reshape(indices, array_ops.stack([-1, k]))
    rows = array_ops.shape(ind_2d)[0]
    offsets = array_ops.expand_dims(math_ops.multiply(array_ops.range(rows), n), -1)
    flat_positions = array_ops.reshape(ind_2d + offsets, [-1])
    total = math_ops.reduce_prod(in_shape)
    flat_grad = array_ops.unsorted_segment_sum(array_ops.reshape(grad, [-1]), flat_positions, total)
    return [array_ops.reshape(flat_grad, in_shape), None]


for _op_type in ("InTopKV2", "Unique", "UniqueWithCounts", "ListDiff", "Bincount", "DenseBincount"):
    gradients_impl.NotDifferentiable(_op_type)


@gradients_impl.RegisterGradient("SparseToDense")
def _sparse_to_dense_grad(op, grad):
    """TensorFlow's: the values get the gradient at their indices, the default value the rest."""
    from tensorweave._src.ops import array_nd_ops

    sparse_indices, output_shape, _, _ = op.inputs
    values_grad = array_nd_ops.gather_nd(grad, sparse_indices)
    default_grad = math_ops.reduce_sum(grad) - math_ops.reduce_sum(values_grad)
    return [array_ops.zeros_like(sparse_indices), array_ops.zeros_like(output_shape), values_grad, default_grad]

"""Gradients of the segment reductions (TensorFlow's formulas, from the same ops)."""

from tensorweave._src.framework import dtypes
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import gradients_impl
from tensorweave._src.ops import math_ops
from tensorweave._src.ops import segment_ops

_register = gradients_impl.RegisterGradient


@_register("SegmentSum")
def _segment_sum_grad(op, grad):
    return [array_ops.gather(grad, op.inputs[1]), None]


@_register("SegmentMean")
def _segment_mean_grad(op, grad):
    data, ids = op.inputs
    extra = array_ops.ones(array_ops.reshape(array_ops.rank(data) - 1, [1]), dtype=dtypes.int32)
    ones_shape = array_ops.concat([array_ops.shape(ids), extra], 0)
    ones = array_ops.ones(ones_shape, dtype=grad.dtype)
    scaled_grad = math_ops.divide(grad, segment_ops.segment_sum(ones, ids))
    return [array_ops.gather(scaled_grad, ids), None]


def _segment_min_or_max_grad(op, grad):
    data, ids = op.inputs
    zeros = array_ops.zeros_like(data)
    gathered_outputs = array_ops.gather(op.outputs[0], ids)
    is_selected = math_ops.equal(data, gathered_outputs)
    num_selected = segment_ops.segment_sum(math_ops.cast(is_selected, grad.dtype), ids)
    weighted_grads = math_ops.divide(grad, num_selected)
    gathered_grads = array_ops.gather(weighted_grads, ids)
    return [math_ops.where_v2(is_selected, gathered_grads, zeros), None]


_register("SegmentMin")(_segment_min_or_max_grad)
_register("SegmentMax")(_segment_min_or_max_grad)


@_register("SegmentProd")
def _segment_prod_grad(op, grad):
    # As TensorFlow: zeros handled apart (a segment with two zeros has zero gradient everywhere; with one, only the
    # zero gets the product of the others).
    data, ids = op.inputs
    is_zero = math_ops.equal(data, array_ops.zeros_like(data))
    num_zeros = segment_ops.segment_sum(math_ops.cast(is_zero, dtypes.int32), ids)
    grad = math_ops.where_v2(math_ops.greater(num_zeros, 1), array_ops.zeros_like(grad), grad)
    non_zero_data = math_ops.where_v2(is_zero, array_ops.ones_like(data), data)
    non_zero_prod = segment_ops.segment_prod(non_zero_data, ids)
    gathered_prod = array_ops.gather(op.outputs[0], ids)
    gathered_non_zero_prod = array_ops.gather(non_zero_prod, ids)
    prod_divided_by_el = gathered_prod / non_zero_data
    partial_derivative = math_ops.where_v2(is_zero, gathered_non_zero_prod, prod_divided_by_el)
    return [array_ops.gather(grad, ids) * partial_derivative, None]


def _gather_drop_negatives(params, ids, zero_clipped_indices=None, is_positive=None):
    """gather(params, ids) with rows of negative ids zeroed (TensorFlow's _GatherDropNegatives)."""
    if zero_clipped_indices is None:
        zero_clipped_indices = math_ops.maximum(ids, array_ops.zeros_like(ids))
    gathered = array_ops.gather(params, zero_clipped_indices)
    if is_positive is None:
        is_positive = math_ops.greater_equal(ids, 0)
        extra = gathered.shape.ndims - ids.shape.ndims
        if extra > 0:
            is_positive = array_ops.reshape(
                is_positive, array_ops.concat([array_ops.shape(is_positive), [1] * extra], 0)
            )
        is_positive = math_ops.logical_and(is_positive, array_ops.ones_like(gathered, dtype=dtypes.bool))
    zero_slice = array_ops.zeros_like(gathered)
    return math_ops.where_v2(is_positive, gathered, zero_slice), zero_clipped_indices, is_positive


def _unsorted_segment_min_or_max_grad(op, grad):
    data, ids, num_segments = op.inputs
    gathered_outputs, zero_clipped_indices, is_positive = _gather_drop_negatives(op.outputs[0], ids)
    is_selected = math_ops.logical_and(math_ops.equal(data, gathered_outputs), is_positive)
    num_selected = array_ops.unsorted_segment_sum(math_ops.cast(is_selected, grad.dtype), ids, num_segments)
    weighted_grads = math_ops.divide(grad, num_selected)
    gathered_grads, _, _ = _gather_drop_negatives(weighted_grads, None, zero_clipped_indices, is_positive)
    return [math_ops.where_v2(is_selected, gathered_grads, array_ops.zeros_like(gathered_grads)), None, None]


_register("UnsortedSegmentMin")(_unsorted_segment_min_or_max_grad)
_register("UnsortedSegmentMax")(_unsorted_segment_min_or_max_grad)


@_register("UnsortedSegmentProd")
def _unsorted_segment_prod_grad(op, grad):
    data, ids, num_segments = op.inputs
    is_zero = math_ops.equal(data, array_ops.zeros_like(data))
    num_zeros = array_ops.unsorted_segment_sum(math_ops.cast(is_zero, dtypes.int32), ids, num_segments)
    grad = math_ops.where_v2(math_ops.greater(num_zeros, 1), array_ops.zeros_like(grad), grad)
    non_zero_data = math_ops.where_v2(is_zero, array_ops.ones_like(data), data)
    non_zero_prod = segment_ops.unsorted_segment_prod(non_zero_data, ids, num_segments)
    zero_clipped_indices = math_ops.maximum(ids, array_ops.zeros_like(ids))
    gathered_prod = array_ops.gather(op.outputs[0], zero_clipped_indices)
    gathered_non_zero_prod = array_ops.gather(non_zero_prod, zero_clipped_indices)
    prod_divided_by_el = gathered_prod / non_zero_data
    partial_derivative = math_ops.where_v2(is_zero, gathered_non_zero_prod, prod_divided_by_el)
    gathered_grad, _, _ = _gather_drop_negatives(grad, ids, zero_clipped_indices)
    return [gathered_grad * partial_derivative, None, None]

"""Gradients of array ops."""

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import gen_ops
from tensorweave._src.ops import gradients_impl
from tensorweave._src.ops import math_ops

for _op in (
    "Const",
    "Placeholder",
    "Shape",
    "Size",
    "Rank",
    "ZerosLike",
    "OnesLike",
    "Range",
    "OneHot",
    "Where",
    "StopGradient",
    "InvertPermutation",
    "RandomShuffle",
    "Multinomial",
):
    gradients_impl.NotDifferentiable(_op)


@gradients_impl.RegisterGradient("PlaceholderWithDefault")
def _placeholder_with_default_grad(op, grad):
    # The default flows through unchanged when nothing is fed (as TensorFlow).
    return [grad]


def _sum_all(x):
    """The sum of all elements of x, as a scalar (through
    UnsortedSegmentSum: every element in segment 0)."""
    ids = array_ops.fill(array_ops.shape(x), ops.convert_to_tensor(0, dtype=dtypes.int32))
    total = array_ops.unsorted_segment_sum(x, ids, 1)
    return array_ops.reshape(total, [])


def _zeros_for(grads, outputs):
    return [g if g is not None else array_ops.zeros_like(o) for g, o in zip(grads, outputs)]


def _static_axis(axis_tensor, rank, what):
    value = array_ops.constant_value(axis_tensor)
    if value is None:
        raise NotImplementedError(f"the gradient needs a constant {what}, got {axis_tensor.name}")
    axis = int(value)
    if rank is not None and axis < 0:
        axis += rank
    return axis


@gradients_impl.RegisterGradient("Identity")
def _identity_grad(op, grad):
    return [grad]


@gradients_impl.RegisterGradient("Reshape")
def _reshape_grad(op, grad):
    return [array_ops.reshape(grad, array_ops.shape(op.inputs[0])), None]


@gradients_impl.RegisterGradient("ExpandDims")
def _expand_dims_grad(op, grad):
    return [array_ops.reshape(grad, array_ops.shape(op.inputs[0])), None]


@gradients_impl.RegisterGradient("Squeeze")
def _squeeze_grad(op, grad):
    return [array_ops.reshape(grad, array_ops.shape(op.inputs[0]))]


@gradients_impl.RegisterGradient("Fill")
def _fill_grad(op, grad):
    return [None, _sum_all(grad)]


@gradients_impl.RegisterGradient("Transpose")
def _transpose_grad(op, grad):
    perm = op.inputs[1]
    return [array_ops.transpose(grad, array_ops.invert_permutation(perm)), None]


@gradients_impl.RegisterGradient("ConcatV2")
def _concat_grad(op, grad):
    values = op.inputs[:-1]
    rank = values[0].shape.ndims
    if rank is None:
        rank = next((v.shape.ndims for v in values if v.shape.ndims is not None), None)
    if array_ops.constant_value(op.inputs[-1]) is None:  # an axis fed at run time: wrapped there
        axis = math_ops.cast(op.inputs[-1], dtypes.int32)
        axis = math_ops.floormod(axis, rank if rank is not None else array_ops.rank(values[0]))
    else:
        axis = _static_axis(op.inputs[-1], rank, "axis")
        if axis < 0:
            raise NotImplementedError("the gradient of concat needs the rank for a negative axis")
    sizes = array_ops.stack([array_ops.gather(array_ops.shape(v), axis) for v in values], name="sizes")
    parts = array_ops.split(grad, sizes, axis=axis, num=len(values))
    return parts + [None]


@gradients_impl.RegisterGradient("Split")
def _split_grad(op, *grads):
    return [None, array_ops.concat(_zeros_for(grads, op.outputs), op.inputs[0])]


@gradients_impl.RegisterGradient("SplitV")
def _split_v_grad(op, *grads):
    return [array_ops.concat(_zeros_for(grads, op.outputs), op.inputs[2]), None, None]


@gradients_impl.RegisterGradient("Pack")
def _pack_grad(op, grad):
    return array_ops.unstack(grad, num=op.get_attr("N"), axis=op.get_attr("axis"))


@gradients_impl.RegisterGradient("Unpack")
def _unpack_grad(op, *grads):
    return [array_ops.stack(_zeros_for(grads, op.outputs), axis=op.get_attr("axis"))]


@gradients_impl.RegisterGradient("Slice")
def _slice_grad(op, grad):
    x, begin, _ = op.inputs
    index_type = begin.dtype
    after = math_ops.subtract(
        math_ops.subtract(array_ops.shape(x, out_type=index_type), begin),
        array_ops.shape(grad, out_type=index_type),
    )
    paddings = array_ops.stack([begin, after], axis=1)
    return [array_ops.pad(grad, paddings), None, None]


@gradients_impl.RegisterGradient("StridedSlice")
def _strided_slice_grad(op, grad):
    x, begin, end, strides = op.inputs
    shape = array_ops.shape(x, out_type=begin.dtype)
    dx = gen_ops.strided_slice_grad(shape, begin, end, strides, grad, **gen_ops.same_attrs(op, "StridedSliceGrad"))
    return [dx, None, None, None]


@gradients_impl.RegisterGradient("StridedSliceGrad")
def _strided_slice_grad_grad(op, grad):
    _, begin, end, strides, _ = op.inputs
    attrs = gen_ops.same_attrs(op, "StridedSlice")
    return [None, None, None, None, array_ops.strided_slice(grad, begin, end, strides, **attrs)]


def _pad_grad_of_input(op, grad):
    x, paddings = op.inputs[0], op.inputs[1]
    begin = array_ops.reshape(array_ops.slice(paddings, [0, 0], [-1, 1]), [-1])
    return array_ops.slice(grad, begin, array_ops.shape(x, out_type=paddings.dtype))


@gradients_impl.RegisterGradient("Pad")
def _pad_grad(op, grad):
    return [_pad_grad_of_input(op, grad), None]


@gradients_impl.RegisterGradient("PadV2")
def _pad_v2_grad(op, grad):
    # As TensorFlow: no gradient for constant_values.
    return [_pad_grad_of_input(op, grad), None, None]


@gradients_impl.RegisterGradient("MirrorPad")
def _mirror_pad_grad(op, grad):
    return [gen_ops.mirror_pad_grad(grad, op.inputs[1], **gen_ops.same_attrs(op, "MirrorPadGrad")), None]


@gradients_impl.RegisterGradient("MirrorPadGrad")
def _mirror_pad_grad_grad(op, grad):
    return [array_ops.pad(grad, op.inputs[1], mode=op.get_attr("mode")), None]


@gradients_impl.RegisterGradient("Tile")
def _tile_grad(op, grad):
    """Sums the copies: grad reshaped to [m0, d0, m1, d1, ...], the m axes
    moved first, then summed by UnsortedSegmentSum into one segment."""
    x, multiples = op.inputs
    rank = x.shape.ndims
    if rank is None:
        raise NotImplementedError("the gradient of tile needs the rank of its input")
    if rank == 0:
        return [grad, None]
    shape = array_ops.shape(x, out_type=multiples.dtype)
    split_shape = array_ops.reshape(array_ops.stack([multiples, shape], axis=1), [-1])
    g = array_ops.reshape(grad, split_shape)
    perm = list(range(0, 2 * rank, 2)) + list(range(1, 2 * rank, 2))
    g = array_ops.transpose(g, perm)
    ids = array_ops.fill(multiples, ops.convert_to_tensor(0, dtype=dtypes.int32))
    summed = array_ops.unsorted_segment_sum(g, ids, 1)
    return [array_ops.reshape(summed, shape), None]


def _gather_grad_along(params, indices, grad, axis):
    """Scatters grad (shaped like a gather of params at indices along axis)
    back onto params' shape, summing repeated indices."""
    if axis == 0:
        # TF's IndexedSlices: the gradient rows as they are, with the indices flattened (repeats add when made
        # dense); optimizers apply them as sparse updates, never as a dense copy of the table.
        from tensorweave._src.framework.indexed_slices import IndexedSlices

        with grad.graph.colocate_with(params.op, ignore_existing=True):
            params_shape = array_ops.shape(params)
        size = array_ops.expand_dims(array_ops.size(indices), 0)
        values_shape = array_ops.concat([size, params_shape[1:]], 0)
        values = array_ops.reshape(grad, values_shape)
        flat_indices = array_ops.reshape(indices, size)
        return IndexedSlices(values, flat_indices, params_shape)
    p_rank, i_rank = params.shape.ndims, indices.shape.ndims
    if p_rank is None or i_rank is None:
        raise NotImplementedError("the gradient of gather needs the ranks of params and indices")
    static_num = params.shape.dims[axis].value
    num = static_num if static_num is not None else array_ops.gather(array_ops.shape(params), axis)
    # Move the indices' dims to the front, sum, move the result back.
    front = list(range(axis, axis + i_rank)) + list(range(axis)) + list(range(axis + i_rank, p_rank + i_rank - 1))
    summed = array_ops.unsorted_segment_sum(array_ops.transpose(grad, front), indices, num)
    back = list(range(1, axis + 1)) + [0] + list(range(axis + 1, p_rank))
    return array_ops.transpose(summed, back)


@gradients_impl.RegisterGradient("GatherV2")
def _gather_v2_grad(op, grad):
    params, indices, axis_t = op.inputs
    axis = _static_axis(axis_t, params.shape.ndims, "axis")
    return [_gather_grad_along(params, indices, grad, axis), None, None]


@gradients_impl.RegisterGradient("Gather")
def _gather_grad(op, grad):
    params, indices = op.inputs
    return [_gather_grad_along(params, indices, grad, 0), None]


@gradients_impl.RegisterGradient("UnsortedSegmentSum")
def _unsorted_segment_sum_grad(op, grad):
    """data[j] received grad[segment_ids[j]]; a negative id, which the
    forward op drops, receives 0 (TensorFlow's _GatherDropNegatives)."""
    from tensorweave._src.ops.segment_grad import _gather_drop_negatives

    return [_gather_drop_negatives(grad, op.inputs[1])[0], None, None]

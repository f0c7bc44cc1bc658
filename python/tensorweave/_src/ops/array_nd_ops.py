"""TF1's top-level array names added for issue 16: N-d gathers and scatters, masks, reversals, rolls,
broadcasting, space/depth/batch rearrangements, image patches, searches, repeats and friends.

Where TF1 has a kernel the name builds that op (GatherNd, ReverseV2, Roll, ...); where TF1 builds a Python
composite (boolean_mask, sequence_mask, meshgrid, repeat, eye, searchsorted), so does this module, from the
same ops where they exist here.
"""

import numbers

import numpy as np

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.framework import tensor_shape
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import gen_ops
from tensorweave._src.ops import math_ops


def _index_dtype_of(*values):
    """int64 when any of values is an int64 tensor, else int32."""
    for v in values:
        if isinstance(v, ops.Tensor) and v.dtype == dtypes.int64:
            return dtypes.int64
    return dtypes.int32


def _int_tensor(value, name, dtype=None):
    if isinstance(value, ops.Tensor):
        if not value.dtype.is_integer:
            raise TypeError(f"{name} must be an integer tensor, got {value.dtype.name}")
        return value
    return ops.convert_to_tensor(value, dtype=dtype or dtypes.int32, name=name)


@gen_ops.doc_from("GatherNd")
def gather_nd(params, indices, name=None, batch_dims=0):
    """
    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.gather_nd([[1, 2], [3, 4]], [[1, 0], [0, 1]])))
      [3 2]
    """
    if batch_dims != 0:
        rank = ops.convert_to_tensor(indices).shape.ndims
        if rank is not None and not 0 <= batch_dims < rank:  # TF's ValueError before anything else
            raise ValueError(f"Argument `batch_dims` = {batch_dims} must be less than rank(`indices`) = {rank}")
        raise NotImplementedError("gather_nd supports batch_dims=0 only")
    return gen_ops.gather_nd(params, indices, name=name)


@gen_ops.doc_from("ScatterNd")
def scatter_nd(indices, updates, shape, name=None):
    """
    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.scatter_nd([[1], [3]], [5, 7], [5])))
      [0 5 0 7 0]
    """
    if isinstance(shape, tensor_shape.TensorShape):
        shape = shape.as_list()
    if isinstance(indices, ops.Tensor) and not isinstance(shape, ops.Tensor):
        shape = ops.convert_to_tensor(shape, dtype=indices.dtype, name="shape")
    return gen_ops.scatter_nd(indices, updates, shape, name=name)


def _tensor_scatter(op, tensor, indices, updates, name):
    return op(tensor, indices, updates, name=name)


def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """A copy of `tensor` with the slices at `indices` replaced by `updates` (TensorScatterUpdate).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.tensor_scatter_nd_update([1, 2, 3], [[0], [2]], [9, 8])))
      [9 2 8]
    """
    return _tensor_scatter(gen_ops.tensor_scatter_update, tensor, indices, updates, name)


def tensor_scatter_nd_add(tensor, indices, updates, name=None):
    """A copy of `tensor` with `updates` added at `indices` (TensorScatterAdd).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.tensor_scatter_nd_add([1, 2, 3], [[0], [0]], [9, 8])))
      [18  2  3]
    """
    return _tensor_scatter(gen_ops.tensor_scatter_add, tensor, indices, updates, name)


def tensor_scatter_nd_sub(tensor, indices, updates, name=None):
    """A copy of `tensor` with `updates` subtracted at `indices` (TensorScatterSub).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.tensor_scatter_nd_sub([1, 2, 3], [[1]], [5])))
      [ 1 -3  3]
    """
    return _tensor_scatter(gen_ops.tensor_scatter_sub, tensor, indices, updates, name)


tensor_scatter_update = tensor_scatter_nd_update
tensor_scatter_add = tensor_scatter_nd_add
tensor_scatter_sub = tensor_scatter_nd_sub


def boolean_mask(tensor, mask, name="boolean_mask", axis=None):
    """The elements (or slices along `axis`) of `tensor` where `mask` is true, as TF1's composite
    (reshape, then Where and GatherV2).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.boolean_mask([[1, 2], [3, 4], [5, 6]], [True, False, True])))
      [[1 2]
       [5 6]]
    """
    with ops.name_scope(name, "boolean_mask", [tensor, mask]):
        tensor = ops.convert_to_tensor(tensor, name="tensor")
        mask = ops.convert_to_tensor(mask, name="mask")
        ndims_mask = mask.shape.ndims
        if ndims_mask == 0:
            raise ValueError("mask cannot be scalar.")
        if ndims_mask is None:
            raise ValueError(
                "Number of mask dimensions must be specified, even if some dimensions are None.  "
                "E.g. shape=[None] is ok, but shape=None is not."
            )
        axis = 0 if axis is None else int(axis)
        shape_tensor = tensor.shape
        if shape_tensor.ndims is not None:
            if axis < 0:
                axis += shape_tensor.ndims
            part = tensor_shape.TensorShape(shape_tensor.dims[axis : axis + ndims_mask])
            if not part.is_compatible_with(mask.shape):
                raise ValueError(f"Shapes {part} and {mask.shape} are incompatible")
        full_shape = array_ops.shape(tensor)
        leading = math_ops.reduce_prod(full_shape[axis : axis + ndims_mask], [0])
        tensor = array_ops.reshape(
            tensor, array_ops.concat([full_shape[:axis], [leading], full_shape[axis + ndims_mask :]], 0)
        )
        if shape_tensor.ndims is not None:
            first = tensor_shape.TensorShape(shape_tensor.dims[axis : axis + ndims_mask]).num_elements()
            tensor.set_shape(
                tensor_shape.TensorShape(
                    list(shape_tensor.dims[:axis]) + [first] + list(shape_tensor.dims[axis + ndims_mask :])
                )
            )
        mask = array_ops.reshape(mask, [-1])
        indices = array_ops.squeeze(math_ops.where_v2(mask), axis=[1])
        return array_ops.gather(tensor, indices, axis=axis)


@gen_ops.doc_from("ReverseV2")
def reverse(tensor, axis, name=None):
    """
    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.reverse([[1, 2], [3, 4]], [1])))
      [[2 1]
       [4 3]]
    """
    return gen_ops.reverse_v2(tensor, axis, name=name)


reverse_v2 = reverse


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None, seq_dim=None, batch_dim=None):  # noqa: A002
    """Reverses the first `seq_lengths[b]` elements along `seq_axis` of each batch entry `b` (ReverseSequence).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.reverse_sequence([[1, 2, 3], [4, 5, 6]], [2, 3], seq_axis=1, batch_axis=0)))
      [[2 1 3]
       [6 5 4]]
    """
    seq_axis = _deprecated_alias(seq_axis, seq_dim, "seq_axis", "seq_dim")
    batch_axis = _deprecated_alias(batch_axis, batch_dim, "batch_axis", "batch_dim")
    if batch_axis is None:
        batch_axis = 0
    return gen_ops.reverse_sequence(input, seq_lengths, seq_dim=seq_axis, batch_dim=batch_axis, name=name)


def _deprecated_alias(new, old, new_name, old_name):
    if new is not None and old is not None and new != old:
        raise ValueError(f"Cannot specify both '{new_name}' and '{old_name}'")
    return new if new is not None else old


@gen_ops.doc_from("Roll")
def roll(input, shift, axis, name=None):  # noqa: A002
    """
    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.roll([1, 2, 3, 4], 1, 0)))
      [4 1 2 3]
    """
    return gen_ops.roll(input, shift, axis, name=name)


def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool, name=None):
    """mask[..., j] = j < lengths[...], TF1's composite (Range, ExpandDims, Cast, Less).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.sequence_mask([1, 3], 4)))
      [[ True False False False]
       [ True  True  True False]]
    """
    with ops.name_scope(name, "SequenceMask", [lengths, maxlen]):
        lengths = ops.convert_to_tensor(lengths)
        known = array_ops.constant_value(lengths) if maxlen is None else None
        if known is not None:
            # TensorFlow folds the maximum of constant lengths into the static shape; so does this.
            maxlen = ops.convert_to_tensor(max(0, int(np.max(known))) if known.size else 0, dtype=lengths.dtype)
        elif maxlen is None:
            maxlen = math_ops.reduce_max(lengths)
            maxlen = math_ops.maximum(ops.convert_to_tensor(0, dtype=maxlen.dtype), maxlen)
        else:
            maxlen = ops.convert_to_tensor(maxlen)
        if maxlen.shape.ndims is not None and maxlen.shape.ndims != 0:
            raise ValueError(
                "Argument `maxlen` must be scalar for sequence_mask, received `maxlen` = "
                f"{maxlen} with shape '{maxlen.shape}' instead"
            )
        row = array_ops.range(
            ops.convert_to_tensor(0, dtype=maxlen.dtype), maxlen, ops.convert_to_tensor(1, dtype=maxlen.dtype)
        )
        # gen_math_ops.cast, as TF: a Cast op even when the dtypes agree (so a dtype cast below is "Cast_1").
        matrix = gen_ops.cast(array_ops.expand_dims(lengths, -1), DstT=maxlen.dtype, name="Cast")
        result = math_ops.less(row, matrix)
        dtype = dtypes.as_dtype(dtype) if dtype is not None else None
        if dtype is None or dtype == dtypes.bool:
            return result
        return gen_ops.cast(result, DstT=dtype, name="Cast")


def meshgrid(*args, **kwargs):
    """Coordinate grids from 1-D coordinate vectors (`indexing` 'xy' or 'ij'), TF1's composite.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.meshgrid([1, 2], [3, 4, 5])[0]))
      [[1 2]
       [1 2]
       [1 2]]
    """
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        raise TypeError(f"'{list(kwargs)[0]}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Argument `indexing` parameter must be either 'xy' or 'ij', got '{indexing}'")
    with ops.name_scope(name, "meshgrid", list(args)):
        ndim = len(args)
        if not ndim:
            return []
        s0 = (1,) * ndim
        output = [array_ops.reshape(array_ops.stack(x), s0[:i] + (-1,) + s0[i + 1 :]) for i, x in enumerate(args)]
        shapes = [array_ops.size(x) for x in args]
        dtype = ops.convert_to_tensor(args[0]).dtype.base_dtype
        if indexing == "xy" and ndim > 1:
            output[0] = array_ops.reshape(output[0], (1, -1) + (1,) * (ndim - 2))
            output[1] = array_ops.reshape(output[1], (-1, 1) + (1,) * (ndim - 2))
            shapes[0], shapes[1] = shapes[1], shapes[0]
        mult = array_ops.ones(array_ops.stack(shapes), dtype)
        return [math_ops.multiply(x, mult) for x in output]


@gen_ops.doc_from("BroadcastTo")
def broadcast_to(input, shape, name=None):  # noqa: A002
    """
    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.broadcast_to([1, 2], [2, 2])))
      [[1 2]
       [1 2]]
    """
    if isinstance(shape, tensor_shape.TensorShape):
        shape = shape.as_list()
    return gen_ops.broadcast_to(input, shape, name=name)


def _nhwc_only(data_format):
    if data_format not in ("NHWC", b"NHWC"):
        raise ValueError(f"data_format {data_format!r} is not supported: NHWC only")


@gen_ops.doc_from("SpaceToDepth")
def space_to_depth(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    """
    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.space_to_depth(np.arange(4.0).reshape(1, 2, 2, 1), 2)).ravel())
      [0. 1. 2. 3.]
    """
    _nhwc_only(data_format)
    return gen_ops.space_to_depth(input, block_size, data_format=data_format, name=name)


@gen_ops.doc_from("DepthToSpace")
def depth_to_space(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    """
    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.depth_to_space(np.arange(4.0).reshape(1, 1, 1, 4), 2)).shape)
      (1, 2, 2, 1)
    """
    _nhwc_only(data_format)
    return gen_ops.depth_to_space(input, block_size, data_format=data_format, name=name)


@gen_ops.doc_from("SpaceToBatchND")
def space_to_batch_nd(input, block_shape, paddings, name=None):  # noqa: A002
    """
    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.space_to_batch_nd(np.ones([1, 2, 2, 1]), [2, 2], [[0, 0], [0, 0]])).shape)
      (4, 1, 1, 1)
    """
    return gen_ops.space_to_batch_nd(input, block_shape, paddings, name=name)


@gen_ops.doc_from("BatchToSpaceND")
def batch_to_space_nd(input, block_shape, crops, name=None):  # noqa: A002
    """
    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.batch_to_space_nd(np.ones([4, 1, 1, 1]), [2, 2], [[0, 0], [0, 0]])).shape)
      (1, 2, 2, 1)
    """
    return gen_ops.batch_to_space_nd(input, block_shape, crops, name=name)


def space_to_batch(input, paddings, block_size=None, name=None, block_shape=None):  # noqa: A002
    """TF1's 4-D space_to_batch: space_to_batch_nd with block [block_size, block_size]."""
    block_size = _deprecated_alias(block_shape, block_size, "block_shape", "block_size")
    result = space_to_batch_nd(input, np.array([block_size, block_size], np.int64), paddings, name=name)
    result.set_shape(result.shape.with_rank(4))
    return result


def batch_to_space(input, crops, block_size, name=None, block_shape=None):  # noqa: A002
    """TF1's 4-D batch_to_space: batch_to_space_nd with block [block_size, block_size]."""
    block_size = _deprecated_alias(block_shape, block_size, "block_shape", "block_size")
    result = batch_to_space_nd(input, np.array([block_size, block_size], np.int64), crops, name=name)
    result.set_shape(result.shape.with_rank(4))
    return result


def _int_list(value, name):
    if isinstance(value, int):
        return [value]
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"Expected list for '{name}' argument to 'extract_image_patches' Op, not {value!r}.")
    return [int(v) for v in value]


def extract_image_patches(images, ksizes=None, strides=None, rates=None, padding=None, name=None, sizes=None):
    """Each `ksizes` window of `images` (dilated by `rates`, moved by `strides`) flattened into depth
    (ExtractImagePatches).

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = np.arange(16.0).reshape(1, 4, 4, 1)
      ...     print(sess.run(tw.extract_image_patches(x, [1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID"))[0, 0, 0])
      [0. 1. 4. 5.]
    """
    ksizes = _deprecated_alias(sizes, ksizes, "sizes", "ksizes")
    return gen_ops.extract_image_patches(
        images,
        _int_list(ksizes, "ksizes"),
        _int_list(strides, "strides"),
        _int_list(rates, "rates"),
        padding,
        name=name,
    )


def parallel_stack(values, name="parallel_stack"):
    """Stacks `values` along a new first axis. TF1 builds a ParallelConcat op; this builds a Pack under the
    same name scope (the same value and static shape)."""
    with ops.name_scope(name):
        return array_ops.stack(values, axis=0, name=name)


@gen_ops.doc_from("IdentityN")
def identity_n(input, name=None):  # noqa: A002
    """
    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.identity_n([[1, 2], 3.0])))
      [array([1, 2], dtype=int32), np.float32(3.0)]
    """
    return gen_ops.identity_n([ops.convert_to_tensor(x) for x in input], name=name)


@gen_ops.doc_from("ShapeN")
def shape_n(input, out_type=dtypes.int32, name=None):  # noqa: A002
    """
    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.shape_n([[1.0, 2.0], [[3.0]]])))
      [array([2], dtype=int32), array([1, 1], dtype=int32)]
    """
    return gen_ops.shape_n([ops.convert_to_tensor(x) for x in input], out_type=out_type, name=name)


@gen_ops.doc_from("EnsureShape")
def ensure_shape(x, shape, name=None):
    """
    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.placeholder(tw.float32, [None, 2])
      ...     print(tw.ensure_shape(x, [3, None]).shape)
      (3, 2)
    """
    if not isinstance(shape, tensor_shape.TensorShape):
        shape = tensor_shape.TensorShape(shape)
    return gen_ops.ensure_shape(x, shape, name=name)


def searchsorted(sorted_sequence, values, side="left", out_type=dtypes.int32, name=None):
    """Where each of `values` would go in the sorted innermost rows of `sorted_sequence` (LowerBound for
    side='left', UpperBound for 'right'), TF1's composite.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.searchsorted([1, 3, 5], [0, 3, 6], side="right")))
      [0 2 3]
    """
    if side not in ("left", "right"):
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: `side` = '{side}'.")
    sorted_sequence = ops.convert_to_tensor(sorted_sequence)
    values = ops.convert_to_tensor(values, dtype=sorted_sequence.dtype)
    sequence_size = array_ops.shape(sorted_sequence)[-1]
    values_size = array_ops.shape(values)[-1]
    sorted_2d = array_ops.reshape(sorted_sequence, array_ops.stack([-1, sequence_size]))
    values_2d = array_ops.reshape(values, array_ops.stack([-1, values_size]))
    op = gen_ops.upper_bound if side == "right" else gen_ops.lower_bound
    output = op(sorted_2d, values_2d, out_type=out_type, name=name)
    return array_ops.reshape(output, array_ops.shape(values))


def repeat(input, repeats, axis=None, name=None):  # noqa: A002
    """Repeats the elements of `input` along `axis` (flattened when axis is None), each `repeats` times (a
    scalar, or one count per element), as numpy's repeat.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.repeat([1, 2, 3], [1, 0, 2])))
      [1 3 3]
    """
    with ops.name_scope(name, "Repeat", [input, repeats]):
        data = ops.convert_to_tensor(input, name="data")
        if axis is None:
            data = array_ops.reshape(data, [-1])
            axis = 0
        if not isinstance(axis, int):
            raise TypeError(f"Argument `axis` must be an int. Received `axis` = {axis} of type {type(axis).__name__}")
        repeats = _int_tensor(repeats, "repeats")
        if repeats.shape.ndims is not None and repeats.shape.ndims > 1:
            raise ValueError(f"Shape {repeats.shape} must have rank at most 1")
        if data.shape.ndims == 0:
            data = array_ops.reshape(data, [1])
        rank = data.shape.ndims
        if rank is None:
            raise ValueError("repeat needs the rank of its input")
        if axis < -rank or axis >= rank:
            raise ValueError(f"axis={axis} out of bounds: expected {-rank}<=axis<{rank}")
        if axis < 0:
            axis += rank
        counts_value = array_ops.constant_value(repeats)
        axis_len = data.shape.dims[axis].value
        if counts_value is not None and axis_len is not None and (counts_value.size == 1 or axis > 0):
            # (TensorFlow's static shape knows the new length for a scalar count, or off axis 0 where it
            # reshapes to the folded sum of the counts.)
            counts_value = np.broadcast_to(np.reshape(counts_value, [-1]), [axis_len])
            if np.any(counts_value < 0):
                raise ValueError(f"repeats must be non-negative, got {counts_value.tolist()}")
            index = ops.convert_to_tensor(np.repeat(np.arange(axis_len), counts_value).astype(np.int32))
            return array_ops.gather(data, index, axis=axis)
        data_shape = array_ops.shape(data, out_type=repeats.dtype)
        # One index per output element along axis: element i of the axis `repeats[i]` times.
        counts = broadcast_to(array_ops.reshape(repeats, [-1]), data_shape[axis : axis + 1])
        max_repeat = math_ops.maximum(ops.convert_to_tensor(0, dtype=counts.dtype), math_ops.reduce_max(counts))
        mask = sequence_mask(counts, max_repeat)
        positions = array_ops.tile(
            array_ops.expand_dims(array_ops.range(ops.convert_to_tensor(0, dtype=counts.dtype), data_shape[axis]), 1),
            array_ops.stack([ops.convert_to_tensor(1, dtype=counts.dtype), max_repeat]),
        )
        index = boolean_mask(positions, mask)
        result = array_ops.gather(data, index, axis=axis)
        if rank is not None:
            static = repeats.shape.num_elements() == 1 and data.shape.dims[axis].value is not None
            repeat_value = array_ops.constant_value(repeats) if static else None
            new_dim = None
            if repeat_value is not None:
                new_dim = int(np.reshape(repeat_value, [])) * data.shape.dims[axis].value
            result.set_shape(
                tensor_shape.TensorShape(list(data.shape.dims[:axis]) + [new_dim] + list(data.shape.dims[axis + 1 :]))
            )
        return result


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """An identity matrix [num_rows, num_columns] (or a batch of them), ones where row == column.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.eye(2, 3)))
      [[1. 0. 0.]
       [0. 1. 0.]]
    """
    with ops.name_scope(name, "eye", [num_rows, num_columns, batch_shape]):
        if num_columns is None:
            num_columns = num_rows
        for n, what in ((num_rows, "num_rows"), (num_columns, "num_columns")):
            if not isinstance(n, (ops.Tensor, numbers.Integral)) or isinstance(n, bool):
                raise TypeError(
                    "Arguments `num_rows` and `num_columns` must be positive integer values. "
                    f"Received: num_rows={num_rows}, num_columns={num_columns}"
                )
        rows = array_ops.range(num_rows)
        cols = array_ops.range(num_columns)
        matrix = math_ops.cast(math_ops.equal(array_ops.expand_dims(rows, 1), cols), dtype)
        if batch_shape is None:
            return matrix
        if isinstance(batch_shape, ops.Tensor):
            full = array_ops.concat([batch_shape, array_ops.shape(matrix)], 0)
        else:
            full = list(batch_shape) + [num_rows, num_columns]
            if any(isinstance(d, ops.Tensor) for d in full):
                full = array_ops.stack(full)
        return broadcast_to(matrix, full)


def linspace(start, stop, num, name=None, axis=0):
    """`num` evenly spaced values from `start` to `stop`, both included; TF's composite (start + delta * i
    between the two ends, then a slice of `num`, so num = 0 gives an empty tensor and num = 1 `start`).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.linspace(0.0, 1.0, 5)))
      [0.   0.25 0.5  0.75 1.  ]
    """
    with ops.name_scope(name, "linspace", [start, stop]):
        start = ops.convert_to_tensor(start, name="start")
        stop = ops.convert_to_tensor(stop, name="stop", dtype=start.dtype)
        if start.shape.ndims != 0 or stop.shape.ndims != 0 or axis not in (0, -1):
            raise NotImplementedError("linspace supports scalar start and stop only (axis 0)")
        num_int = num if isinstance(num, ops.Tensor) else ops.convert_to_tensor(num, dtypes.int32, name="num")
        if not num_int.dtype.is_integer:
            raise TypeError(f"num must be an integer, got {num_int.dtype.name}")
        one = ops.convert_to_tensor(1, dtype=num_int.dtype)
        n_steps = math_ops.maximum(math_ops.subtract(num_int, one), one)
        delta = math_ops.divide(math_ops.subtract(stop, start), math_ops.cast(n_steps, start.dtype))
        range_end = math_ops.where_v2(
            math_ops.greater_equal(num_int, ops.convert_to_tensor(0, dtype=num_int.dtype)),
            n_steps,
            ops.convert_to_tensor(-1, dtype=num_int.dtype),
        )
        steps = math_ops.cast(
            array_ops.range(ops.convert_to_tensor(1, dtypes.int64), math_ops.cast(range_end, dtypes.int64)), start.dtype
        )
        middle = math_ops.add(start, math_ops.multiply(delta, steps))
        ends = [array_ops.reshape(start, [1]), middle, array_ops.reshape(stop, [1])]
        size = [int(num)] if not isinstance(num, ops.Tensor) else array_ops.reshape(num_int, [1])
        return array_ops.slice(array_ops.concat(ends, 0), [0], size)


lin_space = linspace


@gen_ops.doc_from("Bitcast")
def bitcast(input, type, name=None):  # noqa: A002
    """
    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.bitcast(np.float32(1.0), tw.int32)))
      1065353216
    """
    return gen_ops.bitcast(input, type, name=name)


def tensor_scatter_nd_max(tensor, indices, updates, name=None):
    """A copy of `tensor` with each slice at `indices` the maximum of itself and `updates` (TensorScatterMax).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.tensor_scatter_nd_max([1, 5, 3], [[0], [1]], [4, 4])))
      [4 5 3]
    """
    return _tensor_scatter(gen_ops.tensor_scatter_max, tensor, indices, updates, name)


def tensor_scatter_nd_min(tensor, indices, updates, name=None):
    """A copy of `tensor` with each slice at `indices` the minimum of itself and `updates` (TensorScatterMin).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.tensor_scatter_nd_min([1, 5, 3], [[0], [1]], [4, 4])))
      [1 4 3]
    """
    return _tensor_scatter(gen_ops.tensor_scatter_min, tensor, indices, updates, name)


@gen_ops.doc_from("BroadcastArgs")
def broadcast_dynamic_shape(shape_x, shape_y):
    """
    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.broadcast_dynamic_shape([2, 1, 3], [4, 1])))
      [2 4 3]
    """
    return gen_ops.broadcast_args(shape_x, shape_y)


def broadcast_static_shape(shape_x, shape_y):
    """The TensorShape that two TensorShapes broadcast to (ValueError when they cannot).

    Example:
      >>> import tensorweave as tw
      >>> print(tw.broadcast_static_shape(tw.TensorShape([2, 1]), tw.TensorShape([3])))
      (2, 3)
    """
    x, y = tensor_shape.TensorShape(shape_x), tensor_shape.TensorShape(shape_y)
    if x.ndims is None or y.ndims is None:
        return tensor_shape.TensorShape(None)
    a, b = x.as_list(), y.as_list()
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
    dims = []
    for da, db in zip(a, b):
        if da is None or db is None:
            known = da if db is None else db
            dims.append(known if known is not None and known > 1 else None)
        elif da == db or db == 1:
            dims.append(da)
        elif da == 1:
            dims.append(db)
        else:
            raise ValueError(
                f"Incompatible shapes for broadcasting. Two shapes are compatible if for each "
                f"dimension pair they are either equal or one of them is 1. Received: {x} and {y}."
            )
    return tensor_shape.TensorShape(dims)


@gen_ops.doc_from("UnravelIndex")
def unravel_index(indices, dims, name=None):
    """
    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.unravel_index([5, 7], [3, 4])))
      [[1 1]
       [1 3]]
    """
    return gen_ops.unravel_index(indices, dims, name=name)


@gen_ops.doc_from("CheckNumerics")
def check_numerics(tensor, message, name=None):
    """
    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.check_numerics([1.0, 2.0], "bad")))
      [1. 2.]
    """
    return gen_ops.check_numerics(tensor, message, name=name)


@gen_ops.doc_from("Diag")
def diag(diagonal, name=None):
    """
    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.diag([1, 2])))
      [[1 0]
       [0 2]]
    """
    return gen_ops.diag(diagonal, name=name)


@gen_ops.doc_from("DiagPart")
def diag_part(input, name=None):  # noqa: A002
    """
    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.diag_part([[1, 2], [3, 4]])))
      [1 4]
    """
    return gen_ops.diag_part(input, name=name)

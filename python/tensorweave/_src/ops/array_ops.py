"""Array ops: placeholders, shapes and reshaping, rearranging, slicing and
gathering, and tensors shaped like others."""

import builtins
import math

import numpy as np

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.framework import tensor_shape
from tensorweave._src.ops import constant_op
from tensorweave._src.ops import gen_ops


def placeholder(dtype, shape=None, name=None):
    """A tensor whose value must be fed to `Session.run`.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.placeholder(tw.float32, [None, 2])
      ...     print(sess.run(x * 2.0, {x: [[1.0, 2.0]]}))
      [[2. 4.]]
    """
    dtype = dtypes.as_dtype(dtype)
    shape = tensor_shape.as_shape(shape) if shape is not None else tensor_shape.TensorShape(None)
    return gen_ops.placeholder(dtype=dtype, shape=tensor_shape.as_attr(shape), name=name)


def placeholder_with_default(input, shape, name=None):  # noqa: A002
    """A tensor that takes `input`'s value unless one is fed for it.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     training = tw.placeholder_with_default(False, [])
      ...     print(sess.run(training), sess.run(training, {training: True}))
      False True
    """
    x = ops.convert_to_tensor(input)
    shape = tensor_shape.as_shape(shape)
    return gen_ops.placeholder_with_default(x, shape=tensor_shape.as_attr(shape), name=name)


def identity(input, name=None):  # noqa: A002 - TensorFlow's signature
    """Returns a tensor with the same value. A variable is read when the Identity runs (from the variable
    itself, not its `read` snapshot), so that `with tf.control_dependencies([assign]): tf.identity(v)` sees the
    assignment, as in TF1."""
    ref = getattr(input, "_ref", None)
    if callable(ref) and not isinstance(input, ops.Tensor):
        x = ref()
        if x.graph is ops.get_default_graph():
            return gen_ops.identity(x, name=name or "Identity")
    x = ops.convert_to_tensor(input)
    return gen_ops.identity(x, name=name or "Identity")


def shape(input, name=None, out_type=dtypes.int32):  # noqa: A002
    """The shape of `input` as a 1-D int tensor, computed at run time."""
    x = ops.convert_to_tensor(input)
    out_type = dtypes.as_dtype(out_type)
    return gen_ops.shape(x, out_type=out_type, name=name)


def _known_dimension_value(d):
    if isinstance(d, tensor_shape.Dimension):
        if d.value is None:
            raise TypeError(f"Failed to convert a shape element to a tensor: {d!r} is unknown")
        return d.value
    return d


def _shape_tensor(shape_value, name="shape"):
    if isinstance(shape_value, ops.Tensor):
        return shape_value
    if isinstance(shape_value, tensor_shape.TensorShape):
        shape_value = shape_value.as_list()
    if isinstance(shape_value, (list, tuple)):  # Dimensions (x.shape[1] * 2) count as their values
        shape_value = [_known_dimension_value(d) for d in shape_value]
    if isinstance(shape_value, (list, tuple)) and any(isinstance(d, ops.Tensor) for d in shape_value):
        wide = _needs_int64(shape_value)
        return stack([_as_int_scalar(-1 if d is None else d, wide) for d in shape_value], name=name)
    dims = [-1 if d is None else d for d in list(shape_value)]
    # As TF: int64 when a dimension does not fit in int32 (never a silent wrap of 2**40 to 0).
    return constant_op.constant(dims, dtype=dtypes.int64 if _needs_int64(dims) else dtypes.int32, name=name)


def _needs_int64(values):
    """Whether a list of dimensions (numbers, None, or scalar tensors) needs int64."""
    for v in values:
        if isinstance(v, ops.Tensor):
            if v.dtype == dtypes.int64:
                return True
        elif v is not None and not isinstance(v, (bool, np.bool_)) and isinstance(v, (int, np.integer)):
            if not -(2**31) <= int(v) < 2**31:
                return True
    return False


def reshape(tensor, shape, name=None):  # noqa: A002
    """The same elements in a new shape; one dimension may be -1.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.reshape(tw.constant([1, 2, 3, 4]), [2, -1])))
      [[1 2]
       [3 4]]
    """
    x = ops.convert_to_tensor(tensor)
    graph = ops.get_default_graph()
    with graph.name_scope(name or "Reshape") as scope:
        s = _shape_tensor(shape)
        return gen_ops.reshape(x, s, name=scope)


def fill(dims, value, name=None):
    """A tensor of shape `dims` with every element `value`."""
    v = ops.convert_to_tensor(value)
    d = _shape_tensor(dims, name="dims")
    return gen_ops.fill(d, v, name=name or "Fill")


def zeros(shape, dtype=dtypes.float32, name=None):
    """A tensor of zeros."""
    return _filled(shape, dtype, 0, name or "zeros")


def ones(shape, dtype=dtypes.float32, name=None):
    """A tensor of ones."""
    return _filled(shape, dtype, 1, name or "ones")


def _filled(shape, dtype, number, name):
    """zeros/ones: `number` in `dtype` (False/True for bool, "" for a string zero; ones of strings are a
    TypeError, as in TF), as a constant when the shape
    is known and a Fill of a shape tensor otherwise."""
    dtype = dtypes.as_dtype(dtype)
    value = bool(number) if dtype == dtypes.bool else "" if dtype == dtypes.string and number == 0 else number
    if isinstance(shape, ops.Tensor) or (isinstance(shape, (list, tuple)) and ops._holds_tensors(shape)):
        return fill(shape, constant_op.constant(value, dtype=dtype), name=name)
    if isinstance(shape, tensor_shape.TensorShape) and not shape.is_fully_defined():
        raise ValueError(f"Cannot convert a partially known TensorShape {shape} to a Tensor.")
    if isinstance(shape, (list, tuple)) and any(d is None for d in shape):
        raise TypeError("Expected int32, but got None of type 'NoneType'.")
    dims = tensor_shape.as_shape(shape).as_list()
    if math.prod(dims) >= 1000:  # Python ints: np.prod wraps 2**62 * 4 to 0
        # As TF's _constant_if_small: a large shape is a Fill, so that the graph holds no copy of the values
        # (an embedding table's zeros slot would otherwise sit in the GraphDef and in the Const kernel).
        return fill(dims, constant_op.constant(value, dtype=dtype), name=name)
    return constant_op.constant(value, dtype=dtype, shape=dims, name=name)


# --- helpers -------------------------------------------------------------------


def _index_tensor(value, name, dtype=None):
    """An int32 (or int64, for large values or when asked) index tensor."""
    if isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_element"):
        return ops.convert_to_tensor(value)
    if isinstance(value, (list, tuple)) and any(isinstance(v, ops.Tensor) for v in value):
        return stack([_as_int_scalar(v, _needs_int64(value)) for v in value], name=name)
    if isinstance(value, (list, tuple)) and ops._holds_tensors(value):
        return ops.convert_to_tensor(value)  # nested lists of tensors and numbers: auto-packed
    arr = np.asarray(value)
    if arr.dtype.kind not in "iu" and arr.size:
        raise TypeError(f"{name} must be integers, got {value!r}")
    if dtype is None:
        big = arr.size and (arr.max() > 2**31 - 1 or arr.min() < -(2**31))
        dtype = dtypes.int64 if big else dtypes.int32
    return constant_op.constant(arr.astype(np.int64), dtype=dtype, name=name)


def _same_index_dtype(*tensors_or_values, names):
    """Converts to index tensors of one dtype (int64 if any is int64)."""
    converted = [_index_tensor(v, n) for v, n in zip(tensors_or_values, names)]
    if any(t.dtype == dtypes.int64 for t in converted):
        converted = [
            t if t.dtype == dtypes.int64 else _index_tensor_cast(v, t, n)
            for t, v, n in zip(converted, tensors_or_values, names)
        ]
    return converted


def _index_tensor_cast(value, tensor, name):
    if isinstance(value, ops.Tensor):
        from tensorweave._src.ops import math_ops

        return math_ops.cast(tensor, dtypes.int64)
    return _index_tensor(value, name, dtypes.int64)


def constant_value(tensor):
    """The numpy value of `tensor` when a Const op produces it, else None."""
    if isinstance(tensor, ops.Tensor) and tensor.op.type == "Const":
        return np.asarray(tensor.op.get_attr("value"))
    return None


def _convert_all(values, name):
    """Converts a list of values to tensors of one dtype (that of the first
    tensor among them)."""
    values = list(values)
    dtype = None
    for v in values:
        if isinstance(v, ops.Tensor) or hasattr(v, "_as_graph_element"):
            dtype = ops.convert_to_tensor(v).dtype
            break
    return [ops.convert_to_tensor(v, dtype=dtype, name=f"{name}_{i}") for i, v in enumerate(values)]


# --- rearranging ---------------------------------------------------------------


def transpose(a, perm=None, name="transpose", conjugate=False):
    """Permutes the dimensions of `a`: result.shape[i] = a.shape[perm[i]];
    `perm=None` reverses them; `conjugate=True` also conjugates a complex `a`.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.transpose([[1, 2, 3], [4, 5, 6]])))
      [[1 4]
       [2 5]
       [3 6]]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name) as scope:
        a = ops.convert_to_tensor(a, name="a")
        if perm is None:
            if a.shape.ndims is not None:
                perm = list(reversed(builtins.range(a.shape.ndims)))
            else:
                r = rank(a)
                perm = range(r - 1, -1, -1)
        perm = _index_tensor(perm, "perm")
        if conjugate and a.dtype.is_complex:  # TF's ConjugateTranspose: the transpose of the conjugate
            return gen_ops.conj(gen_ops.transpose(a, perm), name=scope)
        return gen_ops.transpose(a, perm, name=scope)


def invert_permutation(x, name=None):
    """The inverse permutation y of x: y[x[i]] = i.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.invert_permutation([2, 0, 1])))
      [1 2 0]
    """
    return gen_ops.invert_permutation(_index_tensor(x, "x"), name=name)


def concat(values, axis, name="concat"):
    """Joins tensors along dimension `axis`.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.concat([[[1, 2]], [[3, 4]]], axis=0)))
      [[1 2]
       [3 4]]
    """
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:
        with ops.name_scope(name) as scope:
            return identity(ops.convert_to_tensor(values[0]), name=scope)
    graph = ops.get_default_graph()
    with graph.name_scope(name) as scope:
        tensors = _convert_all(values, "values")
        return gen_ops.concat_v2(tensors, _index_tensor(axis, "axis"), name=scope)


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """Splits `value` along `axis` into `num_or_size_splits` equal parts (an
    int) or parts of the given sizes (a list; one may be -1).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     a, b = tw.split(tw.constant([1, 2, 3, 4, 5]), [2, 3])
      ...     print(sess.run(a), sess.run(b))
      [1 2] [3 4 5]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name) as scope:
        value = ops.convert_to_tensor(value, name="value")
        axis_t = _index_tensor(axis, "split_dim", dtypes.int32)
        if isinstance(num_or_size_splits, (int, np.integer)) and not isinstance(num_or_size_splits, bool):
            n = int(num_or_size_splits)
            if n < 1:
                raise ValueError(f"num_or_size_splits must be >= 1, got {n}")
            return gen_ops.split(axis_t, value, num_split=n, name=scope)
        sizes = _index_tensor(num_or_size_splits, "size_splits")
        if num is None:
            if sizes.shape.ndims != 1 or sizes.shape[0].value is None:
                raise ValueError(f"Cannot infer num from shape {sizes.shape}")
            num = sizes.shape[0].value
        return gen_ops.split_v(value, sizes, axis_t, num_split=int(num), name=scope)


def stack(values, axis=0, name="stack"):
    """Stacks tensors of one shape into a tensor of one more dimension.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.stack([[1, 2], [3, 4]], axis=1)))
      [[1 3]
       [2 4]]
    """
    tensors = _convert_all(values, "values") if isinstance(values, (list, tuple)) else None
    if tensors is None:
        return ops.convert_to_tensor(values)
    if not tensors:
        if axis == 0:  # as TF's: the empty list converts to an empty float32 vector (tf.case's asserts stack none)
            return ops.convert_to_tensor(np.zeros([0], np.float32), name=name)
        raise ValueError("stack needs at least one value")
    return gen_ops.pack(tensors, axis=int(axis), name=name)


def unstack(value, num=None, axis=0, name="unstack"):
    """The slices of `value` along `axis`, as a list.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print([v.tolist() for v in sess.run(tw.unstack([[1, 2], [3, 4]]))])
      [[1, 2], [3, 4]]
    """
    value = ops.convert_to_tensor(value)
    if num is None:
        shape = value.shape
        if shape.ndims is None:
            raise ValueError(f"Cannot infer num from shape {shape}")
        if not -shape.ndims <= axis < shape.ndims:
            raise ValueError(f"axis = {axis} not in [{-shape.ndims}, {shape.ndims})")
        num = shape[axis].value
        if num is None:
            raise ValueError(f"Cannot infer num from shape {shape}")
    return gen_ops.unpack(value, num=int(num), axis=int(axis), name=name)


def tile(input, multiples, name=None):  # noqa: A002
    """Repeats `input` multiples[d] times along each dimension d.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.tile([[1, 2]], [2, 2])))
      [[1 2 1 2]
       [1 2 1 2]]
    """
    x = ops.convert_to_tensor(input)
    with ops.get_default_graph().name_scope(name or "Tile") as scope:  # TF's constant: "Tile/multiples"
        return gen_ops.tile(x, _index_tensor(multiples, "multiples"), name=scope)


def pad(tensor, paddings, mode="CONSTANT", name=None, constant_values=0):
    """Pads `tensor`: paddings[d] = [before, after] elements for dimension d.

    mode: "CONSTANT" (with `constant_values`), "REFLECT" (mirror without the
    edge element) or "SYMMETRIC" (mirror with it); case-insensitive.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.pad([1, 2, 3], [[2, 2]], mode="REFLECT")))
      [3 2 1 2 3 2 1]
    """
    x = ops.convert_to_tensor(tensor)
    p = _index_tensor(paddings, "paddings")
    mode = (mode.decode() if isinstance(mode, bytes) else mode).upper()
    if mode == "CONSTANT":
        is_zero = not isinstance(constant_values, ops.Tensor) and np.all(np.asarray(constant_values) == 0)
        if is_zero:
            return gen_ops.pad(x, p, name=name or "Pad")
        value = ops.convert_to_tensor(constant_values, dtype=x.dtype)
        return gen_ops.pad_v2(x, p, value, name=name or "PadV2")
    if mode in ("REFLECT", "SYMMETRIC"):
        return gen_ops.mirror_pad(x, p, mode=mode, name=name or "MirrorPad")
    raise ValueError(f"Unknown padding mode: {mode} (expected CONSTANT, REFLECT or SYMMETRIC)")


def expand_dims(input, axis=None, name=None, dim=None):  # noqa: A002
    """Inserts a dimension of size 1 at index `axis` (in [-rank-1, rank]).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     print(tw.expand_dims(tw.zeros([2, 3]), -1).shape)
      (2, 3, 1)
    """
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    if axis is None:
        raise ValueError("Must specify an axis argument to tw.expand_dims()")
    x = ops.convert_to_tensor(input)
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool):
        # Converted by the op, as TF's: the constant is "ExpandDims/dim", inside the op's scope.
        return gen_ops.expand_dims(x, int(axis), name=name)
    return gen_ops.expand_dims(x, _index_tensor(axis, "dim"), name=name)


def squeeze(input, axis=None, name=None, squeeze_dims=None):  # noqa: A002
    """Removes dimensions of size 1: all of them, or those in `axis`.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     print(tw.squeeze(tw.zeros([1, 2, 1, 3])).shape)
      (2, 3)
    """
    if squeeze_dims is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'squeeze_dims' and 'axis'")
        axis = squeeze_dims
    if axis is None:
        axis = []
    elif isinstance(axis, (int, np.integer)):
        axis = [int(axis)]
    x = ops.convert_to_tensor(input)
    return gen_ops.squeeze(x, squeeze_dims=[int(a) for a in axis], name=name)


# --- selecting -----------------------------------------------------------------


def slice(input_, begin, size, name=None):  # noqa: A001 - TensorFlow's name
    """input_[begin[0]:begin[0]+size[0], ...]; size[d] = -1 takes the rest.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.slice([[1, 2, 3], [4, 5, 6]], [0, 1], [2, -1])))
      [[2 3]
       [5 6]]
    """
    x = ops.convert_to_tensor(input_)
    b, s = _same_index_dtype(begin, size, names=("begin", "size"))
    return gen_ops.slice(x, b, s, name=name)


def strided_slice(
    input_,
    begin,
    end,
    strides=None,
    begin_mask=0,
    end_mask=0,
    ellipsis_mask=0,
    new_axis_mask=0,
    shrink_axis_mask=0,
    var=None,
    name=None,
):
    """Python's extended slicing with TensorFlow's masks (see the StridedSlice
    op); `x[1:, ..., None]` builds one.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.strided_slice([0, 1, 2, 3, 4, 5], [1], [6], [2])))
      [1 3 5]
    """
    x = ops.convert_to_tensor(input_)
    if strides is None:
        if isinstance(begin, ops.Tensor):
            strides = ones_like(begin)
        else:
            strides = [1] * len(begin)
    b, e, s = _same_index_dtype(begin, end, strides, names=("begin", "end", "strides"))
    attrs = {
        "begin_mask": int(begin_mask),
        "end_mask": int(end_mask),
        "ellipsis_mask": int(ellipsis_mask),
        "new_axis_mask": int(new_axis_mask),
        "shrink_axis_mask": int(shrink_axis_mask),
    }
    return gen_ops.strided_slice(x, b, e, s, **attrs, name=name or "strided_slice")


def _is_int_like(s):
    if isinstance(s, (bool, np.bool_)):
        return False
    if isinstance(s, (int, np.integer)):
        return True
    if isinstance(s, ops.Tensor):
        return s.dtype in (dtypes.int32, dtypes.int64) and s.shape.ndims in (0, None)
    return False


def _slice_helper(tensor, slice_spec):
    """tensor[slice_spec] as one StridedSlice (numpy's basic indexing)."""
    if not isinstance(slice_spec, tuple):
        slice_spec = (slice_spec,)
    begin, end, strides = [], [], []
    begin_mask = end_mask = ellipsis_mask = new_axis_mask = shrink_axis_mask = 0
    for index, s in enumerate(slice_spec):
        bit = 1 << index
        if isinstance(s, builtins.slice):
            for part in (s.start, s.stop, s.step):
                if part is not None and not _is_int_like(part):
                    raise TypeError(f"Slice indices must be integers, None or scalar int tensors, got {part!r}")
            if s.step is not None and not isinstance(s.step, ops.Tensor) and s.step == 0:
                raise ValueError("slice step cannot be zero")
            begin.append(0 if s.start is None else s.start)
            end.append(0 if s.stop is None else s.stop)
            strides.append(1 if s.step is None else s.step)
            if s.start is None:
                begin_mask |= bit
            if s.stop is None:
                end_mask |= bit
        elif s is Ellipsis:
            begin.append(0)
            end.append(0)
            strides.append(1)
            ellipsis_mask |= bit
        elif s is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            new_axis_mask |= bit
        elif _is_int_like(s):
            begin.append(s)
            end.append(s + 1)
            strides.append(1)
            shrink_axis_mask |= bit
        else:
            raise TypeError(
                "Only integers, slices (`:`), ellipsis (`...`), tw.newaxis (`None`) and "
                f"scalar int32/int64 tensors are valid indices, got {s!r}"
            )
    graph = ops.get_default_graph()
    with graph.name_scope("strided_slice") as scope:
        packed = []
        for values, what in ((begin, "begin"), (end, "end"), (strides, "strides")):
            if any(isinstance(v, ops.Tensor) for v in values):
                packed.append(stack([_as_int_scalar(v, _needs_int64(values)) for v in values], name=what))
            elif values:
                packed.append(_index_tensor([int(v) for v in values], what))
            else:
                packed.append(constant_op.constant(np.zeros([0], np.int32), name=what))
        if any(t.dtype == dtypes.int64 for t in packed):
            from tensorweave._src.ops import math_ops

            packed = [math_ops.cast(t, dtypes.int64) for t in packed]
        return strided_slice(
            tensor,
            *packed,
            begin_mask=begin_mask,
            end_mask=end_mask,
            ellipsis_mask=ellipsis_mask,
            new_axis_mask=new_axis_mask,
            shrink_axis_mask=shrink_axis_mask,
            name=scope,
        )


def _as_int_scalar(v, wide=False):
    """An int32 scalar tensor (int64 when `wide`) of a number or an integer scalar tensor."""
    dtype = dtypes.int64 if wide else dtypes.int32
    if isinstance(v, ops.Tensor):
        if v.dtype != dtype and v.dtype in (dtypes.int32, dtypes.int64):
            from tensorweave._src.ops import math_ops

            return math_ops.cast(v, dtype)
        return v
    return constant_op.constant(int(v), dtype=dtype)


newaxis = None


def gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0):
    """Slices of `params` along `axis` (default 0) at `indices`: the result has
    shape params.shape[:axis] + indices.shape + params.shape[axis+1:]. An index
    out of range is an InvalidArgumentError when the graph runs.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.gather([10, 20, 30], [[2, 0]])))
      [[30 10]]
    """
    # As TF1's gather: axis defaults to batch_dims, and an axis of 0 gathers plainly (batch_dims unused).
    if batch_dims != 0 and (batch_dims if axis is None else axis) != 0:
        return _batch_gather(params, indices, axis, batch_dims, name)
    if axis is None:
        axis = batch_dims
    graph = ops.get_default_graph()
    with graph.name_scope(name or "GatherV2") as scope:
        p = ops.convert_to_tensor(params, name="params")
        i = _index_tensor(indices, "indices")
        a = _index_tensor(0 if axis is None else axis, "axis")
        return gen_ops.gather_v2(p, i, a, batch_dims=0, name=scope)


def _batch_gather(params, indices, axis, batch_dims, name):
    """gather with batch_dims b (TF's GatherV2 batch_dims): out[i_0..i_b-1, m..., j..., r...] =
    params[i_0..i_b-1, m..., indices[i_0..i_b-1, j...], r...]. Built from one plain gather over the batch
    dimensions flattened, after an Assert that each index is in [0, params.shape[axis]) (an index past its batch's
    rows would otherwise read another batch's)."""
    from tensorweave._src.ops import logging_ops, math_ops

    graph = ops.get_default_graph()
    with graph.name_scope(name or "GatherV2"):
        p = ops.convert_to_tensor(params, name="params")
        i = _index_tensor(indices, "indices")
        p_rank, i_rank = p.shape.ndims, i.shape.ndims
        if p_rank is None or i_rank is None:
            raise ValueError("gather with batch_dims needs params and indices of known rank")
        b = int(batch_dims)
        if b < 0:
            b += i_rank
        if b < 0 or b > i_rank:
            raise ValueError(f"batch_dims = {batch_dims} must be in [{-i_rank}, {i_rank}] (the rank of indices)")
        if b >= p_rank:
            raise ValueError(f"batch_dims = {b} must be less than rank(params) = {p_rank}")
        a = int(batch_dims) if axis is None else int(axis)  # TF: axis defaults to batch_dims as given
        if a < 0:
            a += p_rank
        if a < b:
            raise ValueError(f"batch_dims = {b} must be less than or equal to axis = {a}")
        if a >= p_rank:
            raise ValueError(f"axis = {a} out of range for params of rank {p_rank}")
        for d in builtins.range(b):
            pd, idim = p.shape.dims[d].value, i.shape.dims[d].value
            if pd is not None and idim is not None and pd != idim:
                raise ValueError(
                    f"params.shape[:{b}] must equal indices.shape[:{b}] (the batch dimensions): {p.shape} vs {i.shape}"
                )
        if b == 0:
            return gather(p, i, axis=a)
        # params: B + M + [A] + R -> B + [A] + M + R, so that the gathered axis follows the batch dimensions.
        perm = list(builtins.range(b)) + [a] + list(builtins.range(b, a)) + list(builtins.range(a + 1, p_rank))
        moved = transpose(p, perm) if a != b else p
        p_shape = shape(moved)
        num_batch = math_ops.reduce_prod(p_shape[:b])
        axis_size = p_shape[b]
        flat_p = reshape(moved, concat([[-1], p_shape[b + 1 :]], 0))
        i = math_ops.cast(i, dtypes.int64) if i.dtype != dtypes.int32 else i
        size = math_ops.cast(axis_size, i.dtype)
        in_range = math_ops.logical_and(
            math_ops.greater_equal(i, ops.convert_to_tensor(0, dtype=i.dtype)), math_ops.less(i, size)
        )
        check = logging_ops.Assert(
            math_ops.reduce_all(in_range),
            ["gather with batch_dims: indices out of range [0, params.shape[axis]); indices =", i, "range", size],
            name="check_indices",
        )
        i_shape = shape(i)
        batch_index = reshape(range(0, math_ops.cast(num_batch, i.dtype), 1, dtype=i.dtype), i_shape[:b])
        offsets = reshape(batch_index * size, concat([i_shape[:b], ones([i_rank - b], dtypes.int32)], 0))
        with graph.control_dependencies([check]):
            flat_i = identity(i + offsets)
        out = gather(flat_p, reshape(flat_i, concat([[-1], i_shape[b:]], 0)))
        # out: [prod(B)] + I + M + R -> B + I + M + R -> B + M + I + R.
        out_shape = concat([shape(p)[:b], i_shape[b:], shape(p)[b:a], shape(p)[a + 1 :]], 0)
        out = reshape(out, out_shape)
        m_rank, idx_rank = a - b, i_rank - b
        if m_rank and idx_rank:
            back = (
                list(builtins.range(b))
                + list(builtins.range(b + idx_rank, b + idx_rank + m_rank))
                + list(builtins.range(b, b + idx_rank))
                + list(builtins.range(b + idx_rank + m_rank, p_rank - 1 + idx_rank))
            )
            out = transpose(out, back)
        return out


def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """result[i] = sum of data[j] over j with segment_ids[j] == i; ids may be in
    any order and segment_ids' shape is a prefix of data's.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.unsorted_segment_sum([1, 2, 3, 4], [0, 1, 0, 1], 2)))
      [4 6]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "UnsortedSegmentSum") as scope:
        d = ops.convert_to_tensor(data, name="data")
        ids = _index_tensor(segment_ids, "segment_ids")
        n = _index_tensor(num_segments, "num_segments")
        return gen_ops.unsorted_segment_sum(d, ids, n, name=scope)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """on_value at each index along a new axis of size `depth`, off_value
    elsewhere (defaults 1 and 0; dtype float32 unless given or implied).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.one_hot([0, 2], 3)))
      [[1. 0. 0.]
       [0. 0. 1.]]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "one_hot") as scope:
        if on_value is not None and off_value is not None:
            on_dtype, off_dtype = (
                v.dtype if hasattr(v, "dtype") and hasattr(v, "graph") else constant_op._infer_dtype(v)
                for v in (on_value, off_value)
            )
            if on_dtype != off_dtype:
                raise TypeError(f"dtype {on_dtype.name} of on_value does not match dtype {off_dtype.name} of off_value")
        if dtype is None:
            for v in (on_value, off_value):
                if isinstance(v, ops.Tensor):
                    dtype = v.dtype
                    break
            else:
                dtype = dtypes.float32
                for v in (on_value, off_value):
                    if v is not None:
                        dtype = constant_op.constant(v).dtype
                        break
        dtype = dtypes.as_dtype(dtype)
        on = ops.convert_to_tensor(1 if on_value is None else on_value, dtype=dtype, name="on_value")
        off = ops.convert_to_tensor(0 if off_value is None else off_value, dtype=dtype, name="off_value")
        i = _index_tensor(indices, "indices")
        d = _index_tensor(depth, "depth", dtypes.int32)
        attrs = {"axis": -1 if axis is None else int(axis)}
        return gen_ops.one_hot(i, d, on, off, **attrs, name=scope)


# --- shapes and values -----------------------------------------------------------


def zeros_like(tensor, dtype=None, name=None, optimize=True):
    """Zeros with the shape of `tensor` (and its dtype unless `dtype` is given).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.zeros_like([[1, 2]])))
      [[0 0]]
    """
    with ops.name_scope(name, "zeros_like", [tensor]) as name:
        x = ops.convert_to_tensor(tensor, name="tensor")
        dtype = dtypes.as_dtype(dtype) if dtype is not None else x.dtype
        if optimize and x.shape.is_fully_defined():
            # As TF: zeros that do not read `tensor` when its shape is known (a Const, or a Fill when large).
            return zeros(x.shape.as_list(), dtype=dtype, name=name)
        if dtype != x.dtype:
            return zeros(shape(x), dtype=dtype, name=name)
        return gen_ops.zeros_like(x, name=name)


def ones_like(tensor, dtype=None, name=None, optimize=True):
    """Ones with the shape of `tensor` (and its dtype unless `dtype` is given).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.ones_like([[1.5, 2.5]])))
      [[1. 1.]]
    """
    with ops.name_scope(name, "ones_like", [tensor]) as name:
        x = ops.convert_to_tensor(tensor, name="tensor")
        dtype = dtypes.as_dtype(dtype) if dtype is not None else x.dtype
        # As TF: a Fill of the shape, a constant when it is known.
        dims = (
            constant_op.constant(x.shape.as_list(), dtypes.int32)
            if optimize and x.shape.is_fully_defined()
            else shape(x)
        )
        ret = _filled(dims, dtype, 1, name)
        ret.set_shape(x.shape)
        return ret


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001
    """start, start + delta, ... up to (not including) limit; with one
    argument, 0 ... start - 1.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.range(3, 10, 3)))
      [3 6 9]
    """
    if limit is None:
        start, limit = 0, start
    graph = ops.get_default_graph()
    with graph.name_scope(name) as scope:
        values = [start, limit, delta]
        if dtype is None:
            inferred = []
            for v in values:
                if isinstance(v, ops.Tensor):
                    inferred.append(v.dtype)
                elif isinstance(v, (float, np.floating)):
                    inferred.append(dtypes.float32)
                else:
                    inferred.append(dtypes.int32)
            order = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64]
            dtype = max(inferred, key=order.index)
        dtype = dtypes.as_dtype(dtype)
        tensors = []
        for v, n in zip(values, ("start", "limit", "delta")):
            if isinstance(v, ops.Tensor) and v.dtype != dtype:
                from tensorweave._src.ops import math_ops

                v = math_ops.cast(v, dtype)
            tensors.append(ops.convert_to_tensor(v, dtype=dtype, name=n))
        return gen_ops.range(*tensors, name=scope)


def size(input, name=None, out_type=dtypes.int32):  # noqa: A002
    """The number of elements of `input`, as a scalar tensor.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.size(tw.zeros([2, 3]))))
      6
    """
    x = ops.convert_to_tensor(input)
    attrs = {"out_type": dtypes.as_dtype(out_type).as_datatype_enum}
    return gen_ops.size(x, **attrs, name=name)


def rank(input, name=None):  # noqa: A002
    """The number of dimensions of `input`, as a scalar int32 tensor.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.rank(tw.zeros([2, 3]))))
      2
    """
    with ops.name_scope(name, "Rank", [input]) as scope:
        x = ops.convert_to_tensor(input)
        if x.shape.ndims is not None:
            # As TF's rank_internal(optimize=True): a known rank is a constant named as the op would be.
            return constant_op.constant(x.shape.ndims, dtypes.int32, name=scope)
        return gen_ops.rank(x, name=scope)


def stop_gradient(input, name=None):  # noqa: A002
    """Returns `input`; gradients do not flow through the result.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     x = tw.constant(2.0)
      ...     print(tw.gradients(tw.stop_gradient(x), x))
      [None]
    """
    x = ops.convert_to_tensor(input)
    return gen_ops.stop_gradient(x, name=name)


ops.Tensor.__getitem__ = _slice_helper

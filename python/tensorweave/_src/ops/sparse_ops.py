"""The sparse ops of TF1 (tf.sparse_* and tf.sparse.*) as composites over the dense ops.

A SparseTensor is (indices [N, rank] int64, values [N], dense_shape [rank] int64). Each function here builds
its result from gather/scatter/segment/sort ops, so the results (in TF's canonical row-major order) and the
gradients with respect to the values follow from those ops' own kernels and gradients.
"""

import numpy as np

from tensorweave._src.framework import dtypes, errors, ops, tensor_shape
from tensorweave._src.framework.sparse_tensor import SparseTensor, SparseTensorValue


def _tw():
    import tensorweave

    return tensorweave


def _convert(sp):
    if isinstance(sp, SparseTensor):
        return sp
    if isinstance(sp, SparseTensorValue) or (isinstance(sp, tuple) and len(sp) == 3):
        return SparseTensor.from_value(SparseTensorValue(*sp))
    raise TypeError(f"Input must be a SparseTensor, got {type(sp).__name__}")


def _scope(name, default):
    return ops.get_default_graph().name_scope(name or default)


def _strides(shape):
    """Row-major strides of an int64 shape vector."""
    tw = _tw()
    return tw.math.cumprod(shape, exclusive=True, reverse=True)


def _linearize(indices, shape):
    tw = _tw()
    return tw.reduce_sum(indices * tw.expand_dims(_strides(shape), 0), axis=1)


def _unravel(lin, shape):
    tw = _tw()
    strides = tw.expand_dims(_strides(shape), 0)
    return tw.floormod(tw.floordiv(tw.expand_dims(lin, 1), strides), tw.expand_dims(shape, 0))


def _with_static(sp, static_shape):
    sp._static_shape = tensor_shape.TensorShape(static_shape)
    return sp


def _assert(condition, data):
    """A check when the graph runs: InvalidArgumentError with `data` in its message when `condition` is false.

    (Through py_func, which raises the error class given; an Assert kernel is not in the runtime yet.)
    """
    from tensorweave import errors
    from tensorweave._src.ops.script_ops import py_func

    texts = [d for d in data if isinstance(d, str)]
    tensors = [ops.convert_to_tensor(d) for d in data if not isinstance(d, str)]
    order = [isinstance(d, str) for d in data]

    def check(cond, *vals):
        if not bool(cond):
            it_t, it_v = iter(texts), iter(vals)
            msg = " ".join(next(it_t) if is_text else str(next(it_v).tolist()) for is_text in order)
            raise errors.InvalidArgumentError(None, None, msg)
        return np.int64(0)

    return py_func(
        check, [ops.convert_to_tensor(condition, dtype=dtypes.bool)] + tensors, dtypes.int64, stateful=True
    ).op


def _check_indices(sp):
    """An InvalidArgumentError naming the first index outside dense_shape (checked when the graph runs)."""
    tw = _tw()
    idx, shape = sp.indices, sp.dense_shape
    bad = tw.logical_or(idx < 0, idx >= tw.expand_dims(shape, 0))
    ok = tw.logical_not(tw.reduce_any(bad))
    first = tw.where(tw.reduce_any(bad, axis=1))
    return _assert(
        ok,
        [
            "indices out of bounds: first bad index at position",
            first[:1, 0],
            "index",
            tw.gather(idx, first[:1, 0]),
            "dense_shape",
            shape,
        ],
    )


def _check_order(sp):
    """TF's SparseToDense validation: InvalidArgumentError naming the first index that is out of (row-major)
    order or repeated (checked when the graph runs)."""
    from tensorweave._src.framework import errors
    from tensorweave._src.ops.script_ops import py_func

    def check(indices):
        indices = np.asarray(indices)
        if indices.ndim == 1:  # sparse_to_dense's indices into a 1-D output
            indices = indices.reshape(-1, 1)
        if len(indices) > 1 and indices.shape[1]:
            step = indices[1:] - indices[:-1]
            first = (step != 0).argmax(axis=1)
            sign = step[np.arange(len(step)), first]
            bad = np.flatnonzero(sign <= 0)
            if bad.size:
                i = int(bad[0]) + 1
                where = f"indices[{i}] = [{','.join(str(int(v)) for v in indices[i])}]"
                if sign[bad[0]] == 0:
                    raise errors.InvalidArgumentError(None, None, f"{where} is repeated")
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"{where} is out of order. Many sparse ops require sorted indices. "
                    "Use `tf.sparse.reorder` to create a correctly ordered copy.",
                )
        return np.int64(0)

    return py_func(check, [sp.indices], dtypes.int64, stateful=True).op


# --- construction and conversion ----------------------------------------------------------------------------


def sparse_placeholder(dtype, shape=None, name=None):
    """A SparseTensor of placeholders (TF1's tf.sparse_placeholder): feed it a SparseTensorValue."""
    tw = _tw()
    base = name or "Placeholder"
    if shape is not None:
        static = tensor_shape.TensorShape(shape)
        rank = static.ndims
    else:
        static, rank = tensor_shape.TensorShape(None), None
    values = tw.placeholder(dtype, shape=[None], name=base + "/values")
    indices = tw.placeholder(dtypes.int64, shape=[None, rank], name=base + "/indices")
    if static.is_fully_defined():
        dense_shape = tw.placeholder_with_default(
            np.array(static.as_list(), np.int64), shape=[rank], name=base + "/shape_default"
        )
    else:
        dense_shape = tw.placeholder(dtypes.int64, shape=[rank], name=base + "/shape")
    sp = SparseTensor(indices, values, dense_shape)
    return _with_static(sp, static)


def sparse_tensor_to_dense(sp_input, default_value=0, validate_indices=True, name=None):
    """The dense tensor of a SparseTensor, `default_value` where it has no entry."""
    tw = _tw()
    sp = _convert(sp_input)
    with _scope(name, "SparseToDense"):
        default = tw.cast(default_value, sp.dtype)
        deps = [_check_indices(sp), _check_order(sp)] if validate_indices else []
        with tw.control_dependencies(deps):
            base = tw.fill(sp.dense_shape, default)
            out = tw.tensor_scatter_nd_update(base, sp.indices, sp.values)
        out.set_shape(_dense_static(sp))
        return out


def _dense_static(sp):
    """The static shape TF1 gives a dense result: dense_shape's constant value, else only its length."""
    from tensorweave._src.ops.array_ops import constant_value

    value = constant_value(sp.dense_shape)
    if value is not None:
        return tensor_shape.TensorShape([int(d) for d in value])
    n = sp.dense_shape.shape.as_list()[0] if sp.dense_shape.shape.ndims == 1 else None
    return tensor_shape.TensorShape(None if n is None else [None] * n)


to_dense = sparse_tensor_to_dense


def sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value=0, validate_indices=True, name=None):
    """The dense tensor of shape `output_shape` with `sparse_values` at `sparse_indices` (a scalar, [N] or
    [N, rank]; sorted and unique when `validate_indices`) and `default_value` elsewhere: TF's SparseToDense op."""
    from tensorweave._src.ops import gen_ops

    with _scope(name, "SparseToDense") as scope:
        indices = ops.convert_to_tensor(sparse_indices, name="sparse_indices")
        if indices.dtype not in (dtypes.int32, dtypes.int64):
            indices = _tw().cast(indices, dtypes.int64)
        values = ops.convert_to_tensor(sparse_values, name="sparse_values")
        return gen_ops.sparse_to_dense(
            indices,
            _tw().cast(output_shape, indices.dtype),
            values,
            ops.convert_to_tensor(default_value, dtype=values.dtype, name="default_value"),
            validate_indices=bool(validate_indices),
            name=scope,
        )


def from_dense(tensor, name=None):
    tw = _tw()
    with _scope(name, "dense_to_sparse"):
        tensor = ops.convert_to_tensor(tensor)
        indices = tw.where(tw.not_equal(tensor, tw.zeros_like(tensor)))
        values = tw.gather_nd(tensor, indices)
        shape = tw.shape(tensor, out_type=dtypes.int64)
        return _with_static(SparseTensor(indices, values, shape), tensor.shape)


def _rebuild(sp, indices, values, dense_shape, static):
    return _with_static(SparseTensor(indices, values, dense_shape), static)


# --- reordering and reshaping ---------------------------------------------------------------------------------


def sparse_reorder(sp_input, name=None):
    """The SparseTensor with its entries in row-major (canonical) order."""
    tw = _tw()
    sp = _convert(sp_input)
    with _scope(name, "SparseReorder"):
        order = tw.argsort(_linearize(sp.indices, sp.dense_shape), stable=True)
        return _rebuild(sp, tw.gather(sp.indices, order), tw.gather(sp.values, order), sp.dense_shape, sp.shape)


def sparse_reshape(sp_input, shape, name=None):
    """The SparseTensor reshaped to `shape` (one dimension may be -1)."""
    tw = _tw()
    sp = _convert(sp_input)
    with _scope(name, "SparseReshape"):
        shape_arg = shape if isinstance(shape, ops.Tensor) else ops.convert_to_tensor(np.asarray(shape, np.int64))
        shape = tw.cast(shape_arg, dtypes.int64)
        total = tw.reduce_prod(sp.dense_shape)
        known = tw.reduce_prod(tw.where(shape < 0, tw.ones_like(shape), shape))
        new_shape = tw.where(shape < 0, tw.fill(tw.shape(shape), total // tw.maximum(known, 1)), shape)
        check = _assert(
            tw.equal(tw.reduce_prod(new_shape), total),
            ["Input to reshape is a SparseTensor with", total, "dense values, but the requested shape", new_shape],
        )
        with tw.control_dependencies([check]):
            lin = _linearize(sp.indices, sp.dense_shape)
            new_indices = _unravel(lin, new_shape)
        from tensorweave._src.ops.array_ops import constant_value

        sv = constant_value(shape_arg)
        src = _dense_static(sp)
        if (
            sv is not None
            and src.is_fully_defined()
            and -1 not in [int(d) for d in sv]
            and int(np.prod([int(d) for d in sv])) != int(np.prod(src.as_list()))
        ):
            raise ValueError(
                f"Cannot reshape a tensor with {int(np.prod(src.as_list()))} elements to shape "
                f"{[int(d) for d in sv]} ({int(np.prod([int(d) for d in sv]))} elements)"
            )
        static = tensor_shape.TensorShape(None)
        if sv is not None:
            dims = [int(d) for d in sv]
            if -1 in dims and sp.shape.is_fully_defined():
                n = int(np.prod(sp.shape.as_list()))
                k = int(np.prod([d for d in dims if d >= 0]))
                dims = [n // max(k, 1) if d == -1 else d for d in dims]
            static = tensor_shape.TensorShape([None if d < 0 else d for d in dims])
        return _rebuild(sp, new_indices, sp.values, new_shape, static)


def sparse_transpose(sp_input, perm=None, name=None):
    """The SparseTensor transposed by `perm` (reversed dimensions by default)."""
    tw = _tw()
    sp = _convert(sp_input)
    with _scope(name, "SparseTranspose"):
        rank = tw.size(sp.dense_shape)
        if perm is None:
            perm = tw.range(rank - 1, -1, -1)
        static = _dense_static(sp)
        perm_value = None if isinstance(perm, ops.Tensor) else perm
        perm = tw.cast(perm, dtypes.int32)
        indices = tw.gather(sp.indices, perm, axis=1)
        shape = tw.gather(sp.dense_shape, perm)
        out = sparse_reorder(SparseTensor(indices, sp.values, shape))
        if static.ndims is not None:
            order = list(range(static.ndims))[::-1] if perm_value is None else [int(p) for p in perm_value]
            out = _with_static(out, [static.dims[p] for p in order])
        return out


def sparse_reset_shape(sp_input, new_shape=None):
    """The SparseTensor with dense_shape `new_shape` (or the tightest shape holding its entries)."""
    tw = _tw()
    sp = _convert(sp_input)
    with _scope(None, "SparseResetShape"):
        if new_shape is None:
            rank = tw.size(sp.dense_shape)
            empty = tw.zeros(tw.reshape(rank, [1]), dtypes.int64)
            shape = tw.reduce_max(tw.concat([tw.expand_dims(empty - 1, 0), sp.indices], 0), axis=0) + 1
            return SparseTensor(sp.indices, sp.values, shape)
        from tensorweave._src.ops.array_ops import constant_value

        shape = tw.cast(new_shape, dtypes.int64)
        static = constant_value(new_shape) if isinstance(new_shape, ops.Tensor) else np.asarray(new_shape)
        check = _assert(tw.reduce_all(shape >= sp.dense_shape), ["new_shape must not be smaller than dense_shape"])
        with tw.control_dependencies([check]):
            shape = tw.identity(shape)
        out = SparseTensor(sp.indices, sp.values, shape)
        return out if static is None else _with_static(out, [int(d) for d in static])


def expand_dims(sp_input, axis=None, name=None):
    tw = _tw()
    sp = _convert(sp_input)
    with _scope(name, "expand_dims"):
        axis = -1 if axis is None else axis
        r = sp.shape.ndims
        if r is not None and isinstance(axis, int) and not -r - 1 <= axis <= r:
            raise ValueError(f"axis {axis} is out of range [{-r - 1}, {r}] for a SparseTensor of rank {r}")
        rank = tw.size(sp.dense_shape)
        ax = tw.where(axis < 0, axis + rank + 1, axis) if isinstance(axis, int) else axis
        n = tw.shape(sp.indices, out_type=dtypes.int64)[0]
        zeros = tw.zeros(tw.stack([n, 1]), dtypes.int64)
        indices = tw.concat([sp.indices[:, :ax], zeros, sp.indices[:, ax:]], axis=1)
        shape = tw.concat([sp.dense_shape[:ax], tw.constant([1], dtypes.int64), sp.dense_shape[ax:]], 0)
        static = tensor_shape.TensorShape(None)
        if sp.shape.ndims is not None and isinstance(axis, int):
            dims = [None] * sp.shape.ndims  # TF1 keeps only the rank and the new 1
            a = axis if axis >= 0 else axis + len(dims) + 1
            static = tensor_shape.TensorShape(dims[:a] + [1] + dims[a:])
        return _with_static(SparseTensor(indices, sp.values, shape), static)


def eye(num_rows, num_columns=None, dtype=dtypes.float32, name=None):
    tw = _tw()
    with _scope(name, "eye"):
        num_columns = num_rows if num_columns is None else num_columns
        rows = tw.cast(num_rows, dtypes.int64)
        cols = tw.cast(num_columns, dtypes.int64)
        n = tw.minimum(rows, cols)
        diag = tw.range(n)
        indices = tw.stack([diag, diag], axis=1)
        values = tw.ones(tw.reshape(n, [1]), dtype)
        shape = tw.stack([rows, cols])
        static = [
            num_rows if isinstance(num_rows, int) else None,
            num_columns if isinstance(num_columns, int) else None,
        ]
        return _with_static(SparseTensor(indices, values, shape), static)


# --- selection -----------------------------------------------------------------------------------------------


def _sparse_dense_cwise(sp_input, dense, fn, name):
    """`fn(values, the dense values at the SparseTensor's indices)`, `dense` broadcast to the dense shape (TF's
    SparseDenseCwiseMul / SparseDenseCwiseDiv: only the dense side broadcasts); the SparseTensor's pattern."""
    tw = _tw()
    sp = _convert(sp_input)
    with _scope(None, name):
        y = ops.convert_to_tensor(dense, dtype=sp.dtype, name="y")
        rank = y.shape.ndims
        if rank == 0:
            at = y
        elif rank is not None:
            # y's dims must each be 1 or the SparseTensor's trailing dim (TF's SparseDenseBinaryOpShared).
            y_shape = tw.shape(y, out_type=dtypes.int64)
            padded = tw.concat([tw.ones([rank], dtypes.int64), sp.dense_shape], 0)[-rank:]
            fits = tw.logical_and(
                tw.less_equal(rank, tw.size(sp.dense_shape)),
                tw.reduce_all(tw.logical_or(tw.equal(y_shape, 1), tw.equal(y_shape, padded))),
            )
            check = _assert(
                fits, [f"{name}: the dense shape", y_shape, "does not broadcast to the sparse shape", sp.dense_shape]
            )
            # Index y with the last `rank` index columns, a size-1 dimension of y read at 0 (broadcast).
            keep = tw.cast(tw.greater(y_shape, 1), dtypes.int64)
            with tw.control_dependencies([check]):
                at = tw.gather_nd(y, sp.indices[:, -rank:] * tw.expand_dims(keep, 0))
        else:
            at = tw.gather_nd(tw.broadcast_to(y, sp.dense_shape), sp.indices)
        return _rebuild(sp, sp.indices, fn(sp.values, at), sp.dense_shape, _dense_static(sp))


def sparse_dense_cwise_mul(sp_input, dense, name=None):
    """The SparseTensor times `dense` (broadcast to its shape) at its entries: `sp * dense`."""
    return _sparse_dense_cwise(sp_input, dense, lambda a, b: a * b, name or "mul")


def sparse_dense_cwise_div(sp_input, dense, name=None):
    """The SparseTensor divided by `dense` (broadcast to its shape) at its entries: `sp / dense`."""
    return _sparse_dense_cwise(sp_input, dense, lambda a, b: a / b, name or "truediv")


def sparse_retain(sp_input, to_retain):
    """The entries of a SparseTensor where the boolean vector `to_retain` is true."""
    tw = _tw()
    sp = _convert(sp_input)
    with _scope(None, "SparseRetain"):
        to_retain = ops.convert_to_tensor(to_retain)
        to_retain.shape.assert_has_rank(1)
        n, m = sp.values.shape.ndims and sp.values.shape.as_list()[0], to_retain.shape.as_list()[0]
        if n is not None and m is not None and n != m:
            raise ValueError(f"sparse_retain: to_retain has {m} entries for a SparseTensor of {n} values")
        keep = tw.where(tw.cast(to_retain, dtypes.bool))[:, 0]
        return _rebuild(sp, tw.gather(sp.indices, keep), tw.gather(sp.values, keep), sp.dense_shape, sp.shape)


def sparse_slice(sp_input, start, size, name=None):
    """The entries of a SparseTensor inside the box `start`, `size`, re-based to `start`."""
    tw = _tw()
    sp = _convert(sp_input)
    with _scope(name, "SparseSlice"):
        start = tw.cast(start, dtypes.int64)
        size = tw.cast(size, dtypes.int64)
        # TF's SparseSlice: a negative size is an error (it had given an empty slice).
        check = _assert(tw.reduce_all(size >= 0), ["SparseSlice: Expected a non-negative size, got", size])
        with tw.control_dependencies([check]):
            end = tw.minimum(start + size, sp.dense_shape)
        inside = tw.logical_and(sp.indices >= tw.expand_dims(start, 0), sp.indices < tw.expand_dims(end, 0))
        keep = tw.where(tw.reduce_all(inside, axis=1))[:, 0]
        indices = tw.gather(sp.indices, keep) - tw.expand_dims(start, 0)
        shape = tw.maximum(end - start, 0)
        return SparseTensor(indices, tw.gather(sp.values, keep), shape)


def sparse_split(keyword_required=None, sp_input=None, num_split=None, axis=None, name=None, split_dim=None):
    """Splits a SparseTensor into `num_split` SparseTensors along `axis`."""
    tw = _tw()
    if keyword_required is not None:
        raise ValueError("Keyword arguments are required for this function.")
    if sp_input is None:
        raise ValueError("sp_input is required")
    if num_split is None:
        raise ValueError("num_split is required")
    if axis is None:
        axis = split_dim
    if axis is None:
        raise ValueError("axis is required")
    if not isinstance(num_split, int) or num_split < 1:
        raise ValueError(f"Attr 'num_split' of 'SparseSplit' Op passed {num_split} less than minimum 1.")
    sp = _convert(sp_input)
    with _scope(name, "SparseSplit"):
        rank = tw.size(sp.dense_shape)
        dim = sp.dense_shape[axis]
        # As TF's kernel: more pieces than the dimension has is an error (it gave empty pieces).
        check = tw.debugging.assert_less_equal(
            tw.constant(num_split, dtypes.int64),
            dim,
            data=["num_split should be between 1 and the splitting dimension size", dim, f"got {num_split}"],
        )
        with tw.control_dependencies([check]):
            dim = tw.identity(dim)
        base, extra = dim // num_split, dim % num_split
        onehot = tw.one_hot(axis, rank, dtype=dtypes.int64)
        outs, offset = [], tw.constant(0, dtypes.int64)
        for i in range(num_split):
            n = base + tw.cast(i < extra, dtypes.int64)
            start = onehot * offset
            size = tw.where(tf_bool(onehot), tw.fill(tw.shape(onehot), n), sp.dense_shape)
            outs.append(sparse_slice(sp, start, size))
            offset = offset + n
        return outs


def tf_bool(x):
    return _tw().cast(x, dtypes.bool)


def sparse_fill_empty_rows(sp_input, default_value, name=None):
    """Gives every empty row of a 2-D SparseTensor one entry `default_value`; returns it and the empty-row indicator."""
    tw = _tw()
    sp = _convert(sp_input)
    with _scope(name, "SparseFillEmptyRows"):
        nrows = sp.dense_shape[0]
        with tw.control_dependencies([_check_indices(sp)]):
            rows = tw.identity(sp.indices[:, 0])
        counts = tw.math.unsorted_segment_sum(tw.ones_like(rows), rows, nrows)
        empty = tw.equal(counts, 0)
        new_rows = tw.where(empty)  # [M, 1]
        m = tw.shape(new_rows, out_type=dtypes.int64)[0]
        rest = tw.zeros(tw.stack([m, tw.size(sp.dense_shape, out_type=dtypes.int64) - 1]), dtypes.int64)
        new_indices = tw.concat([new_rows, rest], axis=1)
        new_values = tw.fill(tw.reshape(m, [1]), tw.cast(default_value, sp.dtype))
        all_indices = tw.concat([sp.indices, new_indices], 0)
        all_values = tw.concat([sp.values, new_values], 0)
        out = sparse_reorder(SparseTensor(all_indices, all_values, sp.dense_shape))
        return _with_static(out, sp.shape), empty


# --- elementwise combinations ---------------------------------------------------------------------------------


def _union(a, b, presence=False):
    """The sorted union of two sparse tensors' positions and each one's values there (zero where absent); with
    `presence`, also whether each position is in both."""
    tw = _tw()
    la = _linearize(a.indices, a.dense_shape)
    lb = _linearize(b.indices, a.dense_shape)
    lin = tw.concat([la, lb], 0)
    uniq, idx = tw.unique(lin, out_idx=dtypes.int64)
    nu = tw.size(uniq, out_type=dtypes.int64)
    na = tw.size(la, out_type=dtypes.int64)
    order = tw.argsort(uniq, stable=True)
    va = tw.gather(tw.math.unsorted_segment_sum(a.values, idx[:na], nu), order)
    vb = tw.gather(tw.math.unsorted_segment_sum(b.values, idx[na:], nu), order)
    indices = _unravel(tw.gather(uniq, order), a.dense_shape)
    if presence:
        ones = tw.ones_like(lin)
        count = tw.gather(tw.math.unsorted_segment_sum(ones, idx, nu), order)
        return indices, va, vb, count > 1
    return indices, va, vb


def _static_same_shape(a, b):
    sa, sb = _dense_static(a), _dense_static(b)
    if sa.is_fully_defined() and sb.is_fully_defined() and sa != sb:
        raise ValueError(f"Operands do not have the same shapes: {sa} and {sb}")


def sparse_add(a, b, threshold=0, thresh=None):
    """Sums two SparseTensors (entries below `threshold` dropped), or a SparseTensor and a dense tensor (dense result)."""
    tw = _tw()
    if thresh is not None:
        threshold = thresh
    a_sparse = isinstance(a, (SparseTensor, SparseTensorValue))
    b_sparse = isinstance(b, (SparseTensor, SparseTensorValue))
    if not a_sparse and not b_sparse:
        raise TypeError("At least one input should be SparseTensor; do you mean to use tf.add()?")
    if a_sparse and b_sparse:
        a, b = _convert(a), _convert(b)
        _static_same_shape(a, b)
        with _scope(None, "SparseAdd"):
            check = _assert(
                tw.reduce_all(tw.equal(a.dense_shape, b.dense_shape)),
                ["Operands do not have the same ranks or shapes:", a.dense_shape, b.dense_shape],
            )
            with tw.control_dependencies([check]):
                indices, va, vb, in_both = _union(a, b, presence=True)
            s = va + vb
            # As TF's SparseAdd: the threshold drops only sums (positions in both); the others are kept.
            large = tw.abs(s) >= tw.cast(threshold, s.dtype.real_dtype if s.dtype.is_complex else s.dtype)
            keep = tw.where(tw.logical_or(large, tw.logical_not(in_both)))[:, 0]
            return _rebuild(a, tw.gather(indices, keep), tw.gather(s, keep), a.dense_shape, a.shape)
    if b_sparse:
        a, b = b, a
    a = _convert(a)
    with _scope(None, "SparseTensorDenseAdd"):
        b = ops.convert_to_tensor(b, dtype=a.dtype)
        # TF's SparseTensorDenseAdd: the dense shape must be the SparseTensor's (no broadcasting).
        b_shape, rank = tw.shape(b, out_type=dtypes.int64), tw.size(a.dense_shape)
        common = tw.minimum(rank, tw.size(b_shape))
        same = tw.logical_and(
            tw.equal(rank, tw.size(b_shape)), tw.reduce_all(tw.equal(a.dense_shape[:common], b_shape[:common]))
        )
        check = _assert(
            same, ["SparseTensorDenseAdd: the sparse shape", a.dense_shape, "is not the dense shape", b_shape]
        )
        with tw.control_dependencies([check]):
            return tw.tensor_scatter_nd_add(b, a.indices, a.values)


def _elementwise(a, b, fn, name):
    tw = _tw()
    a, b = _convert(a), _convert(b)
    _static_same_shape(a, b)
    with _scope(None, name):
        check = _assert(
            tw.reduce_all(tw.equal(a.dense_shape, b.dense_shape)),
            ["Operands do not have the same ranks or shapes:", a.dense_shape, b.dense_shape],
        )
        with tw.control_dependencies([check]):
            indices, va, vb = _union(a, b)
        return _rebuild(a, indices, fn(va, vb), a.dense_shape, a.shape)


def sparse_maximum(sp_a, sp_b, name=None):
    """The element-wise maximum of two SparseTensors of the same shape."""
    return _elementwise(sp_a, sp_b, _tw().maximum, name or "SparseSparseMaximum")


def sparse_minimum(sp_a, sp_b, name=None):
    """The element-wise minimum of two SparseTensors of the same shape."""
    return _elementwise(sp_a, sp_b, _tw().minimum, name or "SparseSparseMinimum")


def sparse_concat(axis, sp_inputs, name=None, expand_nonconcat_dim=False, concat_dim=None, expand_nonconcat_dims=None):
    """Concatenates SparseTensors along `axis` (TF1's sparse_concat, `expand_nonconcat_dim` included)."""
    tw = _tw()
    if concat_dim is not None:
        axis = concat_dim
    if expand_nonconcat_dims is not None:
        expand_nonconcat_dim = expand_nonconcat_dims
    sps = [_convert(s) for s in sp_inputs]
    with _scope(name, "SparseConcat"):
        rank = tw.size(sps[0].dense_shape)
        ax = axis if axis >= 0 else axis + sps[0].shape.ndims
        onehot = tw.one_hot(ax, rank, dtype=dtypes.int64)
        shapes = tw.stack([s.dense_shape for s in sps])
        dims = shapes[:, ax]
        offsets = tw.math.cumsum(dims, exclusive=True)
        indices = tw.concat([s.indices + onehot * offsets[i] for i, s in enumerate(sps)], 0)
        values = tw.concat([s.values for s in sps], 0)
        other = tw.reduce_max(shapes, 0) if expand_nonconcat_dim else shapes[0]
        if not expand_nonconcat_dim:
            same = tw.reduce_all(tw.equal(shapes * (1 - onehot), tw.expand_dims(shapes[0] * (1 - onehot), 0)))
            check = _assert(same, ["Input shapes must match except on the concat dimension:", shapes])
            with tw.control_dependencies([check]):
                other = tw.identity(other)
        shape = other * (1 - onehot) + onehot * tw.reduce_sum(dims)
        out = sparse_reorder(SparseTensor(indices, values, shape))
        static = tensor_shape.TensorShape(None)
        if all(s.shape.is_fully_defined() for s in sps) and not expand_nonconcat_dim:
            d = sps[0].shape.as_list()
            d[ax] = sum(s.shape.as_list()[ax] for s in sps)
            static = tensor_shape.TensorShape(d)
        return _with_static(out, static)


# --- reductions and softmax -----------------------------------------------------------------------------------


def _axes(axis, reduction_axes):
    return reduction_axes if axis is None else axis


def _reduce(sp_input, axis, keepdims, reduction_axes, keep_dims, kind):
    """The dense reduction over the present values and how many values each result has."""
    tw = _tw()
    keepdims = bool(keepdims if keepdims is not None else keep_dims)
    axis = _axes(axis, reduction_axes)
    sp = _convert(sp_input)
    static = _dense_static(sp)
    count = tw.tensor_scatter_nd_add(tw.zeros(sp.dense_shape, dtypes.int64), sp.indices, tw.ones_like(sp.indices[:, 0]))
    count.set_shape(static)
    count = tw.reduce_sum(count, axis=axis, keepdims=keepdims)
    if kind == "sum":
        dense = tw.tensor_scatter_nd_add(tw.zeros(sp.dense_shape, sp.dtype), sp.indices, sp.values)
        dense.set_shape(static)
        return tw.reduce_sum(dense, axis=axis, keepdims=keepdims), count
    low = tw.cast(sp.dtype.min, sp.dtype)
    dense = tw.tensor_scatter_nd_update(tw.fill(sp.dense_shape, low), sp.indices, sp.values)
    dense.set_shape(static)
    mx = tw.reduce_max(dense, axis=axis, keepdims=keepdims)
    return tw.where(count > 0, mx, tw.zeros_like(mx)), count  # an empty group gives 0, as TF's kernel


def _to_sparse(dense, count):
    tw = _tw()
    indices = tw.where(count > 0)
    return SparseTensor(indices, tw.gather_nd(dense, indices), tw.shape(dense, out_type=dtypes.int64))


def sparse_reduce_sum(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    """The sum over `axis` of a SparseTensor's entries, as a dense tensor."""
    with _scope(None, "SparseReduceSum"):
        return _reduce(sp_input, axis, keepdims, reduction_axes, keep_dims, "sum")[0]


def sparse_reduce_max(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    """The max over the present values (TF's SparseReduceMax: implicit entries are not counted; empty gives 0)."""
    with _scope(None, "SparseReduceMax"):
        return _reduce(sp_input, axis, keepdims, reduction_axes, keep_dims, "max")[0]


def sparse_reduce_sum_sparse(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    """The sum over `axis` of a SparseTensor's entries, as a SparseTensor."""
    with _scope(None, "SparseReduceSumSparse"):
        return _to_sparse(*_reduce(sp_input, axis, keepdims, reduction_axes, keep_dims, "sum"))


def sparse_reduce_max_sparse(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    """The maximum over `axis` of a SparseTensor's entries, as a SparseTensor."""
    with _scope(None, "SparseReduceMaxSparse"):
        return _to_sparse(*_reduce(sp_input, axis, keepdims, reduction_axes, keep_dims, "max"))


def sparse_softmax(sp_input, name=None):
    """Softmax over the entries of each innermost row of a SparseTensor (missing entries count as absent)."""
    tw = _tw()
    sp = _convert(sp_input)
    with _scope(name, "SparseSoftmax"):
        if sp.shape.ndims is not None and sp.shape.ndims < 2:  # TF's kernel: InvalidArgumentError
            raise errors.InvalidArgumentError(
                None, None, f"Input should have rank >= 2, but received shape: {sp.shape.as_list()}"
            )
        outer = sp.indices[:, :-1]
        outer_shape = sp.dense_shape[:-1]
        group = _linearize(outer, outer_shape)
        uniq, seg = tw.unique(group, out_idx=dtypes.int64)
        n = tw.size(uniq, out_type=dtypes.int64)
        mx = tw.math.unsorted_segment_max(sp.values, seg, n)
        e = tw.exp(sp.values - tw.gather(mx, seg))
        total = tw.math.unsorted_segment_sum(e, seg, n)
        return _rebuild(sp, sp.indices, e / tw.gather(total, seg), sp.dense_shape, sp.shape)


# --- products and embeddings ----------------------------------------------------------------------------------


def sparse_tensor_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """The product of a 2-D SparseTensor and a dense matrix (with TF1's adjoint flags and gradients)."""
    tw = _tw()
    sp = _convert(sp_a)
    with _scope(name, "SparseTensorDenseMatMul"):
        b = ops.convert_to_tensor(b, dtype=sp.dtype)
        if adjoint_b:
            b = tw.transpose(b)
            if b.dtype.is_complex:
                b = tw.math.conj(b)
        rows, cols = sp.indices[:, 0], sp.indices[:, 1]
        nrows = sp.dense_shape[0]
        values = sp.values
        if adjoint_a:
            rows, cols, nrows = cols, rows, sp.dense_shape[1]
            if values.dtype.is_complex:
                values = tw.math.conj(values)
        k = sp.dense_shape[0] if adjoint_a else sp.dense_shape[1]
        check = _assert(
            tw.equal(k, tw.shape(b, out_type=dtypes.int64)[0]),
            ["Cannot multiply A and B because inner dimension does not match:", k, tw.shape(b)],
        )
        with tw.control_dependencies([check, _check_indices(sp)]):
            # gather_nd, not gather: b's gradient is dense, as TF's SparseTensorDenseMatMul gradient.
            rows_b = tw.gather_nd(b, tw.expand_dims(cols, 1))
        prod = rows_b * tw.expand_dims(values, 1)
        out = tw.math.unsorted_segment_sum(prod, rows, nrows)
        m = sp.shape.as_list()[1 if adjoint_a else 0] if sp.shape.ndims == 2 else None
        out.set_shape([m, b.shape[1]])
        return out


sparse_dense_matmul = sparse_tensor_dense_matmul


def sparse_to_indicator(sp_input, vocab_size, name=None):
    """A boolean tensor with one more dimension, true at the ids a SparseTensor holds (TF1's sparse_to_indicator)."""
    tw = _tw()
    sp = _convert(sp_input)
    with _scope(name, "SparseToIndicator"):
        ids = tw.cast(sp.values, dtypes.int64)
        indices = tw.concat([sp.indices[:, :-1], tw.expand_dims(ids, 1)], 1)
        shape = tw.concat([sp.dense_shape[:-1], tw.reshape(tw.cast(vocab_size, dtypes.int64), [1])], 0)
        n = tw.shape(ids)[0]
        out = SparseTensor(indices, tw.ones([n], dtypes.bool), shape)
        dense = tw.tensor_scatter_nd_update(tw.zeros(shape, dtypes.bool), out.indices, out.values)
        if sp.shape.ndims is not None:
            dense.set_shape(sp.shape.as_list()[:-1] + [vocab_size if isinstance(vocab_size, int) else None])
        return dense


def sparse_merge(sp_ids, sp_values, vocab_size, name=None, already_sorted=False):
    """Merges ids and values SparseTensors into one SparseTensor with `vocab_size` columns (TF1's sparse_merge)."""
    tw = _tw()
    ids_sp, vals_sp = _convert(sp_ids), _convert(sp_values)
    with _scope(name, "SparseMerge"):
        ids = tw.cast(ids_sp.values, dtypes.int64)
        indices = tw.concat([ids_sp.indices[:, :-1], tw.expand_dims(ids, 1)], 1)
        known = tw.get_static_value(ids_sp.dense_shape)
        if known is not None and isinstance(vocab_size, (int, np.integer)):  # a static dense shape, as TF's
            shape = tw.constant([*[int(d) for d in known[:-1]], int(vocab_size)], dtypes.int64)
        else:
            shape = tw.concat([ids_sp.dense_shape[:-1], tw.reshape(tw.cast(vocab_size, dtypes.int64), [1])], 0)
        out = SparseTensor(indices, vals_sp.values, shape)
        return out if already_sorted else sparse_reorder(out)


def _sparse_segment(op_type, data, indices, segment_ids, name, num_segments):
    from tensorweave._src.ops import gen_ops

    with _scope(name, op_type):
        data = ops.convert_to_tensor(data, name="data")
        indices = ops.convert_to_tensor(indices, name="indices")
        segment_ids = ops.convert_to_tensor(segment_ids, name="segment_ids")
        if num_segments is not None:
            num = ops.convert_to_tensor(num_segments, name="num_segments")
            return gen_ops.wrapper(op_type + "WithNumSegments")(data, indices, segment_ids, num, name=op_type)
        return gen_ops.wrapper(op_type)(data, indices, segment_ids, name=op_type)


def sparse_segment_sum(data, indices, segment_ids, name=None, num_segments=None):
    """TF1's tf.sparse.segment_sum: out[segment_ids[i]] += data[indices[i]] (the SparseSegmentSum kernel)."""
    return _sparse_segment("SparseSegmentSum", data, indices, segment_ids, name, num_segments)


def sparse_segment_mean(data, indices, segment_ids, name=None, num_segments=None):
    """TF1's tf.sparse.segment_mean (the SparseSegmentMean kernel)."""
    return _sparse_segment("SparseSegmentMean", data, indices, segment_ids, name, num_segments)


def sparse_segment_sqrt_n(data, indices, segment_ids, name=None, num_segments=None):
    """TF1's tf.sparse.segment_sqrt_n: the sum over sqrt(count) (the SparseSegmentSqrtN kernel)."""
    return _sparse_segment("SparseSegmentSqrtN", data, indices, segment_ids, name, num_segments)


def _sparse_segment_grad(kind):
    """d data = unsorted_segment_sum(scale[seg] * grad[seg], indices, rows of data) (TF's dense gradient)."""

    def grad_fn(op, grad):
        tw = _tw()
        data, indices, segment_ids = op.inputs[0], op.inputs[1], op.inputs[2]
        rows = tw.gather(grad, segment_ids)
        if kind != "sum":
            n = tw.shape(grad)[0]
            ones = tw.ones(tw.shape(segment_ids), grad.dtype)
            count = tw.math.unsorted_segment_sum(ones, segment_ids, n)
            count = tw.maximum(count, 1) if kind == "mean" else tw.sqrt(tw.maximum(count, 1))
            scale = tw.gather(1.0 / count, segment_ids)
            shape = tw.concat([[-1], tw.ones([tw.rank(grad) - 1], dtypes.int32)], 0)
            rows = rows * tw.reshape(scale, shape)
        d = tw.math.unsorted_segment_sum(rows, indices, tw.shape(data)[0])
        return [d, None, None] + [None] * (len(op.inputs) - 3)

    return grad_fn


def _register_sparse_segment_grads():
    from tensorweave._src.ops import gradients_impl

    for op_type, kind in (("SparseSegmentSum", "sum"), ("SparseSegmentMean", "mean"), ("SparseSegmentSqrtN", "sqrtn")):
        gradients_impl.RegisterGradient(op_type)(_sparse_segment_grad(kind))
        gradients_impl.RegisterGradient(op_type + "WithNumSegments")(_sparse_segment_grad(kind))


_register_sparse_segment_grads()


# --- conversions, products and the sparse embedding lookups -------------------------------------------------


def convert_to_tensor_or_sparse_tensor(value, dtype=None, name=None):
    """A SparseTensor (or SparseTensorValue, made a SparseTensor) unchanged, anything else a Tensor."""
    if isinstance(value, SparseTensorValue):
        value = SparseTensor.from_value(value)
    if isinstance(value, SparseTensor):
        if dtype is not None and value.dtype != dtypes.as_dtype(dtype):
            raise ValueError(f"Sparse dtype: requested = {dtypes.as_dtype(dtype).name}, actual = {value.dtype.name}")
        return value
    return ops.convert_to_tensor(value, dtype=dtype, name=name)


def sparse_matmul(a, b, transpose_a=False, transpose_b=False, a_is_sparse=False, b_is_sparse=False, name=None):
    """TF1's tf.sparse_matmul: a dense matmul (the sparsity flags are hints); float32 result as TF's SparseMatMul."""
    tw = _tw()
    with _scope(name, "SparseMatMul"):
        a = tw.cast(a, dtypes.float32)
        b = tw.cast(b, dtypes.float32)
        return tw.matmul(a, b, transpose_a=transpose_a, transpose_b=transpose_b)


def embedding_lookup_sparse(
    params, sp_ids, sp_weights, partition_strategy="mod", name=None, combiner=None, max_norm=None
):
    """TF1's tf.nn.embedding_lookup_sparse: per row of `sp_ids`, the combined embeddings of its ids."""
    tw = _tw()
    from tensorweave._src.ops import nn_impl

    if combiner is None:
        combiner = "mean"
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError("combiner must be one of 'mean', 'sqrtn' or 'sum'")
    params = nn_impl._shard_list(params)
    sp_ids = _convert(sp_ids)
    ignore_weights = sp_weights is None
    if not ignore_weights:
        sp_weights = _convert(sp_weights)
    with _scope(name, "embedding_lookup_sparse"):
        segment_ids = tw.cast(sp_ids.indices[:, 0], dtypes.int32)
        ids, idx = tw.unique(sp_ids.values)
        embeddings = nn_impl.embedding_lookup(params, ids, partition_strategy=partition_strategy, max_norm=max_norm)
        if ignore_weights:
            fn = {"sum": sparse_segment_sum, "mean": sparse_segment_mean, "sqrtn": sparse_segment_sqrt_n}[combiner]
            return fn(embeddings, idx, segment_ids)
        weights = sp_weights.values
        embeddings = tw.gather(embeddings, idx)
        rank = embeddings.shape.ndims
        wshape = [-1] + [1] * (rank - 1) if rank is not None else None
        w = tw.reshape(weights, wshape) if wshape is not None else weights
        total = tw.math.segment_sum(embeddings * tw.cast(w, embeddings.dtype), segment_ids)
        if combiner == "sum":
            return total
        if combiner == "mean":
            denom = tw.math.segment_sum(weights, segment_ids)
        else:
            denom = tw.sqrt(tw.math.segment_sum(weights * weights, segment_ids))
        return tw.math.divide_no_nan(total, tw.reshape(tw.cast(denom, total.dtype), wshape))


def safe_embedding_lookup_sparse(
    embedding_weights,
    sparse_ids,
    sparse_weights=None,
    combiner="mean",
    default_id=None,
    name=None,
    partition_strategy="div",
    max_norm=None,
):
    """TF1's tf.nn.safe_embedding_lookup_sparse: invalid ids (< 0) and weights (<= 0) pruned, empty rows get
    `default_id`'s embedding (or zeros), any rank of ids (the last dimension is combined)."""
    tw = _tw()
    from tensorweave._src.ops import nn_impl

    embedding_weights = nn_impl._shard_list(embedding_weights)
    sparse_ids = _convert(sparse_ids)
    if sparse_weights is not None:
        sparse_weights = _convert(sparse_weights)
    with _scope(name, "embedding_lookup"):
        original_shape = sparse_ids.dense_shape
        original_rank = tw.size(original_shape)
        batch = tw.reduce_prod(original_shape[:-1], keepdims=True)
        new_shape = tw.concat([batch, original_shape[-1:]], 0)
        sparse_ids = sparse_reshape(sparse_ids, new_shape)
        if sparse_weights is not None:
            sparse_weights = SparseTensor(sparse_ids.indices, sparse_weights.values, sparse_ids.dense_shape)
        keep = tw.greater_equal(sparse_ids.values, 0)
        if sparse_weights is not None:
            if combiner != "sum":  # TF prunes weights <= 0 only for mean and sqrtn
                keep = tw.logical_and(keep, tw.greater(sparse_weights.values, 0))
            sparse_weights = sparse_retain(sparse_weights, keep)
        sparse_ids = sparse_retain(sparse_ids, keep)
        sparse_ids, is_empty = sparse_fill_empty_rows(sparse_ids, default_id or 0)
        if sparse_weights is not None:
            sparse_weights, _ = sparse_fill_empty_rows(sparse_weights, 1.0)
        result = embedding_lookup_sparse(
            embedding_weights,
            sparse_ids,
            sparse_weights,
            combiner=combiner,
            partition_strategy=partition_strategy,
            max_norm=max_norm,
        )
        if default_id is None:
            rank = result.shape.ndims
            mask = tw.reshape(is_empty, [-1] + [1] * (rank - 1))
            result = tw.where(tw.broadcast_to(mask, tw.shape(result)), tw.zeros_like(result), result)
        final_shape = tw.concat([original_shape[:-1], tw.cast(tw.shape(result)[1:], dtypes.int64)], 0)
        final = tw.reshape(result, tw.cast(final_shape, dtypes.int32))
        rank_dim = original_shape.shape.as_list()[0] if original_shape.shape.ndims == 1 else None
        lead = tensor_shape.TensorShape(None if rank_dim is None else [None] * (rank_dim - 1))
        final.set_shape(lead.concatenate(result.shape[1:]))
        del original_rank
        return final


def sparse_mask(a, mask_indices, name=None):
    """TF1's tf.sparse_mask: the IndexedSlices `a` without the rows whose index is in `mask_indices`."""
    tw = _tw()
    with _scope(name, "sparse_mask"):
        out_indices, to_gather = tw.setdiff1d(a.indices, mask_indices)
        out_values = tw.gather(a.values, to_gather)
        return tw.IndexedSlices(out_values, out_indices, a.dense_shape)

"""TF1's in-place sparse variable updates (tf.scatter_*, tf.scatter_nd_*), count_up_to, batch_scatter_update and
batch_gather."""

from tensorweave._src.framework import ops
from tensorweave._src.ops import array_ops, gen_ops, math_ops
from tensorweave._src.ops.state_ops import _ref


def _scatter(op_type, ref, indices, updates, use_locking, name):
    ref = _ref(ref)
    indices = ops.convert_to_tensor(indices, name="indices")
    updates = ops.convert_to_tensor(updates, dtype=ref.dtype, name="updates")
    return gen_ops.wrapper(op_type)(ref, indices, updates, use_locking=bool(use_locking), name=name or op_type)


def _make(op_type, default_locking, doc):
    def fn(ref, indices, updates, use_locking=default_locking, name=None):
        return _scatter(op_type, ref, indices, updates, use_locking, name)

    fn.__doc__ = (
        f"{doc}\n\n`ref` is a Variable (or its ref tensor); returns the variable's ref after the update. An index out "
        "of range is an InvalidArgumentError naming it when the op runs."
    )
    return fn


scatter_update = _make("ScatterUpdate", True, "ref[indices, ...] = updates, in place (TF1's tf.scatter_update).")
scatter_add = _make("ScatterAdd", False, "ref[indices, ...] += updates, in place (duplicate indices all add).")
scatter_sub = _make("ScatterSub", False, "ref[indices, ...] -= updates, in place.")
scatter_mul = _make("ScatterMul", False, "ref[indices, ...] *= updates, in place.")
scatter_div = _make("ScatterDiv", False, "ref[indices, ...] /= updates, in place.")
scatter_min = _make("ScatterMin", False, "ref[indices, ...] = minimum(ref[indices, ...], updates), in place.")
scatter_max = _make("ScatterMax", False, "ref[indices, ...] = maximum(ref[indices, ...], updates), in place.")
scatter_nd_update = _make("ScatterNdUpdate", True, "ref[indices] = updates (indices' last dim indexes ref), in place.")
scatter_nd_add = _make("ScatterNdAdd", False, "ref[indices] += updates, in place.")
scatter_nd_sub = _make("ScatterNdSub", False, "ref[indices] -= updates, in place.")
for _fn, _name in [
    (scatter_update, "scatter_update"),
    (scatter_add, "scatter_add"),
    (scatter_sub, "scatter_sub"),
    (scatter_mul, "scatter_mul"),
    (scatter_div, "scatter_div"),
    (scatter_min, "scatter_min"),
    (scatter_max, "scatter_max"),
    (scatter_nd_update, "scatter_nd_update"),
    (scatter_nd_add, "scatter_nd_add"),
    (scatter_nd_sub, "scatter_nd_sub"),
]:
    _fn.__name__ = _fn.__qualname__ = _name


def count_up_to(ref, limit, name=None):
    """Increments the int32/int64 scalar variable `ref` and returns its value before; an OutOfRangeError once the
    value has reached `limit`."""
    return gen_ops.wrapper("CountUpTo")(_ref(ref), limit=int(limit), name=name or "CountUpTo")


def _batch_nd_indices(indices, what):
    """indices [b0, ..., bk, n] -> [b0, ..., bk, n, k + 2] coordinates (the batch position, then the index)."""
    ndims = indices.shape.ndims
    if ndims is None:
        raise ValueError(f"{what} does not allow indices with unknown shape.")
    nd_indices = array_ops.expand_dims(indices, axis=-1)
    shape = array_ops.shape(indices)
    parts = []
    for dimension in range(ndims - 1):
        size = shape[dimension]
        broadcast = [1] * (ndims + 1)
        broadcast[dimension] = size
        rng = array_ops.reshape(array_ops.range(0, size, 1), array_ops.stack(broadcast))
        if rng.dtype != nd_indices.dtype:
            rng = math_ops.cast(rng, nd_indices.dtype)
        parts.append(rng * array_ops.ones_like(nd_indices))
    parts.append(nd_indices)
    return array_ops.concat(parts, axis=-1)


def batch_scatter_update(ref, indices, updates, use_locking=True, name=None):
    """ref[b..., indices[b..., i], ...] = updates[b..., i, ...] for each batch position (TF1's composite on
    scatter_nd_update)."""
    with ops.name_scope(name):
        indices = ops.convert_to_tensor(indices, name="indices")
        final = _batch_nd_indices(indices, "batch_gather")
        return scatter_nd_update(ref, final, updates, use_locking=use_locking)


def batch_gather(params, indices, name=None):
    """params[b..., indices[b..., i], ...]: a gather per batch position (indices' leading dims are params')."""
    from tensorweave._src.ops import array_nd_ops

    with ops.name_scope(name, "BatchGather"):
        params = ops.convert_to_tensor(params, name="params")
        indices = ops.convert_to_tensor(indices, name="indices")
        return array_nd_ops.gather_nd(params, _batch_nd_indices(indices, "batch_gather"))

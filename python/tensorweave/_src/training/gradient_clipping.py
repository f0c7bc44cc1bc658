"""Gradient clipping by the global norm of a list of tensors."""

import tensorweave as _tw  # reductions come from the public namespace
from tensorweave._src.framework import ops
from tensorweave._src.framework.indexed_slices import IndexedSlices


def global_norm(t_list, name=None):
    """sqrt(sum of squares of every element of every tensor in t_list);
    None entries are ignored.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.global_norm([tw.constant([3.0]), tw.constant([4.0])])))
      5.0
    """
    if isinstance(t_list, ops.Tensor) or not isinstance(t_list, (list, tuple)):
        raise TypeError("t_list should be a sequence of tensors")
    # An IndexedSlices counts by its values (as TF1: repeated indices are not summed first).
    tensors = [ops.convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t) for t in t_list if t is not None]
    if not tensors:
        raise ValueError("global_norm needs at least one tensor")
    with ops.name_scope(name, "global_norm"):
        total = None
        for t in tensors:
            squares = _tw.reduce_sum(t * t)
            total = squares if total is None else total + squares
        return _tw.sqrt(total, name="global_norm")


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scales every tensor of t_list by clip_norm / max(global_norm, clip_norm),
    TensorFlow's formula: the list keeps its direction and its global norm is
    at most clip_norm. Returns (clipped list, the global norm used).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     clipped, norm = tw.clip_by_global_norm([tw.constant([3.0, 4.0])], 1.0)
      ...     print(sess.run(clipped[0]), sess.run(norm))
      [0.6 0.8] 5.0
    """
    if isinstance(t_list, ops.Tensor) or not isinstance(t_list, (list, tuple)):
        raise TypeError("t_list should be a sequence of tensors")
    if use_norm is None:
        use_norm = global_norm(t_list, name)  # as TF: before (and outside) the clip_by_global_norm scope
    with ops.name_scope(name, "clip_by_global_norm") as scope:
        use_norm = ops.convert_to_tensor(use_norm)
        clip_norm = ops.convert_to_tensor(clip_norm, dtype=use_norm.dtype, name="clip_norm")
        one = ops.convert_to_tensor(1.0, dtype=use_norm.dtype)
        # A non-finite norm makes every output NaN (use_norm - use_norm).
        scale = clip_norm * _tw.minimum(one / use_norm, one / clip_norm) + (use_norm - use_norm)
        clipped = []
        for i, t in enumerate(t_list):
            if t is None:
                clipped.append(None)
                continue
            if isinstance(t, IndexedSlices):
                values = _tw.identity(t.values * _tw.cast(scale, t.dtype), name=f"{scope}_{i}")
                clipped.append(IndexedSlices(values, t.indices, t.dense_shape))
                continue
            t = ops.convert_to_tensor(t)
            clipped.append(_tw.identity(t * _tw.cast(scale, t.dtype), name=f"{scope}_{i}"))
        return clipped, use_norm

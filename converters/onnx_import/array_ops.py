"""Importers of the ops that move data without computing: Reshape,
Flatten, Squeeze/Unsqueeze, Transpose, Concat, Pad, Gather and Slice.

A Transpose that only changes the layout the lite tensor already has costs
nothing; Concat of NHWC tensors stays NHWC; the others read ONNX's layout.
"""

import numpy as np

from converters.errors import NodeError as _NodeError
from converters.lowering import NCHW_TO_NHWC_AXIS, TO_NCHW, TO_NHWC
from converters.onnx_import import run_time
from converters.onnx_import.context import attrs, imports
from converters.onnx_import.shapes import run_time_value_error


def _run_time_axes(ctx, name):
    """The axes of tensor `name` whose size is known only at run time
    because it follows a NonZero or NonMaxSuppression (its .twl shape holds
    1 there)."""
    if name not in ctx.data_dependent:
        return set()
    shape = ctx.shape(name)
    return {axis for axis, d in enumerate(ctx.signature_of(name, shape) or []) if d == -1}


def _reshape_to(ctx, node, src, out):
    shape = ctx.shape(out)
    if not shape:
        # To a scalar: RESHAPE's shape would be an empty constant; SQUEEZE
        # drops every dim (all 1) instead.
        ctx.builder.add_op("SQUEEZE", [src], [ctx.output(out)], ("SqueezeOptions", {}))
        return
    target = list(shape)
    sig = ctx.signature_of(out, shape)
    if sig and sig.count(-1) == 1:  # the one dynamic dim (the batch, wherever it is) is inferred
        target[sig.index(-1)] = -1
    t = ctx.constant(f"{out}/shape", np.array(target, np.int32))
    ctx.builder.add_op("RESHAPE", [src, t], [ctx.output(out)])


@imports("Reshape", "Flatten")
def _reshape(ctx, node):
    if node.op_type == "Reshape" and attrs(node).get("allowzero", 0) and node.input[1] not in ctx.symbolic:
        shape = ctx.require_const(node, 1, "shape")
        if np.any(shape == 0):
            raise _NodeError("allowzero with a 0 dim makes an empty tensor")
    if node.op_type == "Reshape":
        _check_reshape_constant(ctx, node)
    out = node.output[0]
    if run_time.run_time_dims(ctx, out) > 1 or (
        node.op_type == "Reshape" and node.input[1] in ctx.symbolic and ctx.signature_of(out, ctx.shape(out)) is None
    ):
        # Several run-time dims (batch and sequence): the target computed when the model runs.
        if node.op_type == "Flatten":
            raise _NodeError(f"flattening '{node.input[0]}', whose dims known only at run time are on both sides")
        x = node.input[0]
        target = run_time.computed_target(ctx, node, x, node.input[1], attrs(node).get("allowzero", 0))
        ctx.builder.add_op("RESHAPE", [ctx.plain(x), target], [ctx.output(out)])
        return
    _reshape_to(ctx, node, ctx.plain(node.input[0]), out)


def _check_reshape_constant(ctx, node):
    """A constant target shape must hold the input's elements (the .twl
    takes the output's inferred shape, so a bad one would pass unnoticed)."""
    target = ctx.const(node.input[1]) if len(node.input) > 1 else None
    src = node.input[0]
    if target is None or src in ctx.data_dependent:
        return
    in_shape = ctx.shape(src)
    if -1 in (ctx.signature_of(src, in_shape) or []):
        return  # a symbolic batch: the count is known only at run time
    dims = [int(d) for d in np.asarray(target).reshape(-1)]
    if not attrs(node).get("allowzero", 0):
        dims = [in_shape[i] if d == 0 and i < len(in_shape) else d for i, d in enumerate(dims)]
    elements = int(np.prod(in_shape, dtype=object))
    known = 1
    for d in dims:
        if d != -1:
            known *= d
    bad = dims.count(-1) > 1 or any(d < -1 for d in dims)
    if -1 in dims:
        bad = bad or (known == 0 and elements != 0) or (known != 0 and elements % known != 0)
    else:
        bad = bad or known != elements
    if bad:
        raise _NodeError(f"shape {dims} does not fit the input '{src}' of shape {list(in_shape)} ({elements} elements)")


@imports("Squeeze", "Unsqueeze")
def _squeeze(ctx, node):
    x, out = node.input[0], node.output[0]
    if run_time.run_time_dims(ctx, out) > 1:
        # Several run-time dims: the output's dims gathered from the input's when the model runs.
        axes = attrs(node).get("axes")
        if axes is None and len(node.input) > 1 and node.input[1]:
            axes = ctx.require_const(node, 1, "axes").reshape(-1)
        rank_in, rank_out = ctx.rank(x), ctx.rank(out)
        if axes is None:
            raise _NodeError(f"squeezing '{x}' without axes, whose dims are known only at run time")
        if node.op_type == "Squeeze":
            dropped = {int(a) % rank_in for a in axes}
            spec = [k for k in range(rank_in) if k not in dropped]
        else:
            added = {int(a) % rank_out for a in axes}
            kept = iter(range(rank_in))
            spec = [-2 if k in added else next(kept) for k in range(rank_out)]
        target = run_time.dims_target(ctx, x, out, spec)
        ctx.builder.add_op("RESHAPE", [ctx.plain(x), target], [ctx.output(out)])
        return
    _reshape_to(ctx, node, ctx.plain(node.input[0]), node.output[0])


@imports("Transpose")
def _transpose(ctx, node):
    rank = ctx.rank(node.input[0])
    perm = list(attrs(node).get("perm", list(range(rank))[::-1]))
    if rank == 4 and node.input[0] not in ctx.consts:
        # A layout change the lite tensor already has (or is) costs nothing:
        # NCHW of a plain tensor is that tensor read as NHWC, and back.
        index, nhwc = ctx.value(node.input[0])
        if tuple(perm) == (TO_NCHW if not nhwc else TO_NHWC):
            ctx.tensors[node.output[0]] = (index, not nhwc)
            return
    if ctx.is_nhwc(node.input[0]):
        src = ctx.value(node.input[0])[0]
        perm = [TO_NCHW[p] for p in perm]  # lite -> ONNX layout, then perm
    else:
        src = ctx.plain(node.input[0])
    p = ctx.constant(f"{node.output[0]}/perm", np.array(perm, np.int32))
    ctx.builder.add_op("TRANSPOSE", [src, p], [ctx.output(node.output[0])])


@imports("Concat")
def _concat(ctx, node):
    inputs = [i for i in node.input if i]
    rank = ctx.rank(node.output[0])
    axis = attrs(node)["axis"] % rank
    if rank == 4 and any(ctx.is_nhwc(i) for i in inputs):
        srcs = [ctx.nhwc(i) for i in inputs]
        options = ("ConcatenationOptions", {"axis": NCHW_TO_NHWC_AXIS[axis]})
        ctx.builder.add_op("CONCATENATION", srcs, [ctx.output(node.output[0], nhwc=True)], options)
        return
    options = ("ConcatenationOptions", {"axis": axis})
    ctx.builder.add_op("CONCATENATION", [ctx.plain(i) for i in inputs], [ctx.output(node.output[0])], options)


@imports("Pad")
def _pad(ctx, node):
    a = attrs(node)
    mode = a.get("mode", b"constant")
    mode = mode.decode() if isinstance(mode, bytes) else mode
    if mode not in ("constant", "reflect", "edge", "wrap"):
        raise _NodeError(f"mode {mode!r} is not 'constant', 'reflect', 'edge' or 'wrap'")
    rank = ctx.rank(node.input[0])
    pads = np.array(a["pads"] if ctx.opset < 11 else ctx.require_const(node, 1, "pads"), np.int64)
    value = (
        a.get("value", 0.0)
        if ctx.opset < 11
        else (ctx.const(node.input[2]) if len(node.input) > 2 and node.input[2] else None)
    )
    axes = list(range(rank))
    if len(node.input) > 3 and node.input[3]:
        axes = [int(x) % rank for x in ctx.require_const(node, 3, "axes")]
    if np.any(np.abs(pads) > np.iinfo(np.int32).max):
        raise _NodeError(f"pads {pads.tolist()} do not fit .twl's int32 dimensions")
    paddings = np.zeros([rank, 2], np.int32)
    n = len(axes)
    for k, axis in enumerate(axes):
        paddings[axis] = (pads[k], pads[k + n])
    if np.any(paddings < 0):
        raise _NodeError("negative pads (cropping) are not supported")
    if mode != "constant":
        _pad_by_gathers(ctx, node, mode, paddings)
        return
    inputs = [ctx.plain(node.input[0]), ctx.constant(f"{node.output[0]}/paddings", paddings)]
    if value is not None:
        inputs.append(ctx.constant(f"{node.output[0]}/value", np.array(value, ctx.dtype(node.input[0]))))
    ctx.builder.add_op("PAD", inputs, [ctx.output(node.output[0])])


def _pad_by_gathers(ctx, node, mode, paddings):
    """Pad in mode reflect, edge or wrap as one GATHER per padded axis, of
    constant indices (numpy's pad of arange(dim) in that mode is ONNX's
    definition). An NHWC input is gathered in NHWC."""
    src, out = node.input[0], node.output[0]
    shape = list(ctx.shape(src))
    nhwc = len(shape) == 4 and ctx.is_nhwc(src)
    index = ctx.value(src)[0] if nhwc else ctx.plain(src)
    sig = ctx.signature_of(src, shape) or [0] * len(shape)
    axes = [axis for axis in range(len(shape)) if paddings[axis].any()]
    for axis in axes:
        if sig[axis] == -1:
            raise _NodeError(f"padding dynamic axis {axis} in mode {mode!r}")
        if shape[axis] == 0:
            raise _NodeError(f"padding axis {axis} of size 0 in mode {mode!r}")
    if not axes:
        axes = [0]  # no padding: a copy (a GATHER of every index)
    for k, axis in enumerate(axes):
        indices = np.pad(np.arange(shape[axis], dtype=np.int32), tuple(paddings[axis]), mode=mode)
        shape[axis] = len(indices)
        lite_axis = NCHW_TO_NHWC_AXIS[axis] if nhwc else axis
        idx = ctx.constant(f"{out}/indices{axis}", indices)
        if k == len(axes) - 1:
            dst = ctx.output(out, nhwc=nhwc)
        else:
            lite_shape = [shape[p] for p in TO_NHWC] if nhwc else list(shape)
            dst = ctx.intermediate(f"{out}/axis{axis}", lite_shape, ctx.dtype(src), like=src)
        ctx.builder.add_op("GATHER", [index, idx], [dst], ("GatherOptions", {"axis": lite_axis}))
        index = dst


@imports("Gather")
def _gather(ctx, node):
    rank = ctx.rank(node.input[0])
    axis = attrs(node).get("axis", 0) % rank
    indices = ctx.const(node.input[1])
    if indices is not None:
        if np.any(indices < 0) and axis in _run_time_axes(ctx, node.input[0]):
            raise _NodeError(
                f"negative indices on axis {axis} of '{node.input[0]}', whose size is known only at run time"
            )
        sig = ctx.signature_of(node.input[0], ctx.shape(node.input[0])) or []
        if np.any(indices < 0) and axis < len(sig) and sig[axis] == -1:
            _gather_from_the_end(ctx, node, axis, indices)
            return
        dim = ctx.shape(node.input[0])[axis]
        indices = np.where(indices < 0, indices + dim, indices)
        idx = ctx.constant(f"{node.output[0]}/indices", indices.astype(np.int32))
    else:
        idx = ctx.plain(node.input[1])
    options = ("GatherOptions", {"axis": axis})
    ctx.builder.add_op("GATHER", [ctx.plain(node.input[0]), idx], [ctx.output(node.output[0])], options)


def _gather_from_the_end(ctx, node, axis, indices):
    """x[..., -k] on an axis whose size is known only at run time: one
    STRIDED_SLICE shrinking the axis, its negative begin counted from the end
    of the run-time dim by the kernel."""
    x, out = node.input[0], node.output[0]
    if indices.ndim != 0:
        raise _NodeError(
            f"negative indices {indices.reshape(-1).tolist()} on axis {axis} of '{x}', whose size is known only "
            f"when the model runs (a single index, x[..., -1], is supported)"
        )
    rank = ctx.rank(x)
    begin, end = [0] * rank, [0] * rank
    begin[axis], end[axis] = int(indices), int(indices) + 1
    masks = ((1 << rank) - 1) & ~(1 << axis)
    bounds = [
        ctx.constant(f"{out}/{w}", np.array(v, np.int32))
        for w, v in (("begin", begin), ("end", end), ("strides", [1] * rank))
    ]
    options = ("StridedSliceOptions", {"begin_mask": masks, "end_mask": masks, "shrink_axis_mask": 1 << axis})
    ctx.builder.add_op("STRIDED_SLICE", [ctx.plain(x)] + bounds, [ctx.output(out)], options)


def _run_time_bounds(axis, start, stop, step, begin, end, stride):
    """Slice bounds on a run-time axis into STRIDED_SLICE's int32 ones (the
    extremes are masks)."""
    clip = lambda v: int(np.clip(v, -(2**31), 2**31 - 1))
    begin[axis], end[axis], stride[axis] = clip(start), clip(stop), step


def _slice_by_gather(ctx, node):
    """Slice of one axis from a computed start to a computed end
    (HF's position_ids[:, :seq_length], or pos_emb[:s]): GATHER of the
    computed range of indices, the end clamped to the axis's size (constant,
    or its run-time SHAPE). Computed bounds must be dims or sums of them
    (not negative at the static shapes and at the probe dims)."""
    x, out = node.input[0], node.output[0]
    starts = ctx.symbolic[node.input[1]][0] if node.input[1] in ctx.symbolic else ctx.const(node.input[1])
    axes = ctx.const(node.input[3]) if len(node.input) > 3 and node.input[3] else np.arange(np.size(starts))
    steps = ctx.const(node.input[4]) if len(node.input) > 4 and node.input[4] else np.ones(np.size(starts), np.int64)
    if axes is None or steps is None or np.size(starts) != 1:
        computed = next(i for i in node.input[1:3] if i in ctx.symbolic)
        raise _NodeError(f"a slice of several axes with computed bounds: {run_time_value_error(ctx, computed)}")
    for i in (1, 2):
        name = node.input[i]
        values = [ctx.symbolic[name][0], ctx.symbolic[name][1]] if name in ctx.symbolic else [ctx.consts[name]]
        if any(v is None or np.any(np.asarray(v) < 0) for v in values) or int(steps.reshape(-1)[0]) <= 0:
            raise _NodeError(
                f"{('starts', 'ends')[i - 1]} (input {i}) of a slice with computed bounds is negative or its step "
                f"is not positive: {run_time_value_error(ctx, name) if name in ctx.symbolic else name}"
            )
    rank = ctx.rank(x)
    axis = int(np.asarray(axes).reshape(-1)[0]) % rank
    start, end = (run_time.scalar_int64(ctx, node, i, out) for i in (1, 2))
    sig = ctx.signature_of(x, ctx.shape(x)) or [0] * rank
    if sig[axis] == -1:
        dim = run_time.shape_of(ctx, x, [axis], name=f"{out}/dim")
    else:
        dim = ctx.constant(f"{out}/dim", np.array([ctx.shape(x)[axis]], np.int64))
    end = run_time.binary(ctx, f"{out}/clamped_end", "MINIMUM", end, dim)
    start = run_time.binary(ctx, f"{out}/clamped_start", "MINIMUM", start, dim)
    indices = ctx.intermediate(f"{out}/indices", [1], np.int64)
    run_time.range_of(ctx, f"{out}/range", start, end, int(steps.reshape(-1)[0]), indices)
    options = ("GatherOptions", {"axis": axis})
    ctx.builder.add_op("GATHER", [ctx.plain(x), indices], [ctx.output(out)], options)


@imports("Slice")
def _slice(ctx, node):
    if ctx.opset >= 10 and any(i in ctx.symbolic for i in node.input[1:3]):
        _slice_by_gather(ctx, node)
        return
    shape = ctx.shape(node.input[0])
    rank = len(shape)
    if ctx.opset < 10:
        a = attrs(node)
        starts, ends = a["starts"], a["ends"]
        axes, steps = a.get("axes", list(range(len(starts)))), [1] * len(starts)
    else:
        starts = ctx.require_const(node, 1, "starts")
        ends = ctx.require_const(node, 2, "ends")
        axes = ctx.const(node.input[3]) if len(node.input) > 3 and node.input[3] else range(len(starts))
        steps = ctx.const(node.input[4]) if len(node.input) > 4 and node.input[4] else [1] * len(starts)
        if axes is None or steps is None:
            raise _NodeError("axes and steps must be constants")
    begin, end, stride = [0] * rank, list(shape), [1] * rank
    # Dims not sliced take everything (masks, so a dynamic batch stays whole).
    begin_mask = end_mask = (1 << rank) - 1
    run_time = _run_time_axes(ctx, node.input[0])
    sig = ctx.signature_of(node.input[0], shape) or []
    signature_axes = {axis for axis, d in enumerate(sig) if d == -1} - run_time
    for start, stop, axis, step in zip(starts, ends, axes, steps):
        if int(axis) % rank in run_time and (int(start) != 0 or int(stop) < 2**31 - 1 or int(step) != 1):
            raise _NodeError(
                f"slicing axis {int(axis) % rank} of '{node.input[0]}', whose size is known only at run time "
                f"(it follows NonZero or NonMaxSuppression), other than whole ([{int(start)}:{int(stop)}:{int(step)}])"
            )
        axis, step, dim = int(axis) % rank, int(step), shape[int(axis) % rank]
        start, stop = int(start), int(stop)
        if axis in signature_axes:
            # A run-time dim: the bounds as given (negative ones count from its end when the model runs, as ONNX's).
            _run_time_bounds(axis, start, stop, step, begin, end, stride)
            if (step > 0 and start > -(2**31)) or (step < 0 and start < 2**31 - 1):
                begin_mask &= ~(1 << axis)
            if (step > 0 and stop < 2**31 - 1) or (step < 0 and stop > -(2**31)):
                end_mask &= ~(1 << axis)
            continue
        start = start + dim if start < 0 else start
        stop = stop + dim if stop < 0 else stop
        # A bound at or past the end of the dim becomes a mask bit, so that
        # it still means "to the end" when a dynamic dim (the batch) grows.
        if step > 0:
            whole_start, whole_stop = start <= 0, stop >= dim
            start, stop = min(max(start, 0), dim), min(max(stop, 0), dim)
        else:
            whole_start, whole_stop = start >= dim - 1, stop < 0
            start, stop = min(max(start, 0), dim - 1), min(max(stop, -1), dim - 1)
        if not whole_start:
            begin_mask &= ~(1 << axis)
        if not whole_stop:
            end_mask &= ~(1 << axis)
        begin[axis], end[axis], stride[axis] = start, stop, step
    bounds = [
        ctx.constant(f"{node.output[0]}/{w}", np.array(v, np.int32))
        for w, v in (("begin", begin), ("end", end), ("strides", stride))
    ]
    options = ("StridedSliceOptions", {"begin_mask": begin_mask, "end_mask": end_mask})
    ctx.builder.add_op("STRIDED_SLICE", [ctx.plain(node.input[0])] + bounds, [ctx.output(node.output[0])], options)

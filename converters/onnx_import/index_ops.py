"""Importers of the ops that index or rearrange data: Split, Tile, Expand,
Trilu, CumSum/CumProd, GatherElements, ScatterElements (and the old
Scatter), GatherND, ScatterND, OneHot, DepthToSpace/SpaceToDepth, TopK,
ReverseSequence, Hardmax, MaxUnpool and TensorScatter.

Parameters that decide an output's shape (split sizes, repeats, the target
shape, k, depth, the cumulative axis) must be constants; indices, Trilu's k
and sequence lengths may be computed. Split and DepthToSpace/SpaceToDepth
keep an NHWC input NHWC; the others read ONNX's layout.
"""

import numpy as np

from converters.errors import NodeError as _NodeError
from converters.lowering import NCHW_TO_NHWC_AXIS
from converters.onnx_import import run_time
from converters.onnx_import.context import attrs, imports
from converters.onnx_import.shapes import PROBE_DIM

# The most outputs a lite op has (kMaxNodeTensors in lite/runtime/op_kernel.h).
MAX_NODE_OUTPUTS = 16
# ONNX's reduction attribute -> the schema's ScatterReduction.
_SCATTER_REDUCTIONS = {"none": "NONE", "add": "ADD", "mul": "MUL", "max": "MAXIMUM", "min": "MINIMUM"}


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def _ints_constant(ctx, node, i, what):
    """Input `i` (a constant) as a lite int64 constant tensor."""
    value = np.asarray(ctx.require_const(node, i, what), np.int64)
    return ctx.constant(f"{node.output[0]}/{what}", value)


def _index_input(ctx, name):
    """An indices tensor as the lite kernels take it (int32 or int64)."""
    if ctx.dtype(name) not in (np.int32, np.int64):
        raise _NodeError(f"indices '{name}' are {np.dtype(ctx.dtype(name))}, not int32 or int64")
    return ctx.plain(name)


@imports("Split")
def _split(ctx, node):
    a = attrs(node)
    src = node.input[0]
    shape = ctx.shape(src)
    axis = a.get("axis", 0) % len(shape)
    dim = shape[axis]
    if len(node.input) > 1 and node.input[1]:
        sizes = [int(s) for s in ctx.require_const(node, 1, "split")]
    elif "split" in a:
        sizes = list(a["split"])
    else:
        # Equal parts; with num_outputs (opset 18) the last may be smaller.
        n = len(node.output)
        chunk = -(-dim // n)
        sizes = [chunk] * (n - 1) + [dim - chunk * (n - 1)]
        if sizes[-1] < 0:
            raise _NodeError(f"dim {dim} cannot be split into {n} parts")
    if len(node.output) > MAX_NODE_OUTPUTS:
        raise _NodeError(f"{len(node.output)} outputs: a lite op has at most {MAX_NODE_OUTPUTS}")
    if len(sizes) != len(node.output) or sum(sizes) != dim:
        raise _NodeError(f"split sizes {sizes} do not split dim {dim} into {len(node.output)} outputs")
    nhwc = len(shape) == 4 and ctx.is_nhwc(src)
    sizes_tensor = ctx.constant(f"{node.output[0]}/split", np.array(sizes, np.int64))
    outputs = [ctx.output(o, nhwc=nhwc) for o in node.output]
    options = ("SplitOptions", {"axis": NCHW_TO_NHWC_AXIS[axis] if nhwc else axis})
    ctx.builder.add_op("SPLIT", [ctx.value(src)[0] if nhwc else ctx.plain(src), sizes_tensor], outputs, options)


@imports("Tile")
def _tile(ctx, node):
    if node.input[1] in ctx.symbolic:
        _tile_run_time(ctx, node)
        return
    repeats = _ints_constant(ctx, node, 1, "repeats")
    ctx.builder.add_op("TILE", [ctx.plain(node.input[0]), repeats], [ctx.output(node.output[0])])


def _tile_run_time(ctx, node):
    """Tile by repeats computed from run-time dims (DETR's
    queries.repeat(batch, 1, 1) with a dynamic batch): TILE by the constant
    repeats, then BROADCAST_TO the repeats times the input's shape, computed
    when the model runs. A run-time repeat must be of a static input dim of
    1 (repeating it is broadcasting it)."""
    x, out = node.input[0], node.output[0]
    static, probe, _ = ctx.symbolic[node.input[1]]
    static = [int(v) for v in np.asarray(static).reshape(-1)]
    in_shape = ctx.shape(x)
    in_sig = in_shape if x in ctx.consts else ctx.signature_of(x, in_shape) or in_shape
    if probe is None or np.asarray(probe).size != len(static) or len(static) != len(in_shape):
        ctx.require_const(node, 1, "repeats")  # raises, naming the run-time value
    probe = [int(v) for v in np.asarray(probe).reshape(-1)]
    run_time_axes = [k for k in range(len(static)) if probe[k] != static[k]]
    if any(in_shape[k] != 1 or in_sig[k] == -1 for k in run_time_axes):
        ctx.require_const(node, 1, "repeats")
    multiples = [1 if k in run_time_axes else r for k, r in enumerate(static)]
    src = ctx.plain(x)
    if any(m != 1 for m in multiples):
        tiled = ctx.intermediate(f"{out}/tiled", [d * m for d, m in zip(in_shape, multiples)], ctx.dtype(out))
        ctx.builder.add_op("TILE", [src, ctx.constant(f"{out}/multiples", np.array(multiples, np.int64))], [tiled])
        src = tiled
    repeats = run_time.materialize(ctx, node.input[1])[0]
    shape = ctx.intermediate(f"{out}/shape", [len(static)], np.int64)
    in_dims = ctx.constant(f"{out}/input_shape", np.array(in_shape, np.int64))
    ctx.builder.add_op("MUL", [repeats, in_dims], [shape], ("ArithmeticOptions", {}))
    ctx.builder.add_op("BROADCAST_TO", [src, shape], [ctx.output(out)])


@imports("Expand")
def _expand(ctx, node):
    if node.input[1] in ctx.symbolic:
        try:
            _expand_to_run_time_shape(ctx, node)
        except _NodeError:
            # Not one run-time dim of a tensor at hand: BROADCAST_TO the shape computed when the model runs.
            shape = run_time.materialize(ctx, node.input[1])[0]
            ctx.builder.add_op("BROADCAST_TO", [ctx.plain(node.input[0]), shape], [ctx.output(node.output[0])])
        return
    shape = _ints_constant(ctx, node, 1, "shape")
    ctx.builder.add_op("BROADCAST_TO", [ctx.plain(node.input[0]), shape], [ctx.output(node.output[0])])


def _expand_to_run_time_shape(ctx, node):
    """Expand to a shape computed from run-time dims (PyTorch's
    cls_token.expand(x.shape[0], -1, -1) with a dynamic batch). Each
    run-time entry of the shape is 1 in BROADCAST_TO's constant shape: an
    input dim that is itself dynamic broadcasts to it (ONNX's broadcast of
    both); a static input dim of 1 is broadcast by adding zeros of shape
    [1, ..., B, ..., 1] cut from the tensor whose dim B the entry is."""
    x, out = node.input[0], node.output[0]
    static, probe, sources = ctx.symbolic[node.input[1]]
    static = [int(v) for v in np.asarray(static).reshape(-1)]
    probe = None if probe is None else [int(v) for v in np.asarray(probe).reshape(-1)]
    out_shape, in_shape = ctx.shape(out), ctx.shape(x)
    rank, in_sig = len(out_shape), ctx.signature_of(x, in_shape) or [0] * len(in_shape)
    target, zeros_axes = list(static), []
    if probe is not None and len(probe) != len(static):
        probe = None
    for k in range(len(static)):
        if probe is not None and probe[k] == static[k]:
            continue
        axis, in_axis = rank - len(static) + k, len(in_shape) - len(static) + k
        target[k] = 1
        own = in_axis >= 0 and in_sig[in_axis] == -1 and in_shape[in_axis] == static[k]
        if own and probe is not None and probe[k] == PROBE_DIM * static[k]:
            continue  # the input's own run-time dim
        if in_axis >= 0 and in_shape[in_axis] != 1 or static[k] != 1 or probe is None or probe[k] != PROBE_DIM:
            ctx.require_const(node, 1, "shape")  # raises, naming the run-time value
        zeros_axes.append((axis, k))
    src = ctx.plain(x)
    if not zeros_axes:
        shape = ctx.constant(f"{out}/shape", np.array(target, np.int64))
        ctx.builder.add_op("BROADCAST_TO", [src, shape], [ctx.output(out)])
        return
    dtype = ctx.dtype(out)
    shape = ctx.constant(f"{out}/shape", np.array(target, np.int64))
    t = ctx.intermediate(
        f"{out}/broadcast",
        [max(a, b) for a, b in zip([1] * (rank - len(in_shape)) + in_shape, [1] * (rank - len(target)) + target)],
        dtype,
    )
    ctx.builder.add_op("BROADCAST_TO", [src, shape], [t])
    per_entry = _entry_sources(ctx, node.input[1], len(static))
    for n, (axis, k) in enumerate(zeros_axes):
        zeros = _run_time_zeros(ctx, f"{out}/zeros{n}", per_entry[k] or sources, rank, axis, dtype)
        last = n == len(zeros_axes) - 1
        dst = ctx.output(out) if last else ctx.intermediate(f"{out}/expanded{n}", out_shape, dtype)
        ctx.builder.add_op(
            "LOGICAL_OR" if dtype == np.bool_ else "ADD",
            [t, zeros],
            [dst],
            None if dtype == np.bool_ else ("ArithmeticOptions", {}),
        )
        t = dst


def _entry_sources(ctx, name, count):
    """Per entry of run-time shape `name` (`count` entries), the tensors whose shapes it is computed from, where
    `name` is a Concat of pieces (torch.meshgrid's Expand to Concat(Shape(y), Shape(x)): at the probe dims y's and
    x's sizes may be alike, so the pieces tell which is which); else no entry's."""
    node = ctx.producers.get(name)
    entries = []
    for piece in node.input if node is not None and node.op_type == "Concat" else []:
        if piece in ctx.consts:
            entries += [set()] * np.asarray(ctx.consts[piece]).size
        elif piece in ctx.symbolic:
            entries += [ctx.symbolic[piece][2]] * np.asarray(ctx.symbolic[piece][0]).size
        else:
            break
    return entries if len(entries) == count else [set()] * count


def _run_time_zeros(ctx, name, sources, rank, axis, dtype):
    """Zeros (False for bool) of rank `rank`, 1 on every axis but `axis`,
    where they have the run-time size of the one run-time dim of a tensor
    in `sources`: STRIDED_SLICE of one element along its other axes, LESS
    than itself (False, NaN included; NOT_EQUAL for bool), CAST, RESHAPE."""
    for source in sorted(sources):
        sig = ctx.signature_of(source, ctx.shape(source)) or []
        if sig.count(-1) == 1 and source in ctx.tensors:
            break
    else:
        raise _NodeError(f"'{name}': no computed tensor of one run-time dim among {sorted(sources)}")
    src_rank, dyn = len(sig), sig.index(-1)
    src = ctx.plain(source)
    bounds = [
        ctx.constant(f"{name}/{w}", np.array(v, np.int32))
        for w, v in (("begin", [0] * src_rank), ("end", [1] * src_rank), ("strides", [1] * src_rank))
    ]
    options = ("StridedSliceOptions", {"begin_mask": (1 << src_rank) - 1, "end_mask": 1 << dyn})
    cut = ctx.intermediate(f"{name}/cut", [1] * src_rank, ctx.dtype(source))
    ctx.builder.add_op("STRIDED_SLICE", [src] + bounds, [cut], options)
    false = ctx.intermediate(f"{name}/false", [1] * src_rank, np.bool_)
    # LESS than itself is False, NaN included; LESS has no bool, NOT_EQUAL has.
    ctx.builder.add_op("NOT_EQUAL" if ctx.dtype(source) == np.bool_ else "LESS", [cut, cut], [false])
    if dtype != np.bool_:
        zeros = ctx.intermediate(f"{name}/cast", [1] * src_rank, dtype)
        ctx.builder.add_op("CAST", [false], [zeros])
        false = zeros
    target = [1] * rank
    target[axis] = -1
    out = ctx.intermediate(name, [1] * rank, dtype)
    ctx.builder.add_op("RESHAPE", [false, ctx.constant(f"{name}/shape", np.array(target, np.int32))], [out])
    return out


@imports("Trilu")
def _trilu(ctx, node):
    inputs = [ctx.plain(node.input[0])]
    if len(node.input) > 1 and node.input[1]:
        inputs.append(ctx.plain(node.input[1]))
    options = ("TriluOptions", {"upper": bool(attrs(node).get("upper", 1))})
    ctx.builder.add_op("TRILU", inputs, [ctx.output(node.output[0])], options)


@imports("CumSum", "CumProd")
def _cumulative(ctx, node):
    a = attrs(node)
    axis = _ints_constant(ctx, node, 1, "axis")
    options = ("CumulativeOptions", {"exclusive": bool(a.get("exclusive", 0)), "reverse": bool(a.get("reverse", 0))})
    op = "CUMSUM" if node.op_type == "CumSum" else "CUMPROD"
    ctx.builder.add_op(op, [ctx.plain(node.input[0]), axis], [ctx.output(node.output[0])], options)


@imports("GatherElements")
def _gather_elements(ctx, node):
    inputs = [ctx.plain(node.input[0]), _index_input(ctx, node.input[1])]
    options = ("GatherOptions", {"axis": attrs(node).get("axis", 0)})
    ctx.builder.add_op("GATHER_ELEMENTS", inputs, [ctx.output(node.output[0])], options)


@imports("GatherND")
def _gather_nd(ctx, node):
    inputs = [ctx.plain(node.input[0]), _index_input(ctx, node.input[1])]
    options = ("GatherOptions", {"batch_dims": attrs(node).get("batch_dims", 0)})
    ctx.builder.add_op("GATHER_ND", inputs, [ctx.output(node.output[0])], options)


@imports("ScatterElements", "Scatter", "ScatterND")
def _scatter(ctx, node):
    a = attrs(node)
    reduction = _text(a.get("reduction", "none"))
    if reduction not in _SCATTER_REDUCTIONS:
        raise _NodeError(f"reduction {reduction!r} is not supported")
    data, indices, updates = node.input[:3]
    inputs = [ctx.plain(data), _index_input(ctx, indices), ctx.plain(updates)]
    fields = {"scatter_reduction": _SCATTER_REDUCTIONS[reduction]}
    op = "SCATTER_ND"
    if node.op_type != "ScatterND":
        op, fields["axis"] = "SCATTER_ELEMENTS", a.get("axis", 0)
    ctx.builder.add_op(op, inputs, [ctx.output(node.output[0])], ("ScatterOptions", fields))


@imports("OneHot")
def _one_hot(ctx, node):
    indices, _, values = node.input[:3]
    depth = ctx.require_const(node, 1, "depth")
    depth_tensor = ctx.constant(f"{node.output[0]}/depth", np.array(int(np.asarray(depth).reshape(-1)[0]), np.int64))
    if ctx.dtype(indices) in (np.int32, np.int64):
        index = ctx.plain(indices)
    else:  # ONNX casts other indices to integers (truncating)
        index = ctx.intermediate(f"{node.output[0]}/indices", ctx.shape(indices), np.int64)
        ctx.builder.add_op("CAST", [ctx.plain(indices)], [index])
    options = ("OneHotOptions", {"axis": attrs(node).get("axis", -1)})
    ctx.builder.add_op("ONE_HOT", [index, depth_tensor, ctx.plain(values)], [ctx.output(node.output[0])], options)


@imports("DepthToSpace", "SpaceToDepth")
def _depth_space(ctx, node):
    a = attrs(node)
    src = node.input[0]
    nhwc = ctx.is_nhwc(src)  # the layout the input has: no transpose back
    mode = _text(a.get("mode", "DCR"))
    if mode not in ("DCR", "CRD"):
        raise _NodeError(f"mode {mode!r} is not supported")
    options = ("DepthSpaceOptions", {"block_size": a["blocksize"], "crd": mode == "CRD", "nhwc": nhwc})
    op = "DEPTH_TO_SPACE" if node.op_type == "DepthToSpace" else "SPACE_TO_DEPTH"
    ctx.builder.add_op(op, [ctx.value(src)[0]], [ctx.output(node.output[0], nhwc=nhwc)], options)


# TOP_K's k that takes the whole axis (lite/runtime/kernels/top_k.cc).
TOP_K_WHOLE_AXIS = -1


def _is_run_time_size_of(ctx, value, x, axis):
    """Whether run-time value `value` is the size of `x`'s run-time dim `axis` (the same at the static shapes
    and at the probe dims)."""
    static, probe, _ = ctx.symbolic[value]
    shape = ctx.shape(x)
    axis %= len(shape)
    at_probe = ctx.probe_specs.get(x, (0, []))[1]
    if probe is None or np.size(static) != 1 or len(at_probe) != len(shape) or at_probe[axis] is None:
        return False
    sig = ctx.signature_of(x, shape) or shape
    return sig[axis] == -1 and int(np.ravel(static)[0]) == shape[axis] and int(np.ravel(probe)[0]) == at_probe[axis]


@imports("TopK")
def _top_k(ctx, node):
    a = attrs(node)
    axis = a.get("axis", -1)
    version = 1
    if ctx.opset < 10:
        k = ctx.constant(f"{node.output[0]}/k", np.array(a["k"], np.int64))
    elif node.input[1] in ctx.symbolic and _is_run_time_size_of(ctx, node.input[1], node.input[0], axis):
        # A sort of the whole axis, whose size is known at run time (PyTorch's pack_padded_sequence with
        # enforce_sorted=False sorts the lengths with TopK(lengths, lengths.shape[0])): TOP_K's k of -1.
        k = ctx.constant(f"{node.output[0]}/k", np.array(TOP_K_WHOLE_AXIS, np.int64))
        version = 2  # k -1, which version 1 runtimes refuse
    else:
        value = np.asarray(ctx.require_const(node, 1, "k"), np.int64)
        if value.size != 1 or value.reshape(-1)[0] < 0:
            raise _NodeError(f"k (input 1) must be one non-negative value, got {value.tolist()}")
        k = ctx.constant(f"{node.output[0]}/k", value)
    options = ("TopKOptions", {"axis": axis, "largest": bool(a.get("largest", 1))})
    outputs = [ctx.output(node.output[0]), ctx.output(node.output[1])]
    ctx.builder.add_op("TOP_K", [ctx.plain(node.input[0]), k], outputs, options, version)


@imports("ReverseSequence")
def _reverse_sequence(ctx, node):
    a = attrs(node)
    inputs = [ctx.plain(node.input[0]), _index_input(ctx, node.input[1])]
    options = ("ReverseSequenceOptions", {"batch_axis": a.get("batch_axis", 1), "time_axis": a.get("time_axis", 0)})
    ctx.builder.add_op("REVERSE_SEQUENCE", inputs, [ctx.output(node.output[0])], options)


@imports("Hardmax")
def _hardmax(ctx, node):
    """ONE_HOT(ARG_MAX(x, axis), axis): 1 at the first maximum on the axis."""
    if ctx.opset < 13:
        raise _NodeError("Hardmax before opset 13 works on the input flattened to 2-D; not supported")
    src = node.input[0]
    shape = ctx.shape(src)
    axis = attrs(node).get("axis", -1) % len(shape)
    if (ctx.signature_of(src, shape) or shape)[axis] == -1:
        raise _NodeError(f"axis {axis} has a size known only at run time (ONE_HOT's depth is a constant)")
    dtype = ctx.dtype(src)
    out = node.output[0]
    index = ctx.intermediate(f"{out}/argmax", shape[:axis] + shape[axis + 1 :], np.int64)
    axis_tensor = ctx.constant(f"{out}/axis", np.array(axis, np.int32))
    ctx.builder.add_op("ARG_MAX", [ctx.plain(src), axis_tensor], [index], ("ArgMaxOptions", {"output_type": "INT64"}))
    depth = ctx.constant(f"{out}/depth", np.array(shape[axis], np.int64))
    values = ctx.constant(f"{out}/values", np.array([0, 1], dtype))
    ctx.builder.add_op("ONE_HOT", [index, depth, values], [ctx.output(out)], ("OneHotOptions", {"axis": axis}))


@imports("MaxUnpool")
def _max_unpool(ctx, node):
    """A SCATTER_ND of X's values to their indices (flattened over the whole
    output, as MaxPool of an input of that shape gives them) in a zero
    tensor of the output's size, then a RESHAPE. With output_shape, the
    indices are read in its layout, as the spec means and onnxruntime does
    (onnx's reference reads them in the unpooled shape and pads after)."""
    x, indices, out = node.input[0], node.input[1], node.output[0]
    x_shape, out_shape = list(ctx.shape(x)), list(ctx.shape(out))
    if -1 in (ctx.signature_of(x, x_shape) or []):
        raise _NodeError("a dynamic input shape (the zero tensor has the output's size)")
    total = int(np.prod(out_shape, dtype=np.int64))
    n = int(np.prod(x_shape, dtype=np.int64))
    flat = ctx.intermediate(f"{out}/values", [n], ctx.dtype(x))
    ctx.builder.add_op("RESHAPE", [ctx.plain(x), ctx.constant(f"{out}/n", np.array([n], np.int32))], [flat])
    idx = ctx.intermediate(f"{out}/indices", [n, 1], ctx.dtype(indices))
    shape = ctx.constant(f"{out}/index_shape", np.array([n, 1], np.int32))
    ctx.builder.add_op("RESHAPE", [_index_input(ctx, indices), shape], [idx])
    zeros = ctx.constant(f"{out}/zeros", np.zeros([total], ctx.dtype(x)))
    scattered = ctx.intermediate(f"{out}/flat", [total], ctx.dtype(x))
    options = ("ScatterOptions", {"scatter_reduction": "NONE"})
    ctx.builder.add_op("SCATTER_ND", [zeros, idx, flat], [scattered], options)
    dims = ctx.constant(f"{out}/shape", np.array(out_shape, np.int32))
    ctx.builder.add_op("RESHAPE", [scattered, dims], [ctx.output(out)])


@imports("TensorScatter")
def _tensor_scatter(ctx, node):
    """A SCATTER_ND of the update into the cache at indices (prefix...,
    write_index[b] + s): a constant grid of (prefix..., s), plus the write
    indices on its last component, FLOOR_MOD the cache length (circular)."""
    a = attrs(node)
    past, update, out = node.input[0], node.input[1], node.output[0]
    writes = node.input[2] if len(node.input) > 2 and node.input[2] else None
    mode = _text(a.get("mode", "linear"))
    if mode not in ("linear", "circular"):
        raise _NodeError(f"mode {mode!r} is not 'linear' or 'circular'")
    shape, ushape = list(ctx.shape(past)), list(ctx.shape(update))
    rank = len(shape)
    axis = a.get("axis", -2)
    if not -rank <= axis < rank or axis % rank == 0:
        raise _NodeError(f"axis {axis} of a rank-{rank} cache: not the batch, and in range")
    axis %= rank
    if len(ushape) != rank or any(u != s for i, (u, s) in enumerate(zip(ushape, shape)) if i != axis):
        raise _NodeError(f"update {ushape} differs from the cache {shape} off axis {axis}")
    if ctx.dtype(past) != ctx.dtype(update):
        raise _NodeError(f"cache and update types differ ({np.dtype(ctx.dtype(past))}, {np.dtype(ctx.dtype(update))})")
    if -1 in (ctx.signature_of(update, ushape) or []):
        raise _NodeError("dynamic dims: the index grid is a constant of the update's shape")
    grid = np.stack(np.meshgrid(*[np.arange(d) for d in ushape[: axis + 1]], indexing="ij"), axis=-1)
    index = ctx.constant(f"{out}/grid", grid.astype(np.int64))
    idx_shape = ushape[: axis + 1] + [axis + 1]
    if writes is not None:
        if list(ctx.shape(writes)) != [shape[0]]:
            raise _NodeError(f"write_indices {list(ctx.shape(writes))} are not [{shape[0]}]")
        w = ctx.plain(writes)
        if ctx.dtype(writes) != np.int64:
            w64 = ctx.intermediate(f"{out}/writes64", [shape[0]], np.int64)
            ctx.builder.add_op("CAST", [w], [w64])
            w = w64
        column = ctx.intermediate(f"{out}/writes", [shape[0]] + [1] * (axis + 1), np.int64)
        dims = ctx.constant(f"{out}/writes_shape", np.array([shape[0]] + [1] * (axis + 1), np.int32))
        ctx.builder.add_op("RESHAPE", [w, dims], [column])
        last = np.zeros(axis + 1, np.int64)
        last[-1] = 1
        offset = ctx.intermediate(f"{out}/offset", [shape[0]] + [1] * axis + [axis + 1], np.int64)
        ctx.builder.add_op("MUL", [column, ctx.constant(f"{out}/last", last)], [offset])
        moved = ctx.intermediate(f"{out}/index", idx_shape, np.int64)
        ctx.builder.add_op("ADD", [index, offset], [moved])
        index = moved
    if mode == "circular":
        # The prefix components are below their dims already: mod leaves them.
        divisor = ctx.constant(f"{out}/length", np.array(shape[: axis + 1], np.int64))
        wrapped = ctx.intermediate(f"{out}/wrapped", idx_shape, np.int64)
        ctx.builder.add_op("FLOOR_MOD", [index, divisor], [wrapped])
        index = wrapped
    options = ("ScatterOptions", {"scatter_reduction": "NONE"})
    ctx.builder.add_op("SCATTER_ND", [ctx.plain(past), index, ctx.plain(update)], [ctx.output(out)], options)

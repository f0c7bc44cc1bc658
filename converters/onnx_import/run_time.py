"""Values computed from run-time dims, computed by the lite runtime.

A model exported with several dynamic dims (batch and sequence length, or
image height and width) computes shapes from them: Reshape to
Concat(Shape(x)[:2], [h, d]), Expand or ConstantOfShape to Shape(x), Range
up to a sequence length. Folding evaluates such a value at the static
shapes and at the probe dims (`shapes.probe_dims`: a distinct prime per
symbolic dim) and keeps it in `ctx.symbolic` with the node that computed it
(`ctx.producers`). Where an importer reads it as a value it is replayed
here: `Shape` becomes the lite SHAPE op, the arithmetic after it (Gather,
Concat, Mul, Unsqueeze, Cast, ...) the ops their importers emit, so the
runtime computes it at every size the model is resized to. RESHAPE and
BROADCAST_TO take such a computed shape (their output is then a dynamic
tensor, sized when the model runs). `Range` with computed bounds is a
CUMSUM of ones of the computed length.
"""

import numpy as np
import onnx

from converters.errors import NodeError as _NodeError
from converters.lowering import TO_NCHW
from converters.onnx_import.context import IMPORTERS, attrs, imports
from converters.onnx_import.shapes import run_time_value_error

ARITHMETIC = ("ArithmeticOptions", {})


def materialize(ctx, name):
    """(twl index, False) of run-time value `name`, its computation replayed
    as lite ops (once)."""
    if name in ctx.tensors:
        return ctx.tensors[name]
    node = ctx.producers.get(name)
    if node is None:
        raise _NodeError(run_time_value_error(ctx, name))
    if node.op_type in ("Shape", "Size"):
        _shape(ctx, node)
    elif node.op_type == "Concat":
        # The empty pieces (Shape(x)[3:] of a rank-3 x) are left out.
        kept = [i for i in node.input if i and not (i in ctx.consts and ctx.consts[i].size == 0)]
        concat = onnx.NodeProto()
        concat.CopyFrom(node)
        del concat.input[:]
        concat.input.extend(kept)
        IMPORTERS["Concat"](ctx, concat)
    elif node.op_type in IMPORTERS:
        IMPORTERS[node.op_type](ctx, node)
    else:
        raise _NodeError(f"{node.op_type} '{name}': {run_time_value_error(ctx, name)}")
    if name not in ctx.tensors:
        raise _NodeError(run_time_value_error(ctx, name))
    return ctx.tensors[name]


def shape_of(ctx, x, axes=None, name=None):
    """The twl int64 tensor of ONNX tensor `x`'s dims `axes` (all by
    default), in ONNX's order, computed when the model runs."""
    rank = ctx.rank(x)
    axes = list(range(rank)) if axes is None else [int(a) for a in axes]
    index, nhwc = ctx.value(x)
    name = name or f"{x}/shape"
    full = ctx.intermediate(f"{name}/all", [rank], np.int64)
    ctx.builder.add_op("SHAPE", [index], [full])
    lite_axes = [TO_NCHW[a] for a in axes] if nhwc else axes
    if lite_axes == list(range(rank)):
        return full
    out = ctx.intermediate(name, [len(axes)], np.int64)
    idx = ctx.constant(f"{name}/axes", np.array(lite_axes, np.int32))
    ctx.builder.add_op("GATHER", [full, idx], [out], ("GatherOptions", {"axis": 0}))
    return out


def _shape(ctx, node):
    x, out = node.input[0], node.output[0]
    rank = ctx.rank(x)
    a = attrs(node)
    axes = range(rank)
    if node.op_type == "Shape":
        axes = range(rank)[slice(a.get("start", 0), a.get("end", rank))]
    dims = shape_of(ctx, x, axes, name=f"{out}/dims")
    if node.op_type == "Shape":
        ctx.tensors[out] = (dims, False)
        ctx.builder.rename(dims, out)
        return
    axis = ctx.constant(f"{out}/axis", np.array([0], np.int32))
    ctx.builder.add_op("REDUCE_PROD", [dims, axis], [ctx.output(out)], ("ReducerOptions", {"keep_dims": False}))


def int64(ctx, name, like):
    """Twl tensor `name` as int64 (a CAST when it is another integer type)."""
    index = ctx.plain(name)
    if ctx.builder.tensor(index).dtype == np.int64:
        return index
    out = ctx.intermediate(f"{name}/int64", list(ctx.shape(name)), np.int64)
    ctx.builder.add_op("CAST", [index], [out])
    return out


def computed_target(ctx, node, x, target_name, allowzero):
    """A Reshape's target shape as a twl int64 tensor computed at run time:
    its computed (or constant) values, with ONNX's 0 entries (copy the input's
    dim, unless allowzero) taken from SHAPE(x)."""
    if target_name in ctx.symbolic:
        static, probe, _ = ctx.symbolic[target_name]
        values = materialize(ctx, target_name)[0]
        if ctx.builder.tensor(values).dtype != np.int64:
            values = int64(ctx, target_name, x)
        copies = [] if probe is None else [k for k in range(static.size) if static[k] == 0 and probe[k] == 0]
    else:
        static = np.asarray(ctx.require_const(node, 1, "shape"), np.int64).reshape(-1)
        values = ctx.constant(f"{node.output[0]}/target", static)
        copies = [k for k in range(static.size) if static[k] == 0]
    if allowzero or not copies:
        return values
    rank_in = ctx.rank(x)
    if any(k >= rank_in for k in copies):
        raise _NodeError(f"shape entry 0 at {copies} copies a dim that '{x}' of rank {rank_in} lacks")
    n, out = static.size, node.output[0]
    dims = shape_of(ctx, x, [k if k in copies else 0 for k in range(n)], name=f"{out}/copied")
    mask = ctx.constant(f"{out}/copy", np.array([k in copies for k in range(n)]))
    target = ctx.intermediate(f"{out}/target_shape", [n], np.int64)
    ctx.builder.add_op("SELECT", [mask, dims, values], [target])
    return target


def dims_target(ctx, x, out, spec):
    """A twl int64 shape of `len(spec)` values computed at run time: entry k
    is dim spec[k] of ONNX tensor `x` (an int), or constant -spec[k] - 1
    (spec[k] negative, e.g. -2 for 1)."""
    rank = ctx.rank(x)
    dims = shape_of(ctx, x, name=f"{out}/in_shape")
    consts = sorted({-s - 1 for s in spec if s < 0})
    table = dims
    if consts:
        table = ctx.intermediate(f"{out}/dim_table", [rank + len(consts)], np.int64)
        extra = ctx.constant(f"{out}/const_dims", np.array(consts, np.int64))
        ctx.builder.add_op("CONCATENATION", [dims, extra], [table], ("ConcatenationOptions", {"axis": 0}))
    idx = [s if s >= 0 else rank + consts.index(-s - 1) for s in spec]
    target = ctx.intermediate(f"{out}/target_shape", [len(spec)], np.int64)
    index = ctx.constant(f"{out}/dim_index", np.array(idx, np.int32))
    ctx.builder.add_op("GATHER", [table, index], [target], ("GatherOptions", {"axis": 0}))
    return target


def run_time_dims(ctx, name):
    """How many dims of ONNX tensor `name` are known only at run time."""
    return (ctx.signature_of(name, ctx.shape(name)) or []).count(-1)


def scalar_int64(ctx, node, i, out):
    """Input i of a Range or Slice as a twl int64 [1] tensor (computed or constant)."""
    name = node.input[i]
    if name in ctx.consts:
        return ctx.constant(f"{out}/input{i}", np.asarray(ctx.consts[name], np.int64).reshape([1]))
    index = int64(ctx, name, name)
    if ctx.rank(name) == 1:
        return index
    t = ctx.intermediate(f"{out}/input{i}/1d", [1], np.int64)
    ctx.builder.add_op("RESHAPE", [index, ctx.constant(f"{out}/one", np.array([1], np.int32))], [t])
    return t


@imports("Range")
def _range(ctx, node):
    """Range(start, limit, delta) of integers whose bounds are computed
    (torch.arange(seq_len)): n = max(ceil((limit - start) / delta), 0) ones
    (BROADCAST_TO a computed [n]), CUMSUM, then start + delta * (i - 1)."""
    out = node.output[0]
    for i, what in enumerate(("start", "limit", "delta")):
        if node.input[i] not in ctx.consts and node.input[i] not in ctx.symbolic:
            raise _NodeError(
                f"{what} '{node.input[i]}' is neither a constant nor computed from shapes: the length of the range "
                f"would depend on values known only when the model runs"
            )
    dtype = ctx.dtype(out)
    if not np.issubdtype(dtype, np.integer) and not _whole_numbers(ctx, node):
        raise _NodeError(
            f"a {np.dtype(dtype)} Range with bounds computed at run time (only integer ones are, or whole numbers: "
            f"a constant start and delta and a limit computed from shapes)"
        )
    if node.input[2] not in ctx.consts:
        raise _NodeError(f"delta (input 2): {run_time_value_error(ctx, node.input[2])}")
    delta = int(np.asarray(ctx.consts[node.input[2]]).reshape(-1)[0])
    if delta == 0:
        raise _NodeError("delta is 0")
    start, limit = (scalar_int64(ctx, node, i, out) for i in (0, 1))
    result = ctx.intermediate(f"{out}/int64", [1], np.int64) if dtype != np.int64 else ctx.output(out)
    range_of(ctx, out, start, limit, delta, result)
    if dtype != np.int64:
        ctx.builder.add_op("CAST", [result], [ctx.output(out)])


def _whole_numbers(ctx, node):
    """Whether a float Range's start and delta are constant whole numbers and its limit one at the static shapes
    and the probe dims (torch.arange(ny, dtype=torch.float32) of a run-time size: YOLO's grid), so that it is the
    integer range, cast."""
    values = [ctx.consts[i] if i in ctx.consts else ctx.symbolic[i][0] for i in node.input[:3]]
    if node.input[1] in ctx.symbolic:
        probe = ctx.symbolic[node.input[1]][1]
        if probe is None:
            return False
        values.append(probe)
    if node.input[0] not in ctx.consts:
        return False
    return all(np.all(np.isfinite(v)) and np.all(np.asarray(v) == np.round(v)) for v in map(np.asarray, values))


def binary(ctx, name, op, a, b):
    """A [1] int64 twl tensor `name`, op(a, b)."""
    t = ctx.intermediate(name, [1], np.int64)
    ctx.builder.add_op(op, [a, b], [t], ARITHMETIC if op in ("ADD", "SUB", "MUL", "DIV") else None)
    return t


def range_of(ctx, out, start, limit, delta, result):
    """Writes into twl tensor `result` the int64 range from twl [1] tensors
    `start` to `limit` by constant `delta`: n = max(ceil((limit - start) /
    delta), 0) ones (BROADCAST_TO a computed [n]), an exclusive CUMSUM,
    times delta, plus start."""

    def const(what, v):
        return ctx.constant(f"{out}/{what}", np.array([v], np.int64))

    span = binary(ctx, f"{out}/span", "SUB", limit, start)
    span = binary(ctx, f"{out}/ceil", "ADD", span, const("round", delta - 1 if delta > 0 else delta + 1))
    count = binary(ctx, f"{out}/count", "DIV", span, const("delta", delta))
    count = binary(ctx, f"{out}/length", "MAXIMUM", count, const("zero", 0))
    ones = ctx.intermediate(f"{out}/ones", [1], np.int64)
    ctx.builder.add_op("BROADCAST_TO", [const("one", 1), count], [ones])
    steps = ctx.intermediate(f"{out}/steps", [1], np.int64)
    axis = ctx.constant(f"{out}/axis", np.array(0, np.int32))
    ctx.builder.add_op("CUMSUM", [ones, axis], [steps], ("CumulativeOptions", {"exclusive": True}))
    if delta != 1:
        steps = binary(ctx, f"{out}/scaled", "MUL", steps, const("delta", delta))
    ctx.builder.add_op("ADD", [steps, start], [result], ARITHMETIC)

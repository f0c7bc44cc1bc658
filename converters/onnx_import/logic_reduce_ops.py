"""Importers of comparisons, logic, bitwise ops, reductions and ArgMax/ArgMin.

Comparisons, logic and bitwise ops run in ONNX's layout with numpy
broadcasting (Xor is NOT_EQUAL on bools). A reduction runs in the layout its
input has where the kept dims come out in ONNX's order (axes mapped by
`reduction_axes_in_layout`); ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSum
and ReduceLogSumExp are REDUCE_SUM/REDUCE_MAX with elementwise ops around them.
"""

import numpy as np

from converters.errors import NodeError as _NodeError
from converters.lowering import NCHW_TO_NHWC_AXIS, reduction_axes_in_layout
from converters.onnx_import.context import attrs, imports, is_lite_type

# The element types (numpy kinds) the lite kernels take.
_NUMERIC, _INTEGER, _BOOL = "fiu", "iu", "b"
# ONNX op -> (lite op, the operand kinds it takes, whether the output is bool).
_BINARY = {
    "Equal": ("EQUAL", _NUMERIC + _BOOL, True),
    "Less": ("LESS", _NUMERIC, True),
    "LessOrEqual": ("LESS_EQUAL", _NUMERIC, True),
    "Greater": ("GREATER", _NUMERIC, True),
    "GreaterOrEqual": ("GREATER_EQUAL", _NUMERIC, True),
    "And": ("LOGICAL_AND", _BOOL, True),
    "Or": ("LOGICAL_OR", _BOOL, True),
    "Xor": ("NOT_EQUAL", _BOOL, True),
    "BitwiseAnd": ("BITWISE_AND", _INTEGER, False),
    "BitwiseOr": ("BITWISE_OR", _INTEGER, False),
    "BitwiseXor": ("BITWISE_XOR", _INTEGER, False),
    "BitShift": (None, _INTEGER, False),  # LEFT_SHIFT or RIGHT_SHIFT by `direction`
}
_UNARY = {"Not": ("LOGICAL_NOT", _BOOL), "BitwiseNot": ("BITWISE_NOT", _INTEGER)}


def _check_type(ctx, kinds, *names):
    """The one element type of tensors `names`, one of `kinds` (float16 only
    stored, no arithmetic)."""
    dtypes = {np.dtype(ctx.dtype(n)) for n in names}
    dtype = dtypes.pop()
    if dtypes or dtype.kind not in kinds or dtype == np.float16 or not is_lite_type(dtype):
        got = " and ".join(str(np.dtype(ctx.dtype(n))) for n in names)
        raise _NodeError(f"{'operands are' if len(names) > 1 else 'input is'} {got}; the lite kernel does not take it")
    return dtype


@imports(*_BINARY)
def _binary(ctx, node):
    a, b = node.input[:2]
    opcode, kinds, to_bool = _BINARY[node.op_type]
    dtype = _check_type(ctx, kinds, a, b)
    if node.op_type == "BitShift":
        opcode = {b"LEFT": "LEFT_SHIFT", b"RIGHT": "RIGHT_SHIFT"}[attrs(node)["direction"]]
    out = ctx.output(node.output[0], dtype=np.bool_ if to_bool else dtype)
    ctx.builder.add_op(opcode, [ctx.plain(a), ctx.plain(b)], [out])


@imports(*_UNARY)
def _unary(ctx, node):
    opcode, kinds = _UNARY[node.op_type]
    _check_type(ctx, kinds, node.input[0])
    index, nhwc = ctx.value(node.input[0])
    ctx.builder.add_op(opcode, [index], [ctx.output(node.output[0], nhwc=nhwc)])


# --- reductions ---------------------------------------------------------------------------
# ONNX op -> (elementwise op before, lite reduction, elementwise op after).
_REDUCTIONS = {
    "ReduceMean": (None, "MEAN", None),
    "ReduceSum": (None, "REDUCE_SUM", None),
    "ReduceMax": (None, "REDUCE_MAX", None),
    "ReduceMin": (None, "REDUCE_MIN", None),
    "ReduceProd": (None, "REDUCE_PROD", None),
    "ReduceL1": ("ABS", "REDUCE_SUM", None),
    "ReduceL2": ("SQUARE", "REDUCE_SUM", "SQRT"),
    "ReduceSumSquare": ("SQUARE", "REDUCE_SUM", None),
    "ReduceLogSum": (None, "REDUCE_SUM", "LOG"),
}


def _reduced_axes(ctx, node):
    """The sorted non-negative axes a reduction reduces, or None when it
    reduces nothing (empty axes with noop_with_empty_axes)."""
    a = attrs(node)
    # Axes became an input in opset 13 for ReduceSum, in 18 for the others.
    if ctx.opset >= (13 if node.op_type == "ReduceSum" else 18):
        given = len(node.input) > 1 and node.input[1]
        axes = ctx.const(node.input[1]) if given else None
        if given and axes is None:
            raise _NodeError("axes must be a constant")
    else:
        axes = a.get("axes")
    rank = ctx.rank(node.input[0])
    if axes is None or len(axes) == 0:
        return None if a.get("noop_with_empty_axes", 0) else list(range(rank))
    return sorted({int(v) % rank for v in np.asarray(axes).reshape(-1)})


def _check_reduced_type(ctx, node, opcode):
    dtype = np.dtype(ctx.dtype(node.input[0]))
    types = (np.float32, np.float64, np.int32, np.int64) + (
        (np.bool_,) if opcode in ("REDUCE_MAX", "REDUCE_MIN") else ()
    )
    if dtype not in types:
        raise _NodeError(f"input is {dtype}; {opcode} takes {', '.join(np.dtype(t).name for t in types)}")


@imports(*_REDUCTIONS)
def _reduce(ctx, node):
    x, out = node.input[0], node.output[0]
    before, opcode, after = _REDUCTIONS[node.op_type]
    _check_reduced_type(ctx, node, opcode)
    axes = _reduced_axes(ctx, node)
    keep = bool(attrs(node).get("keepdims", 1))
    steps = [s for s in (before, None if axes is None else opcode, after) if s]
    index, nhwc = ctx.value(x)
    if not steps:
        ctx.tensors[out] = (index, nhwc)
        return
    lite_axes = axes
    if nhwc and axes is not None:
        lite_axes = reduction_axes_in_layout(axes, keep, NCHW_TO_NHWC_AXIS)
        if lite_axes is None:  # the kept dims would come out of NHWC's order
            index, nhwc, lite_axes = ctx.plain(x), False, axes
    shape, like = ctx.builder.tensor(index).shape, x
    for k, step in enumerate(steps):
        inputs, options = [index], None
        if step == opcode:
            inputs.append(ctx.constant(f"{out}/axes", np.array(lite_axes, np.int32)))
            options = ("ReducerOptions", {"keep_dims": keep})
            shape = [1 if i in lite_axes else d for i, d in enumerate(shape) if keep or i not in lite_axes]
            nhwc, like = nhwc and keep, out
        elif step == "SQUARE":  # as MUL: every numeric type
            step, options = "MUL", ("ArithmeticOptions", {})
            inputs.append(index)
        if k == len(steps) - 1:
            target = ctx.output(out, nhwc=nhwc)
        else:
            target = ctx.intermediate(f"{out}/{step.lower()}", shape, ctx.dtype(x), like=like)
        ctx.builder.add_op(step, inputs, [target], options)
        index = target


@imports("ReduceLogSumExp")
def _reduce_log_sum_exp(ctx, node):
    """max + log(sum(exp(x - max))), max over the reduced axes (kept as 1s)."""
    x, out = node.input[0], node.output[0]
    _check_reduced_type(ctx, node, "REDUCE_SUM")
    axes = _reduced_axes(ctx, node)
    if axes is None:  # log(exp(x - x)) + x
        ctx.tensors[out] = ctx.value(x)
        return
    keep = bool(attrs(node).get("keepdims", 1))
    src = ctx.plain(x)
    dtype = ctx.dtype(x)
    kept_shape = [1 if i in axes else d for i, d in enumerate(ctx.shape(x))]
    t = ctx.constant(f"{out}/axes", np.array(axes, np.int32))
    keep_dims = ("ReducerOptions", {"keep_dims": True})
    arithmetic = ("ArithmeticOptions", {})

    def tensor(name, shape):
        return ctx.intermediate(f"{out}/{name}", shape, dtype)

    high = tensor("max", kept_shape)
    ctx.builder.add_op("REDUCE_MAX", [src, t], [high], keep_dims)
    shifted = tensor("shifted", ctx.shape(x))
    ctx.builder.add_op("SUB", [src, high], [shifted], arithmetic)
    exp = tensor("exp", ctx.shape(x))
    ctx.builder.add_op("EXP", [shifted], [exp])
    total = tensor("sum", kept_shape)
    ctx.builder.add_op("REDUCE_SUM", [exp, t], [total], keep_dims)
    log = tensor("log", kept_shape)
    ctx.builder.add_op("LOG", [total], [log])
    if keep:
        ctx.builder.add_op("ADD", [log, high], [ctx.output(out)], arithmetic)
        return
    result = tensor("kept", kept_shape)
    ctx.builder.add_op("ADD", [log, high], [result], arithmetic)
    shape = ctx.constant(f"{out}/shape", np.array(ctx.shape(out), np.int32))
    ctx.builder.add_op("RESHAPE", [result, shape], [ctx.output(out)])


@imports("GlobalMaxPool")
def _global_max_pool(ctx, node):
    """REDUCE_MAX over the spatial dims, kept as 1s."""
    x, out = node.input[0], node.output[0]
    _check_reduced_type(ctx, node, "REDUCE_MAX")
    rank = ctx.rank(x)
    options = ("ReducerOptions", {"keep_dims": True})
    if rank == 4:
        axes = ctx.constant(f"{out}/axes", np.array([1, 2], np.int32))
        ctx.builder.add_op("REDUCE_MAX", [ctx.nhwc(x), axes], [ctx.output(out, nhwc=True)], options)
        return
    axes = ctx.constant(f"{out}/axes", np.arange(2, rank, dtype=np.int32))
    ctx.builder.add_op("REDUCE_MAX", [ctx.plain(x), axes], [ctx.output(out)], options)


@imports("ArgMax", "ArgMin")
def _arg_extremum(ctx, node):
    a = attrs(node)
    x = node.input[0]
    if np.dtype(ctx.dtype(x)) not in (np.float32, np.int32, np.int64):
        raise _NodeError(f"input is {np.dtype(ctx.dtype(x))}; {node.op_type} takes float32, int32, int64")
    axis = ctx.constant(f"{node.output[0]}/axis", np.array([a.get("axis", 0)], np.int32))
    options = {
        "output_type": "INT64",
        "select_last_index": bool(a.get("select_last_index", 0)),
        "keep_dims": bool(a.get("keepdims", 1)),
    }
    opcode = "ARG_MAX" if node.op_type == "ArgMax" else "ARG_MIN"
    out = ctx.output(node.output[0], dtype=np.int64)
    ctx.builder.add_op(opcode, [ctx.plain(x), axis], [out], ("ArgMaxOptions", options))

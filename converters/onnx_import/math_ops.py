"""Importers of elementwise arithmetic and activations.

An elementwise op runs in the layout its inputs have (NHWC after a Conv),
with constants broadcast to rank 4 and transposed to it; ADD/SUB/MUL/DIV
absorb a following activation (Relu, Sigmoid, Tanh, Clip as RELU/RELU6).
"""

import numpy as np

from converters.errors import NodeError as _NodeError
from converters.lowering import TO_NHWC, rank4_constant
from converters.onnx_import.context import clip_activation, clip_bounds, imports, is_lite_type


@imports("Identity")
def _identity(ctx, node):
    index, nhwc = ctx.value(node.input[0])
    ctx.tensors[node.output[0]] = (index, nhwc)


_ELEMENTWISE = {"Add": "ADD", "Sub": "SUB", "Mul": "MUL", "Div": "DIV", "Max": "MAXIMUM", "Min": "MINIMUM"}


def _to_nhwc_operand(ctx, name, out_rank):
    """`name` for an op running in NHWC on rank-4 tensors, or None."""
    if ctx.is_nhwc(name):
        return ctx.value(name)[0]
    value = ctx.const(name)
    if value is not None and value.ndim <= 4 and out_rank == 4:
        return ctx.constant(f"{name}/nhwc", rank4_constant(value, TO_NHWC))
    if value is None and ctx.rank(name) == 4:
        return ctx.nhwc(name)
    return None


def elementwise_operands(ctx, inputs, out):
    """(lite operands of `inputs`, nhwc): in NHWC when output `out` is rank 4,
    some input is NHWC and every input can be (constants are transposed),
    else in ONNX's layout."""
    nhwc = ctx.rank(out) == 4 and any(ctx.is_nhwc(i) for i in inputs)
    operands = [_to_nhwc_operand(ctx, i, 4) for i in inputs] if nhwc else None
    if not nhwc or any(o is None for o in operands):
        nhwc, operands = False, [ctx.plain(i) for i in inputs]
    return operands, nhwc


def emit_chain(ctx, opcode, operands, out, last_target, options=None):
    """`opcode` over `operands` left to right, ((a op b) op c) ..., the last
    into `last_target`, the partial results shaped as `last_target`."""
    acc = operands[0]
    for k, operand in enumerate(operands[1:]):
        if k == len(operands) - 2:
            target = last_target
        else:
            tensor = ctx.builder.tensor(last_target)
            target = ctx.intermediate(f"{out}/partial_{k}", tensor.shape, tensor.dtype)
        ctx.builder.add_op(opcode, [acc, operand], [target], options)
        acc = target


@imports(*_ELEMENTWISE)
def _elementwise(ctx, node):
    opcode = _ELEMENTWISE[node.op_type]
    inputs = [i for i in node.input if i]
    out = node.output[0]
    if len(inputs) == 1:
        return _identity(ctx, node)
    operands, nhwc = elementwise_operands(ctx, inputs, out)
    activation, last = "NONE", out
    if opcode not in ("MAXIMUM", "MINIMUM") and ctx.dtype(out) == np.float32 and len(inputs) == 2:
        activation, last = ctx.fuse_activation(out)
    options = (
        None if opcode in ("MAXIMUM", "MINIMUM") else ("ArithmeticOptions", {"fused_activation_function": activation})
    )
    emit_chain(ctx, opcode, operands, out, ctx.output(last, nhwc=nhwc), options)


_UNARY = {
    "Relu": "RELU",
    "Sigmoid": "SIGMOID",
    "Tanh": "TANH",
    "Exp": "EXP",
    "Log": "LOG",
    "Sqrt": "SQRT",
    "Neg": "NEG",
    "Abs": "ABS",
    "Erf": "ERF",
}


@imports(*_UNARY)
def _unary(ctx, node):
    if node.op_type == "Erf" and ctx.dtype(node.input[0]) != np.float32:
        raise _NodeError(f"input is {np.dtype(ctx.dtype(node.input[0]))}; ERF computes in float32")
    index, nhwc = ctx.value(node.input[0])
    ctx.builder.add_op(_UNARY[node.op_type], [index], [ctx.output(node.output[0], nhwc=nhwc)])


@imports("Reciprocal")
def _reciprocal(ctx, node):
    index, nhwc = ctx.value(node.input[0])
    one = ctx.constant(f"{node.output[0]}/one", np.array(1, ctx.dtype(node.input[0])))
    options = ("ArithmeticOptions", {})
    ctx.builder.add_op("DIV", [one, index], [ctx.output(node.output[0], nhwc=nhwc)], options)


def _constant_bound(ctx, node, i):
    """Clip's constant bound input `i` (infinite when absent)."""
    if len(node.input) > i and node.input[i]:
        return float(ctx.consts[node.input[i]])
    return -np.inf if i == 1 else np.inf


@imports("Clip")
def _clip(ctx, node):
    """MAXIMUM / MINIMUM by the bounds (constants, or tensors computed in the
    model: torch.clamp by tensors), or the fused RELU / RELU6."""
    index, nhwc = ctx.value(node.input[0])
    out = node.output[0]
    dtype = ctx.dtype(out)
    computed = [
        i
        for i in (1, 2)
        if ctx.opset >= 11 and len(node.input) > i and node.input[i] and node.input[i] not in ctx.consts
    ]
    if not computed:
        act = clip_activation(ctx, node)
        if act is not None and dtype == np.float32:
            ctx.builder.add_op(act, [index], [ctx.output(out, nhwc=nhwc)])
            return
    steps = []
    for i, op in ((1, "MAXIMUM"), (2, "MINIMUM")):
        if i in computed:
            steps.append((op, ctx.plain(node.input[i])))
            continue
        v = clip_bounds(ctx, node)[i - 1] if not computed else _constant_bound(ctx, node, i)
        if np.isfinite(v):
            steps.append((op, ctx.constant(f"{out}/{op.lower()}", np.array(v, dtype))))
    if not steps:
        return _identity(ctx, node)
    acc = index
    for k, (op, bound) in enumerate(steps):
        if k == len(steps) - 1:
            target = ctx.output(out, nhwc=nhwc)
        else:
            target = ctx.intermediate(f"{out}/low", ctx.builder.tensor(index).shape, dtype)
        ctx.builder.add_op(op, [acc, bound], [target])
        acc = target


@imports("Where")
def _where(ctx, node):
    """SELECT(condition, x, y): masks such as masked_fill's
    Where(Equal(mask, 0), -inf, scores)."""
    cond, x, y = node.input[:3]
    if ctx.dtype(cond) != np.bool_:
        raise _NodeError(f"the condition is {np.dtype(ctx.dtype(cond))}, not bool")
    if ctx.dtype(x) != ctx.dtype(y) or not is_lite_type(ctx.dtype(x)):
        raise _NodeError(f"x and y are {np.dtype(ctx.dtype(x))} and {np.dtype(ctx.dtype(y))}")
    inputs = [ctx.plain(cond), ctx.plain(x), ctx.plain(y)]
    ctx.builder.add_op("SELECT", inputs, [ctx.output(node.output[0])])

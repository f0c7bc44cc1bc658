"""Importers of elementwise math: trigonometric and rounding functions,
predicates, parameterized activations, PRelu, Pow, Mod, Sum and Mean.

Every op here is layout-agnostic: it runs in the layout its input has (NHWC
after a Conv), as Relu does; a second operand (PRelu's slope, Pow's
exponent, Mod's divisor, Sum's terms) is brought to that layout, constants
broadcast to rank 4 and transposed (see math_ops.elementwise_operands).

The parameterized activations share one options table,
ActivationParamsOptions {alpha, beta, gamma}; the importer writes every
parameter an op reads, with ONNX's defaults where the node has none.
"""

import numpy as np

from converters.errors import NodeError as _NodeError
from converters.lowering import SELU_ALPHA, SELU_GAMMA, lite_pow_opcode
from converters.onnx_import.context import attrs, imports
from converters.onnx_import.math_ops import elementwise_operands, emit_chain

# ONNX op -> lite op of the float32 unary functions.
_FLOAT_UNARY = {
    "Sin": "SIN",
    "Cos": "COS",
    "Tan": "TAN",
    "Asin": "ASIN",
    "Acos": "ACOS",
    "Atan": "ATAN",
    "Sinh": "SINH",
    "Cosh": "COSH",
    "Asinh": "ASINH",
    "Acosh": "ACOSH",
    "Atanh": "ATANH",
    "Floor": "FLOOR",
    "Ceil": "CEIL",
    "Round": "ROUND",
    "Softplus": "SOFTPLUS",
    "Softsign": "SOFTSIGN",
    "HardSwish": "HARD_SWISH",
    "Mish": "MISH",
    "IsNaN": "IS_NAN",
    "IsInf": "IS_INF",
}

# ONNX op -> (lite op, {lite parameter: (ONNX attribute, ONNX default)}).
_ACTIVATIONS = {
    "Elu": ("ELU", {"alpha": ("alpha", 1.0)}),
    "Selu": ("SELU", {"alpha": ("alpha", SELU_ALPHA), "gamma": ("gamma", SELU_GAMMA)}),
    "Celu": ("CELU", {"alpha": ("alpha", 1.0)}),
    "LeakyRelu": ("LEAKY_RELU", {"alpha": ("alpha", 0.01)}),
    "HardSigmoid": ("HARD_SIGMOID", {"alpha": ("alpha", 0.2), "beta": ("beta", 0.5)}),
    "ThresholdedRelu": ("THRESHOLDED_RELU", {"alpha": ("alpha", 1.0)}),
    "Shrink": ("SHRINK", {"alpha": ("lambd", 0.5), "beta": ("bias", 0.0)}),
    "Swish": ("SWISH", {"alpha": ("alpha", 1.0)}),
}

# The numeric element types of the lite arithmetic (not bool, not float16:
# float16 is storage only).
_NUMERIC = tuple(
    np.dtype(t)
    for t in ("float32", "float64", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")
)
_POW_BASES = tuple(np.dtype(t) for t in ("float32", "float64", "int32", "int64"))


def _require(ctx, name, allowed, what):
    dtype = np.dtype(ctx.dtype(name))
    if dtype not in allowed:
        names = ", ".join(str(t) for t in allowed)
        raise _NodeError(f"{what} is {dtype}; the lite op takes {names}")
    return dtype


def _unary(ctx, node, opcode, options=None, dtype=None):
    """`opcode` on the node's input, in its layout."""
    index, nhwc = ctx.value(node.input[0])
    ctx.builder.add_op(opcode, [index], [ctx.output(node.output[0], nhwc=nhwc, dtype=dtype)], options)


@imports(*_FLOAT_UNARY)
def _float_unary(ctx, node):
    _require(ctx, node.input[0], (np.dtype(np.float32),), "the input")
    options, dtype = None, None
    if node.op_type in ("IsNaN", "IsInf"):
        dtype = np.bool_
    if node.op_type == "IsInf":
        a = attrs(node)
        options = (
            "IsInfOptions",
            {
                "detect_positive": bool(a.get("detect_positive", 1)),
                "detect_negative": bool(a.get("detect_negative", 1)),
            },
        )
    _unary(ctx, node, _FLOAT_UNARY[node.op_type], options, dtype)


@imports("Sign")
def _sign(ctx, node):
    _require(ctx, node.input[0], _NUMERIC, "the input")
    _unary(ctx, node, "SIGN")


@imports(*_ACTIVATIONS)
def _activation(ctx, node):
    _require(ctx, node.input[0], (np.dtype(np.float32),), "the input")
    opcode, params = _ACTIVATIONS[node.op_type]
    a = attrs(node)
    values = {param: float(a.get(attr, default)) for param, (attr, default) in params.items()}
    if node.op_type == "Celu" and values["alpha"] == 0:
        raise _NodeError("Celu's alpha is 0")
    _unary(ctx, node, opcode, ("ActivationParamsOptions", values))


def _binary(ctx, node, opcode, dtype=None):
    """`opcode` on the node's two inputs, in the layout they can share."""
    out = node.output[0]
    operands, nhwc = elementwise_operands(ctx, list(node.input[:2]), out)
    ctx.builder.add_op(opcode, operands, [ctx.output(out, nhwc=nhwc, dtype=dtype)])


@imports("PRelu")
def _prelu(ctx, node):
    for name, what in ((node.input[0], "X"), (node.input[1], "slope")):
        _require(ctx, name, (np.dtype(np.float32),), what)
    if list(ctx.shape(node.output[0])) != list(ctx.shape(node.input[0])):
        raise _NodeError("the slope does not broadcast to X's shape")
    _binary(ctx, node, "PRELU")


@imports("Pow")
def _pow(ctx, node):
    base, exponent = node.input[:2]
    dtype = _require(ctx, base, _POW_BASES, "the base")
    _require(ctx, exponent, _NUMERIC, "the exponent")
    value = ctx.const(exponent)
    if dtype == np.float32 and value is not None and value.size == 1:
        try:  # x^2, x^0.5, x^-0.5: SQUARE, SQRT, RSQRT
            return _unary(ctx, node, lite_pow_opcode(value))
        except _NodeError:
            pass
    _binary(ctx, node, "POW")


@imports("Mod")
def _mod(ctx, node):
    _require(ctx, node.input[0], _NUMERIC, "the dividend")
    _binary(ctx, node, "FMOD" if attrs(node).get("fmod", 0) else "FLOOR_MOD")


@imports("Sum", "Mean")
def _sum_mean(ctx, node):
    """Sum: ADD over the inputs left to right (numpy broadcasting at each
    step); Mean: that sum times 1 / count."""
    inputs = [i for i in node.input if i]
    out = node.output[0]
    dtype = _require(ctx, out, _NUMERIC, "the sum")
    if len(inputs) == 1:
        ctx.tensors[out] = ctx.value(inputs[0])
        return
    operands, nhwc = elementwise_operands(ctx, inputs, out)
    options = ("ArithmeticOptions", {})
    if node.op_type == "Sum":
        return emit_chain(ctx, "ADD", operands, out, ctx.output(out, nhwc=nhwc), options)
    if dtype.kind != "f":
        raise _NodeError(f"Mean of {dtype}: the lite runtime takes float means")
    final = ctx.output(out, nhwc=nhwc)
    total = ctx.intermediate(f"{out}/sum", ctx.builder.tensor(final).shape, dtype)
    emit_chain(ctx, "ADD", operands, out, total, options)
    scale = ctx.constant(f"{out}/scale", np.array(1 / len(inputs), dtype))
    ctx.builder.add_op("MUL", [total, scale], [final], options)


@imports("SwiGLU")
def _swiglu(ctx, node):
    """Swish_alpha(A) * B: SWISH then MUL, in the layout A and B share."""
    for name, what in ((node.input[0], "A"), (node.input[1], "B")):
        _require(ctx, name, (np.dtype(np.float32),), what)
    if list(ctx.shape(node.input[0])) != list(ctx.shape(node.input[1])):
        raise _NodeError(f"A {list(ctx.shape(node.input[0]))} and B {list(ctx.shape(node.input[1]))} differ in shape")
    out = node.output[0]
    (a, b), nhwc = elementwise_operands(ctx, list(node.input[:2]), out)
    gate = ctx.intermediate(f"{out}/swish", list(ctx.builder.tensor(a).shape), np.float32, like=node.input[0])
    options = ("ActivationParamsOptions", {"alpha": float(attrs(node).get("alpha", 1.0))})
    ctx.builder.add_op("SWISH", [a], [gate], options)
    ctx.builder.add_op("MUL", [gate, b], [ctx.output(out, nhwc=nhwc)], ("ArithmeticOptions", {}))

"""Importers of ONNX's recurrent ops: LSTM, GRU and RNN (opsets 7-22 forms)
become the lite LSTM, GRU and RNN ops, which keep ONNX's operand layouts and
semantics (lite/schema/twl.fbs, LSTMOptions, GRUOptions, RNNOptions).

Supported: every direction, `layout` 0 and 1, `sequence_lens`,
`initial_h`/`initial_c`, LSTM peepholes `P`, `clip`, `input_forget`, GRU's
`linear_before_reset`, and `activations` Sigmoid, Tanh, Relu and HardSigmoid
(one gate activation f and one cell activation g = h, the same in both
directions, and one HardSigmoid alpha/beta; anything else is refused).
W, R, B and P must be constants (as every exporter writes them); the
weights' shapes are checked here so that a bad model fails at conversion,
naming the node, not in the runtime.
"""

import numpy as np

from converters.errors import NodeError as _NodeError
from converters.onnx_import.context import attrs, imports

# Per op: gates, the default activations of one direction, the inputs by
# position, the outputs.
_SPECS = {
    "LSTM": (4, ["Sigmoid", "Tanh", "Tanh"], ["X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"]),
    "GRU": (3, ["Sigmoid", "Tanh"], ["X", "W", "R", "B", "sequence_lens", "initial_h"]),
    "RNN": (1, ["Tanh"], ["X", "W", "R", "B", "sequence_lens", "initial_h"]),
}
_DIRECTIONS = {"forward": ("FORWARD", 1), "reverse": ("REVERSE", 1), "bidirectional": ("BIDIRECTIONAL", 2)}
_OPTIONS = {"LSTM": "LSTMOptions", "GRU": "GRUOptions", "RNN": "RNNOptions"}


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


# ONNX's activation names (lower case) as the .twl RNNActivation enum names them.
_ACTIVATIONS = {"sigmoid": "SIGMOID", "tanh": "TANH", "relu": "RELU", "hardsigmoid": "HARD_SIGMOID"}


def _activation_options(node, a, defaults, dirs):
    """The options of the node's `activations` (ONNX's f, g, h per direction): {} for the defaults, else
    gate_activation (LSTM, GRU), activation and HardSigmoid's activation_alpha/beta. The lite ops have one gate
    and one cell activation (LSTM: g = h) for both directions, and one alpha and beta."""
    acts = [_text(x) for x in a["activations"]]
    if len(acts) != len(defaults) * dirs:
        raise _NodeError(f"activations={acts} has {len(acts)} functions; expected {len(defaults) * dirs}")
    lower = [x.lower() for x in acts]
    unsupported = sorted({x for x in acts if x.lower() not in _ACTIVATIONS})
    if unsupported:
        raise _NodeError(
            f"unsupported activation {unsupported[0]} in activations={acts} (the lite {node.op_type} computes "
            "Sigmoid, Tanh, Relu and HardSigmoid)"
        )
    per_direction = lower[: len(defaults)]
    if lower != per_direction * dirs or (node.op_type == "LSTM" and per_direction[1] != per_direction[2]):
        raise _NodeError(
            f"unsupported attribute activations={acts} (the lite {node.op_type} has one gate and one cell "
            "activation, the same in both directions" + (", g = h" if node.op_type == "LSTM" else "") + ")"
        )
    # alpha and beta in the order of the functions that take them (as onnxruntime reads them).
    alphas, betas = list(a.get("activation_alpha", [])), list(a.get("activation_beta", []))
    params = set()
    for x in lower:
        if x == "hardsigmoid":
            params.add((alphas.pop(0) if alphas else 0.2, betas.pop(0) if betas else 0.5))
    if len(params) > 1:
        raise _NodeError(
            "HardSigmoid activations with different alpha/beta "
            + ", ".join(f"({x:g}, {y:g})" for x, y in sorted(params))
            + f" (the lite {node.op_type} has one)"
        )
    if alphas or betas:
        raise _NodeError("activation_alpha/activation_beta have more values than the HardSigmoid activations take")
    if lower == [x.lower() for x in defaults * dirs]:
        return {}
    options = {"activation": _ACTIVATIONS[per_direction[0 if node.op_type == "RNN" else 1]]}
    if node.op_type != "RNN":
        options["gate_activation"] = _ACTIVATIONS[per_direction[0]]
    alpha, beta = params.pop() if params else (0.2, 0.5)
    options.update(activation_alpha=float(alpha), activation_beta=float(beta))
    return options


def _check_attributes(node, a, defaults, dirs):
    known = {"hidden_size", "direction", "layout", "activations", "activation_alpha", "activation_beta", "clip"}
    known |= {"LSTM": {"input_forget"}, "GRU": {"linear_before_reset"}, "RNN": set()}[node.op_type]
    for name in a:
        if name not in known:
            raise _NodeError(f"unsupported attribute {name}")
    if ("activation_alpha" in a or "activation_beta" in a) and "activations" not in a:
        raise _NodeError("activation_alpha/activation_beta without activations")
    if "clip" in a and not (np.isfinite(a["clip"]) and a["clip"] > 0):
        raise _NodeError(f"clip {a['clip']} must be positive and finite")
    if a.get("layout", 0) not in (0, 1):
        raise _NodeError(f"layout {a['layout']} is not 0 or 1")


def _shape_error(what, got, want, meaning):
    return _NodeError(f"{what} has shape {list(got)}; expected {list(want)} ({meaning})")


@imports("LSTM", "GRU", "RNN")
def _rnn(ctx, node):
    gates, defaults, names = _SPECS[node.op_type]
    a = attrs(node)
    direction = _text(a.get("direction", "forward"))
    if direction not in _DIRECTIONS:
        raise _NodeError(f"direction {direction!r} is not forward, reverse or bidirectional")
    lite_direction, dirs = _DIRECTIONS[direction]
    _check_attributes(node, a, defaults, dirs)
    activation_options = _activation_options(node, a, defaults, dirs) if "activations" in a else {}
    if len(node.input) > len(names):
        raise _NodeError(f"has {len(node.input)} inputs; {node.op_type} takes at most {len(names)}")
    inputs = {n: (node.input[i] if i < len(node.input) and node.input[i] else None) for i, n in enumerate(names)}
    x = inputs["X"]
    if ctx.dtype(x) != np.float32:
        raise _NodeError(f"X is {np.dtype(ctx.dtype(x))}; the lite {node.op_type} computes in float32")
    x_shape = ctx.shape(x)
    if len(x_shape) != 3:
        raise _NodeError(f"X has rank {len(x_shape)}; expected 3")
    batch_major = a.get("layout", 0) == 1
    steps, batch = (x_shape[1], x_shape[0]) if batch_major else (x_shape[0], x_shape[1])
    input_size = x_shape[2]
    weights = {}
    for what in ("W", "R", "B", "P"):
        if what not in inputs or inputs[what] is None:
            continue
        value = ctx.const(inputs[what])
        if value is None:
            raise _NodeError(f"{what} must be a constant (the lite {node.op_type} packs its weights once)")
        if value.dtype != np.float32:
            raise _NodeError(f"{what} is {value.dtype}; expected float32")
        weights[what] = value
    for what in ("W", "R"):
        if what not in weights:
            raise _NodeError(f"input {what} is required")
    r_shape = weights["R"].shape
    hidden = a.get("hidden_size", r_shape[-1] if len(r_shape) == 3 else 0)
    if hidden <= 0:
        raise _NodeError(f"hidden_size {hidden} must be positive")
    gh = gates * hidden
    want = {
        "W": ([dirs, gh, input_size], f"directions, {gates} * hidden_size, input size"),
        "R": ([dirs, gh, hidden], f"directions, {gates} * hidden_size, hidden_size"),
        "B": ([dirs, 2 * gh], f"directions, {2 * gates} * hidden_size"),
        "P": ([dirs, 3 * hidden], "directions, 3 * hidden_size"),
    }
    for what, value in weights.items():
        if list(value.shape) != want[what][0]:
            raise _shape_error(what, value.shape, *want[what])
    state_shape = [batch, dirs, hidden] if batch_major else [dirs, batch, hidden]
    operands = [ctx.plain(x)] + [ctx.constant(f"{node.output[0] or x}/{w}", weights[w]) for w in ("W", "R")]
    for what in names[3:]:
        name = inputs[what]
        if name is None:
            operands.append(-1)
        elif what in weights:
            operands.append(ctx.constant(f"{name}/{node.op_type.lower()}", weights[what]))
        elif what == "sequence_lens":
            if ctx.dtype(name) not in (np.int32, np.int64) or ctx.shape(name) != [batch]:
                raise _NodeError(f"sequence_lens must be int32 of shape [{batch}]")
            operands.append(ctx.plain(name))
        else:
            if ctx.shape(name) != state_shape or ctx.dtype(name) != np.float32:
                raise _shape_error(what, ctx.shape(name), state_shape, "float32")
            operands.append(ctx.plain(name))
    while operands[-1] == -1:
        operands.pop()
    shapes = [[batch, steps, dirs, hidden] if batch_major else [steps, dirs, batch, hidden], state_shape, state_shape]
    outputs = []
    num_outputs = 3 if node.op_type == "LSTM" else 2
    for i in range(num_outputs):
        name = node.output[i] if i < len(node.output) else ""
        if name:
            outputs.append(ctx.output(name))
        else:
            outputs.append(ctx.intermediate(f"{node.output[0] or x}/unused{i}", shapes[i], np.float32))
    options = {"hidden_size": hidden, "direction": lite_direction, "batch_major": batch_major}
    if "clip" in a:
        options["clip"] = float(a["clip"])
    if node.op_type == "LSTM":
        options["input_forget"] = bool(a.get("input_forget", 0))
    elif node.op_type == "GRU":
        options["linear_before_reset"] = bool(a.get("linear_before_reset", 0))
    options.update(activation_options)
    ctx.builder.add_op(node.op_type, operands, outputs, (_OPTIONS[node.op_type], options))

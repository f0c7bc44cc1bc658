"""Control flow lowered to plain ONNX nodes before conversion: the lite
runtime has no subgraphs, so If, Loop and Scan are inlined into the main
graph here, Compress is rewritten to NonZero + Gather and Unique to
pairwise comparisons, NonZero and Gather.

- If: a condition that folds to a constant inlines the taken branch; any
  other inlines both branches (ONNX branches have no side effects) and
  picks each output with a Where on the condition, when both branches give
  it with one element type and one static shape.
- Scan (opset 8 and 9+): unrolled over its static sequence length; each
  iteration reads a Gather of the scan inputs, the scan outputs are the
  iterations' values unsqueezed and concatenated.
- Loop: unrolled when the trip count folds to a constant and the
  condition (when the loop has one) folds in every iteration; a loop whose
  iteration count depends on values known only at run time is refused.
- Compress: Gather of constant indices when the condition is a constant,
  else Gather of NonZero's (a dynamic tensor of the lite runtime).
- Unique (static input shape): the N slices (elements, or slices along
  `axis`) compared pairwise ([N, N] Equal/Less, lexicographic for slices);
  the first occurrences are the slices equal to none before them, each
  one's rank is the number of distinct slices less than it (sorted=1) or
  before it (sorted=0); the outputs are Gathers at the NonZero of
  `rank < count` (dynamic tensors), at most MAX_UNIQUE_COMPARISONS
  compared elements.
- RNN with activations that the lite RNN op lacks (it has Tanh, Relu,
  Sigmoid and HardSigmoid, the same in both directions):
  unrolled over its static sequence length (one MatMul of every step's
  input, then per step MatMul, Add, [Clip], the activation).
  sequence_lens is refused there.

Unrolling is bounded: at most MAX_ITERATIONS iterations per loop and
MAX_LOWERED_NODES nodes made in all. A body reads values of the outer
scope by name; inlined names get a prefix unique in the model. Each pass
lowers the control-flow nodes whose deciding values (a condition, a trip
count) are known, folds, and goes on with what that inlined, so nested
and chained control flow lowers in a few passes.
"""

import numpy as np
import onnx
from onnx import helper, numpy_helper

from converters.errors import ConversionError
from converters.errors import NodeError as _NodeError
from converters.onnx_import import folding, shapes
from converters.onnx_import.context import DEFAULT_DOMAINS, attrs

MAX_ITERATIONS = 1024  # per Loop or Scan (per batch element for Scan-8)
MAX_LOWERED_NODES = 1 << 16  # nodes the lowering makes in all
MAX_PASSES = 64  # nesting / chaining depth of control flow
MAX_NAME = 256  # characters of a name the lowering makes
CONTROL_FLOW_OPS = ("If", "Loop", "Scan")
REWRITTEN_OPS = CONTROL_FLOW_OPS + ("Compress", "Unique")
MAX_UNIQUE_COMPARISONS = 1 << 24  # N * N * slice size of a Unique


def _error(node, reason):
    return ConversionError(
        f"1 op cannot be converted to .twl: '{node.name or node.output[0]}' ({node.op_type}): {reason}"
    )


def _subgraphs(node):
    for a in node.attribute:
        if a.type == onnx.AttributeProto.GRAPH:
            yield a.g
        yield from a.graphs


def _defined(graph, out):
    """Adds every name `graph` (and the graphs nested in it) defines to `out`."""
    out.update(i.name for i in graph.input)
    out.update(i.name for i in graph.initializer)
    for node in graph.node:
        out.update(o for o in node.output if o)
        for g in _subgraphs(node):
            _defined(g, out)
    return out


def outer_refs(node):
    """The names the subgraphs of `node` read from outside themselves."""
    refs = set()
    for g in _subgraphs(node):
        inner = _defined(g, set())
        stack = [g]
        while stack:
            sub = stack.pop()
            for n in sub.node:
                refs.update(i for i in n.input if i and i not in inner)
                stack.extend(_subgraphs(n))
            refs.update(o.name for o in sub.output if o.name not in inner)
    return refs


def _rename_graph(graph, names):
    """Renames, in place, every use and definition in `graph` (and nested
    graphs) by `names`."""
    for vi in list(graph.input) + list(graph.output) + list(graph.value_info):
        vi.name = names.get(vi.name, vi.name)
    for init in graph.initializer:
        init.name = names.get(init.name, init.name)
    for node in graph.node:
        _rename_node(node, names)


def _rename_node(node, names):
    node.input[:] = [names.get(i, i) if i else i for i in node.input]
    node.output[:] = [names.get(o, o) if o else o for o in node.output]
    for a in node.attribute:
        if a.type == onnx.AttributeProto.GRAPH:
            _rename_graph(a.g, names)
        for g in a.graphs:
            _rename_graph(g, names)


class _Lowering:
    """One pass's output: the nodes it makes, with names fresh in the model."""

    def __init__(self, model, ctx, used, budget):
        self.model = model
        self.ctx = ctx
        self.opset = ctx.opset
        self.nodes = []
        self.used = used  # every name in the model
        self.budget = budget  # [nodes made so far]
        self.selects = []  # (If node, output, then name, else name)
        self.consts = {}  # (dtype, shape, bytes) -> name of a Constant made here
        self.inits = {}  # (id of a body, initializer name) -> its Constant, made once for all iterations

    def fresh(self, base):
        # Inlined names nest (a body's names get the node's name as a prefix, pass after pass): kept to
        # MAX_NAME characters, their middle elided, so that nesting costs linear, not exponential, time.
        if len(base) > MAX_NAME:
            base = f"{base[: MAX_NAME // 2]}...{base[-MAX_NAME // 2 :]}"
        name, k = base, 1
        while name in self.used:
            name, k = f"{base}_{k}", k + 1
        self.used.add(name)
        return name

    def emit(self, op, inputs, outputs, **kwargs):
        self.nodes.append(helper.make_node(op, inputs, outputs, **kwargs))
        return outputs[0] if outputs else None

    def constant(self, value, base):
        value = np.asarray(value)
        key = (value.dtype.str, value.shape, value.tobytes())
        if key not in self.consts:
            name = self.fresh(base)
            self.emit("Constant", [], [name], value=numpy_helper.from_array(value, name))
            self.consts[key] = name
        return self.consts[key]

    def unsqueeze(self, x, axis, base):
        out = self.fresh(base)
        if self.opset < 13:
            return self.emit("Unsqueeze", [x], [out], axes=[axis])
        return self.emit("Unsqueeze", [x, self.constant(np.array([axis], np.int64), "unsqueeze_axes")], [out])

    def charge(self, node, count):
        self.budget[0] += count
        if self.budget[0] > MAX_LOWERED_NODES:
            raise _error(
                node,
                f"unrolling it makes the lowered graph over {MAX_LOWERED_NODES} nodes (the lite runtime has no "
                "loops: Loop and Scan are unrolled)",
            )

    def inline(self, node, graph, bindings, tag):
        """Emits the nodes of subgraph `graph` with its inputs read from
        `bindings` (body input -> outer name) and its own names prefixed;
        returns the names of its outputs."""
        prefix = f"{node.name or node.output[0]}/{tag}"
        names = {}
        for name in sorted(_defined(graph, set()) - {i.name for i in graph.input}):
            names[name] = self.fresh(f"{prefix}/{name}")
        for vi in graph.input:
            names[vi.name] = bindings[vi.name]
        for init in graph.initializer:
            key = (id(graph), init.name)
            if key not in self.inits:
                value = numpy_helper.to_array(init)
                self.emit("Constant", [], [names[init.name]], value=numpy_helper.from_array(value, names[init.name]))
                self.inits[key] = names[init.name]
            names[init.name] = self.inits[key]
        self.charge(node, len(graph.node))
        for body_node in graph.node:
            copy = onnx.NodeProto()
            copy.CopyFrom(body_node)
            _rename_node(copy, names)
            if copy.name:
                copy.name = f"{prefix}/{copy.name}"
            self.nodes.append(copy)
        return [names.get(o.name, o.name) for o in graph.output]

    def identity(self, src, dst):
        self.emit("Identity", [src], [dst])


def _lower_if(lw, node, cond_value):
    a = attrs(node)
    if cond_value is not None:
        cond_value = np.asarray(cond_value)
        if cond_value.size != 1:
            raise _error(node, f"the condition has {cond_value.size} elements; it must have one")
        branch = a["then_branch"] if bool(cond_value.reshape(-1)[0]) else a["else_branch"]
        outs = lw.inline(node, branch, {}, "then" if branch is a["then_branch"] else "else")
        if len(outs) != len(node.output):
            raise _error(node, f"the branch has {len(outs)} outputs, the node {len(node.output)}")
        for src, dst in zip(outs, node.output):
            if dst:
                lw.identity(src, dst)
        return
    if lw.opset < 9:
        raise _error(node, "its condition is not a constant, and choosing between the branches needs Where (opset 9)")
    then_outs = lw.inline(node, a["then_branch"], {}, "then")
    else_outs = lw.inline(node, a["else_branch"], {}, "else")
    if not len(then_outs) == len(else_outs) == len(node.output):
        raise _error(node, f"the branches have {len(then_outs)} and {len(else_outs)} outputs")
    cond = node.input[0]
    rank = lw.ctx.specs.get(cond, (None, None))[1]
    if rank is None or len(rank) != 0:
        scalar = lw.constant(np.zeros([0], np.int64), "scalar_shape")
        cond = lw.emit("Reshape", [cond, scalar], [lw.fresh(f"{node.output[0]}/cond")])
    for t, e, dst in zip(then_outs, else_outs, node.output):
        if dst:
            lw.selects.append((node, dst, t, e))
            lw.emit("Where", [cond, t, e], [dst])


def _check_selects(model, lw):
    """Each output an If picks with Where: both branches' values of one
    element type and one static shape (Where would broadcast otherwise)."""
    if not lw.selects:
        return
    wheres = {id(n) for n in lw.nodes if n.op_type == "Where" and n.output[0] in {s[1] for s in lw.selects}}
    trial = onnx.ModelProto()
    trial.CopyFrom(model)
    del trial.graph.node[:]
    trial.graph.node.extend(n for n in lw.nodes if id(n) not in wheres)
    del trial.graph.value_info[:]
    try:
        static, signature = shapes.infer(trial, data_prop=False)
    except ConversionError as e:
        raise _error(lw.selects[0][0], f"the branches do not infer: {e}") from None
    consts = lw.ctx.consts

    def spec(name, specs):
        if name in consts:
            c = consts[name]
            return helper.np_dtype_to_tensor_dtype(c.dtype), list(c.shape)
        return specs.get(name)

    for node, dst, t, e in lw.selects:
        st, se = spec(t, static), spec(e, static)
        if st is None or se is None or any(d is None for d in st[1] + se[1]):
            raise _error(
                node,
                f"its condition is not a constant and the shape of output '{dst}' is not static in both branches; "
                "the converter computes both branches and picks one with Where",
            )
        gt, ge = spec(t, signature), spec(e, signature)
        sym_t = [d is None for d in gt[1]] if gt and len(gt[1]) == len(st[1]) else [False] * len(st[1])
        sym_e = [d is None for d in ge[1]] if ge and len(ge[1]) == len(se[1]) else [False] * len(se[1])
        if st[0] != se[0] or st[1] != se[1] or sym_t != sym_e:

            def show(sp, sym):
                dims = ["?" if s else str(d) for d, s in zip(sp[1], sym)]
                return f"{np.dtype(helper.tensor_dtype_to_np_dtype(sp[0]))}[{', '.join(dims)}]"

            raise _error(
                node,
                f"its condition is not a constant and its branches give output '{dst}' as {show(st, sym_t)} and "
                f"{show(se, sym_e)}; the converter computes both branches and picks one with Where, which needs "
                "one element type and shape",
            )


def _static_dim(lw, node, name, axis):
    ctx = lw.ctx
    spec = ctx.specs.get(name)
    if name in ctx.consts:
        dims = list(ctx.consts[name].shape)
    elif spec is None or any(d is None for d in spec[1]):
        raise _error(node, f"the shape of '{name}' is not known before running it: the sequence length must be static")
    else:
        dims = list(spec[1])
    sig = ctx.signature.get(name)
    if not -len(dims) <= axis < len(dims):
        raise _error(node, f"axis {axis} is out of range for '{name}' of rank {len(dims)}")
    if name not in ctx.consts and sig is not None and len(sig[1]) == len(dims) and sig[1][axis] is None:
        raise _error(node, f"axis {axis} of '{name}' is symbolic: the sequence length must be static")
    return dims[axis % len(dims)], len(dims)


def _check_iterations(node, count):
    if count > MAX_ITERATIONS:
        raise _error(
            node,
            f"{count} iterations, over the limit of {MAX_ITERATIONS} (the lite runtime has no loops: it is unrolled)",
        )


def _unroll_scan(lw, node, body, states, inputs, in_axes, in_dirs, out_axes, out_dirs, length, tag):
    """Emits `length` iterations of a Scan body; returns (final state
    names, scan output names)."""
    n_states = len(states)
    n_scan_out = len(body.output) - n_states
    per_step = [[] for _ in range(n_scan_out)]
    for t in range(length):
        bindings = {vi.name: s for vi, s in zip(body.input[:n_states], states)}
        for vi, x, axis, rev in zip(body.input[n_states:], inputs, in_axes, in_dirs):
            index = lw.constant(np.array(length - 1 - t if rev else t, np.int64), "scan_index")
            bindings[vi.name] = lw.emit("Gather", [x, index], [lw.fresh(f"{x}/{tag}{t}")], axis=axis)
        outs = lw.inline(node, body, bindings, f"{tag}{t}")
        states = outs[:n_states]
        for k, y in enumerate(outs[n_states:]):
            per_step[k].append(y)
    results = []
    for k, values in enumerate(per_step):
        axis = out_axes[k]
        parts = [lw.unsqueeze(v, axis, f"{v}/unsqueezed") for v in values]
        if out_dirs[k]:
            parts.reverse()
        out = lw.fresh(f"{node.output[0]}/{tag}scan{k}")
        results.append(
            lw.emit("Concat", parts, [out], axis=axis) if len(parts) > 1 else lw.emit("Identity", parts, [out])
        )
    return states, results


def _lower_scan(lw, node):
    a = attrs(node)
    body = a["body"]
    n_scan = a["num_scan_inputs"]
    opset8 = lw.opset < 9
    inputs = list(node.input[1:] if opset8 else node.input)
    n_states = len(inputs) - n_scan
    n_scan_out = len(body.output) - n_states
    if n_states < 0 or n_scan_out < 0 or len(body.input) != len(inputs):
        raise _error(node, "its body's inputs and outputs do not match its inputs")
    states, scan_inputs = inputs[:n_states], inputs[n_states:]
    if opset8:
        in_axes, out_axes = [0] * n_scan, [0] * n_scan_out
        in_dirs = list(a.get("directions", [0] * n_scan))
        out_dirs = [0] * n_scan_out
    else:
        in_axes = list(a.get("scan_input_axes", [0] * n_scan))
        in_dirs = list(a.get("scan_input_directions", [0] * n_scan))
        out_axes = list(a.get("scan_output_axes", [0] * n_scan_out))
        out_dirs = list(a.get("scan_output_directions", [0] * n_scan_out))
    if not scan_inputs:
        raise _error(node, "it has no scan inputs")
    if opset8:
        seq_lens = node.input[0] if node.input else ""
        batch, _ = _static_dim(lw, node, scan_inputs[0], 0)
        length, _ = _static_dim(lw, node, scan_inputs[0], 1)
        for x in scan_inputs:
            if _static_dim(lw, node, x, 1)[0] != length:
                raise _error(node, "its scan inputs have different sequence lengths")
        if seq_lens:
            value = lw.ctx.const(seq_lens)
            if value is None:
                raise _error(node, "sequence_lens is not a constant: the unrolled length must be static")
            if np.any(np.asarray(value) != length):
                raise _error(
                    node, f"sequence_lens {np.asarray(value).tolist()} differ from the sequence length {length}"
                )
        _check_iterations(node, batch * length)
        finals, scans = [[] for _ in states], [[] for _ in range(n_scan_out)]
        for b in range(batch):
            index = lw.constant(np.array(b, np.int64), "batch_index")
            st = [lw.emit("Gather", [s, index], [lw.fresh(f"{s}/batch{b}")], axis=0) for s in states]
            xs = [lw.emit("Gather", [x, index], [lw.fresh(f"{x}/batch{b}")], axis=0) for x in scan_inputs]
            st, ys = _unroll_scan(lw, node, body, st, xs, in_axes, in_dirs, out_axes, out_dirs, length, f"b{b}t")
            for k, v in enumerate(st):
                finals[k].append(v)
            for k, v in enumerate(ys):
                scans[k].append(v)
        for values, dst in zip(finals + scans, node.output):
            if dst:
                parts = [lw.unsqueeze(v, 0, f"{v}/batched") for v in values]
                lw.emit("Concat", parts, [dst], axis=0)
        return
    length = None
    for x, axis in zip(scan_inputs, in_axes):
        dim, _ = _static_dim(lw, node, x, axis)
        if length is not None and dim != length:
            raise _error(node, f"its scan inputs have sequence lengths {length} and {dim}")
        length = dim
    _check_iterations(node, length)
    finals, scans = _unroll_scan(lw, node, body, states, scan_inputs, in_axes, in_dirs, out_axes, out_dirs, length, "t")
    for src, dst in zip(finals + scans, node.output):
        if dst:
            lw.identity(src, dst)


class _BodyEvaluator:
    """Evaluates, iteration by iteration, the part of a Loop body that its
    condition reads: the condition's cone, and the loop-carried values
    that cone reads, with onnx's reference evaluator."""

    def __init__(self, lw, node, body):
        self.lw, self.node, self.body = lw, node, body
        self.producer = {o: n for n in body.node for o in n.output if o}
        self.inits = {i.name: numpy_helper.to_array(i) for i in body.initializer}
        carried_in = [vi.name for vi in body.input[2:]]
        carried_out = [o.name for o in body.output[1 : 1 + len(carried_in)]]
        # The carried values the condition's cone reads, and their cones.
        self.targets = [body.output[0].name]
        self.carried = {}  # carried input index -> body output name
        while True:
            cone = self._cone(self.targets)
            new = [k for k, name in enumerate(carried_in) if name in cone and k not in self.carried]
            if not new:
                break
            for k in new:
                self.carried[k] = carried_out[k]
                self.targets.append(carried_out[k])

    def _cone(self, names):
        seen, stack = set(), list(names)
        while stack:
            name = stack.pop()
            if name in seen:
                continue
            seen.add(name)
            node = self.producer.get(name)
            if node is not None:
                stack.extend(i for i in node.input if i)
                stack.extend(outer_refs(node))
        return seen

    def run(self, known):
        """{target: value or None} given `known` body-input values."""
        values = dict(self.inits)
        values.update(known)
        outer = self.lw.ctx.consts

        def get(name):
            if name in values:
                return values[name]
            if name not in self.producer:
                values[name] = outer.get(name)
                return values[name]
            node = self.producer[name]
            ins = [get(i) if i else None for i in node.input]
            results = None
            if all(v is not None for i, v in zip(node.input, ins) if i) and not list(_subgraphs(node)):
                try:
                    results = _evaluate(node, dict(zip(node.input, ins)), self.lw.model)
                except Exception:  # noqa: BLE001 - not foldable: the loop is refused
                    results = None
            for k, o in enumerate(node.output):
                if o:
                    values[o] = None if results is None else np.asarray(results[k])
            return values[name]

        return {t: get(t) for t in self.targets}


def _evaluate(node, inputs, model):
    from onnx.reference import ReferenceEvaluator

    if node.op_type == "Constant":
        return [folding._constant_value(node)]
    if node.op_type == "Identity":
        return [inputs[node.input[0]]]
    ins = [
        helper.make_tensor_value_info(i, helper.np_dtype_to_tensor_dtype(np.asarray(v).dtype), None)
        for i, v in inputs.items()
        if i
    ]
    outs = [helper.make_tensor_value_info(o, 0, None) for o in node.output if o]
    g = helper.make_graph([node], "fold", ins, outs)
    m = helper.make_model(g, opset_imports=model.opset_import)
    m.ir_version = model.ir_version
    return ReferenceEvaluator(m).run(None, {i: v for i, v in inputs.items() if i})


def _lower_loop(lw, node):
    body = attrs(node)["body"]
    trip_name = node.input[0] if node.input else ""
    cond_name = node.input[1] if len(node.input) > 1 else ""
    carried = list(node.input[2:])
    n_carried = len(carried)
    n_scan_out = len(body.output) - 1 - n_carried
    if len(body.input) != 2 + n_carried or n_scan_out < 0:
        raise _error(node, "its body's inputs and outputs do not match its inputs")
    ctx = lw.ctx

    def constant_scalar(what, name):
        value = ctx.const(name)
        if value is None:
            raise _error(
                node,
                f"its {what} '{name}' is not a constant: the number of iterations depends on values known "
                "only at run time, and the lite runtime has no loops (Loop is unrolled)",
            )
        return np.asarray(value).reshape(-1)[0]

    trip = int(constant_scalar("trip count", trip_name)) if trip_name else None
    cond = True
    evaluator = None
    if cond_name:
        cond = bool(constant_scalar("condition", cond_name))
        evaluator = _BodyEvaluator(lw, node, body)
    if trip is None and evaluator is None:
        raise _error(node, "it has neither a trip count nor a condition: it never ends")
    if trip is not None and not cond_name:
        _check_iterations(node, trip)
    carried_values = {k: ctx.const(name) for k, name in enumerate(carried)}
    count = 0
    while cond and (trip is None or count < trip):
        if count == MAX_ITERATIONS:
            raise _error(
                node,
                f"its condition holds after {MAX_ITERATIONS} iterations, the limit (the lite runtime has no loops: "
                "it is unrolled)",
            )
        if evaluator is not None:
            known = {body.input[0].name: np.array(count, np.int64), body.input[1].name: np.array(cond)}
            known.update(
                {
                    body.input[2 + k].name: carried_values[k]
                    for k in evaluator.carried
                    if carried_values.get(k) is not None
                }
            )
            results = evaluator.run(known)
            value = results[body.output[0].name]
            if value is None:
                raise _error(
                    node,
                    f"its condition '{body.output[0].name}' does not fold to a constant in iteration {count}: the "
                    "number of iterations depends on values known only at run time, and the lite runtime has no "
                    "loops (Loop is unrolled)",
                )
            cond = bool(np.asarray(value).reshape(-1)[0])
            carried_values = {k: results[out] for k, out in evaluator.carried.items()}
        count += 1
    if count == 0 and n_scan_out:
        raise _error(node, "it runs no iteration: its scan outputs would be empty, and lite tensors have elements")
    state = carried
    cond_in = cond_name or lw.constant(np.array(True), "loop_cond")
    per_step = [[] for _ in range(n_scan_out)]
    for t in range(count):
        bindings = {
            body.input[0].name: lw.constant(np.array(t, np.int64), "loop_iteration"),
            body.input[1].name: cond_in,
        }
        bindings.update({vi.name: s for vi, s in zip(body.input[2:], state)})
        outs = lw.inline(node, body, bindings, f"i{t}")
        cond_in, state = outs[0], outs[1 : 1 + n_carried]
        for k, y in enumerate(outs[1 + n_carried :]):
            per_step[k].append(y)
    for src, dst in zip(state, node.output[:n_carried]):
        if dst:
            lw.identity(src, dst)
    for values, dst in zip(per_step, node.output[n_carried:]):
        if dst:
            parts = [lw.unsqueeze(v, 0, f"{v}/unsqueezed") for v in values]
            if len(parts) > 1:
                lw.emit("Concat", parts, [dst], axis=0)
            else:
                lw.identity(parts[0], dst)


def _lower_compress(lw, node):
    data, condition = node.input[0], node.input[1]
    axis = attrs(node).get("axis")
    ctx = lw.ctx
    if axis is None:
        flat = lw.constant(np.array([-1], np.int64), "flat_shape")
        data = lw.emit("Reshape", [data, flat], [lw.fresh(f"{node.output[0]}/flat")])
    value = ctx.const(condition)
    if value is not None:
        value = np.asarray(value).reshape(-1)
        spec = (
            ctx.specs.get(node.input[0])
            if node.input[0] not in ctx.consts
            else (0, list(ctx.consts[node.input[0]].shape))
        )
        if (
            spec is not None
            and all(d is not None for d in spec[1])
            and (axis is None or -len(spec[1]) <= axis < len(spec[1]))
        ):
            dim = int(np.prod(spec[1])) if axis is None else spec[1][axis]
            if value.size > dim:
                raise _error(node, f"the condition has {value.size} elements, more than the {dim} it selects from")
        indices = np.nonzero(value)[0].astype(np.int64)
        if indices.size == 0:
            raise _error(node, "the condition selects nothing: the output would be empty")
        indices = lw.constant(indices, f"{node.output[0]}/indices")
    else:
        nz = lw.emit("NonZero", [condition], [lw.fresh(f"{node.output[0]}/nonzero")])
        zero = lw.constant(np.array(0, np.int64), "zero")
        indices = lw.emit("Gather", [nz, zero], [lw.fresh(f"{node.output[0]}/indices")], axis=0)
    lw.emit("Gather", [data, indices], [node.output[0]], axis=0 if axis is None else axis)


def _unique_input_dims(lw, node):
    """The static dims of Unique's input (refused when any is known only at
    run time)."""
    ctx, name = lw.ctx, node.input[0]
    if name in ctx.consts:
        return list(ctx.consts[name].shape)
    spec, sig = ctx.specs.get(name), ctx.signature.get(name)
    if spec is None or any(d is None for d in spec[1]) or (sig and any(d is None for d in sig[1])):
        shown = ["?" if d is None else d for d in (sig or spec)[1]] if (sig or spec) else "unknown"
        raise _NodeError(
            f"the shape of '{name}' ({shown}) is known only at run time; Unique converts for a static input shape"
        )
    return list(spec[1])


def _lower_unique(lw, node):
    a = attrs(node)
    dims = _unique_input_dims(lw, node)
    elem = lw.ctx.specs[node.input[0]][0] if node.input[0] in lw.ctx.specs else None
    axis = a.get("axis")
    if axis is not None and not -len(dims) <= axis < len(dims):
        raise _NodeError(f"axis {axis} is out of range for an input of rank {len(dims)}")
    if axis is None:
        n, size = int(np.prod(dims, dtype=np.int64)), 1
    else:
        axis %= len(dims)
        n = dims[axis]
        size = int(np.prod(dims[:axis] + dims[axis + 1 :], dtype=np.int64))
    if n == 0:
        raise _NodeError("its input is empty")
    if n * n * size > MAX_UNIQUE_COMPARISONS:
        raise _NodeError(
            f"{n} slices of {size} elements compare pairwise as {n * n * size} elements, over the limit of "
            f"{MAX_UNIQUE_COMPARISONS} (the lite runtime has no sort: Unique is lowered to comparisons)"
        )
    base = node.output[0] or node.name or "unique"
    i64 = onnx.TensorProto.INT64

    def new(tag):
        return lw.fresh(f"{base}/{tag}")

    def const(value, tag):
        return lw.constant(np.asarray(value), f"{base}/{tag}")

    def op(op_type, inputs, tag, **kw):
        return lw.emit(op_type, inputs, [new(tag)], **kw)

    def reduce_sum(x, ax, tag, keepdims=0):
        if lw.opset >= 13:
            return op("ReduceSum", [x, const(np.array(ax, np.int64), "axes")], tag, keepdims=keepdims)
        return op("ReduceSum", [x], tag, axes=ax, keepdims=keepdims)

    # rows: [n, size], one slice a row
    x = node.input[0]
    if axis is not None and axis != 0:
        perm = [axis] + [d for d in range(len(dims)) if d != axis]
        x = op("Transpose", [x], "moved", perm=perm)
    rows = op("Reshape", [x, const(np.array([n, size], np.int64), "rows_shape")], "rows")
    cmp = op("Cast", [rows], "rows_i32", to=onnx.TensorProto.INT32) if elem == onnx.TensorProto.BOOL else rows
    left, right = lw.unsqueeze(cmp, 1, f"{base}/left"), lw.unsqueeze(cmp, 0, f"{base}/right")
    # differ[i, j, p]: slice i and slice j differ at element p
    differ = op("Cast", [op("Not", [op("Equal", [left, right], "eq")], "ne")], "ne_count", to=i64)
    same = op("Equal", [reduce_sum(differ, [2], "ne_sum"), const(np.array(0, np.int64), "zero")], "same")
    less = op("Less", [left, right], "lt")
    if size > 1:  # lexicographic: less at the first element where they differ
        before = op("CumSum", [differ, const(np.array(2, np.int64), "axis2")], "ne_before", exclusive=1)
        less = op("And", [less, op("Equal", [before, const(np.array(0, np.int64), "zero")], "eq_before")], "lt_at")
        less = op(
            "Cast",
            [reduce_sum(op("Cast", [less], "lt_i64", to=i64), [2], "lt_sum")],
            "lt_any",
            to=onnx.TensorProto.BOOL,
        )
    else:
        less = (
            op("Squeeze", [less, const(np.array([2], np.int64), "axis2v")], "lt_2d")
            if lw.opset >= 13
            else op("Squeeze", [less], "lt_2d", axes=[2])
        )
    # first[j]: slice j equals no slice before it
    earlier = const(np.tril(np.ones((n, n), bool), -1), "earlier")
    dups = reduce_sum(op("Cast", [op("And", [same, earlier], "dup")], "dup_i64", to=i64), [1], "dups")
    first = op("Equal", [dups, const(np.array(0, np.int64), "zero")], "first")
    first_i = op("Cast", [first], "first_i64", to=i64)
    same_i = op("Cast", [same], "same_i64", to=i64)
    if a.get("sorted", 1):
        # rank[j]: distinct slices less than slice j (also each element's inverse index)
        lt_first = op(
            "Mul", [op("Cast", [less], "lt_i64_2d", to=i64), lw.unsqueeze(first_i, 1, f"{base}/first_col")], "lt_first"
        )
        rank = reduce_sum(lt_first, [0], "rank")
        inverse = rank
    else:
        rank = op("CumSum", [first_i, const(np.array(0, np.int64), "axis0")], "rank", exclusive=1)
        owner = op(
            "Mul", [same_i, lw.unsqueeze(op("Mul", [first_i, rank], "first_rank"), 0, f"{base}/rank_row")], "owner"
        )
        inverse = reduce_sum(owner, [1], "inverse_all")
    count = reduce_sum(first_i, [0], "count")
    positions = const(np.arange(n, dtype=np.int64), "positions")
    # at[r, j]: slice j is the distinct slice of rank r
    at = op(
        "And",
        [
            op(
                "Equal",
                [lw.unsqueeze(rank, 0, f"{base}/rank_row2"), lw.unsqueeze(positions, 1, f"{base}/r_col")],
                "is_rank",
            ),
            lw.unsqueeze(first, 0, f"{base}/first_row"),
        ],
        "at",
    )
    at_i = op("Cast", [at], "at_i64", to=i64)
    index_of_rank = reduce_sum(
        op("Mul", [at_i, lw.unsqueeze(positions, 0, f"{base}/j_row")], "at_j"), [1], "index_of_rank"
    )
    valid = op("NonZero", [op("Less", [positions, count], "valid")], "valid_nz")
    ranks = op("Gather", [valid, const(np.array(0, np.int64), "zero")], "ranks", axis=0)
    y, indices, inverse_out, counts = (list(node.output) + ["", "", ""])[:4]
    if indices or y:
        indices_v = lw.emit("Gather", [index_of_rank, ranks], [indices or new("indices")], axis=0)
    if y:
        if axis is None:
            flat = op("Reshape", [node.input[0], const(np.array([-1], np.int64), "flat_shape")], "flat")
            lw.emit("Gather", [flat, indices_v], [y], axis=0)
        else:
            lw.emit("Gather", [node.input[0], indices_v], [y], axis=axis)
    if inverse_out:
        lw.identity(inverse, inverse_out)
    if counts:
        per_rank = reduce_sum(
            op("Mul", [at_i, lw.unsqueeze(reduce_sum(same_i, [1], "same_count"), 0, f"{base}/cnt_row")], "at_cnt"),
            [1],
            "count_of_rank",
        )
        lw.emit("Gather", [per_rank, ranks], [counts], axis=0)


# ONNX's recurrent activations: (op, takes alpha, takes beta, default alpha, default beta).
_RNN_ACTIVATIONS = {
    "relu": ("Relu", False, False, None, None),
    "tanh": ("Tanh", False, False, None, None),
    "sigmoid": ("Sigmoid", False, False, None, None),
    "leakyrelu": ("LeakyRelu", True, False, 0.01, None),
    "thresholdedrelu": ("ThresholdedRelu", True, False, 1.0, None),
    "hardsigmoid": ("HardSigmoid", True, True, 0.2, 0.5),
    "elu": ("Elu", True, False, 1.0, None),
    "softsign": ("Softsign", False, False, None, None),
    "softplus": ("Softplus", False, False, None, None),
    "scaledtanh": (None, True, True, 1.0, 1.0),
    "affine": (None, True, True, 1.0, 0.0),
}


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def _unrolled_rnn(node):
    """Whether `node` is an RNN the lite RNN op cannot run (an activation
    other than Tanh, Relu, Sigmoid and HardSigmoid, or the directions'
    activations not the same), lowered here."""
    if node.op_type != "RNN":
        return False
    acts = {_text(x).lower() for x in attrs(node).get("activations", [])}
    return len(acts) > 1 or not acts <= {"tanh", "relu", "sigmoid", "hardsigmoid"}


def _rewritten(node):
    return node.domain in DEFAULT_DOMAINS and (node.op_type in REWRITTEN_OPS or _unrolled_rnn(node))


def _lower_rnn(lw, node):
    """RNN with non-default activations, unrolled: per direction one MatMul
    of every step's input (with both biases), then per step the recurrent
    MatMul, the Add, an optional Clip and the activation."""
    a = attrs(node)
    ctx = lw.ctx
    inputs = list(node.input) + [""] * 6
    x, w_name, r_name, b_name, lens, init_h = inputs[:6]
    if lens:
        raise _NodeError(
            "sequence_lens is not supported with activations other than Tanh, Relu, Sigmoid and HardSigmoid, the "
            "same in both directions (the RNN is unrolled)"
        )
    unknown = set(a) - {
        "activations",
        "activation_alpha",
        "activation_beta",
        "clip",
        "direction",
        "hidden_size",
        "layout",
    }
    if unknown:
        raise _NodeError(f"unsupported attribute {min(unknown)}")
    direction = _text(a.get("direction", "forward"))
    if direction not in ("forward", "reverse", "bidirectional"):
        raise _NodeError(f"direction {direction!r} is not forward, reverse or bidirectional")
    dirs = 2 if direction == "bidirectional" else 1
    layout = a.get("layout", 0)
    if layout not in (0, 1):
        raise _NodeError(f"layout {layout} is not 0 or 1")
    acts = [_text(v).lower() for v in a["activations"]]
    if len(acts) != dirs:
        raise _NodeError(f"{len(acts)} activations for {dirs} direction(s)")
    alphas, betas = list(a.get("activation_alpha", [])), list(a.get("activation_beta", []))
    funcs = []
    for act in acts:
        if act not in _RNN_ACTIVATIONS:
            known = ", ".join(v[0] or k for k, v in _RNN_ACTIVATIONS.items())
            raise _NodeError(f"activation {act!r} is not one of ONNX's recurrent activations ({known})")
        op, has_alpha, has_beta, alpha, beta = _RNN_ACTIVATIONS[act]
        if has_alpha and alphas:
            alpha = alphas.pop(0)
        if has_beta and betas:
            beta = betas.pop(0)
        funcs.append((act, op, alpha, beta))
    w, r = ctx.const(w_name), ctx.const(r_name)
    b = ctx.const(b_name) if b_name else None
    if w is None or r is None or (b_name and b is None):
        raise _NodeError("W, R and B must be constants")
    if w.ndim != 3 or w.shape[0] != dirs:
        raise _NodeError(f"W has shape {list(w.shape)}; expected [{dirs}, hidden_size, input_size]")
    hidden = w.shape[1]
    if r.shape != (dirs, hidden, hidden):
        raise _NodeError(f"R has shape {list(r.shape)}; expected {[dirs, hidden, hidden]}")
    if b is not None and b.shape != (dirs, 2 * hidden):
        raise _NodeError(f"B has shape {list(b.shape)}; expected {[dirs, 2 * hidden]}")
    time_axis = 1 if layout else 0
    steps, rank = _static_dim(lw, node, x, time_axis)
    if rank != 3:
        raise _NodeError(f"X has rank {rank}; expected 3")
    _check_iterations(node, steps)
    lw.charge(node, 2 + dirs * (6 * steps + 4))
    base = node.output[0] or (node.output[1] if len(node.output) > 1 else "") or node.name or "rnn"

    def new(tag):
        return lw.fresh(f"{base}/{tag}")

    def op(op_type, ins, tag, **kw):
        return lw.emit(op_type, ins, [new(tag)], **kw)

    def gather(t, index, axis, tag):
        return op("Gather", [t, lw.constant(np.array(index, np.int64), "index")], tag, axis=axis)

    def activate(f, v, tag):
        act, op_type, alpha, beta = f
        if act == "scaledtanh":
            inner = op("Mul", [v, lw.constant(np.array(beta, np.float32), "beta")], f"{tag}/scaled")
            return op(
                "Mul", [op("Tanh", [inner], f"{tag}/tanh"), lw.constant(np.array(alpha, np.float32), "alpha")], tag
            )
        if act == "affine":
            scaled = op("Mul", [v, lw.constant(np.array(alpha, np.float32), "alpha")], f"{tag}/scaled")
            return op("Add", [scaled, lw.constant(np.array(beta, np.float32), "beta")], tag)
        kw = {} if alpha is None else {"alpha": float(alpha)}
        if beta is not None:
            kw["beta"] = float(beta)
        return op(op_type, [v], tag, **kw)

    xs = op("Transpose", [x], "time_major", perm=[1, 0, 2]) if layout else x  # [T, B, I]
    clip = a.get("clip")
    finals, per_step = [], [[None] * dirs for _ in range(steps)]
    for d in range(dirs):
        wt = lw.constant(np.ascontiguousarray(w[d].T), f"{base}/w{d}")
        rt = lw.constant(np.ascontiguousarray(r[d].T), f"{base}/r{d}")
        projected = op("MatMul", [xs, wt], f"xw{d}")  # [T, B, H]
        if b is not None:
            projected = op("Add", [projected, lw.constant(b[d, :hidden] + b[d, hidden:], f"{base}/b{d}")], f"xwb{d}")
        h = gather(init_h, d, 1 if layout else 0, f"h0_{d}") if init_h else None
        reverse = direction == "reverse" or d == 1
        for t in reversed(range(steps)) if reverse else range(steps):
            pre = gather(projected, t, 0, f"x{d}_{t}")
            if h is not None:
                pre = op("Add", [pre, op("MatMul", [h, rt], f"hr{d}_{t}")], f"pre{d}_{t}")
            if clip is not None:
                bound = float(clip)
                pre = op("Clip", [pre, lw.constant(np.array(-bound, np.float32), "clip_lo"),
                                  lw.constant(np.array(bound, np.float32), "clip_hi")], f"clip{d}_{t}")  # fmt: skip
            h = activate(funcs[d], pre, f"h{d}_{t}")
            per_step[t][d] = h
        finals.append(h)
    outs = list(node.output) + ["", ""]
    y, y_h = outs[0], outs[1]
    dir_axis = 1 if layout else 0  # of a step's [D, B, H] / [B, D, H]
    if y:
        stacked = []
        for t in range(steps):
            parts = [lw.unsqueeze(h, dir_axis, f"{base}/y{t}_{d}") for d, h in enumerate(per_step[t])]
            step = lw.emit("Concat", parts, [new(f"y{t}")], axis=dir_axis) if dirs > 1 else parts[0]
            stacked.append(lw.unsqueeze(step, time_axis, f"{base}/yt{t}"))
        if steps > 1:
            lw.emit("Concat", stacked, [y], axis=time_axis)
        else:
            lw.identity(stacked[0], y)
    if y_h:
        parts = [lw.unsqueeze(h, dir_axis, f"{base}/yh{d}") for d, h in enumerate(finals)]
        if dirs > 1:
            lw.emit("Concat", parts, [y_h], axis=dir_axis)
        else:
            lw.identity(parts[0], y_h)


def _needs_lowering(model):
    return any(_rewritten(n) for n in model.graph.node)


def lower(model):
    """`model` with its If, Loop, Scan and Compress nodes lowered (a copy;
    `model` itself when it has none)."""
    if not _needs_lowering(model):
        return model
    lowered = onnx.ModelProto()
    lowered.CopyFrom(model)
    model = lowered
    used = _defined(model.graph, set())
    budget = [0]
    for _ in range(MAX_PASSES):
        if not _needs_lowering(model):
            return model
        ctx = folding.analyze(model)[0]
        lw = _Lowering(model, ctx, used, budget)
        tainted = set()  # values made by this pass's lowering: known next pass
        for node in model.graph.node:
            reads = {i for i in node.input if i} | outer_refs(node)
            if not _rewritten(node):
                lw.nodes.append(node)
                if reads & tainted:
                    tainted.update(o for o in node.output if o)
                continue
            # The values its lowering reads: made by this pass, they are known next pass.
            deciding = {node.input[0]} if node.op_type == "If" else reads
            if deciding & tainted:
                lw.nodes.append(node)
                tainted.update(o for o in node.output if o)
                continue
            try:
                if node.op_type == "If":
                    _lower_if(lw, node, ctx.const(node.input[0]))
                elif node.op_type == "Loop":
                    _lower_loop(lw, node)
                elif node.op_type == "Scan":
                    _lower_scan(lw, node)
                elif node.op_type == "Unique":
                    _lower_unique(lw, node)
                elif node.op_type == "RNN":
                    _lower_rnn(lw, node)
                else:
                    _lower_compress(lw, node)
            except _NodeError as e:
                raise _error(node, str(e)) from None
            tainted.update(o for o in node.output if o)
        _check_selects(model, lw)
        del model.graph.node[:]
        model.graph.node.extend(lw.nodes)
        del model.graph.value_info[:]
    raise ConversionError(f"control flow nested or chained over {MAX_PASSES} levels deep")

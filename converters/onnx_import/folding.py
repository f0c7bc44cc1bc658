"""Constant folding with onnx's reference evaluator, with its size checks.

Before lowering, nodes whose inputs are all constants (Constant, and Shape,
Size or EyeLike of a static tensor, ...) are evaluated, when the size of
what they would make is known beforehand and at most FOLDABLE_LIMIT
elements: a 100-byte ConstantOfShape must not allocate gigabytes before
being refused. A node left unfolded for its size is named with the reason
when no importer takes it (`describe_unfolded`). Shape inference's data
propagation materializes Range values too, so `range_values_are_bounded`
checks them before it runs.
"""

import numpy as np
import onnx
from onnx import helper, numpy_helper

from converters.errors import ConversionError
from converters.onnx_import import shapes
from converters.onnx_import.context import DEFAULT_DOMAINS, Context, attrs
from converters.onnx_import.shapes import PROBE_DIM, run_time_value_error

FOLDABLE_LIMIT = 1 << 24
# Ops whose output can be much larger than their inputs: folded only when
# the size of the result is known beforehand.
_EXPANDING_OPS = {
    "ConstantOfShape",
    "Tile",
    "Expand",
    "Range",
    "Resize",
    "Upsample",
    "Pad",
    "OneHot",
    "MatMul",
    "Gemm",
    "Einsum",
    "ConvTranspose",
    "Col2Im",
    "EyeLike",
    "RandomNormal",
    "RandomUniform",
    "RandomNormalLike",
    "RandomUniformLike",
    "Bernoulli",
    "Multinomial",
}


def _ints(value):
    return [int(v) for v in np.asarray(value).reshape(-1)]


def _range_length(start, limit, delta):
    """The number of elements of Range(start, limit, delta); None when delta is 0."""
    start, limit, delta = (float(np.asarray(v).reshape(-1)[0]) for v in (start, limit, delta))
    return max(int(np.ceil((limit - start) / delta)), 0) if delta != 0 else None


def _broadcast_size(*shapes):
    rank = max((len(sh) for sh in shapes), default=0)
    dims = [1] * rank
    for sh in shapes:
        for i, d in enumerate(sh):
            j = rank - len(sh) + i
            dims[j] = d if dims[j] == 1 else dims[j]
    return int(np.prod(dims, dtype=object))


def _fold_size(ctx, node):
    """The number of elements folding `node` would make (its largest output),
    computed from shapes and constant values without evaluating it; None
    when it cannot be told beforehand."""
    outputs = [o for o in node.output if o]
    specs = [ctx.specs.get(o) for o in outputs]
    if outputs and all(sp is not None and sp[1] and all(d is not None for d in sp[1]) for sp in specs):
        return max(int(np.prod(sp[1], dtype=object)) for sp in specs)
    consts = [ctx.consts[i] for i in node.input if i]
    op, a = node.op_type, attrs(node)
    try:
        if op == "ConstantOfShape":
            return int(np.prod(_ints(consts[0]), dtype=object))
        if op == "Tile":
            return consts[0].size * int(np.prod(_ints(consts[1]), dtype=object))
        if op == "Expand":
            return _broadcast_size(list(consts[0].shape), _ints(consts[1]))
        if op == "Range":
            return _range_length(*consts[:3])
        if op == "Pad" and len(consts) > 1:
            pads = _ints(consts[1])
            rank = consts[0].ndim
            return int(np.prod([consts[0].shape[i] + pads[i] + pads[i + rank] for i in range(rank)], dtype=object))
        if op == "OneHot":
            return consts[0].size * abs(int(np.asarray(consts[1]).reshape(-1)[0]))
    except (IndexError, ValueError, OverflowError, TypeError):
        return None
    if op in _EXPANDING_OPS or "shape" in a or "sizes" in a:
        return None
    # Elementwise and reducing ops make at most the broadcast of their inputs.
    try:
        return max([_broadcast_size(*[list(c.shape) for c in consts])] + [c.size for c in consts])
    except ValueError:
        return None


def _constant_value(node):
    """The value of a Constant node; None for the kinds not read here (and
    for a Constant without its value attribute)."""
    if not node.attribute:
        return None
    attribute = node.attribute[0]
    value = helper.get_attribute_value(attribute)
    if attribute.name == "value":
        return numpy_helper.to_array(value)
    if attribute.name in ("value_float", "value_floats"):
        return np.array(value, np.float32)
    if attribute.name in ("value_int", "value_ints"):
        return np.array(value, np.int64)
    return None


# Ops whose result depends only on their input's shape.
_SHAPE_OPS = ("Shape", "Size", "EyeLike")
# The op types with no importer that folding handles: Constant always, the
# shape ops of static shapes, ConstantOfShape and Range of constants.
FOLDED_OPS = ("Constant", "ConstantOfShape", "Range") + _SHAPE_OPS


def _is_static_shape(ctx, node):
    """Whether `node` is a Shape, Size or EyeLike of a tensor whose dims are
    all known."""
    return (
        node.op_type in _SHAPE_OPS
        and node.input[0] in ctx.specs
        and all(d is not None for d in ctx.signature.get(node.input[0], (0, [None]))[1])
    )


# Ops evaluated on run-time shape values (the arithmetic exporters write
# between a Shape and the Reshape, Expand or Resize that reads it).
_SHAPE_ARITHMETIC_OPS = {
    "Gather", "Slice", "Concat", "Unsqueeze", "Squeeze", "Cast", "Reshape", "Identity", "Add", "Sub", "Mul",
    "Div", "Mod", "Neg", "Abs", "Max", "Min", "Equal", "Less", "Greater", "Not", "And", "Or", "Where",
    "ReduceProd", "ReduceSum", "ReduceMax", "ReduceMin", "Floor", "Ceil", "Sqrt", "Flatten",
}  # fmt: skip


def _is_run_time_shape(ctx, node):
    """Whether `node` is a Shape or Size of a tensor whose static shape is
    known but some of whose dims are known only at run time."""
    name = node.input[0] if node.input else ""
    spec, sig = ctx.specs.get(name), ctx.signature.get(name)
    return (
        node.op_type in ("Shape", "Size")
        and spec is not None
        and sig is not None
        and len(spec[1]) == len(sig[1])
        and all(d is not None for d in spec[1])
    )


def _fold_run_time_shape(ctx, node, inputs):
    """Folds a shape computation that depends on run-time dims twice, at the
    static shapes and with every run-time dim PROBE_DIM; an output whose two
    values agree is a constant, the others go to `ctx.symbolic` as (static
    value, probe value, source tensors). Returns False when it is not such
    a computation (or cannot be folded)."""
    if node.op_type in ("Shape", "Size") and _is_run_time_shape(ctx, node):
        name = node.input[0]
        static = np.array(ctx.specs[name][1], np.int64)
        probe = np.array([PROBE_DIM if d is None else s for d, s in zip(ctx.signature[name][1], static)], np.int64)
        at_probe = ctx.probe_specs.get(name, (0, []))[1]
        if len(at_probe) == len(static) and all(d is not None for d in at_probe):
            probe = np.array(at_probe, np.int64)
        a = attrs(node)
        if node.op_type == "Size":
            values = [(np.array(static.prod()), np.array(probe.prod()))]
        else:
            cut = slice(a.get("start", 0), a.get("end", len(static)))
            values = [(static[cut], probe[cut])]
        sources = {name}
    elif (
        node.op_type in _SHAPE_ARITHMETIC_OPS
        and node.domain in DEFAULT_DOMAINS
        and inputs
        and any(i in ctx.symbolic for i in inputs)
        and all(i in ctx.consts or i in ctx.symbolic for i in inputs)
    ):
        static_in = {i: ctx.symbolic[i][0] if i in ctx.symbolic else ctx.consts[i] for i in inputs}
        probe_in = {i: ctx.symbolic[i][1] if i in ctx.symbolic else ctx.consts[i] for i in inputs}
        if any(v.size > FOLDABLE_LIMIT for v in static_in.values()):
            return False
        try:
            static_out = _evaluate_with(ctx, node, static_in)
        except Exception:  # noqa: BLE001 - not foldable: lowered or reported instead
            return False
        try:
            probe_out = _evaluate_with(ctx, node, probe_in)
        except Exception:  # noqa: BLE001 - the probe cannot be computed: the value depends on run-time dims
            probe_out = [None] * len(static_out)
        values = list(zip(static_out, probe_out))
        sources = set().union(*(ctx.symbolic[i][2] for i in inputs if i in ctx.symbolic))
    else:
        return False
    for name, (static, probe) in zip([o for o in node.output if o], values):
        ctx.producers[name] = node
        static = np.asarray(static)
        if probe is not None and np.asarray(probe).shape == static.shape and np.array_equal(probe, static):
            ctx.consts[name] = static
        else:
            ctx.symbolic[name] = (static, None if probe is None else np.asarray(probe), sources)
    return True


def _as_expand(ctx, node):
    """ConstantOfShape of a run-time shape (torch.ones(x.shape[0], n) with a
    dynamic batch) as the Expand of its one-element value to that shape."""
    value = attrs(node).get("value")
    value = numpy_helper.to_array(value) if value is not None else np.zeros(1, np.float32)
    rank = ctx.symbolic[node.input[0]][0].size
    name = f"{node.output[0]}/value"
    ctx.consts[name] = value.reshape([1] * rank)
    return helper.make_node("Expand", [name, node.input[0]], list(node.output), name=node.name or node.output[0])


def _evaluate_with(ctx, node, values):
    ins = [helper.make_tensor_value_info(i, helper.np_dtype_to_tensor_dtype(v.dtype), None) for i, v in values.items()]
    outs = [helper.make_tensor_value_info(o, 0, None) for o in node.output if o]
    m = helper.make_model(helper.make_graph([node], "fold", ins, outs), opset_imports=ctx.model.opset_import)
    m.ir_version = ctx.model.ir_version
    from onnx.reference import ReferenceEvaluator

    return ReferenceEvaluator(m).run(None, values)


def _dequantize(node, x, scale, zero_point=None):
    """DequantizeLinear before opset 19, which onnx's reference evaluator
    lacks (as ONNX defines it: (x - zero_point) * scale, per tensor or along
    `axis`, in the scale's type)."""
    scale = np.asarray(scale)
    zero_point = np.zeros((), np.int64) if zero_point is None else np.asarray(zero_point, np.int64)
    if scale.ndim == 1 and x.ndim > 1:
        shape = [1] * x.ndim
        shape[attrs(node).get("axis", 1)] = -1
        scale, zero_point = scale.reshape(shape), zero_point.reshape(shape if zero_point.ndim else [])
    values = (x.astype(np.int64) - zero_point).astype(np.float32) * scale.astype(np.float32)
    return values.astype(scale.dtype)


def _evaluate(ctx, node, inputs, static_shape):
    """The outputs of `node`, whose inputs are all constants (or, for a
    static Shape, whose input's shape is known); raises when it cannot."""
    from onnx.reference import ReferenceEvaluator

    if static_shape:
        shape = np.array(ctx.signature[node.input[0]][1], np.int64)
        a = attrs(node)
        if node.op_type == "Size":
            return [np.array(np.prod(shape), np.int64)]
        if node.op_type == "EyeLike":
            dtype = helper.tensor_dtype_to_np_dtype(a["dtype"]) if "dtype" in a else ctx.dtype(node.input[0])
            return [np.eye(*shape, k=a.get("k", 0), dtype=dtype)]
        return [shape[a.get("start", 0) : a.get("end", len(shape))]]
    if node.op_type == "DequantizeLinear" and ctx.opset < 19:
        return [_dequantize(node, *[ctx.consts[i] if i else None for i in node.input])]
    ins = [
        helper.make_tensor_value_info(i, helper.np_dtype_to_tensor_dtype(ctx.consts[i].dtype), None)
        for i in dict.fromkeys(inputs)
    ]
    outs = [helper.make_tensor_value_info(o, 0, None) for o in node.output if o]
    g = helper.make_graph([node], "fold", ins, outs)
    m = helper.make_model(g, opset_imports=ctx.model.opset_import)
    m.ir_version = ctx.model.ir_version
    return ReferenceEvaluator(m).run(None, {i: ctx.consts[i] for i in dict.fromkeys(inputs)})


def fold_constants(ctx, nodes=None):
    """Adds the values of the nodes (the graph's by default) that fold to
    `ctx.consts`; the nodes left to import, in order. A node whose result
    could be over FOLDABLE_LIMIT is not evaluated (its size is in
    `ctx.unfolded`)."""
    remaining = []
    for node in ctx.graph.node if nodes is None else nodes:
        if node.op_type == "Constant":
            value = _constant_value(node)
            if value is None:
                remaining.append(node)
            else:
                ctx.consts[node.output[0]] = value
            continue
        if any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS) for a in node.attribute):
            # Control flow (its body may read outer values; a Loop may run
            # any number of iterations): lowered by control_flow.py.
            remaining.append(node)
            continue
        inputs = [i for i in node.input if i]
        static_shape = _is_static_shape(ctx, node)
        if not static_shape and _fold_run_time_shape(ctx, node, inputs):
            continue
        if node.op_type == "ConstantOfShape" and inputs and inputs[0] in ctx.symbolic:
            remaining.append(_as_expand(ctx, node))
            continue
        if not static_shape and not (
            inputs and all(i in ctx.consts for i in inputs) and node.domain in DEFAULT_DOMAINS
        ):
            remaining.append(node)
            continue
        if static_shape and node.op_type == "EyeLike":
            size = int(np.prod(ctx.signature[node.input[0]][1], dtype=object))
            if size > FOLDABLE_LIMIT:
                ctx.unfolded[id(node)] = size
                remaining.append(node)
                continue
        if not static_shape:
            size = _fold_size(ctx, node)
            if size is None or size > FOLDABLE_LIMIT:
                # Checked before evaluating: left to lowering, or reported.
                ctx.unfolded[id(node)] = size
                remaining.append(node)
                continue
        try:
            results = _evaluate(ctx, node, inputs, static_shape)
        except Exception:  # noqa: BLE001 - not foldable: lowered instead
            remaining.append(node)
            continue
        if any(np.asarray(r).size > FOLDABLE_LIMIT for r in results):
            remaining.append(node)
            continue
        for name, value in zip([o for o in node.output if o], results):
            ctx.consts[name] = np.asarray(value)
    return remaining


def describe_unfolded(ctx, node):
    """The op type of a node no importer takes, with why it was not folded."""
    run_time = [i for i in node.input if i in ctx.symbolic]
    if run_time:
        return f"{node.op_type}; {run_time_value_error(ctx, run_time[0])}"
    if id(node) not in ctx.unfolded:
        if node.op_type in _SHAPE_OPS and node.input and None in (ctx.signature.get(node.input[0], (0, []))[1] or []):
            return f"{node.op_type}; the shape of '{node.input[0]}' is known only when the model runs"
        return node.op_type
    size = ctx.unfolded[id(node)]
    if size is None:
        return f"{node.op_type}; not folded: the size of its result is not known before evaluating it"
    return f"{node.op_type}; not folded: it would make {size} elements, over the limit of {FOLDABLE_LIMIT}"


def range_values_are_bounded(model):
    """Whether onnx's shape inference may propagate data: it materializes the
    values of Range nodes (a 9e8-long Range of constants is gigabytes), so
    a Range of constants over the folding limit is an error here, and one
    whose bounds are computed turns data propagation off."""
    known = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type == "Constant" and node.attribute and node.attribute[0].name == "value":
            known[node.output[0]] = numpy_helper.to_array(node.attribute[0].t)
    bounded = True
    for node in model.graph.node:
        if node.op_type != "Range" or node.domain not in DEFAULT_DOMAINS:
            continue
        if len(node.input) != 3 or not all(i in known for i in node.input):
            bounded = False
            continue
        try:
            size = _range_length(*(known[i] for i in node.input)) or 0
        except (IndexError, ValueError, OverflowError):
            continue  # the checker or the fold reports it
        if size > FOLDABLE_LIMIT:
            raise ConversionError(
                f"1 op cannot be converted to .twl: '{node.name or node.output[0]}' (Range; not folded: it would "
                f"make {size} elements, over the limit of {FOLDABLE_LIMIT})"
            )
    return bounded


def analyze(model):
    """(Context of `model` with its shapes inferred and its constants folded, the nodes left after folding;
    and the data-propagation flag the inference used): what conversion and control-flow lowering start from."""
    ctx = Context(model)
    data_prop = range_values_are_bounded(model)
    ctx.fill, ctx.specs, ctx.signature = shapes.static_fill(model, data_prop)
    if any(d is None for _, dims in ctx.signature.values() for d in dims):
        try:
            ctx.probe_specs = shapes.infer(model, data_prop=data_prop, fill=shapes.probe_dims(model, ctx.fill))[0]
        except ConversionError:
            ctx.probe_specs = {}
    nodes = fold_constants(ctx)
    # Shapes learnt from folded values can make more nodes fold (a Shape of
    # a tensor reshaped to a computed shape), and so on.
    while shapes.infer_after_folding(ctx, model, nodes, data_prop):
        nodes = fold_constants(ctx, nodes)
    return ctx, nodes, data_prop

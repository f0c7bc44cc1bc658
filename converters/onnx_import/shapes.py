"""Shapes and element types of an ONNX model's tensors.

Shapes come from onnx shape inference run twice: on the model as it is
(its symbolic dims stay unknown: the shape signature, -1 where a run-time
dim such as the batch or the sequence length is) and with every symbolic
input dim set to its static size (1, or `static_fill`'s where 1 is
inconsistent: the static shapes the .twl tensors get); and once more at
the probe dims (`probe_dims`, a distinct prime per dim) to tell the values
computed from each run-time dim. A constant's shape and type are its own.
"""

import onnx
from onnx import helper, numpy_helper, shape_inference

from converters.errors import ConversionError
from converters.errors import NodeError as _NodeError
from converters.lowering import SPATIAL_FILL  # (run-time dims on axis 2 on, under WINDOW_OPS)


def _collect(model):
    """{name: (elem type, dims with None where unknown)} of the graph's
    inputs, outputs and value infos."""
    out = {}
    g = model.graph
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        t = vi.type.tensor_type
        if not vi.type.HasField("tensor_type") or not t.HasField("shape"):
            continue
        dims = [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]
        out[vi.name] = (t.elem_type, dims)
    return out


def infer(model, data_prop, fill=1):
    """(static specs, signature specs) of every tensor shape inference
    reaches; `data_prop` lets it propagate constant values (Shape, Range).
    The static shapes are those with every symbolic input dim `fill`: a
    number, or {dim key (`dim_key`): number} (`probe_dims`)."""
    try:
        inferred = shape_inference.infer_shapes(model, data_prop=data_prop)
        static = onnx.ModelProto()
        static.CopyFrom(model)
        for vi in static.graph.input:
            for axis, d in enumerate(vi.type.tensor_type.shape.dim):
                if not d.HasField("dim_value"):
                    d.dim_value = fill.get(dim_key(vi.name, axis, d), 1) if isinstance(fill, dict) else fill
        static_inferred = shape_inference.infer_shapes(static, data_prop=data_prop)
    except (onnx.shape_inference.InferenceError, onnx.checker.ValidationError) as e:
        raise ConversionError(f"ONNX shape inference failed: {e}") from None
    except (ValueError, RuntimeError) as e:
        # onnx's C++ inference lets bare C++ exceptions out ('vector::reserve' for a Loop without a body);
        # the checker names what is malformed in such a model.
        try:
            onnx.checker.check_model(model)
        except onnx.checker.ValidationError as invalid:
            raise ConversionError(f"the ONNX model is malformed: {invalid}") from None
        raise ConversionError(f"ONNX shape inference failed: {e}") from None
    return _collect(static_inferred), _collect(inferred)


# The value a run-time dim (a symbolic one, such as a dynamic batch) takes
# in the second evaluation of a shape computation (folding) and in shape
# inference after folding: the values and dims that differ from those at
# the static shapes (where it is 1) depend on it.
PROBE_DIM = 3
PROBE_SPATIAL_SCALE = 32


def dim_key(name, axis, dim):
    """The key of a graph input's symbolic dim: its dim_param (one run-time
    size wherever the name recurs), else the input and axis."""
    return dim.dim_param if dim.dim_param else (name, axis)


def _symbolic_dims(model):
    """[(dim key, axis)] of the model inputs' symbolic dims, each key once."""
    keys = {}
    for vi in model.graph.input:
        for axis, d in enumerate(vi.type.tensor_type.shape.dim):
            if not d.HasField("dim_value"):
                keys.setdefault(dim_key(vi.name, axis, d), axis)
    return list(keys.items())


def probe_dims(model, fill=None):
    """{dim key: probe size} of the model inputs' symbolic dims: each its
    static size (`fill`, default 1) times a distinct prime from PROBE_DIM, so
    that each run-time dim is told apart in the probe evaluation (a value
    such as s - b, or b * s, moves with both)."""
    primes = [p for p in range(PROBE_DIM, 200) if all(p % q for q in range(2, p))]
    fill = fill or {}

    def probe(n, key, axis):
        size = fill.get(key, 1)
        # Spatial dims (axis 2 on) probe at their static size (32 for a 1) times
        # the prime, plus 1: after a CNN's strided convs and pools a probe of 3 or 5 is 1
        # again, as at the static size, and a run-time H or W would pass for a
        # 1; odd, so that a size that is the input's only at even sizes
        # (ceil(H / 2) * 2, F.interpolate(size=x.shape[-2:]) of a strided
        # feature map) is not taken for a constant multiple.
        if axis >= 2:
            return (PROBE_SPATIAL_SCALE if size == 1 else size) * primes[n % len(primes)] + 1
        return size * primes[n % len(primes)]

    return {key: probe(n, key, axis) for n, (key, axis) in enumerate(_symbolic_dims(model))}


# Static sizes tried for the symbolic dims other than a leading (batch) one
# when shape inference with all of them 1 leaves tensors without a static
# shape (a fully convolutional net downsampled and upsampled back is
# consistent at even sizes only).
STATIC_FILLS = (8, 16, 32, 64)
WINDOW_OPS = ("Conv", "ConvTranspose", "MaxPool", "AveragePool", "LpPool")


def static_fill(model, data_prop):
    """(fill for `infer`: {dim key: static size}, its static specs and
    signatures): 1 for every symbolic dim where that gives every node output
    a static shape with no empty dim, else the first of STATIC_FILLS (for the dims not on axis
    0) that does (or leaves the fewest without)."""
    outputs = [o for n in model.graph.node for o in n.output if o]

    def unknown(specs):
        # A dim of 0 or less is a window larger than its input at that fill.
        return sum(1 for o in outputs if o in specs and any(d is None or d <= 0 for d in specs[o][1]))

    dims = _symbolic_dims(model)
    if any(axis >= 2 for _, axis in dims) and any(n.op_type in WINDOW_OPS for n in model.graph.node):
        # A run-time H/W (or length) under convolutions and pools: 1 passes
        # onnx's inference but is smaller than their windows; 32 is not.
        fill = {key: SPATIAL_FILL if axis >= 2 else 1 for key, axis in dims}
        try:
            trial = (fill, *infer(model, data_prop, fill=fill))
            if not unknown(trial[1]):
                return trial
        except ConversionError:
            pass
    best = ({key: 1 for key, _ in dims}, *infer(model, data_prop))
    if not unknown(best[1]) or all(axis == 0 for _, axis in dims):
        return best
    for size in STATIC_FILLS:
        fill = {key: 1 if axis == 0 else size for key, axis in dims}
        try:
            trial = (fill, *infer(model, data_prop, fill=fill))
        except ConversionError:
            continue
        if unknown(trial[1]) < unknown(best[1]):
            best = trial
        if not unknown(best[1]):
            break
    return best


# Folded values of at most this many elements are given to `infer_after_folding`
# by value; larger constants by type and shape.
REINFER_VALUE_LIMIT = 1 << 12


def infer_after_folding(shapes, model, nodes, data_prop, refine=False):
    """Runs `infer` again on the `nodes` left after constant folding, with
    the folded values they read as initializers, when an output of them
    has no static shape yet: shapes that hang on computed values (a
    Reshape to Concat(Shape(x), ...), a ReduceMean over Range axes) are
    known once those values are. Fills what `shapes` lacks; returns
    whether it learnt any shape. `refine`: runs even when every static
    shape is known, for the signatures (a dim that inference without the
    run-time shape values left symbolic is static when it does not move
    with the probe dims)."""

    def known(name):
        spec = shapes.specs.get(name)
        return name in shapes.consts or (spec is not None and all(d is not None for d in spec[1]))

    if not refine and all(known(o) for n in nodes for o in n.output if o):
        return False
    folded = onnx.ModelProto()
    folded.CopyFrom(model)
    del folded.graph.node[:]
    folded.graph.node.extend(nodes)
    del folded.graph.value_info[:]
    present = {i.name for i in folded.graph.initializer}
    read = dict.fromkeys(i for n in nodes for i in n.input if i in shapes.consts and i not in present)

    # Shape-like values by value; large ones (weights) by type and shape only.
    small = [i for i in read if shapes.consts[i].size <= REINFER_VALUE_LIMIT]
    folded.graph.initializer.extend(numpy_helper.from_array(shapes.consts[i], i) for i in small)
    folded.graph.input.extend(
        helper.make_tensor_value_info(
            i, helper.np_dtype_to_tensor_dtype(shapes.consts[i].dtype), shapes.consts[i].shape
        )
        for i in read
        if shapes.consts[i].size > REINFER_VALUE_LIMIT
    )
    # Run-time shape values (`symbolic`) by value: at the static shapes, and
    # at the probe dims, where the dims that differ are the run-time ones.
    run_time = list(dict.fromkeys(i for n in nodes for i in n.input if i in shapes.symbolic))
    probed = onnx.ModelProto()
    probed.CopyFrom(folded)
    folded.graph.initializer.extend(numpy_helper.from_array(shapes.symbolic[i][0], i) for i in run_time)
    probed.graph.initializer.extend(
        numpy_helper.from_array(shapes.symbolic[i][1], i) for i in run_time if shapes.symbolic[i][1] is not None
    )
    probed.graph.input.extend(
        helper.make_tensor_value_info(i, helper.np_dtype_to_tensor_dtype(shapes.symbolic[i][0].dtype), None)
        for i in run_time
        if shapes.symbolic[i][1] is None
    )
    try:
        static, signature = infer(folded, data_prop, fill=shapes.fill)
        if run_time:
            probe = infer(probed, data_prop, fill=probe_dims(model, shapes.fill))[0]
            signature = {
                name: (elem, [d if probe.get(name, (0, []))[1][i : i + 1] == [d] else None for i, d in enumerate(dims)])
                for name, (elem, dims) in static.items()
            }
    except ConversionError:  # what it cannot infer stays unknown
        return False
    learnt = [name for name, spec in static.items() if not known(name) and all(d is not None for d in spec[1])]
    for name in learnt:
        shapes.specs[name] = static[name]
        if name in signature:
            shapes.signature[name] = signature[name]
    if refine and run_time:
        for name, (elem, dims) in signature.items():
            old = shapes.signature.get(name)
            sharper = old and len(old[1]) == len(dims) and dims.count(None) < old[1].count(None)
            if name in shapes.specs and sharper and all(o is None or o == d for o, d in zip(old[1], dims)):
                shapes.signature[name] = (elem, dims)
    return bool(learnt)


class TensorShapes:
    """The shape, rank, element type and shape signature of a tensor by its
    ONNX name: the constants' in `consts`, the others' from `infer`."""

    def __init__(self, consts):
        self.consts = consts  # onnx name -> numpy value
        self.specs, self.signature = {}, {}  # onnx name -> (elem type, dims): static, symbolic
        # Shape values that depend on run-time dims (folding.PROBE_DIM):
        # onnx name -> (value at the static shapes, value at the probe dims
        # or None, names of the tensors whose shapes they read).
        self.symbolic = {}
        # The static size of each symbolic input dim (`static_fill`): {dim key: size}.
        self.fill = {}
        # Static shapes at the probe dims (`probe_dims`), where inference reaches.
        self.probe_specs = {}
        # onnx name of a run-time value -> the node computing it (replayed as lite ops where it is read).
        self.producers = {}

    def shape(self, name):
        if name in self.consts:
            return list(self.consts[name].shape)
        if name in self.symbolic:
            return list(self.symbolic[name][0].shape)
        spec = self.specs.get(name)
        if spec is None or any(d is None for d in spec[1]):
            raise _NodeError(f"'{name}' has no static shape")
        return list(spec[1])

    def dtype(self, name):
        if name in self.consts:
            return self.consts[name].dtype
        if name in self.symbolic:
            return self.symbolic[name][0].dtype
        spec = self.specs.get(name)
        if spec is None:
            raise _NodeError(f"'{name}' has no known type")
        return helper.tensor_dtype_to_np_dtype(spec[0])

    def rank(self, name):
        return len(self.shape(name))

    def signature_of(self, name, shape):
        """`shape` with -1 where tensor `name`'s dim is symbolic, or None."""
        spec = self.signature.get(name)
        if spec is None or len(spec[1]) != len(shape):
            return None
        return [-1 if d is None else s for d, s in zip(spec[1], shape)]

    def batch_signature(self, like, shape):
        """The signature of a tensor of `shape` whose first dim is the batch
        when tensor `like`'s is symbolic, or None."""
        spec = self.signature.get(like)
        if spec and spec[1] and spec[1][0] is None and shape:
            return [-1] + list(shape[1:])
        return None


# ONNX ops whose output shapes hang on input values: their lite outputs are
# dynamic tensors, sized by the kernel in eval.
DATA_DEPENDENT_OPS = ("NonZero", "NonMaxSuppression")


def mark_data_dependent(shapes, nodes):
    """Gives each tensor computed (directly or downstream) from a
    DATA_DEPENDENT_OPS node 1 for every dim shape inference leaves unknown,
    and -1 there in its signature: the lite runtime learns those dims when
    it runs. Returns the names of those tensors."""
    dynamic = set()
    for node in nodes:
        if node.op_type not in DATA_DEPENDENT_OPS and not any(i in dynamic for i in node.input if i):
            continue
        for name in node.output:
            if not name or name not in shapes.specs:
                continue
            dynamic.add(name)
            elem, dims = shapes.specs[name]
            if all(d is not None for d in dims):
                continue
            shapes.specs[name] = (elem, [1 if d is None else d for d in dims])
            sig = shapes.signature.get(name)
            sig_dims = list(sig[1]) if sig and len(sig[1]) == len(dims) else list(dims)
            shapes.signature[name] = (elem, [None if d is None else s for d, s in zip(dims, sig_dims)])
    return dynamic


def run_time_value_error(ctx, name):
    """Why tensor `name`, a value computed from the shape of a tensor with
    run-time dims, cannot be read as a constant."""
    sources = ", ".join(f"'{s}' {ctx.signature_of(s, ctx.shape(s))}" for s in sorted(ctx.symbolic[name][2]))
    return (
        f"'{name}' is computed from the shape of {sources}, whose -1 dims are known only when the model runs, "
        f"and is used here as a value; convert a model exported with static shapes (no dynamic axes)"
    )

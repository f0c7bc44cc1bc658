"""The ONNX model at the boundary: loading and validating it before any of
it is evaluated (the opset range, declared input dims, op domains), and the
driver that converts a valid model to .twl bytes.
"""

import json

import numpy as np
import onnx
from onnx import helper

from converters.errors import ConversionError, convert_nodes, unsupported_ops_error
from converters.errors import NodeError as _NodeError
from converters.onnx_import import contrib_ops, control_flow, float16, folding, fusion, shapes
from converters.onnx_import.context import DEFAULT_DOMAINS, IMPORTERS, _initializer_array, is_lite_type
from converters.twl_writer import checked_shape

PRODUCER = "tensorweave-convert 0.1.0 (onnx)"
# Default-domain (ai.onnx) opsets the importer reads. Below 7, Add/Mul/...
# broadcast only with an attribute; above what the installed onnx defines,
# its shape inference and reference evaluator (both used here) do not know
# the ops' semantics.
MIN_OPSET = 7
MAX_OPSET = onnx.defs.onnx_opset_version()


def load(path_or_bytes):
    """An onnx.ModelProto from a path or bytes, with a ConversionError when it
    is not a valid model."""
    try:
        if isinstance(path_or_bytes, (bytes, bytearray)):
            model = onnx.load_from_string(bytes(path_or_bytes))
        else:
            model = onnx.load(path_or_bytes)
        onnx.checker.check_model(model)
    except FileNotFoundError:
        raise ConversionError(f"no such ONNX file: {path_or_bytes}") from None
    except Exception as e:  # noqa: BLE001 - protobuf decode errors, checker errors
        raise ConversionError(f"not a valid ONNX model: {e}") from None
    return model


def _default_opset(model):
    opsets = [o.version for o in model.opset_import if o.domain in DEFAULT_DOMAINS]
    return opsets[0] if opsets else 1


def _check_opset(model):
    opset = _default_opset(model)
    if not MIN_OPSET <= opset <= MAX_OPSET:
        raise ConversionError(
            f"the model declares ONNX opset {opset} (default domain); this converter supports opsets "
            f"{MIN_OPSET}..{MAX_OPSET}"
        )


def _check_input_dims(model):
    """Graph inputs' declared dims must fit a .twl tensor (int32 dims, at
    most 2 GiB), checked before shape inference sees them."""
    initializers = {i.name for i in model.graph.initializer}
    for vi in model.graph.input:
        if vi.name in initializers or not vi.type.HasField("tensor_type"):
            continue
        t = vi.type.tensor_type
        if not t.HasField("shape"):
            continue
        dims = [d.dim_value if d.HasField("dim_value") else 1 for d in t.shape.dim]
        try:
            dtype = helper.tensor_dtype_to_np_dtype(t.elem_type)
        except KeyError:
            dtype = None
        checked_shape(vi.name, dims, dtype, what="input")
        if any(d.HasField("dim_value") and d.dim_value == 0 for d in t.shape.dim):
            raise ConversionError(f"input '{vi.name}': dimension of size 0 in shape {dims}")


# The subgraph attributes If, Loop and Scan must have.
_SUBGRAPH_ATTRS = {"If": ("then_branch", "else_branch"), "Loop": ("body",), "Scan": ("body",)}


def _check_attribute_types(node, label, what, opset):
    """Each attribute the op's schema (at the model's opset) defines has the schema's type (an axis is an INT,
    a perm INTS), as onnx.checker would check: a rule reads it as that type."""
    try:
        schema = onnx.defs.get_schema(node.op_type, opset, "")
    except onnx.defs.SchemaError:
        return  # an op ONNX does not define: the unsupported-op check names it
    for a in node.attribute:
        spec = schema.attributes.get(a.name)
        if spec is not None and a.type != int(spec.type):
            got = onnx.AttributeProto.AttributeType.Name(a.type)
            raise ConversionError(
                f"{what}: node {label}: attribute {a.name!r} is {got}; {node.op_type} takes {spec.type.name}"
            )


def _check_graph(graph, what="the model", opset=MAX_OPSET):
    """Checked before anything reads `graph` (onnx.checker's rules a ModelProto given directly skipped):
    each tensor is made once, by one node (not also a graph input or initializer), If, Loop and Scan nodes
    have their subgraphs, and external data is what onnx reads; the same for every subgraph."""
    made = {i.name for i in graph.input} | {i.name for i in graph.initializer}
    for node in graph.node:
        label = f"'{node.name or (node.output[0] if node.output else node.op_type)}' ({node.op_type})"
        for out in node.output:
            if out and out in made:
                raise ConversionError(f"{what}: node {label} writes '{out}', which is already defined")
            made.add(out)
        if node.domain in DEFAULT_DOMAINS:
            _check_attribute_types(node, label, what, opset)
            present = {a.name for a in node.attribute if a.type == onnx.AttributeProto.GRAPH}
            missing = [name for name in _SUBGRAPH_ATTRS.get(node.op_type, ()) if name not in present]
            if missing:
                raise ConversionError(f"{what}: node {label} lacks its subgraph attribute {missing[0]!r}")
        for a in node.attribute:
            for g in [a.g] if a.type == onnx.AttributeProto.GRAPH else a.graphs:
                _check_graph(g, f"{what}, subgraph {a.name!r} of {label}", opset)
    for t in graph.initializer:  # external data onnx refuses (outside the model's directory, missing, short)
        if t.data_location == onnx.TensorProto.EXTERNAL:
            _initializer_array(t)


def _check_domains(model):
    """Every node is of the default domain: the importers know no other."""
    others = [
        (n.name or n.output[0], f"{n.domain}.{n.op_type}") for n in model.graph.node if n.domain not in DEFAULT_DOMAINS
    ]
    if others:
        raise unsupported_ops_error(others, ".twl")


def _add_inputs(ctx, model, half_inputs=()):
    """The model's inputs (less initializers) as the .twl inputs, in ONNX's
    layout with their shape signatures; those in `half_inputs` (float16
    inputs of a model widened to float32) as float16, CAST to float32."""
    initializers = set(ctx.consts)
    for vi in model.graph.input:
        if vi.name in initializers:
            continue
        if not vi.type.HasField("tensor_type"):
            raise ConversionError(f"input '{vi.name}' is not a tensor")
        dtype = helper.tensor_dtype_to_np_dtype(vi.type.tensor_type.elem_type)
        try:
            shape = ctx.shape(vi.name)
        except _NodeError as e:
            raise ConversionError(str(e)) from None
        if not is_lite_type(dtype):
            raise ConversionError(f"input '{vi.name}' is {np.dtype(dtype)}; the lite runtime lacks that type")
        signature = ctx.signature_of(vi.name, shape)
        if vi.name in half_inputs:
            half = ctx.builder.add_input(vi.name, shape, np.float16, signature)
            index = ctx.builder.add_tensor(f"{vi.name}/float32", shape, dtype, signature)
            ctx.builder.add_op("CAST", [half], [index])
        else:
            index = ctx.builder.add_input(vi.name, shape, dtype, signature)
        ctx.tensors[vi.name] = (index, False)


def _add_outputs(ctx, model, half_outputs=()):
    """The model's outputs as the .twl outputs, in ONNX's layout. An output
    that is another output's tensor (an Identity of it, as the dynamo
    exporter writes for a value returned twice) is a copy of it (CAST to
    its own type), so that each output has its own tensor and name. One in
    `half_outputs` (a float16 output of a model widened to float32) is a
    CAST of it to float16."""
    for out in model.graph.output:
        try:
            index = ctx.plain(out.name)
        except _NodeError as e:
            raise ConversionError(f"output '{out.name}': {e}") from None
        if index in ctx.builder.outputs or out.name in half_outputs:
            src = ctx.builder.tensor(index)
            if out.name in half_outputs and index not in ctx.builder.outputs:
                ctx.builder.rename(index, f"{out.name}/float32")
            dtype = np.float16 if out.name in half_outputs else src.dtype
            copy = ctx.builder.add_tensor(out.name, src.shape, dtype, src.signature)
            ctx.builder.add_op("CAST", [index], [copy])
            index = copy
        ctx.builder.rename(index, out.name)
        ctx.builder.add_output(out.name, index)


def convert(model, checksum=True):
    """.twl bytes of an ONNX model (a ModelProto, bytes or a path), ending in
    the integrity trailer unless `checksum` is False."""
    if not isinstance(model, onnx.ModelProto):
        model = load(model)
    _check_opset(model)
    if not model.graph.output:
        raise ConversionError("the model has no outputs")
    _check_graph(model.graph, opset=_default_opset(model))
    _check_input_dims(model)
    model = contrib_ops.rewrite(model)
    _check_domains(model)
    model = control_flow.lower(model)
    _check_domains(model)  # what the subgraphs held
    model, half_inputs, half_outputs = float16.widen(model)
    ctx, nodes, data_prop = folding.analyze(model)
    if ctx.symbolic:  # signatures that hang on run-time shape values
        shapes.infer_after_folding(ctx, model, nodes, data_prop, refine=True)
    nodes = fusion.fuse_patterns(ctx, nodes)
    ctx.data_dependent = shapes.mark_data_dependent(ctx, nodes)
    ctx.consumers = {}
    for node in nodes:
        for name in node.input:
            if name:
                ctx.consumers.setdefault(name, []).append(node)
    unsupported = [
        (n.name or n.output[0], folding.describe_unfolded(ctx, n)) for n in nodes if n.op_type not in IMPORTERS
    ]
    if unsupported:
        raise unsupported_ops_error(unsupported, ".twl")
    _add_inputs(ctx, model, half_inputs)
    # A node can be absorbed (folded) by one converted before it.
    convert_nodes(
        nodes,
        lambda node: None if id(node) in ctx.absorbed else IMPORTERS[node.op_type](ctx, node),
        lambda node: f"'{node.name or node.output[0]}' ({node.op_type})",
        ".twl",
        malformed=(IndexError, KeyError, TypeError, ValueError, ZeroDivisionError),
    )
    _add_outputs(ctx, model, half_outputs)
    ctx.builder.metadata["producer"] = PRODUCER
    ctx.builder.metadata["conversion_options"] = json.dumps(
        {"source": "onnx", "opset": ctx.opset, "producer_name": model.producer_name}, sort_keys=True
    )
    return ctx.builder.serialize(checksum=checksum)

"""Meta graphs (TensorFlow v1's `export_meta_graph` / `import_meta_graph`): a GraphDef with the saver that
checkpoints its variables and its collections, so that a program can rebuild the graph in a fresh process,
restore a checkpoint and go on (training, evaluating, serving).

The proto is core/framework/meta_graph.proto (TensorFlow's field names). Collections are written as TF1 writes
them: variables (in the variable collections and GLOBAL_STEP) as VariableDef protos, savers (SAVERS) as SaverDef
protos, the outermost control-flow contexts (WHILE_CONTEXT, COND_CONTEXT) as WhileContextDef / CondContextDef
protos (core/framework/control_flow.proto; nested contexts inside them), operations and tensors as node names,
strings as bytes, ints and floats as numbers; other Python objects are left out with a warning.
"""

import logging
import os

from tensorweave._src.framework import ops, tensor_shape
from tensorweave._src.ops import control_flow_ops, variables

GraphKeys = ops.GraphKeys
_logger = logging.getLogger("tensorweave")

META_GRAPH_VERSION = "tensorweave-1"


def _message_field(message_class, field):
    """Whether `field` of `message_class` is a message (meta_graph.proto now; `bytes` in a module generated from
    the earlier proto, which the helpers below still read and write)."""
    return message_class.DESCRIPTOR.fields_by_name[field].message_type is not None


def graph_def_of(meta_graph_def):
    """The GraphDef of a MetaGraphDef (a copy where the generated module holds it as bytes)."""
    from tensorweave._src.framework import graph_pb2

    if _message_field(type(meta_graph_def), "graph_def"):
        return meta_graph_def.graph_def
    return graph_pb2.GraphDef.FromString(meta_graph_def.graph_def)


def set_graph_def(meta_graph_def, graph_def):
    """Puts `graph_def` (a GraphDef or its serialized bytes) into `meta_graph_def`."""
    from tensorweave._src.framework import graph_pb2

    if _message_field(type(meta_graph_def), "graph_def"):
        if not hasattr(graph_def, "SerializeToString"):
            graph_def = graph_pb2.GraphDef.FromString(graph_def)
        meta_graph_def.graph_def.CopyFrom(graph_def)
    else:
        meta_graph_def.graph_def = (
            graph_def.SerializeToString() if hasattr(graph_def, "SerializeToString") else graph_def
        )


# The collections whose items are Variables, written as VariableDef (TF1's registered proto functions).
VARIABLE_COLLECTIONS = (
    GraphKeys.GLOBAL_VARIABLES,
    GraphKeys.TRAINABLE_VARIABLES,
    GraphKeys.LOCAL_VARIABLES,
    GraphKeys.MODEL_VARIABLES,
    GraphKeys.MOVING_AVERAGE_VARIABLES,
    GraphKeys.GLOBAL_STEP,
    "metric_variables",
)
# The collections of control-flow contexts, written as their protos (TF1's registered proto functions).
CONTEXT_COLLECTIONS = (GraphKeys.WHILE_CONTEXT, GraphKeys.COND_CONTEXT)


def _pb2():
    from tensorweave._src.framework import meta_graph_pb2

    return meta_graph_pb2


def variable_to_proto(var):
    """The VariableDef of a Variable: the names of its state op, initializer, snapshot and initial value."""
    vdef = _pb2().VariableDef()
    vdef.variable_name = var._variable.name
    vdef.initializer_name = var._initializer_op.name
    vdef.snapshot_name = var._snapshot.name
    vdef.initial_value_name = var._initial_value.name
    vdef.trainable = bool(var.trainable)
    return vdef


def variable_from_proto(vdef, graph, import_scope=None):
    """A Variable bound to the ops a VariableDef names in `graph` (prefixed with `import_scope`)."""
    prefix = f"{import_scope}/" if import_scope else ""
    var = variables.Variable.__new__(variables.Variable)
    var._variable = graph.as_graph_element(prefix + vdef.variable_name)
    var._initializer_op = graph.as_graph_element(prefix + vdef.initializer_name)
    var._snapshot = graph.as_graph_element(prefix + vdef.snapshot_name)
    var._initial_value = (
        graph.as_graph_element(prefix + vdef.initial_value_name) if vdef.initial_value_name else var._snapshot
    )
    var._guarded_initial_value = var._initial_value
    var._trainable = vdef.trainable
    var._constraint = None
    return var


# --- collections ---------------------------------------------------------------------------------------------


def _add_collection_def(meta_graph_def, key, graph):
    items = graph.get_collection(key)
    if not items:
        return
    collection_def = meta_graph_def.collection_def[key]
    try:
        if key == GraphKeys.SAVERS and all(hasattr(x, "as_saver_def") for x in items):
            collection_def.bytes_list.value.extend(x.as_saver_def().SerializeToString() for x in items)
        elif key in VARIABLE_COLLECTIONS and all(isinstance(x, variables.Variable) for x in items):
            collection_def.bytes_list.value.extend(variable_to_proto(x).SerializeToString() for x in items)
        elif key in CONTEXT_COLLECTIONS and all(isinstance(x, control_flow_ops.ControlFlowContext) for x in items):
            collection_def.bytes_list.value.extend(x.to_proto().SerializeToString() for x in items)
        elif all(isinstance(x, (ops.Tensor, ops.Operation, variables.Variable)) for x in items):
            collection_def.node_list.value.extend(x.name for x in items)
        elif all(isinstance(x, (str, bytes)) for x in items):
            collection_def.bytes_list.value.extend(x.encode() if isinstance(x, str) else x for x in items)
        elif all(isinstance(x, bool) for x in items) or not all(isinstance(x, (int, float)) for x in items):
            raise TypeError(f"items of types {sorted({type(x).__name__ for x in items})}")
        elif all(isinstance(x, int) for x in items):
            collection_def.int64_list.value.extend(items)
        else:
            collection_def.float_list.value.extend(float(x) for x in items)
    except (TypeError, ValueError) as e:
        del meta_graph_def.collection_def[key]
        _logger.warning("Issue encountered when serializing %s: %s. The collection is not exported.", key, e)


def _import_collections(meta_graph_def, graph, import_scope):
    prefix = f"{import_scope}/" if import_scope else ""
    variable_objects = {}
    for key in sorted(meta_graph_def.collection_def):
        collection_def = meta_graph_def.collection_def[key]
        kind = collection_def.WhichOneof("kind")
        if kind is None:
            continue
        values = getattr(collection_def, kind).value
        if kind == "bytes_list" and key in VARIABLE_COLLECTIONS:
            for data in values:
                var = variable_objects.get(data)
                if var is None:
                    vdef = _pb2().VariableDef.FromString(data)
                    var = variable_objects[data] = variable_from_proto(vdef, graph, import_scope)
                graph.add_to_collection(key, var)
        elif kind == "bytes_list" and key == GraphKeys.SAVERS:
            from tensorweave._src.training import saver as saver_lib

            for data in values:
                saver_def = _pb2().SaverDef.FromString(data)
                if not saver_def.restore_op_name:
                    continue  # a saver with nothing to save
                if import_scope:
                    for field in ("filename_tensor_name", "save_tensor_name", "restore_op_name"):
                        setattr(saver_def, field, f"{import_scope}/{getattr(saver_def, field)}")
                with graph.as_default():
                    graph.add_to_collection(key, saver_lib.Saver(saver_def=saver_def))
        elif kind == "bytes_list" and key in CONTEXT_COLLECTIONS:
            for data in values:
                graph.add_to_collection(key, _context_from_bytes(key, data, graph, import_scope))
        elif kind == "node_list":
            for name in values:
                graph.add_to_collection(key, graph.as_graph_element(prefix + name))
        elif kind == "bytes_list":
            for data in values:
                graph.add_to_collection(key, data)
        else:
            for value in values:
                graph.add_to_collection(key, value)


def _context_from_bytes(key, data, graph, import_scope):
    """The WhileContext / CondContext (with its nested contexts) a serialized proto of collection `key`
    describes, over the imported ops; its ops get it as their control-flow context."""
    from google.protobuf import message

    pb2 = control_flow_ops._control_flow_pb2()
    is_while = key == GraphKeys.WHILE_CONTEXT
    try:
        context_def = (pb2.WhileContextDef if is_while else pb2.CondContextDef).FromString(data)
    except message.DecodeError as e:
        raise ValueError(f"The '{key}' collection of the meta graph holds a malformed context proto: {e}") from None
    with graph.as_default():
        saved = graph._get_control_flow_context()
        graph._set_control_flow_context(None)
        try:
            if is_while:
                return control_flow_ops.WhileContext.from_proto(context_def, import_scope=import_scope)
            return control_flow_ops.CondContext.from_proto(context_def, import_scope=import_scope)
        finally:
            graph._set_control_flow_context(saved)


def _rename_frames(graph_def, import_scope):
    """Puts `import_scope/` before the frame name of every Enter of `graph_def` (the name of the loop's imported
    WhileContext), so that the loops of two imports of one meta graph run in frames of their own."""
    for node in graph_def.node:
        if node.op in ("Enter", "RefEnter") and "frame_name" in node.attr:
            frame = node.attr["frame_name"].s
            node.attr["frame_name"].s = import_scope.encode() + b"/" + frame


def _add_output_shapes(graph_def, graph):
    """Writes each node's static output shapes into its `_output_shapes` attr (TF's as_graph_def(add_shapes=True),
    which TF1's export_meta_graph uses): an imported loop gets back the shapes its build gave the loop variables,
    which shape inference cannot see through the back edges."""
    from tensorweave._src.framework import graph_pb2

    ops_by_name = {op.name: op for op in graph.get_operations()}
    for node in graph_def.node:
        shapes = node.attr["_output_shapes"].list.shape
        for tensor in ops_by_name[node.name].outputs:
            dims = tensor.shape.as_list() if tensor.shape.dims is not None else None
            if dims is None:
                shapes.add(unknown_rank=True)
            else:
                shapes.add().dim.extend(graph_pb2.TensorShapeProto.Dim(size=-1 if d is None else d) for d in dims)


# TensorFlow 2's resource-variable ops (what its compat.v1 builds unless resource variables are disabled) and the
# core's ref-variable ops that do the same on a variable made by a VarHandleOp.
_RESOURCE_TO_REF = {
    "ReadVariableOp": "Identity",
    "AssignVariableOp": "Assign",
    "AssignAddVariableOp": "AssignAdd",
    "AssignSubVariableOp": "AssignSub",
    "VarIsInitializedOp": "IsVariableInitialized",
}


def _resource_variables_as_ref(graph_def):
    """Rewrites, in place, the resource variables of a meta graph that TensorFlow 2 wrote as the core's ref
    variables: VarHandleOp -> VariableV2 (same name, dtype, shape) and the ops on its handle (read, assign,
    assign-add/sub, is-initialized, the optimizers' Resource(Sparse)Apply*, ResourceScatter*, ResourceGather)
    -> their ref forms, so that a TF1-style graph saved by TensorFlow 2 (a SavedModel of `simple_save`, a
    `.meta` file) imports, restores its checkpoint and trains on. Ops on a handle that is not a VarHandleOp's
    are left as they are."""
    handles = {n.name: n for n in graph_def.node if n.op == "VarHandleOp"}
    if not handles:
        return
    for node in graph_def.node:
        if node.op == "VarHandleOp":
            node.op = "VariableV2"
            for key in [k for k in node.attr if k not in ("dtype", "shape", "container", "shared_name")]:
                del node.attr[key]
            continue
        handle = handles.get(node.input[0].lstrip("^").split(":")[0]) if node.input else None
        if handle is None:
            continue
        dtype = handle.attr["dtype"].type
        if node.op.startswith(("ResourceApply", "ResourceSparseApply")):  # the optimizers' updates: same attrs
            node.op = node.op[len("Resource") :]
        elif node.op.startswith("ResourceScatter") and node.op != "ResourceScatterNdUpdate":
            node.op = node.op[len("Resource") :]
            del node.attr["dtype"]
            node.attr["T"].type = dtype
        elif node.op == "ResourceGather" and not node.attr["batch_dims"].i:
            node.op = "Gather"
            for key in ("dtype", "batch_dims"):
                del node.attr[key]
            node.attr["Tparams"].type = dtype
        elif node.op in _RESOURCE_TO_REF:
            node.op = _RESOURCE_TO_REF[node.op]
            for key in list(node.attr):
                del node.attr[key]
            node.attr["dtype" if node.op == "IsVariableInitialized" else "T"].type = dtype
            if node.op == "Assign":
                node.attr["validate_shape"].b = False  # (a resource assign does not check the shape)


def _pop_output_shapes(graph_def):
    """{node name: [TensorShape per output]} from the `_output_shapes` attrs of `graph_def`, which it removes."""
    shapes = {}
    for node in graph_def.node:
        if "_output_shapes" in node.attr:
            protos = node.attr["_output_shapes"].list.shape
            shapes[node.name] = [
                tensor_shape.TensorShape(None if p.unknown_rank else [d.size if d.size >= 0 else None for d in p.dim])
                for p in protos
            ]
            del node.attr["_output_shapes"]
    return shapes


def _refine_output_shapes(graph, shapes, import_scope):
    """Refines the static shapes of the imported ops with the recorded ones (where inference knew less: around a
    loop's back edges); a recorded shape that contradicts inference is left out (the inferred one stands)."""
    from tensorweave._src.framework import errors

    prefix = f"{import_scope}/" if import_scope else ""
    for name, recorded in shapes.items():
        try:
            op = graph.get_operation_by_name(prefix + name)
        except (KeyError, ValueError):
            continue  # replaced through input_map
        for tensor, shape in zip(op.outputs, recorded):
            if shape.dims is None or tensor.shape.is_fully_defined():
                continue
            try:
                graph._c.set_output_shape(op._id, tensor.value_index, tensor_shape.as_attr(shape))
            except errors.InvalidArgumentError:
                continue
            tensor._shape = tensor.shape.merge_with(shape)


# --- export / import -------------------------------------------------------------------------------------------


def export_meta_graph(
    filename=None,
    meta_info_def=None,
    graph_def=None,
    saver_def=None,
    collection_list=None,
    as_text=False,
    graph=None,
    export_scope=None,
    clear_devices=False,
    clear_extraneous_savers=False,
    strip_default_attrs=False,
    save_debug_info=False,
    **kwargs,
):
    """The MetaGraphDef of `graph` (default: the default graph): its GraphDef, `saver_def` and the collections
    `collection_list` (default: all), written to `filename` when given (binary, or text with `as_text`).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     w = tw.Variable([1.0], name="w")
      ...     tw.add_to_collection("mine", "hello")
      ...     meta = tw.train.export_meta_graph()
      ...     print(sorted(meta.collection_def))
      ['mine', 'trainable_variables', 'variables']
    """
    from google.protobuf import text_format

    if export_scope:
        raise NotImplementedError("export_meta_graph(export_scope=...) is not supported")
    if kwargs:
        raise TypeError(f"export_meta_graph got unexpected arguments {sorted(kwargs)}")
    graph = graph or ops.get_default_graph()
    pb2 = _pb2()
    meta_graph_def = pb2.MetaGraphDef()
    if meta_info_def is not None:
        meta_graph_def.meta_info_def.CopyFrom(meta_info_def)
    meta_graph_def.meta_info_def.meta_graph_version = META_GRAPH_VERSION
    meta_graph_def.meta_info_def.stripped_default_attrs = bool(strip_default_attrs)
    if graph_def is None:
        graph_def = graph.as_graph_def()
        _add_output_shapes(graph_def, graph)
    if clear_devices:
        for node in graph_def.node:
            node.device = ""
    set_graph_def(meta_graph_def, graph_def)
    if saver_def is not None:
        meta_graph_def.saver_def.CopyFrom(saver_def)
    keys = graph.get_all_collection_keys() if collection_list is None else collection_list
    for key in sorted(keys):
        _add_collection_def(meta_graph_def, key, graph)
    if filename:
        filename = os.fspath(filename)
        data = text_format.MessageToString(meta_graph_def).encode() if as_text else meta_graph_def.SerializeToString()
        directory = os.path.dirname(filename)
        if directory:
            os.makedirs(directory, exist_ok=True)
        tmp = f"{filename}.tmp{os.getpid()}"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, filename)
    return meta_graph_def


def parse_binary_or_text(proto, data):
    """Fills message `proto` from `data` (bytes): its binary encoding, or its text format when that does not
    parse; text_format.ParseError or UnicodeDecodeError when neither does."""
    from google.protobuf import message, text_format

    try:
        proto.ParseFromString(data)
        return
    except message.DecodeError:
        proto.Clear()
    text_format.Merge(data.decode("utf-8"), proto)


def read_meta_graph_file(filename):
    """The MetaGraphDef in `filename` (binary, or text when the binary parse fails)."""
    from google.protobuf import text_format

    from tensorweave._src.framework import errors

    pb2 = _pb2()
    filename = os.fspath(filename)
    if not os.path.isfile(filename):
        raise OSError(f"File {filename} does not exist.")
    with open(filename, "rb") as f:
        data = f.read()
    meta_graph_def = pb2.MetaGraphDef()
    try:
        parse_binary_or_text(meta_graph_def, data)
    except (text_format.ParseError, UnicodeDecodeError) as e:
        raise errors._UnparsableFileError(
            None, None, f"Cannot parse file {filename}: it is not a MetaGraphDef: {e}"
        ) from None
    return meta_graph_def


def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None, **kwargs):
    """Rebuilds a meta graph in the default graph: its ops (names prefixed with `import_scope`), its collections
    (variables bound to the imported ops, TRAIN_OP, LOSSES, SUMMARIES, UPDATE_OPS, custom collections) and
    returns a Saver for its checkpoints: the exported one when there is a saver_def, a new one over the
    imported variables when there are variables only, else None.

    Example:
      >>> import os, tempfile
      >>> import tensorweave as tw
      >>> prefix = os.path.join(tempfile.mkdtemp(), "model.ckpt")
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     w = tw.Variable([1.0, 2.0], name="w")
      ...     sess.run(w.initializer)
      ...     _ = tw.train.Saver().save(sess, prefix)
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     saver = tw.train.import_meta_graph(prefix + ".meta")
      ...     saver.restore(sess, prefix)
      ...     [w] = tw.global_variables()
      ...     print(w.name, sess.run(w))
      w:0 [1. 2.]
    """
    from tensorweave._src.framework import graph_pb2
    from tensorweave._src.framework import importer
    from tensorweave._src.training import saver as saver_lib

    if isinstance(meta_graph_or_file, (str, os.PathLike)):
        meta_graph_def = read_meta_graph_file(meta_graph_or_file)
    else:
        meta_graph_def = meta_graph_or_file
    graph = ops.get_default_graph()
    graph_def = graph_pb2.GraphDef()
    graph_def.CopyFrom(graph_def_of(meta_graph_def))  # (changed below: the caller's MetaGraphDef is left as it was)
    _resource_variables_as_ref(graph_def)
    if clear_devices:
        for node in graph_def.node:
            node.device = ""
    if import_scope:
        _rename_frames(graph_def, import_scope)
    input_map = kwargs.pop("input_map", None)
    if kwargs:
        raise TypeError(f"import_meta_graph got unexpected arguments {sorted(kwargs)}")
    shapes = _pop_output_shapes(graph_def)
    importer.import_graph_def(graph_def, input_map=input_map, name=import_scope or "")
    _refine_output_shapes(graph, shapes, import_scope)
    _import_collections(meta_graph_def, graph, import_scope)
    if meta_graph_def.HasField("saver_def"):
        saver_def = _pb2().SaverDef()
        saver_def.CopyFrom(meta_graph_def.saver_def)
        if import_scope:
            for field in ("filename_tensor_name", "save_tensor_name", "restore_op_name"):
                setattr(saver_def, field, f"{import_scope}/{getattr(saver_def, field)}")
        return saver_lib.Saver(saver_def=saver_def)
    if variables.global_variables():
        return saver_lib.Saver()
    _logger.info("Saver not created because there are no variables in the graph to restore")
    return None

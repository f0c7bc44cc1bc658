"""import_graph_def: copies a serialized graph into the default graph."""

from tensorweave._src.framework import device_spec
from tensorweave._src.framework import ops


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None, op_dict=None, producer_op_list=None):
    """Imports `graph_def` (a GraphDef or its bytes) into the default graph.

    Args:
      input_map: {"name:0": Tensor} replacing imported tensors by existing ones.
      return_elements: names of imported ops ("x") or tensors ("x:0") to return.
      name: prefix of the imported names (default "import").

    Returns:
      The requested elements, or None.

    Devices as TF1's import: each imported node's device is merged under the `device()` scopes around the
    call (device functions see the imported op), and a node colocated with another (`_class` `loc:@x`)
    takes that node's device. ValueError, before anything is imported, for a malformed device or a
    colocation with a node the GraphDef does not have.

    Example:
      >>> import tensorweave as tw
      >>> g = tw.Graph()
      >>> with g.as_default():
      ...     _ = tw.add(tw.constant(1), tw.constant(2), name="sum")
      >>> with tw.Graph().as_default():
      ...     [s] = tw.import_graph_def(g.as_graph_def(), return_elements=["sum:0"])
      ...     print(s.name)
      import/sum:0
    """
    graph = ops.get_default_graph()
    if isinstance(graph_def, (bytes, bytearray)):
        data = graph_def
    elif callable(getattr(graph_def, "SerializeToString", None)) and hasattr(graph_def, "node"):
        data = graph_def.SerializeToString()
    else:
        raise TypeError(f"Argument `graph_def` must be a GraphDef proto, got {type(graph_def).__name__}.")
    if input_map is not None and not isinstance(input_map, dict):
        raise TypeError("input_map must be a dictionary mapping strings to Tensor objects.")
    names = _check_devices(data)
    if names is not None:
        _check_names(names, input_map, return_elements)
    prefix = "import" if name is None else name
    if prefix:
        prefix = graph.unique_name(prefix)
    mapping = {}
    for key, value in (input_map or {}).items():
        tensor = ops.convert_to_tensor(value)
        mapping[key if ":" in key else key + ":0"] = tensor.name
    ops_added = graph._import_graph_def_bytes(bytes(data), prefix, mapping)
    graph._place_imported(ops_added)
    if return_elements is None:
        return None
    scoped = (prefix + "/") if prefix else ""
    results = []
    for element in return_elements:
        if ":" in element:
            results.append(graph.get_tensor_by_name(scoped + element))
        else:
            results.append(graph.get_operation_by_name(scoped + element))
    del ops_added
    return results


def _check_devices(data):
    """ValueError for a node whose device does not parse or that is colocated with a node not in the GraphDef
    (TF's importer raises both)."""
    from tensorweave._src.framework import graph_pb2  # protobuf loads lazily (a fast `import tensorweave`)

    try:
        parsed = graph_pb2.GraphDef.FromString(bytes(data))
    except Exception:  # noqa: BLE001 - the C++ import reports bytes that are no GraphDef
        return None
    names = {node.name for node in parsed.node}
    for node in parsed.node:
        _check_function_attrs(node)
        _check_type_attrs(node)
        if node.device:
            device_spec.DeviceSpec.from_string(node.device)
        if "_class" in node.attr:
            for group in node.attr["_class"].list.s:
                if group.startswith(b"loc:@") and group[5:].decode() not in names:
                    raise ValueError(
                        f"Node '{node.name}' expects to be colocated with unknown node '{group[5:].decode()}'"
                    )
    return names


def _check_type_attrs(node):
    """ValueError naming the node for a type attr that holds no DataType (a number the enum does not have)."""
    for key in sorted(node.attr):
        value = node.attr[key]
        kind = value.WhichOneof("value")
        types = [value.type] if kind == "type" else list(value.list.type) if kind == "list" else []
        enum = value.DESCRIPTOR.fields_by_name["type"].enum_type
        for number in types:
            if number not in enum.values_by_number:
                raise ValueError(
                    f"Node '{node.name}' (op '{node.op}'): attr '{key}' holds {number}, which is no DataType"
                )


def _check_names(names, input_map, return_elements):
    """TF's ValueErrors, before anything is imported, for input_map keys and return_elements that name no
    node of the GraphDef (an input_map key that matched nothing was silently ignored)."""

    def node_of(element):
        return element[1:] if element.startswith("^") else element.split(":")[0]

    missing = [key for key in (input_map or {}) if node_of(key) not in names]
    if missing:
        raise ValueError(f"Attempted to map inputs that were not found in graph_def: [{', '.join(missing)}]")
    for element in return_elements or ():
        if not isinstance(element, str):
            raise TypeError(f"return_elements must be names of ops or tensors, got {element!r}")
        if node_of(element) not in names:
            kind = "tensor" if ":" in element else "node"
            raise ValueError(f"Requested return {kind} {element!r} not found in graph def")


def _check_function_attrs(node):
    """UnimplementedError naming the node for an attr holding a function of the GraphDef's library (TF's
    tf.data ops: MapDataset `f`, OneShotIterator `dataset_factory`...): tensorweave's dataset ops take their
    function serialized in a string attr and output string handles where TF's output variants, so TF's tf.data
    graphs do not import."""
    from tensorweave._src.framework import errors

    for key in sorted(node.attr):
        value = node.attr[key]
        if value.WhichOneof("value") == "func":
            raise errors.UnimplementedError(
                None,
                None,
                f"Node '{node.name}' (op '{node.op}'): attr '{key}' is a function of the GraphDef's function "
                "library (TensorFlow's form); importing functions is not supported (tensorweave's tf.data ops "
                "take a serialized function in a string attr and output string dataset handles, not variants)",
            )

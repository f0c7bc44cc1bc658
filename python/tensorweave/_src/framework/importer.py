"""import_graph_def: copies a serialized graph into the default graph."""

from tensorweave._src.framework import ops


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None, op_dict=None, producer_op_list=None):
    """Imports `graph_def` (a GraphDef or its bytes) into the default graph.

    Args:
      input_map: {"name:0": Tensor} replacing imported tensors by existing ones.
      return_elements: names of imported ops ("x") or tensors ("x:0") to return.
      name: prefix of the imported names (default "import").

    Returns:
      The requested elements, or None.

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
    data = graph_def if isinstance(graph_def, (bytes, bytearray)) else graph_def.SerializeToString()
    prefix = "import" if name is None else name
    if prefix:
        prefix = graph.unique_name(prefix)
    mapping = {}
    for key, value in (input_map or {}).items():
        tensor = ops.convert_to_tensor(value)
        mapping[key if ":" in key else key + ":0"] = tensor.name
    ops_added = graph._import_graph_def_bytes(bytes(data), prefix, mapping)
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

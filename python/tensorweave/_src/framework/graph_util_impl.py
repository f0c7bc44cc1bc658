"""TF1's `tf.graph_util`: freezing a session's variables into constants and cutting a GraphDef down to what some
nodes need (`convert_variables_to_constants`, `extract_sub_graph`, `remove_training_nodes`)."""

import copy

from tensorweave._src.framework import dtypes
from tensorweave._src.framework.misc_api import make_tensor_proto

# (graph_pb2 is imported where used: `import tensorweave` does not load protobuf.)

_VARIABLE_OPS = ("Variable", "VariableV2", "VarHandleOp")


def _node_name(name):
    """'^a', 'a:1' and 'a' all name node 'a'."""
    name = name.removeprefix("^")
    return name.split(":")[0]


def _check_graph_def(graph_def):
    from tensorweave._src.framework import graph_pb2

    if not isinstance(graph_def, graph_pb2.GraphDef):
        raise TypeError(f"graph_def must be a graph_pb2.GraphDef proto, got {type(graph_def).__name__}.")


def _empty_like(graph_def):
    """A GraphDef with `graph_def`'s fields (versions, ...) but no nodes."""
    out = type(graph_def)()
    out.CopyFrom(graph_def)
    del out.node[:]
    return out


def extract_sub_graph(graph_def, dest_nodes):
    """The GraphDef of the nodes `dest_nodes` need (through data and control inputs), in their original order.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default() as g:
      ...     a = tw.constant(1.0, name="a")
      ...     b = tw.identity(a, name="b")
      ...     c = tw.constant(2.0, name="c")
      >>> [n.name for n in tw.graph_util.extract_sub_graph(g.as_graph_def(), ["b"]).node]
      ['a', 'b']
    """
    _check_graph_def(graph_def)
    if isinstance(dest_nodes, str):
        raise TypeError("dest_nodes must be a list.")
    by_name = {n.name: n for n in graph_def.node}
    for d in dest_nodes:
        if d not in by_name:
            raise AssertionError(f"{d} is not in graph")
    keep, stack = set(), list(dest_nodes)
    while stack:
        name = stack.pop()
        if name in keep:
            continue
        keep.add(name)
        stack.extend(_node_name(i) for i in by_name[name].input)
    out = _empty_like(graph_def)
    out.node.extend(copy.deepcopy(n) for n in graph_def.node if n.name in keep)
    return out


def convert_variables_to_constants(
    sess, input_graph_def, output_node_names, variable_names_whitelist=None, variable_names_blacklist=None
):
    """`input_graph_def` cut down to what `output_node_names` need, its variables (those in the whitelist, none
    in the blacklist) replaced by Const nodes holding their values in `sess`: a frozen graph to load with
    `import_graph_def`.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     w = tw.Variable(3.0, name="w")
      ...     y = tw.multiply(w, 2.0, name="y")
      ...     sess.run(w.initializer)
      ...     frozen = tw.graph_util.convert_variables_to_constants(sess, sess.graph_def, ["y"])
      >>> sorted(n.op for n in frozen.node)
      ['Const', 'Const', 'Identity', 'Mul']
    """
    sub = extract_sub_graph(input_graph_def, output_node_names)
    names = [
        n.name
        for n in sub.node
        if n.op in _VARIABLE_OPS
        and (variable_names_whitelist is None or n.name in variable_names_whitelist)
        and (variable_names_blacklist is None or n.name not in variable_names_blacklist)
    ]
    values = dict(zip(names, sess.run([f"{n}:0" for n in names]))) if names else {}
    out = _empty_like(sub)
    for node in sub.node:
        if node.name not in values:
            out.node.add().CopyFrom(node)
            continue
        const = out.node.add(name=node.name, op="Const", device=node.device)
        dtype = dtypes.as_dtype(node.attr["dtype"].type)
        const.attr["dtype"].type = dtype.as_datatype_enum
        const.attr["value"].tensor.CopyFrom(make_tensor_proto(values[node.name], dtype=dtype))
    return out


def remove_training_nodes(input_graph, protected_nodes=None):
    """`input_graph` without its Identity and CheckNumerics nodes (their consumers read their inputs) and
    without the control edges to removed nodes; `protected_nodes` stay."""
    _check_graph_def(input_graph)
    protected = set(protected_nodes or [])
    removable = {
        n.name: n.input[0]
        for n in input_graph.node
        if n.op in ("Identity", "CheckNumerics")
        and n.name not in protected
        and n.input
        and not n.input[0].startswith("^")
        and not any(i.startswith("^") for i in n.input[1:])
    }

    def resolve(inp):
        control = inp.startswith("^")
        name = inp[1:] if control else inp
        seen = set()
        while (
            _node_name(name) in removable and _node_name(name) not in seen and (":" not in name or name.endswith(":0"))
        ):
            seen.add(_node_name(name))
            name = removable[_node_name(name)]
        return "^" + _node_name(name) if control else name

    out = _empty_like(input_graph)
    for node in input_graph.node:
        if node.name in removable:
            continue
        new = out.node.add()
        new.CopyFrom(node)
        del new.input[:]
        new.input.extend(resolve(i) for i in node.input)
    return out


def must_run_on_cpu(node, pin_variables_on_cpu=False):
    """Whether `node` (a NodeDef or Operation) must be placed on the CPU: string-typed consts and identities,
    and (when asked) variables."""
    op = node.type if hasattr(node, "type") and not hasattr(node, "op") else node.op
    if op in _VARIABLE_OPS:
        return pin_variables_on_cpu
    if op in ("Const", "Identity") and hasattr(node, "attr") and not callable(node.attr):
        key = "dtype" if op == "Const" else "T"
        return key in node.attr and node.attr[key].type == dtypes.string.as_datatype_enum
    return False


def tensor_shape_from_node_def_name(graph, input_name):
    """The static shape of output 0 of the node `input_name` (or of the tensor `input_name`) in `graph`."""
    name = input_name if ":" in input_name else input_name + ":0"
    return graph.get_tensor_by_name(name).get_shape()

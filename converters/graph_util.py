"""GraphDef helpers shared by the converters: tensor names, attrs, constants
and a small mutable view of a graph (nodes by name, consumers, topological
order)."""

import collections

import numpy as np
from tensorweave._src.framework import graph_pb2

from converters.errors import ConversionError

# DataType enum <-> numpy (graph.proto).
DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_STRING, DT_INT64, DT_BOOL = 1, 2, 3, 4, 7, 9, 10
_NUMPY_OF_DT = {
    DT_FLOAT: np.float32,
    DT_DOUBLE: np.float64,
    DT_INT32: np.int32,
    DT_UINT8: np.uint8,
    DT_INT64: np.int64,
    DT_BOOL: np.bool_,
}
_DT_OF_NUMPY = {np.dtype(v): k for k, v in _NUMPY_OF_DT.items()}


# The core's dtypes that no converter handles (the lite runtime and the exporters have none of them).
_UNCONVERTED_DT_NAMES = {5: "int16", 6: "int8", 17: "uint16", 19: "float16", 22: "uint32", 23: "uint64"}


def numpy_dtype(dt):
    if dt not in _NUMPY_OF_DT:
        name = _UNCONVERTED_DT_NAMES.get(dt, f"enum {dt}")
        supported = ", ".join(np.dtype(t).name for t in _NUMPY_OF_DT.values())
        raise ConversionError(f"unsupported tensor dtype {name}: the converters handle {supported}")
    return np.dtype(_NUMPY_OF_DT[dt])


def datatype_enum(np_dtype):
    np_dtype = np.dtype(np_dtype)
    if np_dtype not in _DT_OF_NUMPY:
        raise ConversionError(f"unsupported numpy dtype {np_dtype}")
    return _DT_OF_NUMPY[np_dtype]


# --- tensor names ---------------------------------------------------------------
def parse_input(name):
    """'node:1' -> ('node', 1); 'node' -> ('node', 0); '^node' -> ('node', -1)."""
    if name.startswith("^"):
        return name[1:], -1
    node, sep, index = name.rpartition(":")
    if sep and index.isdigit():
        return node, int(index)
    return name, 0


def tensor_name(name):
    """Canonical 'node:index' of a tensor name ('node' means 'node:0')."""
    node, index = parse_input(name)
    return f"{node}:{index}"


def data_inputs(node):
    return [i for i in node.input if not i.startswith("^")]


# --- tensors and attrs --------------------------------------------------------------
def _available_memory_bytes():
    """MemAvailable from /proc/meminfo (bytes), or None where it cannot be read."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def tensor_proto_to_numpy(proto):
    """The array of a Const's TensorProto, read as TensorFlow's FromProto reads it (tensor_content of exactly the
    tensor's bytes, or the *_val field: none gives zeros, fewer values repeat the last, more are cut). A model is
    untrusted input: a negative dimension, a content of the wrong size or a fill larger than the free memory is a
    ConversionError, never an allocation the shape alone asks for."""
    dtype = numpy_dtype(proto.dtype)
    shape = [d.size for d in proto.tensor_shape.dim]
    if any(d < 0 for d in shape):
        raise ConversionError(f"a {dtype} tensor of shape {shape} has a negative dimension")
    count = 1
    for d in shape:
        count *= d  # Python ints: no overflow
    if count == 0:
        return np.zeros(shape, dtype)
    nbytes = count * dtype.itemsize
    if proto.tensor_content:
        if len(proto.tensor_content) != nbytes:
            raise ConversionError(
                f"a {dtype} tensor of shape {shape} needs {nbytes} bytes, its tensor_content has "
                f"{len(proto.tensor_content)}"
            )
        arr = np.frombuffer(proto.tensor_content, dtype=dtype.newbyteorder("<")).astype(dtype)
        return arr.reshape(shape)
    field = {
        DT_FLOAT: "float_val",
        DT_DOUBLE: "double_val",
        DT_INT32: "int_val",
        DT_UINT8: "int_val",
        DT_INT64: "int64_val",
        DT_BOOL: "bool_val",
    }[proto.dtype]
    values = np.array(getattr(proto, field)[:count], dtype=dtype)
    if values.size == count:
        return values.reshape(shape)
    available = _available_memory_bytes()
    if nbytes >= 2**63 or (available is not None and nbytes > available):
        raise ConversionError(
            f"a {dtype} tensor of shape {shape} ({nbytes} bytes) filled from {values.size} values is larger than "
            f"the {available} bytes of memory available"
        )
    if values.size == 0:
        return np.zeros(shape, dtype)
    out = np.empty(count, dtype)
    out[: values.size] = values
    out[values.size :] = values[-1]  # the last value repeats (TensorFlow's rule)
    return out.reshape(shape)


def numpy_to_tensor_proto(arr):
    arr = np.asarray(arr)
    proto = graph_pb2.TensorProto(dtype=datatype_enum(arr.dtype))
    for d in arr.shape:
        proto.tensor_shape.dim.add().size = d
    proto.tensor_content = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<")).tobytes()
    return proto


def attr(node, name, default=None):
    """The Python value of attr `name` of `node` (lists as lists)."""
    if name not in node.attr:
        return default
    value = node.attr[name]
    kind = value.WhichOneof("value")
    if kind == "s":
        return value.s.decode("utf-8")
    if kind in ("i", "f", "b", "type"):
        return getattr(value, kind)
    if kind == "tensor":
        return tensor_proto_to_numpy(value.tensor)
    if kind == "shape":
        if value.shape.unknown_rank:
            return None
        return [d.size for d in value.shape.dim]
    if kind == "list":
        lst = value.list
        for field in ("i", "f", "b", "type"):
            if len(getattr(lst, field)):
                return list(getattr(lst, field))
        if len(lst.s):
            return [s.decode("utf-8") for s in lst.s]
        return []
    return default


def make_const(name, arr):
    arr = np.asarray(arr)
    node = graph_pb2.NodeDef(name=name, op="Const")
    node.attr["value"].tensor.CopyFrom(numpy_to_tensor_proto(arr))
    node.attr["dtype"].type = datatype_enum(arr.dtype)
    return node


def make_node(op, name, inputs, **attrs):
    node = graph_pb2.NodeDef(name=name, op=op)
    node.input.extend(inputs)
    for key, value in attrs.items():
        a = node.attr[key]
        if isinstance(value, bool):
            a.b = value
        elif isinstance(value, int):
            a.i = value
        elif isinstance(value, float):
            a.f = value
        elif isinstance(value, str):
            a.s = value.encode("utf-8")
        elif isinstance(value, (list, tuple)):
            a.list.i.extend(int(v) for v in value)
        elif isinstance(value, np.dtype) or value in (np.float32, np.int32, np.int64):
            a.type = datatype_enum(value)
        else:
            raise TypeError(f"attr {key}: unsupported value {value!r}")
    return node


# --- a mutable view of a GraphDef ------------------------------------------------------
class GraphView:
    """Nodes by name in their GraphDef order, with consumers and a topological
    order. Rewrites replace nodes or redirect tensors; `to_graph_def()` writes
    the live nodes back out."""

    def __init__(self, graph_def):
        self.nodes = collections.OrderedDict()
        for node in graph_def.node:
            copy = graph_pb2.NodeDef()
            copy.CopyFrom(node)
            if copy.name in self.nodes:
                raise ConversionError(f"the graph has two nodes named '{copy.name}'")
            self.nodes[copy.name] = copy
        self.versions = graph_pb2.VersionDef()
        self.versions.CopyFrom(graph_def.versions)

    def node(self, name):
        return self.nodes[parse_input(name)[0]]

    def consumers(self):
        """{'node:i': [(consumer node, input position)]} over data inputs."""
        out = collections.defaultdict(list)
        for node in self.nodes.values():
            for pos, inp in enumerate(data_inputs(node)):
                out[tensor_name(inp)].append((node, pos))
        return out

    def const_value(self, name):
        """The numpy value of tensor `name` if a Const produces it, else None."""
        node_name, index = parse_input(name)
        node = self.nodes.get(node_name)
        if node is None or node.op != "Const" or index != 0:
            return None
        return attr(node, "value")

    def redirect(self, old, new):
        """Makes every consumer of tensor `old` read tensor `new` instead."""
        old = tensor_name(old)
        for node in self.nodes.values():
            for i, inp in enumerate(node.input):
                if not inp.startswith("^") and tensor_name(inp) == old:
                    node.input[i] = new

    def topological_order(self):
        """Node names so that every node follows its inputs."""
        order, state = [], {}
        for root in self.nodes:
            if root in state:
                continue
            stack = [(root, False)]
            while stack:
                name, done = stack.pop()
                if done:
                    state[name] = 2
                    order.append(name)
                    continue
                if state.get(name) == 2:
                    continue
                if state.get(name) == 1:
                    raise ConversionError(f"the graph has a cycle through '{name}'")
                state[name] = 1
                stack.append((name, True))
                for inp in self.nodes[name].input:
                    dep = parse_input(inp)[0]
                    if dep not in self.nodes:
                        raise ConversionError(f"node '{name}' reads '{inp}', which is not in the graph")
                    if state.get(dep) != 2:
                        if state.get(dep) == 1:
                            raise ConversionError(f"the graph has a cycle through '{dep}'")
                        stack.append((dep, False))
        return order

    def to_graph_def(self, ordered=True):
        """The GraphDef, its nodes in topological order; `ordered` False: as they are (a graph with a loop)."""
        graph_def = graph_pb2.GraphDef()
        graph_def.versions.CopyFrom(self.versions)
        for name in self.topological_order() if ordered else self.nodes:
            graph_def.node.add().CopyFrom(self.nodes[name])
        return graph_def

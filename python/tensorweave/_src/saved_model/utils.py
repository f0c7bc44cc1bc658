"""TensorInfo: how a signature names a tensor (`tf.saved_model.utils`)."""

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.framework import tensor_shape


def build_tensor_info(tensor):
    """The TensorInfo (name, dtype, static shape) of a Tensor (or a Variable's value).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     x = tw.placeholder(tw.float32, [None, 3], name="x")
      ...     info = tw.saved_model.utils.build_tensor_info(x)
      ...     print(info.name, tw.saved_model.utils.get_tensor_from_tensor_info(info).shape)
      x:0 (?, 3)
    """
    from tensorweave._src.framework import graph_pb2
    from tensorweave._src.framework import meta_graph_pb2

    if hasattr(tensor, "_variable") and not isinstance(tensor, ops.Tensor):
        tensor = tensor.value()
    if not isinstance(tensor, ops.Tensor):
        raise TypeError(f"build_tensor_info takes a Tensor, got {tensor!r}")
    info = meta_graph_pb2.TensorInfo(name=tensor.name, dtype=tensor.dtype.base_dtype.as_datatype_enum)
    shape = graph_pb2.TensorShapeProto()
    if tensor.shape.ndims is None:
        shape.unknown_rank = True
    else:
        for d in tensor.shape.as_list():
            shape.dim.add(size=-1 if d is None else d)
    if meta_graph_pb2.TensorInfo.DESCRIPTOR.fields_by_name["tensor_shape"].message_type is not None:
        info.tensor_shape.CopyFrom(shape)
    else:  # a module generated from the earlier meta_graph.proto (bytes)
        info.tensor_shape = shape.SerializeToString()
    return info


def get_tensor_from_tensor_info(tensor_info, graph=None, import_scope=None):
    """The Tensor of `graph` (default: the default graph) that `tensor_info` names (under `import_scope`)."""
    graph = graph or ops.get_default_graph()
    if tensor_info.WhichOneof("encoding") != "name":
        raise ValueError(f"Invalid TensorInfo.encoding: {tensor_info.WhichOneof('encoding')}")
    name = f"{import_scope}/{tensor_info.name}" if import_scope else tensor_info.name
    return graph.get_tensor_by_name(name)


def tensor_info_dtype(tensor_info):
    """The DType a TensorInfo records."""
    return dtypes.as_dtype(tensor_info.dtype)


def tensor_info_shape(tensor_info):
    """The TensorShape a TensorInfo records."""
    from tensorweave._src.framework import graph_pb2

    shape = tensor_info.tensor_shape
    if isinstance(shape, bytes):  # a module generated from the earlier meta_graph.proto
        shape = graph_pb2.TensorShapeProto.FromString(shape)
    if shape.unknown_rank:
        return tensor_shape.TensorShape(None)
    return tensor_shape.TensorShape([None if d.size < 0 else d.size for d in shape.dim])

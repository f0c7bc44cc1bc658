"""Checkpoint ops: save_v2 and restore_v2 (SaveV2 / RestoreV2)."""

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops


def save_v2(prefix, tensor_names, shape_and_slices, tensors, name=None):
    """An op writing `tensors` under `tensor_names` as checkpoint `prefix`
    (prefix.safetensors + prefix.manifest.json, atomically).

    Example:
      >>> import os, tempfile
      >>> import tensorweave as tw
      >>> from tensorweave._src.ops import io_ops
      >>> prefix = os.path.join(tempfile.mkdtemp(), "ckpt")
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     sess.run(io_ops.save_v2(prefix, ["x"], [""], [tw.constant([1.0, 2.0])]))
      ...     print(sess.run(io_ops.restore_v2(prefix, ["x"], [""], [tw.float32]))[0])
      [1. 2.]
    """
    tensors = [ops.convert_to_tensor(t) for t in tensors]
    inputs = [
        ops.convert_to_tensor(prefix, dtype=dtypes.string),
        ops.convert_to_tensor(tensor_names, dtype=dtypes.string),
        ops.convert_to_tensor(shape_and_slices, dtype=dtypes.string),
        tensors,
    ]
    attrs = {"dtypes": [t.dtype.as_datatype_enum for t in tensors]}
    return ops.get_default_graph()._create_op("SaveV2", inputs, attrs, name=name or "SaveV2")


def restore_v2(prefix, tensor_names, shape_and_slices, dtypes_, name=None, shapes=None):
    """Tensors read from checkpoint `prefix`, one per name, after checking the
    files' checksums and each tensor's dtype (and shape, when `shapes` is
    given). Returns a list of Tensors."""
    inputs = [
        ops.convert_to_tensor(prefix, dtype=dtypes.string),
        ops.convert_to_tensor(tensor_names, dtype=dtypes.string),
        ops.convert_to_tensor(shape_and_slices, dtype=dtypes.string),
    ]
    attrs = {"dtypes": [dtypes.as_dtype(d).as_datatype_enum for d in dtypes_]}
    if shapes is not None:
        attrs["shapes"] = [None if s is None else list(s) for s in shapes]
    op = ops.get_default_graph()._create_op("RestoreV2", inputs, attrs, name=name or "RestoreV2")
    return list(op.outputs)

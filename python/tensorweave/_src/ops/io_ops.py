"""Checkpoint ops: save_v2 and restore_v2 (SaveV2 / RestoreV2)."""

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.ops import gen_ops


@gen_ops.doc_from("SaveV2")
def save_v2(prefix, tensor_names, shape_and_slices, tensors, name=None):
    """Returns the Operation (run it to write).

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
    return gen_ops.save_v2(*_string_inputs(prefix, tensor_names, shape_and_slices), tensors, name=name or "SaveV2")


@gen_ops.doc_from("RestoreV2")
def restore_v2(prefix, tensor_names, shape_and_slices, dtypes_, name=None, shapes=None):
    """Returns a list of Tensors, one per name (`dtypes_` is the op's `dtypes`)."""
    attrs = {"dtypes": [dtypes.as_dtype(d) for d in dtypes_]}
    if shapes is not None:
        attrs["shapes"] = [None if s is None else list(s) for s in shapes]
    inputs = _string_inputs(prefix, tensor_names, shape_and_slices)
    return list(gen_ops.restore_v2(*inputs, **attrs, name=name or "RestoreV2"))


def _string_inputs(prefix, tensor_names, shape_and_slices):
    # Converted before the op's name scope opens: the constants keep the names they have always had.
    return [ops.convert_to_tensor(v, dtype=dtypes.string) for v in (prefix, tensor_names, shape_and_slices)]

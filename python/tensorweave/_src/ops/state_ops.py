"""Variable updates as graph ops."""

from tensorweave._src.framework import ops
from tensorweave._src.ops import gen_ops


def _ref(ref, method="assign"):
    """The variable ref tensor of a Variable (or a ref tensor itself)."""
    if hasattr(ref, "_variable"):
        return ref._variable
    if isinstance(ref, ops.Tensor) and ref._is_ref:
        return ref
    if isinstance(ref, ops.Tensor):  # TF1 calls ref.assign(...) on what is not a ref: an AttributeError
        raise AttributeError(f"'Tensor' object has no attribute '{method}'")
    raise TypeError(f"{ref!r} is not a variable: only variables can be assigned to")


def _update(op_type, ref, value, name, attrs):
    ref = _ref(ref, {"Assign": "assign", "AssignAdd": "assign_add", "AssignSub": "assign_sub"}.get(op_type, "assign"))
    value = ops.convert_to_tensor(value, dtype=ref.dtype)
    return gen_ops.wrapper(op_type)(ref, value, **attrs, name=name or op_type)


@gen_ops.doc_from("Assign")
def assign(ref, value, validate_shape=None, use_locking=None, name=None):
    """`ref` is a Variable (or its ref tensor); returns the variable's new value.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     v = tw.Variable(1.0)
      ...     print(sess.run(tw.assign(v, 5.0)))
      5.0
    """
    attrs = {}
    if validate_shape is not None:
        attrs["validate_shape"] = bool(validate_shape)
    if use_locking is not None:
        attrs["use_locking"] = bool(use_locking)
    return _update("Assign", ref, value, name, attrs)


@gen_ops.doc_from("AssignAdd")
def assign_add(ref, value, use_locking=None, name=None):
    """`ref` is a Variable (or its ref tensor); returns the variable's new value."""
    attrs = {} if use_locking is None else {"use_locking": bool(use_locking)}
    return _update("AssignAdd", ref, value, name, attrs)


@gen_ops.doc_from("AssignSub")
def assign_sub(ref, value, use_locking=None, name=None):
    """`ref` is a Variable (or its ref tensor); returns the variable's new value."""
    attrs = {} if use_locking is None else {"use_locking": bool(use_locking)}
    return _update("AssignSub", ref, value, name, attrs)


@gen_ops.doc_from("IsVariableInitialized")
def is_variable_initialized(variable):
    """A scalar bool tensor."""
    ref = _ref(variable)
    return gen_ops.is_variable_initialized(ref, name="IsVariableInitialized")

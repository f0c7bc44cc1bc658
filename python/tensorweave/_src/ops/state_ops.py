"""Variable updates as graph ops."""

from tensorweave._src.framework import ops


def _ref(ref):
    """The variable ref tensor of a Variable (or a ref tensor itself)."""
    if hasattr(ref, "_variable"):
        return ref._variable
    if isinstance(ref, ops.Tensor) and ref._is_ref:
        return ref
    raise TypeError(f"{ref!r} is not a variable: only variables can be assigned to")


def _update(op_type, ref, value, name, attrs):
    ref = _ref(ref)
    value = ops.convert_to_tensor(value, dtype=ref.dtype)
    return ops.get_default_graph()._create_op(op_type, [ref, value], attrs, name=name or op_type).outputs[0]


def assign(ref, value, validate_shape=None, use_locking=None, name=None):
    """Sets variable `ref` to `value`; returns the variable's new value.

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


def assign_add(ref, value, use_locking=None, name=None):
    """Adds `value` to variable `ref`, atomically; returns the new value."""
    attrs = {} if use_locking is None else {"use_locking": bool(use_locking)}
    return _update("AssignAdd", ref, value, name, attrs)


def assign_sub(ref, value, use_locking=None, name=None):
    """Subtracts `value` from variable `ref`, atomically; returns the new value."""
    attrs = {} if use_locking is None else {"use_locking": bool(use_locking)}
    return _update("AssignSub", ref, value, name, attrs)


def is_variable_initialized(variable):
    """A bool tensor: whether the variable has been assigned."""
    ref = _ref(variable)
    return ops.get_default_graph()._create_op("IsVariableInitialized", [ref], name="IsVariableInitialized").outputs[0]

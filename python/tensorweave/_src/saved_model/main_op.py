"""The ops a SavedModel runs after loading (`tf.saved_model.main_op`)."""

from tensorweave._src.framework import ops


def main_op():
    """An op initializing the local variables (and tables, which tensorweave does not have).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     print(tw.saved_model.main_op.main_op().type)
      NoOp
    """
    from tensorweave._src.ops import variables

    return ops.group(variables.local_variables_initializer())


def main_op_with_restore(restore_op_name):
    """An op running `restore_op_name` (an op or its name) after `main_op()`."""
    graph = ops.get_default_graph()
    with graph.control_dependencies([main_op()]):
        return ops.group(graph.as_graph_element(restore_op_name, allow_tensor=False))

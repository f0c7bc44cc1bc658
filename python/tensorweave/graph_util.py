"""tw.graph_util: freezing a session's variables into constants (TF1's `tf.graph_util`).

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     w = tw.Variable(3.0, name="w")
  ...     y = tw.multiply(w, 2.0, name="y")
  ...     sess.run(w.initializer)
  ...     frozen = tw.graph_util.convert_variables_to_constants(sess, sess.graph_def, ["y"])
  >>> with tw.Graph().as_default():
  ...     (out,) = tw.import_graph_def(frozen, return_elements=["y:0"], name="")
  ...     print(tw.Session().run(out))
  6.0
"""

from tensorweave._src.framework.graph_util_impl import convert_variables_to_constants
from tensorweave._src.framework.graph_util_impl import extract_sub_graph
from tensorweave._src.framework.graph_util_impl import must_run_on_cpu
from tensorweave._src.framework.graph_util_impl import remove_training_nodes
from tensorweave._src.framework.graph_util_impl import tensor_shape_from_node_def_name
from tensorweave._src.framework.importer import import_graph_def

__all__ = [
    "convert_variables_to_constants",
    "extract_sub_graph",
    "import_graph_def",
    "must_run_on_cpu",
    "remove_training_nodes",
    "tensor_shape_from_node_def_name",
]

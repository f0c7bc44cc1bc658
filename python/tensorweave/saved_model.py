"""tw.saved_model: a small export format (graph, variables, signature) for
serving and conversion (`tensorweave-convert`).

Example:
  >>> import os, tempfile
  >>> import tensorweave as tw
  >>> export_dir = os.path.join(tempfile.mkdtemp(), "model")
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     x = tw.placeholder(tw.float32, [None, 2], name="x")
  ...     w = tw.Variable([[1.0], [2.0]], name="w")
  ...     sess.run(tw.global_variables_initializer())
  ...     tw.saved_model.simple_save(sess, export_dir, {"x": x}, {"y": tw.matmul(x, w)})
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     sig = tw.saved_model.load(sess, ["serve"], export_dir)
  ...     print(sess.run(sig["outputs"]["y"], {sig["inputs"]["x"]: [[1.0, 1.0]]}))
  [[3.]]
"""

from tensorweave._src.saved_model.simple_save import SERVING_KEY as DEFAULT_SERVING_SIGNATURE_DEF_KEY
from tensorweave._src.saved_model.simple_save import load
from tensorweave._src.saved_model.simple_save import read_graph_def
from tensorweave._src.saved_model.simple_save import read_signature
from tensorweave._src.saved_model.simple_save import simple_save

"""tensorweave.raw_ops: every registered op by its own name, keyword arguments only, as TensorFlow's
`tf.raw_ops`.

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     print(sess.run(tw.raw_ops.Relu(features=[-1.0, 2.0])))
  [0. 2.]

Each function is generated from the op's registered definition (inputs, attrs with their defaults and
allowed values, doc) by `tensorweave._src.ops.gen_ops` on first use; `dir(tw.raw_ops)` lists them all.
"""

from tensorweave._src.ops import gen_ops as _gen_ops


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _gen_ops.raw_op(name)


def __dir__():
    return _gen_ops.op_names()

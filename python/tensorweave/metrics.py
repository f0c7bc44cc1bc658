"""tw.metrics: TensorFlow 1's streaming metrics (tf.compat.v1.metrics).

Each returns `(value, update_op)`; the state is in local variables (`tw.local_variables_initializer()` resets it).

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     acc, update = tw.metrics.accuracy([1, 0, 1], [1, 1, 1])
  ...     sess.run(tw.local_variables_initializer())
  ...     print(round(float(sess.run(update)), 4), acc.name)
  0.6667 accuracy/value:0
"""

from tensorweave._src.metrics.metrics_impl import *
from tensorweave._src.metrics.metrics_impl import __all__  # noqa: F401
from tensorweave._src.metrics.metrics_at_k import *  # noqa: E402
from tensorweave._src.metrics.metrics_at_k import __all__ as _at_k_names  # noqa: E402

__all__ = list(__all__) + list(_at_k_names)

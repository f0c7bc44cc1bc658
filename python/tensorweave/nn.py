"""tensorweave.nn: neural-network ops, as TensorFlow v1's `tf.nn`.

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     print(sess.run(tw.nn.relu([-1.0, 1.0])))
  [0. 1.]

The implementation lives in `tensorweave._src.ops.nn_ops`; this module
re-exports the public names on purpose.
"""

from tensorweave._src.ops import math_ops as _math_ops
from tensorweave._src.ops.nn_ops import avg_pool
from tensorweave._src.ops.nn_ops import bias_add
from tensorweave._src.ops.nn_ops import conv2d
from tensorweave._src.ops.nn_ops import conv2d_backprop_filter
from tensorweave._src.ops.nn_ops import conv2d_backprop_input
from tensorweave._src.ops.nn_ops import depthwise_conv2d
from tensorweave._src.ops.nn_ops import depthwise_conv2d_native
from tensorweave._src.ops.nn_ops import elu
from tensorweave._src.ops.nn_ops import fused_batch_norm
from tensorweave._src.ops.nn_ops import l2_loss
from tensorweave._src.ops.nn_ops import leaky_relu
from tensorweave._src.ops.nn_ops import log_softmax
from tensorweave._src.ops.nn_ops import max_pool
from tensorweave._src.ops.nn_ops import relu
from tensorweave._src.ops.nn_ops import relu6
from tensorweave._src.ops.nn_ops import selu
from tensorweave._src.ops.nn_ops import softmax
from tensorweave._src.ops.nn_ops import softmax_cross_entropy_with_logits
from tensorweave._src.ops.nn_ops import softmax_cross_entropy_with_logits_v2
from tensorweave._src.ops.nn_ops import softplus
from tensorweave._src.ops.nn_ops import sparse_softmax_cross_entropy_with_logits

# Aliases of math ops, where the math ops provide them.
for _name in ("sigmoid", "tanh"):
    if hasattr(_math_ops, _name):
        globals()[_name] = getattr(_math_ops, _name)
del _name

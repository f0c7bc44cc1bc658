"""tensorweave.layers: TensorFlow v1's functional layers (`tf.layers`).

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default():
  ...     h = tw.layers.dense(tw.placeholder(tw.float32, [None, 8]), 4, activation=tw.nn.relu)
  ...     print(h.shape)
  (?, 4)
"""

from tensorweave._src.layers.core import average_pooling2d
from tensorweave._src.layers.core import batch_normalization
from tensorweave._src.layers.core import conv2d
from tensorweave._src.layers.core import dense
from tensorweave._src.layers.core import dropout
from tensorweave._src.layers.core import flatten
from tensorweave._src.layers.core import max_pooling2d

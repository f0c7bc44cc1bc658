"""tensorweave.losses: TensorFlow v1's losses (`tf.losses`).

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     print(sess.run(tw.losses.mean_squared_error([1.0, 2.0], [1.0, 4.0])))
  2.0
"""

from tensorweave._src.layers.losses import Reduction
from tensorweave._src.layers.losses import get_losses
from tensorweave._src.layers.losses import get_regularization_loss
from tensorweave._src.layers.losses import get_regularization_losses
from tensorweave._src.layers.losses import get_total_loss
from tensorweave._src.layers.losses import mean_squared_error
from tensorweave._src.layers.losses import softmax_cross_entropy
from tensorweave._src.layers.losses import sparse_softmax_cross_entropy
from tensorweave._src.layers.losses import absolute_difference
from tensorweave._src.layers.losses import add_loss
from tensorweave._src.layers.losses import compute_weighted_loss
from tensorweave._src.layers.losses import cosine_distance
from tensorweave._src.layers.losses import hinge_loss
from tensorweave._src.layers.losses import huber_loss
from tensorweave._src.layers.losses import log_loss
from tensorweave._src.layers.losses import mean_pairwise_squared_error
from tensorweave._src.layers.losses import sigmoid_cross_entropy

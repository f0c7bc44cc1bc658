"""tensorweave.nn: neural-network ops, as TensorFlow v1's `tf.nn`.

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     print(sess.run(tw.nn.relu([-1.0, 1.0])))
  [0. 1.]

The implementation lives in `tensorweave._src.ops.nn_ops`; this module
re-exports the public names on purpose.
"""

from tensorweave._src.ops.math_ops import sigmoid
from tensorweave._src.ops.math_ops import tanh
from tensorweave._src.ops.nn_ops import l2_normalize
from tensorweave._src.ops.nn_ops import moments
from tensorweave._src.ops.nn_ops_dropout import dropout
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
from tensorweave._src.ops.nn_conv_ops import atrous_conv2d
from tensorweave._src.ops.nn_conv_ops import atrous_conv2d_transpose
from tensorweave._src.ops.nn_conv_ops import avg_pool1d
from tensorweave._src.ops.nn_conv_ops import avg_pool_v2
from tensorweave._src.ops.nn_conv_ops import conv1d
from tensorweave._src.ops.nn_conv_ops import conv1d_transpose
from tensorweave._src.ops.nn_conv_ops import conv2d_transpose
from tensorweave._src.ops.nn_conv_ops import conv_transpose
from tensorweave._src.ops.nn_conv_ops import convolution
from tensorweave._src.ops.nn_conv_ops import depthwise_conv2d_native_backprop_filter
from tensorweave._src.ops.nn_conv_ops import depthwise_conv2d_native_backprop_input
from tensorweave._src.ops.nn_conv_ops import max_pool1d
from tensorweave._src.ops.nn_conv_ops import max_pool_v2
from tensorweave._src.ops.nn_conv_ops import pool
from tensorweave._src.ops.nn_conv_ops import separable_conv2d
from tensorweave._src.ops.nn_impl import batch_norm_with_global_normalization
from tensorweave._src.ops.nn_impl import batch_normalization
from tensorweave._src.ops.nn_impl import compute_average_loss
from tensorweave._src.ops.nn_impl import crelu
from tensorweave._src.ops.nn_impl import embedding_lookup
from tensorweave._src.ops.nn_impl import log_poisson_loss
from tensorweave._src.ops.nn_impl import normalize_moments
from tensorweave._src.ops.nn_impl import relu_layer
from tensorweave._src.ops.nn_impl import scale_regularization_loss
from tensorweave._src.ops.nn_impl import sigmoid_cross_entropy_with_logits
from tensorweave._src.ops.nn_impl import silu
from tensorweave._src.ops.nn_impl import softsign
from tensorweave._src.ops.nn_impl import sufficient_statistics
from tensorweave._src.ops.nn_impl import swish
from tensorweave._src.ops.nn_impl import weighted_cross_entropy_with_logits
from tensorweave._src.ops.nn_impl import weighted_moments
from tensorweave._src.ops.nn_impl import xw_plus_b
from tensorweave._src.ops.nn_impl import zero_fraction
from tensorweave._src.ops.nn_volume_ops import avg_pool3d
from tensorweave._src.ops.nn_volume_ops import conv3d
from tensorweave._src.ops.nn_volume_ops import conv3d_backprop_filter
from tensorweave._src.ops.nn_volume_ops import conv3d_backprop_filter_v2
from tensorweave._src.ops.nn_volume_ops import conv3d_transpose
from tensorweave._src.ops.nn_volume_ops import local_response_normalization
from tensorweave._src.ops.nn_volume_ops import lrn
from tensorweave._src.ops.nn_volume_ops import max_pool3d
from tensorweave._src.ops.nn_volume_ops import max_pool_with_argmax

# TF1's aliases.
avg_pool2d = avg_pool
max_pool2d = max_pool
depthwise_conv2d_backprop_filter = depthwise_conv2d_native_backprop_filter
depthwise_conv2d_backprop_input = depthwise_conv2d_native_backprop_input

"""tensorweave.nn: neural-network ops, as TensorFlow v1's `tf.nn`.

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     print(sess.run(tw.nn.relu([-1.0, 1.0])))
  [0. 1.]

The implementation lives in `tensorweave._src.ops.nn_ops`; this module
re-exports the public names on purpose.
"""

from tensorweave._src.ops.array_nd_ops import depth_to_space, space_to_batch, space_to_depth
from tensorweave._src.ops.candidate_sampling_ops import (
    all_candidate_sampler,
    compute_accidental_hits,
    fixed_unigram_candidate_sampler,
    learned_unigram_candidate_sampler,
    log_uniform_candidate_sampler,
    nce_loss,
    sampled_softmax_loss,
    uniform_candidate_sampler,
)
from tensorweave._src.ops.ctc_ops import (
    collapse_repeated,
    ctc_beam_search_decoder,
    ctc_beam_search_decoder_v2,
    ctc_greedy_decoder,
    ctc_loss,
    ctc_loss_v2,
    ctc_unique_labels,
)
from tensorweave._src.ops.math_ops import sigmoid, tanh
from tensorweave._src.ops.nn_conv_ops import (
    with_space_to_batch,
    dilation2d,
    erosion2d,
    atrous_conv2d,
    atrous_conv2d_transpose,
    avg_pool1d,
    avg_pool_v2,
    conv1d,
    conv1d_transpose,
    conv2d_transpose,
    conv_transpose,
    convolution,
    depthwise_conv2d_native_backprop_filter,
    depthwise_conv2d_native_backprop_input,
    max_pool1d,
    max_pool_v2,
    pool,
    separable_conv2d,
)
from tensorweave._src.ops.nn_fractional_ops import fractional_avg_pool, fractional_max_pool
from tensorweave._src.ops.nn_impl import (
    batch_norm_with_global_normalization,
    batch_normalization,
    compute_average_loss,
    crelu,
    embedding_lookup,
    log_poisson_loss,
    normalize_moments,
    relu_layer,
    scale_regularization_loss,
    sigmoid_cross_entropy_with_logits,
    silu,
    softsign,
    sufficient_statistics,
    swish,
    weighted_cross_entropy_with_logits,
    weighted_moments,
    xw_plus_b,
    zero_fraction,
)
from tensorweave._src.ops.nn_ops import (
    avg_pool,
    bias_add,
    conv2d,
    conv2d_backprop_filter,
    conv2d_backprop_input,
    depthwise_conv2d,
    depthwise_conv2d_native,
    elu,
    fused_batch_norm,
    l2_loss,
    l2_normalize,
    leaky_relu,
    log_softmax,
    max_pool,
    moments,
    relu,
    relu6,
    selu,
    softmax,
    softmax_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits_v2,
    softplus,
    sparse_softmax_cross_entropy_with_logits,
)
from tensorweave._src.ops.nn_ops_dropout import dropout
from tensorweave._src.ops.nn_volume_ops import (
    avg_pool3d,
    conv3d,
    conv3d_backprop_filter,
    conv3d_backprop_filter_v2,
    conv3d_transpose,
    local_response_normalization,
    lrn,
    max_pool3d,
    max_pool_with_argmax,
)
from tensorweave._src.ops.rnn import bidirectional_dynamic_rnn, dynamic_rnn, static_bidirectional_rnn, static_rnn
from tensorweave._src.ops.rnn_raw import raw_rnn, static_state_saving_rnn
from tensorweave._src.ops.selection_ops import in_top_k, top_k

# TF1's aliases.
avg_pool2d = avg_pool
max_pool2d = max_pool
depthwise_conv2d_backprop_filter = depthwise_conv2d_native_backprop_filter
depthwise_conv2d_backprop_input = depthwise_conv2d_native_backprop_input


def _rnn_cell_module():
    """tw.nn.rnn_cell: TF1's RNN cells, re-exported on purpose."""
    import types

    from tensorweave._src.ops import rnn_cell_impl

    module = types.ModuleType("tensorweave.nn.rnn_cell", _rnn_cell_module.__doc__)
    for name in (
        "BasicLSTMCell",
        "BasicRNNCell",
        "DeviceWrapper",
        "DropoutWrapper",
        "GRUCell",
        "LSTMCell",
        "LSTMStateTuple",
        "MultiRNNCell",
        "RNNCell",
        "ResidualWrapper",
    ):
        setattr(module, name, getattr(rnn_cell_impl, name))
    return module


rnn_cell = _rnn_cell_module()
from tensorweave._src.ops.sparse_ops import (  # noqa: E402, F401
    embedding_lookup_sparse,
    safe_embedding_lookup_sparse,
)

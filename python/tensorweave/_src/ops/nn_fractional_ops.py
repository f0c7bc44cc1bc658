"""Fractional max and average pooling (Graham, "Fractional Max-Pooling", arXiv:1412.6071), TF1's
`tf.nn.fractional_max_pool` and `tf.nn.fractional_avg_pool`, and their gradients.

The kernels are in core/kernels/fractional_pool_ops.cc. The pooling sequences follow TensorFlow's algorithm
(pseudo-random: a_i = ceil(alpha * (i + u)); random: the long and short steps shuffled) on tensorweave's own
Philox stream, so a seed gives reproducible sequences, not TensorFlow's numbers. As TF1's v1 functions,
`seed` and `seed2` are the op's attrs as given (the graph seed does not enter): with `deterministic=False`
they must be 0 and each run draws new sequences; with `deterministic=True` every run of the node uses the same
sequences, those of (seed, seed2), or of seeds drawn once for the node when both are 0.
"""

from tensorweave._src.framework import dtypes
from tensorweave._src.ops import array_ops, gen_ops, gradients_impl


@gen_ops.doc_from("FractionalMaxPool")
def fractional_max_pool(
    value,
    pooling_ratio,
    pseudo_random=False,
    overlapping=False,
    deterministic=False,
    seed=0,
    seed2=0,
    name=None,
):
    """value [batch, height, width, channels]; pooling_ratio [1.0, row ratio, col ratio, 1.0] (each >= 1).
    Returns (output, row_pooling_sequence, col_pooling_sequence); output is
    [batch, floor(height / row ratio), floor(width / col ratio), channels].

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> x = np.arange(16.0).reshape(1, 4, 4, 1)
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     out, rows, cols = sess.run(tw.nn.fractional_max_pool(x, [1.0, 2.0, 2.0, 1.0]))
      ...     print(out[0, :, :, 0].tolist(), rows.tolist())
      [[5.0, 7.0], [13.0, 15.0]] [0, 2, 4]
    """
    return gen_ops.fractional_max_pool(
        value,
        pooling_ratio,
        pseudo_random=pseudo_random,
        overlapping=overlapping,
        deterministic=deterministic,
        seed=seed,
        seed2=seed2,
        name=name,
    )


@gen_ops.doc_from("FractionalAvgPool")
def fractional_avg_pool(
    value,
    pooling_ratio,
    pseudo_random=False,
    overlapping=False,
    deterministic=False,
    seed=0,
    seed2=0,
    name=None,
):
    """fractional_max_pool with the mean of each pooling region.

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> x = np.arange(16.0).reshape(1, 4, 4, 1)
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     out, rows, cols = sess.run(tw.nn.fractional_avg_pool(x, [1.0, 2.0, 2.0, 1.0]))
      ...     print(out[0, :, :, 0].tolist())
      [[2.5, 4.5], [10.5, 12.5]]
    """
    return gen_ops.fractional_avg_pool(
        value,
        pooling_ratio,
        pseudo_random=pseudo_random,
        overlapping=overlapping,
        deterministic=deterministic,
        seed=seed,
        seed2=seed2,
        name=name,
    )


@gradients_impl.RegisterGradient("FractionalMaxPool")
def _fractional_max_pool_grad(op, grad, unused_row_grad, unused_col_grad):
    # The sequences the forward run drew (its outputs 1 and 2) give the regions.
    return [
        gen_ops.fractional_max_pool_grad(
            op.inputs[0],
            op.outputs[0],
            grad,
            op.outputs[1],
            op.outputs[2],
            overlapping=op.get_attr("overlapping"),
        )
    ]


@gradients_impl.RegisterGradient("FractionalAvgPool")
def _fractional_avg_pool_grad(op, grad, unused_row_grad, unused_col_grad):
    value = op.inputs[0]
    if value.shape.is_fully_defined():
        shape = value.shape.as_list()  # a constant, as TensorFlow passes it
    else:
        shape = array_ops.shape(value, out_type=dtypes.int64)
    return [
        gen_ops.fractional_avg_pool_grad(
            shape, grad, op.outputs[1], op.outputs[2], overlapping=op.get_attr("overlapping")
        )
    ]


# FractionalMaxPoolGrad and FractionalAvgPoolGrad have no gradient, as in TensorFlow (neither registered nor
# declared not differentiable): differentiating through them is a LookupError, not a silent zero.

"""Dropout (`tw.nn.dropout`), built from RandomUniform, GreaterEqual and SelectV2 as TensorFlow 2 builds it."""

import numbers

from tensorweave._src.framework import ops
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import math_ops
from tensorweave._src.ops import random_ops


def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    """Keeps each element of `x` with probability keep_prob (= 1 - rate),
    scaled by 1 / keep_prob, and sets the others to 0. `noise_shape` (which
    broadcasts to x's shape) makes the decision shared along dimensions of
    size 1.

    The graph is TensorFlow 2's (`tf.compat.v1.nn.dropout`): `1 - keep_prob` at
    the caller's scope, the output a "dropout/SelectV2" of the kept, scaled
    values and 0; a rate of 0 returns `x` itself.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     y = sess.run(tw.nn.dropout(tw.ones([1000]), rate=0.5, seed=1))
      ...     print(sorted(set(y.tolist())), 350 < (y > 0).sum() < 650)
      [0.0, 2.0] True
    """
    if keep_prob is not None and rate is not None:
        raise ValueError("Cannot specify both 'keep_prob' and 'rate'.")
    if keep_prob is not None:
        try:
            rate = 1.0 - keep_prob
        except TypeError:
            raise ValueError(f"`keep_prob` must be a floating point number or Tensor. Received: keep_prob={keep_prob}")
    if rate is None:
        raise ValueError("You must provide a rate to dropout.")
    graph = ops.get_default_graph()
    with graph.name_scope(name or "dropout"):
        is_rate_number = isinstance(rate, numbers.Real)
        if is_rate_number and (rate < 0 or rate >= 1):
            raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate={rate}")
        x = ops.convert_to_tensor(x, name="x")
        if not x.dtype.is_floating:
            raise ValueError(
                "`x.dtype` must be a floating point tensor as `x` will be scaled. "
                f"Received: x_dtype=<dtype: '{x.dtype.name}'>"
            )
        if is_rate_number and rate == 0:
            return x
        if is_rate_number:
            ret = math_ops.multiply(x, ops.convert_to_tensor(1 / (1 - rate), dtype=x.dtype))
            rate_t = rate
        else:
            rate_t = ops.convert_to_tensor(rate)
            rate_t.shape.with_rank(0)
            if rate_t.dtype != x.dtype:
                rate_t = math_ops.cast(rate_t, x.dtype, name="rate")
            ret = math_ops.realdiv(x, math_ops.subtract(ops.convert_to_tensor(1, dtype=x.dtype), rate_t))
        shape = array_ops.shape(x) if noise_shape is None else noise_shape
        uniform = random_ops.random_uniform(shape, seed=seed, dtype=x.dtype)
        keep_mask = math_ops.greater_equal(uniform, rate_t)
        result = math_ops.where_v2(keep_mask, ret, ops.convert_to_tensor(0, dtype=x.dtype))
        result.set_shape(x.shape)  # as TF: a rate of unknown shape must still be a scalar
        return result

"""Dropout (`tw.nn.dropout`), built from RandomUniform and Floor."""

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

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     y = sess.run(tw.nn.dropout(tw.ones([1000]), rate=0.5, seed=1))
      ...     print(sorted(set(y.tolist())), 350 < (y > 0).sum() < 650)
      [0.0, 2.0] True
    """
    if (keep_prob is None) == (rate is None):
        raise ValueError("Specify exactly one of keep_prob and rate")
    graph = ops.get_default_graph()
    with graph.name_scope(name or "dropout") as scope:
        x = ops.convert_to_tensor(x, name="x")
        if not x.dtype.is_floating:
            raise ValueError(f"x has to be a floating point tensor, got {x.dtype.name}")
        if rate is not None:
            if isinstance(rate, numbers.Real) and not 0 <= rate < 1:
                raise ValueError(f"rate must be a scalar in [0, 1), got {rate}")
            keep = 1 - ops.convert_to_tensor(rate, dtype=x.dtype, name="rate")
        else:
            if isinstance(keep_prob, numbers.Real) and not 0 < keep_prob <= 1:
                raise ValueError(f"keep_prob must be a scalar in (0, 1], got {keep_prob}")
            if isinstance(keep_prob, numbers.Real) and keep_prob == 1:
                return array_ops.identity(x, name=scope)
            keep = ops.convert_to_tensor(keep_prob, dtype=x.dtype, name="keep_prob")
        shape = array_ops.shape(x) if noise_shape is None else noise_shape
        uniform = random_ops.random_uniform(shape, seed=seed, dtype=x.dtype)
        # keep + uniform lies in [keep, 1 + keep): its floor is 1 with
        # probability keep, else 0.
        mask = math_ops.floor(keep + uniform)
        result = math_ops.multiply(x / keep, mask, name=scope)
        result.set_shape(x.shape)  # as TF: a keep_prob of unknown shape must still be a scalar
        return result

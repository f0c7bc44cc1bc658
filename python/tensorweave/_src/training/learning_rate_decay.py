"""Learning-rate schedules driven by the global step."""

import numpy as np

from tensorweave._src.framework import ops
from tensorweave._src.ops import constant_op
from tensorweave._src.ops import math_ops


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """learning_rate * decay_rate ^ (global_step / decay_steps), with the
    exponent floored when `staircase` (decay in discrete intervals).

    Args:
      learning_rate: the initial rate (a float or a float Tensor).
      global_step: the step count (an integer or float scalar; a Variable).
      decay_steps: positive; the number of steps per decay.
      decay_rate: the factor per `decay_steps` steps.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     step = tw.train.get_or_create_global_step()
      ...     lr = tw.train.exponential_decay(0.1, step, 10, 0.5, staircase=True)
      ...     sess.run(tw.global_variables_initializer())
      ...     _ = sess.run(step.assign(25))
      ...     print(round(float(sess.run(lr)), 6))
      0.025
    """
    if global_step is None:
        raise ValueError("global_step is required for exponential_decay.")
    graph = ops.get_default_graph()
    with graph.name_scope(name or "ExponentialDecay") as scope:
        learning_rate = ops.convert_to_tensor(learning_rate, name="learning_rate")
        if not learning_rate.dtype.is_floating:
            raise TypeError(f"learning_rate must be a float, got {learning_rate.dtype.name}")
        dtype = learning_rate.dtype
        global_step = ops.convert_to_tensor(global_step)
        decay_steps = _as_float(decay_steps, dtype)
        decay_rate = _as_float(decay_rate, dtype)
        return graph._create_op(
            "ExponentialDecay",
            [learning_rate, global_step, decay_steps, decay_rate],
            {"staircase": bool(staircase)},
            name=scope,
        ).outputs[0]


def _as_float(value, dtype):
    """A Python number or a Tensor of any real dtype, as a `dtype` tensor."""
    if isinstance(value, ops.Tensor) or hasattr(value, "_variable"):
        return math_ops.cast(value, dtype)
    return ops.convert_to_tensor(float(value), dtype=dtype)


def piecewise_constant(x, boundaries, values, name=None):
    """values[0] while x <= boundaries[0], values[1] while x <= boundaries[1],
    ..., values[-1] once x > boundaries[-1].

    Args:
      x: a scalar (typically the global step).
      boundaries: increasing Python numbers (or a 1-D numpy array), as many
        as `values` less one; converted to x's dtype.
      values: Python numbers (or a 1-D numpy array): the rates.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     step = tw.placeholder(tw.int64, [])
      ...     lr = tw.train.piecewise_constant(step, [100, 200], [1.0, 0.5, 0.1])
      ...     print([round(float(sess.run(lr, {step: s})), 6) for s in (100, 150, 250)])
      [1.0, 0.5, 0.1]
    """
    for what, seq in (("boundaries", boundaries), ("values", values)):
        if isinstance(seq, ops.Tensor) or any(
            isinstance(v, ops.Tensor) or hasattr(v, "_variable") for v in np.ravel(np.asarray(seq, dtype=object))
        ):
            raise TypeError(f"piecewise_constant takes {what} as Python numbers or a numpy array, not Tensors")
    if len(values) != len(boundaries) + 1:
        raise ValueError(
            f"The length of boundaries should be 1 less than the length of values: "
            f"{len(boundaries)} boundaries, {len(values)} values"
        )
    graph = ops.get_default_graph()
    with graph.name_scope(name or "PiecewiseConstant") as scope:
        x = ops.convert_to_tensor(x)
        boundaries = np.asarray(boundaries)
        if x.dtype.is_integer and boundaries.size and not np.all(np.equal(np.mod(boundaries, 1), 0)):
            raise ValueError(f"Boundaries {boundaries.tolist()} are not integers but x is {x.dtype.name}")
        b = constant_op.constant(boundaries.astype(x.dtype.as_numpy_dtype).reshape(-1), name="boundaries")
        v = constant_op.constant(list(values) if not isinstance(values, np.ndarray) else values, name="values")
        return graph._create_op("PiecewiseConstant", [x, b, v], name=scope).outputs[0]

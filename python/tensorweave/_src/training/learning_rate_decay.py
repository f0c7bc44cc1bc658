"""Learning-rate schedules driven by the global step."""

import numpy as np

from tensorweave._src.framework import dtypes, ops
from tensorweave._src.ops import array_ops, constant_op, math_ops


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


def _is_tensor(v):
    return isinstance(v, ops.Tensor) or hasattr(v, "_variable")


def _converted_dtype(v):
    """The dtype convert_to_tensor gives `v` (TF's rules: a Python int int32 when it fits, a float float32)."""
    if _is_tensor(v):
        return v.dtype.base_dtype
    if isinstance(v, (np.generic, np.ndarray)):
        return dtypes.as_dtype(v.dtype)
    if isinstance(v, bool):
        return dtypes.bool
    if isinstance(v, int):
        return dtypes.int32 if -(2**31) <= v < 2**31 else dtypes.int64
    return dtypes.float32


def _vector(items, dtype, name):
    """One 1-D `dtype` tensor of `items` (Python numbers or scalar Tensors)."""
    if not any(_is_tensor(v) for v in items):
        return constant_op.constant(np.asarray(items, dtype=dtype.as_numpy_dtype).reshape(-1), name=name)
    return array_ops.stack([math_ops.cast(v, dtype) for v in items], name=name)


def piecewise_constant(x, boundaries, values, name=None):
    """values[0] while x <= boundaries[0], values[1] while x <= boundaries[1],
    ..., values[-1] once x > boundaries[-1].

    Args:
      x: a scalar (typically the global step).
      boundaries: increasing Python numbers or scalar Tensors (or a 1-D numpy
        array), as many as `values` less one, of x's dtype (int32 ones are
        promoted for an int64 x, as TF's).
      values: Python numbers or scalar Tensors (or a 1-D numpy array) of one
        dtype: the rates.

    Raises ValueError, as TF's, when the lengths do not match, a boundary's
    dtype is not x's or the values' dtypes differ.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     step = tw.placeholder(tw.int64, [])
      ...     lr = tw.train.piecewise_constant(step, [100, 200], [1.0, 0.5, 0.1])
      ...     print([round(float(sess.run(lr, {step: s})), 6) for s in (100, 150, 250)])
      [1.0, 0.5, 0.1]
    """
    boundaries = list(np.ravel(boundaries)) if isinstance(boundaries, np.ndarray) else list(boundaries)
    values = list(np.ravel(values)) if isinstance(values, np.ndarray) else list(values)
    if len(values) != len(boundaries) + 1:
        raise ValueError("The length of boundaries should be 1 less than the length of values")  # TF's wording
    graph = ops.get_default_graph()
    with graph.name_scope(name or "PiecewiseConstant") as scope:
        x = ops.convert_to_tensor(x)
        x_dtype = x.dtype.base_dtype
        for b in boundaries:
            b_dtype = _converted_dtype(b)
            if b_dtype != x_dtype and not (b_dtype == dtypes.int32 and x_dtype == dtypes.int64):
                raise ValueError(f"Boundaries ({b_dtype}) must have the same dtype as x ({x_dtype}).")
        value_dtypes = [_converted_dtype(v) for v in values]
        for v_dtype in value_dtypes[1:]:
            if v_dtype != value_dtypes[0]:
                raise ValueError(f"Values must have elements all with the same dtype ({value_dtypes[0]} vs {v_dtype}).")
        b = _vector(boundaries, x_dtype, "boundaries")
        v = _vector(values, value_dtypes[0], "values")
        return graph._create_op("PiecewiseConstant", [x, b, v], name=scope).outputs[0]


# --- the composite schedules (TensorFlow builds these from math ops too) ---------------------------------------


def _schedule_inputs(learning_rate, global_step, what):
    """(learning_rate tensor, its dtype, global_step cast to it)."""
    if global_step is None:
        raise ValueError(f"global_step is required for {what}.")
    learning_rate = ops.convert_to_tensor(learning_rate, name="initial_learning_rate")
    if not learning_rate.dtype.is_floating:
        raise TypeError(f"learning_rate must be a float, got {learning_rate.dtype.name}")
    dtype = learning_rate.dtype
    return learning_rate, dtype, math_ops.cast(global_step, dtype)


def _cos_of_pi_times(fraction):
    from tensorweave._src.ops import gen_ops

    pi = constant_op.constant(np.pi, dtype=fraction.dtype)
    return gen_ops.cos(pi * fraction)


def polynomial_decay(
    learning_rate, global_step, decay_steps, end_learning_rate=0.0001, power=1.0, cycle=False, name=None
):
    """(learning_rate - end_learning_rate) * (1 - step / decay_steps) ^ power + end_learning_rate, with step
    capped at decay_steps; with `cycle`, decay_steps grows to the first multiple of itself above the step.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     step = tw.placeholder(tw.int64, [])
      ...     lr = tw.train.polynomial_decay(1.0, step, 10, end_learning_rate=0.0, power=2.0)
      ...     print([round(float(sess.run(lr, {step: s})), 4) for s in (0, 5, 20)])
      [1.0, 0.25, 0.0]
    """
    with ops.get_default_graph().name_scope(name or "PolynomialDecay") as scope:
        learning_rate, dtype, step = _schedule_inputs(learning_rate, global_step, "polynomial_decay")
        end_learning_rate = math_ops.cast(end_learning_rate, dtype)
        power = math_ops.cast(power, dtype)
        decay_steps_t = math_ops.cast(decay_steps, dtype)
        if cycle:
            # The first multiple of decay_steps above the step (1 at step 0).
            multiplier = math_ops.where_v2(
                math_ops.equal(step, 0), constant_op.constant(1.0, dtype), math_ops.ceil(step / decay_steps_t)
            )
            decay_steps_t = math_ops.multiply(decay_steps_t, multiplier)
        else:
            step = math_ops.minimum(step, decay_steps_t)
        p = math_ops.divide(step, decay_steps_t)
        return math_ops.add(
            math_ops.multiply(learning_rate - end_learning_rate, math_ops.pow(1 - p, power)),
            end_learning_rate,
            name=scope,
        )


def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """learning_rate * exp(-decay_rate * step / decay_steps) (the exponent floored when `staircase`).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     lr = tw.train.natural_exp_decay(0.5, 10, 5, 0.5)
      ...     print(round(float(sess.run(lr)), 4))
      0.1839
    """
    if global_step is None:
        raise ValueError("global_step is required for natural_exp_decay.")
    natural_exp_rate = math_ops.exp(math_ops.negative(decay_rate))
    # TensorFlow's composite (its ExponentialDecay schedule), op for op.
    with ops.get_default_graph().name_scope(name or "ExponentialDecay") as scope:
        learning_rate, dtype, step = _schedule_inputs(learning_rate, global_step, "natural_exp_decay")
        p = step / math_ops.cast(decay_steps, dtype)
        if staircase:
            p = math_ops.floor(p)
        return math_ops.multiply(learning_rate, math_ops.pow(math_ops.cast(natural_exp_rate, dtype), p), name=scope)


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """learning_rate / (1 + decay_rate * step / decay_steps) (the ratio floored when `staircase`).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     lr = tw.train.inverse_time_decay(0.5, 10, 5, 0.5)
      ...     print(round(float(sess.run(lr)), 4))
      0.25
    """
    with ops.get_default_graph().name_scope(name or "InverseTimeDecay") as scope:
        learning_rate, dtype, step = _schedule_inputs(learning_rate, global_step, "inverse_time_decay")
        p = step / math_ops.cast(decay_steps, dtype)
        if staircase:
            p = math_ops.floor(p)
        denominator = math_ops.add(
            constant_op.constant(1.0, dtype), math_ops.multiply(math_ops.cast(decay_rate, dtype), p)
        )
        return math_ops.divide(learning_rate, denominator, name=scope)


def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name=None):
    """learning_rate * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, decay_steps) / decay_steps)) + alpha)
    (Loshchilov and Hutter, SGDR, 2017).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     lr = tw.train.cosine_decay(1.0, 5, 10)
      ...     print(round(float(sess.run(lr)), 4))
      0.5
    """
    with ops.get_default_graph().name_scope(name or "CosineDecay") as scope:
        learning_rate, dtype, step = _schedule_inputs(learning_rate, global_step, "cosine_decay")
        decay_steps = math_ops.cast(decay_steps, dtype)
        fraction = math_ops.minimum(step, decay_steps) / decay_steps
        cosine_decayed = 0.5 * (1.0 + _cos_of_pi_times(fraction))
        decayed = (1 - math_ops.cast(alpha, dtype)) * cosine_decayed + math_ops.cast(alpha, dtype)
        del scope  # TensorFlow leaves this product unnamed (CosineDecay/Mul_3)
        return math_ops.multiply(learning_rate, decayed)


def cosine_decay_restarts(learning_rate, global_step, first_decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0, name=None):
    """Cosine decay with warm restarts (SGDR): period i lasts first_decay_steps * t_mul^i steps and starts at
    learning_rate * m_mul^i.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     step = tw.placeholder(tw.int32, [])
      ...     lr = tw.train.cosine_decay_restarts(1.0, step, 10, t_mul=1.0, m_mul=0.5)
      ...     print([round(float(sess.run(lr, {step: s})), 4) for s in (0, 5, 10)])
      [1.0, 0.5, 0.5]
    """
    with ops.get_default_graph().name_scope(name or "SGDRDecay") as scope:
        learning_rate, dtype, step = _schedule_inputs(learning_rate, global_step, "cosine_decay_restarts")
        first_decay_steps = math_ops.cast(first_decay_steps, dtype)
        alpha = math_ops.cast(alpha, dtype)
        t_mul = math_ops.cast(t_mul, dtype)
        m_mul = math_ops.cast(m_mul, dtype)
        completed = step / first_decay_steps
        # Equal periods (t_mul == 1) and growing ones, selected as TensorFlow's cond does.
        i_equal = math_ops.floor(completed)
        fraction_equal = completed - i_equal
        i_geometric = math_ops.floor(math_ops.log(1.0 - completed * (1.0 - t_mul)) / math_ops.log(t_mul))
        sum_r = (1.0 - t_mul**i_geometric) / (1.0 - t_mul)
        fraction_geometric = (completed - sum_r) / t_mul**i_geometric
        equal = math_ops.equal(t_mul, constant_op.constant(1.0, dtype))
        i_restart = math_ops.where_v2(equal, i_equal, i_geometric)
        fraction = math_ops.where_v2(equal, fraction_equal, fraction_geometric)
        cosine_decayed = 0.5 * m_mul**i_restart * (1.0 + _cos_of_pi_times(fraction))
        decayed = (1 - alpha) * cosine_decayed + alpha
        return math_ops.multiply(learning_rate, decayed, name=scope)


def _linear_cosine(learning_rate, dtype, step, decay_steps, num_periods, alpha, beta, noise_fn, scope):
    decay_steps = math_ops.cast(decay_steps, dtype)
    step = math_ops.minimum(step, decay_steps)
    linear_decayed = (decay_steps - step) / decay_steps
    linear_decayed = noise_fn(linear_decayed, step)
    fraction = 2.0 * math_ops.cast(num_periods, dtype) * (step / decay_steps)
    cosine_decayed = 0.5 * (1.0 + _cos_of_pi_times(fraction))
    decayed = (math_ops.cast(alpha, dtype) + linear_decayed) * cosine_decayed + math_ops.cast(beta, dtype)
    return math_ops.multiply(learning_rate, decayed, name=scope)


def linear_cosine_decay(learning_rate, global_step, decay_steps, num_periods=0.5, alpha=0.0, beta=0.001, name=None):
    """learning_rate * ((alpha + linear) * cosine + beta) with linear = (decay_steps - step) / decay_steps and
    cosine = 0.5 * (1 + cos(2 pi num_periods step / decay_steps)), step capped at decay_steps (Bello et al.,
    Neural Optimizer Search, 2017).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     lr = tw.train.linear_cosine_decay(1.0, 5, 10, beta=0.0)
      ...     print(round(float(sess.run(lr)), 4))
      0.25
    """
    with ops.get_default_graph().name_scope(name or "LinearCosineDecay") as scope:
        learning_rate, dtype, step = _schedule_inputs(learning_rate, global_step, "linear_cosine_decay")
        return _linear_cosine(
            learning_rate, dtype, step, decay_steps, num_periods, alpha, beta, lambda linear, _: linear, scope
        )


def noisy_linear_cosine_decay(
    learning_rate,
    global_step,
    decay_steps,
    initial_variance=1.0,
    variance_decay=0.55,
    num_periods=0.5,
    alpha=0.0,
    beta=0.001,
    name=None,
):
    """linear_cosine_decay with Gaussian noise added to the linear term, of variance
    initial_variance / (1 + step) ^ variance_decay (a fresh draw each run).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     lr = tw.train.noisy_linear_cosine_decay(1.0, 5, 10, initial_variance=0.0, beta=0.0)
      ...     print(round(float(sess.run(lr)), 4))
      0.25
    """
    from tensorweave._src.ops import random_ops

    with ops.get_default_graph().name_scope(name or "NoisyLinearCosineDecay") as scope:
        learning_rate, dtype, step = _schedule_inputs(learning_rate, global_step, "noisy_linear_cosine_decay")

        def add_noise(linear, step):
            variance = math_ops.cast(initial_variance, dtype) / math_ops.pow(
                1.0 + step, math_ops.cast(variance_decay, dtype)
            )
            return linear + random_ops.random_normal([], stddev=math_ops.sqrt(variance), dtype=dtype)

        return _linear_cosine(learning_rate, dtype, step, decay_steps, num_periods, alpha, beta, add_noise, scope)

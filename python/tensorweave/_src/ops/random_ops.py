"""Random tensors, reproducible under graph- and op-level seeds."""

from tensorweave._src.framework import dtypes, ops, random_seed
from tensorweave._src.ops import array_ops, gen_ops, math_ops


def _random(op_type, shape, dtype, seed, name):
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"{op_type} needs a float dtype, got {dtype.name}")
    seed1, seed2 = random_seed.get_seed(seed)
    shape_t = array_ops._shape_tensor(shape)
    return gen_ops.wrapper(op_type)(shape_t, dtype=dtype, seed=seed1 or 0, seed2=seed2 or 0, name=name)


def random_uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """Uniform values in [minval, maxval) (maxval defaults to 1 for floats; integer dtypes need it).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = sess.run(tw.random_uniform([1000], seed=1))
      ...     print(bool(0 <= x.min() and x.max() < 1))
      True
    """
    dtype = dtypes.as_dtype(dtype)
    graph = ops.get_default_graph()
    if dtype.is_integer:
        if maxval is None:
            raise ValueError(f"Must specify maxval for integer dtype {dtype.name}")
        with graph.name_scope(name or "random_uniform") as scope:
            shape_t = array_ops._shape_tensor(shape)
            lo = ops.convert_to_tensor(minval, dtype=dtype, name="min")
            hi = ops.convert_to_tensor(maxval, dtype=dtype, name="max")
            seed1, seed2 = random_seed.get_seed(seed)
            return gen_ops.wrapper("RandomUniformInt")(shape_t, lo, hi, seed=seed1 or 0, seed2=seed2 or 0, name=scope)
    maxval = 1 if maxval is None else maxval
    with graph.name_scope(name or "random_uniform") as scope:
        shape_t = array_ops._shape_tensor(shape)
        # As TensorFlow: [0, 1) given as Python ints is the op's own output; other bounds scale and shift it.
        minval_is_zero = isinstance(minval, int) and minval == 0
        maxval_is_one = isinstance(maxval, int) and maxval == 1
        if not minval_is_zero or not maxval_is_one:
            minval = ops.convert_to_tensor(minval, dtype=dtype, name="min")
            maxval = ops.convert_to_tensor(maxval, dtype=dtype, name="max")
        rnd = _random("RandomUniform", shape_t, dtype, seed, "RandomUniform")
        if minval_is_zero:
            return rnd if maxval_is_one else math_ops.multiply(rnd, maxval)
        return math_ops.add(rnd * (maxval - minval), minval, name=scope)


def random_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Normal values with the given mean and standard deviation."""
    graph = ops.get_default_graph()
    with graph.name_scope(name or "random_normal") as scope:
        shape_t = array_ops._shape_tensor(shape)
        mean = ops.convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev = ops.convert_to_tensor(stddev, dtype=dtype, name="stddev")
        rnd = _random("RandomStandardNormal", shape_t, dtype, seed, "RandomStandardNormal")
        return math_ops.add(math_ops.multiply(rnd, stddev, name="mul"), mean, name=scope)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Normal values, redrawn when more than 2 standard deviations away."""
    graph = ops.get_default_graph()
    with graph.name_scope(name or "truncated_normal") as scope:
        shape_t = array_ops._shape_tensor(shape)
        mean = ops.convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev = ops.convert_to_tensor(stddev, dtype=dtype, name="stddev")
        rnd = _random("TruncatedNormal", shape_t, dtype, seed, "TruncatedNormal")
        return math_ops.add(math_ops.multiply(rnd, stddev, name="mul"), mean, name=scope)


@gen_ops.doc_from("RandomShuffle")
def random_shuffle(value, seed=None, name=None):
    """The op's seeds come from `seed` and the graph's seed (`tw.set_random_seed`).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sorted(sess.run(tw.random_shuffle([1, 2, 3, 4], seed=7)).tolist()))
      [1, 2, 3, 4]
    """
    value = ops.convert_to_tensor(value)
    seed1, seed2 = random_seed.get_seed(seed)
    return gen_ops.random_shuffle(value, seed=seed1 or 0, seed2=seed2 or 0, name=name or "RandomShuffle")


@gen_ops.doc_from("Multinomial")
def multinomial(logits, num_samples, seed=None, name=None, output_dtype=None):
    """An int64 [batch, num_samples] tensor unless `output_dtype` says int32.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.multinomial([[-1e9, 0.0]], 3, seed=1)))
      [[1 1 1]]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "multinomial") as scope:
        logits = ops.convert_to_tensor(logits, name="logits")
        n = ops.convert_to_tensor(num_samples, dtype=dtypes.int32, name="num_samples")
        seed1, seed2 = random_seed.get_seed(seed)
        out = dtypes.as_dtype(output_dtype or dtypes.int64)
        return gen_ops.multinomial(logits, n, seed=seed1 or 0, seed2=seed2 or 0, output_dtype=out, name=scope)


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """Draws from the categorical distributions of each row of `logits` (tf.random.categorical: one Multinomial op).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.random.categorical([[-1e9, 0.0]], 2, seed=1)))
      [[1 1]]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "categorical") as scope:
        logits = ops.convert_to_tensor(logits, name="logits")
        n = ops.convert_to_tensor(num_samples, dtype=dtypes.int32, name="num_samples")
        seed1, seed2 = random_seed.get_seed(seed)
        out = dtypes.as_dtype(dtype or dtypes.int64)
        return gen_ops.multinomial(logits, n, seed=seed1 or 0, seed2=seed2 or 0, output_dtype=out, name=scope)


def random_gamma(shape, alpha, beta=None, dtype=dtypes.float32, seed=None, name=None):
    """`shape` draws from Gamma(alpha, beta) for each element of broadcast(alpha, beta): the result is
    [shape..., broadcast shape...]. beta is the rate (inverse scale), 1 by default.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.random_gamma([10], [0.5, 1.5], seed=1)).shape)
      (10, 2)
    """
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise TypeError(f"random_gamma needs a float dtype, got {dtype.name}")
    graph = ops.get_default_graph()
    with graph.name_scope(name or "random_gamma"):
        shape_t = array_ops._shape_tensor(shape)
        alpha = ops.convert_to_tensor(alpha, dtype=dtype, name="alpha")
        beta = ops.convert_to_tensor(beta if beta is not None else 1, dtype=dtype, name="beta")
        alpha_broadcast = alpha + array_ops.zeros_like(beta)
        seed1, seed2 = random_seed.get_seed(seed)
        draws = gen_ops.random_gamma(shape_t, alpha_broadcast, seed=seed1 or 0, seed2=seed2 or 0)
        tiny = ops.convert_to_tensor(dtype.as_numpy_dtype(_tiny(dtype)), dtype=dtype)
        return math_ops.maximum(tiny, draws / beta)


def _tiny(dtype):
    import numpy as np

    return np.finfo(dtype.as_numpy_dtype).tiny


def random_poisson(lam, shape, dtype=dtypes.float32, seed=None, name=None):
    """`shape` draws from Poisson(lam) for each element of `lam`: the result is [shape..., lam's shape...].

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.random_poisson([0.0, 0.0], [3], seed=1)))
      [[0. 0.]
       [0. 0.]
       [0. 0.]]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "random_poisson") as scope:
        shape_t = array_ops._shape_tensor(shape)
        lam = ops.convert_to_tensor(lam, name="lam")
        seed1, seed2 = random_seed.get_seed(seed)
        return gen_ops.random_poisson_v2(
            shape_t, lam, seed=seed1 or 0, seed2=seed2 or 0, dtype=dtypes.as_dtype(dtype), name=scope
        )


def random_crop(value, size, seed=None, name=None):
    """A random `size` slice of `value` (each dim of size at most value's): an offset drawn uniformly per dim.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.random_crop([[1, 2], [3, 4]], [2, 2], seed=1)))
      [[1 2]
       [3 4]]
    """
    from tensorweave._src.framework import errors

    graph = ops.get_default_graph()
    with graph.name_scope(name or "random_crop") as scope:
        value = ops.convert_to_tensor(value, name="value")
        size = ops.convert_to_tensor(size, dtype=dtypes.int32, name="size")
        shape = array_ops.shape(value)
        static_value, static_size = value.shape, array_ops.constant_value(size)
        if static_value.ndims is not None and static_size is not None:
            if len(static_size) != static_value.ndims:
                raise ValueError(f"random_crop: size {list(static_size)} must have one entry per dim of {static_value}")
            for want, have in zip(static_size, static_value.as_list()):
                if have is not None and want > have:
                    raise errors.InvalidArgumentError(
                        None, None, f"Need value.shape >= size, got {static_value} and {list(static_size)}"
                    )
        limit = shape - size + 1
        # Offsets in [0, limit) as TF draws them: an int32 in [0, 2**31 - 1) modulo the limit (TF's values).
        draw = random_uniform(array_ops.shape(shape), dtype=dtypes.int32, maxval=dtypes.int32.max, seed=seed)
        return array_ops.slice(value, draw % limit, size, name=scope)


# --- stateless: the values are a function of the seed tensor ([2]) and the shape ---------------------------------
def _stateless_seed(seed):
    seed = ops.convert_to_tensor(seed, name="seed")
    if seed.dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"seed must be int32 or int64, got {seed.dtype.name}")
    if seed.shape.ndims is not None and seed.shape.as_list() not in ([2], [None]):
        raise ValueError(f"seed must have shape [2], not {seed.shape}")
    return seed


def stateless_random_uniform(shape, seed, minval=0, maxval=None, dtype=dtypes.float32, name=None):
    """Uniform values in [minval, maxval), the same for the same seed ([2] ints) in every run (tensorweave's
    generator: not TensorFlow's numbers).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     a, b = sess.run([tw.random.stateless_uniform([3], [1, 2])] * 2)
      ...     print(bool((a == b).all()))
      True
    """
    dtype = dtypes.as_dtype(dtype)
    graph = ops.get_default_graph()
    with graph.name_scope(name or "stateless_random_uniform") as scope:
        shape_t = array_ops._shape_tensor(shape)
        seed = _stateless_seed(seed)
        if dtype.is_integer:
            if maxval is None:
                raise ValueError(f"Must specify maxval for integer dtype {dtype.name}")
            lo = ops.convert_to_tensor(minval, dtype=dtype, name="min")
            hi = ops.convert_to_tensor(maxval, dtype=dtype, name="max")
            return gen_ops.stateless_random_uniform_int(shape_t, seed, lo, hi, name=scope)
        rnd = gen_ops.stateless_random_uniform(shape_t, seed, dtype=dtype)
        maxval = 1 if maxval is None else maxval
        lo = ops.convert_to_tensor(minval, dtype=dtype, name="min")
        hi = ops.convert_to_tensor(maxval, dtype=dtype, name="max")
        return math_ops.add(rnd * (hi - lo), lo, name=scope)


def stateless_random_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
    """Normal values, the same for the same seed ([2] ints) in every run."""
    graph = ops.get_default_graph()
    with graph.name_scope(name or "stateless_random_normal") as scope:
        shape_t = array_ops._shape_tensor(shape)
        seed = _stateless_seed(seed)
        mean = ops.convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev = ops.convert_to_tensor(stddev, dtype=dtype, name="stddev")
        rnd = gen_ops.stateless_random_normal(shape_t, seed, dtype=dtypes.as_dtype(dtype))
        return math_ops.add(rnd * stddev, mean, name=scope)


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
    """Normal values within 2 standard deviations, the same for the same seed in every run."""
    graph = ops.get_default_graph()
    with graph.name_scope(name or "stateless_truncated_normal") as scope:
        shape_t = array_ops._shape_tensor(shape)
        seed = _stateless_seed(seed)
        mean = ops.convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev = ops.convert_to_tensor(stddev, dtype=dtype, name="stddev")
        rnd = gen_ops.stateless_truncated_normal(shape_t, seed, dtype=dtypes.as_dtype(dtype))
        return math_ops.add(rnd * stddev, mean, name=scope)


def stateless_multinomial(logits, num_samples, seed, output_dtype=dtypes.int64, name=None):
    """Class draws from each row of logits, the same for the same seed in every run."""
    graph = ops.get_default_graph()
    with graph.name_scope(name or "stateless_multinomial") as scope:
        logits = ops.convert_to_tensor(logits, name="logits")
        n = ops.convert_to_tensor(num_samples, dtype=dtypes.int32, name="num_samples")
        seed = _stateless_seed(seed)
        return gen_ops.stateless_multinomial(logits, n, seed, output_dtype=dtypes.as_dtype(output_dtype), name=scope)


def stateless_categorical(logits, num_samples, seed, dtype=dtypes.int64, name=None):
    """Class draws from each row of logits, the same for the same seed in every run."""
    return stateless_multinomial(logits, num_samples, seed, output_dtype=dtype, name=name or "stateless_categorical")


def stateless_random_gamma(shape, seed, alpha, beta=None, dtype=dtypes.float32, name=None):
    """Gamma(alpha, beta) draws of `shape` (alpha, beta: scalars or its trailing shape), the same for the same seed."""
    dtype = dtypes.as_dtype(dtype)
    graph = ops.get_default_graph()
    with graph.name_scope(name or "stateless_random_gamma") as scope:
        shape_t = array_ops._shape_tensor(shape)
        seed = _stateless_seed(seed)
        alpha = ops.convert_to_tensor(alpha, dtype=dtype, name="alpha")
        beta = ops.convert_to_tensor(1 if beta is None else beta, dtype=dtype, name="beta")
        alpha_broadcast = alpha + array_ops.zeros_like(beta)
        draws = gen_ops.stateless_random_gamma_v2(shape_t, seed, alpha_broadcast)
        return math_ops.truediv(draws, beta, name=scope)


def stateless_random_poisson(shape, seed, lam, dtype=dtypes.int32, name=None):
    """Poisson(lam) draws of `shape` (lam: a scalar or its trailing shape), the same for the same seed."""
    graph = ops.get_default_graph()
    with graph.name_scope(name or "stateless_random_poisson") as scope:
        shape_t = array_ops._shape_tensor(shape)
        seed = _stateless_seed(seed)
        lam = ops.convert_to_tensor(lam, name="lam")
        return gen_ops.stateless_random_poisson(shape_t, seed, lam, dtype=dtypes.as_dtype(dtype), name=scope)


def _full_int(shape, seed, dtype):
    """Integers over (nearly) all of dtype's range from a stateless draw."""
    dtype = dtypes.as_dtype(dtype)
    if dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"seeds must be int32 or int64, got {dtype.name}")
    bound = 2**31 - 1 if dtype == dtypes.int32 else 2**62
    return stateless_random_uniform(shape, seed, minval=-bound, maxval=bound, dtype=dtype)


def split(seed, num=2, alg="auto_select"):
    """`num` new [2] seeds derived from `seed` (a [num, 2] tensor), for the stateless ops.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.random.split([1, 2], 3)).shape)
      (3, 2)
    """
    del alg
    seed = _stateless_seed(seed)
    return _full_int([num, 2], seed, seed.dtype)


def fold_in(seed, data, alg="auto_select"):
    """A new [2] seed from `seed` and the integer `data` (a stateless draw from seed, beside data)."""
    del alg
    data = ops.convert_to_tensor(data, name="data")
    seed1 = _full_int([], _stateless_seed(seed), data.dtype)
    return array_ops.stack([seed1, data])

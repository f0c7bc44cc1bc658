"""Random tensors, reproducible under graph- and op-level seeds."""

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.framework import random_seed
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import gen_ops
from tensorweave._src.ops import math_ops


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
            # Integers in [lo, hi) from a float64 draw: floor(u * (hi - lo)) + lo, kept below hi.
            u = _random("RandomUniform", shape_t, dtypes.float64, seed, "RandomUniform")
            span = math_ops.cast(hi - lo, dtypes.float64)
            k = math_ops.cast(math_ops.floor(u * span), dtype)
            return math_ops.add(math_ops.minimum(k, hi - lo - 1), lo, name=scope)
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

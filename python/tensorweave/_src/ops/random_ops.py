"""Random tensors, reproducible under graph- and op-level seeds."""

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.framework import random_seed
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import math_ops


def _random(op_type, shape, dtype, seed, name):
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"{op_type} needs a float dtype, got {dtype.name}")
    seed1, seed2 = random_seed.get_seed(seed)
    graph = ops.get_default_graph()
    shape_t = array_ops._shape_tensor(shape)
    attrs = {"dtype": dtype.as_datatype_enum, "seed": seed1 or 0, "seed2": seed2 or 0}
    return graph._create_op(op_type, [shape_t], attrs, name=name).outputs[0]


def random_uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """Uniform values in [minval, maxval) (maxval defaults to 1).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = sess.run(tw.random_uniform([1000], seed=1))
      ...     print(bool(0 <= x.min() and x.max() < 1))
      True
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "random_uniform") as scope:
        rnd = _random("RandomUniform", shape, dtype, seed, "RandomUniform")
        maxval = 1 if maxval is None else maxval
        if minval == 0 and maxval == 1 and not isinstance(maxval, ops.Tensor):
            return array_ops.identity(rnd, name=scope)
        lo = ops.convert_to_tensor(minval, dtype=dtype)
        hi = ops.convert_to_tensor(maxval, dtype=dtype)
        return math_ops.add(rnd * (hi - lo), lo, name=scope)


def random_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Normal values with the given mean and standard deviation."""
    graph = ops.get_default_graph()
    with graph.name_scope(name or "random_normal") as scope:
        rnd = _random("RandomStandardNormal", shape, dtype, seed, "RandomStandardNormal")
        mean = ops.convert_to_tensor(mean, dtype=dtype)
        stddev = ops.convert_to_tensor(stddev, dtype=dtype)
        return math_ops.add(rnd * stddev, mean, name=scope)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Normal values, redrawn when more than 2 standard deviations away."""
    graph = ops.get_default_graph()
    with graph.name_scope(name or "truncated_normal") as scope:
        rnd = _random("TruncatedNormal", shape, dtype, seed, "TruncatedNormal")
        mean = ops.convert_to_tensor(mean, dtype=dtype)
        stddev = ops.convert_to_tensor(stddev, dtype=dtype)
        return math_ops.add(rnd * stddev, mean, name=scope)

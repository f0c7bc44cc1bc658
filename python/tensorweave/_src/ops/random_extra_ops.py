"""tf.random.stateless_binomial and tf.random.stateless_parameterized_truncated_normal: TensorFlow's algorithms on
TensorFlow's stateless generator, so the same seed gives TensorFlow's numbers.

The parameters (counts/probs; means/stddevs/minvals/maxvals) broadcast against each other to a batch shape that
must be the trailing dims of `shape`; the leading dims count the draws per parameter set.
"""

import numpy as np

import tensorweave as _tw  # the public namespace; used only when a gradient is built (after package import)
from tensorweave._src.framework import dtypes, ops
from tensorweave._src.ops import array_ops, gen_ops, gradients_impl
from tensorweave._src.ops.random_ops import _stateless_seed


def stateless_random_binomial(shape, seed, counts, probs, output_dtype=dtypes.int32, name=None):
    """Binomial(counts, probs) draws of `shape`, a function of `seed` ([2] ints) alone: TensorFlow's values.

    counts and probs (float16/32/64; probs defaults to float32, counts to probs' dtype) broadcast to the trailing
    dims of `shape`. A probs <= 0 or counts <= 0 draws 0, probs >= 1 draws counts; counts must be finite.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.random.stateless_binomial([2, 3], [1, 2], counts=[0.0, 5.0, 9.0], probs=1.0)))
      [[0 5 9]
       [0 5 9]]
    """
    with ops.name_scope(name, "stateless_random_binomial", [shape, seed, counts, probs]):
        shape_t = array_ops._shape_tensor(shape)
        probs = ops.convert_to_tensor(probs, name="probs", preferred_dtype=dtypes.float32)
        counts = ops.convert_to_tensor(counts, name="counts", preferred_dtype=probs.dtype)
        seed = _stateless_seed(seed)
        return gen_ops.stateless_random_binomial(shape_t, seed, counts, probs, dtype=dtypes.as_dtype(output_dtype))


def stateless_parameterized_truncated_normal(shape, seed, means=0.0, stddevs=1.0, minvals=-2.0, maxvals=2.0, name=None):
    """Normal(means, stddevs) draws within [minvals, maxvals] of `shape`, a function of `seed` alone: TensorFlow's
    values.

    The parameters broadcast to the trailing dims of `shape`. Each set needs stddevs > 0, minvals < maxvals and a
    finite bound (an InvalidArgumentError names them); one bound may be infinite.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = sess.run(tw.random.stateless_parameterized_truncated_normal([100, 2], [1, 2], minvals=[0.0, 5.0],
      ...                                                                    maxvals=[1.0, float("inf")]))
      ...     print(bool((x[:, 0] >= 0).all() and (x[:, 0] <= 1).all() and (x[:, 1] >= 5).all()))
      True
    """
    with ops.name_scope(name, "stateless_parameterized_truncated_normal", [shape, means, stddevs, minvals, maxvals]):
        shape_t = array_ops._shape_tensor(shape)
        means = ops.convert_to_tensor(means, name="means")
        stddevs = ops.convert_to_tensor(stddevs, name="stddevs")
        minvals = ops.convert_to_tensor(minvals, name="minvals")
        maxvals = ops.convert_to_tensor(maxvals, name="maxvals")
        seed = _stateless_seed(seed)
        return gen_ops.stateless_parameterized_truncated_normal(shape_t, seed, means, stddevs, minvals, maxvals)


gradients_impl.NotDifferentiable("StatelessRandomBinomial")


def _ndtr(x):
    """The standard normal CDF, as TensorFlow's random_grad._Ndtr."""
    half_sqrt_2 = _tw.constant(0.5 * np.sqrt(2.0), dtype=x.dtype, name="half_sqrt_2")
    w = x * half_sqrt_2
    z = _tw.abs(w)
    y = _tw.where(z < half_sqrt_2, 1.0 + _tw.math.erf(w), _tw.where(w > 0.0, 2.0 - _tw.math.erfc(z), _tw.math.erfc(z)))
    return 0.5 * y


@gradients_impl.RegisterGradient("StatelessParameterizedTruncatedNormal")
def _stateless_parameterized_truncated_normal_grad(op, grad):
    """TensorFlow's implicit reparameterization gradient: the sample moves with the parameters so that its
    truncated-normal CDF stays fixed (d/dmean = 1, d/dstddev = the standardized sample, and the bounds' terms)."""
    shape = op.inputs[0]
    mean, stddev, minval, maxval = op.inputs[2:6]
    sample = op.outputs[0]
    with ops.control_dependencies([grad]):
        minval_std = (minval - mean) / stddev
        maxval_std = (maxval - mean) / stddev
        sample_std = (sample - mean) / stddev
        cdf_sample = (_ndtr(sample_std) - _ndtr(minval_std)) / (_ndtr(maxval_std) - _ndtr(minval_std))
        info = np.finfo(mean.dtype.as_numpy_dtype)
        cdf_sample = _tw.clip_by_value(cdf_sample, info.tiny, 1 - info.eps)
        dmaxval = _tw.exp(0.5 * (sample_std**2 - maxval_std**2) + _tw.math.log(cdf_sample))
        dminval = _tw.exp(0.5 * (sample_std**2 - minval_std**2) + _tw.math.log1p(-cdf_sample))
        dmean = _tw.ones_like(sample_std)
        dstddev = sample_std

        shapes = [_tw.shape(t) for t in (mean, stddev, minval, maxval)]
        broadcast_shape = _tw.broadcast_dynamic_shape(shapes[0], shapes[1])
        broadcast_shape = _tw.broadcast_dynamic_shape(shapes[2], broadcast_shape)
        broadcast_shape = _tw.broadcast_dynamic_shape(shapes[3], broadcast_shape)
        extra_dims = _tw.range(_tw.size(shape) - _tw.size(broadcast_shape))
        grads = []
        for d, param_shape in zip((dmean, dstddev, dminval, dmaxval), shapes):
            g = _tw.reduce_sum(grad * d, axis=extra_dims)
            _, axes = gen_ops.broadcast_gradient_args(broadcast_shape, param_shape)
            grads.append(_tw.reshape(_tw.reduce_sum(g, axis=axes, keepdims=True), param_shape))
    return [None, None] + grads

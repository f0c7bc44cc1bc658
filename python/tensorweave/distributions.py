"""tw.distributions (TF1's tf.distributions / tf.compat.v1.distributions): Normal, Bernoulli, Uniform, Exponential
and kl_divergence, built from existing ops. Normal.sample is reparameterized (gradients flow to loc and scale).

Example:
  >>> import tensorweave as tw
  >>> d = tw.distributions.Normal(loc=0.0, scale=1.0)
  >>> with tw.Session() as sess:
  ...     print(round(float(sess.run(d.log_prob(0.0))), 4))
  -0.9189
"""

import math as _math

import numpy as _np

import tensorweave as _tw

__all__ = [
    "Distribution",
    "Normal",
    "Bernoulli",
    "Uniform",
    "Exponential",
    "Laplace",
    "Gamma",
    "Categorical",
    "kl_divergence",
    "ReparameterizationType",
    "FULLY_REPARAMETERIZED",
    "NOT_REPARAMETERIZED",
]


class ReparameterizationType:
    def __init__(self, rep_type):
        self._rep_type = rep_type

    def __repr__(self):
        return f"<Reparameterization Type: {self._rep_type}>"


FULLY_REPARAMETERIZED = ReparameterizationType("FULLY_REPARAMETERIZED")
NOT_REPARAMETERIZED = ReparameterizationType("NOT_REPARAMETERIZED")


class Distribution:
    """Base class: subclasses set self._params (name -> tensor) and implement the _methods."""

    reparameterization_type = NOT_REPARAMETERIZED

    def __init__(self, dtype, name, params):
        self._dtype = dtype
        self._name = name
        self._params = params

    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self):
        return self._name

    @property
    def parameters(self):
        return dict(self._params)

    def _broadcast(self):
        out = None
        for t in self._params.values():
            out = t if out is None else out + _tw.zeros_like(t)
        return out

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        return _tw.shape(self._broadcast())

    @property
    def batch_shape(self):
        shape = _tw.TensorShape([])
        for t in self._params.values():
            shape = _tw.broadcast_static_shape(shape, t.shape)
        return shape

    def event_shape_tensor(self, name="event_shape_tensor"):
        return _tw.constant([], dtype=_tw.int32)

    @property
    def event_shape(self):
        return _tw.TensorShape([])

    def _x(self, value):
        if isinstance(self, (Bernoulli, Categorical)):  # TF's Bernoulli takes float or int events and casts them
            return _tw.convert_to_tensor(value)
        return _tw.convert_to_tensor(value, dtype=self._dtype)

    def sample(self, sample_shape=(), seed=None, name="sample"):
        with _tw.name_scope(self._name + "/" + name):
            sample_shape = _tw.convert_to_tensor(sample_shape, dtype=_tw.int32, name="sample_shape")
            sample_shape = _tw.reshape(sample_shape, [-1])
            return self._sample_n(sample_shape, seed)

    def log_prob(self, value, name="log_prob"):
        with _tw.name_scope(self._name + "/" + name):
            return self._log_prob(self._x(value))

    def prob(self, value, name="prob"):
        with _tw.name_scope(self._name + "/" + name):
            return _tw.exp(self._log_prob(self._x(value)))

    def cdf(self, value, name="cdf"):
        with _tw.name_scope(self._name + "/" + name):
            return self._cdf(self._x(value))

    def log_cdf(self, value, name="log_cdf"):
        with _tw.name_scope(self._name + "/" + name):
            return _tw.log(self._cdf(self._x(value)))

    def entropy(self, name="entropy"):
        with _tw.name_scope(self._name + "/" + name):
            return self._entropy()

    def mean(self, name="mean"):
        with _tw.name_scope(self._name + "/" + name):
            return self._mean()

    def variance(self, name="variance"):
        with _tw.name_scope(self._name + "/" + name):
            return self._variance()

    def stddev(self, name="stddev"):
        with _tw.name_scope(self._name + "/" + name):
            return _tw.sqrt(self._variance())

    def mode(self, name="mode"):
        with _tw.name_scope(self._name + "/" + name):
            return self._mode()

    def _full_shape(self, sample_shape):
        return _tw.concat([sample_shape, self.batch_shape_tensor()], 0)


def _float(value, name, dtype=None):
    t = _tw.convert_to_tensor(value, dtype=dtype, name=name)
    if not t.dtype.is_floating:
        raise TypeError(f"{name} must be a floating-point tensor, got {t.dtype.name}")
    return t


class _LocScale(Distribution):
    """A distribution of a location `loc` and a scale `scale` (Normal, Laplace)."""

    reparameterization_type = FULLY_REPARAMETERIZED

    def __init__(self, loc, scale, name):
        loc = _float(loc, "loc")
        scale = _float(scale, "scale", loc.dtype)
        self._loc, self._scale = loc, scale
        super().__init__(loc.dtype, name, {"loc": loc, "scale": scale})

    @property
    def loc(self):
        return self._loc

    @property
    def scale(self):
        return self._scale


class Normal(_LocScale):
    """The Normal distribution with location `loc` and scale `scale` (tf.distributions.Normal)."""

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Normal"):
        super().__init__(loc, scale, name)

    def _sample_n(self, sample_shape, seed):
        eps = _tw.random_normal(self._full_shape(sample_shape), dtype=self._dtype, seed=seed)
        return eps * self._scale + self._loc

    def _z(self, x):
        return (x - self._loc) / self._scale

    def _log_prob(self, x):
        return -0.5 * _tw.square(self._z(x)) - (0.5 * _math.log(2.0 * _math.pi) + _tw.log(self._scale))

    def _cdf(self, x):
        return 0.5 * _tw.math.erfc(-self._z(x) / _math.sqrt(2.0))

    def _entropy(self):
        return 0.5 * _math.log(2.0 * _math.pi * _math.e) + _tw.log(self._scale) + _tw.zeros_like(self._loc)

    def _mean(self):
        return self._loc + _tw.zeros_like(self._scale)

    def _mode(self):
        return self._mean()

    def _variance(self):
        return _tw.square(self._scale) + _tw.zeros_like(self._loc)


class Uniform(Distribution):
    """The Uniform distribution on [low, high) (tf.distributions.Uniform)."""

    reparameterization_type = FULLY_REPARAMETERIZED

    def __init__(self, low=0.0, high=1.0, validate_args=False, allow_nan_stats=True, name="Uniform"):
        low = _float(low, "low")
        high = _float(high, "high", low.dtype)
        self._low, self._high = low, high
        super().__init__(low.dtype, name, {"low": low, "high": high})

    @property
    def low(self):
        return self._low

    @property
    def high(self):
        return self._high

    def range(self, name="range"):
        return self._high - self._low

    def _sample_n(self, sample_shape, seed):
        u = _tw.random_uniform(self._full_shape(sample_shape), dtype=self._dtype, seed=seed)
        return self._low + self.range() * u

    def _log_prob(self, x):
        inside = _tw.logical_and(x >= self._low, x < self._high)
        log_density = -_tw.log(self.range()) + _tw.zeros_like(x)
        return _tw.where(
            inside, log_density, _tw.fill(_tw.shape(log_density), _np.array(-_np.inf, self._dtype.as_numpy_dtype))
        )

    def _cdf(self, x):
        return _tw.clip_by_value((x - self._low) / self.range(), 0.0, 1.0)

    def _entropy(self):
        return _tw.log(self.range())

    def _mean(self):
        return (self._low + self._high) / 2.0

    def _variance(self):
        return _tw.square(self.range()) / 12.0

    def _mode(self):
        raise NotImplementedError("mode is not implemented: Uniform")


class Exponential(Distribution):
    """The Exponential distribution with rate `rate` (tf.distributions.Exponential)."""

    reparameterization_type = FULLY_REPARAMETERIZED

    def __init__(self, rate, validate_args=False, allow_nan_stats=True, name="Exponential"):
        rate = _float(rate, "rate")
        self._rate = rate
        super().__init__(rate.dtype, name, {"rate": rate})

    @property
    def rate(self):
        return self._rate

    def _sample_n(self, sample_shape, seed):
        tiny = _np.finfo(self._dtype.as_numpy_dtype).tiny
        u = _tw.random_uniform(self._full_shape(sample_shape), minval=tiny, maxval=1.0, dtype=self._dtype, seed=seed)
        return -_tw.log(u) / self._rate

    def _log_prob(self, x):
        return _tw.log(self._rate) - self._rate * x

    def _cdf(self, x):
        return -_tw.math.expm1(-self._rate * x)

    def _entropy(self):
        return 1.0 - _tw.log(self._rate)

    def _mean(self):
        return 1.0 / self._rate

    def _variance(self):
        return 1.0 / _tw.square(self._rate)

    def _mode(self):
        return _tw.zeros_like(self._rate)


class Laplace(_LocScale):
    """The Laplace distribution with location `loc` and scale `scale` (tf.distributions.Laplace)."""

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Laplace"):
        super().__init__(loc, scale, name)

    def _sample_n(self, sample_shape, seed):
        lo = _np.nextafter(_np.array(-1.0, self._dtype.as_numpy_dtype), 0)
        u = _tw.random_uniform(self._full_shape(sample_shape), minval=lo, maxval=1.0, dtype=self._dtype, seed=seed)
        return self._loc - self._scale * _tw.sign(u) * _tw.math.log1p(-_tw.abs(u))

    def _log_prob(self, x):
        return -_tw.abs(x - self._loc) / self._scale - _tw.log(2.0 * self._scale)

    def _cdf(self, x):
        z = (x - self._loc) / self._scale
        return 0.5 - 0.5 * _tw.sign(z) * _tw.math.expm1(-_tw.abs(z))

    def _entropy(self):
        return _math.log(2.0) + 1.0 + _tw.log(self._scale) + _tw.zeros_like(self._loc)

    def _mean(self):
        return self._loc + _tw.zeros_like(self._scale)

    def _mode(self):
        return self._mean()

    def _variance(self):
        return 2.0 * _tw.square(self._scale) + _tw.zeros_like(self._loc)


class Gamma(Distribution):
    """The Gamma distribution with `concentration` and `rate` (tf.distributions.Gamma)."""

    def __init__(self, concentration, rate, validate_args=False, allow_nan_stats=True, name="Gamma"):
        concentration = _float(concentration, "concentration")
        rate = _float(rate, "rate", concentration.dtype)
        self._concentration, self._rate = concentration, rate
        super().__init__(concentration.dtype, name, {"concentration": concentration, "rate": rate})

    @property
    def concentration(self):
        return self._concentration

    @property
    def rate(self):
        return self._rate

    def _sample_n(self, sample_shape, seed):
        return _tw.random_gamma(sample_shape, self._concentration, self._rate, dtype=self._dtype, seed=seed)

    def _log_prob(self, x):
        a, b = self._concentration, self._rate
        return _tw.math.xlogy(a - 1.0, x) - b * x + a * _tw.log(b) - _tw.lgamma(a)

    def _cdf(self, x):
        return _tw.math.igamma(self._concentration, self._rate * x)

    def _entropy(self):
        a = self._concentration
        return a - _tw.log(self._rate) + _tw.lgamma(a) + (1.0 - a) * _tw.digamma(a)

    def _mean(self):
        return self._concentration / self._rate

    def _variance(self):
        return self._concentration / _tw.square(self._rate)

    def _mode(self):
        mode = (self._concentration - 1.0) / self._rate
        return _tw.where(
            self._concentration > 1.0, mode, _tw.fill(_tw.shape(mode), _np.array(_np.nan, self._dtype.as_numpy_dtype))
        )


class Bernoulli(Distribution):
    """The Bernoulli distribution from `logits` or `probs` (exactly one; tf.distributions.Bernoulli)."""

    def __init__(
        self, logits=None, probs=None, dtype=_tw.int32, validate_args=False, allow_nan_stats=True, name="Bernoulli"
    ):
        if (logits is None) == (probs is None):
            raise ValueError("Must pass probs or logits, but not both.")
        if logits is not None:
            logits = _float(logits, "logits")
            probs = _tw.sigmoid(logits)
        else:
            probs = _float(probs, "probs")
            logits = _tw.log(probs) - _tw.math.log1p(-probs)
        self._logits, self._probs = logits, probs
        super().__init__(_tw.as_dtype(dtype), name, {"logits": logits})

    @property
    def logits(self):
        return self._logits

    @property
    def probs(self):
        return self._probs

    def _sample_n(self, sample_shape, seed):
        u = _tw.random_uniform(self._full_shape(sample_shape), dtype=self._probs.dtype, seed=seed)
        return _tw.cast(u < self._probs, self._dtype)

    def _log_prob(self, x):
        x = _tw.cast(x, self._logits.dtype)
        logits = self._logits + _tw.zeros_like(x)
        return -_tw.nn.sigmoid_cross_entropy_with_logits(labels=x + _tw.zeros_like(logits), logits=logits)

    def _cdf(self, x):
        raise NotImplementedError("cdf is not implemented: Bernoulli")

    def _entropy(self):
        return -self._logits * (_tw.sigmoid(self._logits) - 1.0) + _tw.nn.softplus(-self._logits)

    def _mean(self):
        return self._probs

    def _variance(self):
        return self._probs * (1.0 - self._probs)

    def _mode(self):
        return _tw.cast(self._probs > 0.5, self._dtype)


class Categorical(Distribution):
    """The Categorical distribution over the last axis of `logits` or `probs` (tf.distributions.Categorical)."""

    def __init__(
        self, logits=None, probs=None, dtype=_tw.int32, validate_args=False, allow_nan_stats=True, name="Categorical"
    ):
        if (logits is None) == (probs is None):
            raise ValueError("Must pass probs or logits, but not both.")
        if logits is not None:
            logits = _float(logits, "logits")
            probs = _tw.nn.softmax(logits)
        else:
            probs = _float(probs, "probs")
            logits = _tw.log(probs)
        self._logits, self._probs = logits, probs
        super().__init__(_tw.as_dtype(dtype), name, {"logits": logits})

    @property
    def logits(self):
        return self._logits

    @property
    def probs(self):
        return self._probs

    @property
    def batch_shape(self):
        return self._logits.shape[:-1]

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        return _tw.shape(self._logits)[:-1]

    def _sample_n(self, sample_shape, seed):
        flat = _tw.reshape(self._logits, [-1, _tw.shape(self._logits)[-1]])
        n = _tw.reduce_prod(sample_shape)
        draws = _tw.transpose(_tw.random.categorical(flat, n, seed=seed, dtype=_tw.int64))
        return _tw.cast(_tw.reshape(draws, self._full_shape(sample_shape)), self._dtype)

    def _log_prob(self, x):
        x = _tw.cast(x, _tw.int32)
        logits = self._logits + _tw.zeros_like(_tw.expand_dims(_tw.cast(x, self._logits.dtype), -1))
        labels = x + _tw.zeros_like(_tw.argmax(logits, -1, output_type=_tw.int32))
        return -_tw.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)

    def _cdf(self, x):
        raise NotImplementedError("cdf is not implemented: Categorical")

    def _entropy(self):
        return -_tw.reduce_sum(_tw.nn.log_softmax(self._logits) * _tw.nn.softmax(self._logits), -1)

    def _mean(self):
        raise NotImplementedError("mean is not implemented: Categorical")

    def _variance(self):
        raise NotImplementedError("variance is not implemented: Categorical")

    def _mode(self):
        return _tw.cast(_tw.argmax(self._logits, -1), self._dtype)


def kl_divergence(distribution_a, distribution_b, allow_nan_stats=True, name=None):
    """KL(a || b) for the pairs TF registers among these classes (Normal-Normal, Bernoulli-Bernoulli)."""
    a, b = distribution_a, distribution_b
    with _tw.name_scope(name or "KullbackLeibler"):
        if isinstance(a, Normal) and isinstance(b, Normal):
            ratio = _tw.square(a.scale / b.scale)
            diff = _tw.square((a.loc - b.loc) / b.scale)
            return 0.5 * diff + 0.5 * (ratio - 1.0 - _tw.log(ratio))
        if isinstance(a, Bernoulli) and isinstance(b, Bernoulli):
            delta = _tw.nn.softplus(-b.logits) - _tw.nn.softplus(-a.logits)
            delta2 = _tw.nn.softplus(b.logits) - _tw.nn.softplus(a.logits)
            return _tw.sigmoid(a.logits) * delta + _tw.sigmoid(-a.logits) * delta2
        if isinstance(a, Categorical) and isinstance(b, Categorical):
            log_a, log_b = _tw.nn.log_softmax(a.logits), _tw.nn.log_softmax(b.logits)
            return _tw.reduce_sum(_tw.exp(log_a) * (log_a - log_b), -1)
    raise NotImplementedError(
        f"No KL(distribution_a || distribution_b) registered for distribution_a type {type(a).__name__} and distribution_b type {type(b).__name__}"
    )

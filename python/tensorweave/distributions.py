"""tw.distributions (TF1's tf.distributions / tf.compat.v1.distributions): Normal, Bernoulli, Uniform, Exponential,
Laplace, Gamma, Categorical, Beta, Dirichlet, Multinomial, DirichletMultinomial, StudentT, kl_divergence and
RegisterKL, built from existing ops (Gamma-based ones sample with RandomGamma). Normal.sample is reparameterized
(gradients flow to loc and scale).

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
    "FULLY_REPARAMETERIZED",
    "NOT_REPARAMETERIZED",
    "Bernoulli",
    "Beta",
    "Categorical",
    "Dirichlet",
    "DirichletMultinomial",
    "Distribution",
    "Exponential",
    "Gamma",
    "Laplace",
    "Multinomial",
    "Normal",
    "RegisterKL",
    "ReparameterizationType",
    "StudentT",
    "Uniform",
    "kl_divergence",
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

    def __init__(self, dtype, name, params, validate_args=False, allow_nan_stats=True):
        self._dtype = dtype
        self._name = name
        self._params = params
        self._validate_args = validate_args
        self._allow_nan_stats = allow_nan_stats

    @property
    def validate_args(self):
        return self._validate_args

    @property
    def allow_nan_stats(self):
        return self._allow_nan_stats

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

    def covariance(self, name="covariance"):
        with _tw.name_scope(self._name + "/" + name):
            return self._covariance()

    def survival_function(self, value, name="survival_function"):
        """P[X > x]: 1 - cdf(x) (or the distribution's own, more accurate form)."""
        with _tw.name_scope(self._name + "/" + name):
            return self._survival_function(self._x(value))

    def log_survival_function(self, value, name="log_survival_function"):
        with _tw.name_scope(self._name + "/" + name):
            return _tw.log(self._survival_function(self._x(value)))

    def quantile(self, value, name="quantile"):
        """The inverse cdf: x such that cdf(x) = value."""
        with _tw.name_scope(self._name + "/" + name):
            return self._quantile(_tw.convert_to_tensor(value, dtype=self._dtype))

    def kl_divergence(self, other, name="kl_divergence"):
        """KL(self || other), as tw.distributions.kl_divergence with this distribution's allow_nan_stats."""
        with _tw.name_scope(self._name + "/" + name):
            return kl_divergence(self, other, allow_nan_stats=self._allow_nan_stats)

    def cross_entropy(self, other, name="cross_entropy"):
        """H[self, other] = H[self] + KL(self || other)."""
        with _tw.name_scope(self._name + "/" + name):
            return self._entropy() + kl_divergence(self, other, allow_nan_stats=self._allow_nan_stats)

    def is_scalar_batch(self, name="is_scalar_batch"):
        """A bool scalar tensor: batch_shape == []."""
        with _tw.name_scope(self._name + "/" + name):
            return self._is_scalar(self.batch_shape, self.batch_shape_tensor)

    def is_scalar_event(self, name="is_scalar_event"):
        """A bool scalar tensor: event_shape == []."""
        with _tw.name_scope(self._name + "/" + name):
            return self._is_scalar(self.event_shape, self.event_shape_tensor)

    @staticmethod
    def _is_scalar(static_shape, shape_tensor):
        if static_shape.ndims is not None:
            return _tw.convert_to_tensor(static_shape.ndims == 0)
        return _tw.equal(_tw.size(shape_tensor()), 0)

    # What a distribution does not define (TF's NotImplementedError, naming the method and the class).
    def _not_implemented(self, what):
        raise NotImplementedError(f"{what} is not implemented: {type(self).__name__}")

    def _covariance(self):
        self._not_implemented("covariance")

    def _cdf(self, x):
        self._not_implemented("cdf")

    def _entropy(self):
        self._not_implemented("entropy")

    def _mode(self):
        self._not_implemented("mode")

    def _mean(self):
        self._not_implemented("mean")

    def _variance(self):
        self._not_implemented("variance")

    def _quantile(self, p):
        self._not_implemented("quantile")

    def _survival_function(self, x):
        return 1.0 - self._cdf(x)

    def _where_defined(self, value, defined, message):
        """`value` where `defined` holds; elsewhere NaN (allow_nan_stats), or (not allow_nan_stats) an
        InvalidArgumentError carrying `message` when run where it does not hold everywhere."""
        if self._allow_nan_stats:
            nan = _tw.fill(_tw.shape(value), _np.array(_np.nan, self._dtype.as_numpy_dtype))
            return _tw.where_v2(defined, value, nan)
        check = _tw.Assert(_tw.reduce_all(defined), [message])
        with _tw.control_dependencies([check]):
            return _tw.identity(value)

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

    def __init__(self, loc, scale, name, validate_args=False, allow_nan_stats=True):
        loc = _float(loc, "loc")
        scale = _positive(_float(scale, "scale", loc.dtype), validate_args)
        self._loc, self._scale = loc, scale
        super().__init__(loc.dtype, name, {"loc": loc, "scale": scale}, validate_args, allow_nan_stats)

    @property
    def loc(self):
        return self._loc

    @property
    def scale(self):
        return self._scale


class Normal(_LocScale):
    """The Normal distribution with location `loc` and scale `scale` (tf.distributions.Normal)."""

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Normal"):
        super().__init__(loc, scale, name, validate_args, allow_nan_stats)

    def _sample_n(self, sample_shape, seed):
        eps = _tw.random_normal(self._full_shape(sample_shape), dtype=self._dtype, seed=seed)
        return eps * self._scale + self._loc

    def _z(self, x):
        return (x - self._loc) / self._scale

    def _log_prob(self, x):
        return -0.5 * _tw.square(self._z(x)) - (0.5 * _math.log(2.0 * _math.pi) + _tw.log(self._scale))

    def _cdf(self, x):
        return 0.5 * _tw.math.erfc(-self._z(x) / _math.sqrt(2.0))

    def _survival_function(self, x):
        return 0.5 * _tw.math.erfc(self._z(x) / _math.sqrt(2.0))

    def _quantile(self, p):
        return self._loc + self._scale * _tw.math.ndtri(p)

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
        if validate_args:
            with _tw.control_dependencies(
                [_tw.assert_less(low, high, message="uniform not defined when low >= high.")]
            ):
                low, high = _tw.identity(low), _tw.identity(high)
        self._low, self._high = low, high
        super().__init__(low.dtype, name, {"low": low, "high": high}, validate_args, allow_nan_stats)

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


class Exponential(Distribution):
    """The Exponential distribution with rate `rate` (tf.distributions.Exponential)."""

    reparameterization_type = FULLY_REPARAMETERIZED

    def __init__(self, rate, validate_args=False, allow_nan_stats=True, name="Exponential"):
        rate = _positive(_float(rate, "rate"), validate_args)
        self._rate = rate
        super().__init__(rate.dtype, name, {"rate": rate}, validate_args, allow_nan_stats)

    @property
    def rate(self):
        return self._rate

    @property
    def concentration(self):
        """1 (TF's Exponential is a Gamma with concentration 1)."""
        return _tw.ones([], dtype=self._dtype)

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
        super().__init__(loc, scale, name, validate_args, allow_nan_stats)

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
        concentration = _positive(_float(concentration, "concentration"), validate_args)
        rate = _positive(_float(rate, "rate", concentration.dtype), validate_args)
        self._concentration, self._rate = concentration, rate
        super().__init__(
            concentration.dtype, name, {"concentration": concentration, "rate": rate}, validate_args, allow_nan_stats
        )

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
        if self._allow_nan_stats:
            return self._where_defined(mode, self._concentration > 1.0, "")
        check = _tw.assert_less(
            _tw.ones([], self._dtype), self._concentration, message="mode not defined when any concentration <= 1"
        )
        with _tw.control_dependencies([check]):
            return _tw.identity(mode)


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
            probs = _probabilities(_float(probs, "probs"), validate_args, sum_to_one=False)
            logits = _tw.log(probs) - _tw.math.log1p(-probs)
        self._logits, self._probs = logits, probs
        super().__init__(_tw.as_dtype(dtype), name, {"logits": logits}, validate_args, allow_nan_stats)

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
            probs = _probabilities(_float(probs, "probs"), validate_args, sum_to_one=True)
            logits = _tw.log(probs)
        self._logits, self._probs = logits, probs
        super().__init__(_tw.as_dtype(dtype), name, {"logits": logits}, validate_args, allow_nan_stats)

    @property
    def logits(self):
        return self._logits

    @property
    def probs(self):
        return self._probs

    @property
    def event_size(self):
        """Scalar int32 tensor: the number of classes."""
        classes = self._logits.shape[-1:].as_list()[0] if self._logits.shape.ndims else None
        if classes is not None:
            return _tw.constant(classes, _tw.int32, name="event_size")
        return _tw.shape(self._logits)[-1]

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

    def _entropy(self):
        return -_tw.reduce_sum(_tw.nn.log_softmax(self._logits) * _tw.nn.softmax(self._logits), -1)

    def _mode(self):
        return _tw.cast(_tw.argmax(self._logits, -1), self._dtype)


def _gen_new_seed(seed, salt):
    """A second op seed derived from `seed` (None stays None), as TF's distribution_util.gen_new_seed."""
    if seed is None:
        return None
    import hashlib

    return int(hashlib.md5((str(seed) + salt).encode("utf-8")).hexdigest()[:8], 16) & 0x7FFFFFFF


def _positive(value, validate_args, message=None):
    """`value`, checked to be positive when run under validate_args."""
    if not validate_args:
        return value
    with _tw.control_dependencies([_tw.assert_positive(value, message=message)]):
        return _tw.identity(value)


def _probabilities(probs, validate_args, sum_to_one):
    """`probs`, checked under validate_args to lie in [0, 1] and (sum_to_one) to sum to 1 on the last axis, as
    TF's get_logits_and_probs."""
    if not validate_args:
        return probs
    checks = [_tw.assert_non_negative(probs)]
    if sum_to_one:
        eps = float(_np.finfo(probs.dtype.as_numpy_dtype).eps)
        total = _tw.reduce_sum(probs, -1)
        checks.append(_tw.assert_near(total, _tw.ones_like(total), rtol=10 * eps, message="probs does not sum to 1."))
    else:
        checks.append(_tw.assert_less_equal(probs, 1.0, message="probs has components greater than 1."))
    with _tw.control_dependencies(checks):
        return _tw.identity(probs)


def _lbeta(x):
    """log Beta of the last axis: sum(lgamma(x)) - lgamma(sum(x))."""
    return _tw.reduce_sum(_tw.lgamma(x), -1) - _tw.lgamma(_tw.reduce_sum(x, -1))


class Beta(Distribution):
    """The Beta distribution on (0, 1) with `concentration1` (alpha) and `concentration0` (beta)."""

    reparameterization_type = FULLY_REPARAMETERIZED

    def __init__(
        self, concentration1=None, concentration0=None, validate_args=False, allow_nan_stats=True, name="Beta"
    ):
        message = "Concentration parameter must be positive."
        c1 = _positive(_float(concentration1, "concentration1"), validate_args, message)
        c0 = _positive(_float(concentration0, "concentration0", c1.dtype), validate_args, message)
        self._concentration1, self._concentration0 = c1, c0
        self._total_concentration = c1 + c0
        super().__init__(c1.dtype, name, {"concentration1": c1, "concentration0": c0}, validate_args, allow_nan_stats)

    @property
    def concentration1(self):
        return self._concentration1

    @property
    def concentration0(self):
        return self._concentration0

    @property
    def total_concentration(self):
        return self._total_concentration

    def _sample_n(self, sample_shape, seed):
        ones = _tw.ones_like(self._total_concentration)
        g1 = _tw.random_gamma(sample_shape, ones * self._concentration1, dtype=self._dtype, seed=seed)
        g0 = _tw.random_gamma(
            sample_shape, ones * self._concentration0, dtype=self._dtype, seed=_gen_new_seed(seed, "beta")
        )
        return g1 / (g1 + g0)

    def _valid_sample(self, x):
        if not self._validate_args:
            return x
        checks = [
            _tw.assert_positive(x, message="sample must be positive"),
            _tw.assert_less(x, _tw.ones([], self._dtype), message="sample must be less than `1`."),
        ]
        with _tw.control_dependencies(checks):
            return _tw.identity(x)

    def _log_normalization(self):
        c1, c0 = self._concentration1, self._concentration0
        return _tw.lgamma(c1) + _tw.lgamma(c0) - _tw.lgamma(self._total_concentration)

    def _log_prob(self, x):
        x = self._valid_sample(x)
        c1, c0 = self._concentration1, self._concentration0
        return _tw.math.xlogy(c1 - 1.0, x) + (c0 - 1.0) * _tw.math.log1p(-x) - self._log_normalization()

    def _cdf(self, x):
        ones = _tw.ones_like(x) * _tw.ones_like(self._total_concentration)
        return _tw.math.betainc(self._concentration1 * ones, self._concentration0 * ones, x * ones)

    def _entropy(self):
        c1, c0, total = self._concentration1, self._concentration0, self._total_concentration
        return (
            self._log_normalization()
            - (c1 - 1.0) * _tw.digamma(c1)
            - (c0 - 1.0) * _tw.digamma(c0)
            + (total - 2.0) * _tw.digamma(total)
        )

    def _mean(self):
        return self._concentration1 / self._total_concentration

    def _variance(self):
        mean = self._mean()
        return mean * (1.0 - mean) / (1.0 + self._total_concentration)

    def _mode(self):
        mode = (self._concentration1 - 1.0) / (self._total_concentration - 2.0)
        if self._allow_nan_stats:
            return self._where_defined(mode, (self._concentration1 > 1.0) & (self._concentration0 > 1.0), "")
        one = _tw.ones([], self._dtype)
        checks = [
            _tw.assert_less(one, self._concentration1, message="Mode undefined for concentration1 <= 1."),
            _tw.assert_less(one, self._concentration0, message="Mode undefined for concentration0 <= 1."),
        ]
        with _tw.control_dependencies(checks):
            return _tw.identity(mode)


class _Vector(Distribution):
    """A distribution over vectors: batch shape is the parameter's shape but its last axis, event shape [k]."""

    def __init__(self, dtype, name, params, param, validate_args, allow_nan_stats):
        self._vector_param = param
        super().__init__(dtype, name, params, validate_args, allow_nan_stats)

    @property
    def batch_shape(self):
        shape = self._vector_param.shape.with_rank_at_least(1)[:-1]
        for t in self._params.values():
            if t is not self._vector_param:
                shape = _tw.broadcast_static_shape(shape, t.shape)
        return shape

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        shape = _tw.shape(self._vector_param)[:-1]
        for t in self._params.values():
            if t is not self._vector_param:
                shape = _tw.broadcast_dynamic_shape(shape, _tw.shape(t))
        return shape

    @property
    def event_shape(self):
        return self._vector_param.shape.with_rank_at_least(1)[-1:]

    def event_shape_tensor(self, name="event_shape_tensor"):
        return _tw.shape(self._vector_param)[-1:]

    def _full_shape(self, sample_shape):
        return _tw.concat([sample_shape, self.batch_shape_tensor(), self.event_shape_tensor()], 0)


class Dirichlet(_Vector):
    """The Dirichlet distribution over the (k-1)-simplex with `concentration` [..., k]."""

    reparameterization_type = FULLY_REPARAMETERIZED

    def __init__(self, concentration, validate_args=False, allow_nan_stats=True, name="Dirichlet"):
        concentration = _float(concentration, "concentration")
        if validate_args:
            checks = [
                _tw.assert_positive(concentration, message="Concentration parameter must be positive."),
                _tw.assert_rank_at_least(concentration, 1, message="Concentration parameter must have >=1 dimensions."),
                _tw.assert_less(
                    1, _tw.shape(concentration)[-1], message="Concentration parameter must have event_size >= 2."
                ),
            ]
            with _tw.control_dependencies(checks):
                concentration = _tw.identity(concentration)
        self._concentration = concentration
        self._total_concentration = _tw.reduce_sum(concentration, -1)
        super().__init__(
            concentration.dtype, name, {"concentration": concentration}, concentration, validate_args, allow_nan_stats
        )

    @property
    def concentration(self):
        return self._concentration

    @property
    def total_concentration(self):
        return self._total_concentration

    def _sample_n(self, sample_shape, seed):
        gamma = _tw.random_gamma(sample_shape, self._concentration, dtype=self._dtype, seed=seed)
        return gamma / _tw.reduce_sum(gamma, -1, keepdims=True)

    def _log_prob(self, x):
        if self._validate_args:
            checks = [
                _tw.assert_positive(x, message="samples must be positive"),
                _tw.assert_near(
                    _tw.ones([], self._dtype), _tw.reduce_sum(x, -1), message="sample last-dimension must sum to `1`"
                ),
            ]
            with _tw.control_dependencies(checks):
                x = _tw.identity(x)
        return _tw.reduce_sum(_tw.math.xlogy(self._concentration - 1.0, x), -1) - _lbeta(self._concentration)

    def _entropy(self):
        c, total = self._concentration, self._total_concentration
        k = _tw.cast(_tw.shape(c)[-1], self._dtype)
        return _lbeta(c) + (total - k) * _tw.digamma(total) - _tw.reduce_sum((c - 1.0) * _tw.digamma(c), -1)

    def _mean(self):
        return self._concentration / self._total_concentration[..., _tw.newaxis]

    def _variance(self):
        mean = self._mean()
        return mean * (1.0 - mean) / (1.0 + self._total_concentration[..., _tw.newaxis])

    def _covariance(self):
        x = self._mean() * _tw.math.rsqrt(1.0 + self._total_concentration[..., _tw.newaxis])
        return _tw.linalg.set_diag(-_tw.matmul(x[..., :, _tw.newaxis], x[..., _tw.newaxis, :]), self._variance())

    def _mode(self):
        k = _tw.cast(_tw.shape(self._concentration)[-1], self._dtype)
        mode = (self._concentration - 1.0) / (self._total_concentration[..., _tw.newaxis] - k)
        if self._allow_nan_stats:
            defined = _tw.reduce_all(self._concentration > 1.0, -1, keepdims=True)
            return self._where_defined(mode, defined, "")
        check = _tw.assert_less(
            _tw.ones([], self._dtype), self._concentration, message="Mode undefined when any concentration <= 1"
        )
        with _tw.control_dependencies([check]):
            return _tw.identity(mode)


def _counts_checked(dist, counts):
    """Multinomial counts, checked under validate_args: non-negative integers summing to total_count."""
    if not dist._validate_args:
        return counts
    checks = [
        _tw.assert_non_negative(counts, message="counts must be non-negative."),
        _tw.assert_equal(_tw.floor(counts), counts, message="counts cannot contain fractional components."),
        _tw.assert_equal(dist.total_count, _tw.reduce_sum(counts, -1), message="counts must sum to `self.total_count`"),
    ]
    with _tw.control_dependencies(checks):
        return _tw.identity(counts)


def _log_combinations(n, counts):
    """log(n! / prod(counts!)) over the last axis of counts."""
    return _tw.lgamma(n + 1.0) - _tw.reduce_sum(_tw.lgamma(counts + 1.0), -1)


def _multinomial_draws(logits, total_count, draws, seed, dtype):
    """[draws, batch..., k] counts: per batch member, `total_count` categorical draws from `logits` binned,
    repeated `draws` times."""
    k = _tw.shape(logits)[-1]
    batch = _tw.shape(logits)[:-1]
    flat = _tw.reshape(logits, [-1, k])
    counts = _tw.reshape(_tw.cast(total_count, _tw.int32) + _tw.zeros(batch, _tw.int32), [-1])
    most = _tw.maximum(_tw.reduce_max(counts), 0)
    picks = _tw.random.categorical(flat, draws * most, seed=seed, dtype=_tw.int32)  # [B, draws * most]
    picks = _tw.reshape(picks, [-1, draws, most])
    used = _tw.cast(_tw.range(most)[_tw.newaxis, _tw.newaxis, :] < counts[:, _tw.newaxis, _tw.newaxis], dtype)
    binned = _tw.reduce_sum(_tw.one_hot(picks, k, dtype=dtype) * used[..., _tw.newaxis], -2)  # [B, draws, k]
    binned = _tw.transpose(binned, [1, 0, 2])
    return _tw.reshape(binned, _tw.concat([[draws], batch, [k]], 0))


class Multinomial(_Vector):
    """The Multinomial distribution: counts of `total_count` draws among k classes of `logits` or `probs`."""

    def __init__(
        self, total_count, logits=None, probs=None, validate_args=False, allow_nan_stats=True, name="Multinomial"
    ):
        if (logits is None) == (probs is None):
            raise ValueError("Must pass probs or logits, but not both.")
        if logits is not None:
            logits = _float(logits, "logits")
            probs = _tw.nn.softmax(logits)
        else:
            probs = _float(probs, "probs")
            logits = _tw.log(probs)
        total_count = _float(total_count, "total_count", logits.dtype)
        if validate_args:
            checks = [_tw.assert_non_negative(total_count, message="total_count must be non-negative.")]
            with _tw.control_dependencies(checks):
                total_count = _tw.identity(total_count)
        self._total_count, self._logits, self._probs = total_count, logits, probs
        super().__init__(
            logits.dtype, name, {"total_count": total_count, "logits": logits}, logits, validate_args, allow_nan_stats
        )

    @property
    def total_count(self):
        return self._total_count

    @property
    def logits(self):
        return self._logits

    @property
    def probs(self):
        return self._probs

    def _sample_n(self, sample_shape, seed):
        n = _tw.reduce_prod(sample_shape)
        logits = self._logits + _tw.zeros_like(self._total_count)[..., _tw.newaxis]
        draws = _multinomial_draws(logits, self._total_count, n, seed, self._dtype)
        return _tw.reshape(draws, self._full_shape(sample_shape))

    def _log_prob(self, counts):
        counts = _counts_checked(self, counts)
        return _tw.reduce_sum(counts * _tw.nn.log_softmax(self._logits), -1) + _log_combinations(
            self._total_count, counts
        )

    def _mean(self):
        return self._total_count[..., _tw.newaxis] * self._probs

    def _variance(self):
        return self._mean() * (1.0 - self._probs)

    def _covariance(self):
        p = self._probs * _tw.ones_like(self._total_count)[..., _tw.newaxis]
        outer = _tw.matmul(p[..., :, _tw.newaxis], p[..., _tw.newaxis, :])
        return _tw.linalg.set_diag(-self._total_count[..., _tw.newaxis, _tw.newaxis] * outer, self._variance())


class DirichletMultinomial(_Vector):
    """Counts of `total_count` draws among k classes whose probabilities are drawn from Dirichlet(concentration)."""

    def __init__(
        self, total_count, concentration, validate_args=False, allow_nan_stats=True, name="DirichletMultinomial"
    ):
        concentration = _positive(
            _float(concentration, "concentration"), validate_args, "Concentration parameter must be positive."
        )
        total_count = _float(total_count, "total_count", concentration.dtype)
        if validate_args:
            checks = [_tw.assert_non_negative(total_count, message="total_count must be non-negative.")]
            with _tw.control_dependencies(checks):
                total_count = _tw.identity(total_count)
        self._total_count, self._concentration = total_count, concentration
        self._total_concentration = _tw.reduce_sum(concentration, -1)
        super().__init__(
            concentration.dtype,
            name,
            {"total_count": total_count, "concentration": concentration},
            concentration,
            validate_args,
            allow_nan_stats,
        )

    @property
    def total_count(self):
        return self._total_count

    @property
    def concentration(self):
        return self._concentration

    @property
    def total_concentration(self):
        return self._total_concentration

    def _sample_n(self, sample_shape, seed):
        n = _tw.reduce_prod(sample_shape)
        k = _tw.shape(self._concentration)[-1]
        concentration = self._concentration * _tw.ones_like(self._total_count)[..., _tw.newaxis]
        gamma = _tw.random_gamma([n], concentration, dtype=self._dtype, seed=seed)  # [n, batch..., k]
        logits = _tw.log(gamma) - _tw.log(_tw.reduce_sum(gamma, -1, keepdims=True))
        total = self._total_count + _tw.zeros_like(concentration[..., 0])
        draws = _multinomial_draws(
            _tw.reshape(logits, [-1, k]),
            _tw.tile(_tw.reshape(total, [-1]), [n]),
            1,
            _gen_new_seed(seed, "dirichlet_multinomial"),
            self._dtype,
        )
        return _tw.reshape(draws, self._full_shape(sample_shape))

    def _log_prob(self, counts):
        counts = _counts_checked(self, counts)
        ordered = _lbeta(self._concentration + counts) - _lbeta(self._concentration)
        return ordered + _log_combinations(self._total_count, counts)

    def _mean(self):
        return self._total_count[..., _tw.newaxis] * self._concentration / self._total_concentration[..., _tw.newaxis]

    def _spread(self):
        """n (n + a0) / (1 + a0): the Multinomial's covariance scale times this."""
        a0 = self._total_concentration
        return self._total_count * (self._total_count + a0) / (1.0 + a0)

    def _variance(self):
        p = self._concentration / self._total_concentration[..., _tw.newaxis]
        return self._spread()[..., _tw.newaxis] * p * (1.0 - p)

    def _covariance(self):
        p = self._concentration / self._total_concentration[..., _tw.newaxis]
        outer = _tw.matmul(p[..., :, _tw.newaxis], p[..., _tw.newaxis, :])
        return _tw.linalg.set_diag(-self._spread()[..., _tw.newaxis, _tw.newaxis] * outer, self._variance())


class StudentT(Distribution):
    """Student's t distribution with `df` degrees of freedom, location `loc` and scale `scale`."""

    reparameterization_type = FULLY_REPARAMETERIZED

    def __init__(self, df, loc, scale, validate_args=False, allow_nan_stats=True, name="StudentT"):
        df = _positive(_float(df, "df"), validate_args)
        loc = _float(loc, "loc", df.dtype)
        scale = _float(scale, "scale", df.dtype)
        self._df, self._loc, self._scale = df, loc, scale
        super().__init__(df.dtype, name, {"df": df, "loc": loc, "scale": scale}, validate_args, allow_nan_stats)

    @property
    def df(self):
        return self._df

    @property
    def loc(self):
        return self._loc

    @property
    def scale(self):
        return self._scale

    def _ones(self):
        return _tw.ones(self.batch_shape_tensor(), self._dtype)

    def _sample_n(self, sample_shape, seed):
        shape = self._full_shape(sample_shape)
        normal = _tw.random_normal(shape, dtype=self._dtype, seed=seed)
        df = self._df * self._ones()
        gamma = _tw.random_gamma(
            sample_shape, 0.5 * df, beta=0.5, dtype=self._dtype, seed=_gen_new_seed(seed, "student_t")
        )
        return normal * _tw.math.rsqrt(gamma / df) * self._scale + self._loc

    def _log_prob(self, x):
        y = (x - self._loc) / self._scale
        df = self._df
        log_unnormalized = -0.5 * (df + 1.0) * _tw.math.log1p(_tw.square(y) / df)
        log_normalization = (
            _tw.log(_tw.abs(self._scale))
            + 0.5 * _tw.log(df)
            + 0.5 * _np.log(_np.pi)
            + _tw.lgamma(0.5 * df)
            - _tw.lgamma(0.5 * (df + 1.0))
        )
        return log_unnormalized - log_normalization

    def _cdf(self, x):
        y = (x - self._loc) / self._scale
        ones = _tw.ones_like(y) * self._ones()
        df = self._df * ones
        x_t = df / (_tw.square(y) + df)
        neg_cdf = 0.5 * _tw.math.betainc(0.5 * df, 0.5 * ones, x_t)
        return _tw.where_v2(y < 0.0, neg_cdf, 1.0 - neg_cdf)

    def _entropy(self):
        df = self._df * self._ones()
        half = _tw.constant(0.5, self._dtype)
        lbeta = _tw.lgamma(0.5 * df) + _tw.lgamma(half) - _tw.lgamma(0.5 * (df + 1.0))
        return (
            _tw.log(_tw.abs(self._scale))
            + 0.5 * _tw.log(df)
            + lbeta
            + 0.5 * (df + 1.0) * (_tw.digamma(0.5 * (df + 1.0)) - _tw.digamma(0.5 * df))
        )

    def _mean(self):
        mean = self._loc * self._ones()
        if self._allow_nan_stats:
            return self._where_defined(mean, self._df > 1.0, "")
        check = _tw.assert_less(
            _tw.ones([], self._dtype), self._df, message="mean not defined for components of df <= 1"
        )
        with _tw.control_dependencies([check]):
            return _tw.identity(mean)

    def _variance(self):
        df = self._df * self._ones()
        denom = _tw.where_v2(df > 2.0, df - 2.0, _tw.ones_like(df))
        var = _tw.ones_like(df) * _tw.square(self._scale) * df / denom
        inf = _tw.fill(_tw.shape(var), _np.array(_np.inf, self._dtype.as_numpy_dtype))
        var = _tw.where_v2(df > 2.0, var, inf)  # infinite for 1 < df <= 2
        if self._allow_nan_stats:
            return self._where_defined(var, df > 1.0, "")
        check = _tw.assert_less(_tw.ones([], self._dtype), df, message="variance not defined for components of df <= 1")
        with _tw.control_dependencies([check]):
            return _tw.identity(var)

    def _mode(self):
        return self._loc * self._ones()


_KL = {}


class RegisterKL:
    """Decorator that registers a function computing KL(a || b) for instances of two Distribution classes
    (subclasses find the nearest registered pair by their MRO, as TF's):

        @RegisterKL(MyDist, MyDist)
        def _kl(a, b, name=None): ...
    """

    def __init__(self, dist_cls_a, dist_cls_b):
        self._key = (dist_cls_a, dist_cls_b)

    def __call__(self, kl_fn):
        if not callable(kl_fn):
            raise TypeError(f"kl_fn must be callable, received: {kl_fn}")
        if self._key in _KL:
            a, b = self._key
            raise ValueError(f"KL({a.__name__} || {b.__name__}) has already been registered to: {_KL[self._key]}")
        _KL[self._key] = kl_fn
        return kl_fn


def _registered_kl(type_a, type_b):
    """The registered function for the closest pair of classes along the two MROs."""
    best, best_distance = None, None
    for i, a in enumerate(type_a.__mro__):
        for j, b in enumerate(type_b.__mro__):
            fn = _KL.get((a, b))
            if fn is not None and (best_distance is None or i + j < best_distance):
                best, best_distance = fn, i + j
    return best


def kl_divergence(distribution_a, distribution_b, allow_nan_stats=True, name=None):
    """KL(a || b) by the function registered for their classes (RegisterKL). TF registers Normal, Bernoulli,
    Categorical, Beta, Gamma and Dirichlet pairs. Not allow_nan_stats: an error when run if any is NaN."""
    a, b = distribution_a, distribution_b
    fn = _registered_kl(type(a), type(b))
    if fn is None:
        raise NotImplementedError(
            f"No KL(distribution_a || distribution_b) registered for distribution_a type {type(a).__name__} "
            f"and distribution_b type {type(b).__name__}"
        )
    with _tw.name_scope("KullbackLeibler"):
        kl = fn(a, b, name=name)
        if allow_nan_stats:
            return _tw.identity(kl, name="kl")
        check = _tw.Assert(
            _tw.logical_not(_tw.reduce_any(_tw.is_nan(kl))),
            [
                (
                    f"KL calculation between {a.name} and {b.name} returned NaN values (and was called with "
                    "allow_nan_stats=False). Values:"
                ),
                kl,
            ],
        )
        with _tw.control_dependencies([check]):
            return _tw.identity(kl, name="checked_kl")


@RegisterKL(Normal, Normal)
def _kl_normal_normal(a, b, name=None):
    with _tw.name_scope(name or "kl_normal_normal"):
        ratio = _tw.square(a.scale / b.scale)
        diff = _tw.square((a.loc - b.loc) / b.scale)
        return 0.5 * diff + 0.5 * (ratio - 1.0 - _tw.log(ratio))


@RegisterKL(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(a, b, name=None):
    with _tw.name_scope(name or "kl_bernoulli_bernoulli"):
        delta = _tw.nn.softplus(-b.logits) - _tw.nn.softplus(-a.logits)
        delta2 = _tw.nn.softplus(b.logits) - _tw.nn.softplus(a.logits)
        return _tw.sigmoid(a.logits) * delta + _tw.sigmoid(-a.logits) * delta2


@RegisterKL(Categorical, Categorical)
def _kl_categorical_categorical(a, b, name=None):
    with _tw.name_scope(name or "kl_categorical_categorical"):
        log_a, log_b = _tw.nn.log_softmax(a.logits), _tw.nn.log_softmax(b.logits)
        return _tw.reduce_sum(_tw.exp(log_a) * (log_a - log_b), -1)


@RegisterKL(Beta, Beta)
def _kl_beta_beta(d1, d2, name=None):
    def delta(fn, attr):
        return fn(getattr(d2, attr)) - fn(getattr(d1, attr))

    with _tw.name_scope(name or "kl_beta_beta"):
        return (
            delta(_tw.lgamma, "concentration1")
            + delta(_tw.lgamma, "concentration0")
            - delta(_tw.lgamma, "total_concentration")
            + (d1.concentration1 - d2.concentration1) * _tw.digamma(d1.concentration1)
            + (d1.concentration0 - d2.concentration0) * _tw.digamma(d1.concentration0)
            - (d1.total_concentration - d2.total_concentration) * _tw.digamma(d1.total_concentration)
        )


@RegisterKL(Gamma, Gamma)
def _kl_gamma_gamma(g0, g1, name=None):
    with _tw.name_scope(name or "kl_gamma_gamma"):
        a0, b0, a1, b1 = g0.concentration, g0.rate, g1.concentration, g1.rate
        return (
            (a0 - a1) * _tw.digamma(a0)
            + _tw.lgamma(a1)
            - _tw.lgamma(a0)
            + a1 * _tw.log(b0)
            - a1 * _tw.log(b1)
            + a0 * (b1 / b0 - 1.0)
        )


@RegisterKL(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(d1, d2, name=None):
    with _tw.name_scope(name or "kl_dirichlet_dirichlet"):
        c1, c2 = d1.concentration, d2.concentration
        digamma_sum = _tw.digamma(c1) - _tw.digamma(_tw.reduce_sum(c1, -1, keepdims=True))
        return _tw.reduce_sum((c1 - c2) * digamma_sum, -1) - _lbeta(c1) + _lbeta(c2)

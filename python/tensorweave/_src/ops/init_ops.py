"""Initializers: callables (shape, dtype) -> Tensor, for variables."""

import inspect
import math

import numpy as np

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import tensor_shape
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import constant_op
from tensorweave._src.ops import random_ops


class Initializer:
    """Base class: `init(shape, dtype=None, partition_info=None)`; `get_config()` gives the constructor's
    arguments and `from_config(config)` makes the same initializer again, as TF's."""

    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        raise NotImplementedError

    _unconfigured = ("verify_shape",)  # arguments TF's configs leave out

    def get_config(self):
        config = {}
        for name, param in inspect.signature(type(self).__init__).parameters.items():
            if name in self._unconfigured or name == "self":
                continue
            if param.kind not in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                value = getattr(self, name, param.default)
                config[name] = value.name if isinstance(value, dtypes.DType) else value
        return config

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class Zeros(Initializer):
    """Initializes to 0."""

    def __call__(self, shape, dtype=None, partition_info=None):
        return array_ops.zeros(shape, dtype or self.dtype)


class Ones(Initializer):
    """Initializes to 1."""

    def __call__(self, shape, dtype=None, partition_info=None):
        return array_ops.ones(shape, dtype or self.dtype)


class Constant(Initializer):
    """Initializes to a constant value (a scalar, broadcast, or a full array)."""

    def __init__(self, value=0, dtype=dtypes.float32, verify_shape=False):
        super().__init__(dtype)
        self.value = value

    def __call__(self, shape, dtype=None, partition_info=None):
        dims = [tensor_shape.dimension_value(d) for d in shape]
        if np.ndim(self.value) == 0 and None not in dims and int(np.prod(dims, dtype=np.int64)) >= 1000:
            # A scalar over a large shape (an optimizer's accumulator of an embedding table): a Fill, as TF keeps
            # such a constant compact (one value in its TensorProto) instead of a full copy in the graph.
            return array_ops.fill(dims, constant_op.constant(self.value, dtype=dtype or self.dtype))
        return constant_op.constant(self.value, dtype=dtype or self.dtype, shape=dims)


class RandomUniform(Initializer):
    """Uniform values in [minval, maxval)."""

    def __init__(self, minval=0.0, maxval=None, seed=None, dtype=dtypes.float32):
        super().__init__(dtype)
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.random_uniform(shape, self.minval, self.maxval, dtype or self.dtype, seed=self.seed)


class RandomNormal(Initializer):
    """Normal values with the given mean and stddev."""

    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
        super().__init__(dtype)
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.random_normal(shape, self.mean, self.stddev, dtype or self.dtype, seed=self.seed)


class TruncatedNormal(Initializer):
    """Normal values redrawn beyond 2 stddevs."""

    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
        super().__init__(dtype)
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.truncated_normal(shape, self.mean, self.stddev, dtype or self.dtype, seed=self.seed)


def _fans(shape):
    shape = [tensor_shape.dimension_value(d) for d in shape]
    if not shape:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return shape[-2] * receptive, shape[-1] * receptive


class VarianceScaling(Initializer):
    """Scales the variance by fan-in, fan-out or their average (He, Glorot)."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None, dtype=dtypes.float32):
        super().__init__(dtype)
        if scale <= 0:
            raise ValueError("`scale` must be positive")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"invalid mode {mode!r}")
        if distribution == "normal":
            distribution = "truncated_normal"
        if distribution not in ("truncated_normal", "untruncated_normal", "uniform"):
            raise ValueError(f"invalid distribution {distribution!r}")
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtype or self.dtype
        # A partition of a variable scales by the whole variable's fans (TF's partition_info.full_shape).
        fan_in, fan_out = _fans(shape if partition_info is None else partition_info.full_shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        if self.distribution == "truncated_normal":
            # The stddev of a standard normal truncated at +-2.
            stddev = math.sqrt(scale) / 0.87962566103423978
            return random_ops.truncated_normal(shape, 0.0, stddev, dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random_ops.random_normal(shape, 0.0, math.sqrt(scale), dtype, seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return random_ops.random_uniform(shape, -limit, limit, dtype, seed=self.seed)


def glorot_uniform_initializer(seed=None, dtype=dtypes.float32):
    """Uniform in +-sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio)."""
    return VarianceScaling(1.0, "fan_avg", "uniform", seed, dtype)


def glorot_normal_initializer(seed=None, dtype=dtypes.float32):
    """Truncated normal with variance 2 / (fan_in + fan_out)."""
    return VarianceScaling(1.0, "fan_avg", "truncated_normal", seed, dtype)


def he_normal(seed=None):
    """Truncated normal with variance 2 / fan_in (He et al.)."""
    return VarianceScaling(2.0, "fan_in", "truncated_normal", seed)


def he_uniform(seed=None):
    """Uniform with variance 2 / fan_in (He et al.)."""
    return VarianceScaling(2.0, "fan_in", "uniform", seed)


zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_uniform_initializer = RandomUniform
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
variance_scaling_initializer = VarianceScaling

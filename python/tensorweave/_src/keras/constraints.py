"""tf.keras.constraints (Keras 2): MaxNorm, NonNeg, UnitNorm, MinMaxNorm, RadialConstraint (and snake_case
aliases), `get`/`serialize`/`deserialize`. A constraint is a projection `w -> w'` the Keras optimizers apply to a
variable (`variable.constraint`) after each update."""

from tensorweave._src.keras import initializers


def _norms(w, axis):
    from tensorweave._src.ops import math_ops

    return math_ops.sqrt(math_ops.reduce_sum(math_ops.square(w), axis=axis, keepdims=True))


def _eps():
    from tensorweave._src.keras import backend

    return backend.epsilon()


class Constraint:
    """The base of constraints: `__call__(w)` returns the projected weights."""

    def __call__(self, w):
        return w

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class MaxNorm(Constraint):
    """Rescales each slice along `axis` whose L2 norm exceeds `max_value` to that norm."""

    def __init__(self, max_value=2, axis=0):
        self.max_value, self.axis = max_value, axis

    def __call__(self, w):
        from tensorweave._src.ops import math_ops as clip_ops

        norms = _norms(w, self.axis)
        return w * (clip_ops.clip_by_value(norms, 0.0, float(self.max_value)) / (_eps() + norms))

    def get_config(self):
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    """Zeroes the negative weights."""

    def __call__(self, w):
        from tensorweave._src.ops import math_ops

        return w * math_ops.cast(math_ops.greater_equal(w, 0.0), w.dtype)


class UnitNorm(Constraint):
    """Scales each slice along `axis` to unit L2 norm."""

    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        return w / (_eps() + _norms(w, self.axis))

    def get_config(self):
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    """Moves each slice's L2 norm (along `axis`) into [min_value, max_value], by a fraction `rate` of the way."""

    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, axis

    def __call__(self, w):
        from tensorweave._src.ops import math_ops as clip_ops

        norms = _norms(w, self.axis)
        clipped = clip_ops.clip_by_value(norms, float(self.min_value), float(self.max_value))
        desired = self.rate * clipped + (1 - self.rate) * norms
        return w * (desired / (_eps() + norms))

    def get_config(self):
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate, "axis": self.axis}


class RadialConstraint(Constraint):
    """Makes each [height, width] kernel of a rank-4 conv weight radially symmetric (tf_keras's rings of the
    diagonal values)."""

    def __call__(self, w):
        import numpy as np

        import tensorweave as tw

        shape = w.shape
        if shape.ndims != 4:
            raise ValueError(f"The weight tensor must have rank 4. Received weight tensor with shape: {shape}")
        k = shape[0].value
        start = k // 2
        index = np.zeros((k, k), np.int32)
        for a in range(k):
            for b in range(k):
                if k % 2:
                    ring = max(abs(a - start), abs(b - start))
                    index[a, b] = start - 1 + ring if ring else start - 1
                else:
                    ring = max(start - 1 - a if a < start else a - start, start - 1 - b if b < start else b - start)
                    index[a, b] = start + ring if ring else start - 1
        diagonal = tw.stack([w[j, j] for j in range(k)])  # [k, channels, kernels]
        return tw.reshape(tw.gather(diagonal, index.reshape(-1)), tw.shape(w))


max_norm = MaxNorm
non_neg = NonNeg
radial_constraint = RadialConstraint
unit_norm = UnitNorm
min_max_norm = MinMaxNorm

_TABLE = {
    "MaxNorm": MaxNorm, "NonNeg": NonNeg, "UnitNorm": UnitNorm, "MinMaxNorm": MinMaxNorm, "max_norm": MaxNorm,
    "non_neg": NonNeg, "unit_norm": UnitNorm, "min_max_norm": MinMaxNorm, "RadialConstraint": RadialConstraint,
    "radial_constraint": RadialConstraint,
}  # fmt: skip


serialize = initializers.serialize_object


def deserialize(config, custom_objects=None):
    return initializers.deserialize_object(config, _TABLE, custom_objects, "constraint")


def get(identifier):
    """A constraint from a name ('max_norm'), a config dict or a callable; None stays None."""
    return initializers.get_object(identifier, deserialize, "constraint")

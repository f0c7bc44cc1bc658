"""tf.keras.regularizers (Keras 2): L1, L2, L1L2 (and l1, l2, l1_l2), `get`/`serialize`/`deserialize`. A layer
given one adds its loss to the layer's `losses` (and to the REGULARIZATION_LOSSES collection)."""

from tensorweave._src.keras import initializers


class Regularizer:
    """The base of regularizers: `__call__(x)` returns a scalar loss."""

    def __call__(self, x):
        return 0.0

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _check(value, name):
    value = 0.0 if value is None else value
    if not isinstance(value, (int, float)) or value < 0:
        raise ValueError(f"Value of `{name}` must be a non-negative float. Received: {name}={value}")
    return float(value)


class L1L2(Regularizer):
    """l1 * sum(|x|) + l2 * sum(x^2)."""

    def __init__(self, l1=0.0, l2=0.0):
        self.l1, self.l2 = _check(l1, "l1"), _check(l2, "l2")

    def __call__(self, x):
        from tensorweave._src.ops import math_ops

        loss = 0.0
        if self.l1:
            loss += self.l1 * math_ops.reduce_sum(math_ops.abs(x))
        if self.l2:
            loss += self.l2 * math_ops.reduce_sum(math_ops.square(x))
        if isinstance(loss, float):
            from tensorweave._src.ops import constant_op

            loss = constant_op.constant(0.0, dtype=x.dtype)
        return loss

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


class L1(L1L2):
    """l1 * sum(|x|)."""

    def __init__(self, l1=0.01, **kwargs):
        super().__init__(l1=kwargs.pop("l", l1))

    def get_config(self):
        return {"l1": self.l1}


class L2(L1L2):
    """l2 * sum(x^2)."""

    def __init__(self, l2=0.01, **kwargs):
        super().__init__(l2=kwargs.pop("l", l2))

    def get_config(self):
        return {"l2": self.l2}


def l1_l2(l1=0.01, l2=0.01):
    """An L1L2 regularizer with both factors 0.01 by default."""
    return L1L2(l1=l1, l2=l2)


l1 = L1
l2 = L2

_TABLE = {"L1L2": L1L2, "L1": L1, "L2": L2, "l1": L1, "l2": L2, "l1_l2": l1_l2}


serialize = initializers.serialize_object


def deserialize(config, custom_objects=None):
    return initializers.deserialize_object(config, _TABLE, custom_objects, "regularizer")


def get(identifier):
    """A regularizer from a name ('l2'), a config dict or a callable; None stays None."""
    return initializers.get_object(identifier, deserialize, "regularizer")

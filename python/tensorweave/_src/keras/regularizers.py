"""tf.keras.regularizers (Keras 2): L1, L2, L1L2 (and l1, l2, l1_l2), `get`/`serialize`/`deserialize`. A layer
given one adds its loss to the layer's `losses` (and to the REGULARIZATION_LOSSES collection)."""

import inspect

from tensorweave._src.keras.initializers import _UNKNOWN


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


def serialize(regularizer):
    return {"class_name": type(regularizer).__name__, "config": regularizer.get_config()}


def deserialize(config, custom_objects=None):
    table = dict(_TABLE, **(custom_objects or {}))
    name = config if isinstance(config, str) else config["class_name"]
    if name not in table:
        raise ValueError(_UNKNOWN.format(what="regularizer", name=name))
    if isinstance(config, str):
        return table[name]()
    cls = table[name]
    return cls.from_config(config.get("config", {})) if hasattr(cls, "from_config") else cls(**config["config"])


def get(identifier):
    """A regularizer from a name ('l2'), a config dict or a callable; None stays None."""
    if identifier is None:
        return None
    if isinstance(identifier, (dict, str)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier() if inspect.isclass(identifier) else identifier
    raise ValueError(f"Could not interpret regularizer identifier: {identifier}")

"""tf.keras.activations: the activation functions by name, `get`, `serialize`, `deserialize`."""

import math


def _tw():
    import tensorweave

    return tensorweave


def softmax(x, axis=-1):
    return _tw().nn.softmax(x, axis=axis)


def elu(x, alpha=1.0):
    tw = _tw()
    res = tw.nn.elu(x)
    return res if alpha == 1 else tw.where(x > 0, res, alpha * res)


def selu(x):
    return _tw().nn.selu(x)


def softplus(x):
    return _tw().math.softplus(x)


def softsign(x):
    return _tw().math.softsign(x)


def swish(x):
    return _tw().nn.silu(x)


def relu(x, alpha=0.0, max_value=None, threshold=0.0):
    """max(x, 0), or `alpha * (x - threshold)` below `threshold`, capped at `max_value` (Keras's backend relu)."""
    tw = _tw()
    x = tw.convert_to_tensor(x)
    dtype = x.dtype.base_dtype
    if alpha != 0.0:
        if max_value is None and threshold == 0:
            return tw.nn.leaky_relu(x, alpha=alpha)
        negative_part = tw.nn.relu(-x + threshold) if threshold != 0 else tw.nn.relu(-x)
    clip_max = max_value is not None
    if threshold != 0:
        x = x * tw.cast(tw.greater(x, threshold), dtype)
    elif max_value == 6:
        x = tw.nn.relu6(x)
        clip_max = False
    else:
        x = tw.nn.relu(x)
    if clip_max:
        x = tw.clip_by_value(x, tw.constant(0, dtype), tw.constant(max_value, dtype))
    if alpha != 0.0:
        x -= tw.constant(alpha, dtype) * negative_part
    return x


def gelu(x, approximate=False):
    """`x * Phi(x)`; with `approximate`, the tanh approximation."""
    tw = _tw()
    x = tw.convert_to_tensor(x)
    if approximate:
        coeff = tw.cast(0.044715, x.dtype)
        return 0.5 * x * (1.0 + tw.tanh(tw.cast(math.sqrt(2.0 / math.pi), x.dtype) * (x + coeff * tw.pow(x, 3))))
    return 0.5 * x * (1.0 + tw.math.erf(x / tw.cast(math.sqrt(2.0), x.dtype)))


def tanh(x):
    return _tw().tanh(x)


def sigmoid(x):
    return _tw().sigmoid(x)


def exponential(x):
    return _tw().exp(x)


def hard_sigmoid(x):
    """`clip(0.2 * x + 0.5, 0, 1)`."""
    tw = _tw()
    x = tw.convert_to_tensor(x)
    return tw.clip_by_value(0.2 * x + 0.5, tw.constant(0.0, x.dtype), tw.constant(1.0, x.dtype))


def linear(x):
    return x


def mish(x):
    tw = _tw()
    return x * tw.tanh(tw.math.softplus(x))


def leaky_relu(features, alpha=0.2, name=None):
    return _tw().nn.leaky_relu(features, alpha=alpha, name=name)


def log_softmax(logits, axis=None, name=None):
    return _tw().nn.log_softmax(logits, axis=-1 if axis is None else axis, name=name)


def relu6(features, name=None):
    return _tw().nn.relu6(features, name=name)


silu = swish

_ACTIVATIONS = {
    f.__name__: f
    for f in (
        softmax,
        elu,
        selu,
        softplus,
        softsign,
        swish,
        relu,
        gelu,
        tanh,
        sigmoid,
        exponential,
        hard_sigmoid,
        linear,
        mish,
        leaky_relu,
        log_softmax,
        relu6,
    )
}
_ACTIVATIONS["silu"] = swish


def serialize(activation):
    """The name of an activation function."""
    name = getattr(activation, "__name__", None)
    if name not in _ACTIVATIONS:
        raise ValueError(
            f"Unknown activation function '{activation}' cannot be serialized due to invalid function name. "
            "Make sure to use an activation name that matches the references defined in activations.py."
        )
    return name


def deserialize(name, custom_objects=None):
    """The activation function called `name` (or found in `custom_objects`)."""
    if isinstance(name, dict):
        name = name.get("config", name.get("class_name"))
    from tensorweave._src.keras.utils import get_custom_objects

    fn = {**get_custom_objects(), **(custom_objects or {})}.get(name) or _ACTIVATIONS.get(name)
    if fn is None:
        from tensorweave._src.keras.initializers import _UNKNOWN

        raise ValueError(_UNKNOWN.format(what="activation function", name=name))
    return fn


def get(identifier):
    """An activation function from a name, a config, or a callable; None gives `linear`."""
    if identifier is None:
        return linear
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise TypeError(f"Could not interpret activation function identifier: {identifier}")


__all__ = [n for n, v in list(globals().items()) if not n.startswith("_") and not isinstance(v, type(math))]

"""tf.keras.initializers (Keras 2): initializer classes with Keras's defaults and configs, their snake_case
aliases, and `get`/`serialize`/`deserialize`."""

import inspect
import math

from tensorweave._src.framework import dtypes, tensor_shape
from tensorweave._src.ops import init_ops, init_partition_ops, random_ops

_UNKNOWN = (
    "Unknown {what}: '{name}'. Please ensure you are using a `keras.utils.custom_object_scope` and that this "
    "object is included in the scope. See https://www.tensorflow.org/guide/keras/save_and_serialize"
    "#registering_the_custom_object for details."
)


def _dtype(dtype):
    from tensorweave._src.keras import backend

    return dtypes.as_dtype(dtype or backend.floatx())


class Initializer:
    """The base of Keras initializers: `__call__(shape, dtype=None, **kwargs)` and `get_config`."""

    def __call__(self, shape, dtype=None, **kwargs):
        raise NotImplementedError

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config.pop("dtype", None)
        return cls(**config)


class Zeros(Initializer):
    """Initializes to 0."""

    def __call__(self, shape, dtype=None, **kwargs):
        return init_ops.Zeros()(shape, _dtype(dtype))


class Ones(Initializer):
    """Initializes to 1."""

    def __call__(self, shape, dtype=None, **kwargs):
        return init_ops.Ones()(shape, _dtype(dtype))


class Constant(Initializer):
    """Initializes to a constant `value` (a scalar, or an array of the variable's shape)."""

    def __init__(self, value=0):
        self.value = value

    def __call__(self, shape, dtype=None, **kwargs):
        return init_ops.Constant(self.value)(shape, _dtype(dtype))

    def get_config(self):
        return {"value": self.value}


class RandomUniform(Initializer):
    """Uniform values in [minval, maxval)."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape, dtype=None, **kwargs):
        return random_ops.random_uniform(shape, self.minval, self.maxval, _dtype(dtype), seed=self.seed)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


class RandomNormal(Initializer):
    """Normal values of the given mean and stddev."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=None, **kwargs):
        return random_ops.random_normal(shape, self.mean, self.stddev, _dtype(dtype), seed=self.seed)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class TruncatedNormal(RandomNormal):
    """Normal values, those beyond 2 stddevs from the mean redrawn."""

    def __call__(self, shape, dtype=None, **kwargs):
        return random_ops.truncated_normal(shape, self.mean, self.stddev, _dtype(dtype), seed=self.seed)


class VarianceScaling(Initializer):
    """Values of variance `scale / n`, n the fan-in, fan-out or their average (`mode`), drawn from a truncated
    normal, normal or uniform `distribution`."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None):
        if scale <= 0.0:
            raise ValueError(f"Argument `scale` must be positive float. Received: scale={scale}")
        if mode not in {"fan_in", "fan_out", "fan_avg"}:
            raise ValueError(f"Argument `mode` should be one of ('fan_in', 'fan_out', 'fan_avg'). Received: {mode}")
        distribution = distribution.lower()
        if distribution == "normal":
            distribution = "truncated_normal"
        if distribution not in {"uniform", "truncated_normal", "untruncated_normal"}:
            raise ValueError(
                "Argument `distribution` should be one of ('uniform', 'truncated_normal', 'untruncated_normal'). "
                f"Received: {distribution}"
            )
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed

    def __call__(self, shape, dtype=None, **kwargs):
        dtype = _dtype(dtype)
        fan_in, fan_out = init_ops._fans([tensor_shape.dimension_value(d) for d in shape])
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        if self.distribution == "truncated_normal":
            stddev = math.sqrt(scale) / 0.87962566103423978
            return random_ops.truncated_normal(shape, 0.0, stddev, dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random_ops.random_normal(shape, 0.0, math.sqrt(scale), dtype, seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return random_ops.random_uniform(shape, -limit, limit, dtype, seed=self.seed)

    def get_config(self):
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution, "seed": self.seed}


def _variance_scaling(class_name, scale, mode, distribution, doc):
    def __init__(self, seed=None):
        VarianceScaling.__init__(self, scale, mode, distribution, seed)

    def get_config(self):
        return {"seed": self.seed}

    return type(class_name, (VarianceScaling,), {"__init__": __init__, "get_config": get_config, "__doc__": doc})


GlorotUniform = _variance_scaling(
    "GlorotUniform", 1.0, "fan_avg", "uniform", "Uniform in +-sqrt(6 / (fan_in + fan_out))."
)
GlorotNormal = _variance_scaling(
    "GlorotNormal", 1.0, "fan_avg", "truncated_normal", "Truncated normal of variance 2 / (fan_in + fan_out)."
)
HeUniform = _variance_scaling("HeUniform", 2.0, "fan_in", "uniform", "Uniform in +-sqrt(6 / fan_in).")
HeNormal = _variance_scaling("HeNormal", 2.0, "fan_in", "truncated_normal", "Truncated normal of variance 2 / fan_in.")
LecunUniform = _variance_scaling("LecunUniform", 1.0, "fan_in", "uniform", "Uniform in +-sqrt(3 / fan_in).")
LecunNormal = _variance_scaling(
    "LecunNormal", 1.0, "fan_in", "truncated_normal", "Truncated normal of variance 1 / fan_in."
)


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times `gain`, the leading dims flattened into rows."""

    def __init__(self, gain=1.0, seed=None):
        self.gain, self.seed = gain, seed

    def __call__(self, shape, dtype=None, **kwargs):
        return init_partition_ops.Orthogonal(self.gain, self.seed)(shape, _dtype(dtype))

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed}


class Identity(Initializer):
    """The identity matrix times `gain` (2-D shapes only)."""

    def __init__(self, gain=1.0):
        self.gain = gain

    def __call__(self, shape, dtype=None, **kwargs):
        return init_partition_ops.Identity(self.gain)(shape, _dtype(dtype))

    def get_config(self):
        return {"gain": self.gain}


zeros = Zeros
ones = Ones
constant = Constant
random_uniform = RandomUniform
random_normal = RandomNormal
truncated_normal = TruncatedNormal
variance_scaling = VarianceScaling
glorot_uniform = GlorotUniform
glorot_normal = GlorotNormal
he_uniform = HeUniform
he_normal = HeNormal
lecun_uniform = LecunUniform
lecun_normal = LecunNormal
orthogonal = Orthogonal
identity = Identity
uniform = RandomUniform
normal = RandomNormal

_CLASSES = {
    c.__name__: c
    for c in (
        Zeros, Ones, Constant, RandomUniform, RandomNormal, TruncatedNormal, VarianceScaling, GlorotUniform,
        GlorotNormal, HeUniform, HeNormal, LecunUniform, LecunNormal, Orthogonal, Identity,
    )
}  # fmt: skip
_ALIASES = {
    name: obj for name, obj in globals().items() if name.islower() and inspect.isclass(obj) and obj in _CLASSES.values()
}
_ALIASES.update(uniform=RandomUniform, normal=RandomNormal, one=Ones, zero=Zeros)


def serialize_object(obj):
    """`{'class_name': ..., 'config': ...}` of an initializer, regularizer or constraint."""
    return {"class_name": type(obj).__name__, "config": obj.get_config()}


def deserialize_object(config, table, custom_objects, what):
    """The object a `serialize` dict (or a name) describes, its class looked up in `table` (and the custom
    objects); an unknown name is Keras's ValueError naming `what`."""
    table = dict(table, **(custom_objects or {}))
    name = config if isinstance(config, str) else config["class_name"]
    if name not in table:
        raise ValueError(_UNKNOWN.format(what=what, name=name))
    if isinstance(config, str):
        return table[name]()
    cls = table[name]
    return cls.from_config(config.get("config", {})) if hasattr(cls, "from_config") else cls(**config["config"])


def get_object(identifier, deserialize_fn, what):
    """An object from a name, a config dict, a class, an instance or a callable; None stays None."""
    if identifier is None:
        return None
    if isinstance(identifier, (dict, str)):
        return deserialize_fn(identifier)
    if callable(identifier):
        return identifier() if inspect.isclass(identifier) else identifier
    raise ValueError(f"Could not interpret {what} identifier: {identifier}")


serialize = serialize_object


def deserialize(config, custom_objects=None):
    """The initializer a `serialize` dict (or a name) describes."""
    return deserialize_object(config, dict(_CLASSES, **_ALIASES), custom_objects, "initializer")


def get(identifier):
    """An initializer from a name ('he_normal'), a config dict, a class, an instance or a callable; None stays
    None."""
    return get_object(identifier, deserialize, "initializer")

"""tf.keras.optimizers.schedules: learning rates as functions of the optimizer's step (tf_keras's maths)."""

import math


def _tw():
    import tensorweave

    return tensorweave


class LearningRateSchedule:
    """Base class: `schedule(step)` returns the learning rate at `step` (a Tensor)."""

    def __call__(self, step):
        raise NotImplementedError(
            f"Learning rate schedule '{self.__class__.__name__}' must override `__call__(self, step)`."
        )

    def get_config(self):
        raise NotImplementedError(
            f"Learning rate schedule '{self.__class__.__name__}' must override `get_config()` in order to be "
            "serializable."
        )

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class ExponentialDecay(LearningRateSchedule):
    """`initial_learning_rate * decay_rate ** (step / decay_steps)` (the exponent floored when `staircase`)."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False, name=None):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def __call__(self, step):
        tw = _tw()
        with tw.name_scope(self.name or "ExponentialDecay") as name:
            lr = tw.convert_to_tensor(self.initial_learning_rate, name="initial_learning_rate")
            dtype = lr.dtype
            p = tw.cast(step, dtype) / tw.cast(self.decay_steps, dtype)
            if self.staircase:
                p = tw.floor(p)
            return tw.multiply(lr, tw.pow(tw.cast(self.decay_rate, dtype), p), name=name)

    def get_config(self):
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }


class InverseTimeDecay(LearningRateSchedule):
    """`initial_learning_rate / (1 + decay_rate * step / decay_steps)` (floored when `staircase`)."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False, name=None):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def __call__(self, step):
        tw = _tw()
        with tw.name_scope(self.name or "InverseTimeDecay") as name:
            lr = tw.convert_to_tensor(self.initial_learning_rate, name="initial_learning_rate")
            dtype = lr.dtype
            p = tw.cast(step, dtype) / tw.cast(self.decay_steps, dtype)
            if self.staircase:
                p = tw.floor(p)
            return tw.divide(lr, 1.0 + tw.cast(self.decay_rate, dtype) * p, name=name)

    get_config = ExponentialDecay.get_config


class PolynomialDecay(LearningRateSchedule):
    """From `initial_learning_rate` to `end_learning_rate` over `decay_steps` along `(1 - p) ** power`."""

    def __init__(self, initial_learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0, cycle=False, name=None):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle
        self.name = name

    def __call__(self, step):
        tw = _tw()
        with tw.name_scope(self.name or "PolynomialDecay"):
            lr = tw.convert_to_tensor(self.initial_learning_rate, name="initial_learning_rate")
            dtype = lr.dtype
            end = tw.cast(self.end_learning_rate, dtype)
            step = tw.cast(step, dtype)
            decay_steps = tw.cast(self.decay_steps, dtype)
            if self.cycle:
                multiplier = tw.where(tw.equal(step, 0.0), tw.ones_like(step), tw.ceil(step / decay_steps))
                decay_steps = decay_steps * multiplier
            else:
                step = tw.minimum(step, decay_steps)
            p = step / decay_steps
            return (lr - end) * tw.pow(1 - p, tw.cast(self.power, dtype)) + end

    def get_config(self):
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "end_learning_rate": self.end_learning_rate,
            "power": self.power,
            "cycle": self.cycle,
            "name": self.name,
        }


class PiecewiseConstantDecay(LearningRateSchedule):
    """`values[i]` for `boundaries[i-1] < step <= boundaries[i]`."""

    def __init__(self, boundaries, values, name=None):
        if len(boundaries) != len(values) - 1:
            raise ValueError(
                "The length of boundaries should be 1 less than the length of values. Received: "
                f"boundaries={boundaries} of length {len(boundaries)}, and values={values} of length {len(values)}."
            )
        self.boundaries = boundaries
        self.values = values
        self.name = name

    def __call__(self, step):
        tw = _tw()
        with tw.name_scope(self.name or "PiecewiseConstant"):
            x = tw.convert_to_tensor(step)
            values = [tw.convert_to_tensor(v) for v in self.values]
            result = values[-1]
            # Walk from the last interval back so the first matching interval wins.
            for b, v in reversed(list(zip(self.boundaries, values[:-1]))):
                result = tw.where(x <= tw.cast(b, x.dtype), v, result)
            return result

    def get_config(self):
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class CosineDecay(LearningRateSchedule):
    """`initial_learning_rate * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, decay_steps) / decay_steps)) + alpha)`."""

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0, name=None):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name

    def __call__(self, step):
        tw = _tw()
        with tw.name_scope(self.name or "CosineDecay"):
            lr = tw.convert_to_tensor(self.initial_learning_rate, name="initial_learning_rate")
            dtype = lr.dtype
            decay_steps = tw.cast(self.decay_steps, dtype)
            fraction = tw.minimum(tw.cast(step, dtype), decay_steps) / decay_steps
            cosine = 0.5 * (1.0 + tw.cos(tw.constant(math.pi, dtype=dtype) * fraction))
            return lr * ((1 - self.alpha) * cosine + self.alpha)

    def get_config(self):
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "alpha": self.alpha,
            "name": self.name,
        }


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR): periods first_decay_steps * t_mul ** i, each restart's peak scaled
    by m_mul ** i."""

    def __init__(self, initial_learning_rate, first_decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0, name=None):
        self.initial_learning_rate, self.first_decay_steps = initial_learning_rate, first_decay_steps
        self._t_mul, self._m_mul, self.alpha, self.name = t_mul, m_mul, alpha, name

    def __call__(self, step):
        tw = _tw()
        with tw.name_scope(self.name or "SGDRDecay"):
            lr = tw.convert_to_tensor(self.initial_learning_rate, name="initial_learning_rate")
            dtype = lr.dtype
            fraction = tw.cast(step, dtype) / tw.cast(self.first_decay_steps, dtype)
            t_mul, m_mul = tw.cast(self._t_mul, dtype), tw.cast(self._m_mul, dtype)
            if self._t_mul == 1.0:
                i_restart = tw.floor(fraction)
                fraction = fraction - i_restart
            else:
                i_restart = tw.floor(tw.log(1.0 - fraction * (1.0 - t_mul)) / tw.log(t_mul))
                sum_r = (1.0 - t_mul**i_restart) / (1.0 - t_mul)
                fraction = (fraction - sum_r) / t_mul**i_restart
            cosine = 0.5 * m_mul**i_restart * (1.0 + tw.cos(tw.constant(math.pi, dtype=dtype) * fraction))
            return lr * ((1 - self.alpha) * cosine + self.alpha)

    def get_config(self):
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "first_decay_steps": self.first_decay_steps,
            "t_mul": self._t_mul,
            "m_mul": self._m_mul,
            "alpha": self.alpha,
            "name": self.name,
        }


_SCHEDULES = {
    c.__name__: c
    for c in (
        ExponentialDecay, InverseTimeDecay, PolynomialDecay, PiecewiseConstantDecay, CosineDecay, CosineDecayRestarts
    )
}  # fmt: skip


def serialize(schedule):
    return {"class_name": type(schedule).__name__, "config": schedule.get_config()}


def deserialize(config, custom_objects=None):
    name = config.get("class_name")
    cls = (custom_objects or {}).get(name) or _SCHEDULES.get(name)
    if cls is None:
        raise ValueError(
            f"Unknown decay: '{name}'. Please ensure this object is passed to the `custom_objects` argument."
        )
    return cls.from_config(config["config"])

"""tf.keras.optimizers.schedules."""

from tensorweave._src.keras.learning_rate_schedule import (  # noqa: F401
    CosineDecay,
    CosineDecayRestarts,
    ExponentialDecay,
    InverseTimeDecay,
    LearningRateSchedule,
    PiecewiseConstantDecay,
    PolynomialDecay,
    deserialize,
    serialize,
)

"""tf.keras.optimizers.legacy: the same OptimizerV2 classes (the ones TF1 graph programs use)."""

from tensorweave._src.keras.optimizers import (  # noqa: F401
    SGD,
    Adadelta,
    Adagrad,
    Adam,
    Adamax,
    Ftrl,
    Nadam,
    Optimizer,
    RMSprop,
)

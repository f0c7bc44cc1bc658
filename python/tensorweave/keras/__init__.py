"""tensorweave.keras: `tf.keras` (Keras 2, as TF1 graph-mode programs use it): layers, the engine (Model,
Sequential, training, callbacks, saving), backend, optimizers, losses, metrics, initializers and the rest."""

import sys as _sys

from tensorweave._src.keras import backend, constraints, engine, initializers, layers, regularizers
from tensorweave._src.keras.engine import Input, InputLayer, Model, Sequential
from tensorweave.keras import (
    activations,
    applications,
    callbacks,
    datasets,
    losses,
    metrics,
    models,
    optimizers,
    preprocessing,
    utils,
)
from tensorweave._src.keras import estimator

# The Keras Layer base, Input and InputLayer are the engine's.
for _name in ("Input", "InputLayer", "Layer"):
    setattr(layers, _name, getattr(engine, _name))
# `from tensorweave.keras.layers import Dense` and `import tensorweave.keras.backend as K` (modules without a file
# of their own here).
for _name, _module in (
    ("layers", layers),
    ("backend", backend),
    ("estimator", estimator),
    ("layers.experimental", layers.experimental),
    ("layers.experimental.preprocessing", layers.experimental.preprocessing),
):
    _sys.modules.setdefault(f"{__name__}.{_name}", _module)
del _name, _module

__all__ = [
    "Input",
    "InputLayer",
    "Model",
    "Sequential",
    "activations",
    "applications",
    "backend",
    "callbacks",
    "constraints",
    "estimator",
    "initializers",
    "layers",
    "losses",
    "metrics",
    "models",
    "optimizers",
    "preprocessing",
    "regularizers",
    "utils",
]

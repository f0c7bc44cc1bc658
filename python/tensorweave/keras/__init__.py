"""tensorweave.keras: `tf.keras` for TF1 graph-mode programs (a first part: layers and backend)."""

from tensorweave._src.keras import backend, layers

__all__ = ["Input", "backend", "layers"]

# --- optimizers, losses, metrics, activations, utils, preprocessing (tf.keras modules) ---
from tensorweave.keras import activations, losses, metrics, optimizers, preprocessing, utils

__all__ += ["activations", "losses", "metrics", "optimizers", "preprocessing", "utils"]


# --- the engine: Input, Model, Sequential, callbacks, models (saving) ---
import sys as _sys

from tensorweave._src.keras import engine
from tensorweave._src.keras.engine import Input, InputLayer, Model, Sequential
from tensorweave.keras import callbacks, models

# The Keras Layer base, Input and InputLayer are the engine's.
for _name in ("Input", "InputLayer", "Layer"):
    setattr(layers, _name, getattr(engine, _name))
# `from tensorweave.keras.layers import Dense` and `import tensorweave.keras.backend as K` (modules without a file
# of their own here).
for _name, _module in (("layers", layers), ("backend", backend)):
    _sys.modules.setdefault(f"{__name__}.{_name}", _module)
del _name, _module

__all__ += ["InputLayer", "Model", "Sequential", "callbacks", "models"]

# --- initializers, regularizers, constraints ---
from tensorweave._src.keras import constraints, initializers, regularizers

__all__ += ["constraints", "initializers", "regularizers"]

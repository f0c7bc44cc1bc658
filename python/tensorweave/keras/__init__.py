"""tensorweave.keras: `tf.keras` for TF1 graph-mode programs (a first part: layers and backend)."""

from tensorweave._src.keras import backend, layers
from tensorweave._src.keras.layers import Input

__all__ = ["Input", "backend", "layers"]

# --- optimizers, losses, metrics, activations, utils, preprocessing (tf.keras modules) ---
from tensorweave.keras import activations, losses, metrics, optimizers, preprocessing, utils

__all__ += ["activations", "losses", "metrics", "optimizers", "preprocessing", "utils"]


# --- the engine: Input, Model, Sequential, callbacks, models (saving) ---
from tensorweave._src.keras import engine  # noqa: E402
from tensorweave.keras import callbacks, models  # noqa: E402
from tensorweave._src.keras.engine import Input, InputLayer, Model, Sequential  # noqa: E402

# The Keras Layer base and Input are the engine's (kC's layers module re-exports them once merged).
for _name in ("Input", "InputLayer", "Layer"):
    if getattr(layers, _name, None) is not getattr(engine, _name):
        setattr(layers, _name, getattr(engine, _name))
del _name

__all__ += ["Input", "Model", "Sequential", "callbacks", "models"]

# --- initializers, regularizers, constraints ---
from tensorweave._src.keras import constraints, initializers, regularizers  # noqa: E402

__all__ += ["constraints", "initializers", "regularizers"]

"""tensorweave.keras: `tf.keras` for TF1 graph-mode programs (a first part: layers and backend)."""

from tensorweave._src.keras import backend, layers
from tensorweave._src.keras.layers import Input

__all__ = ["Input", "backend", "layers"]
from tensorweave._src.keras.models import Sequential

__all__ += ["Sequential"]

# --- optimizers, losses, metrics, activations, utils, preprocessing (tf.keras modules) ---
from tensorweave.keras import activations, losses, metrics, optimizers, preprocessing, utils

__all__ += ["activations", "losses", "metrics", "optimizers", "preprocessing", "utils"]
from tensorweave._src.keras import constraints, initializers, regularizers

__all__ += ["constraints", "initializers", "regularizers"]

"""tensorweave.keras: `tf.keras` for TF1 graph-mode programs (a first part: layers and backend)."""

from tensorweave._src.keras import backend, layers
from tensorweave._src.keras.layers import Input

__all__ = ["Input", "backend", "layers"]
from tensorweave._src.keras.models import Sequential

__all__ += ["Sequential"]
from tensorweave._src.keras import constraints, initializers, regularizers

__all__ += ["constraints", "initializers", "regularizers"]

"""tensorweave.keras: `tf.keras` for TF1 graph-mode programs (a first part: layers and backend)."""

from tensorweave._src.keras import backend
from tensorweave._src.keras import layers
from tensorweave._src.keras.layers import Input

__all__ = ["Input", "backend", "layers"]

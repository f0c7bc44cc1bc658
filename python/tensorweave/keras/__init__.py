"""tensorweave.keras: `tf.keras` for TF1 graph-mode programs (a first part: layers and backend)."""

from tensorweave._src.keras import backend, layers
from tensorweave._src.keras.layers import Input

__all__ = ["Input", "backend", "layers"]
from tensorweave._src.keras.models import Sequential

__all__ += ["Sequential"]

# --- optimizers, losses, metrics, activations, utils, preprocessing (tf.keras modules) ---
from tensorweave._src.keras import losses, metrics, optimizers  # noqa: E402

__all__ += ["losses", "metrics", "optimizers"]
from tensorweave._src.keras import activations  # noqa: E402

__all__ += ["activations"]

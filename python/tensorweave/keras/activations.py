"""tf.keras.activations."""

from tensorweave._src.keras.activations import *
from tensorweave._src.keras.activations import __all__  # noqa: F401

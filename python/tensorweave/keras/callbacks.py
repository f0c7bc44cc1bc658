"""tf.keras.callbacks."""

from tensorweave._src.keras.callbacks import *
from tensorweave._src.keras.callbacks import __all__  # noqa: F401

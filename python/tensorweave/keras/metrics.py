"""tf.keras.metrics."""

from tensorweave._src.keras.metrics import *
from tensorweave._src.keras.metrics import __all__  # noqa: F401

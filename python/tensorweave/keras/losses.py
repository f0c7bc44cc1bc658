"""tf.keras.losses."""

from tensorweave._src.keras.losses import *
from tensorweave._src.keras.losses import __all__  # noqa: F401

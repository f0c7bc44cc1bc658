"""tf.keras.models."""

from tensorweave._src.keras.models import *
from tensorweave._src.keras.models import __all__  # noqa: F401

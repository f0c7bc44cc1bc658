"""tf.keras.utils."""

from tensorweave._src.keras.utils import *
from tensorweave._src.keras.utils import __all__  # noqa: F401

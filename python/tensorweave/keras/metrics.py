"""tf.keras.metrics."""

from tensorweave._src.keras import metrics_more as _metrics_more
from tensorweave._src.keras.metrics import *
from tensorweave._src.keras.metrics import __all__ as _base_all
from tensorweave._src.keras.metrics_more import *

__all__ = list(_base_all) + list(_metrics_more.__all__)

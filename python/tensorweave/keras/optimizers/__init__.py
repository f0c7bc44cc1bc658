"""tf.keras.optimizers: Keras 2's optimizers (OptimizerV2) and their learning-rate schedules."""

from tensorweave._src.keras.optimizers import *
from tensorweave._src.keras.optimizers import Optimizer, OptimizerV2, RMSProp, __all__  # noqa: F401
from tensorweave._src.keras.optimizers_more import AdamW, Lion  # noqa: F401
from tensorweave.keras.optimizers import legacy, schedules  # noqa: F401

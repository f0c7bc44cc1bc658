"""tw.mixed_precision: TF1's `tf.compat.v1.mixed_precision` (loss scaling for mixed-precision training; see
`tensorweave._src.training.loss_scale`), with `experimental` holding the loss-scale classes as TF's does."""

import sys as _sys
import types as _types

from tensorweave._src.training.loss_scale import (
    DynamicLossScale,
    FixedLossScale,
    LossScale,
    MixedPrecisionLossScaleOptimizer,
    disable_mixed_precision_graph_rewrite,
    enable_mixed_precision_graph_rewrite,
)

experimental = _types.ModuleType(
    __name__ + ".experimental", "The loss-scale classes (tf.mixed_precision.experimental)."
)
experimental.DynamicLossScale, experimental.FixedLossScale, experimental.LossScale = (
    DynamicLossScale,
    FixedLossScale,
    LossScale,
)
_sys.modules.setdefault(experimental.__name__, experimental)

__all__ = [
    "DynamicLossScale",
    "FixedLossScale",
    "LossScale",
    "MixedPrecisionLossScaleOptimizer",
    "disable_mixed_precision_graph_rewrite",
    "enable_mixed_precision_graph_rewrite",
    "experimental",
]

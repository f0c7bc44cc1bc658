"""tw.mixed_precision: TF1's `tf.compat.v1.mixed_precision` (loss scaling for mixed-precision training; see
`tensorweave._src.training.loss_scale`), with `experimental` holding the loss-scale classes as TF's does."""

import sys as _sys
import types as _types

from tensorweave._src.training import loss_scale as _loss_scale
from tensorweave._src.training.loss_scale import *  # the names of its __all__

experimental = _types.ModuleType(__name__ + ".experimental", "The loss-scale classes (mixed_precision.experimental).")
for _name in ("DynamicLossScale", "FixedLossScale", "LossScale"):
    setattr(experimental, _name, getattr(_loss_scale, _name))
_sys.modules.setdefault(experimental.__name__, experimental)

__all__ = [*_loss_scale.__all__, "experimental"]  # noqa: PLE0604

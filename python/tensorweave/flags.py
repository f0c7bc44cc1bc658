"""tw.flags (TF1's tf.flags / tf.app.flags): absl-style command-line flags, self-contained.

Example:
  >>> import tensorweave as tw
  >>> fv = tw.flags.FlagValues()
  >>> _ = tw.flags.DEFINE_integer("steps", 10, "training steps", flag_values=fv)
  >>> _ = tw.flags.DEFINE_boolean("fast", True, "go fast", flag_values=fv)
  >>> fv(["prog", "--steps=5", "--nofast", "rest"]), fv.steps, fv.fast
  (['prog', 'rest'], 5, False)
"""

from tensorweave._src.platform.flags import *
from tensorweave._src.platform.flags import __all__  # noqa: F401

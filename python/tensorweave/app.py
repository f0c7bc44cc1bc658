"""tw.app (TF1's tf.app): `run(main=None, argv=None)` and `flags` (tw.flags).

Example:
  >>> import tensorweave as tw
  >>> tw.app.flags is tw.flags
  True
"""

from tensorweave import flags
from tensorweave._src.platform.app import run

__all__ = ["flags", "run"]

"""tensorweave.manip: TF1's `tf.manip` names for tensor manipulation (the same functions as at the top level).

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default():
  ...     print(tw.Session().run(tw.manip.roll([1, 2, 3, 4], shift=1, axis=0)))
  [4 1 2 3]
"""

from tensorweave._src.ops.array_nd_ops import batch_to_space_nd
from tensorweave._src.ops.array_nd_ops import gather_nd
from tensorweave._src.ops.array_nd_ops import reverse
from tensorweave._src.ops.array_nd_ops import roll
from tensorweave._src.ops.array_nd_ops import scatter_nd
from tensorweave._src.ops.array_nd_ops import space_to_batch_nd
from tensorweave._src.ops.array_ops import reshape
from tensorweave._src.ops.array_ops import tile

__all__ = ["batch_to_space_nd", "gather_nd", "reshape", "reverse", "roll", "scatter_nd", "space_to_batch_nd", "tile"]

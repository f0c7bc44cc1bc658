"""tw.sets: TensorFlow 1's tf.sets (sets are the last dimension of a dense tensor or SparseTensor; results
are SparseTensors of sorted sets).

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     print(sess.run(tw.sets.union([[1, 2]], [[2, 5]])).values)
  [1 2 5]
"""

from tensorweave._src.ops.sets_ops import set_difference, set_intersection, set_size, set_union
from tensorweave._src.ops.sets_ops import set_difference as difference
from tensorweave._src.ops.sets_ops import set_intersection as intersection
from tensorweave._src.ops.sets_ops import set_size as size
from tensorweave._src.ops.sets_ops import set_union as union

__all__ = [
    "difference",
    "intersection",
    "set_difference",
    "set_intersection",
    "set_size",
    "set_union",
    "size",
    "union",
]

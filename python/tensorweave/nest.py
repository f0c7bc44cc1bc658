"""tw.nest (TF's tf.nest): flatten, pack_sequence_as, map_structure, assert_same_structure, is_nested.

Example:
  >>> import tensorweave as tw
  >>> tw.nest.flatten({"b": [1, 2], "a": (3,)})
  [3, 1, 2]
  >>> tw.nest.map_structure(lambda x: x * 10, [1, (2, 3)])
  [10, (20, 30)]
"""

from tensorweave._src.util.nest import *
from tensorweave._src.util.nest import __all__  # noqa: F401

"""tw.ragged: TF1's tf.ragged module (ragged tensors: rows of different lengths).

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     rt = tw.ragged.constant([[1, 2, 3], [], [4]])
  ...     print(sess.run(rt.row_lengths()))
  [3 0 1]
"""

from tensorweave._src.ops.ragged_array_ops import boolean_mask, cross, cross_hashed  # noqa: F401
from tensorweave._src.ops.ragged_ops import (  # noqa: F401
    concat,
    constant,
    constant_value,
    map_flat_values,
    placeholder,
    stack,
)
from tensorweave._src.ops.ragged_ops import ragged_range as range  # noqa: F401, A004
from tensorweave._src.ops.ragged_tensor import (  # noqa: F401
    RaggedTensorValue,
    is_ragged,
    row_splits_to_segment_ids,
    segment_ids_to_row_splits,
)

__all__ = [
    "RaggedTensorValue",
    "boolean_mask",
    "concat",
    "constant",
    "constant_value",
    "cross",
    "cross_hashed",
    "is_ragged",
    "map_flat_values",
    "placeholder",
    "range",
    "row_splits_to_segment_ids",
    "segment_ids_to_row_splits",
    "stack",
]

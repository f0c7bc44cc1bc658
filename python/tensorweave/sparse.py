"""tw.sparse: TF1's tf.sparse module (sparse tensors and their ops)."""

from tensorweave._src.framework.sparse_tensor import SparseTensor  # noqa: F401
from tensorweave._src.ops.ragged_array_ops import sparse_cross as cross  # noqa: F401
from tensorweave._src.ops.ragged_array_ops import sparse_cross_hashed as cross_hashed  # noqa: F401
from tensorweave._src.ops.sparse_ops import (  # noqa: F401
    expand_dims,
    eye,
    from_dense,
    sparse_dense_matmul,
    to_dense,
)
from tensorweave._src.ops.sparse_ops import sparse_add as add  # noqa: F401
from tensorweave._src.ops.sparse_ops import sparse_concat as concat  # noqa: F401
from tensorweave._src.ops.sparse_ops import sparse_fill_empty_rows as fill_empty_rows  # noqa: F401
from tensorweave._src.ops.sparse_ops import sparse_maximum as maximum  # noqa: F401
from tensorweave._src.ops.sparse_ops import sparse_merge as merge  # noqa: F401
from tensorweave._src.ops.sparse_ops import sparse_minimum as minimum  # noqa: F401
from tensorweave._src.ops.sparse_ops import sparse_placeholder as placeholder  # noqa: F401
from tensorweave._src.ops.sparse_ops import sparse_reduce_max as reduce_max  # noqa: F401
from tensorweave._src.ops.sparse_ops import sparse_reduce_max_sparse as reduce_max_sparse  # noqa: F401
from tensorweave._src.ops.sparse_ops import sparse_reduce_sum as reduce_sum  # noqa: F401
from tensorweave._src.ops.sparse_ops import sparse_reduce_sum_sparse as reduce_sum_sparse  # noqa: F401
from tensorweave._src.ops.sparse_ops import sparse_reorder as reorder  # noqa: F401
from tensorweave._src.ops.sparse_ops import sparse_reset_shape as reset_shape  # noqa: F401
from tensorweave._src.ops.sparse_ops import sparse_reshape as reshape  # noqa: F401
from tensorweave._src.ops.sparse_ops import sparse_retain as retain  # noqa: F401
from tensorweave._src.ops.sparse_ops import sparse_segment_mean as segment_mean  # noqa: F401
from tensorweave._src.ops.sparse_ops import sparse_segment_sqrt_n as segment_sqrt_n  # noqa: F401
from tensorweave._src.ops.sparse_ops import sparse_segment_sum as segment_sum  # noqa: F401
from tensorweave._src.ops.sparse_ops import sparse_slice as slice  # noqa: F401
from tensorweave._src.ops.sparse_ops import sparse_softmax as softmax  # noqa: F401
from tensorweave._src.ops.sparse_ops import sparse_split as split  # noqa: F401
from tensorweave._src.ops.sparse_ops import sparse_to_indicator as to_indicator  # noqa: F401
from tensorweave._src.ops.sparse_ops import sparse_transpose as transpose  # noqa: F401

matmul = sparse_dense_matmul
from tensorweave._src.ops.sparse_ops import sparse_mask as mask  # noqa: F401
from tensorweave._src.ops.sparse_bincount_ops import sparse_bincount as bincount  # noqa: E402, F401
from tensorweave._src.ops.accumulator_ops import SparseConditionalAccumulator  # noqa: E402, F401

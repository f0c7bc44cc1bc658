"""tensorweave: dataflow graphs with mutable state, in TensorFlow v1's API.

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default():
  ...     x = tw.placeholder(tw.float32, [None, 2], name="x")
  ...     w = tw.Variable([[1.0], [2.0]], name="w")
  ...     y = tw.matmul(x, w)
  ...     with tw.Session() as sess:
  ...         sess.run(tw.global_variables_initializer())
  ...         sess.run(y, {x: [[3.0, 4.0]]})
  array([[11.]], dtype=float32)

The implementation lives in `tensorweave._src`; this module re-exports the
public names on purpose.
"""

# First: loads the core extension with OpenBLAS's kernels for this CPU (OpenBLAS picks them as it loads).
from tensorweave._src.platform import blas_core as _blas_core  # noqa: F401  # isort: skip

# Then: the CUDA GPU device (libtensorweave_gpu.so next to the extension) when it is there, unless TW_GPU=0.
from tensorweave._src.platform import gpu_loader as _gpu_loader  # noqa: F401  # isort: skip
from tensorweave import errors
from tensorweave import math
from tensorweave._src.client.session import ConfigProto
from tensorweave._src.client.session import GPUOptions
from tensorweave._src.client.session import GraphOptions
from tensorweave._src.client.session import InteractiveSession
from tensorweave._src.client.session import OptimizerOptions
from tensorweave._src.client.session import RunMetadata
from tensorweave._src.client.session import RunOptions
from tensorweave._src.client.session import Session
from tensorweave._src.framework.device_spec import DeviceSpec
from tensorweave._src.framework.dtypes import DType
from tensorweave._src.framework.dtypes import as_dtype
from tensorweave._src.framework.dtypes import bfloat16
from tensorweave._src.framework.dtypes import bool  # noqa: A004
from tensorweave._src.framework.dtypes import complex64
from tensorweave._src.framework.dtypes import complex128
from tensorweave._src.framework.dtypes import double
from tensorweave._src.framework.dtypes import float16
from tensorweave._src.framework.dtypes import float32
from tensorweave._src.framework.dtypes import float64
from tensorweave._src.framework.dtypes import half
from tensorweave._src.framework.dtypes import int8
from tensorweave._src.framework.dtypes import int16
from tensorweave._src.framework.dtypes import int32
from tensorweave._src.framework.dtypes import int64
from tensorweave._src.framework.dtypes import string
from tensorweave._src.framework.dtypes import uint8
from tensorweave._src.framework.dtypes import uint16
from tensorweave._src.framework.dtypes import uint32
from tensorweave._src.framework.dtypes import uint64
from tensorweave._src.framework.importer import import_graph_def
from tensorweave._src.framework.ops import Graph
from tensorweave._src.framework.ops import GraphKeys
from tensorweave._src.framework.ops import Operation
from tensorweave._src.framework.ops import Tensor
from tensorweave._src.framework.ops import add_to_collection
from tensorweave._src.framework.ops import add_to_collections
from tensorweave._src.framework.ops import colocate_with
from tensorweave._src.framework.ops import control_dependencies
from tensorweave._src.framework.ops import convert_to_tensor
from tensorweave._src.framework.ops import device
from tensorweave._src.framework.ops import get_collection
from tensorweave._src.framework.ops import get_collection_ref
from tensorweave._src.framework.ops import get_default_graph
from tensorweave._src.framework.ops import get_default_session
from tensorweave._src.framework.ops import group
from tensorweave._src.framework.ops import name_scope
from tensorweave._src.framework.ops import reset_default_graph
from tensorweave._src.framework.random_seed import set_random_seed
from tensorweave._src.framework.tensor_shape import Dimension
from tensorweave._src.framework.tensor_shape import TensorShape
from tensorweave._src.framework.tensor_shape import dimension_at_index
from tensorweave._src.framework.tensor_shape import dimension_value
from tensorweave._src.ops.array_ops import concat
from tensorweave._src.ops.array_ops import constant_value
from tensorweave._src.ops.array_ops import expand_dims
from tensorweave._src.ops.array_ops import fill
from tensorweave._src.ops.array_ops import gather
from tensorweave._src.ops.array_ops import identity
from tensorweave._src.ops.array_ops import invert_permutation
from tensorweave._src.ops.array_ops import newaxis
from tensorweave._src.ops.array_ops import one_hot
from tensorweave._src.ops.array_ops import ones
from tensorweave._src.ops.array_ops import ones_like
from tensorweave._src.ops.array_ops import pad
from tensorweave._src.ops.array_ops import placeholder
from tensorweave._src.ops.array_ops import placeholder_with_default
from tensorweave._src.ops.array_ops import range
from tensorweave._src.ops.array_ops import rank
from tensorweave._src.ops.array_ops import reshape
from tensorweave._src.ops.array_ops import shape
from tensorweave._src.ops.array_ops import size
from tensorweave._src.ops.array_ops import slice
from tensorweave._src.ops.array_ops import split
from tensorweave._src.ops.array_ops import squeeze
from tensorweave._src.ops.array_ops import stack
from tensorweave._src.ops.array_ops import stop_gradient
from tensorweave._src.ops.array_ops import strided_slice
from tensorweave._src.ops.array_ops import tile
from tensorweave._src.ops.array_ops import transpose
from tensorweave._src.ops.array_ops import unsorted_segment_sum
from tensorweave._src.ops.array_ops import unstack
from tensorweave._src.ops.array_ops import zeros
from tensorweave._src.ops.array_ops import zeros_like
from tensorweave._src.ops.array_nd_ops import batch_to_space
from tensorweave._src.ops.array_nd_ops import batch_to_space_nd
from tensorweave._src.ops.array_nd_ops import bitcast
from tensorweave._src.ops.array_nd_ops import boolean_mask
from tensorweave._src.ops.array_nd_ops import broadcast_to
from tensorweave._src.ops.array_nd_ops import depth_to_space
from tensorweave._src.ops.array_nd_ops import ensure_shape
from tensorweave._src.ops.array_nd_ops import eye
from tensorweave._src.ops.array_nd_ops import extract_image_patches
from tensorweave._src.ops.image_box_ops import extract_volume_patches
from tensorweave._src.ops.array_nd_ops import gather_nd
from tensorweave._src.ops.array_nd_ops import identity_n
from tensorweave._src.ops.array_nd_ops import lin_space
from tensorweave._src.ops.array_nd_ops import linspace
from tensorweave._src.ops.array_nd_ops import meshgrid
from tensorweave._src.ops.array_nd_ops import parallel_stack
from tensorweave._src.ops.array_nd_ops import repeat
from tensorweave._src.ops.array_nd_ops import reverse
from tensorweave._src.ops.array_nd_ops import reverse_sequence
from tensorweave._src.ops.array_nd_ops import reverse_v2
from tensorweave._src.ops.array_nd_ops import roll
from tensorweave._src.ops.array_nd_ops import scatter_nd
from tensorweave._src.ops.array_nd_ops import searchsorted
from tensorweave._src.ops.array_nd_ops import sequence_mask
from tensorweave._src.ops.array_nd_ops import shape_n
from tensorweave._src.ops.array_nd_ops import space_to_batch
from tensorweave._src.ops.array_nd_ops import space_to_batch_nd
from tensorweave._src.ops.array_nd_ops import space_to_depth
from tensorweave._src.ops.array_nd_ops import tensor_scatter_add
from tensorweave._src.ops.array_nd_ops import tensor_scatter_nd_add
from tensorweave._src.ops.array_nd_ops import tensor_scatter_nd_sub
from tensorweave._src.ops.array_nd_ops import tensor_scatter_nd_update
from tensorweave._src.ops.array_nd_ops import tensor_scatter_sub
from tensorweave._src.ops.array_nd_ops import tensor_scatter_update
from tensorweave._src.ops.array_nd_ops import broadcast_dynamic_shape
from tensorweave._src.ops.array_nd_ops import broadcast_static_shape
from tensorweave._src.ops.array_nd_ops import check_numerics
from tensorweave._src.ops.array_nd_ops import diag
from tensorweave._src.ops.array_nd_ops import diag_part
from tensorweave._src.ops.array_nd_ops import tensor_scatter_nd_max
from tensorweave._src.ops.array_nd_ops import tensor_scatter_nd_min
from tensorweave._src.ops.array_nd_ops import unravel_index
from tensorweave._src.ops.constant_op import constant
from tensorweave._src.ops.gradients_impl import NotDifferentiable
from tensorweave._src.ops.gradients_impl import RegisterGradient
from tensorweave._src.ops.gradients_impl import gradients
from tensorweave._src.ops.gradients_impl import no_gradient
from tensorweave._src.ops.init_ops import constant_initializer
from tensorweave._src.ops.init_ops import glorot_normal_initializer
from tensorweave._src.ops.init_ops import glorot_uniform_initializer
from tensorweave._src.ops.init_ops import ones_initializer
from tensorweave._src.ops.init_ops import random_normal_initializer
from tensorweave._src.ops.init_ops import random_uniform_initializer
from tensorweave._src.ops.init_ops import truncated_normal_initializer
from tensorweave._src.ops.init_ops import variance_scaling_initializer
from tensorweave._src.ops.init_ops import zeros_initializer
from tensorweave._src.ops.math_ops import abs  # noqa: A004
from tensorweave._src.ops.math_ops import add
from tensorweave._src.ops.math_ops import add_n
from tensorweave._src.ops.math_ops import argmax
from tensorweave._src.ops.math_ops import argmin
from tensorweave._src.ops.math_ops import cast
from tensorweave._src.ops.math_ops import ceil
from tensorweave._src.ops.math_ops import clip_by_value
from tensorweave._src.ops.math_ops import div
from tensorweave._src.ops.math_ops import divide
from tensorweave._src.ops.math_ops import equal
from tensorweave._src.ops.math_ops import exp
from tensorweave._src.ops.math_ops import floor
from tensorweave._src.ops.math_ops import floordiv
from tensorweave._src.ops.math_ops import floormod
from tensorweave._src.ops.math_ops import greater
from tensorweave._src.ops.math_ops import greater_equal
from tensorweave._src.ops.math_ops import less
from tensorweave._src.ops.math_ops import less_equal
from tensorweave._src.ops.math_ops import log
from tensorweave._src.ops.math_ops import log1p
from tensorweave._src.ops.math_ops import logical_and
from tensorweave._src.ops.math_ops import logical_not
from tensorweave._src.ops.math_ops import logical_or
from tensorweave._src.ops.math_ops import logical_xor
from tensorweave._src.ops.math_ops import matmul
from tensorweave._src.ops.math_ops import maximum
from tensorweave._src.ops.math_ops import minimum
from tensorweave._src.ops.math_ops import mod
from tensorweave._src.ops.math_ops import multiply
from tensorweave._src.ops.math_ops import negative
from tensorweave._src.ops.math_ops import not_equal
from tensorweave._src.ops.math_ops import pow  # noqa: A004
from tensorweave._src.ops.math_ops import realdiv
from tensorweave._src.ops.math_ops import reciprocal
from tensorweave._src.ops.math_ops import reduce_all
from tensorweave._src.ops.math_ops import reduce_any
from tensorweave._src.ops.math_ops import reduce_max
from tensorweave._src.ops.math_ops import reduce_mean
from tensorweave._src.ops.math_ops import reduce_min
from tensorweave._src.ops.math_ops import reduce_prod
from tensorweave._src.ops.math_ops import reduce_sum
from tensorweave._src.ops.math_ops import round  # noqa: A004
from tensorweave._src.ops.math_ops import rsqrt
from tensorweave._src.ops.math_ops import sigmoid
from tensorweave._src.ops.math_ops import sign
from tensorweave._src.ops.math_ops import sqrt
from tensorweave._src.ops.math_ops import square
from tensorweave._src.ops.math_ops import squared_difference
from tensorweave._src.ops.math_ops import subtract
from tensorweave._src.ops.math_ops import tanh
from tensorweave._src.ops.math_ops import to_float
from tensorweave._src.ops.math_ops import truediv
from tensorweave._src.ops.math_ops import where
from tensorweave._src.ops.math_ops import where_v2
from tensorweave._src.ops.random_ops import multinomial
from tensorweave._src.ops.random_ops import random_normal
from tensorweave._src.ops.random_ops import random_shuffle
from tensorweave._src.ops.random_ops import random_uniform
from tensorweave._src.ops.random_ops import truncated_normal
from tensorweave._src.ops.special_math_ops import accumulate_n
from tensorweave._src.ops.special_math_ops import add_check_numerics_ops
from tensorweave._src.ops.special_math_ops import histogram_fixed_width
from tensorweave._src.ops.special_math_ops import histogram_fixed_width_bins
from tensorweave._src.ops.special_math_ops import is_numeric_tensor
from tensorweave._src.ops.special_math_ops import log_sigmoid
from tensorweave._src.ops.special_math_ops import verify_tensor_all_finite
from tensorweave._src.framework.behavior import control_flow_v2_enabled
from tensorweave._src.framework.behavior import disable_control_flow_v2
from tensorweave._src.framework.behavior import disable_eager_execution
from tensorweave._src.framework.behavior import disable_resource_variables
from tensorweave._src.framework.behavior import disable_tensor_equality
from tensorweave._src.framework.behavior import disable_v2_behavior
from tensorweave._src.framework.behavior import disable_v2_tensorshape
from tensorweave._src.framework.behavior import enable_control_flow_v2
from tensorweave._src.framework.behavior import enable_eager_execution
from tensorweave._src.framework.behavior import enable_resource_variables
from tensorweave._src.framework.behavior import enable_tensor_equality
from tensorweave._src.framework.behavior import enable_v2_behavior
from tensorweave._src.framework.behavior import enable_v2_tensorshape
from tensorweave._src.framework.behavior import executing_eagerly
from tensorweave._src.framework.behavior import resource_variables_enabled
from tensorweave._src.ops.einsum_ops import einsum
from tensorweave._src.ops.einsum_ops import tensordot
from tensorweave._src.ops.ctc_ops import edit_distance
from tensorweave._src.ops.selection_ops import argsort
from tensorweave._src.ops.selection_ops import bincount
from tensorweave._src.ops.selection_ops import confusion_matrix
from tensorweave._src.ops.selection_ops import setdiff1d
from tensorweave._src.ops.selection_ops import sort
from tensorweave._src.ops.selection_ops import unique
from tensorweave._src.ops.selection_ops import unique_with_counts
from tensorweave._src.ops.segment_ops import segment_max
from tensorweave._src.ops.segment_ops import segment_mean
from tensorweave._src.ops.segment_ops import segment_min
from tensorweave._src.ops.segment_ops import segment_prod
from tensorweave._src.ops.segment_ops import segment_sum
from tensorweave._src.ops.segment_ops import unsorted_segment_max
from tensorweave._src.ops.segment_ops import unsorted_segment_mean
from tensorweave._src.ops.segment_ops import unsorted_segment_min
from tensorweave._src.ops.segment_ops import unsorted_segment_prod
from tensorweave._src.ops.segment_ops import unsorted_segment_sqrt_n
from tensorweave._src.ops.special_math_ops import arg_max
from tensorweave._src.ops.special_math_ops import arg_min
from tensorweave._src.ops.special_math_ops import saturate_cast
from tensorweave._src.ops.special_math_ops import to_complex64
from tensorweave._src.ops.special_math_ops import to_complex128
from tensorweave._src.ops.special_math_ops import to_bfloat16
from tensorweave._src.ops.special_math_ops import to_double
from tensorweave._src.ops.special_math_ops import to_int32
from tensorweave._src.ops.special_math_ops import to_int64
from tensorweave._src.ops.special_math_ops import acos
from tensorweave._src.ops.special_math_ops import acosh
from tensorweave._src.ops.special_math_ops import asin
from tensorweave._src.ops.special_math_ops import asinh
from tensorweave._src.ops.special_math_ops import atan
from tensorweave._src.ops.special_math_ops import atan2
from tensorweave._src.ops.special_math_ops import atanh
from tensorweave._src.ops.special_math_ops import betainc
from tensorweave._src.ops.special_math_ops import clip_by_average_norm
from tensorweave._src.ops.special_math_ops import clip_by_norm
from tensorweave._src.ops.special_math_ops import cos
from tensorweave._src.ops.special_math_ops import cosh
from tensorweave._src.ops.special_math_ops import count_nonzero
from tensorweave._src.ops.special_math_ops import cumprod
from tensorweave._src.ops.special_math_ops import cumsum
from tensorweave._src.ops.special_math_ops import digamma
from tensorweave._src.ops.special_math_ops import div_no_nan
from tensorweave._src.ops.special_math_ops import erf
from tensorweave._src.ops.special_math_ops import erfc
from tensorweave._src.ops.special_math_ops import expm1
from tensorweave._src.ops.special_math_ops import floor_div
from tensorweave._src.ops.special_math_ops import igamma
from tensorweave._src.ops.special_math_ops import igammac
from tensorweave._src.ops.special_math_ops import is_finite
from tensorweave._src.ops.special_math_ops import is_inf
from tensorweave._src.ops.special_math_ops import is_nan
from tensorweave._src.ops.special_math_ops import is_non_decreasing
from tensorweave._src.ops.special_math_ops import is_strictly_increasing
from tensorweave._src.ops.special_math_ops import lbeta
from tensorweave._src.ops.special_math_ops import lgamma
from tensorweave._src.ops.special_math_ops import polygamma
from tensorweave._src.ops.special_math_ops import reduce_logsumexp
from tensorweave._src.ops.special_math_ops import rint
from tensorweave._src.ops.special_math_ops import scalar_mul
from tensorweave._src.ops.special_math_ops import sin
from tensorweave._src.ops.special_math_ops import sinh
from tensorweave._src.ops.special_math_ops import tan
from tensorweave._src.ops.special_math_ops import truncatediv
from tensorweave._src.ops.special_math_ops import truncatemod
from tensorweave._src.ops.special_math_ops import zeta
from tensorweave._src.ops.random_ops import random_crop
from tensorweave._src.ops.random_ops import random_gamma
from tensorweave._src.ops.random_ops import random_poisson
from tensorweave._src.framework.random_seed import get_seed
from tensorweave._src.ops.state_ops import assign
from tensorweave._src.ops.state_ops import assign_add
from tensorweave._src.ops.state_ops import assign_sub
from tensorweave._src.ops.state_ops import is_variable_initialized
from tensorweave._src.ops.file_ops import matching_files
from tensorweave._src.ops.file_ops import read_file
from tensorweave._src.ops.file_ops import write_file
from tensorweave._src.ops.parsing_ops import FixedLenFeature
from tensorweave._src.ops.parsing_ops import VarLenFeature
from tensorweave._src.ops.parsing_ops import FixedLenSequenceFeature
from tensorweave._src.ops.parsing_ops import SparseFeature
from tensorweave._src.ops.parsing_ops import decode_json_example
from tensorweave._src.ops.parsing_ops import deserialize_many_sparse
from tensorweave._src.ops.parsing_ops import parse_single_sequence_example
from tensorweave._src.ops.parsing_ops import serialize_many_sparse
from tensorweave._src.ops.parsing_ops import serialize_sparse
from tensorweave._src.ops.parsing_ops import decode_raw
from tensorweave._src.ops.parsing_ops import parse_example
from tensorweave._src.ops.parsing_ops import parse_single_example
from tensorweave._src.ops.variables import AUTO_REUSE
from tensorweave._src.ops.variables import Variable
from tensorweave._src.ops.variables import VariableScope
from tensorweave._src.ops.variables import get_variable
from tensorweave._src.ops.variables import get_variable_scope
from tensorweave._src.ops.variables import global_variables
from tensorweave._src.ops.variables import global_variables_initializer
from tensorweave._src.ops.variables import local_variables
from tensorweave._src.ops.variables import local_variables_initializer
from tensorweave._src.ops.variables import report_uninitialized_variables
from tensorweave._src.ops.variables import trainable_variables
from tensorweave._src.ops.variables import variable_scope
from tensorweave._src.ops.variables import variables_initializer
from tensorweave._src.ops.linalg_ops import (  # noqa: E402
    cholesky,
    cholesky_solve,
    cross,
    matrix_band_part,
    matrix_determinant,
    matrix_diag,
    matrix_diag_part,
    matrix_inverse,
    matrix_set_diag,
    matrix_solve,
    matrix_solve_ls,
    matrix_transpose,
    matrix_triangular_solve,
    norm,
    qr,
    self_adjoint_eig,
    self_adjoint_eigvals,
    svd,
    trace,
)
from tensorweave._src.ops.linalg_extra_ops import matrix_square_root  # noqa: E402
from tensorweave._src.framework.sparse_tensor import (  # noqa: E402
    SparseTensor,
    SparseTensorValue,
)
from tensorweave._src.ops.sparse_ops import (  # noqa: E402
    convert_to_tensor_or_sparse_tensor,
    sparse_matmul,
    sparse_add,
    sparse_concat,
    sparse_fill_empty_rows,
    sparse_mask,
    sparse_maximum,
    sparse_merge,
    sparse_minimum,
    sparse_placeholder,
    sparse_reduce_max,
    sparse_reduce_max_sparse,
    sparse_reduce_sum,
    sparse_reduce_sum_sparse,
    sparse_reorder,
    sparse_reset_shape,
    sparse_reshape,
    sparse_retain,
    sparse_segment_mean,
    sparse_segment_sqrt_n,
    sparse_segment_sum,
    sparse_slice,
    sparse_softmax,
    sparse_split,
    sparse_tensor_dense_matmul,
    sparse_tensor_to_dense,
    sparse_to_dense,
    sparse_to_indicator,
    sparse_transpose,
)
from tensorweave import sparse  # noqa: E402
from tensorweave._src.ops.ragged_tensor import RaggedTensor  # noqa: E402
from tensorweave._src.ops.string_extra_ops import fingerprint, string_to_hash_bucket  # noqa: E402
from tensorweave._src.ops.string_ops import (  # noqa: E402
    as_string,
    reduce_join,
    regex_replace,
    string_join,
    string_split,
    string_strip,
    string_to_hash_bucket_fast,
    string_to_hash_bucket_strong,
    string_to_number,
    substr,
)
from tensorweave._src.ops.script_ops import (  # noqa: E402
    numpy_function,
    py_func,
)
from tensorweave._src.ops.logging_ops import (  # noqa: E402
    Assert,
    Print,
    assert_equal,
    assert_greater,
    assert_greater_equal,
    assert_integer,
    assert_less,
    assert_less_equal,
    assert_near,
    assert_negative,
    assert_non_negative,
    assert_non_positive,
    assert_none_equal,
    assert_positive,
    assert_proper_iterable,
    assert_rank,
    assert_rank_at_least,
    assert_rank_in,
    assert_same_float_dtype,
    assert_scalar,
    assert_type,
)
from tensorweave._src.ops.scatter_var_ops import (  # noqa: E402
    batch_gather,
    batch_scatter_update,
    count_up_to,
    scatter_add,
    scatter_div,
    scatter_max,
    scatter_min,
    scatter_mul,
    scatter_nd_add,
    scatter_nd_sub,
    scatter_nd_update,
    scatter_sub,
    scatter_update,
)
from tensorweave._src.framework.misc_api import (  # noqa: E402
    GRAPH_DEF_VERSION,
    GRAPH_DEF_VERSION_MIN_CONSUMER,
    GRAPH_DEF_VERSION_MIN_PRODUCER,
    VERSION,
    AggregationMethod,
    UnconnectedGradients,
    VariableAggregation,
    VariableSynchronization,
    all_variables,
    assert_variables_initialized,
    get_local_variable,
    get_static_value,
    init_scope,
    initialize_all_tables,
    initialize_local_variables,
    initialize_variables,
    is_tensor,
    make_ndarray,
    make_tensor_proto,
    moving_average_variables,
    no_regularizer,
    op_scope,
    tables_initializer,
    tuple,  # noqa: A004
    variable_op_scope,
)
from tensorweave._src.ops.variables import model_variables  # noqa: E402
from tensorweave._src.framework.errors import OpError  # noqa: E402
from tensorweave._src.framework.misc_api import get_logger  # noqa: E402
from tensorweave._src.framework.indexed_slices import (  # noqa: E402
    IndexedSlices,
    convert_to_tensor_or_indexed_slices,
    register_tensor_conversion_function,
)
from tensorweave._src.ops.encode_ops import decode_base64, encode_base64  # noqa: E402
from tensorweave._src.ops.io_extra_ops import (  # noqa: E402
    decode_compressed,
    decode_csv,
    parse_tensor,
    serialize_tensor,
)
from tensorweave._src.ops.data_flow_ops import dynamic_partition, dynamic_stitch  # noqa: E402
from tensorweave._src.ops.accumulator_ops import (  # noqa: E402
    ConditionalAccumulator,
    ConditionalAccumulatorBase,
    SparseConditionalAccumulator,
)
from tensorweave._src.ops.queue_ops import (  # noqa: E402
    FIFOQueue,
    PaddingFIFOQueue,
    PriorityQueue,
    QueueBase,
    RandomShuffleQueue,
)
from tensorweave._src.ops.session_ops import (  # noqa: E402
    delete_session_tensor,
    get_session_handle,
    get_session_tensor,
)
from tensorweave._src.ops.critical_section_ops import CriticalSection  # noqa: E402
from tensorweave._src.ops.reader_ops import (  # noqa: E402
    FixedLengthRecordReader,
    IdentityReader,
    ReaderBase,
    TextLineReader,
    TFRecordReader,
    WholeFileReader,
)
from tensorweave._src.ops.custom_gradient_ops import (  # noqa: E402
    custom_gradient,
    grad_pass_through,
    hessians,
    make_template,
)
from tensorweave._src.ops.init_partition_ops import (  # noqa: E402
    fixed_size_partitioner,
    min_max_variable_partitioner,
    orthogonal_initializer,
    uniform_unit_scaling_initializer,
    variable_axis_size_partitioner,
)
from tensorweave._src.ops.gradients_impl import NotDifferentiable as NoGradient  # noqa: E402
from tensorweave._src.ops.control_flow_ops import case  # noqa: E402
from tensorweave._src.ops.control_flow_ops import cond  # noqa: E402
from tensorweave._src.ops.control_flow_ops import switch_case  # noqa: E402
from tensorweave._src.ops.control_flow_ops import while_loop  # noqa: E402
from tensorweave._src.ops.tensor_array_ops import TensorArray  # noqa: E402
from tensorweave._src.ops.functional_ops import foldl, foldr, map_fn, scan  # noqa: E402
from tensorweave._src.training.gradient_clipping import clip_by_global_norm
from tensorweave._src.ops.conv_nd_ops import (  # noqa: E402
    conv,
    conv2d_backprop_filter_v2,
    conv2d_backprop_input_v2,
)
from tensorweave._src.ops.recompute_ops import recompute_grad, vectorized_map  # noqa: E402
from tensorweave._src.ops.misc_gap_ops import (  # noqa: E402
    container,
    create_partitioned_variables,
    guarantee_const,
    required_space_to_batch_paddings,
    timestamp,
    variable_creator_scope,
)
from tensorweave._src.training.gradient_clipping import global_norm

# Gradient functions register themselves when imported.
from tensorweave._src.ops import array_grad as _array_grad  # noqa: F401
from tensorweave._src.ops import math_grad as _math_grad  # noqa: F401
from tensorweave._src.ops import nn_grad as _nn_grad  # noqa: F401
from tensorweave._src.ops import nn_volume_grad as _nn_volume_grad  # noqa: F401
from tensorweave._src.ops import state_grad as _state_grad  # noqa: F401
from tensorweave._src.ops import training_grad as _training_grad  # noqa: F401
from tensorweave._src.ops import io_grad as _io_grad  # noqa: F401
from tensorweave._src.ops import fused_grad as _fused_grad  # noqa: E402, F401
from tensorweave._src.ops import array_nd_grad as _array_nd_grad  # noqa: F401
from tensorweave._src.ops import image_grad as _image_grad  # noqa: F401
from tensorweave._src.ops import special_math_grad as _special_math_grad  # noqa: F401
from tensorweave._src.ops import segment_grad as _segment_grad  # noqa: F401
from tensorweave._src.ops import selection_grad as _selection_grad  # noqa: F401
from tensorweave._src.ops import control_flow_grad as _control_flow_grad  # noqa: F401
from tensorweave._src.ops import tensor_array_grad as _tensor_array_grad  # noqa: F401
from tensorweave._src.ops import gen_ops as _gen_ops
from tensorweave._src.ops.fake_quant_ops import (  # noqa: E402
    fake_quant_with_min_max_args,
    fake_quant_with_min_max_args_gradient,
    fake_quant_with_min_max_vars,
    fake_quant_with_min_max_vars_gradient,
    fake_quant_with_min_max_vars_per_channel,
    fake_quant_with_min_max_vars_per_channel_gradient,
)

from tensorweave._src.ops.spectral_ops import (  # noqa: E402
    angle,
    complex,  # noqa: A004
    conj,
    fft,
    fft2d,
    fft3d,
    ifft,
    ifft2d,
    ifft3d,
    imag,
    real,
)
from tensorweave._src.ops.signal_ops import raw_fftnd as fftnd  # noqa: E402
from tensorweave._src.ops.signal_ops import raw_ifftnd as ifftnd  # noqa: E402
from tensorweave._src.ops.signal_ops import raw_irfftnd as irfftnd  # noqa: E402
from tensorweave._src.ops.signal_ops import raw_rfftnd as rfftnd  # noqa: E402

# Namespaces, after the ops they re-export.
from tensorweave import flags  # noqa: E402
from tensorweave import app  # noqa: E402
from tensorweave import bitwise  # noqa: E402
from tensorweave import compat  # noqa: E402
from tensorweave import config  # noqa: E402
from tensorweave import data  # noqa: E402
from tensorweave import distributions  # noqa: E402
from tensorweave import gfile  # noqa: E402
from tensorweave import graph_util  # noqa: E402
from tensorweave import image  # noqa: E402
from tensorweave import initializers  # noqa: E402
from tensorweave import io  # noqa: E402
from tensorweave import keras  # noqa: E402
from tensorweave import layers  # noqa: E402
from tensorweave import linalg  # noqa: E402
from tensorweave import lite  # noqa: E402
from tensorweave import logging  # noqa: E402
from tensorweave import losses  # noqa: E402
from tensorweave import metrics  # noqa: E402
from tensorweave import mixed_precision  # noqa: E402
from tensorweave import nn  # noqa: E402
from tensorweave import python_io  # noqa: E402
from tensorweave import quantization  # noqa: E402
from tensorweave import ragged  # noqa: E402
from tensorweave import random  # noqa: E402
from tensorweave import raw_ops  # noqa: E402
from tensorweave import saved_model  # noqa: E402
from tensorweave import sets  # noqa: E402
from tensorweave import signal  # noqa: E402
from tensorweave import spectral  # noqa: E402
from tensorweave import strings  # noqa: E402
from tensorweave import summary  # noqa: E402
from tensorweave import test  # noqa: E402
from tensorweave import train  # noqa: E402
from tensorweave import debugging  # noqa: E402
from tensorweave import dtypes  # noqa: E402
from tensorweave import estimator  # noqa: E402
from tensorweave import nest  # noqa: E402
from tensorweave import profiler  # noqa: E402
from tensorweave import queue  # noqa: E402
from tensorweave import feature_column  # noqa: E402
from tensorweave import audio  # noqa: E402
from tensorweave import lookup  # noqa: E402
from tensorweave import manip  # noqa: E402
from tensorweave._src.framework.graph_mode_api import GradientTape  # noqa: E402
from tensorweave._src.framework.graph_mode_api import Module  # noqa: E402
from tensorweave._src.framework.graph_mode_api import TensorSpec  # noqa: E402
from tensorweave._src.framework.graph_mode_api import function  # noqa: E402
from tensorweave import version  # noqa: E402
from tensorweave import autograph  # noqa: E402
from tensorweave import resource_loader  # noqa: E402
from tensorweave import sysconfig  # noqa: E402
from tensorweave import user_ops  # noqa: E402
from tensorweave._src.framework.dtypes import resource  # noqa: E402
from tensorweave._src.framework.dtypes import variant  # noqa: E402
from tensorweave._src.framework.api_extras import (  # noqa: E402
    executing_eagerly_outside_functions,
    is_symbolic_tensor,
    load_file_system_library,
    load_library,
    load_op_library,
    wrap_function,
)
from tensorweave._src.framework.type_spec import (  # noqa: E402
    IndexedSlicesSpec,
    NoneTensorSpec,
    OptionalSpec,
    RaggedTensorSpec,
    SparseTensorSpec,
    TensorArraySpec,
    TypeSpec,
    type_spec_from_value,
)
from tensorweave.sysconfig import CXX_VERSION  # noqa: E402
from tensorweave._src.ops.print_ops import print_v2 as print  # noqa: E402, A004
from tensorweave._src.ops.print_ops import py_function  # noqa: E402
from tensorweave._src.platform.versions import (  # noqa: E402
    COMPILER_VERSION,
    CXX11_ABI_FLAG,
    GIT_VERSION,
    MONOLITHIC_BUILD,
)

__version__ = "0.1.0"


def no_op(name=None):
    """An op that does nothing (a target for control dependencies)."""
    return _gen_ops.no_op(name=name or "NoOp")


def initialize_all_variables():
    """Deprecated alias of global_variables_initializer."""
    return global_variables_initializer()


# TF1's top-level summary and event protos (tw.Summary, tw.Event, ...), loaded with protobuf on first use.
_SUMMARY_PROTOS = ("Summary", "SummaryMetadata", "HistogramProto", "Event", "SessionLog", "LogMessage")


# The graph protos, loaded on first use (import tensorweave does not load protobuf).
_GRAPH_PROTOS = {
    "GraphDef": "graph_pb2",
    "NodeDef": "graph_pb2",
    "AttrValue": "graph_pb2",
    "NameAttrList": "graph_pb2",
    "TensorInfo": "meta_graph_pb2",
    "MetaGraphDef": "meta_graph_pb2",
}


def __getattr__(name):
    if name in _GRAPH_PROTOS:
        import importlib

        return getattr(importlib.import_module("tensorweave._src.framework." + _GRAPH_PROTOS[name]), name)
    if name in _SUMMARY_PROTOS:
        from tensorweave._src.summary import protos as _summary_protos

        return getattr(_summary_protos.pb2(), name)
    raise AttributeError(f"module 'tensorweave' has no attribute '{name}'")

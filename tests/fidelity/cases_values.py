"""Values: what ops compute, against TensorFlow 1 (silent wrong values are the worst kind of difference).

Families: division and modulo over int and float dtypes and signs; NaN, inf and -0.0 through max/min, relu and
clipping; reductions over dtypes (small ints accumulate wider), axes and empty inputs; unary math at the edges of
its domain; integer overflow; dtypes that constants keep; softmax and the cross-entropies at extreme logits.
"""

import numpy as np

from tests.fidelity.harness import case

NAN = float("nan")
INF = float("inf")


# --- division and modulo -------------------------------------------------------------------------------------


@case
def div_of_ints_floors(tf, sess):
    return tf.div([-7, 7], [2, -2])


@case
def div_of_int64_floors(tf, sess):
    return tf.div(tf.constant([-7, 7, 7, -8], tf.int64), tf.constant([2, 2, -3, 3], tf.int64))


@case
def div_of_uint8(tf, sess):
    return tf.div(tf.constant([7, 200], tf.uint8), tf.constant([2, 3], tf.uint8))


@case
def div_of_floats_is_real_division(tf, sess):
    return tf.div([-7.0, 7.0], [2.0, -2.0])


@case
def div_of_floats_by_zero(tf, sess):
    return tf.div([1.0, -1.0, 0.0], [0.0, 0.0, 0.0])


@case
def div_of_ints_by_zero_raises(tf, sess):
    return sess.run(tf.div(tf.constant([1, 2]), tf.constant([1, 0])))


@case
def divide_of_ints_gives_float64(tf, sess):
    return tf.divide([-7, 7], [2, -2])


@case
def floordiv_of_ints(tf, sess):
    return tf.floordiv([-7, 7, -7, 7, 0, -1], [2, 2, -2, -2, 3, 3])


@case
def floordiv_of_floats(tf, sess):
    return tf.floordiv([-7.5, 7.5, -7.5, 7.5, -0.5], [2.0, 2.0, -2.0, -2.0, 3.0])


@case
def floordiv_of_floats_by_zero(tf, sess):
    return tf.floordiv([1.0, -1.0], [0.0, 0.0])


@case
def floordiv_of_int64_negative(tf, sess):
    return tf.floordiv(tf.constant([-1, -9, 9], tf.int64), tf.constant([5, 4, -4], tf.int64))


@case
def floordiv_of_ints_by_zero_raises(tf, sess):
    return sess.run(tf.floordiv(tf.constant([1, 2]), tf.constant([0, 1])))


@case
def floordiv_operator_of_int_tensor(tf, sess):
    return tf.constant([-7, 7, -8]) // 3


@case
def floordiv_operator_of_float_tensor(tf, sess):
    return tf.constant([-7.0, 7.0]) // 2.0


@case
def rfloordiv_operator(tf, sess):
    return 7 // tf.constant([-2, 2])


@case
def floormod_of_ints(tf, sess):
    return tf.floormod([-7, 7, -7, 7, 6], [3, 3, -3, -3, 3])


@case
def floormod_of_floats(tf, sess):
    return tf.floormod([-7.5, 7.5, -7.5, 7.5], [2.0, 2.0, -2.0, -2.0])


@case
def floormod_of_float_by_zero_is_nan(tf, sess):
    return tf.floormod([1.0], [0.0])


@case
def mod_operator_of_int_tensor(tf, sess):
    return tf.constant([-7, 7, -1]) % 3


@case
def rmod_operator(tf, sess):
    return 7 % tf.constant([-3, 3])


@case
def mod_is_floormod(tf, sess):
    return tf.mod([-5, 5], [-3, 3])


@case
def floormod_of_int64(tf, sess):
    return tf.floormod(tf.constant([-7, 7], tf.int64), tf.constant([-3, -3], tf.int64))


@case
def realdiv_of_floats(tf, sess):
    return tf.realdiv([-7.0, 1.0], [2.0, 3.0])


@case
def realdiv_of_float64(tf, sess):
    return tf.realdiv(tf.constant([1.0, -1.0], tf.float64), tf.constant([3.0, 0.0], tf.float64))


@case
def truediv_operator_of_int32_gives_float64(tf, sess):
    return tf.constant([-7, 7]) / tf.constant([2, -2])


@case
def truediv_operator_of_int64_gives_float64(tf, sess):
    return tf.constant([-7, 7], tf.int64) / 2


@case
def truediv_operator_of_floats(tf, sess):
    return tf.constant([1.0, -3.0]) / 4.0


@case
def rtruediv_operator(tf, sess):
    return 1.0 / tf.constant([4.0, -0.0])


@case
def truediv_of_ints_by_zero(tf, sess):
    return tf.truediv(tf.constant([1, 0, -1]), tf.constant([0, 0, 0]))


@case
def truediv_of_uint8_dtype(tf, sess):
    return tf.truediv(tf.constant([7], tf.uint8), tf.constant([2], tf.uint8))


# --- NaN, inf, -0.0 ------------------------------------------------------------------------------------------


@case
def maximum_propagates_nan(tf, sess):
    return tf.maximum([np.nan, 1.0], [0.0, np.nan])


@case
def minimum_propagates_nan(tf, sess):
    return tf.minimum([np.nan, 1.0, 2.0], [0.0, np.nan, 1.0])


@case
def maximum_broadcast_nan_scalar(tf, sess):
    return tf.maximum(tf.constant([1.0, -2.0, 3.0]), NAN)


@case
def maximum_of_float64_nan(tf, sess):
    return tf.maximum(tf.constant([NAN, 1.0], tf.float64), tf.constant([2.0, NAN], tf.float64))


@case
def maximum_with_inf(tf, sess):
    return tf.maximum([-INF, INF, 1.0], [0.0, 0.0, -INF])


@case
def maximum_of_ints(tf, sess):
    return tf.maximum([-3, 5, 2**31 - 1], [2, -5, -(2**31)])


@case
def minimum_of_uint8(tf, sess):
    return tf.minimum(tf.constant([0, 255, 7], tf.uint8), tf.constant([1, 254, 7], tf.uint8))


@case
def reduce_max_propagates_nan(tf, sess):
    return tf.reduce_max([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]], axis=1)


@case
def reduce_min_propagates_nan(tf, sess):
    return tf.reduce_min([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]], axis=1)


@case
def reduce_max_all_propagates_nan(tf, sess):
    return tf.reduce_max([3.0, np.nan, 1.0])


@case
def reduce_max_nan_first(tf, sess):
    return tf.reduce_max([np.nan, 3.0, 1.0])


@case
def reduce_max_over_axis0_nan(tf, sess):
    return tf.reduce_max([[1.0, 2.0], [np.nan, 0.0], [3.0, 1.0]], axis=0)


@case
def reduce_min_of_float64_nan(tf, sess):
    return tf.reduce_min(tf.constant([[2.0, NAN], [1.0, 0.0]], tf.float64), axis=0)


@case
def relu_propagates_nan(tf, sess):
    return tf.nn.relu([np.nan, -1.0, 2.0])


@case
def relu_of_float64_nan(tf, sess):
    return tf.nn.relu(tf.constant([NAN, -INF, INF], tf.float64))


@case
def relu6_propagates_nan(tf, sess):
    return tf.nn.relu6([np.nan, -1.0, 7.0, 3.0])


@case
def leaky_relu_of_nan_and_inf(tf, sess):
    return tf.nn.leaky_relu([np.nan, -INF, INF, -2.0], alpha=0.1)


@case
def elu_of_nan_and_inf(tf, sess):
    return tf.nn.elu([np.nan, -INF, INF, -1.0])


@case
def selu_of_nan_and_inf(tf, sess):
    return tf.nn.selu([np.nan, -INF, INF, 0.0])


@case
def clip_by_value_of_nan(tf, sess):
    return tf.clip_by_value([np.nan, -5.0, 5.0, 0.5], 0.0, 1.0)


@case
def clip_by_value_of_ints(tf, sess):
    return tf.clip_by_value([-5, 0, 5], -1, 3)


@case
def clip_by_value_with_tensor_bounds(tf, sess):
    return tf.clip_by_value([[-5.0, 0.0, 5.0]], [-1.0, -1.0, -1.0], [1.0, 1.0, 1.0])


@case
def argmax_with_nan(tf, sess):
    return tf.argmax([1.0, np.nan, 3.0])


@case
def argmin_with_nan(tf, sess):
    return tf.argmin([1.0, np.nan, -3.0])


@case
def argmax_ties_take_first(tf, sess):
    return tf.argmax([[1, 3, 3], [2, 2, 0]], axis=1)


@case
def argmin_negative_axis(tf, sess):
    return tf.argmin([[1.0, 3.0], [0.0, 5.0]], axis=-2)


@case
def argmax_output_type_int32(tf, sess):
    return tf.argmax([1.0, 9.0, 3.0], output_type=tf.int32)


@case
def argmax_of_uint8(tf, sess):
    return tf.argmax(tf.constant([1, 255, 3], tf.uint8))


@case
def equal_nan_is_false(tf, sess):
    return [tf.equal([NAN, 1.0], [NAN, 1.0]), tf.not_equal([NAN, 1.0], [NAN, 1.0])]


@case
def compare_with_nan(tf, sess):
    x, y = [NAN, 1.0], [0.0, NAN]
    return [tf.less(x, y), tf.greater(x, y), tf.less_equal(x, y), tf.greater_equal(x, y)]


@case
def negative_zero_survives_neg_and_abs(tf, sess):
    x = tf.constant([0.0, -0.0])
    return [1.0 / tf.negative(x), 1.0 / tf.abs(x)]


@case
def sign_of_special_values(tf, sess):
    return tf.sign([NAN, -0.0, 0.0, -INF, 3.0])


@case
def sign_of_ints(tf, sess):
    return tf.sign([-7, 0, 7])


# --- reductions ----------------------------------------------------------------------------------------------


@case
def reduce_mean_uint8_does_not_overflow(tf, sess):
    return tf.reduce_mean(tf.constant([200, 200], tf.uint8))


@case
def reduce_mean_uint8_over_axis(tf, sess):
    return tf.reduce_mean(tf.constant([[250, 251, 252], [253, 254, 255]], tf.uint8), axis=1)


@case
def reduce_mean_uint8_keepdims(tf, sess):
    return tf.reduce_mean(tf.constant([[250, 10], [251, 11]], tf.uint8), axis=0, keepdims=True)


@case
def reduce_mean_int32_truncates(tf, sess):
    return tf.reduce_mean([1, 2]), tf.reduce_mean([-1, -2]), tf.reduce_mean([[-3, 4], [-5, 6]], axis=0)


@case
def reduce_mean_int32_does_not_overflow(tf, sess):
    return tf.reduce_mean(tf.constant([2**31 - 1, 2**31 - 1]))


@case
def reduce_mean_int64(tf, sess):
    return tf.reduce_mean(tf.constant([7, 8, 10], tf.int64))


@case
def reduce_sum_uint8_wraps(tf, sess):
    return tf.reduce_sum(tf.constant([200, 100], tf.uint8))


@case
def reduce_sum_int32_wraps(tf, sess):
    return tf.reduce_sum(tf.constant([2**31 - 1, 1]))


@case
def reduce_sum_float32_accurately(tf, sess):
    return tf.reduce_sum(tf.fill([1000000], 0.1))


@case
def reduce_mean_float32_accurately(tf, sess):
    return tf.reduce_mean(tf.fill([3000000], 0.1))


@case
def reduce_sum_negative_axis_keepdims(tf, sess):
    x = tf.reshape(tf.range(24.0), [2, 3, 4])
    return tf.reduce_sum(x, axis=-1, keepdims=True), tf.reduce_sum(x, axis=[-3, 2])


@case
def reduce_sum_empty_axis_list_is_identity(tf, sess):
    return tf.reduce_sum([[1.0, 2.0], [3.0, 4.0]], axis=[])


@case
def reduce_sum_reduction_indices(tf, sess):
    return tf.reduce_sum([[1, 2], [3, 4]], reduction_indices=[0], keep_dims=True)


@case
def reduce_sum_axis_out_of_range(tf, sess):
    return tf.reduce_sum([[1.0, 2.0]], axis=2)


@case
def reduce_ops_of_empty_float(tf, sess):
    e = tf.zeros([0, 3])
    return [
        tf.reduce_sum(e, 0),
        tf.reduce_prod(e, 0),
        tf.reduce_max(e, 0),
        tf.reduce_min(e, 0),
        tf.reduce_mean(e, 0),
    ]


@case
def reduce_ops_of_empty_int(tf, sess):
    e = tf.zeros([0, 2], tf.int32)
    return [tf.reduce_sum(e, 0), tf.reduce_prod(e, 0), tf.reduce_max(e, 0), tf.reduce_min(e, 0)]


@case
def reduce_all_any_of_empty(tf, sess):
    e = tf.zeros([0], tf.bool)
    return [tf.reduce_all(e), tf.reduce_any(e)]


@case
def reduce_over_empty_axis_keeps_shape(tf, sess):
    return tf.reduce_sum(tf.zeros([2, 0]), axis=0)


@case
def reduce_prod_ints(tf, sess):
    return tf.reduce_prod([[2, -3], [4, 5]], axis=1)


@case
def reduce_prod_uint8_wraps(tf, sess):
    return tf.reduce_prod(tf.constant([16, 17], tf.uint8))


@case
def reduce_max_uint8(tf, sess):
    return tf.reduce_max(tf.constant([[3, 250], [255, 0]], tf.uint8), axis=0)


@case
def reduce_max_of_int64_extremes(tf, sess):
    return tf.reduce_max(tf.constant([-(2**63), 2**62], tf.int64)), tf.reduce_min(tf.constant([2**63 - 1, 5], tf.int64))


@case
def reduce_all_and_any_over_axis(tf, sess):
    x = [[True, False], [True, True]]
    return tf.reduce_all(x, axis=1), tf.reduce_any(x, axis=0, keepdims=True)


@case
def reduce_mean_of_float64(tf, sess):
    return tf.reduce_mean(tf.constant([[1.0, 2.0], [3.0, 5.0]], tf.float64), axis=[0, 1])


@case
def reduce_max_with_inf(tf, sess):
    return tf.reduce_max([-INF, -INF]), tf.reduce_min([INF, 1.0])


# --- unary math at the edges ---------------------------------------------------------------------------------


@case
def log_of_zero_and_negative(tf, sess):
    return tf.log([0.0, -1.0, INF, 1.0])


@case
def log1p_edges(tf, sess):
    return tf.log1p([-1.0, -2.0, 1e-10, 0.0])


@case
def exp_overflow_and_underflow(tf, sess):
    return tf.exp([100.0, -200.0, INF, -INF])


@case
def sqrt_and_rsqrt_edges(tf, sess):
    return tf.sqrt([-1.0, 0.0, -0.0, INF]), tf.rsqrt([0.0, 4.0, -1.0, INF])


@case
def reciprocal_edges(tf, sess):
    return tf.reciprocal([0.0, -0.0, INF, 4.0])


@case
def square_of_int_wraps(tf, sess):
    return tf.square(tf.constant([65536, -3]))


@case
def abs_of_int_min_wraps(tf, sess):
    return tf.abs(tf.constant([-(2**31), -5]))


@case
def round_half_to_even(tf, sess):
    return tf.round([0.5, 1.5, 2.5, -0.5, -1.5, 2.4, -2.6])


@case
def floor_and_ceil(tf, sess):
    return tf.floor([-0.5, 0.5, -1.0, NAN]), tf.ceil([-0.5, 0.5, -1.0, INF])


@case
def tanh_and_sigmoid_saturate(tf, sess):
    return tf.tanh([-100.0, 100.0, NAN]), tf.sigmoid([-100.0, 100.0, 0.0, -1000.0])


@case
def sigmoid_float64_extremes(tf, sess):
    return tf.sigmoid(tf.constant([-800.0, 800.0, -30.0], tf.float64))


@case
def pow_of_floats_edges(tf, sess):
    return tf.pow([0.0, -8.0, 2.0, 0.0, -2.0], [0.0, 1.0 / 3.0, -1.0, -1.0, 2.0])


@case
def pow_of_ints(tf, sess):
    return tf.pow([2, -3, 0, 10], [10, 3, 0, 9])


@case
def pow_of_int_to_negative_power(tf, sess):
    return sess.run(tf.pow(tf.constant([2]), tf.constant([-1])))


@case
def pow_operator(tf, sess):
    return tf.constant([2.0, 3.0]) ** 2.0, 2.0 ** tf.constant([3.0, -1.0])


@case
def squared_difference_values(tf, sess):
    return tf.squared_difference([1, -2, 3], [4, 2, 3]), tf.squared_difference([1.5, NAN], [0.5, 0.0])


@case
def negative_of_int_min_wraps(tf, sess):
    return tf.negative(tf.constant([-(2**31), 3]))


# --- integer overflow ----------------------------------------------------------------------------------------


@case
def add_uint8_wraps(tf, sess):
    return tf.add(tf.constant([250, 5], tf.uint8), tf.constant([10, 5], tf.uint8))


@case
def sub_uint8_wraps(tf, sess):
    return tf.subtract(tf.constant([5], tf.uint8), tf.constant([10], tf.uint8))


@case
def mul_int32_wraps(tf, sess):
    return tf.multiply(tf.constant([2**30, 3]), tf.constant([4, -(2**30)]))


@case
def add_int64_wraps(tf, sess):
    return tf.add(tf.constant([2**63 - 1], tf.int64), tf.constant([1], tf.int64))


@case
def add_n_of_ints(tf, sess):
    return tf.add_n([tf.constant([1, 2]), tf.constant([3, 4]), tf.constant([-5, 6])])


# --- casts ---------------------------------------------------------------------------------------------------


@case
def cast_float_to_int_truncates(tf, sess):
    return tf.cast([-1.7, 1.7, -0.5, 2.5], tf.int32)


@case
def cast_to_bool_and_back(tf, sess):
    return tf.cast([0.0, 0.5, -2.0, NAN], tf.bool), tf.cast([True, False], tf.float32)


@case
def cast_large_double_to_float(tf, sess):
    return tf.cast(tf.constant([1e300, -1e300, 1e-300], tf.float64), tf.float32)


@case
def cast_int64_to_int32_wraps(tf, sess):
    return tf.cast(tf.constant([2**32 + 5, -(2**31) - 1], tf.int64), tf.int32)


@case
def cast_int_to_uint8_wraps(tf, sess):
    return tf.cast(tf.constant([256, 257, -1]), tf.uint8)


@case
def to_float_of_int64(tf, sess):
    return tf.to_float(tf.constant([2**40 + 1], tf.int64))


# --- dtypes constants keep -----------------------------------------------------------------------------------


@case
def int16_constant_keeps_its_dtype(tf, sess):
    return tf.constant([1, 2], tf.int16).dtype


@case
def int16_numpy_constant_keeps_its_dtype(tf, sess):
    return tf.constant(np.array([1, 2], np.int16)).dtype


@case
def int8_numpy_constant_keeps_its_dtype(tf, sess):
    return tf.constant(np.array([1, 2], np.int8)).dtype


@case
def uint16_numpy_constant_keeps_its_dtype(tf, sess):
    return tf.constant(np.array([1, 2], np.uint16)).dtype


@case
def uint8_constant_keeps_dtype(tf, sess):
    return tf.constant([1, 2], tf.uint8)


@case
def float64_numpy_constant_keeps_dtype(tf, sess):
    return tf.constant(np.array([0.1], np.float64))


@case
def int64_numpy_constant_keeps_dtype(tf, sess):
    return tf.constant(np.array([2**40], np.int64))


@case
def python_float_list_is_float32(tf, sess):
    return tf.constant([0.1, 2.0])


@case
def python_int_too_big_for_int32(tf, sess):
    return tf.constant(2**40)


# --- nn values -----------------------------------------------------------------------------------------------


@case
def relu_family_values(tf, sess):
    x = [-3.0, -0.5, 0.0, 0.5, 7.0]
    return [tf.nn.relu(x), tf.nn.relu6(x), tf.nn.leaky_relu(x), tf.nn.elu(x), tf.nn.selu(x)]


@case
def relu_of_ints(tf, sess):
    return tf.nn.relu([-3, 0, 4]), tf.nn.relu6([-3, 0, 4, 9])


@case
def softplus_extremes(tf, sess):
    return tf.nn.softplus([-100.0, -20.0, 0.0, 20.0, 100.0])


@case
def softplus_float64(tf, sess):
    return tf.nn.softplus(tf.constant([-800.0, 0.5, 800.0], tf.float64))


@case
def softmax_extreme_logits(tf, sess):
    return tf.nn.softmax([[1000.0, 0.0, -1000.0]]), tf.nn.log_softmax([[1000.0, 0.0, -1000.0]])


@case
def softmax_with_neg_inf(tf, sess):
    return tf.nn.softmax([[-INF, 0.0, 1.0]])


@case(
    known_difference="TensorFlow's CPU softmax gives 0 for a finite logit beside a NaN one; here a NaN makes its whole "
    "row NaN (the row's sum is NaN), which is what the formula gives",
    tf_varies=True,  # on AVX2 machines TensorFlow's softmax gives the NaN row too
)
def softmax_of_nan(tf, sess):
    return tf.nn.softmax([[NAN, 0.0]])


@case
def softmax_rank1_and_rank3(tf, sess):
    return tf.nn.softmax([1.0, 2.0, 3.0]), tf.nn.softmax(tf.reshape(tf.range(8.0), [2, 2, 2]))


@case
def softmax_xent_extreme_logits(tf, sess):
    return tf.nn.softmax_cross_entropy_with_logits_v2(labels=[[0.0, 1.0]], logits=[[1000.0, -1000.0]])


@case
def softmax_xent_soft_labels(tf, sess):
    return tf.nn.softmax_cross_entropy_with_logits(labels=[[0.25, 0.75], [1.0, 0.0]], logits=[[1.0, 2.0], [0.0, 3.0]])


@case
def sparse_softmax_xent_extreme_logits(tf, sess):
    return tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1, 0], logits=[[1000.0, -1000.0], [0.0, 0.0]])


@case
def sparse_softmax_xent_label_out_of_range(tf, sess):
    return sess.run(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([2]), logits=tf.constant([[1.0, 2.0]]))
    )


@case
def sparse_softmax_xent_int64_labels(tf, sess):
    labels = tf.constant([1, 0], tf.int64)
    return tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=[[1.0, 2.0], [3.0, 0.5]])


@case
def l2_loss_and_normalize(tf, sess):
    return tf.nn.l2_loss([3.0, 4.0]), tf.nn.l2_normalize([[3.0, 4.0], [0.0, 0.0]], axis=1)


@case
def moments_values(tf, sess):
    x = tf.constant([[1.0, 2.0], [3.0, 6.0], [5.0, 1.0]])
    return tf.nn.moments(x, axes=[0]), tf.nn.moments(x, axes=[0, 1], keep_dims=True)


@case
def bias_add_values(tf, sess):
    return tf.nn.bias_add([[1.0, 2.0], [3.0, 4.0]], [10.0, 20.0])


@case
def unsorted_segment_sum_drops_negative_ids(tf, sess):
    return tf.unsorted_segment_sum([1.0, 2.0, 3.0, 4.0], [0, -1, 1, 0], 3)


@case
def one_hot_out_of_range_is_zero_row(tf, sess):
    return tf.one_hot([0, -1, 3, 2], 3)


@case
def range_negative_delta_and_float(tf, sess):
    return tf.range(5, 0, -2), tf.range(0.0, 1.0, 0.3)


@case
def where_select_values(tf, sess):
    return tf.where([True, False], [1.0, 2.0], [NAN, 4.0])


@case
def run_scalar_gives_numpy_scalar(tf, sess):
    return sess.run(tf.constant(3.0) * 2.0)


@case
def matmul_values(tf, sess):
    return tf.matmul([[1.0, 2.0]], [[3.0], [4.0]])


@case
def matmul_of_ints(tf, sess):
    return tf.matmul([[1, 2], [3, 4]], [[5], [6]])


@case
def matmul_with_nan_and_inf(tf, sess):
    return tf.matmul([[NAN, 1.0], [INF, 0.0]], [[1.0], [2.0]])


# --- denormal results ----------------------------------------------------------------------------------------


@case(tol=0)
def denormal_results_flush_to_zero(tf, sess):
    """TF's CPU kernels run with flush-to-zero: a result below the smallest normal float is 0 (sigmoid's exp
    path, exp itself, a product), exactly, not a denormal."""
    x = tf.placeholder(tf.float32, [3])
    v = np.array([-100.0, -90.0, -88.0], np.float32)
    y = tf.placeholder(tf.float32, [2])
    return sess.run([tf.sigmoid(x), tf.exp(x), y * 1e-10], {x: v, y: np.array([1e-30, -1e-29], np.float32)})

"""Conversions: what TF1 programs hand to ops (lists mixing tensors and numbers, out-of-range constants, fed
values of another dtype) and what `Session.run` hands back (numpy scalars), against TensorFlow 1."""

import numpy as np

from tests.fidelity.harness import case

# --- auto-packing: lists mixing tensors and numbers ------------------------------------------------------------


@case
def zeros_of_list_with_tensor(tf, sess):
    n = tf.placeholder(tf.int32, [])
    return sess.run(tf.zeros([n, 4]), {n: 2})


@case
def ones_of_list_with_tensor(tf, sess):
    n = tf.constant(3)
    return tf.ones([2, n], tf.int32)


@case
def pad_with_tensor_in_paddings(tf, sess):
    x = tf.ones([2, 3])
    n = tf.constant(1)
    return tf.pad(x, [[n, 0], [1, 1]])


@case
def convert_list_of_tensors(tf, sess):
    a, b = tf.constant(1.0), tf.constant(2.0)
    c = tf.convert_to_tensor([a, b])
    return [c, c.op.name, c.op.type, c.shape]


@case
def reduce_sum_of_list_of_tensors(tf, sess):
    a, b = tf.constant(1.0), tf.constant(2.0)
    return tf.reduce_sum([a, b])


@case
def nested_list_of_tensors_and_numbers(tf, sess):
    a = tf.constant(1.0)
    c = tf.convert_to_tensor([[a, 2.0], [3.0, a]])
    names = sorted(o.name for o in tf.get_default_graph().get_operations())
    return [c, names]


@case
def packed_list_casts_to_requested_dtype(tf, sess):
    a = tf.constant(1)
    return tf.convert_to_tensor([a, 2], dtype=tf.int64)


@case
def packed_list_float_into_int_is_type_error(tf, sess):
    a = tf.constant(1)
    return tf.convert_to_tensor([a, 2.5])


@case
def packed_list_with_variable(tf, sess):
    v = tf.Variable(2.0)
    sess.run(tf.global_variables_initializer())
    return tf.convert_to_tensor([v, 3.0])


@case
def stack_of_mixed_list(tf, sess):
    a = tf.constant([1, 2])
    return tf.stack([a, [3, 4]])


@case
def add_n_of_list_of_tensors(tf, sess):
    return tf.add_n([tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])])


@case
def reshape_with_tensor_dim(tf, sess):
    x = tf.constant(np.arange(6.0, dtype=np.float32))
    n = tf.constant(2)
    return sess.run(tf.reshape(x, [n, -1]))


@case
def fill_with_tensor_dim(tf, sess):
    n = tf.constant(2)
    return sess.run(tf.fill([n, 3], 7.0))


# --- axes, dtypes and shapes TF accepts ------------------------------------------------------------------------


@case
def softmax_on_first_axis(tf, sess):
    x = tf.constant(np.arange(24.0).reshape(2, 3, 4), tf.float32)
    return tf.nn.softmax(x, axis=0)


@case
def softmax_on_middle_axis(tf, sess):
    x = tf.constant(np.arange(24.0).reshape(2, 3, 4) / 7.0, tf.float32)
    return tf.nn.softmax(x, axis=1)


@case
def log_softmax_on_first_axis(tf, sess):
    x = tf.constant(np.arange(6.0).reshape(2, 3), tf.float32)
    return tf.nn.log_softmax(x, axis=0)


@case
def softmax_dim_keyword(tf, sess):
    x = tf.constant([[1.0, 2.0], [3.0, 5.0]])
    return tf.nn.softmax(x, dim=0)


@case
def softmax_axis_out_of_range(tf, sess):
    return tf.nn.softmax(tf.constant([[1.0, 2.0]]), axis=5)


@case
def softmax_negative_axis(tf, sess):
    x = tf.constant(np.arange(6.0).reshape(2, 3), tf.float32)
    return tf.nn.softmax(x, axis=-2)


@case
def random_uniform_int_needs_maxval(tf, sess):
    return tf.random_uniform([3], dtype=tf.int32)


@case
def random_uniform_int_range(tf, sess):
    r = tf.random_uniform([200], -3, 7, dtype=tf.int32, seed=3)
    x = sess.run(r)
    return [r.dtype, r.shape, x.dtype.name, bool(x.min() >= -3), bool(x.max() < 7)]


@case
def random_uniform_int64(tf, sess):
    r = tf.random_uniform([2, 2], 0, 5, dtype=tf.int64)
    x = sess.run(r)
    return [r.dtype, r.name, x.shape, bool(((x >= 0) & (x < 5)).all())]


@case
def random_normal_of_ints_is_type_error(tf, sess):
    return tf.random_normal([2], dtype=tf.int32)


@case
def moments_of_ints(tf, sess):
    m, v = tf.nn.moments(tf.constant([1, 2, 4]), [0])
    return [m, v, m.dtype]


@case
def moments_of_floats(tf, sess):
    m, v = tf.nn.moments(tf.constant([[1.0, 2.0], [3.0, 6.0]]), [0])
    return [m, v]


@case
def constant_initializer_pads_with_last_value(tf, sess):
    v = tf.get_variable("v", [3], initializer=tf.constant_initializer([1, 2]))
    sess.run(tf.global_variables_initializer())
    return v


@case
def constant_initializer_too_many_values(tf, sess):
    return tf.get_variable("v", [4], initializer=tf.constant_initializer([1, 2, 3, 4, 5]))


@case
def constant_initializer_reshapes(tf, sess):
    v = tf.get_variable("v", [2, 2], initializer=tf.constant_initializer([1, 2, 3, 4]))
    sess.run(tf.global_variables_initializer())
    return v


@case
def constant_with_shape_pads(tf, sess):
    return tf.constant([1, 2], shape=[2, 2])


@case
def constant_with_shape_too_many(tf, sess):
    return tf.constant([1, 2, 3], shape=[2])


@case
def constant_verify_shape(tf, sess):
    return tf.constant([1, 2], shape=[3], verify_shape=True)


@case
def constant_verify_shape_exact(tf, sess):
    return tf.constant([1, 2], shape=[2], verify_shape=True)


@case
def softmax_xent_rank3_logits(tf, sess):
    logits = tf.constant(np.arange(12.0).reshape(2, 2, 3), tf.float32)
    y = tf.nn.softmax_cross_entropy_with_logits_v2(labels=tf.nn.softmax(logits * 0.5), logits=logits)
    return [y, y.shape]


@case
def softmax_xent_v1_rank3_logits(tf, sess):
    logits = tf.constant(np.arange(12.0).reshape(2, 2, 3) / 5.0, tf.float32)
    labels = tf.one_hot([[0, 1], [2, 2]], 3)
    y = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return [y, y.shape]


@case
def softmax_xent_on_other_axis(tf, sess):
    logits = tf.constant(np.arange(12.0).reshape(2, 3, 2), tf.float32)
    y = tf.nn.softmax_cross_entropy_with_logits_v2(labels=tf.nn.softmax(logits * 0.5, axis=1), logits=logits, axis=1)
    return [y, y.shape]


@case
def sparse_xent_rank3_logits(tf, sess):
    logits = tf.constant(np.arange(12.0).reshape(2, 2, 3), tf.float32)
    y = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[[0, 1], [2, 1]], logits=logits)
    return [y, y.shape]


@case
def sparse_xent_rank_mismatch(tf, sess):
    logits = tf.constant(np.zeros((2, 2, 3)), tf.float32)
    return tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 1], logits=logits)


# --- constants of a given dtype ---------------------------------------------------------------------------------


@case
def constant_minus_one_uint8_wraps(tf, sess):
    return tf.constant(-1, tf.uint8)


@case
def constant_300_uint8_wraps(tf, sess):
    return tf.constant([-1, 256, 300], tf.uint8)


@case
def constant_int32_overflow_wraps(tf, sess):
    return tf.constant(2**31, tf.int32)


@case
def constant_int64_from_numpy_wraps(tf, sess):
    return tf.constant(np.int64(2**40), tf.int32)


@case
def constant_python_float_into_int_is_type_error(tf, sess):
    return tf.constant(2.0, tf.int32)


@case
def constant_list_with_float_into_int_is_type_error(tf, sess):
    return tf.constant([1, 2.5], tf.int32)


@case
def constant_numpy_float_into_int_truncates(tf, sess):
    return tf.constant(np.array([1.5, -2.5]), tf.int32)


@case
def constant_numpy_float_scalar_into_int(tf, sess):
    return tf.constant(np.float64(1.5), tf.int32)


@case
def constant_bool_into_int(tf, sess):
    return tf.constant(True, tf.int32)


@case
def constant_int_into_bool_is_type_error(tf, sess):
    return tf.constant(1, tf.bool)


@case
def constant_string_into_int_is_type_error(tf, sess):
    return tf.constant("a", tf.int32)


@case
def constant_int_into_string_is_type_error(tf, sess):
    return tf.constant(1, tf.string)


@case
def constant_huge_float_into_float32(tf, sess):
    return tf.constant(1e40, tf.float32)


@case
def constant_empty_list_int(tf, sess):
    return tf.constant([], tf.int32)


@case
def convert_tensor_to_other_dtype(tf, sess):
    return tf.convert_to_tensor(tf.constant([1.0]), dtype=tf.int32)


# --- feeds -------------------------------------------------------------------------------------------------------


@case
def feed_floats_to_int_placeholder_truncates(tf, sess):
    p = tf.placeholder(tf.int32, [2])
    return sess.run(p * 2, {p: [1.7, -2.7]})


@case
def feed_out_of_range_to_uint8_wraps(tf, sess):
    p = tf.placeholder(tf.uint8, [2])
    return sess.run(p + 0, {p: np.array([-1, 256])})


@case
def feed_int_to_float_placeholder(tf, sess):
    p = tf.placeholder(tf.float32, [])
    return sess.run(p * 2.0, {p: 3})


@case
def feed_strings_to_int_placeholder(tf, sess):
    p = tf.placeholder(tf.int32, [2])
    return sess.run(p * 2, {p: ["a", "b"]})


@case
def feed_numeric_strings_to_int_placeholder(tf, sess):
    p = tf.placeholder(tf.int32, [2])
    return sess.run(p * 2, {p: ["1", "2"]})


@case
def feed_a_constant(tf, sess):
    c = tf.constant(1.0)
    return sess.run(c * 2, {c: 5.0})


@case
def feed_bool_placeholder_with_int(tf, sess):
    p = tf.placeholder(tf.bool, [])
    return sess.run(tf.logical_not(p), {p: 1})


# --- what run returns ----------------------------------------------------------------------------------------------


@case
def run_scalar_is_numpy_scalar(tf, sess):
    return sess.run(tf.constant(3.0) * 2.0)


@case
def run_int_scalar_is_numpy_scalar(tf, sess):
    return sess.run(tf.constant(5))


@case
def run_bool_scalar_is_numpy_scalar(tf, sess):
    return sess.run(tf.constant(True))


@case
def run_string_scalar_is_bytes(tf, sess):
    out = sess.run(tf.constant("ab"))
    return [type(out).__name__, out]


@case
def run_list_and_dict_of_scalars(tf, sess):
    return sess.run([tf.constant(1), {"a": tf.constant(2.0), "b": (tf.constant(3),)}])


@case
def run_vector_is_array(tf, sess):
    return sess.run(tf.constant([1]))


@case
def run_fed_scalar_placeholder_is_array(tf, sess):
    p = tf.placeholder(tf.float32, [])
    return sess.run(p, {p: 2})


@case
def run_variable_scalar(tf, sess):
    v = tf.Variable(3)
    sess.run(tf.global_variables_initializer())
    return [sess.run(v), sess.run(v.value())]


@case
def eval_scalar(tf, sess):
    return tf.constant(5).eval(session=sess)


@case
def run_scalar_type_name(tf, sess):
    return type(sess.run(tf.constant(1.5))).__name__


# --- initial values that read other variables ---------------------------------------------------------------------


@case
def variable_initialized_from_another(tf, sess):
    v = tf.Variable(1.0, name="v")
    u = tf.Variable(v * 3, name="u")
    sess.run(tf.global_variables_initializer())
    return [u, u.initial_value.name]


@case
def variable_from_initialized_value(tf, sess):
    v = tf.Variable([1.0, 2.0], name="v")
    u = tf.Variable(v.initialized_value() * 2)
    sess.run(tf.global_variables_initializer())
    return u


@case
def get_variable_initialized_from_another(tf, sess):
    v = tf.get_variable("v", [2], initializer=tf.ones_initializer())
    u = tf.get_variable("u", initializer=v * 3.0)
    sess.run(tf.global_variables_initializer())
    return [u, u.shape]


@case
def variable_from_two_variables(tf, sess):
    a = tf.Variable([1.0, 2.0])
    b = tf.Variable([10.0, 20.0])
    c = tf.Variable(a + b)
    sess.run(tf.global_variables_initializer())
    return c


@case
def variable_initializer_order_reversed(tf, sess):
    v = tf.Variable(2.0, name="v")
    u = tf.Variable(v * v, name="u")
    sess.run(tf.variables_initializer([u, v]))
    return [u, v]


@case
def constant_of_empty_shape_takes_no_values(tf, sess):
    return [tf.constant([1, 2, 3], shape=[0, 3]), tf.constant(5.0, shape=[0]), tf.zeros([0, 3]), tf.ones([2, 0])]


@case
def zeros_and_ones_of_bool_and_string(tf, sess):
    return [tf.zeros([2], tf.bool), tf.ones([2], tf.bool), tf.zeros([2], tf.string), tf.zeros([0, 2], tf.bool)]


@case
def ones_of_strings_is_type_error(tf, sess):
    return tf.ones([2], tf.string)

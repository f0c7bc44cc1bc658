"""Errors: the class TensorFlow 1 raises for each mistake, so that a program's `except` clauses work (a builtin
class while building the graph, a `tf.errors` class while running it)."""

import numpy as np

from tests.fidelity.harness import case

# --- building the graph: ValueError / TypeError -----------------------------------------------------------------


@case
def matmul_shape_mismatch_at_build(tf, sess):
    return tf.matmul(tf.ones([2, 3]), tf.ones([2, 3]))


@case
def add_broadcast_mismatch_at_build(tf, sess):
    return tf.ones([2]) + tf.ones([3])


@case
def add_dtype_mismatch(tf, sess):
    return tf.ones([2]) + tf.ones([2], tf.int32)


@case
def matmul_dtype_mismatch(tf, sess):
    return tf.matmul(tf.constant([[1]]), tf.constant([[1.0]]))


@case
def reshape_impossible_at_build(tf, sess):
    return tf.reshape(tf.ones([2, 3]), [4])


@case(
    known_difference="tensorweave rejects a shape or permutation that can never be valid when the graph is built (ValueError); TensorFlow builds it and fails when it runs (InvalidArgumentError)"
)
def reshape_two_unknown_dims(tf, sess):
    return tf.reshape(tf.ones([2, 3]), [-1, -1])


@case
def int_tensor_pow_float(tf, sess):
    return tf.constant([1, 2]) ** 2.0


@case
def int_tensor_times_float(tf, sess):
    return tf.constant([1, 2]) * 1.5


@case
def float_minus_int_tensor(tf, sess):
    return 1.5 - tf.constant([1, 2])


@case
def one_hot_float_on_int_off(tf, sess):
    return tf.one_hot([0, 1], 3, on_value=1.0, off_value=0)


@case
def one_hot_int_on_float_off(tf, sess):
    return tf.one_hot([0, 1], 3, on_value=1, off_value=0.0)


@case
def relu_of_bool(tf, sess):
    return tf.nn.relu(tf.constant([True]))


@case
def concat_shape_mismatch(tf, sess):
    return tf.concat([tf.ones([2, 3]), tf.ones([2, 4])], 0)


@case
def stack_shape_mismatch(tf, sess):
    return tf.stack([tf.ones([2]), tf.ones([3])])


@case(
    known_difference="tensorweave rejects a shape or permutation that can never be valid when the graph is built (ValueError); TensorFlow builds it and fails when it runs (InvalidArgumentError)"
)
def transpose_bad_perm(tf, sess):
    return tf.transpose(tf.ones([2, 3]), [0, 0])


@case
def squeeze_non_one_dim(tf, sess):
    return tf.squeeze(tf.ones([2, 1]), [0])


@case
def reduce_sum_bad_axis(tf, sess):
    return tf.reduce_sum(tf.ones([2, 3]), 2)


@case
def argmax_bad_axis(tf, sess):
    return tf.argmax(tf.ones([2, 3]), 2)


@case
def conv2d_channel_mismatch(tf, sess):
    return tf.nn.conv2d(tf.ones([1, 5, 5, 3]), tf.ones([3, 3, 2, 4]), [1, 1, 1, 1], "SAME")


@case
def bias_add_wrong_size(tf, sess):
    return tf.nn.bias_add(tf.ones([2, 3]), tf.ones([4]))


@case
def split_uneven(tf, sess):
    return tf.split(tf.ones([4, 6]), 4, axis=1)


@case
def tile_wrong_multiples(tf, sess):
    return tf.tile(tf.ones([2, 3]), [2])


@case
def xent_shape_mismatch(tf, sess):
    return tf.nn.softmax_cross_entropy_with_logits_v2(labels=tf.ones([2, 3]), logits=tf.ones([2, 4]))


@case
def sparse_xent_float_labels(tf, sess):
    return tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([0.0]), logits=tf.ones([1, 3]))


@case
def variable_of_unknown_shape_initial_value(tf, sess):
    p = tf.placeholder(tf.float32, [None])
    return tf.Variable(p)


@case
def get_variable_exists(tf, sess):
    tf.get_variable("w", [2])
    return tf.get_variable("w", [2])


@case
def get_variable_missing_under_reuse(tf, sess):
    with tf.variable_scope("s", reuse=True):
        return tf.get_variable("w", [2])


@case
def get_variable_shape_mismatch_on_reuse(tf, sess):
    with tf.variable_scope("s"):
        tf.get_variable("w", [2])
    with tf.variable_scope("s", reuse=True):
        return tf.get_variable("w", [3])


@case
def get_variable_without_shape(tf, sess):
    return tf.get_variable("w")


@case
def get_variable_initializer_shape_mismatch(tf, sess):
    return tf.get_variable("h", [3], initializer=tf.constant([1.0, 2.0]))


@case
def tensor_as_bool(tf, sess):
    return bool(tf.constant(True))


@case
def tensor_iteration(tf, sess):
    return list(tf.placeholder(tf.float32, None))


@case
def invalid_name_scope(tf, sess):
    with tf.name_scope("bad name!"):
        return tf.constant(1.0)


@case
def tensor_from_other_graph(tf, sess):
    with tf.Graph().as_default():
        other = tf.constant(1.0)
    return tf.constant(1.0) + other


# --- names that are not in the graph ------------------------------------------------------------------------------


@case
def get_tensor_by_name_missing_op(tf, sess):
    return tf.get_default_graph().get_tensor_by_name("nope:0")


@case
def get_operation_by_name_missing(tf, sess):
    return tf.get_default_graph().get_operation_by_name("nope")


@case
def get_tensor_by_name_bad_index(tf, sess):
    tf.constant(1.0, name="c")
    return tf.get_default_graph().get_tensor_by_name("c:1")


@case
def get_tensor_by_name_of_an_op_name(tf, sess):
    tf.constant(1.0, name="c")
    return tf.get_default_graph().get_tensor_by_name("c")


@case
def run_unknown_tensor_name(tf, sess):
    tf.constant(1.0)
    return sess.run("nope:0")


@case
def run_unknown_op_name(tf, sess):
    tf.constant(1.0)
    return sess.run("nope")


@case
def run_bad_output_index(tf, sess):
    tf.constant(1.0)
    return sess.run("Const:1")


@case
def run_by_tensor_name(tf, sess):
    tf.constant(1.0)
    return sess.run("Const:0")


@case
def run_by_op_name_gives_none(tf, sess):
    tf.constant(1.0)
    return [sess.run("Const")]


@case
def feed_unknown_name(tf, sess):
    c = tf.constant(1.0)
    return sess.run(c * 2, {"nope:0": 1.0})


@case
def feed_by_tensor_name(tf, sess):
    c = tf.constant(1.0)
    return sess.run(c * 2, {"Const:0": 2.0})


@case
def feed_by_op_name(tf, sess):
    c = tf.constant(1.0)
    return sess.run(c * 2, {"Const": 2.0})


@case
def feed_key_not_a_tensor(tf, sess):
    c = tf.constant(1.0)
    return sess.run(c * 2, {5: 1.0})


@case
def feed_value_is_a_tensor(tf, sess):
    c = tf.constant(1.0)
    return sess.run(c * 2, {c: tf.constant(2.0)})


@case
def fetch_none(tf, sess):
    tf.constant(1.0)
    return sess.run(None)


@case
def fetch_list_with_none(tf, sess):
    return sess.run([tf.constant(1.0), None])


@case
def fetch_an_int(tf, sess):
    tf.constant(1.0)
    return sess.run(5)


@case
def fetch_from_other_graph(tf, sess):
    tf.constant(1.0)
    with tf.Graph().as_default():
        other = tf.constant(1.0)
    return sess.run(other)


# --- the graph's state ---------------------------------------------------------------------------------------------


@case
def finalized_graph_refuses_collections(tf, sess):
    g = tf.get_default_graph()
    g.finalize()
    g.add_to_collection("x", 1)


@case
def finalized_graph_refuses_ops(tf, sess):
    g = tf.get_default_graph()
    g.finalize()
    return tf.constant(1.0)


@case
def run_closed_session(tf, sess):
    c = tf.constant(1.0)
    sess.close()
    return sess.run(c)


@case
def eval_without_default_session(tf, sess):
    return tf.constant(1.0).eval()


# --- feeds ---------------------------------------------------------------------------------------------------------


@case
def feed_wrong_shape(tf, sess):
    p = tf.placeholder(tf.float32, [2])
    return sess.run(p * 2, {p: [1.0, 2.0, 3.0]})


@case
def feed_wrong_rank(tf, sess):
    p = tf.placeholder(tf.float32, [None, 3])
    return sess.run(p * 2, {p: np.zeros(3, np.float32)})


@case
def feed_right_shape_partial(tf, sess):
    p = tf.placeholder(tf.float32, [None, 3])
    return sess.run(p * 2, {p: np.ones((2, 3), np.float32)})


@case
def feed_string_into_float(tf, sess):
    p = tf.placeholder(tf.float32, [])
    return sess.run(p, {p: "hello"})


@case
def feed_ragged_list(tf, sess):
    p = tf.placeholder(tf.float32, [None, None])
    return sess.run(p, {p: [[1.0, 2.0], [3.0]]})


@case
def placeholder_not_fed(tf, sess):
    p = tf.placeholder(tf.float32)
    return sess.run(p * 2)


@case
def placeholder_with_default_fed_wrong_shape(tf, sess):
    p = tf.placeholder_with_default([1.0, 2.0], [2])
    return sess.run(p, {p: [1.0, 2.0, 3.0]})


# --- running: tf.errors classes -------------------------------------------------------------------------------------


@case
def uninitialized_variable(tf, sess):
    v = tf.Variable(1.0)
    return sess.run(v)


@case
def uninitialized_variable_in_expression(tf, sess):
    v = tf.Variable(1.0)
    return sess.run(v * 2)


@case
def matmul_shape_mismatch_at_run(tf, sess):
    p = tf.placeholder(tf.float32, [None, 3])
    q = tf.placeholder(tf.float32, [None, 2])
    return sess.run(tf.matmul(p, q), {p: np.ones([2, 3]), q: np.ones([2, 2])})


@case
def reshape_impossible_at_run(tf, sess):
    p = tf.placeholder(tf.float32)
    return sess.run(tf.reshape(p, [4]), {p: np.ones(3)})


@case
def gather_out_of_range(tf, sess):
    return sess.run(tf.gather([1, 2, 3], 5))


@case
def gather_negative_index(tf, sess):
    return sess.run(tf.gather([1, 2, 3], -1))


@case
def add_broadcast_mismatch_at_run(tf, sess):
    p = tf.placeholder(tf.float32, [None])
    return sess.run(p + tf.ones([3]), {p: np.ones(2)})


@case
def sparse_xent_label_out_of_range(tf, sess):
    return sess.run(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[5], logits=tf.ones([1, 3])))


@case
def int_division_by_zero(tf, sess):
    p = tf.placeholder(tf.int32, [])
    return sess.run(tf.floordiv(7, p), {p: 0})


@case
def concat_mismatch_at_run(tf, sess):
    p = tf.placeholder(tf.float32, [None, None])
    return sess.run(tf.concat([p, tf.ones([2, 2])], 0), {p: np.ones((1, 3))})


@case
def assign_wrong_shape(tf, sess):
    v = tf.Variable([1.0, 2.0])
    return tf.assign(v, [1.0, 2.0, 3.0])


@case
def one_hot_negative_depth(tf, sess):
    p = tf.placeholder(tf.int32, [])
    return sess.run(tf.one_hot([0], p), {p: -1})


@case
def error_classes_are_ops_errors(tf, sess):
    return [
        issubclass(tf.errors.InvalidArgumentError, tf.errors.OpError),
        issubclass(tf.errors.FailedPreconditionError, tf.errors.OpError),
        issubclass(tf.errors.OpError, Exception),
    ]


@case
def op_error_names_the_op(tf, sess):
    p = tf.placeholder(tf.float32, name="needs_feed")
    try:
        sess.run(p * 2)
    except tf.errors.InvalidArgumentError as e:
        return ["needs_feed" in str(e), e.error_code]

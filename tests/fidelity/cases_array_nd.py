"""Issue 16's array names against TensorFlow 1: values, static shapes (known and partly unknown), gradients
through `gradients`, and the error classes of bad indices, shapes and arguments."""

import numpy as np

from tests.fidelity.harness import case

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def _run(tf, sess, y, feed=None):
    return [sess.run(y, feed), y.shape]


def _grad(tf, sess, fn, x_value, feed_shape=None):
    x = tf.constant(x_value)
    y = fn(x)
    w = tf.constant(np.arange(1, 1 + int(np.prod(sess.run(tf.shape(y))))).reshape(sess.run(tf.shape(y))), y.dtype)
    (g,) = tf.gradients(tf.reduce_sum(y * w), [x])
    return [sess.run(g), g.shape]


# --- gather_nd / scatter_nd / tensor_scatter_nd_* ---------------------------------------------------------------


@case
def gather_nd_values_and_shape(tf, sess):
    return _run(tf, sess, tf.gather_nd(X, [[1, 2], [0, 0]]))


@case
def gather_nd_full_index_and_batch_of_indices(tf, sess):
    return [sess.run(tf.gather_nd(X, [[[1, 2, 3]], [[0, 1, 0]]])), tf.gather_nd(X, [[[1, 2, 3]], [[0, 1, 0]]]).shape]


@case
def gather_nd_unknown_shapes(tf, sess):
    p = tf.placeholder(tf.float32, [None, 3, 4])
    i = tf.placeholder(tf.int64, [5, 2])
    return [tf.gather_nd(p, i).shape, tf.gather_nd(p, tf.placeholder(tf.int32, [None, None])).shape]


@case
def gather_nd_bad_index_is_invalid_argument(tf, sess):
    return sess.run(tf.gather_nd(X, tf.constant([[0, 0], [1, 3]])))


@case
def gather_nd_index_too_deep_is_a_build_error(tf, sess):
    return tf.gather_nd(X, [[0, 0, 0, 0]])


@case
def gather_nd_gradient(tf, sess):
    return _grad(tf, sess, lambda x: tf.gather_nd(x, [[1, 2], [0, 0], [1, 2]]), X)


@case
def scatter_nd_sums_duplicates(tf, sess):
    y = tf.scatter_nd([[1], [3], [1]], [1.0, 2.0, 3.0], [5])
    return _run(tf, sess, y)


@case
def scatter_nd_slices(tf, sess):
    y = tf.scatter_nd([[0], [2]], np.ones([2, 3], np.int32), tf.constant([3, 3]))
    return _run(tf, sess, y)


@case
def scatter_nd_bad_index(tf, sess):
    return sess.run(tf.scatter_nd(tf.constant([[7]]), [1.0], [5]))


@case
def scatter_nd_gradient(tf, sess):
    u = tf.constant([1.0, 2.0, 3.0])
    y = tf.scatter_nd([[1], [3], [1]], u, [5])
    (g,) = tf.gradients(tf.reduce_sum(y * tf.constant([1.0, 2.0, 3.0, 4.0, 5.0])), [u])
    return sess.run(g)


@case
def tensor_scatter_nd_update_add_sub(tf, sess):
    t = tf.constant(np.arange(6, dtype=np.float32).reshape(3, 2))
    i = [[0], [2]]
    u = tf.constant([[10.0, 20.0], [30.0, 40.0]])
    ys = [tf.tensor_scatter_nd_update(t, i, u), tf.tensor_scatter_nd_add(t, i, u), tf.tensor_scatter_nd_sub(t, i, u)]
    ys.append(tf.tensor_scatter_update(t, i, u))
    ys += [tf.tensor_scatter_add(t, i, u), tf.tensor_scatter_sub(t, i, u)]
    return [sess.run(ys), [y.shape for y in ys]]


@case
def tensor_scatter_nd_gradients(tf, sess):
    t = tf.constant(np.arange(6, dtype=np.float32).reshape(3, 2))
    u = tf.constant([[10.0, 20.0], [30.0, 40.0]])
    w = tf.constant(np.arange(1, 7, dtype=np.float32).reshape(3, 2))
    out = []
    for fn in (tf.tensor_scatter_nd_update, tf.tensor_scatter_nd_add, tf.tensor_scatter_nd_sub):
        y = fn(t, [[0], [2]], u)
        out.append(sess.run(tf.gradients(tf.reduce_sum(y * w), [t, u])))
    return out


@case
def tensor_scatter_nd_bad_index(tf, sess):
    return sess.run(tf.tensor_scatter_nd_update([1, 2, 3], tf.constant([[3]]), [5]))


# --- masks and where -------------------------------------------------------------------------------------------


@case
def boolean_mask_rows_and_elements(tf, sess):
    a = tf.boolean_mask(X, [True, False])
    b = tf.boolean_mask(X, np.arange(6).reshape(2, 3) % 2 == 0)
    c = tf.boolean_mask(X, [True, False, True], axis=1)
    return [sess.run([a, b, c]), a.shape, b.shape, c.shape]


@case
def boolean_mask_placeholder_mask(tf, sess):
    m = tf.placeholder(tf.bool, [None])
    y = tf.boolean_mask(tf.constant([1, 2, 3]), m)
    return [sess.run(y, {m: [False, True, True]}), y.shape]


@case
def boolean_mask_scalar_mask_is_value_error(tf, sess):
    return tf.boolean_mask([1, 2], True)


@case
def boolean_mask_shape_mismatch_is_value_error(tf, sess):
    return tf.boolean_mask([1, 2], [True, False, True])


@case
def boolean_mask_gradient(tf, sess):
    return _grad(tf, sess, lambda x: tf.boolean_mask(x, [[True, False, True], [False, False, True]]), X)


@case
def where_one_argument(tf, sess):
    y = tf.where([[True, False], [False, True]])
    z = tf.where_v2([0, 3, 0, 1])
    return [sess.run([y, z]), y.shape, z.shape]


@case
def sequence_mask_values_and_dtypes(tf, sess):
    a = tf.sequence_mask([1, 3, 0], 4)
    b = tf.sequence_mask([[1], [2]])
    c = tf.sequence_mask([2, 1], 3, dtype=tf.float32)
    return [sess.run([a, b, c]), a.shape, b.shape, c.shape, c.dtype]


@case
def sequence_mask_maxlen_not_scalar(tf, sess):
    return tf.sequence_mask([1, 2], [3])


# --- reversals, rolls ------------------------------------------------------------------------------------------


@case
def reverse_axes(tf, sess):
    ys = [tf.reverse(X, [1]), tf.reverse(X, [0, -1]), tf.reverse_v2(X, [2])]
    return [sess.run(ys), [y.shape for y in ys]]


@case
def reverse_repeated_axis(tf, sess):
    return sess.run(tf.reverse(X, tf.constant([1, 1])))


@case
def reverse_axis_out_of_range(tf, sess):
    return sess.run(tf.reverse(X, tf.constant([3])))


@case
def reverse_gradient(tf, sess):
    return _grad(tf, sess, lambda x: tf.reverse(x, [0, 2]), X)


@case
def reverse_sequence_values(tf, sess):
    x = np.arange(12).reshape(3, 4)
    a = tf.reverse_sequence(x, [2, 4, 0], seq_axis=1, batch_axis=0)
    b = tf.reverse_sequence(x.T, [1, 3, 2], seq_dim=0, batch_dim=1)
    return [sess.run([a, b]), a.shape]


@case
def reverse_sequence_length_too_long(tf, sess):
    return sess.run(tf.reverse_sequence(np.zeros([2, 3]), tf.constant([1, 4], tf.int64), seq_axis=1))


@case
def reverse_sequence_gradient(tf, sess):
    return _grad(tf, sess, lambda x: tf.reverse_sequence(x, [2, 3], seq_axis=2, batch_axis=0), X)


@case
def roll_values(tf, sess):
    ys = [tf.roll(X, 1, 2), tf.roll(X, [1, -1], [2, 1]), tf.roll(X, [2, 3], [2, 2]), tf.roll([1, 2, 3], -4, 0)]
    return [sess.run(ys), [y.shape for y in ys]]


@case
def roll_gradient(tf, sess):
    return _grad(tf, sess, lambda x: tf.roll(x, [1, -2], [1, 2]), X)


@case
def roll_bad_axis(tf, sess):
    return sess.run(tf.roll(X, [1], tf.constant([5])))


# --- broadcasting, grids ---------------------------------------------------------------------------------------


@case
def broadcast_to_values(tf, sess):
    a = tf.broadcast_to([1, 2, 3], [2, 3])
    b = tf.broadcast_to(np.ones([3, 1], np.float32), [2, 3, 4])
    return [sess.run([a, b]), a.shape, b.shape]


@case
def broadcast_to_incompatible(tf, sess):
    return tf.broadcast_to([1, 2, 3], [2, 2])


@case
def broadcast_to_incompatible_at_run_time(tf, sess):
    s = tf.placeholder(tf.int32, [2])
    return sess.run(tf.broadcast_to([1, 2, 3], s), {s: [2, 2]})


@case
def broadcast_to_gradient(tf, sess):
    return _grad(tf, sess, lambda x: tf.broadcast_to(x, [3, 2, 1, 4]), np.ones([2, 1, 4], np.float32))


@case
def meshgrid_xy_and_ij(tf, sess):
    a = tf.meshgrid([1, 2, 3], [4, 5])
    b = tf.meshgrid([1.0, 2.0], [3.0, 4.0, 5.0], [6.0], indexing="ij")
    return [sess.run(a), sess.run(b), [t.shape for t in a], [t.shape for t in b]]


@case
def meshgrid_bad_indexing(tf, sess):
    return tf.meshgrid([1], [2], indexing="yx")


# --- space / depth / batch -------------------------------------------------------------------------------------


IMG = np.arange(2 * 4 * 6 * 3, dtype=np.float32).reshape(2, 4, 6, 3)


@case
def space_to_depth_and_back(tf, sess):
    a = tf.space_to_depth(IMG, 2)
    b = tf.depth_to_space(a, 2)
    c = tf.depth_to_space(np.arange(16.0).reshape(1, 1, 1, 16), 2)
    return [sess.run([a, b, c]), a.shape, b.shape, c.shape]


@case
def space_to_depth_not_divisible(tf, sess):
    return tf.space_to_depth(np.zeros([1, 3, 4, 1]), 2)


@case
def depth_to_space_not_divisible_at_run_time(tf, sess):
    p = tf.placeholder(tf.float32, [None, None, None, None])
    return sess.run(tf.depth_to_space(p, 2), {p: np.zeros([1, 1, 1, 6])})


@case
def space_to_depth_gradient(tf, sess):
    return _grad(tf, sess, lambda x: tf.space_to_depth(x, 2), IMG)


@case
def depth_to_space_gradient(tf, sess):
    return _grad(tf, sess, lambda x: tf.depth_to_space(x, 2), np.arange(48.0, dtype=np.float32).reshape(1, 2, 2, 12))


@case
def space_to_batch_nd_and_back(tf, sess):
    a = tf.space_to_batch_nd(IMG, [2, 3], [[1, 1], [0, 3]])
    b = tf.batch_to_space_nd(a, [2, 3], [[1, 1], [0, 3]])
    c = tf.space_to_batch(IMG, [[0, 0], [1, 1]], 2)
    d = tf.batch_to_space(c, [[0, 0], [1, 1]], 2)
    return [sess.run([a, b, c, d]), [t.shape for t in (a, b, c, d)]]


@case
def space_to_batch_nd_1d_block(tf, sess):
    x = np.arange(2 * 5 * 2).reshape(2, 5, 2)
    a = tf.space_to_batch_nd(x, [3], [[1, 0]])
    return [sess.run(a), a.shape]


@case
def space_to_batch_nd_not_divisible(tf, sess):
    return tf.space_to_batch_nd(IMG, [3, 3], [[0, 0], [0, 0]])


@case
def batch_to_space_nd_bad_batch_at_run_time(tf, sess):
    p = tf.placeholder(tf.float32, [None, 1, 1, 1])
    return sess.run(tf.batch_to_space_nd(p, [2, 2], [[0, 0], [0, 0]]), {p: np.zeros([3, 1, 1, 1])})


@case
def space_to_batch_nd_gradient(tf, sess):
    return _grad(tf, sess, lambda x: tf.space_to_batch_nd(x, [2, 3], [[1, 1], [0, 3]]), IMG)


@case
def batch_to_space_nd_gradient(tf, sess):
    x = np.arange(8 * 2 * 2 * 1, dtype=np.float32).reshape(8, 2, 2, 1)
    return _grad(tf, sess, lambda x: tf.batch_to_space_nd(x, [2, 4], [[1, 0], [2, 1]]), x)


@case
def extract_image_patches_valid_same_rates(tf, sess):
    x = np.arange(1 * 5 * 6 * 2, dtype=np.float32).reshape(1, 5, 6, 2)
    a = tf.extract_image_patches(x, [1, 2, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID")
    b = tf.extract_image_patches(x, [1, 3, 2, 1], [1, 2, 3, 1], [1, 1, 2, 1], "SAME")
    c = tf.image.extract_image_patches(x, sizes=[1, 2, 2, 1], strides=[1, 1, 1, 1], rates=[1, 2, 2, 1], padding="VALID")
    return [sess.run([a, b, c]), a.shape, b.shape, c.shape]


@case
def extract_image_patches_gradient(tf, sess):
    x = np.arange(1 * 5 * 6 * 2, dtype=np.float32).reshape(1, 5, 6, 2)
    return _grad(tf, sess, lambda x: tf.extract_image_patches(x, [1, 3, 2, 1], [1, 2, 3, 1], [1, 1, 2, 1], "SAME"), x)


@case
def extract_image_patches_bad_ksizes(tf, sess):
    return tf.extract_image_patches(np.zeros([1, 4, 4, 1]), [2, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")


# --- small ones ------------------------------------------------------------------------------------------------


@case
def parallel_stack_values(tf, sess):
    y = tf.parallel_stack([[1, 2], [3, 4], [5, 6]])
    return [sess.run(y), y.shape]


@case
def identity_n_and_shape_n(tf, sess):
    a, b = tf.identity_n([tf.constant([1, 2]), tf.constant(3.0)])
    s = tf.shape_n([X, tf.constant([1.0, 2.0])], out_type=tf.int64)
    p = tf.placeholder(tf.float32, [None, 3])
    return [sess.run([a, b]), a.shape, b.shape, sess.run(s), [t.shape for t in s], tf.shape_n([p])[0].shape]


@case
def identity_n_gradient(tf, sess):
    x = tf.constant([1.0, 2.0])
    y = tf.constant(3.0)
    a, b = tf.identity_n([x, y])
    return sess.run(tf.gradients(tf.reduce_sum(a * a) + 2.0 * b, [x, y]))


@case
def ensure_shape_static_and_run_time(tf, sess):
    p = tf.placeholder(tf.float32, [None, 2])
    y = tf.ensure_shape(p, [3, None])
    return [y.shape, sess.run(y, {p: np.ones([3, 2])})]


@case
def ensure_shape_mismatch_at_run_time(tf, sess):
    p = tf.placeholder(tf.float32, [None, 2])
    return sess.run(tf.ensure_shape(p, [3, 2]), {p: np.ones([4, 2])})


@case
def ensure_shape_mismatch_when_built(tf, sess):
    return tf.ensure_shape(tf.constant([1, 2]), [3])


@case
def ensure_shape_gradient(tf, sess):
    return _grad(tf, sess, lambda x: tf.ensure_shape(x, [2, 3, None]) * 2.0, X)


@case
def searchsorted_left_right_and_batched(tf, sess):
    a = tf.searchsorted([1.0, 3.0, 3.0, 5.0], [0.0, 3.0, 4.0, 9.0])
    b = tf.searchsorted([1.0, 3.0, 3.0, 5.0], [0.0, 3.0, 4.0, 9.0], side="right")
    c = tf.searchsorted([[1, 2, 3], [2, 4, 6]], [[2, 5], [1, 6]], out_type=tf.int64)
    return [sess.run([a, b, c]), a.shape, c.shape, c.dtype]


@case
def searchsorted_bad_side(tf, sess):
    return tf.searchsorted([1, 2], [1], side="middle")


@case
def repeat_values(tf, sess):
    x = np.arange(6).reshape(2, 3)
    ys = [tf.repeat(x, 2), tf.repeat(x, [1, 2], axis=0), tf.repeat(x, [0, 3, 1], axis=1), tf.repeat(x, 2, axis=-1)]
    return [sess.run(ys), [y.shape for y in ys]]


@case
def repeat_gradient(tf, sess):
    return _grad(tf, sess, lambda x: tf.repeat(x, [2, 0, 1], axis=1), X)


@case
def eye_square_rectangular_batched(tf, sess):
    ys = [tf.eye(3), tf.eye(2, 4, dtype=tf.int32), tf.eye(3, 2, batch_shape=[2])]
    return [sess.run(ys), [y.shape for y in ys], [y.dtype for y in ys]]


@case
def linspace_values(tf, sess):
    ys = [tf.linspace(0.0, 1.0, 5), tf.lin_space(-2.0, 3.0, 1), tf.linspace(np.float64(1.0), 0.0, 4)]
    return [sess.run(ys), [y.shape for y in ys], [y.dtype for y in ys]]


@case
def linspace_num_not_positive(tf, sess):
    n = tf.placeholder(tf.int32, [])
    return sess.run(tf.linspace(0.0, 1.0, n), {n: 0})


@case
def bitcast_values_and_shapes(tf, sess):
    a = tf.bitcast(np.float32([1.0, -2.0]), tf.int32)
    b = tf.bitcast(np.int32([1, 256]), tf.uint8)
    c = tf.bitcast(np.uint8([[0, 0, 128, 63]]), tf.float32)
    return [sess.run([a, b, c]), a.shape, b.shape, c.shape]


@case
def bitcast_bad_last_dimension(tf, sess):
    return tf.bitcast(np.uint8([0, 0, 128]), tf.float32)


@case
def dimension_value_and_at_index(tf, sess):
    s = tf.TensorShape([3, None])
    return [tf.dimension_value(s[0]), tf.dimension_value(s[1]), tf.dimension_value(tf.dimension_at_index(s, 0))]


@case
def tensor_scatter_nd_max_min_and_gradients(tf, sess):
    t = tf.constant([[1.0, 5.0], [3.0, 3.0], [0.0, 2.0]])
    u = tf.constant([[4.0, 4.0], [3.0, 1.0]])
    w = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    out = []
    for fn in (tf.tensor_scatter_nd_max, tf.tensor_scatter_nd_min):
        y = fn(t, [[0], [1]], u)
        out.append([sess.run(y), y.shape, sess.run(tf.gradients(tf.reduce_sum(y * w), [t, u]))])
    return out


@case
def broadcast_dynamic_and_static_shape(tf, sess):
    a = tf.broadcast_dynamic_shape([2, 1, 3], [4, 1])
    b = tf.broadcast_static_shape(tf.TensorShape([2, 1, None]), tf.TensorShape([5, 3]))
    return [sess.run(a), a.shape, b]


@case
def broadcast_static_shape_incompatible(tf, sess):
    return tf.broadcast_static_shape(tf.TensorShape([2, 3]), tf.TensorShape([4]))


@case
def broadcast_dynamic_shape_incompatible(tf, sess):
    return sess.run(tf.broadcast_dynamic_shape(tf.constant([2, 3]), tf.constant([4])))


@case
def unravel_index_scalar_and_vector(tf, sess):
    a = tf.unravel_index(7, [3, 4])
    b = tf.unravel_index([0, 5, 11], [3, 4])
    c = tf.unravel_index(tf.constant([3], tf.int64), tf.constant([2, 2], tf.int64))
    return [sess.run([a, b, c]), a.shape, b.shape, c.dtype]


@case
def unravel_index_out_of_bounds(tf, sess):
    return sess.run(tf.unravel_index([12], [3, 4]))


@case
def check_numerics_passes_and_fails(tf, sess):
    ok = tf.check_numerics([1.0, 2.0], "fine")
    return [sess.run(ok), ok.shape]


@case
def check_numerics_nan_is_invalid_argument(tf, sess):
    return sess.run(tf.check_numerics(tf.constant([1.0, np.nan]), "probe"))


@case
def check_numerics_gradient(tf, sess):
    return _grad(tf, sess, lambda x: tf.check_numerics(x, "x") * x, X)


@case
def diag_and_diag_part(tf, sess):
    a = tf.diag([1, 2, 3])
    b = tf.diag(np.arange(6.0).reshape(2, 3))
    c = tf.diag_part(b)
    return [sess.run([a, b, c]), a.shape, b.shape, c.shape]


@case
def diag_part_odd_rank(tf, sess):
    return tf.diag_part(np.zeros([2, 2, 2]))


@case
def diag_gradients(tf, sess):
    return [
        _grad(tf, sess, tf.diag, np.arange(6.0, dtype=np.float32).reshape(2, 3)),
        _grad(tf, sess, tf.diag_part, np.arange(16.0, dtype=np.float32).reshape(4, 4)),
    ]

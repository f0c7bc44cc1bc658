"""top_k, in_top_k, sort, argsort, unique, unique_with_counts, setdiff1d, bincount and confusion_matrix against
TensorFlow 1: values (ties, dtypes, axes), static shapes, result tuples' fields, gradients, and bad input."""

from tests.fidelity.harness import case

INF = float("inf")
NAN = float("nan")


@case
def top_k_values_indices_and_ties(tf, sess):
    x = tf.constant([[3.0, 1.0, 3.0, 2.0], [-1.0, 5.0, 5.0, 5.0]])
    r = tf.nn.top_k(x, 3)
    r1 = tf.math.top_k(tf.constant([4, 9, 1]))
    return [r.values, r.indices, r.values.shape, r.indices.dtype, r.values.op.type, r1, r1.values.shape]


@case
def top_k_of_unknown_k_and_batch(tf, sess):
    x = tf.placeholder(tf.float32, [None, 5])
    k = tf.placeholder(tf.int32, [])
    r = tf.nn.top_k(x, k)
    return [r.values.shape, sess.run(r.indices, {x: [[1, 5, 2, 4, 3]], k: 2})]


@case
def top_k_k_too_large(tf, sess):
    return tf.nn.top_k(tf.ones([2, 3]), 4)


@case
def top_k_k_too_large_at_run_time(tf, sess):
    k = tf.placeholder(tf.int32, [])
    return sess.run(tf.nn.top_k(tf.ones([2, 3]), k).values, {k: 4})


@case
def top_k_gradient(tf, sess):
    x = tf.constant([[3.0, 1.0, 3.0, 2.0], [-1.0, 5.0, 0.0, 4.0]])
    w = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    return tf.gradients(tf.nn.top_k(x, 2).values * w, x)[0]


@case
def in_top_k(tf, sess):
    p = tf.constant([[0.1, 0.8, 0.1], [0.3, 0.3, 0.4], [0.5, NAN, 0.1], [0.2, INF, 0.1]])
    t = tf.constant([2, 0, 0, 1])
    y = tf.nn.in_top_k(p, t, 2)
    return [y, y.shape, y.dtype, tf.math.in_top_k(p, tf.constant([1, 1, 0, 0], tf.int64), 1)]


@case
def sort_and_argsort(tf, sess):
    x = tf.constant([[3.0, 1.0, 2.0, 1.0], [0.0, -5.0, 7.0, 0.0]])
    i = tf.constant([[3, -1, 2], [0, 5, -9]])
    u = tf.constant([7, 0, 255, 3], tf.uint8)
    s = tf.sort(x)
    return [
        s,
        s.shape,
        tf.sort(x, direction="DESCENDING"),
        tf.sort(x, axis=0),
        tf.argsort(x),
        tf.argsort(x, axis=0, direction="DESCENDING"),
        tf.sort(i),
        tf.argsort(i, stable=True),
        tf.sort(u),
        tf.sort(tf.constant([[[2, 1], [0, 3]]]), axis=1),
    ]


@case
def sort_bad_direction(tf, sess):
    return tf.sort([1, 2], direction="UP")


@case
def unique_and_counts(tf, sess):
    x = tf.constant([4, 1, 4, 9, 1, 1])
    u = tf.unique(x)
    c = tf.unique_with_counts(tf.constant([2.5, -1.0, 2.5]), out_idx=tf.int64)
    return [
        u.y,
        u.idx,
        u.y.shape,
        u.idx.shape,
        c.y,
        c.idx,
        c.count,
        c.count.dtype,
        tf.unique(tf.constant(["a", "b", "a"])).y,
    ]


@case
def unique_of_a_matrix(tf, sess):
    return tf.unique(tf.ones([2, 2]))


@case
def setdiff1d(tf, sess):
    r = tf.setdiff1d([1, 2, 3, 4, 2, 6], [2, 6, 8])
    r64 = tf.setdiff1d(tf.constant([1.5, 2.5]), tf.constant([2.5]), index_dtype=tf.int64)
    return [r.out, r.idx, r.out.shape, r64.out, r64.idx, r64.idx.dtype]


@case
def bincount(tf, sess):
    arr = tf.constant([1, 1, 3, 0, 3, 3])
    return [
        tf.bincount(arr),
        tf.math.bincount(arr, minlength=7),
        tf.bincount(arr, maxlength=2),
        tf.bincount(arr, weights=tf.constant([0.5, 1.0, 2.0, 1.0, 1.0, 1.0]), dtype=tf.float32),
        tf.bincount(tf.constant([], tf.int32)),
        tf.bincount(arr, dtype=tf.int64).dtype,
    ]


@case
def bincount_of_negative_values(tf, sess):
    return tf.bincount(tf.constant([1, -1]))


@case
def confusion_matrix(tf, sess):
    labels = tf.constant([0, 1, 2, 2, 1])
    predictions = tf.constant([0, 2, 2, 1, 1])
    return [
        tf.confusion_matrix(labels, predictions),
        tf.math.confusion_matrix(labels, predictions, num_classes=4),
        tf.confusion_matrix(labels, predictions, weights=tf.constant([1.0, 2.0, 3.0, 4.0, 5.0]), dtype=tf.float32),
    ]


@case
def confusion_matrix_label_out_of_range(tf, sess):
    return tf.confusion_matrix([0, 3], [0, 1], num_classes=3)

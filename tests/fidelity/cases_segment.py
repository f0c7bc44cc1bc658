"""Segment reductions against TensorFlow 1: values (empty segments, negative unsorted ids, dtypes), static shapes,
op types and names, gradients, and the errors of bad ids."""

from tests.fidelity.harness import case

_DATA = [[1.0, -2.0], [3.0, 4.0], [5.0, 0.5], [-1.0, 2.0], [0.0, 7.0]]


def _sorted_case(fname):
    def fn(tf, sess):
        data = tf.constant(_DATA)
        y = getattr(tf, fname)(data, [0, 0, 2, 2, 3])
        yi = getattr(tf.math, fname)(tf.constant([4, 1, 9, 3]), tf.constant([1, 1, 1, 4], tf.int64))
        g = tf.gradients(y, data)[0]
        return [y, y.shape, y.op.type, y.op.name, yi, yi.shape, g]

    fn.__name__ = fname
    return fn


for _f in ("segment_sum", "segment_mean", "segment_prod", "segment_min", "segment_max"):
    case(_sorted_case(_f))


def _unsorted_case(fname):
    def fn(tf, sess):
        data = tf.constant(_DATA)
        ids = tf.constant([3, -1, 0, 3, 0])
        y = getattr(tf, fname)(data, ids, 4)
        yi = getattr(tf.math, fname)(tf.constant([[4, 1], [9, 3]]), tf.constant([[1, 0], [1, 1]]), 3)
        g = tf.gradients(y, data)[0]
        return [y, y.shape, y.op.name, yi, yi.shape, g]

    fn.__name__ = fname
    return fn


for _f in (
    "unsorted_segment_sum",
    "unsorted_segment_prod",
    "unsorted_segment_min",
    "unsorted_segment_max",
    "unsorted_segment_mean",
    "unsorted_segment_sqrt_n",
):
    case(_unsorted_case(_f))


@case
def segment_of_unknown_ids_shape(tf, sess):
    ids = tf.placeholder(tf.int32, [None])
    y = tf.segment_sum(tf.ones([4, 3]), ids)
    return [y.shape, sess.run(y, {ids: [0, 1, 1, 1]})]


@case
def segment_ids_not_sorted(tf, sess):
    return tf.segment_sum(tf.constant([1.0, 2.0, 3.0]), [1, 0, 1])


@case
def segment_ids_negative(tf, sess):
    return tf.segment_max(tf.constant([1.0, 2.0]), [-1, 0])


@case
def segment_ids_length_mismatch(tf, sess):
    return tf.segment_sum(tf.constant([1.0, 2.0, 3.0]), [0, 0])


@case
def unsorted_segment_id_out_of_range(tf, sess):
    return tf.unsorted_segment_max(tf.constant([1.0, 2.0]), [0, 5], 3)


@case
def unsorted_segment_ids_not_a_prefix(tf, sess):
    return tf.unsorted_segment_prod(tf.ones([2, 3]), tf.constant([0, 1, 0]), 2)


@case
def unsorted_segment_empty_min_max_of_ints(tf, sess):
    d = tf.constant([5, 7], tf.int64)
    return [tf.unsorted_segment_min(d, [0, 0], 2), tf.unsorted_segment_max(d, [0, 0], 2)]


@case
def extras_erfcinv_arg_max_casts(tf, sess):
    x = tf.constant([[1.0, 3.0], [4.0, 2.0]])
    return [
        tf.math.erfcinv(tf.constant([0.1, 0.5, 1.0, 1.5, 2.0, 0.0])),
        tf.arg_max(x, 1),
        tf.arg_min(x, 0, output_type=tf.int32),
        tf.arg_max(x, 1).op.name,
        tf.to_double(x).dtype,
        tf.to_int32(x),
        tf.to_int64(x).op.name,
        tf.saturate_cast(tf.constant([-300.0, 3.7, 1e10]), tf.uint8),
        tf.saturate_cast(tf.constant([-3, 70000], tf.int32), tf.int16),
        tf.saturate_cast(tf.constant([1.5]), tf.float64).dtype,
        tf.math.softsign(x),
        tf.math.zero_fraction(tf.constant([0.0, 1.0, 0.0, 2.0])),
    ]

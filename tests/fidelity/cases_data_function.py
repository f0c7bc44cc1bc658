"""tf.data functions in TF1 programs: map (captured tensors, several components, dicts, variables, py_func,
OutOfRange ending it), parallel map order, filter, flat_map, interleave order and the errors a program catches."""

import numpy as np

from tests.fidelity.harness import case


def _drain(tf, sess, nxt, limit=200):
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(nxt))
        except tf.errors.OutOfRangeError:
            return out
        except tf.errors.OpError as e:
            out.append(type(e).__name__)
    return out


def _run(tf, sess, ds):
    return _drain(tf, sess, tf.data.make_one_shot_iterator(ds).get_next())


@case
def map_captures_and_components(tf, sess):
    scale = tf.constant(2.0)
    offset = tf.constant(np.array([1.0, -1.0], np.float32))
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    ds = tf.data.Dataset.from_tensor_slices((x, np.arange(4))).map(
        lambda a, b: (a * scale + offset, b * 3, tf.reduce_sum(a))
    )
    return [ds.output_types, [s.as_list() for s in ds.output_shapes], _run(tf, sess, ds)]


@case
def map_dict_output(tf, sess):
    ds = tf.data.Dataset.range(3).map(lambda i: {"i": i, "sq": i * i, "k": 7})
    return [sorted(ds.output_types), _run(tf, sess, ds)]


@case
def map_reads_variable_at_initialization(tf, sess):
    v = tf.Variable(1, dtype=tf.int64)
    it = tf.data.make_initializable_iterator(tf.data.Dataset.range(3).map(lambda i: i + v))
    nxt = it.get_next()
    sess.run(tf.global_variables_initializer())
    sess.run(it.initializer)
    first = sess.run(nxt)
    sess.run(v.assign(100))
    second = sess.run(nxt)
    sess.run(it.initializer)
    return [first, second, _drain(tf, sess, nxt)]


@case
def map_out_of_range_from_py_func_ends(tf, sess):
    def g(v):
        if v == 3:
            raise StopIteration()
        return v * 2

    serial = tf.data.Dataset.range(10).map(lambda i: tf.py_func(g, [i], tf.int64))
    parallel = tf.data.Dataset.range(10).map(lambda i: tf.py_func(g, [i], tf.int64), num_parallel_calls=3)
    return [_run(tf, sess, serial), _run(tf, sess, parallel)]


@case
def map_py_func_error_then_goes_on(tf, sess):
    def g(v):
        if v == 1:
            raise ValueError("bad")
        return v

    return _run(tf, sess, tf.data.Dataset.range(3).map(lambda i: tf.py_func(g, [i], tf.int64)))


@case
def parallel_map_keeps_order(tf, sess):
    x = np.random.RandomState(1).rand(64, 3).astype(np.float32)
    ds = tf.data.Dataset.from_tensor_slices(x).map(lambda r: tf.reduce_sum(r * r), num_parallel_calls=4)
    return _run(tf, sess, ds)


@case
def filter_with_captured_threshold(tf, sess):
    t = tf.constant(3, dtype=tf.int64)
    a = tf.data.Dataset.range(10).filter(lambda i: tf.logical_and(i > t, tf.equal(i % 2, 0)))
    b = tf.data.Dataset.from_tensor_slices((np.arange(5), np.arange(5) * 10)).filter(lambda x, y: y > 15)
    return [_run(tf, sess, a), _run(tf, sess, b)]


@case
def filter_predicate_not_scalar(tf, sess):
    ds = tf.data.Dataset.range(3).filter(lambda i: tf.py_func(lambda v: np.array([True, False]), [i], tf.bool))
    return _run(tf, sess, ds)


@case
def flat_map_concatenates(tf, sess):
    c = tf.constant(100, dtype=tf.int64)
    ds = tf.data.Dataset.range(1, 4).flat_map(lambda n: tf.data.Dataset.range(n).map(lambda j: j + c * n))
    return _run(tf, sess, ds)


@case
def interleave_order(tf, sess):
    lengths = np.array([3, 0, 5, 1, 4, 2], np.int64)
    out = []
    for cycle_length, block_length in [(2, 1), (3, 2), (4, 3)]:
        ds = tf.data.Dataset.from_tensor_slices((np.arange(6, dtype=np.int64), lengths)).interleave(
            lambda i, n: tf.data.Dataset.range(n).map(lambda j: (i, j)),
            cycle_length=cycle_length,
            block_length=block_length,
        )
        out.append(_run(tf, sess, ds))
    return out


@case
def parallel_interleave_order(tf, sess):
    ds = tf.data.Dataset.range(5).interleave(
        lambda i: tf.data.Dataset.range(i + 1).map(lambda j: i * 10 + j),
        cycle_length=2,
        block_length=2,
        num_parallel_calls=2,
    )
    return _run(tf, sess, ds)


@case
def interleave_block_length_zero(tf, sess):
    ds = tf.data.Dataset.range(3).interleave(lambda i: tf.data.Dataset.range(i), cycle_length=2, block_length=0)
    return _run(tf, sess, ds)

"""Control-flow and TensorArray mistakes with the errors TF1 users read, compared by class (and the message's key
words): a while_loop variable whose shape changes without shape_invariants (ValueError naming shape_invariants),
a body returning a different structure, cond branches returning different structures or dtypes, a TensorArray
index written twice and an unwritten index read (InvalidArgumentError at run time), a TensorArray write past its
fixed size, stacking elements of different shapes, map_fn whose function output does not match dtype=, tf.case
with exclusive=True and two true predicates at run time, and the same loops written correctly (their values)."""

import numpy as np


def _err(tf, fn, words=()):
    try:
        fn()
        return None
    except Exception as e:  # noqa: BLE001 - compared by class and key words
        msg = e.message if isinstance(e, tf.errors.OpError) else str(e)
        return [type(e).__name__] + [w in msg for w in words]


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    out["shape_change"] = _err(
        tf,
        lambda: tf.while_loop(lambda x: tf.size(x) < 5, lambda x: tf.concat([x, x], 0), [tf.ones([1])]),
        ["shape_invariants", "enters the loop with shape"],
    )
    out["structure_change"] = _err(
        tf, lambda: tf.while_loop(lambda i, j: i < 3, lambda i, j: (i + 1,), (0, 1)), []
    )
    out["cond_structure"] = _err(
        tf, lambda: tf.cond(tf.constant(True), lambda: (1.0, 2.0), lambda: 1.0), ["structure"]
    )
    out["cond_dtype"] = _err(tf, lambda: tf.cond(tf.constant(True), lambda: tf.constant(1.0), lambda: tf.constant(1)), [])
    ta = tf.TensorArray(tf.float32, size=2)
    twice = ta.write(0, 1.0).write(0, 2.0).stack()
    unread = tf.TensorArray(tf.float32, size=2).write(0, 1.0).read(1)
    past_end = tf.TensorArray(tf.float32, size=2).write(3, 1.0).stack()
    mixed = tf.TensorArray(tf.float32, size=2, infer_shape=False).write(0, [1.0]).write(1, [1.0, 2.0]).stack()
    p = tf.placeholder(tf.int32, [])
    case = tf.case([(p > 0, lambda: tf.constant(1)), (p > 1, lambda: tf.constant(2))], default=lambda: tf.constant(0),
                   exclusive=True)  # fmt: skip
    good_loop = tf.while_loop(
        lambda x: tf.size(x) < 5,
        lambda x: tf.concat([x, x], 0),
        [tf.ones([1])],
        shape_invariants=[tf.TensorShape([None])],
    )
    with tf.Session() as sess:
        out["write_twice"] = _err(tf, lambda: sess.run(twice), ["written"])
        out["read_unwritten"] = _err(tf, lambda: sess.run(unread), [])
        out["write_past_end"] = _err(tf, lambda: sess.run(past_end), [])
        out["stack_mixed"] = _err(tf, lambda: sess.run(mixed), [])
        out["case_exclusive"] = _err(tf, lambda: sess.run(case, {p: 3}), ["exclusive"])
        out["case_ok"] = [sess.run(case, {p: 1}), sess.run(case, {p: 0})]
        out["good_loop"] = sess.run(good_loop)
        out["good_loop_shape"] = good_loop.shape.as_list()
    out["map_fn_dtype"] = _err(tf, lambda: tf.map_fn(lambda v: (v, v), tf.ones([3]), dtype=tf.float32), [])
    return out

"""tf.Print / tf.print, tf.assert_* with tf.control_dependencies, tf.check_numerics, tf.group / tf.tuple,
tf.placeholder_with_default, tf.identity ordering of assignments."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None])
    printed = tf.Print(x, [tf.shape(x), tf.reduce_sum(x)], message="x: ", summarize=3)
    doubled = printed * 2.0
    with tf.control_dependencies([tf.print("sum is", tf.reduce_sum(x), output_stream="file://" + workdir + "/p.txt")]):
        summed = tf.identity(tf.reduce_sum(doubled))
    pos = tf.assert_positive(x, message="x must be positive")
    with tf.control_dependencies([pos, tf.assert_rank(x, 1), tf.assert_less(x, 100.0)]):
        logged = tf.log(x)
    eq = tf.assert_equal(tf.shape(x)[0], 3, message="need three")
    with tf.control_dependencies([eq]):
        three = tf.identity(x)
    checked = tf.check_numerics(tf.log(x), "log of x")
    static_err = None
    try:
        tf.assert_equal(tf.constant([1, 2]), tf.constant([1, 3]))
    except Exception as e:  # noqa: BLE001 - the class is compared
        static_err = type(e).__name__
    v = tf.Variable(1.0)
    with tf.control_dependencies([tf.assign(v, 5.0)]):
        read_after = tf.identity(v)
    a = tf.Variable(0)
    b = tf.Variable(0)
    both = tf.group(tf.assign_add(a, 1), tf.assign_add(b, 2), name="both")
    tup = tf.tuple([tf.constant(1.0), tf.constant(2.0)])
    default = tf.placeholder_with_default(tf.constant([1.0, 2.0]), shape=[None])
    default_sq = default**2
    noop = tf.no_op(name="nothing")
    errs = {}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        s = sess.run(summed, {x: [1.0, 2.0, 3.0]})
        lg = sess.run(logged, {x: [1.0, np.e]})
        for key, fetch, feed in [
            ("positive", logged, {x: [1.0, -1.0]}),
            ("equal", three, {x: [1.0, 2.0]}),
            ("numerics", checked, {x: [-1.0]}),
            ("less", logged, {x: [1000.0]}),
        ]:
            try:
                sess.run(fetch, feed)
                errs[key] = None
            except tf.errors.InvalidArgumentError as e:
                errs[key] = type(e).__name__
        ok3 = sess.run(three, {x: [1.0, 2.0, 3.0]})
        r = sess.run(read_after)
        sess.run(both)
        sess.run(both)
        ab = sess.run([a, b])
        d1 = sess.run(default_sq)
        d2 = sess.run(default_sq, {default: [3.0]})
        t = sess.run(tup)
        nothing = sess.run(noop)
    with open(workdir + "/p.txt") as f:
        printed_text = f.read()
    return {
        "s": s,
        "lg": lg,
        "errs": errs,
        "ok3": ok3,
        "read_after": r,
        "ab": ab,
        "defaults": [d1, d2],
        "tup": t,
        "nothing": nothing,
        "printed": printed_text,
        "static_err": static_err,
        "both_type": both.type,
        "printed_shape": printed.shape.as_list(),
        "default_shape": default.shape.as_list(),
        "names": [printed.op.type, noop.name, both.name],
    }

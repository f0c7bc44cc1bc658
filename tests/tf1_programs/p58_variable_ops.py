"""Variable state operations as TF1 code used them: tf.scatter_update / scatter_add / scatter_sub /
scatter_nd_update on a variable, assign_add / assign_sub with read_value, count_up_to hitting its limit
(OutOfRangeError), tf.is_variable_initialized and report_uninitialized_variables before and after a partial
initialization with variables_initializer, initialized_value() chaining one variable's initializer on another,
Variable.load, tf.assign with validate_shape, and tf.Variable(..., trainable=False, collections=[...])."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    table = tf.Variable(np.zeros([5, 2], np.float32), name="table")
    counts = tf.Variable(tf.zeros([5], tf.int32), name="counts")
    grid = tf.Variable(np.zeros([3, 3], np.float32), name="grid")
    a = tf.Variable(3.0, name="a")
    b = tf.Variable(a.initialized_value() * 2.0, name="b")
    step = tf.Variable(0, name="step", dtype=tf.int32)
    tick = tf.count_up_to(step, 3)
    tf.Variable(1.0, trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES, "my_vars"], name="extra")
    upd = tf.scatter_update(table, [0, 2], [[1.0, 2.0], [3.0, 4.0]])
    add = tf.scatter_add(table, [2, 2, 4], [[1.0, 1.0], [1.0, 1.0], [5.0, 5.0]])
    sub = tf.scatter_sub(counts, [1, 1, 3], [1, 2, 3])
    nd = tf.scatter_nd_update(grid, [[0, 0], [2, 1]], [7.0, 8.0])
    inc = tf.assign_add(a, 1.5)
    dec = a.assign_sub(0.5, read_value=False)
    out["dec_type"] = type(dec).__name__
    out["collections"] = [
        [v.op.name for v in tf.global_variables()],
        [v.op.name for v in tf.local_variables()],
        [v.op.name for v in tf.trainable_variables()],
        [v.op.name for v in tf.get_collection("my_vars")],
    ]
    with tf.Session() as sess:
        out["uninit_all"] = sess.run(tf.report_uninitialized_variables())
        sess.run(tf.variables_initializer([table, counts]))
        out["uninit_some"] = sess.run(tf.report_uninitialized_variables())
        out["is_init"] = sess.run([tf.is_variable_initialized(table), tf.is_variable_initialized(a)])
        sess.run(tf.global_variables_initializer())
        sess.run(tf.local_variables_initializer())
        out["b"] = sess.run(b)
        out["upd"] = sess.run(upd)
        out["add"] = sess.run(add)
        out["sub"] = sess.run(sub)
        out["nd"] = sess.run(nd)
        out["inc"] = sess.run(inc)
        sess.run(dec)
        out["a"] = sess.run(a)
        ticks = [sess.run(tick) for _ in range(3)]
        try:
            sess.run(tick)
            ticks.append(None)
        except tf.errors.OutOfRangeError as e:
            ticks.append(type(e).__name__)
        out["ticks"] = ticks
        a.load(10.0, sess)
        out["loaded"] = sess.run(a)
        v = tf.Variable([1.0, 2.0], validate_shape=False, name="flex")
        sess.run(v.initializer)
        sess.run(tf.assign(v, [1.0, 2.0, 3.0], validate_shape=False))
        out["flex"] = sess.run(v)
        try:
            sess.run(tf.assign(table, tf.zeros([2, 2])))
            out["bad_assign"] = None
        except ValueError as e:
            out["bad_assign"] = type(e).__name__
        out["uninit_end"] = sess.run(tf.report_uninitialized_variables())
    return out

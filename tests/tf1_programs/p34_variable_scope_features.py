"""variable_scope as libraries used it: scope-wide regularizer / initializer / dtype defaults, custom_getter
(an fp16 "master weights" getter and a nested one), partitioner, re-entering a scope object, AUTO_REUSE,
auxiliary_name_scope=False, tf.make_template sharing, get_local_variable."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    calls = []

    def fp16_getter(getter, name, *args, **kwargs):
        calls.append(name)
        kwargs["dtype"] = tf.float32
        var = getter(name, *args, **kwargs)
        return tf.cast(var, tf.float16)

    def tag_getter(getter, name, *args, **kwargs):
        calls.append("tag:" + name)
        return getter(name, *args, **kwargs)

    with tf.variable_scope("half", custom_getter=fp16_getter, initializer=tf.constant_initializer(0.25)):
        with tf.variable_scope("inner", custom_getter=tag_getter):
            w16 = tf.get_variable("w", [2, 2], dtype=tf.float16)
    l2 = lambda t: tf.multiply(0.5, tf.reduce_sum(tf.square(t)), name="l2")  # noqa: E731
    with tf.variable_scope("reg", regularizer=l2, initializer=tf.ones_initializer()) as reg_scope:
        a = tf.get_variable("a", [3])
        b = tf.get_variable("b", [2], regularizer=lambda t: tf.reduce_sum(t) * 0.0)
        with tf.variable_scope("nested"):
            c = tf.get_variable("c", [1], initializer=tf.constant_initializer(4.0))
    with tf.variable_scope(reg_scope, reuse=True):
        a_again = tf.get_variable("a")
    with tf.variable_scope(reg_scope):
        d = tf.get_variable("d", [1])
        op_in_reentered = tf.identity(d, name="id")
    for _ in range(2):
        with tf.variable_scope("shared", reuse=tf.AUTO_REUSE):
            s = tf.get_variable("s", [1], initializer=tf.zeros_initializer())
    with tf.variable_scope("part", partitioner=tf.fixed_size_partitioner(2)):
        p = tf.get_variable("p", [4, 3], initializer=tf.constant_initializer(1.5))
    with tf.variable_scope("noaux", auxiliary_name_scope=False):
        nv = tf.get_variable("v", [1])
        nop = tf.identity(nv, name="plain")
    with tf.variable_scope("int", dtype=tf.int32):
        iv = tf.get_variable("i", [2], initializer=tf.zeros_initializer())

    def dense(x):
        w = tf.get_variable("kernel", [2, 1], initializer=tf.constant_initializer(0.5))
        return tf.matmul(x, w)

    tmpl = tf.make_template("tmpl", dense)
    y1 = tmpl(tf.ones([1, 2]))
    y2 = tmpl(tf.ones([1, 2]) * 2.0)
    loc = tf.get_local_variable("local_v", [2], initializer=tf.zeros_initializer())
    reg_losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        vals = sess.run(
            {"w16": w16, "a": a, "c": c, "regs": reg_losses, "p": tf.convert_to_tensor(p), "y": [y1, y2], "iv": iv}
        )
    return {
        "vals": vals,
        "calls": calls,
        "w16_dtype": w16.dtype.name,
        "names": [a.name, b.name, c.name, d.name, s.name, nv.name, iv.name, loc.name],
        "op_names": [op_in_reentered.name, nop.name],
        "same": [a_again is a],
        "reg_names": [r.name for r in reg_losses],
        "part_names": sorted(v.name for v in tf.global_variables() if v.name.startswith("part/")),
        "tmpl_vars": [v.name for v in tf.trainable_variables() if v.name.startswith("tmpl")],
        "n_local": len(tf.local_variables()),
        "scope_attrs": [reg_scope.name, reg_scope.original_name_scope],
    }

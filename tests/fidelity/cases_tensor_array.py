"""TensorArray, map_fn, scan, foldl and foldr as a TF1 program observes them: values, static shapes, op types and
names, the errors of misuse, and gradients."""

import numpy as np

from tests.fidelity.harness import case

# --- straight-line TensorArray -----------------------------------------------------------------------------------


@case
def ta_write_read_stack(tf, sess):
    ta = tf.TensorArray(tf.float32, size=3)
    ta = ta.write(0, [1.0, 2.0]).write(1, [3.0, 4.0]).write(2, [5.0, 6.0])
    r = ta.read(1)
    return [sess.run(r), r.shape, ta.flow.dtype, ta.dtype, ta.element_shape, ta.size()]


@case
def ta_stack_shape_and_names(tf, sess):
    ta = tf.TensorArray(tf.float32, size=3, name="foo")
    ta2 = ta.write(0, 1.0).write(1, 2.0).write(2, 3.0)
    s = ta2.stack()
    return [sess.run(s), s.shape, ta.flow.name, ta2.flow.name, s.name, s.op.type, ta.handle.op.type, ta.handle.name]


@case
def ta_unstack_and_concat(tf, sess):
    ta = tf.TensorArray(tf.float32, size=3, clear_after_read=False).unstack([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    return [sess.run(ta.concat()), sess.run(ta.read(2)), sess.run(ta.stack())]


@case
def ta_split_variable_lengths(tf, sess):
    ta = tf.TensorArray(tf.float32, size=3, infer_shape=False).split([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1, 3, 2])
    return [sess.run(ta.read(1)), sess.run(ta.read(2))]


@case
def ta_scatter_gather(tf, sess):
    ta = tf.TensorArray(tf.float32, size=4, element_shape=[2]).scatter([3, 1], [[1.0, 2.0], [3.0, 4.0]])
    g = ta.gather([1, 3, 0])
    return [sess.run(g), g.shape]


@case
def ta_dynamic_size_grows(tf, sess):
    ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
    ta = ta.write(0, 7).write(4, 9)
    return sess.run([ta.size(), ta.stack()])


@case
def ta_unwritten_read_is_zeros_when_shape_known(tf, sess):
    ta = tf.TensorArray(tf.float32, size=3, element_shape=[2]).write(0, [1.0, 2.0])
    return sess.run(ta.read(1))


@case
def ta_empty_stack_with_element_shape(tf, sess):
    return sess.run(tf.TensorArray(tf.float32, size=0, element_shape=[2]).stack())


@case
def ta_identity_and_close(tf, sess):
    ta = tf.TensorArray(tf.float32, size=1).write(0, 3.0)
    ta2 = ta.identity()
    c = ta2.close()
    return [sess.run(ta2.read(0)), c.type, ta2.flow.op.type]


@case
def ta_int64_and_string(tf, sess):
    a = tf.TensorArray(tf.int64, size=2).unstack(np.array([5, 6], np.int64))
    s = tf.TensorArray(tf.string, size=2).write(0, "a").write(1, "bc")
    return [sess.run(a.stack()), sess.run(s.stack())]


# --- errors ------------------------------------------------------------------------------------------------------


@case
def ta_error_read_unwritten_unknown_shape(tf, sess):
    ta = tf.TensorArray(tf.float32, size=3, infer_shape=False).write(0, [1.0, 2.0])
    return sess.run(ta.read(1))


@case
def ta_error_write_twice(tf, sess):
    ta = tf.TensorArray(tf.float32, size=3).write(0, 1.0).write(0, 2.0)
    return sess.run(ta.flow)


@case
def ta_error_read_twice(tf, sess):
    ta = tf.TensorArray(tf.float32, size=1).write(0, 1.0)
    a = ta.read(0)
    with tf.control_dependencies([a]):
        b = ta.read(0)
    return sess.run(b)


@case
def ta_error_write_out_of_range(tf, sess):
    return sess.run(tf.TensorArray(tf.float32, size=3).write(5, 1.0).flow)


@case
def ta_error_read_out_of_range(tf, sess):
    return sess.run(tf.TensorArray(tf.float32, size=3).write(0, 1.0).read(4))


@case
def ta_error_shape_mismatch_at_run_time(tf, sess):
    p = tf.placeholder(tf.float32)
    ta = tf.TensorArray(tf.float32, size=3).write(0, [1.0, 2.0]).write(1, p)
    return sess.run(ta.flow, {p: [1.0, 2.0, 3.0]})


@case
def ta_error_shape_mismatch_at_build_time(tf, sess):
    tf.TensorArray(tf.float32, size=3).write(0, [1.0, 2.0]).write(1, [1.0, 2.0, 3.0])


@case
def ta_error_split_lengths(tf, sess):
    ta = tf.TensorArray(tf.float32, size=2).split([1.0, 2.0, 3.0, 4.0, 5.0], [2, 2])
    return sess.run(ta.flow)


@case
def ta_error_empty_stack_unknown_shape(tf, sess):
    return sess.run(tf.TensorArray(tf.float32, size=0).stack())


@case
def ta_error_constructor_arguments(tf, sess):
    out = []
    for kwargs in ({}, {"size": 1, "handle": tf.constant("x"), "flow": tf.constant(0.0)}):
        try:
            tf.TensorArray(tf.float32, **kwargs)
            out.append("ok")
        except ValueError:
            out.append("ValueError")
    return out


# --- gradients ---------------------------------------------------------------------------------------------------


@case
def ta_gradient_of_reads(tf, sess):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    ta = tf.TensorArray(tf.float32, size=3).unstack(x)
    y = ta.read(1) * 3.0 + ta.read(2) * ta.read(0)
    return sess.run(tf.gradients(y, x))


@case
def ta_gradient_of_write_stack(tf, sess):
    a = tf.constant([1.0, 2.0])
    ta = tf.TensorArray(tf.float32, size=2).write(0, a * a).write(1, tf.sin(a))
    return sess.run(tf.gradients(ta.stack(), a))


@case
def ta_gradient_of_split_concat(tf, sess):
    x = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0])
    ta = tf.TensorArray(tf.float32, size=2, infer_shape=False).split(x, [2, 3])
    y = ta.concat() * [1.0, 2.0, 3.0, 4.0, 5.0]
    return sess.run(tf.gradients(y, x))


@case
def ta_gradient_op_types(tf, sess):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    ta = tf.TensorArray(tf.float32, size=2).unstack(x)
    g = tf.gradients(ta.read(0), x)[0]
    types = {op.type for op in tf.get_default_graph().get_operations() if op.name.startswith("gradients")}
    return [sess.run(g), [t in types for t in ("TensorArrayGradV3", "TensorArrayWriteV3", "TensorArrayGatherV3")]]


# --- TensorArray in while_loop; map_fn, scan, foldl, foldr ---------------------------------------------------------


@case
def ta_in_while_loop_dynamic_size(tf, sess):
    n = tf.placeholder(tf.int32, [])
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    _, ta = tf.while_loop(lambda i, ta: i < n, lambda i, ta: (i + 1, ta.write(i, tf.cast(i * i, tf.float32))), [0, ta])
    s = ta.stack()
    return [sess.run(s, {n: 4}), s.shape, sess.run(ta.size(), {n: 3})]


@case
def ta_gradient_through_while_loop(tf, sess):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    inputs = tf.TensorArray(tf.float32, size=3).unstack(x)
    outputs = tf.TensorArray(tf.float32, size=3)

    def body(t, h, outputs):
        h = tf.tanh(h * 0.5 + inputs.read(t))
        return t + 1, h, outputs.write(t, h * h)

    _, h, outputs = tf.while_loop(lambda t, h, o: t < 3, body, [0, tf.zeros([2]), outputs])
    y = tf.reduce_sum(outputs.stack()) + tf.reduce_sum(h)
    return sess.run([y] + tf.gradients(y, x))


@case
def map_fn_values_and_shape(tf, sess):
    y = tf.map_fn(lambda r: r * r + 1.0, tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    return [sess.run(y), y.shape, y.dtype]


@case
def map_fn_nested_with_dtype(tf, sess):
    a = tf.constant([1, 2, 3])
    b = tf.constant([0.5, 1.5, 2.5])
    out = tf.map_fn(lambda t: (t[0] * 2, t[1] + tf.cast(t[0], tf.float32)), (a, b), dtype=(tf.int32, tf.float32))
    return sess.run(out)


@case
def map_fn_unknown_length(tf, sess):
    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.map_fn(lambda r: tf.reduce_sum(r), x)
    return [sess.run(y, {x: [[1.0, 2.0], [3.0, 4.0]]}), y.shape]


@case
def map_fn_error_scalar(tf, sess):
    tf.map_fn(lambda v: v, tf.constant(1.0))


@case
def map_fn_error_structure(tf, sess):
    tf.map_fn(lambda v: (v, v), tf.constant([1.0, 2.0]))


@case
def scan_forms(tf, sess):
    c = tf.constant([1.0, 2.0, 3.0, 4.0])
    s = tf.scan(lambda a, v: a + v, c)
    return sess.run(
        [
            s,
            tf.scan(lambda a, v: a * v, c, initializer=tf.constant(2.0)),
            tf.scan(lambda a, v: a + v, c, reverse=True),
            tf.scan(lambda a, v: (a[0] + v, a[1] * v), c, initializer=(tf.constant(0.0), tf.constant(1.0))),
        ]
    ) + [s.shape]


@case
def fold_forms(tf, sess):
    c = tf.constant([1.0, 2.0, 3.0, 4.0])
    return sess.run(
        [
            tf.foldl(lambda a, v: a * 10.0 + v, c),
            tf.foldr(lambda a, v: a * 10.0 + v, c),
            tf.foldl(lambda a, v: a - v, c, initializer=tf.constant(100.0)),
            tf.foldr(
                lambda a, v: (a[0] + v[0], a[1] - v[1] * a[0]), (c, c), initializer=(tf.constant(0.0), tf.constant(0.0))
            ),
        ]
    )


@case
def functional_gradients(tf, sess):
    x = tf.constant([[0.5, 1.0], [1.5, 2.0], [0.7, 0.9]])
    ys = [
        tf.reduce_sum(tf.map_fn(lambda r: tf.sin(r) * r, x)),
        tf.reduce_sum(tf.scan(lambda a, r: a * r + 1.0, x)),
        tf.reduce_sum(tf.foldl(lambda a, r: a * r, x)),
        tf.reduce_sum(tf.foldr(lambda a, r: a * tf.cos(r), x, initializer=tf.ones([2]))),
    ]
    return sess.run([tf.gradients(y, x)[0] for y in ys])


@case
def dynamic_rnn_of_unknown_length_runs_a_while_loop(tf, sess):
    x = tf.placeholder(tf.float32, [2, None, 3])
    cell = tf.nn.rnn_cell.BasicLSTMCell(4, name="lstm")
    outputs, state = tf.nn.dynamic_rnn(cell, x, sequence_length=[3, 1], dtype=tf.float32)
    loss = tf.reduce_sum(outputs) + tf.reduce_sum(state.h)
    variables = tf.global_variables()
    sess.run([v.initializer for v in variables])
    # The weights are fixed values (the random initializers draw different numbers from TF's).
    sess.run([v.assign(np.linspace(-0.5, 0.5, v.shape.num_elements()).reshape(v.shape.as_list())) for v in variables])
    data = np.linspace(-1.0, 1.0, 18).reshape(2, 3, 3).astype(np.float32)
    ops_in_loop = any(op.type == "TensorArrayReadV3" for op in tf.get_default_graph().get_operations())
    return [outputs.shape, sess.run([outputs, state, tf.gradients(loss, x)[0]], {x: data}), ops_in_loop]


@case(
    known_difference="a TensorArray's handle is a scalar string tensor naming the per-step array; TensorFlow's is "
    "a resource tensor (tensorweave has no resource dtype)"
)
def ta_handle_dtype(tf, sess):
    return tf.TensorArray(tf.float32, size=1).handle.dtype

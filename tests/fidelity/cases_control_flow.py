"""Dynamic control flow as a TF1 program observes it: cond, case, while_loop (values, names, structures, which
branch runs, errors) and their gradients."""

import numpy as np

from tests.fidelity.harness import case

# --- cond --------------------------------------------------------------------------------------------------------


@case
def cond_takes_each_branch(tf, sess):
    x = tf.placeholder(tf.float32, [])
    y = tf.cond(x > 0, lambda: x * 2.0, lambda: x - 1.0)
    return [sess.run(y, {x: 3.0}), sess.run(y, {x: -3.0}), y.name, y.op.type, y.shape]


@case
def cond_only_taken_branch_runs(tf, sess):
    v = tf.Variable(0.0)
    p = tf.placeholder(tf.bool, [])
    r = tf.cond(p, lambda: tf.assign_add(v, 1.0), lambda: tf.assign_add(v, 10.0))
    sess.run(tf.global_variables_initializer())
    seen = [sess.run(r, {p: True}), sess.run(r, {p: True}), sess.run(r, {p: False})]
    return seen + [sess.run(v)]


@case
def cond_nested_structures(tf, sess):
    p = tf.placeholder(tf.bool, [])
    x = tf.constant([1.0, 2.0])
    r = tf.cond(
        p,
        lambda: {"a": x * 2.0, "b": (x + 1.0, tf.constant(7))},
        lambda: {"a": x * 3.0, "b": (x - 1.0, tf.constant(8))},
    )
    return [sess.run(r, {p: True}), sess.run(r, {p: False}), sorted(r), r["b"][1].name]


@case
def cond_singleton_unpacked_unless_strict(tf, sess):
    p = tf.constant(True)
    a = tf.cond(p, lambda: [tf.constant(1.0)], lambda: [tf.constant(2.0)])
    b = tf.cond(p, lambda: [tf.constant(1.0)], lambda: [tf.constant(2.0)], strict=True)
    return [isinstance(a, list), isinstance(b, list), len(b), sess.run(a), sess.run(b)]


@case
def cond_branch_returns_op(tf, sess):
    v = tf.Variable(1.0)
    p = tf.placeholder(tf.bool, [])
    r = tf.cond(p, lambda: tf.assign(v, 5.0).op, lambda: tf.no_op())
    sess.run(tf.global_variables_initializer())
    sess.run(r, {p: False})
    first = sess.run(v)
    sess.run(r, {p: True})
    return [r.dtype, first, sess.run(v)]


@case
def cond_old_fn1_fn2_keywords(tf, sess):
    return tf.cond(tf.constant(False), fn1=lambda: tf.constant(1), fn2=lambda: tf.constant(2))


@case
def cond_nested(tf, sess):
    x = tf.placeholder(tf.int32, [])
    y = tf.cond(
        x > 0,
        lambda: tf.cond(x > 10, lambda: x * 100, lambda: x * 10),
        lambda: tf.cond(x < -10, lambda: x - 100, lambda: x - 10),
    )
    return [sess.run(y, {x: v}) for v in (20, 5, -5, -20)]


@case
def cond_different_structures(tf, sess):
    return tf.cond(tf.constant(True), lambda: (tf.constant(1.0), tf.constant(2.0)), lambda: tf.constant(1.0))


@case
def cond_different_sequence_types(tf, sess):
    return tf.cond(
        tf.constant(True),
        lambda: (tf.constant(1.0), tf.constant(2.0)),
        lambda: [tf.constant(1.0), tf.constant(2.0)],
    )


@case
def cond_different_dict_keys(tf, sess):
    return tf.cond(tf.constant(True), lambda: {"a": tf.constant(1.0)}, lambda: {"b": tf.constant(1.0)})


@case
def cond_different_dtypes(tf, sess):
    return tf.cond(tf.constant(True), lambda: tf.constant(1.0), lambda: tf.constant(1))


@case
def cond_python_bool_pred(tf, sess):
    return tf.cond(True, lambda: tf.constant(1.0), lambda: tf.constant(2.0))


@case
def cond_non_callable(tf, sess):
    return tf.cond(tf.constant(True), 1.0, lambda: tf.constant(2.0))


@case
def cond_missing_false_fn(tf, sess):
    return tf.cond(tf.constant(True), lambda: tf.constant(1.0))


@case
def cond_branch_returns_none(tf, sess):
    return tf.cond(tf.constant(True), lambda: None, lambda: None)


@case
def cond_int_pred(tf, sess):
    return tf.cond(tf.constant(1), lambda: tf.constant(1.0), lambda: tf.constant(2.0))


@case
def cond_graph_op_names(tf, sess):
    x = tf.placeholder(tf.float32, [], name="x")
    tf.cond(x > 0, lambda: x * 2.0, lambda: tf.constant(3.0))
    return sorted((op.name, op.type) for op in tf.get_default_graph().get_operations())


# --- case --------------------------------------------------------------------------------------------------------


@case
def case_list_with_default(tf, sess):
    x = tf.placeholder(tf.int32, [])
    y = tf.case([(x < 0, lambda: tf.constant(-1)), (x > 0, lambda: tf.constant(1))], default=lambda: tf.constant(0))
    return [sess.run(y, {x: v}) for v in (-3, 0, 4)] + [y.name]


@case
def case_first_true_wins(tf, sess):
    x = tf.placeholder(tf.int32, [])
    y = tf.case([(x > 0, lambda: tf.constant(1)), (x > 5, lambda: tf.constant(5))], default=lambda: tf.constant(0))
    return sess.run(y, {x: 10})


@case
def case_dict_exclusive(tf, sess):
    x = tf.placeholder(tf.int32, [])
    y = tf.case(
        {tf.less(x, 0, name="neg"): lambda: tf.constant(-1), tf.greater(x, 0, name="pos"): lambda: tf.constant(1)},
        default=lambda: tf.constant(0),
        exclusive=True,
    )
    return [sess.run(y, {x: v}) for v in (-3, 0, 4)]


@case
def case_no_default_none_true(tf, sess):
    x = tf.placeholder(tf.int32, [])
    y = tf.case([(x > 0, lambda: tf.constant(1)), (x > 5, lambda: tf.constant(5))])
    return sess.run(y, {x: -1})


@case
def case_no_default(tf, sess):
    x = tf.placeholder(tf.int32, [])
    y = tf.case([(x > 0, lambda: tf.constant(1)), (x < 0, lambda: tf.constant(5))])
    return [sess.run(y, {x: 3}), sess.run(y, {x: -3})]


@case
def case_python_bool_pred(tf, sess):
    return tf.case([(True, lambda: tf.constant(1.0))])


@case
def case_not_pairs(tf, sess):
    return tf.case([tf.constant(True)])


@case
def switch_case_values(tf, sess):
    i = tf.placeholder(tf.int32, [])
    a = tf.switch_case(i, [lambda: tf.constant(10), lambda: tf.constant(20)], default=lambda: tf.constant(-1))
    b = tf.switch_case(i, {1: lambda: tf.constant(2.0), 0: lambda: tf.constant(1.0)})
    return [[sess.run(a, {i: v}) for v in (0, 1, 2, -3)], [sess.run(b, {i: v}) for v in (0, 1, 9)]]


@case
def switch_case_keys_not_a_range(tf, sess):
    return tf.switch_case(tf.constant(0), {0: lambda: tf.constant(1), 2: lambda: tf.constant(2)})


@case
def switch_case_float_index(tf, sess):
    return tf.switch_case(tf.constant(1.0), [lambda: tf.constant(1)])


# --- while_loop --------------------------------------------------------------------------------------------------


@case
def while_counts(tf, sess):
    i = tf.while_loop(lambda i: i < 10, lambda i: i + 1, [tf.constant(0)])
    return [i, i.name, i.op.type]


@case
def while_two_vars(tf, sess):
    x = tf.placeholder(tf.float32, [])
    i, a = tf.while_loop(lambda i, a: i < 5, lambda i, a: (i + 1, a * x), [tf.constant(0), tf.constant(1.0)])
    return [sess.run([i, a], {x: 2.0}), i.name, a.name]


@case
def while_nested_structure(tf, sess):
    def body(i, s):
        return i + 1, {"sum": s["sum"] + tf.cast(i, tf.float32), "pair": (s["pair"][0] * 2, s["pair"][1] - 1)}

    r = tf.while_loop(
        lambda i, s: i < 4,
        body,
        [tf.constant(0), {"sum": tf.constant(0.0), "pair": (tf.constant(1), tf.constant(10))}],
    )
    return r


@case
def while_nested_loops(tf, sess):
    def outer_body(i, total):
        inner = tf.while_loop(lambda j, t: j < i, lambda j, t: (j + 1, t + j), [tf.constant(0), total])[1]
        return i + 1, inner

    return tf.while_loop(lambda i, t: i < 5, outer_body, [tf.constant(0), tf.constant(0)])


@case
def while_cond_in_body(tf, sess):
    def body(i, acc):
        return i + 1, tf.cond(tf.equal(i % 2, 0), lambda: acc + i, lambda: acc - 1)

    return tf.while_loop(lambda i, acc: i < 7, body, [tf.constant(0), tf.constant(0)])


@case
def while_in_cond(tf, sess):
    p = tf.placeholder(tf.bool, [])
    r = tf.cond(
        p,
        lambda: tf.while_loop(lambda i: i < 10, lambda i: i + 3, [tf.constant(0)]),
        lambda: tf.constant(-1),
    )
    return [sess.run(r, {p: True}), sess.run(r, {p: False})]


@case
def while_shape_invariant(tf, sess):
    i = tf.constant(0)
    x = tf.constant([1.0])
    r = tf.while_loop(
        lambda i, x: i < 3,
        lambda i, x: (i + 1, tf.concat([x, x], 0)),
        [i, x],
        shape_invariants=[i.shape, tf.TensorShape([None])],
    )
    return [r[1], r[1].shape]


@case
def while_shape_changes_without_invariant(tf, sess):
    x = tf.constant([1.0], name="growing")
    return tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, tf.concat([x, x], 0)), [tf.constant(0), x])


@case
def while_invariant_incompatible_with_input(tf, sess):
    x = tf.constant([1.0, 2.0])
    return tf.while_loop(lambda x: tf.reduce_sum(x) < 3, lambda x: x * 2, [x], shape_invariants=[tf.TensorShape([3])])


@case
def while_maximum_iterations(tf, sess):
    r = tf.while_loop(lambda i: i < 100, lambda i: i + 1, [tf.constant(0)], maximum_iterations=7)
    return [r, r.name]


@case
def while_body_returns_wrong_number(tf, sess):
    return tf.while_loop(lambda i: i < 3, lambda i: (i + 1, i), [tf.constant(0)])


@case
def while_cond_not_callable(tf, sess):
    return tf.while_loop(1, lambda i: i, [tf.constant(0)])


@case
def while_no_loop_vars(tf, sess):
    return tf.while_loop(lambda: True, lambda: 1, [])


@case
def while_return_same_structure(tf, sess):
    r = tf.while_loop(lambda i: i < 3, lambda i: [i + 1], [tf.constant(0)], return_same_structure=True)
    return [type(r).__name__, r]


@case
def while_reads_outside_tensor_and_variable(tf, sess):
    v = tf.Variable(3.0)
    c = tf.constant(2.0)
    r = tf.while_loop(lambda i, a: i < 4, lambda i, a: (i + 1, a * c + v), [tf.constant(0), tf.constant(1.0)])
    sess.run(tf.global_variables_initializer())
    return sess.run(r)


@case
def while_assigns_each_iteration(tf, sess):
    v = tf.Variable(0)

    def body(i):
        with tf.control_dependencies([tf.assign_add(v, i)]):
            return i + 1

    r = tf.while_loop(lambda i: i < 5, body, [tf.constant(0)])
    sess.run(tf.global_variables_initializer())
    return [sess.run(r), sess.run(v)]


@case
def while_graph_op_names(tf, sess):
    x = tf.placeholder(tf.float32, [], name="x")
    tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x + 1.0), [tf.constant(0), tf.constant(1.0)])
    return sorted(
        (op.name, op.type) for op in tf.get_default_graph().get_operations() if op.type not in ("Add", "AddV2")
    )


# --- gradients ---------------------------------------------------------------------------------------------------


@case(tol=1e-5)
def grad_through_cond(tf, sess):
    x = tf.placeholder(tf.float32, [])
    y = tf.cond(x > 1.0, lambda: x * x * x, lambda: tf.sin(x))
    (g,) = tf.gradients(y, [x])
    return [sess.run(g, {x: 2.0}), sess.run(g, {x: 0.5})]


@case(tol=1e-5)
def grad_through_cond_outside_value(tf, sess):
    x = tf.placeholder(tf.float32, [])
    w = tf.constant(3.0)
    y = tf.cond(x > 0.0, lambda: x * w, lambda: w)
    return [sess.run(tf.gradients(y, [x, w]), {x: v}) for v in (1.0, -1.0)]


@case(tol=1e-5)
def grad_through_while_power(tf, sess):
    x = tf.placeholder(tf.float32, [])
    _, y = tf.while_loop(lambda i, a: i < 4, lambda i, a: (i + 1, a * x), [tf.constant(0), tf.constant(1.0)])
    (g,) = tf.gradients(y, [x])
    return sess.run([y, g], {x: 1.5})


@case(tol=1e-5)
def grad_through_while_loop_var(tf, sess):
    x = tf.placeholder(tf.float32, [2])
    y = tf.while_loop(lambda v: tf.reduce_sum(v) < 50.0, lambda v: v * v + 1.0, [x])
    (g,) = tf.gradients(tf.reduce_sum(y), [x])
    return sess.run([y, g], {x: np.array([1.0, 2.0], np.float32)})


@case(tol=1e-5)
def grad_through_cond_in_while(tf, sess):
    x = tf.placeholder(tf.float32, [])

    def body(i, a):
        return i + 1, tf.cond(tf.equal(i % 2, 0), lambda: a * x, lambda: a + x)

    _, y = tf.while_loop(lambda i, a: i < 5, body, [tf.constant(0), tf.constant(1.0)])
    (g,) = tf.gradients(y, [x])
    return sess.run([y, g], {x: 1.3})

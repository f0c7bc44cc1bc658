"""cond, case and while_loop: the graph they build (TF1's structure), what runs, their results against numpy,
their errors, and their gradients against central differences."""

import numpy as np
import pytest
import tensorweave as tw
from tensorweave._src.ops import control_flow_ops


def _ops_of_type(graph, op_type):
    return [op for op in graph.get_operations() if op.type == op_type]


# --- the graph built -----------------------------------------------------------------------------------------------


def test_cond_routes_outside_values_through_switch_and_pivots_constants():
    g = tw.Graph()
    with g.as_default():
        x = tw.placeholder(tw.float32, [], name="x")
        y = tw.cond(x > 0, lambda: x * 2.0, lambda: tw.constant(3.0))
    mul = g.get_operation_by_name("cond/mul")
    switch = mul.inputs[0].op
    assert switch.type == "Switch" and switch.name == "cond/mul/Switch"
    assert mul.inputs[0].value_index == 1  # the true branch's output
    assert switch.inputs[0] is x and switch.inputs[1].op.name == "cond/pred_id"
    # A constant in a branch runs only when its branch is taken: a control input from the branch's pivot.
    assert [c.name for c in g.get_operation_by_name("cond/mul/y").control_inputs] == ["cond/switch_t"]
    assert [c.name for c in g.get_operation_by_name("cond/Const").control_inputs] == ["cond/switch_f"]
    assert y.op.type == "Merge" and [t.name for t in y.op.inputs] == ["cond/Const:0", "cond/mul:0"]


def test_while_loop_structure_enters_invariants_and_pivots_constants():
    g = tw.Graph()
    with g.as_default():
        x = tw.placeholder(tw.float32, [], name="x")
        i, a = tw.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x), [tw.constant(0), tw.constant(1.0)])
    assert (i.name, a.name) == ("while/Exit:0", "while/Exit_1:0")
    merge = g.get_operation_by_name("while/Merge")
    assert [t.op.type for t in merge.inputs] == ["Enter", "NextIteration"]
    enter = merge.inputs[0].op
    assert enter.get_attr("frame_name") == b"while/while_context" and not enter.get_attr("is_constant")
    invariant = g.get_operation_by_name("while/mul").inputs[1].op
    assert invariant.type == "Enter" and invariant.name == "while/mul/Enter"
    assert invariant.inputs[0] is x and invariant.get_attr("is_constant")
    assert [c.name for c in g.get_operation_by_name("while/Less/y").control_inputs] == ["while/Merge"]
    assert [c.name for c in g.get_operation_by_name("while/add/y").control_inputs] == ["while/Identity"]
    assert g.get_operation_by_name("while/LoopCond").inputs[0].op.name == "while/Less"


def test_control_dependency_on_an_outside_op_goes_through_the_frame():
    g = tw.Graph()
    with g.as_default():
        outside = tw.constant(5.0, name="outside")

        def body(i):
            with tw.control_dependencies([outside]):
                return i + 1

        tw.while_loop(lambda i: i < 3, body, [tw.constant(0)])
    # As TF: the block's first op (the constant add/y) carries the dependency; the add reading it is dominated.
    assert g.get_operation_by_name("while/add").control_inputs == []
    const = g.get_operation_by_name("while/add/y")
    pivot, carried = const.control_inputs
    assert pivot.name == "while/Identity" and carried.type == "Identity" and carried.inputs[0].op.type == "Enter"
    assert carried.inputs[0].op.inputs[0] is outside


def test_nested_while_loops_enter_through_each_frame():
    g = tw.Graph()
    with g.as_default():
        x = tw.constant(2.0, name="x")

        def outer(i, a):
            return i + 1, tw.while_loop(lambda j, b: j < 2, lambda j, b: (j + 1, b * x), [0, a])[1]

        tw.while_loop(lambda i, a: i < 2, outer, [0, 1.0])
    mul = g.get_operation_by_name("while/while/mul")
    inner_enter = mul.inputs[1].op
    assert inner_enter.type == "Enter" and inner_enter.get_attr("frame_name") == b"while/while/while_context"
    outer_enter = inner_enter.inputs[0].op
    assert outer_enter.type == "Enter" and outer_enter.get_attr("frame_name") == b"while/while_context"
    assert outer_enter.inputs[0] is x


# --- values ------------------------------------------------------------------------------------------------------


def test_cond_values_and_only_the_taken_branch_runs():
    with tw.Graph().as_default(), tw.Session() as sess:
        v = tw.Variable(0.0)
        p = tw.placeholder(tw.bool, [])
        r = tw.cond(p, lambda: tw.assign_add(v, 1.0), lambda: tw.assign_add(v, 100.0))
        sess.run(tw.global_variables_initializer())
        assert sess.run(r, {p: True}) == 1.0
        assert sess.run(r, {p: False}) == 101.0
        assert sess.run(v) == 101.0


def test_cond_nested_structures_and_numpy():
    rng = np.random.default_rng(0)
    data = rng.normal(size=(3, 4)).astype(np.float32)
    with tw.Graph().as_default(), tw.Session() as sess:
        x = tw.placeholder(tw.float32, [3, 4])
        p = tw.placeholder(tw.bool, [])
        r = tw.cond(
            p,
            lambda: (tw.reduce_sum(x, 0), {"m": tw.matmul(x, x, transpose_b=True)}),
            lambda: (tw.reduce_max(x, 0), {"m": tw.zeros([3, 3])}),
        )
        t = sess.run(r, {x: data, p: True})
        f = sess.run(r, {x: data, p: False})
    np.testing.assert_allclose(t[0], data.sum(0), rtol=1e-5)
    np.testing.assert_allclose(t[1]["m"], data @ data.T, rtol=1e-5)
    np.testing.assert_allclose(f[0], data.max(0))
    np.testing.assert_array_equal(f[1]["m"], np.zeros((3, 3)))


def test_case_picks_the_first_true_predicate():
    with tw.Graph().as_default(), tw.Session() as sess:
        x = tw.placeholder(tw.int32, [])
        y = tw.case(
            [(x < 0, lambda: tw.constant(-1)), (x > 10, lambda: tw.constant(10)), (x > 0, lambda: tw.constant(1))],
            default=lambda: tw.constant(0),
        )
        assert [sess.run(y, {x: v}) for v in (-4, 0, 5, 50)] == [-1, 0, 1, 10]


def test_while_loop_fibonacci_against_python():
    with tw.Graph().as_default(), tw.Session() as sess:
        n = tw.placeholder(tw.int32, [])
        _, a, _ = tw.while_loop(lambda i, a, b: i < n, lambda i, a, b: (i + 1, b, a + b), [0, 0, 1])
        for count in (0, 1, 10, 30):
            x, y = 0, 1
            for _ in range(count):
                x, y = y, x + y
            assert sess.run(a, {n: count}) == x


def test_while_loop_nested_with_cond_and_maximum_iterations():
    with tw.Graph().as_default(), tw.Session() as sess:

        def outer(i, total):
            inner = tw.while_loop(lambda j, t: j < i, lambda j, t: (j + 1, t + j * i), [0, total])[1]
            return i + 1, tw.cond(tw.equal(i % 3, 0), lambda: inner * 2, lambda: inner)

        r = tw.while_loop(lambda i, t: i < 100, outer, (0, 0), maximum_iterations=6)
        total = 0
        for i in range(6):
            total += sum(j * i for j in range(i))
            total = total * 2 if i % 3 == 0 else total
        assert sess.run(r)[1] == total


def test_while_loop_shape_invariants_let_a_shape_grow():
    with tw.Graph().as_default(), tw.Session() as sess:
        x = tw.constant([[1.0, 2.0]])
        _, r = tw.while_loop(
            lambda i, x: i < 3,
            lambda i, x: (i + 1, tw.concat([x, x + 1.0], 0)),
            [0, x],
            shape_invariants=[tw.TensorShape([]), tw.TensorShape([None, 2])],
        )
        assert r.shape.as_list() == [None, 2]
        out = sess.run(r)
    expected = np.array([[1.0, 2.0]])
    for _ in range(3):
        expected = np.concatenate([expected, expected + 1.0])
    np.testing.assert_array_equal(out, expected)


def test_while_loop_runs_an_assign_once_per_iteration():
    with tw.Graph().as_default(), tw.Session() as sess:
        v = tw.Variable(0)

        def body(i):
            with tw.control_dependencies([tw.assign_add(v, i)]):
                return i + 1

        r = tw.while_loop(lambda i: i < 5, body, [0])
        sess.run(tw.global_variables_initializer())
        assert sess.run(r) == 5
        assert sess.run(v) == 0 + 1 + 2 + 3 + 4


# --- errors ------------------------------------------------------------------------------------------------------


def test_cond_branches_with_different_structures():
    with tw.Graph().as_default():
        p = tw.constant(True)
        with pytest.raises(ValueError, match="same nested structure"):
            tw.cond(p, lambda: (tw.constant(1.0), tw.constant(2.0)), lambda: tw.constant(1.0))
        with pytest.raises(TypeError, match="same nested structure"):
            tw.cond(p, lambda: (tw.constant(1.0),) * 2, lambda: [tw.constant(1.0)] * 2)
        with pytest.raises(ValueError, match="same type"):
            tw.cond(p, lambda: tw.constant(1.0), lambda: tw.constant(1))
        with pytest.raises(TypeError, match="Python bool"):
            tw.cond(True, lambda: 1.0, lambda: 2.0)


def test_while_loop_shape_change_names_the_loop_variable():
    with tw.Graph().as_default():
        x = tw.constant([1.0], name="growing")
        with pytest.raises(ValueError, match="'growing:0' enters the loop with shape \\(1,\\), but has shape \\(2,\\)"):
            tw.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, tw.concat([x, x], 0)), [0, x])


def test_while_loop_body_structure_and_dtype_errors():
    with tw.Graph().as_default():
        with pytest.raises(ValueError, match="same nested structure"):
            tw.while_loop(lambda i: i < 3, lambda i: (i + 1, i), [tw.constant(0)])
        with pytest.raises(TypeError, match="callable"):
            tw.while_loop(None, lambda i: i, [0])
        with pytest.raises(ValueError, match="loop_vars"):
            tw.while_loop(lambda: True, lambda: 1, [])


def test_case_without_default_asserts_some_predicate_holds():
    with tw.Graph().as_default(), tw.Session() as sess:
        x = tw.placeholder(tw.int32, [])
        y = tw.case([(x > 0, lambda: tw.constant(1)), (x < 0, lambda: tw.constant(2))])
        assert sess.run(y, {x: -1}) == 2
        with pytest.raises(tw.errors.InvalidArgumentError, match="None of conditions evaluated as True"):
            sess.run(y, {x: 0})


# --- gradients ---------------------------------------------------------------------------------------------------


def _central_difference(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for k in range(x.size):
        up, down = x.copy(), x.copy()
        up.flat[k] += eps
        down.flat[k] -= eps
        g.flat[k] = (f(up) - f(down)) / (2 * eps)
    return g


@pytest.mark.parametrize("value", [0.7, -0.7])
def test_gradient_through_cond_against_central_differences(value):
    with tw.Graph().as_default(), tw.Session() as sess:
        x = tw.placeholder(tw.float64, [2])
        w = tw.constant(np.array([1.5, -2.0]))
        y = tw.reduce_sum(tw.cond(tw.reduce_sum(x) > 0, lambda: x * x * w, lambda: tw.sin(x) + w))
        gx, gw = tw.gradients(y, [x, w])
        point = np.array([value, value / 2])
        got_x, got_w = sess.run([gx, gw], {x: point})
        np.testing.assert_allclose(got_x, _central_difference(lambda v: sess.run(y, {x: v}), point), rtol=1e-6)
        if value > 0:
            np.testing.assert_allclose(got_w, point * point)
        else:
            np.testing.assert_allclose(got_w, [1.0, 1.0])


def test_gradient_through_while_loop_against_central_differences():
    with tw.Graph().as_default(), tw.Session() as sess:
        x = tw.placeholder(tw.float64, [3])

        def body(i, a):
            return i + 1, tw.sin(a) * x + a

        _, y = tw.while_loop(lambda i, a: i < 5, body, [0, x])
        loss = tw.reduce_sum(y * y)
        (g,) = tw.gradients(loss, [x])
        point = np.array([0.3, -0.8, 1.1])
        got = sess.run(g, {x: point})
        np.testing.assert_allclose(
            got, _central_difference(lambda v: sess.run(loss, {x: v}), point), rtol=1e-6, atol=1e-8
        )


def test_gradient_through_nested_while_loops():
    with tw.Graph().as_default(), tw.Session() as sess:
        x = tw.placeholder(tw.float64, [2])

        def outer(i, a):
            inner = tw.while_loop(lambda j, b: j < 3, lambda j, b: (j + 1, b * x + 0.1), [0, a])[1]
            return i + 1, tw.tanh(inner)

        _, y = tw.while_loop(lambda i, a: i < 2, outer, [0, tw.ones_like(x)])
        loss = tw.reduce_sum(y)
        (g,) = tw.gradients(loss, [x])
        point = np.array([0.4, -0.9])
        np.testing.assert_allclose(
            sess.run(g, {x: point}), _central_difference(lambda v: sess.run(loss, {x: v}), point), rtol=1e-6
        )


def test_internal_helpers_keep_tf_structure_rules():
    assert control_flow_ops.flatten({"b": 1, "a": (2, [3])}) == [2, 3, 1]
    packed = control_flow_ops.pack_sequence_as({"b": 0, "a": (0, [0])}, [7, 8, 9])
    assert packed == {"b": 9, "a": (7, [8])}


def test_references_enter_control_flow_as_references_and_carry_no_gradient():
    from tensorweave._src.ops import gen_ops, gradients_impl

    g = tw.Graph()
    with g.as_default(), tw.Session() as sess:
        v = tw.Variable(1.0)
        p = tw.placeholder(tw.bool, [])
        r = tw.cond(p, lambda: tw.assign(v, 5.0), lambda: tw.identity(v))
        counter = tw.Variable(0)

        def body(i):
            with tw.control_dependencies([tw.assign_add(counter, 1)]):
                return i + 1

        tw.while_loop(lambda i: i < 3, body, [0])
        types = {op.type for op in g.get_operations()}
        assert {"RefSwitch", "RefEnter", "LoopCond"} <= types
        ref = v._ref() if hasattr(v, "_ref") else v._variable
        built = [
            g._create_op("RefMerge", [[ref, ref]], {"T": tw.float32.as_datatype_enum, "N": 2}),
            gen_ops.ref_exit(ref).op,
            gen_ops.ref_next_iteration(ref).op,
            control_flow_ops.control_trigger(),
        ]
        assert [op.type for op in built] == ["RefMerge", "RefExit", "RefNextIteration", "ControlTrigger"]
        for op_type in ("RefSwitch", "RefMerge", "RefEnter", "RefExit", "RefNextIteration", "ControlTrigger"):
            assert op_type in gradients_impl.registered_gradients()[1]
        sess.run(tw.global_variables_initializer())
        assert sess.run(r, {p: False}) == 1.0
        assert sess.run(r, {p: True}) == 5.0


def test_print_in_the_untaken_branch_prints_nothing(capfd):
    with tw.Graph().as_default(), tw.Session() as sess:
        x = tw.placeholder(tw.float32, [])
        y = tw.cond(
            x > 0,
            lambda: tw.Print(x, [x], message="TAKEN-TRUE "),
            lambda: tw.Print(-x, [x], message="TAKEN-FALSE "),
        )
        assert sess.run(y, {x: 2.0}) == 2.0
        out = capfd.readouterr()
        assert "TAKEN-TRUE" in out.err and "TAKEN-FALSE" not in out.err
        assert sess.run(y, {x: -3.0}) == 3.0
        out = capfd.readouterr()
        assert "TAKEN-FALSE" in out.err and "TAKEN-TRUE" not in out.err


def test_group_tuple_and_control_dependencies_inside_a_loop_body():
    with tw.Graph().as_default(), tw.Session() as sess:
        v = tw.Variable(0.0)
        w = tw.Variable(0.0)
        scale = tw.constant(2.0)

        def body(i, acc):
            step = tw.group(tw.assign_add(v, 1.0), tw.assign_add(w, scale))
            with tw.control_dependencies([step]):
                a, b = tw.tuple([acc + 1.0, tw.identity(scale)])
            return i + 1, a * b

        r = tw.while_loop(lambda i, acc: i < 4, body, [0, 0.0])
        sess.run(tw.global_variables_initializer())
        acc = 0.0
        for _ in range(4):
            acc = (acc + 1.0) * 2.0
        assert sess.run(r)[1] == acc
        assert sess.run([v, w]) == [4.0, 8.0]


def test_tensor_array_written_in_a_loop_and_its_gradient():
    rng = np.random.default_rng(1)
    data = rng.normal(size=(4, 3))
    with tw.Graph().as_default(), tw.Session() as sess:
        x = tw.placeholder(tw.float64, [4, 3])
        inputs = tw.TensorArray(tw.float64, size=4).unstack(x)

        def body(i, out, h):
            h = tw.tanh(inputs.read(i) + 0.5 * h)
            return i + 1, out.write(i, h), h

        _, out, _ = tw.while_loop(
            lambda i, *_: i < 4, body, [0, tw.TensorArray(tw.float64, size=4), tw.zeros([3], tw.float64)]
        )
        loss = tw.reduce_sum(out.stack() ** 2)
        (g,) = tw.gradients(loss, [x])
        h, expected = np.zeros(3), []
        for row in data:
            h = np.tanh(row + 0.5 * h)
            expected.append(h)
        np.testing.assert_allclose(sess.run(out.stack(), {x: data}), np.array(expected), rtol=1e-12)
        numeric = _central_difference(lambda v: sess.run(loss, {x: v}), data)
        np.testing.assert_allclose(sess.run(g, {x: data}), numeric, rtol=1e-6, atol=1e-8)


def test_while_gradients_unused_result_zero_iterations_and_unknown_shapes():
    rng = np.random.default_rng(2)
    with tw.Graph().as_default(), tw.Session() as sess:
        a0 = tw.placeholder(tw.float64, [])
        b0 = tw.placeholder(tw.float64, [])
        # Only `a` is asked for; `b` feeds it, so its Exit gets a zero gradient and its history is kept.
        _, a, _ = tw.while_loop(lambda i, a, b: i < 3, lambda i, a, b: (i + 1, a * b, b * b + 1.0), [0, a0, b0])
        ga, gb = tw.gradients(a, [a0, b0])
        point = np.array([1.3, 0.7])

        def f(p):
            return sess.run(a, {a0: p[0], b0: p[1]})

        np.testing.assert_allclose(sess.run([ga, gb], {a0: 1.3, b0: 0.7}), _central_difference(f, point), rtol=1e-6)
        # A loop that runs no iteration: the gradient is the identity.
        z = tw.while_loop(lambda x: x < 0.0, lambda x: x * 3.0, [a0])
        assert sess.run(tw.gradients(z, [a0]), {a0: 2.0}) == [1.0]
        # Shapes known only at run time: a loop-invariant matrix and a loop variable of unknown length.
        m = tw.placeholder(tw.float64, [None, None])
        v = tw.placeholder(tw.float64, [None])

        def body(i, v):
            return i + 1, tw.tanh(tw.reshape(tw.matmul(m, tw.reshape(v, [-1, 1])), [-1]))

        loss = tw.reduce_sum(tw.while_loop(lambda i, v: i < 3, body, [0, v])[1])
        gm, gv = tw.gradients(loss, [m, v])
        mv, vv = rng.normal(size=(3, 3)), rng.normal(size=3)
        got_m, got_v = sess.run([gm, gv], {m: mv, v: vv})
        np.testing.assert_allclose(got_m, _central_difference(lambda x: sess.run(loss, {m: x, v: vv}), mv), atol=1e-8)
        np.testing.assert_allclose(got_v, _central_difference(lambda x: sess.run(loss, {m: mv, v: x}), vv), atol=1e-8)


def test_cond_gradient_structure_switch_of_merge_and_merge_of_switch():
    g = tw.Graph()
    with g.as_default():
        x = tw.placeholder(tw.float32, [], name="x")
        y = tw.cond(x > 0, lambda: x * 3.0, lambda: x - 1.0)
        (dx,) = tw.gradients(y, [x])
    merge_grad = [op for op in g.get_operations() if op.name.startswith("gradients/cond/Merge_grad/")]
    (switch,) = [op for op in merge_grad if op.type == "Switch"]
    assert switch.name == "gradients/cond/Merge_grad/cond_grad" and switch.inputs[1].op.name == "cond/pred_id"
    # Each branch's Switch of x gets a Merge of its branch's gradient and zeros made only in the other branch.
    assert dx.op.type == "AddN"
    for summand in dx.op.inputs:
        assert summand.op.type == "Merge" and summand.op.name.endswith("cond_grad")


def test_gradient_of_cond_inside_while_against_central_differences():
    # The forward values pushed inside a branch are ordered through a ControlTrigger (TF's design).
    with tw.Graph().as_default(), tw.Session() as sess:
        x = tw.placeholder(tw.float64, [3])

        def body(i, a):
            return i + 1, tw.cond(tw.equal(i % 2, 0), lambda: a * x, lambda: a + tw.sin(x))

        loss = tw.reduce_sum(tw.while_loop(lambda i, a: i < 4, body, [0, x])[1])
        (g,) = tw.gradients(loss, [x])
        point = np.array([0.3, 0.6, 0.9])
        numeric = _central_difference(lambda v: sess.run(loss, {x: v}), point)
        np.testing.assert_allclose(sess.run(g, {x: point}), numeric, rtol=1e-6, atol=1e-8)


def test_a_graph_with_a_loop_round_trips_through_graph_def():
    g = tw.Graph()
    with g.as_default():
        x = tw.placeholder(tw.float32, [], name="x")
        r = tw.while_loop(lambda i, a: i < 4, lambda i, a: (i + 1, a * x), [0, 1.0])
        graph_def = g.as_graph_def()
    with tw.Graph().as_default() as h, tw.Session() as sess:
        tw.import_graph_def(graph_def, name="copy")
        merge = h.get_operation_by_name("copy/while/Merge_1")
        assert [t.op.type for t in merge.inputs] == ["Enter", "NextIteration"]
        out = h.get_tensor_by_name("copy/" + r[1].name)
        assert sess.run(out, {h.get_tensor_by_name("copy/x:0"): 1.5}) == np.float32(1.5**4)


def test_optimizer_trains_a_variable_read_inside_a_while_loop():
    # The update of a variable the loop reads directly (through an Enter):
    # a = w ** 3 after three iterations, d a / d w = 3 w ** 2 = 12 at w = 2.
    g = tw.Graph()
    with g.as_default():
        w = tw.Variable(2.0)
        _, a = tw.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * w), [tw.constant(0), tw.constant(1.0)])
        train = tw.train.GradientDescentOptimizer(0.01).minimize(a)
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            sess.run(train)
            np.testing.assert_allclose(sess.run(w), 2.0 - 0.01 * 12.0, rtol=1e-6)


def test_a_loop_that_never_ends_is_stopped_by_a_timeout_and_by_close():
    """Cancellation reaches a running loop, not only blocked kernels: a timed-out step ends with
    DeadlineExceededError and the session stays usable; Session.close() from another thread ends a
    step stuck in a loop with CancelledError."""
    import threading

    with tw.Graph().as_default():
        forever = tw.while_loop(lambda i: i >= 0, lambda i: i + 1, [tw.constant(0)])
        finite = tw.while_loop(lambda i: i < 5, lambda i: i + 1, [tw.constant(0)])
        sess = tw.Session()
        with pytest.raises(tw.errors.DeadlineExceededError):
            sess.run(forever, options=tw.RunOptions(timeout_in_ms=200))
        assert sess.run(finite) == 5
        errors = []

        def run_forever():
            try:
                sess.run(forever)
            except tw.errors.OpError as e:
                errors.append(e)

        thread = threading.Thread(target=run_forever)
        thread.start()
        thread.join(0.3)
        sess.close()
        thread.join(30)
        assert not thread.is_alive()
        assert len(errors) == 1 and isinstance(errors[0], tw.errors.CancelledError)


def test_an_error_cancels_a_kernel_blocked_in_the_same_step():
    """A failing node ends its step at once: a dequeue blocked in the same step is cancelled rather
    than left waiting for the step's timeout, and the error reported is the failing node's."""
    import time

    with tw.Graph().as_default():
        q = tw.FIFOQueue(2, tw.float32)
        bad = tw.check_numerics(tw.constant(np.nan), "found a NaN")
        with tw.Session() as sess:
            start = time.monotonic()
            with pytest.raises(tw.errors.InvalidArgumentError, match="found a NaN"):
                sess.run([q.dequeue(), bad], options=tw.RunOptions(timeout_in_ms=60000))
            assert time.monotonic() - start < 30
            sess.run(q.enqueue(1.0))
            assert sess.run(q.dequeue()) == 1.0

"""Loops and conds whose nodes are on several devices (device_count={"CPU": 2}): the partitioner gives every device
of a loop but its leader (the device of its LoopCond) a control loop that runs the frame's iterations there, the
predicate crosses devices once per iteration under keys that name the frame and iteration, and dead tensors cross
too, so a cond whose Switch and branches are on different devices runs only the taken branch. Oracles: the same
graph on one device, numpy, central differences and TensorFlow (tf.compat.v1 with two CPU devices)."""

import numpy as np
import pytest
import tensorweave as tw

CPU0, CPU1 = "/cpu:0", "/cpu:1"


def _config(n=2):
    return tw.ConfigProto(device_count={"CPU": n}, inter_op_parallelism_threads=4)


def _run(build, devices, fetches_of=None, feed=None, steps=1):
    """Builds `build(d0, d1)` with its two device names (both CPU:0 for the one-device oracle) and runs it."""
    g = tw.Graph()
    with g.as_default():
        out = build(*devices)
        init = tw.global_variables_initializer() if tw.global_variables() else None
    with tw.Session(graph=g, config=_config(2)) as sess:
        if init is not None:
            sess.run(init)
        results = [sess.run(out, feed(g) if feed else None) for _ in range(steps)]
    return results if steps > 1 else results[0]


def _partition_graphs(sess, fetches, feed_dict=None):
    md = tw.RunMetadata()
    sess.run(fetches, feed_dict, options=tw.RunOptions(output_partition_graphs=True), run_metadata=md)
    return {next(iter({n.device for n in part.node})): part for part in md.partition_graphs}


def _counting_loop(cond_device, body_device, parallel_iterations=10):
    n = tw.placeholder(tw.int32, [], name="n")

    def cond(i, acc):
        with tw.device(cond_device):
            return i < n

    def body(i, acc):
        with tw.device(body_device):
            return i + 1, acc * 0.5 + tw.cast(i, tw.float32)

    return n, tw.while_loop(cond, body, [0, 1.0], parallel_iterations=parallel_iterations)


@pytest.mark.parametrize("cond_device,body_device", [(CPU0, CPU1), (CPU1, CPU0)])
@pytest.mark.parametrize("parallel_iterations", [1, 10])
def test_while_loop_with_cond_and_body_on_different_devices(cond_device, body_device, parallel_iterations):
    g = tw.Graph()
    with g.as_default():
        n, (i, acc) = _counting_loop(cond_device, body_device, parallel_iterations)
    with tw.Session(graph=g, config=_config()) as sess:
        for limit in [0, 1, 7, 300]:
            expected = 1.0
            for k in range(limit):
                expected = np.float32(expected * np.float32(0.5) + np.float32(k))
            got_i, got_acc = sess.run([i, acc], {n: limit})
            assert got_i == limit
            assert got_acc == expected  # the same float32 operations in the same order
        parts = _partition_graphs(sess, acc, {n: 3})
    assert len(parts) == 2
    # The device without the LoopCond runs a control loop and receives the predicate each iteration.
    leader = [d for d, p in parts.items() if any(node.op == "LoopCond" for node in p.node)]
    (other,) = [p for d, p in parts.items() if d not in leader]
    ops = [node.op for node in other.node if "_cloop" in node.name]
    assert sorted(ops) == ["Const", "Enter", "Merge", "NextIteration", "Switch"]
    pred_recvs = [
        node for node in other.node if node.op == "_Recv" and node.attr["tensor_name"].s.endswith(b"LoopCond:0")
    ]
    assert len(pred_recvs) == 1
    assert any(inp.startswith("^") and "_cloop_merge" in inp for inp in pred_recvs[0].input)


def test_nested_loops_across_devices_match_one_device():
    def build(d0, d1):
        x = tw.constant([0.5, -1.5, 2.0])

        def outer_body(i, a):
            with tw.device(d1):
                inner = tw.while_loop(lambda j, b: j < i, lambda j, b: (j + 1, tw.sin(b) + a), [0, a])[1]
            with tw.device(d0):
                return i + 1, inner * 0.5 + tw.cast(i, tw.float32)

        with tw.device(d0):
            return tw.while_loop(lambda i, a: i < 6, outer_body, [0, x])[1]

    np.testing.assert_array_equal(_run(build, (CPU0, CPU1)), _run(build, (CPU0, CPU0)))


def test_inner_loop_leader_on_the_other_device():
    def build(d0, d1):
        def outer(i, total):
            with tw.device(d1):
                _, s = tw.while_loop(lambda j, s: j < i, lambda j, s: (j + 1, s + j), [0, 0])
            return i + 1, total + s

        with tw.device(d0):
            return tw.while_loop(lambda i, t: i < 12, outer, [0, 0])[1]

    assert _run(build, (CPU0, CPU1)) == sum(i * (i - 1) // 2 for i in range(12))


def test_loop_reads_a_variable_on_the_other_device_every_iteration():
    """The variable's value enters the loop on its own device (a RefEnter colocated with it): that device only
    sends inside the loop, and still runs every iteration (a control loop of its own)."""
    g = tw.Graph()
    with g.as_default():
        with tw.device(CPU1):
            v = tw.Variable([1.0, 2.0])
        n = tw.placeholder(tw.int32, [])
        with tw.device(CPU0):
            _, total = tw.while_loop(lambda i, acc: i < n, lambda i, acc: (i + 1, acc * 0.5 + v), [0, tw.zeros([2])])
        init = tw.global_variables_initializer()
    with tw.Session(graph=g, config=_config()) as sess:
        sess.run(init)
        for steps in [0, 1, 9]:
            expected = np.zeros(2, np.float32)
            for _ in range(steps):
                expected = expected * np.float32(0.5) + np.array([1.0, 2.0], np.float32)
            np.testing.assert_array_equal(sess.run(total, {n: steps}), expected)


def test_cond_across_devices_runs_only_the_taken_branch():
    g = tw.Graph()
    with g.as_default():
        p = tw.placeholder(tw.bool, [])
        with tw.device(CPU1):
            v = tw.Variable(10.0)
            w = tw.Variable(100.0)
        with tw.device(CPU0):
            x = tw.constant(3.0)

        def true_fn():
            with tw.device(CPU1):
                return tw.identity(tw.assign_add(v, x))

        def false_fn():
            with tw.device(CPU1):
                return tw.identity(tw.assign_sub(w, x))

        with tw.device(CPU0):
            out = tw.cond(p, true_fn, false_fn)
        init = tw.global_variables_initializer()
    with tw.Session(graph=g, config=_config()) as sess:
        sess.run(init)
        assert sess.run(out, {p: False}) == 97.0
        assert sess.run(out, {p: False}) == 94.0
        assert sess.run([v, w]) == [10.0, 94.0]
        assert sess.run(out, {p: True}) == 13.0
        assert sess.run([v, w]) == [13.0, 94.0]


def test_case_across_devices():
    g = tw.Graph()
    with g.as_default():
        k = tw.placeholder(tw.int32, [])
        with tw.device(CPU1):
            hits = tw.Variable([0, 0, 0])

        def branch(index, value):
            def fn():
                with tw.device(CPU1):
                    bump = tw.scatter_add(hits, [index], [1])
                with tw.device(CPU0), tw.control_dependencies([bump]):
                    return tw.constant(value)

            return fn

        with tw.device(CPU0):
            out = tw.case(
                [(tw.equal(k, 0), branch(0, 10.0)), (tw.equal(k, 1), branch(1, 20.0))], default=branch(2, 30.0)
            )
        init = tw.global_variables_initializer()
    with tw.Session(graph=g, config=_config()) as sess:
        sess.run(init)
        assert [sess.run(out, {k: v}) for v in [1, 0, 5, 1]] == [20.0, 10.0, 30.0, 20.0]
        np.testing.assert_array_equal(sess.run(hits), [1, 2, 1])


def test_tensor_array_in_a_cross_device_loop_and_its_gradient():
    data = np.random.default_rng(1).normal(size=(5, 3))

    def build(d0, d1):
        x = tw.placeholder(tw.float64, [5, 3], name="x")
        with tw.device(d0):
            inputs = tw.TensorArray(tw.float64, size=5).unstack(x)

        def body(i, out, h):
            with tw.device(d1):
                h = tw.tanh(inputs.read(i) + 0.5 * h)
            with tw.device(d0):
                return i + 1, out.write(i, h), h

        with tw.device(d0):
            _, out, _ = tw.while_loop(
                lambda i, *_: i < 5, body, [0, tw.TensorArray(tw.float64, size=5), tw.zeros([3], tw.float64)]
            )
            stacked = out.stack()
            loss = tw.reduce_sum(stacked**2)
        return stacked, tw.gradients(loss, [x])[0]

    def feed(g):
        return {g.get_tensor_by_name("x:0"): data}

    stacked, grad = _run(build, (CPU0, CPU1), feed=feed)
    one_stacked, one_grad = _run(build, (CPU0, CPU0), feed=feed)
    h, expected = np.zeros(3), []
    for row in data:
        h = np.tanh(row + 0.5 * h)
        expected.append(h)
    np.testing.assert_allclose(stacked, expected, rtol=1e-12)
    np.testing.assert_array_equal(stacked, one_stacked)
    np.testing.assert_array_equal(grad, one_grad)


def _central_difference(f, x, eps=1e-6):
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[idx] = eps
        grad[idx] = (f(x + d) - f(x - d)) / (2 * eps)
    return grad


def test_gradient_of_a_cross_device_loop_against_central_differences():
    g = tw.Graph()
    with g.as_default():
        x = tw.placeholder(tw.float64, [3])

        def body(i, a):
            with tw.device(CPU1):
                a = tw.sin(a) * x + a
            return i + 1, a

        with tw.device(CPU0):
            _, y = tw.while_loop(lambda i, a: i < 5, body, [0, x])
            loss = tw.reduce_sum(y * y)
            (grad,) = tw.gradients(loss, [x])
    point = np.array([0.3, -0.8, 1.1])
    with tw.Session(graph=g, config=_config()) as sess:
        got = sess.run(grad, {x: point})
        numeric = _central_difference(lambda v: sess.run(loss, {x: v}), point)
    np.testing.assert_allclose(got, numeric, rtol=1e-6, atol=1e-8)


def test_rnn_training_step_across_devices_matches_one_device():
    """A GRU whose cell runs on CPU:1 (DeviceWrapper) inside dynamic_rnn's loop on CPU:0, trained a few steps."""
    rng = np.random.default_rng(3)
    xs = rng.normal(size=(4, 6, 3)).astype(np.float32)
    ys = rng.normal(size=(4, 5)).astype(np.float32)

    def build(d0, d1):
        tw.set_random_seed(5)
        with tw.device(d0):
            x = tw.constant(xs)
            cell = tw.nn.rnn_cell.DeviceWrapper(tw.nn.rnn_cell.GRUCell(5), d1)
            _, state = tw.nn.dynamic_rnn(cell, x, dtype=tw.float32)
            loss = tw.reduce_mean((state - ys) ** 2)
            train = tw.train.GradientDescentOptimizer(0.1).minimize(loss)
            with tw.control_dependencies([train]):
                return tw.identity(loss)

    two = _run(build, (CPU0, CPU1), steps=5)
    one = _run(build, (CPU0, CPU0), steps=5)
    np.testing.assert_allclose(two, one, rtol=1e-6)
    assert two[-1] < two[0]


def test_cross_device_loop_matches_tensorflow():
    tf1 = pytest.importorskip("tensorflow.compat.v1")
    point = np.array([0.3, -0.8, 1.1])

    def build(api):
        x = api.placeholder(api.float64, [3])

        def body(i, a):
            with api.device(CPU1):
                a = api.sin(a) * x + a
            return i + 1, a

        with api.device(CPU0):
            _, y = api.while_loop(lambda i, a: i < 4, body, [0, x])
            loss = api.reduce_sum(y * y)
            (grad,) = api.gradients(loss, [x])
        return x, y, grad

    with tf1.Graph().as_default():
        x, y, grad = build(tf1)
        with tf1.Session(config=tf1.ConfigProto(device_count={"CPU": 2})) as sess:
            expected = sess.run([y, grad], {x: point})
    with tw.Graph().as_default():
        x, y, grad = build(tw)
        with tw.Session(config=_config()) as sess:
            got = sess.run([y, grad], {x: point})
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-12)
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-10)

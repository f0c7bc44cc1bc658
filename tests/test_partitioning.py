"""Steps across several CPU devices in one process (device_count={"CPU": n}): the training models give
bit-identical results on 1, 2 and 4 devices; each step's partition graphs have one Send/Recv pair per tensor and
destination device; a failing partition ends the step with its own node's error and leaves the session usable."""

import numpy as np
import pytest
import tensorweave as tw


def _config(n):
    return tw.ConfigProto(device_count={"CPU": n}, inter_op_parallelism_threads=4)


def _lenet(devices):
    """A small LeNet-style CNN whose layers are spread round-robin over `devices` CPU devices; returns
    (x, y, loss, train_op)."""
    x = tw.placeholder(tw.float32, [None, 8, 8, 1], name="x")
    y = tw.placeholder(tw.int64, [None], name="y")
    layers = [
        lambda h: tw.layers.conv2d(h, 4, 3, padding="same", activation=tw.nn.relu),
        lambda h: tw.layers.max_pooling2d(h, 2, 2),
        lambda h: tw.layers.conv2d(h, 8, 3, padding="same", activation=tw.nn.relu),
        lambda h: tw.reshape(h, [-1, 4 * 4 * 8]),
        lambda h: tw.layers.dense(h, 16, activation=tw.nn.tanh),
        lambda h: tw.layers.dense(h, 3),
    ]
    h = x
    for i, layer in enumerate(layers):
        with tw.device(f"/cpu:{i % devices}"):
            h = layer(h)
    loss = tw.reduce_mean(tw.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))
    train = tw.train.MomentumOptimizer(0.05, 0.9).minimize(loss)
    return x, y, loss, train


def _mlp(devices):
    """The MLP of benchmarks/train_step.py in small, trained with Adam, its layers on `devices` devices."""
    x = tw.placeholder(tw.float32, [None, 8, 8, 1], name="x")
    y = tw.placeholder(tw.int64, [None], name="y")
    with tw.device("/cpu:0"):
        h = tw.reshape(x, [-1, 64])
    for i, width in enumerate([32, 32, 3]):
        with tw.device(f"/cpu:{(i + 1) % devices}"):
            h = tw.layers.dense(h, width, activation=tw.nn.relu if width != 3 else None)
    with tw.device(f"/cpu:{3 % devices}"):
        loss = tw.losses.sparse_softmax_cross_entropy(labels=y, logits=h)
    train = tw.train.AdamOptimizer(0.01).minimize(loss)
    return x, y, loss, train


def _train(devices, make_model, steps=8):
    rng = np.random.RandomState(0)
    xs = rng.randn(16, 8, 8, 1).astype(np.float32)
    ys = rng.randint(0, 3, 16)
    g = tw.Graph()
    with g.as_default():
        tw.set_random_seed(7)
        x, y, loss, train = make_model(devices)
        init = tw.global_variables_initializer()
        variables = tw.global_variables()
    with tw.Session(graph=g, config=_config(devices)) as sess:
        sess.run(init)
        losses = [sess.run([loss, train], {x: xs, y: ys})[0] for _ in range(steps)]
        return losses, sess.run(variables)


@pytest.mark.parametrize("make_model", [_lenet, _mlp], ids=["lenet_momentum", "mlp_adam"])
def test_training_is_bit_identical_on_1_2_and_4_devices(make_model):
    base_losses, base_vars = _train(1, make_model)
    assert base_losses[-1] < base_losses[0]  # it trains
    for n in (2, 4):
        losses, values = _train(n, make_model)
        # float32 rounding: MatMul's small-matrix kernel sums in another order than the split products
        np.testing.assert_allclose(losses, base_losses, rtol=1e-5, err_msg=str(n))
        assert len(values) == len(base_vars)
        for a, b in zip(values, base_vars):
            assert a.dtype == b.dtype, n
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=str(n))


def _ops(graph_def, op):
    return [n for n in graph_def.node if n.op == op]


def test_partition_graphs_one_transfer_per_tensor_and_destination():
    g = tw.Graph()
    with g.as_default():
        with tw.device("/cpu:0"):
            a = tw.constant([1.0, 2.0], name="a")
        with tw.device("/cpu:1"):
            b = a * 2.0  # two consumers of `a` on CPU:1 ...
            c = a + b  # ... one transfer
        with tw.device("/cpu:0"):
            d = c - 1.0
    opts = tw.RunOptions(output_partition_graphs=True)
    md = tw.RunMetadata()
    with tw.Session(graph=g, config=_config(2)) as sess:
        out = sess.run(d, options=opts, run_metadata=md)
    np.testing.assert_array_equal(out, [2.0, 5.0])
    assert len(md.partition_graphs) == 2
    devices = {}
    for part in md.partition_graphs:
        (device,) = {n.device for n in part.node}
        devices[device] = part
    cpu0 = devices["/job:localhost/replica:0/task:0/device:CPU:0"]
    cpu1 = devices["/job:localhost/replica:0/task:0/device:CPU:1"]
    # a -> CPU:1 once, c -> CPU:0 once.
    assert len(_ops(cpu0, "_Send")) == 1 and len(_ops(cpu1, "_Recv")) == 1
    assert len(_ops(cpu1, "_Send")) == 1 and len(_ops(cpu0, "_Recv")) == 1
    send = _ops(cpu0, "_Send")[0]
    recv = _ops(cpu1, "_Recv")[0]
    for attr in ("tensor_name", "send_device", "recv_device", "send_device_incarnation"):
        assert send.attr[attr] == recv.attr[attr]
    assert recv.attr["recv_device"].s.decode().endswith("CPU:1")


def test_one_device_step_is_one_partition():
    g = tw.Graph()
    with g.as_default():
        x = tw.placeholder(tw.float32, [2])
        y = x * 3.0
    md = tw.RunMetadata()
    with tw.Session(graph=g, config=_config(4)) as sess:
        sess.run(y, {x: [1, 2]}, options=tw.RunOptions(output_partition_graphs=True), run_metadata=md)
    assert len(md.partition_graphs) == 1
    assert {n.device for n in md.partition_graphs[0].node} == {"/job:localhost/replica:0/task:0/device:CPU:0"}


def test_failing_partition_reports_its_node_and_the_session_goes_on():
    g = tw.Graph()
    with g.as_default():
        shape = tw.placeholder(tw.int32, [1], name="shape")
        with tw.device("/cpu:0"):
            bad = tw.reshape(tw.constant([1.0, 2.0, 3.0, 4.0]), shape, name="bad")
        with tw.device("/cpu:1"):
            waits = tw.negative(bad, name="waits")  # waits for CPU:0's value
            other = tw.constant(5.0) * 2.0
    with tw.Session(graph=g, config=_config(2)) as sess:
        for _ in range(3):
            with pytest.raises(tw.errors.InvalidArgumentError, match="bad"):
                sess.run([waits, other], {shape: [3]})
        got = sess.run([waits, other], {shape: [4]})
    np.testing.assert_array_equal(got[0], [-1.0, -2.0, -3.0, -4.0])
    assert got[1] == 10.0


def test_feeds_fetches_and_control_dependencies_across_devices():
    g = tw.Graph()
    with g.as_default():
        x = tw.placeholder(tw.float32, [3], name="x")
        with tw.device("/cpu:1"):
            v = tw.Variable(tw.zeros([3]), name="v")
            bump = tw.assign_add(v, x)
        with tw.device("/cpu:2"), tw.control_dependencies([bump]):
            after = tw.identity(x * 2.0)
        with tw.device("/cpu:3"):
            y = x + 1.0
        init = tw.global_variables_initializer()
    with tw.Session(graph=g, config=_config(4)) as sess:
        sess.run(init)
        for _ in range(2):
            out = sess.run([after, y, x], {x: [1.0, 2.0, 3.0]})
        np.testing.assert_array_equal(out[0], [2.0, 4.0, 6.0])
        np.testing.assert_array_equal(out[1], [2.0, 3.0, 4.0])
        np.testing.assert_array_equal(out[2], [1.0, 2.0, 3.0])
        np.testing.assert_array_equal(sess.run(v), [2.0, 4.0, 6.0])


def test_explicit_device_that_does_not_exist_is_an_error_naming_node_and_devices():
    g = tw.Graph()
    with g.as_default(), tw.device("/cpu:3"):
        y = tw.constant(1.0, name="lonely") + 1.0
    with tw.Session(graph=g, config=_config(2)) as sess, pytest.raises(tw.errors.InvalidArgumentError) as info:
        sess.run(y)
    msg = str(info.value)
    assert "lonely" in msg or "add" in msg
    assert "/device:CPU:3" in msg and "device:CPU:1" in msg
    with tw.Session(graph=g, config=tw.ConfigProto(device_count={"CPU": 2}, allow_soft_placement=True)) as sess:
        assert sess.run(y) == 2.0

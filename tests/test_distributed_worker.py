"""The C++ worker runtime through its bindings (`_pywrap_tensorweave.WorkerEnv`, `partition_for_cluster`), without
gRPC: two WorkerEnvs (a ps task and a worker task) in this process, wired by a Python transport that delivers on
another thread (as a gRPC completion would). Results are checked against a local Session running the same graph;
aborts, stale and malformed deliveries, and registration errors against their error classes."""

import concurrent.futures
import contextlib
import threading
import time

import numpy as np
import pytest
import tensorweave as tw
from tensorweave import _pywrap_tensorweave as pw

PS = "/job:ps/replica:0/task:0"
WORKER = "/job:worker/replica:0/task:0"
FLOAT = tw.float32.as_datatype_enum


class Cluster:
    """A ps and a worker WorkerEnv; `transport` pushes each sent value to its task on a pool thread."""

    def __init__(self, **kwargs):
        self.envs = {
            PS: pw.WorkerEnv("ps", 0, inter_op_threads=2, intra_op_threads=1, **kwargs),
            WORKER: pw.WorkerEnv("worker", 0, inter_op_threads=2, intra_op_threads=1, **kwargs),
        }
        self.pool = concurrent.futures.ThreadPoolExecutor(4)
        self.sent = []
        for env in self.envs.values():
            env.set_transport(self.transport)

    def transport(self, dst_task, step_id, key, value, is_dead, done):
        self.sent.append((dst_task, key, value.dtype, value.shape))

        def push():
            try:
                if value.dtype == object:
                    self.envs[dst_task].deliver(
                        step_id, key, list(value.ravel()), tw.string.as_datatype_enum, list(value.shape), is_dead
                    )
                else:
                    dtype = tw.as_dtype(value.dtype).as_datatype_enum
                    self.envs[dst_task].deliver(step_id, key, value, dtype, list(value.shape), is_dead)
                done(0, "")
            except tw.errors.OpError as e:
                done(e.error_code, e.message)

        self.pool.submit(push)

    def devices(self):
        return [(d[0], d[1], d[3]) for env in self.envs.values() for d in env.device_attributes()]

    def run(self, graph, feeds, fetches, targets, step_id):
        """Partitions, registers and runs one step (one run_graph per task, concurrently)."""
        feed_names = list(feeds)
        parts = pw.partition_for_cluster(graph._c.to_graph_def(), self.devices(), feed_names, fetches, targets, WORKER)
        futures = {}
        with concurrent.futures.ThreadPoolExecutor(len(parts)) as runner:
            for task, (graph_def, t_feeds, t_fetches, _) in parts.items():
                env = self.envs[task]
                handle = env.register_graph(graph_def)
                futures[task] = (
                    t_fetches,
                    runner.submit(env.run_graph, handle, step_id, {n: feeds[n] for n in t_feeds}, t_fetches, 20000),
                )
            got = {}
            for t_fetches, f in futures.values():
                got.update(zip(t_fetches, f.result()))
        return [got[n] if n in got else feeds[n] for n in fetches]

    def close(self):
        self.pool.shutdown(wait=True)


@pytest.fixture
def cluster():
    c = Cluster()
    yield c
    c.close()


def _model(with_devices):
    g = tw.Graph()
    with g.as_default():
        with tw.device(PS) if with_devices else contextlib.nullcontext():
            v = tw.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="v")
            words = tw.constant([[b"a", b"bc"]], name="words")
        x = tw.placeholder(tw.float32, [3, 4], name="x")
        y = tw.matmul(v, x, name="y")
        with tw.control_dependencies([y]):
            update = tw.assign_add(v, tw.ones_like(v), name="update")
        ident = tw.identity(words, name="words_here")
    return g, v, x, y, update, ident


def test_variable_on_ps_compute_on_worker_matches_a_local_session(cluster):
    g, v, x, y, update, ident = _model(True)
    lg, lv, lx, ly, lupdate, lident = _model(False)
    feed = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    with tw.Session(graph=lg) as sess:
        sess.run(lv.initializer)
        expected = [sess.run([ly, lident, lupdate], {lx: feed}) for _ in range(2)]
    cluster.run(g, {}, [], [v.initializer.name], step_id=1)
    for step in range(2):
        y_val, words_val, _ = cluster.run(g, {x.name: feed}, [y.name, ident.name, update.name], [], step_id=10 + step)
        np.testing.assert_allclose(y_val, expected[step][0], rtol=1e-6)
        assert words_val.tolist() == expected[step][1].tolist() == [[b"a", b"bc"]]
        np.testing.assert_array_equal(_, expected[step][2])
    # The variable is on the ps (a view of its value would be read-only: another step may update it).
    assert any(dst == WORKER for dst, *_ in cluster.sent) and any(dst == PS for dst, *_ in cluster.sent)
    assert all(env.num_steps() == 0 for env in cluster.envs.values())


def test_outputs_view_tensor_memory_and_feeds_keep_their_dtype(cluster):
    g = tw.Graph()
    with g.as_default(), tw.device(WORKER):
        a = tw.placeholder(tw.int64, [None], name="a")
        b = tw.multiply(a, 3, name="b")
        s = tw.placeholder(tw.string, [2], name="s")
        s2 = tw.identity(s, name="s2")
        z = tw.placeholder(tw.float64, [], name="z")
        z2 = tw.add(z, 1.0, name="z2")
    env = cluster.envs[WORKER]
    parts = pw.partition_for_cluster(
        g._c.to_graph_def(), cluster.devices(), [a.name, s.name, z.name], [b.name, s.name, z2.name, s2.name], [], WORKER
    )
    (graph_def, feeds, fetches, _) = parts[WORKER]
    assert feeds == [a.name, s.name, z.name] and fetches == [b.name, z2.name, s2.name]  # a fed fetch: the master's
    handle = env.register_graph(graph_def)
    out = env.run_graph(
        handle,
        3,
        {a.name: np.array([1, 2], np.int64), s.name: np.array([b"p", b"q"], object), z.name: np.float64(2.5)},
        [b.name, z2.name, s2.name],
    )
    assert out[0].dtype == np.int64 and out[0].tolist() == [3, 6]
    assert out[1].shape == () and out[1].dtype == np.float64 and float(out[1]) == 3.5
    assert out[2].dtype == object and out[2].tolist() == [b"p", b"q"]
    with pytest.raises(tw.errors.InvalidArgumentError, match="Cannot feed|cannot feed"):
        env.run_graph(
            handle,
            4,
            {a.name: np.array([1.0, 2.0], np.float32), s.name: np.array([b"p", b"q"], object), z.name: np.float64(2.5)},
            [b.name],
        )
    with pytest.raises(tw.errors.InvalidArgumentError, match="not a tensor of the registered graph"):
        env.run_graph(handle, 5, {"nope:0": np.zeros(2)}, [b.name])


def _waiting_part(cluster):
    """The worker's part of a step that waits for a value from the ps task."""
    g = tw.Graph()
    with g.as_default():
        with tw.device(PS):
            a = tw.constant(2.0, name="a")
        b = tw.negative(a, name="b")
    parts = pw.partition_for_cluster(g._c.to_graph_def(), cluster.devices(), [], [b.name], [], WORKER)
    env = cluster.envs[WORKER]
    return env, env.register_graph(parts[WORKER][0])


def test_abort_mid_step_unblocks_the_waiting_recv(cluster):
    env, handle = _waiting_part(cluster)
    result = {}

    def run():
        try:
            env.run_graph(handle, 42, {}, ["b:0"], 30000)
        except tw.errors.OpError as e:
            result["error"] = e

    t = threading.Thread(target=run)
    t.start()
    while env.num_steps() == 0:
        t.join(0.001)
    env.abort_step(42, tw.errors.UNAVAILABLE, "the ps task died")
    t.join(20)
    assert not t.is_alive()
    assert isinstance(result["error"], tw.errors.UnavailableError)
    assert "the ps task died" in result["error"].message
    with pytest.raises(tw.errors.UnavailableError):
        env.run_graph(handle, 42, {}, ["b:0"])  # the aborted step stays failed


def test_timeout_and_delivery_before_the_step(cluster):
    env, handle = _waiting_part(cluster)
    with pytest.raises(tw.errors.DeadlineExceededError):
        env.run_graph(handle, 6, {}, ["b:0"], 50)
    ps_cpu = cluster.envs[PS].device_attributes()[0]
    key = f"{ps_cpu[0]};{ps_cpu[3]:x};{WORKER}/device:CPU:0;a:0;0:0"
    assert env.deliver(7, key, np.float32(2.5).tobytes(), FLOAT, [], False)
    assert env.run_graph(handle, 7, {}, ["b:0"], 20000)[0] == -2.5
    # A late delivery for a step that ended is dropped.
    assert not env.deliver(7, key, bytearray(4), FLOAT, [], False)
    assert env.num_steps() == 0


def test_malformed_and_stale_deliveries():
    c = Cluster(stale_step_timeout_ms=1)
    try:
        env = c.envs[WORKER]
        key = f"{PS}/device:CPU:0;1;{WORKER}/device:CPU:0;t:0;0:0"
        with pytest.raises(tw.errors.InvalidArgumentError, match="24 bytes|does not have 20 bytes"):
            env.deliver(1, key, bytes(20), FLOAT, [2, 3], False)
        with pytest.raises(tw.errors.InvalidArgumentError, match="negative"):
            env.deliver(1, key, bytes(20), FLOAT, [-1, 5], False)
        with pytest.raises(tw.errors.InvalidArgumentError, match="unknown dtype"):
            env.deliver(1, key, bytes(20), 999, [5], False)
        with pytest.raises(tw.errors.InvalidArgumentError, match="malformed rendezvous key"):
            env.deliver(1, "garbage", bytes(20), FLOAT, [5], False)
        with pytest.raises(tw.errors.InvalidArgumentError, match="not a device of this task"):
            env.deliver(1, f"{WORKER}/device:CPU:0;1;{PS}/device:CPU:0;t:0;0:0", bytes(20), FLOAT, [5], False)
        with pytest.raises(tw.errors.InvalidArgumentError, match="C-contiguous"):
            env.deliver(1, key, np.zeros((4, 4), np.float32)[:, ::2], FLOAT, [4, 2], False)
        with pytest.raises(tw.errors.InvalidArgumentError, match="elements"):
            env.deliver(1, key, [b"a"], tw.string.as_datatype_enum, [2], False)
        # A step whose RunGraph never comes is dropped after the timeout; later values for it too.
        assert env.deliver(2, key, bytes(20), FLOAT, [5], False)
        assert env.num_steps() >= 1
        threading.Event().wait(0.01)
        env.collect_garbage()
        assert env.num_steps() == 0
        assert not env.deliver(2, key, bytes(20), FLOAT, [5], False)
        env.cleanup_step(1)
    finally:
        c.close()


def test_register_graph_errors(cluster):
    env = cluster.envs[WORKER]
    g = tw.Graph()
    with g.as_default(), tw.device(PS):
        tw.constant(1.0, name="c")
    with pytest.raises(tw.errors.InvalidArgumentError, match="'c'.*not a device of task /job:worker"):
        env.register_graph(g._c.to_graph_def())
    with pytest.raises(tw.errors.InvalidArgumentError, match="not a serialized GraphDef"):
        env.register_graph(b"\xff\xff\xff")
    with pytest.raises(tw.errors.NotFoundError):
        env.run_graph(12345, 1, {}, [])
    with pytest.raises(tw.errors.NotFoundError):
        env.deregister_graph(12345)
    with pytest.raises(tw.errors.InvalidArgumentError, match="not a full device name"):
        pw.partition_for_cluster(g._c.to_graph_def(), [("/job:ps", "CPU", 1)], [], ["c:0"], [], WORKER)


def test_a_one_task_step_keeps_its_control_flow(cluster):
    """A step on one device goes to its task whole (a while loop and a cond included)."""
    g = tw.Graph()
    with g.as_default(), tw.device(WORKER):
        n = tw.placeholder(tw.int32, [], name="n")
        _, total = tw.while_loop(lambda i, acc: i < n, lambda i, acc: (i + 1, acc + i), [0, 0])
        picked = tw.cond(total > 10, lambda: total * 2, lambda: total - 1)
    parts = pw.partition_for_cluster(g._c.to_graph_def(), cluster.devices(), [n.name], [picked.name], [], WORKER)
    assert list(parts) == [WORKER]
    graph_def, feeds, fetches, _ = parts[WORKER]
    assert feeds == [n.name]
    env = cluster.envs[WORKER]
    handle = env.register_graph(graph_def)
    for step, value in enumerate([3, 6]):
        expected = sum(range(value))
        expected = expected * 2 if expected > 10 else expected - 1
        assert env.run_graph(handle, 100 + step, {n.name: np.int32(value)}, fetches)[0] == expected


@pytest.mark.parametrize("failure", ["raises", "drops_done", "reports_error"])
def test_a_failed_send_fails_the_sending_step(failure):
    """A transport that raises, drops its done uncalled or reports an error: the sending task's step fails with
    that error (never waits forever)."""
    c = Cluster()
    try:
        ps = c.envs[PS]

        def transport(dst_task, step_id, key, value, is_dead, done):
            if failure == "raises":
                raise RuntimeError("no route")
            if failure == "reports_error":
                threading.Thread(target=done, args=(tw.errors.UNAVAILABLE, "worker gone")).start()
            # drops_done: returns without keeping `done`

        ps.set_transport(transport)
        g = tw.Graph()
        with g.as_default():
            with tw.device(PS):
                a = tw.constant(2.0, name="a")
            tw.negative(a, name="b")
        parts = pw.partition_for_cluster(g._c.to_graph_def(), c.devices(), [], ["b:0"], [], WORKER)
        handle = ps.register_graph(parts[PS][0])
        expected = {
            "raises": (tw.errors.InternalError, "no route"),
            "drops_done": (tw.errors.InternalError, "dropped its done callback"),
            "reports_error": (tw.errors.UnavailableError, "worker gone"),
        }[failure]
        with pytest.raises(expected[0], match=expected[1]):
            ps.run_graph(handle, 1, {}, [], 20000)
    finally:
        c.close()


def test_wait_for_sends_false_returns_before_the_push_is_acknowledged():
    """run_graph waits for the pushes of its sends to be acknowledged (wait_for_sends=True, the default); with
    wait_for_sends=False (a master's step: the receivers wait for the values anyway) it returns once its
    executors are done, and a done called later is harmless; a push that failed already still fails it."""
    c = Cluster()
    try:
        ps = c.envs[PS]
        pending = []

        def transport(dst_task, step_id, key, value, is_dead, done):
            pending.append(done)  # acknowledged later by the test

        ps.set_transport(transport)
        g = tw.Graph()
        with g.as_default():
            with tw.device(PS):
                a = tw.constant(2.0, name="a")
            tw.negative(a, name="b")
        parts = pw.partition_for_cluster(g._c.to_graph_def(), c.devices(), [], ["b:0"], [], WORKER)
        handle = ps.register_graph(parts[PS][0])
        assert ps.run_graph(handle, 1, {}, [], 20000, wait_for_sends=False) == []
        assert len(pending) == 1
        pending.pop()(0, "")  # after the call ended

        def ack_later():
            while not pending:
                threading.Event().wait(0.01)
            threading.Event().wait(0.2)
            pending.pop()(0, "")

        t = threading.Thread(target=ack_later)
        t.start()
        start = time.monotonic()
        assert ps.run_graph(handle, 2, {}, [], 20000) == []  # waits for the acknowledgement
        assert time.monotonic() - start >= 0.15
        t.join()

        def fail_at_once(dst_task, step_id, key, value, is_dead, done):
            done(tw.errors.UNAVAILABLE, "worker gone")

        ps.set_transport(fail_at_once)
        with pytest.raises(tw.errors.UnavailableError, match="worker gone"):
            ps.run_graph(handle, 3, {}, [], 20000, wait_for_sends=False)
    finally:
        c.close()

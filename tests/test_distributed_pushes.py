"""How a step's values cross tasks (distributed/worker_service.py's Transport): the values one task sends another
travel together (one PushTensors call, a control edge as a flag with no payload), what a RunGraph sends to the
task that called it comes back with its reply (no push), and a malformed batch is an error status, never a
crash. Servers on 127.0.0.1 in this process; values checked against numpy."""

import struct
import threading
import time

import numpy as np
import pytest
import tensorweave as tw
from tensorweave.distributed import rpc, security, wire


class _Spy:
    """Records the calls a server's Transport makes ([(method, [(key, is control edge)])]) and every value it
    is handed; `delay` holds its sender back (so that the values of a step queue up behind it)."""

    def __init__(self, monkeypatch, server, delay=0.0):
        self.calls = []
        self.sent = []
        t = server._worker.transport
        call, send_queued, push = t._call, t._send_queued, t._push

        def spy_call(address, items, send):
            self.calls.append([(item[2], wire.is_control_value(item[3])) for item in items])
            return call(address, items, send)

        def slow_send_queued(address):
            time.sleep(delay)
            return send_queued(address)

        def spy_push(dst_task, items):
            self.sent.extend(item[1] for item in items)
            return push(dst_task, items)

        monkeypatch.setattr(t, "_call", spy_call)
        monkeypatch.setattr(t, "_send_queued", slow_send_queued)
        monkeypatch.setattr(t, "_push", spy_push)


def test_a_steps_values_for_one_task_travel_in_one_call(cluster, monkeypatch):
    """The ps's part receives a value from the worker (so it is not run ahead) and sends back three tensors of
    different dtypes and a control edge: one PushTensors call carries them all, the control edge as a flag."""
    ps, worker = cluster
    with tw.Graph().as_default():
        with tw.device("/job:worker/task:0"):
            w = tw.placeholder(tw.float32, [2, 3], name="w")
            w2 = tw.square(w)  # computed on the worker: the ps's part receives it
        with tw.device("/job:ps/task:0"):
            a = tw.constant(np.arange(6, dtype=np.float32).reshape(2, 3)) * w2
            b = tw.constant(np.array([1, -2, 3, 2**31 - 1], np.int32)) + tw.constant(0)
            s = tw.identity(tw.constant([b"x", b"", b"yz"]))
            effect = tw.no_op(name="ps_effect")
        with tw.device("/job:worker/task:0"), tw.control_dependencies([effect]):
            outs = [tw.identity(a), tw.identity(b), tw.identity(s)]
        with tw.Session(worker.target) as sess:
            feed = np.full([2, 3], 0.5, np.float32)
            sess.run(outs, {w: feed})  # the plan is made and registered
            spy = _Spy(monkeypatch, ps, delay=0.2)
            got = sess.run(outs, {w: feed})
    np.testing.assert_array_equal(got[0], np.arange(6, dtype=np.float32).reshape(2, 3) * 0.25)
    np.testing.assert_array_equal(got[1], np.array([1, -2, 3, 2**31 - 1], np.int32))
    assert got[1].dtype == np.int32
    assert list(got[2]) == [b"x", b"", b"yz"]
    assert len(spy.calls) == 1, spy.calls
    (call,) = spy.calls
    assert len(call) == 4 and sum(control for _, control in call) == 1, call
    assert any(";ps_effect" in key for key, control in call if control), call


def test_what_a_part_sends_its_caller_comes_back_with_the_reply(cluster, monkeypatch):
    """A ps part that needs nothing from other tasks: its values for the master's task (a variable read, a
    fetch computed on the ps, a control edge) ride on its RunGraph reply; the ps pushes nothing."""
    ps, worker = cluster
    with tw.Graph().as_default():
        with tw.device("/job:ps/task:0"):
            v = tw.Variable(np.arange(5000, dtype=np.float64), name="reply_v")
            on_ps = tw.reduce_sum(v)
            effect = tw.no_op(name="reply_effect")
        with tw.device("/job:worker/task:0"), tw.control_dependencies([effect]):
            head = v[:3] * 2.0
        with tw.Session(worker.target) as sess:
            sess.run(v.initializer)
            sess.run([head, on_ps])
            spy = _Spy(monkeypatch, ps)
            # (a loaded machine may take longer than the hold time; pushing then is right, but not this test's)
            monkeypatch.setattr(ps._worker.transport, "_hold_s", 30.0)
            for _ in range(3):
                got_head, got_sum = sess.run([head, on_ps])
                np.testing.assert_array_equal(got_head, [0.0, 2.0, 4.0])
                assert got_sum == np.arange(5000, dtype=np.float64).sum()
    assert spy.calls == [] and spy.sent == [], (spy.calls, spy.sent)


def test_held_values_are_pushed_when_the_call_runs_on(cluster):
    """Values held for a reply are the reply's when it comes (`take`), and pushed when the call is still running
    after the hold time (its step may wait for what the caller's task does next)."""
    from tensorweave.distributed import worker_service

    ps, worker = cluster
    transport = worker_service.Transport(ps.channels, lambda task: worker.address, hold_ms=100)
    device = "/job:worker/replica:0/task:0/device:CPU:0"
    key = f"/job:ps/replica:0/task:0/device:CPU:0;1;{device};held:0;0:0"
    value = np.arange(4, dtype=np.float32)
    for step_id, taken in ((987001, True), (987002, False)):
        status = []
        done = threading.Event()
        transport.hold(step_id, worker.task_name)
        start = time.monotonic()
        transport(worker.task_name, step_id, key, value, False, lambda c, m="": (status.append((c, m)), done.set()))
        if taken:
            items = transport.take(step_id)
            assert [(s, k, is_dead) for s, k, _, is_dead in items] == [(step_id, key, False)]
            np.testing.assert_array_equal(items[0][2], value)
            assert status == [(0, "")]
        else:
            assert done.wait(10), "a held value was never pushed"
            assert status == [(0, "")] and time.monotonic() - start >= 0.09
            assert transport.take(step_id) == []
        worker._env.cleanup_step(step_id)


def _batch_call(address, header, buffers=()):
    ch = rpc.Channels(security.Security())
    try:
        return ch.call(address, rpc.WORKER, "PushTensors", wire.encode(header, buffers))
    finally:
        ch.close()


def test_malformed_batches_are_errors(cluster):
    ps, worker = cluster
    a = worker.address
    device = "/job:worker/replica:0/task:0/device:CPU:0"
    key = f"/job:ps/replica:0/task:0/device:CPU:0;1;{device};m:0;0:0"
    entry = {"step_id": 424242, "key": key, "is_dead": False, "control": False}
    f32 = {"dtype": tw.float32.as_datatype_enum, "shape": [2], "nbytes": 8}
    cases = [
        ({"pushes": "x"}, [], "entries are not a list"),
        ({"pushes": [entry], "tensors": [dict(f32, dtype=77)]}, [b"abcdefgh"], "unknown dtype 77"),
        ({"pushes": [entry], "tensors": [dict(f32, shape=[3])]}, [b"abcdefgh"], "needs 12 bytes"),
        ({"pushes": [entry], "tensors": [f32]}, [b"abcd"], "truncated tensor"),
        ({"pushes": [entry], "tensors": [f32]}, [b"abcdefghij"], "2 bytes after its tensors"),
        ({"pushes": [entry], "tensors": []}, [], "has no tensor"),
        ({"pushes": [dict(entry, control=True)], "tensors": [f32]}, [b"abcdefgh"], "1 tensors that no entry"),
        ({"pushes": [dict(entry, step_id="1")], "tensors": [f32]}, [b"abcdefgh"], "not an integer"),
        ({"pushes": [dict(entry, is_dead=1)], "tensors": [f32]}, [b"abcdefgh"], "are flags"),
        ({"pushes": [dict(entry, key=7)], "tensors": [f32]}, [b"abcdefgh"], "not a string"),
        ({"pushes": [dict(entry, key="no;key")], "tensors": [f32]}, [b"abcdefgh"], "key"),
    ]
    for header, buffers, message in cases:
        with pytest.raises(tw.errors.InvalidArgumentError, match=message):
            _batch_call(a, header, buffers)
    with pytest.raises(tw.errors.InvalidArgumentError, match="truncated message"):
        ch = rpc.Channels(security.Security())
        try:
            ch.call(a, rpc.WORKER, "PushTensors", b"\x01")
        finally:
            ch.close()
    # A well-formed batch is accepted, and the server still serves.
    _batch_call(a, {"pushes": [dict(entry, key=key.replace("m:0", "ok:0")), entry], "tensors": [f32, f32]}, [b"x" * 16])
    worker._env.cleanup_step(424242)
    with tw.Graph().as_default(), tw.Session(worker.target) as sess:
        assert sess.run(tw.constant(3.0)) == 3.0


def test_a_malformed_run_graph_reply_is_an_error(cluster):
    """The master checks what a reply carries back: a reply whose pushes do not match its tensors is an
    InvalidArgumentError of the step, never a crash."""
    from tensorweave.distributed import wire as w

    entries, tensors = w.encode_pushes([(1, "k", np.zeros((), np.float32), False), (1, "k2", np.ones(2), False)])
    assert [e["control"] for e in entries] == [True, False] and len(tensors) == 1
    metas = [w.tensor_parts(t)[0] for t in tensors]
    items = w.decode_pushes(entries, tensors, metas)
    assert items[0][2].shape == () and items[0][2] == 0 and items[0][4] == tw.float32.as_datatype_enum
    np.testing.assert_array_equal(items[1][2], np.ones(2))
    with pytest.raises(tw.errors.InvalidArgumentError, match="RunGraph reply: k2 has no tensor"):
        w.decode_pushes(entries, [], [], "RunGraph reply")
    # -0.0 and 1.0 are values, not control edges: they keep their bytes.
    assert not w.is_control_value(np.array(-0.0, np.float32)) and not w.is_control_value(np.float32(1.0))


def _binary_reply(outputs, sent):
    """The bytes of a binary RunGraph reply (distributed/reply_wire.h), written independently of it."""

    def tensor(a):
        a = np.asarray(a)
        head = struct.pack("<iI", tw.as_dtype(a.dtype).as_datatype_enum, a.ndim) + struct.pack(f"<{a.ndim}q", *a.shape)
        return head + struct.pack("<Q", a.nbytes) + a.tobytes()

    out = b"TWR1" + struct.pack("<II", len(outputs), len(sent)) + b"".join(tensor(a) for a in outputs)
    for key, value, is_dead in sent:
        out += struct.pack("<I", len(key)) + key.encode() + bytes([is_dead]) + tensor(value)
    return out


def test_binary_run_graph_replies_are_read_and_checked(cluster):
    """A binary RunGraph reply gives its outputs and delivers what it carries into the task's rendezvous; a
    malformed one is an InvalidArgumentError naming what is wrong, never a crash."""
    _, worker = cluster
    env = worker._worker.env
    device = "/job:worker/replica:0/task:0/device:CPU:0"
    key = f"/job:ps/replica:0/task:0/device:CPU:0;1;{device};binary:0;0:0"
    out = np.arange(6, dtype=np.int32).reshape(2, 3)
    good = _binary_reply([out, np.float64(0.5)], [(key, np.float32(2.5), False)])
    steps = env.num_steps()
    got = env.deliver_reply(555001, good)
    np.testing.assert_array_equal(got[0], out)
    assert got[0].dtype == np.int32 and got[1].shape == () and got[1] == 0.5
    assert env.num_steps() == steps + 1  # the delivered value waits in its step's rendezvous
    env.cleanup_step(555001)
    other_task = key.replace(device, "/job:ps/replica:0/task:0/device:CPU:0")
    cases = [
        (good[:-1], "truncated"),
        (good + b"\0", "1 bytes after its values"),
        (b"JSON" + good[4:], "bad magic"),
        (good.replace(struct.pack("<i", 3), struct.pack("<i", 99), 1), "unknown dtype 99"),
        (_binary_reply([], [(other_task, np.float32(1), False)]), "not a device of this task"),
    ]
    for data, message in cases:
        with pytest.raises(tw.errors.InvalidArgumentError, match=message):
            env.deliver_reply(555002, data)
    env.cleanup_step(555002)


def test_parts_on_two_other_tasks_run_first_and_reply_with_what_they_send(monkeypatch):
    """The master's task (worker 0) computes from values of two other tasks whose parts need nothing from any
    task (a ps variable; a second worker's computation and a control edge): those parts run first, in
    parallel, and their RunGraph replies carry what they send; nothing is pushed. A failure in one of them is
    the step's error (named after its node), and the next step runs."""
    from tensorweave.distributed import launch

    ports = launch.free_ports(3)
    spec = {"ps": [f"127.0.0.1:{ports[0]}"], "worker": [f"127.0.0.1:{p}" for p in ports[1:]]}
    servers = [tw.train.Server(spec, "ps", 0), tw.train.Server(spec, "worker", 0), tw.train.Server(spec, "worker", 1)]
    try:
        with tw.Graph().as_default():
            with tw.device("/job:ps/task:0"):
                v = tw.Variable(np.arange(6, dtype=np.float32), name="first_v")
            with tw.device("/job:worker/task:1"):
                p = tw.placeholder_with_default(np.float32(4.0), [], name="first_p")
                c = tw.debugging.check_numerics(tw.sqrt(p) * tw.constant([10.0, 20.0]), "sqrt of a negative")
                effect = tw.no_op(name="first_effect")
            with tw.device("/job:worker/task:0"), tw.control_dependencies([effect]):
                out = v[:2] + c
            with tw.Session(servers[1].target) as sess:
                sess.run(v.initializer)
                sess.run(out)
                spies = [_Spy(monkeypatch, s) for s in (servers[0], servers[2])]
                for _ in range(3):
                    np.testing.assert_array_equal(sess.run(out), [20.0, 41.0])
                with pytest.raises(tw.errors.InvalidArgumentError, match="sqrt of a negative"):
                    sess.run(out, {p: -1.0})
                np.testing.assert_array_equal(sess.run(out, {p: 9.0}), [30.0, 61.0])
                # A null step: a no-op on every task.
                ops = []
                for job, task in (("ps", 0), ("worker", 0), ("worker", 1)):
                    with tw.device(f"/job:{job}/task:{task}"):
                        ops.append(tw.no_op())
                with tw.device("/job:worker/task:0"):
                    step = tw.group(*ops)
                for _ in range(3):
                    assert sess.run(step) is None
        for spy in spies:
            assert spy.calls == [] and spy.sent == [], (spy.calls, spy.sent)
    finally:
        for s in reversed(servers):
            s.stop()


def test_dead_values_and_strings_ride_a_binary_reply(cluster, monkeypatch):
    """A ps part that needs nothing from another task sends the worker both outputs of a Switch (one of them
    dead) and a string tensor, and has the string tensor fetched: they come back with its (binary) reply, the
    Merge on the worker takes the live one, as in one process; nothing is pushed."""
    from tensorweave._src.ops import control_flow_ops

    ps, worker = cluster
    with tw.Graph().as_default():
        with tw.device("/job:ps/task:0"):
            flag = tw.Variable(True, name="dead_flag")
            v = tw.Variable(3.0, name="dead_v")
            when_false, when_true = control_flow_ops.switch(v.read_value(), flag.read_value())
            names = tw.identity(tw.constant([[b"a", b""], [b"\x00bc", b"d"]]))
        with tw.device("/job:worker/task:0"):
            out, index = control_flow_ops.merge([when_false - 1.0, when_true * 2.0])
            names_here = tw.identity(names)
        with tw.Session(worker.target) as sess:
            sess.run([flag.initializer, v.initializer])
            sess.run([out, names_here])
            spy = _Spy(monkeypatch, ps)
            for value, expected in ((True, (6.0, 1)), (False, (2.0, 0)), (True, (6.0, 1))):
                sess.run(flag.assign(value))
                got, got_index, got_names, fetched_names = sess.run([out, index, names_here, names])
                assert (got, got_index) == expected
                assert got_names.tolist() == fetched_names.tolist() == [[b"a", b""], [b"\x00bc", b"d"]]
    assert spy.sent == [], spy.sent

"""The distributed runtime in one process: servers on 127.0.0.1 (a local server, or a ps and a worker task),
remote sessions against local sessions, tensors crossing tasks (chunked when large), errors with their
classes, the shared secret, TLS and mutual TLS, and malformed RPCs (each an error status, never a crash)."""

import collections
import json
import logging
import time

import numpy as np
import pytest
import tensorweave as tw
from tensorweave.distributed import launch, rpc, security, wire

from tests import distributed_certs


@pytest.fixture(autouse=True)
def _restore_process_security():
    saved = security._default
    yield
    security.set_process_default(saved)


@pytest.fixture(scope="module")
def local_server():
    s = tw.train.Server.create_local_server()
    yield s
    s.stop()


def _both(fn, target):
    """fn(sess) in a local session and in a remote one on `target`, each on a fresh graph built by fn."""
    out = []
    for t in ("", target):
        with tw.Graph().as_default() as g:
            build = fn()
            with tw.Session(t, graph=g) as sess:
                out.append(build(sess))
    return out


def test_server_basics(local_server):
    assert local_server.target.startswith("grpc://127.0.0.1:")
    assert local_server.server_def.job_name == "localhost" and local_server.server_def.task_index == 0
    with pytest.raises(ValueError, match="Must specify an explicit `job_name`"):
        tw.train.Server({"a": ["127.0.0.1:0"], "b": ["127.0.0.1:0"]}, start=False)
    with pytest.raises(ValueError, match="No task with index 3 in job 'a'"):
        tw.train.Server({"a": ["127.0.0.1:0"]}, "a", 3, start=False)


def test_remote_session_runs_like_a_local_one(local_server, master_path):
    Pair = collections.namedtuple("Pair", "a b")

    def model():
        x = tw.placeholder(tw.float32, [None, 3], name="x")
        v = tw.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name="v")
        y = tw.matmul(x, v)
        s = tw.reduce_sum(y)
        names = tw.constant([b"ab", b"c"])
        inc = tw.assign_add(v, tw.ones_like(v))
        feed = np.array([[1, 2, 3], [4, 5, 6]], np.float32)

        def run(sess):
            sess.run(tw.global_variables_initializer())
            first = sess.run({"y": y, "pair": Pair(s, [x, names]), "none": inc.op}, {x: feed})
            sess.run(inc)
            second = sess.run(y, {"x:0": feed[:1]})
            return first, second, sess.run(s, {x: feed}).dtype

        return run

    (local1, local2, ldt), (remote1, remote2, rdt) = _both(model, local_server.target)
    np.testing.assert_array_equal(local1["y"], remote1["y"])
    assert isinstance(remote1["pair"], Pair) and remote1["none"] is None and rdt == ldt == np.float32
    assert float(remote1["pair"].a) == float(local1["pair"].a)
    np.testing.assert_array_equal(remote1["pair"].b[0], local1["pair"].b[0])  # a fetched feed
    assert list(remote1["pair"].b[1]) == [b"ab", b"c"]
    np.testing.assert_array_equal(local2, remote2)
    remote1["y"] += 1  # results are the caller's own arrays


def test_a_session_on_a_server_of_this_process_calls_its_master_directly(local_server):
    from tensorweave.distributed import server as server_lib

    port = local_server.target.rsplit(":", 1)[1]
    with tw.Graph().as_default():
        c = tw.constant([1.0, 2.0]) * 3.0
        for target in (local_server.target, f"grpc://localhost:{port}"):  # loopback names are one host
            with tw.Session(target) as sess:
                assert sess._c._local is local_server._master
                np.testing.assert_array_equal(sess.run(c), [3.0, 6.0])
        other = security.Security(secret="another")  # a client with other settings goes through gRPC (refused)
        assert server_lib.local_master(local_server.target[len("grpc://") :], other) is None
    stopped = tw.train.Server.create_local_server()
    address = stopped.target[len("grpc://") :]
    assert server_lib.local_master(address, security.process_default()) is stopped._master
    with tw.Graph().as_default():
        c = tw.constant(1.0)
        sess = tw.Session(stopped.target)
        stopped.stop()
        assert server_lib.local_master(address, security.process_default()) is None
        with pytest.raises(tw.errors.UnavailableError, match="was stopped"):
            sess.run(c)


def test_remote_session_ships_the_graph_as_it_grows(local_server):
    with tw.Graph().as_default(), tw.Session(local_server.target) as sess:
        a = tw.constant(2.0)
        assert sess.run(a) == 2.0
        b = a * 5.0  # added after the first run
        assert sess.run(b) == 10.0
        assert sess.sess_str == local_server.target
        names = [d.name for d in sess.list_devices()]
        assert names == ["/job:localhost/replica:0/task:0/device:CPU:0"]


def test_remote_errors_keep_their_class_and_node(local_server, master_path):
    with tw.Graph().as_default(), tw.Session(local_server.target) as sess:
        x = tw.placeholder(tw.float32, [None])
        r = tw.reshape(x, [2, 2], name="the_reshape")
        v = tw.Variable(1.0, name="uninit")
        with pytest.raises(tw.errors.InvalidArgumentError, match="the_reshape"):
            sess.run(r, {x: [1.0, 2.0, 3.0]})
        with pytest.raises(tw.errors.FailedPreconditionError, match="uninit"):
            sess.run(v)
        with pytest.raises(ValueError, match="Cannot feed value of shape"):  # checked before the RPC
            sess.run(r, {x: [[1.0]]})


def test_variables_on_a_ps_task_and_tensors_across_tasks(cluster, master_path):
    ps, worker = cluster
    rng = np.random.default_rng(0)
    big = rng.standard_normal((1024, 1280)).astype(np.float32)  # 5 MB: pushed in chunks
    with tw.Graph().as_default():
        with tw.device("/job:ps/task:0"):
            w = tw.Variable(big, name="w")
            words = tw.constant([b"x", b"yz"])
        with tw.device("/job:worker/task:0"):
            x = tw.placeholder(tw.float32, [None, 1024])
            y = tw.matmul(x, w)
            joined = tw.strings.join([words, words], separator="-") if hasattr(tw, "strings") else words
            update = tw.assign_add(w, tw.ones_like(w))
        with tw.Session(worker.target) as sess:
            sess.run(w.initializer)
            feed = rng.standard_normal((4, 1024)).astype(np.float32)
            np.testing.assert_allclose(sess.run(y, {x: feed}), feed @ big, rtol=1e-4, atol=1e-4)
            sess.run(update.op)
            np.testing.assert_array_equal(sess.run(w), big + 1)  # the ps variable, 5 MB back
            assert list(sess.run(joined)) == [b"x-x", b"yz-yz"]
        # The variable lives on the ps task: a second session (another client) sees the update.
        with tw.Session(ps.target) as other:
            np.testing.assert_array_equal(other.run(w), big + 1)
        tw.Session.reset(worker.target)
        with tw.Session(worker.target) as sess, pytest.raises(tw.errors.FailedPreconditionError):
            sess.run(w)


def test_traced_remote_steps_fill_run_metadata(cluster, master_path):
    """RunOptions(FULL_TRACE) on a remote session: one DeviceStepStats per device of every task the step ran on,
    with the nodes each ran (a Timeline of it loads); output_partition_graphs gives the graph each task ran."""
    ps, worker = cluster
    with tw.Graph().as_default():
        with tw.device("/job:ps/task:0"):
            w = tw.Variable(tw.ones([4, 4]), name="traced_w")
        with tw.device("/job:worker/task:0"):
            x = tw.placeholder(tw.float32, [2, 4])
            y = tw.matmul(x, w, name="traced_product")
        with tw.Session(worker.target) as sess:
            sess.run(w.initializer)
            metadata = tw.RunMetadata()
            options = tw.RunOptions(trace_level=tw.RunOptions.FULL_TRACE, output_partition_graphs=True)
            out = sess.run(y, {x: np.ones((2, 4), np.float32)}, options=options, run_metadata=metadata)
            np.testing.assert_array_equal(out, np.full((2, 4), 4.0, np.float32))
            nodes = {d.device: {n.node_name for n in d.node_stats} for d in metadata.step_stats.dev_stats}
            ps_device = next(d for d in nodes if "/job:ps/" in d)
            worker_device = next(d for d in nodes if "/job:worker/" in d)
            assert "traced_w" in nodes[ps_device] and "traced_product" in nodes[worker_device]
            from tensorweave.python.client import timeline

            trace = timeline.Timeline(metadata.step_stats).generate_chrome_trace_format()
            assert "traced_product" in trace
            graphs = [{n.name for n in g.node} for g in metadata.partition_graphs]
            assert len(graphs) == 2 and any("traced_product" in g for g in graphs)
            # An untraced step leaves the metadata empty.
            sess.run(y, {x: np.ones((2, 4), np.float32)}, run_metadata=metadata)
            assert not metadata.step_stats.dev_stats and not metadata.partition_graphs


def test_a_push_that_fails_aborts_the_step_on_the_task_it_was_for(cluster):
    """A master's RunGraph does not wait for its pushes to be acknowledged: a push that fails (here refused by
    the receiving task) is reported by the transport to that task, whose step waiting for values ends with the
    reason instead of waiting for its deadline."""
    import threading

    from tensorweave import _pywrap_tensorweave as pw
    from tensorweave.distributed import worker_service

    ps, worker = cluster
    with tw.Graph().as_default() as g:
        with tw.device("/job:ps/task:0"):
            a = tw.constant(2.0)
        with tw.device("/job:worker/task:0"):
            b = tw.negative(a, name="b")
    devices = [(d[0], d[1], d[3]) for s in (ps, worker) for d in s._env.device_attributes()]
    parts = pw.partition_for_cluster(g._c.to_graph_def(), devices, [], [b.name], [], worker.task_name)
    handle = worker._env.register_graph(parts[worker.task_name][0])
    step_id = 12345
    result = {}

    def run():  # the worker's part waits for the ps's value (which never comes)
        try:
            worker._env.run_graph(handle, step_id, {}, [b.name], 60000)
        except tw.errors.OpError as e:
            result["error"] = e

    t = threading.Thread(target=run)
    t.start()
    transport = worker_service.Transport(ps.channels, lambda task: worker.address)
    ps_device = devices[0][0]
    key = f"{ps_device};1;{ps_device};x:0;0:0"  # for a device of the ps, not of the worker: refused there
    done = threading.Event()
    status = []
    transport(
        worker.task_name,
        step_id,
        key,
        np.float32(1.0),
        False,
        lambda code, msg="": (status.append((code, msg)), done.set()),
    )
    assert done.wait(30)
    assert status[0][0] == tw.errors.INVALID_ARGUMENT, status
    t.join(30)
    assert not t.is_alive()
    assert isinstance(result["error"], tw.errors.InvalidArgumentError), result
    assert "not a device of this task" in result["error"].message


def test_step_timeouts_end_a_blocked_remote_step(local_server):
    with tw.Graph().as_default():
        dequeue = tw.FIFOQueue(3, tw.float32).dequeue()
        config = tw.ConfigProto(operation_timeout_in_ms=200)
        with tw.Session(local_server.target) as sess, tw.Session(local_server.target, config=config) as sess2:
            with pytest.raises(tw.errors.DeadlineExceededError, match="timed out after 200 ms"):
                sess.run(dequeue, options=tw.RunOptions(timeout_in_ms=200))
            with pytest.raises(tw.errors.DeadlineExceededError):
                sess2.run(dequeue)


def test_a_task_that_is_down_is_unavailable_within_seconds():
    (port,) = launch.free_ports(1)
    start = time.monotonic()
    with tw.Graph().as_default():
        c = tw.constant(1.0)
        with pytest.raises(tw.errors.UnavailableError), tw.Session(f"grpc://127.0.0.1:{port}") as sess:
            sess.run(c)
    assert time.monotonic() - start < 20  # a bound on a hang (it fails at once), not a performance figure


def test_a_restarted_ps_task_is_unavailable_while_down_then_fresh():
    ps_port, worker_port = launch.free_ports(2)
    spec = {"ps": [f"127.0.0.1:{ps_port}"], "worker": [f"127.0.0.1:{worker_port}"]}
    ps, worker = tw.train.Server(spec, "ps", 0), tw.train.Server(spec, "worker", 0)
    try:
        with tw.Graph().as_default():
            with tw.device("/job:ps/task:0"):
                v = tw.Variable(1.0)
            with tw.device("/job:worker/task:0"):
                y = v * 2.0
            with tw.Session(worker.target) as sess:
                sess.run(v.initializer)
                assert sess.run(y) == 2.0
                ps.stop()
                for _ in range(2):  # the step and the next (which looks for the ps again) fail at once
                    with pytest.raises(tw.errors.UnavailableError, match="ps/replica:0/task:0"):
                        sess.run(y)
                ps = tw.train.Server(spec, "ps", 0)  # started again: its variables are gone
                deadline = time.monotonic() + 20
                while True:
                    try:
                        sess.run(y)
                    except tw.errors.UnavailableError:  # until the channel reconnects
                        assert time.monotonic() < deadline
                        time.sleep(0.2)
                        continue
                    except tw.errors.FailedPreconditionError as e:
                        assert "uninitialized" in e.message
                        break
                    raise AssertionError("a restarted ps kept its variables")
                sess.run(v.initializer)
                assert sess.run(y) == 2.0
    finally:
        worker.stop()
        ps.stop()


def test_the_stream_to_a_restarted_task_is_opened_again():
    """A step's RunGraph travels on the worker's persistent stream to the ps: when the ps stops, the step fails
    with UnavailableError at once (not at the stream's deadline); once the ps is back, the next step opens a
    new stream and runs."""
    ps_port, worker_port = launch.free_ports(2)
    spec = {"ps": [f"127.0.0.1:{ps_port}"], "worker": [f"127.0.0.1:{worker_port}"]}
    ps, worker = tw.train.Server(spec, "ps", 0), tw.train.Server(spec, "worker", 0)
    streams = (spec["ps"][0], rpc.WORKER)
    try:
        with tw.Graph().as_default():
            with tw.device("/job:ps/task:0"):
                v = tw.Variable(3.0)
            with tw.device("/job:worker/task:0"):
                y = v * 2.0
            with tw.Session(worker.target) as sess:
                sess.run(v.initializer)
                assert [sess.run(y) for _ in range(3)] == [6.0] * 3
                assert worker.channels._open[streams] == 1  # one stream carried them
                ps.stop()
                start = time.monotonic()
                with pytest.raises(tw.errors.UnavailableError, match="ps/replica:0/task:0"):
                    sess.run(y)
                assert time.monotonic() - start < 10  # (the stream's deadline is an hour away)
                ps = tw.train.Server(spec, "ps", 0)
                status = worker.channels.method(spec["ps"][0], rpc.WORKER, "GetStatus")
                status(wire.encode({}), timeout=20, wait_for_ready=True)  # the worker's channel is up again
                sess.run(v.initializer)  # the first step after the restart runs: no stale stream
                assert sess.run(y) == 6.0
                assert worker.channels._open[streams] == 1
    finally:
        worker.stop()
        ps.stop()


# --- security ------------------------------------------------------------------------------------------------
def _raw_list_devices(address, sec):
    ch = rpc.Channels(sec)
    try:
        return wire.decode(ch.call(address, rpc.MASTER, "ListDevices", wire.encode({})))[0]
    finally:
        ch.close()


def test_shared_secret(caplog):
    server = tw.train.Server({"w": ["127.0.0.1:0"]}, "w", 0, secret="s3cret")
    try:
        with tw.Graph().as_default():
            c = tw.constant(4.0) + 1.0
            with tw.Session(server.target) as sess:  # the process's settings are the server's
                assert sess.run(c) == 5.0
        assert _raw_list_devices(server.address, security.Security(secret="s3cret"))["devices"]
        with caplog.at_level(logging.WARNING, logger="tensorweave.distributed"):
            with pytest.raises(tw.errors.UnauthenticatedError, match="no credentials"):
                _raw_list_devices(server.address, security.Security())
            with pytest.raises(tw.errors.UnauthenticatedError, match="wrong secret"):
                _raw_list_devices(server.address, security.Security(secret="guess"))
        assert sum("refused /tensorweave.MasterService/ListDevices" in r.getMessage() for r in caplog.records) == 2
        # A session whose process has another secret is refused too.
        security.set_process_default(security.Security(secret="guess"))
        with tw.Graph().as_default():
            c = tw.constant(1.0)
            with pytest.raises(tw.errors.UnauthenticatedError):
                tw.Session(server.target).run(c)
    finally:
        server.stop()


def _status_over_stream(channels, address, timeout=10.0):
    request = wire.encode({"method": "GetStatus"})
    return wire.decode(channels.stream_call(address, rpc.WORKER, "GetStatus", request, timeout, "GetStatus"))[0]


def test_the_stream_of_calls_needs_the_shared_secret(caplog):
    server = tw.train.Server({"w": ["127.0.0.1:0"]}, "w", 0, secret="s3cret")
    good = rpc.Channels(security.Security(secret="s3cret"))
    try:
        assert [_status_over_stream(good, server.address)["task"] for _ in range(2)] == ["/job:w/replica:0/task:0"] * 2
        with caplog.at_level(logging.WARNING, logger="tensorweave.distributed"):
            for sec, reason in [
                (security.Security(), "no credentials"),
                (security.Security(secret="x"), "wrong secret"),
            ]:
                ch = rpc.Channels(sec)
                try:
                    with pytest.raises(tw.errors.UnauthenticatedError, match=f"GetStatus: .*{reason}"):
                        _status_over_stream(ch, server.address)
                finally:
                    ch.close()
        assert sum("refused /tensorweave.WorkerService/Calls" in r.getMessage() for r in caplog.records) == 2
        assert _status_over_stream(good, server.address)["devices"]
    finally:
        good.close()
        server.stop()


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    c = distributed_certs.make_certs()
    if c is None:
        pytest.skip("the `cryptography` package is not installed: cannot make test certificates")
    d = tmp_path_factory.mktemp("certs")
    for k, v in c.items():
        (d / f"{k}.pem").write_bytes(v)
    return {k: str(d / f"{k}.pem") for k in c}


def test_tls(certs):
    server = tw.train.Server(
        {"w": ["127.0.0.1:0"]},
        "w",
        0,
        protocol="grpc+tls",
        tls_cert=certs["server_cert"],
        tls_key=certs["server_key"],
        tls_ca=certs["ca"],
    )
    try:
        with tw.Graph().as_default():
            c = tw.constant(2.0) * 3.0
            with tw.Session(server.target) as sess:
                assert sess.run(c) == 6.0
        with pytest.raises(tw.errors.UnavailableError):  # plaintext to a TLS server
            _raw_list_devices(server.address, security.Security())
        with pytest.raises(tw.errors.UnavailableError):  # a client that trusts another CA
            _raw_list_devices(server.address, security.Security.resolve({"tls_ca": certs["other_ca"]}, environ={}))
    finally:
        server.stop()


def test_mutual_tls(certs):
    server = tw.train.Server(
        {"w": ["127.0.0.1:0"]},
        "w",
        0,
        tls_cert=certs["server_cert"],
        tls_key=certs["server_key"],
        tls_ca=certs["ca"],
        tls_client_auth=True,
        secret="k",
    )
    try:
        client = security.Security.resolve(
            {
                "tls_ca": certs["ca"],
                "tls_cert": certs["client_cert"],
                "tls_key": certs["client_key"],
                "tls_client_auth": True,
                "secret": "k",
            },
            environ={},
        )
        assert _raw_list_devices(server.address, client)["devices"]
        no_cert = security.Security.resolve({"tls_ca": certs["ca"], "secret": "k"}, environ={})
        with pytest.raises(tw.errors.UnavailableError):
            _raw_list_devices(server.address, no_cert)
        for sec, error in [(client, None), (no_cert, tw.errors.UnavailableError)]:  # the stream of calls too
            ch = rpc.Channels(sec)
            try:
                if error is None:
                    assert _status_over_stream(ch, server.address)["devices"]
                else:
                    with pytest.raises(error):
                        _status_over_stream(ch, server.address)
            finally:
                ch.close()
    finally:
        server.stop()


def test_security_settings_from_tw_config_and_env(tmp_path):
    secret_file = tmp_path / "secret"
    secret_file.write_text("from-file\n")
    env = {"TW_CONFIG": json.dumps({"cluster": {"w": ["h:1"]}, "security": {"secret_file": str(secret_file)}})}
    assert security.Security.resolve(environ=env).secret == b"from-file"
    assert security.Security.resolve({"secret": "kw"}, environ=env).secret == b"kw"
    assert security.Security.resolve(environ={"TW_SECRET": "e"}).secret == b"e"
    with pytest.raises(ValueError, match="unknown security settings"):
        security.Security.resolve({"secrt": "x"}, environ={})
    with pytest.raises(ValueError, match="needs both a certificate"):
        security.Security(tls_cert=b"x")


# --- malformed RPCs ------------------------------------------------------------------------------------------
def test_malformed_worker_calls_are_errors(local_server):
    ch = rpc.Channels(security.Security())
    a = local_server.address

    def call(method, data):
        return ch.call(a, rpc.WORKER, method, data)

    try:
        with pytest.raises(tw.errors.InvalidArgumentError, match="truncated message"):
            call("RunGraph", b"\x00")
        with pytest.raises(tw.errors.InvalidArgumentError, match="graph handle"):
            call("RunGraph", wire.encode({"handle": "x", "step_id": 1}))
        with pytest.raises(tw.errors.OpError, match="123456"):  # an unknown graph handle
            call("RunGraph", wire.encode({"handle": 123456, "step_id": 1, "feeds": [], "fetches": []}))
        with pytest.raises(tw.errors.InvalidArgumentError, match="trace"):
            call("RunGraph", wire.encode({"handle": 1, "step_id": 1, "feeds": [], "fetches": [], "trace": "yes"}))
        run = {"handle": 1, "step_id": 1, "feeds": [], "fetches": []}
        with pytest.raises(tw.errors.InvalidArgumentError, match="first 'yes'"):
            call("RunGraph", wire.encode(dict(run, first="yes")))
        with pytest.raises(tw.errors.InvalidArgumentError, match="traced"):  # (a traced reply is JSON)
            call("RunGraph", wire.encode(dict(run, first=True, trace=True)))
        with pytest.raises(tw.errors.InvalidArgumentError):
            call("RegisterGraph", wire.encode({}, [b"\xff\x00garbage"]))
        push = {
            "step_id": 5,
            "key": "/job:localhost/replica:0/task:0/device:CPU:0;1;"
            "/job:localhost/replica:0/task:0/device:CPU:0;t:0;0:0",
            "is_dead": False,
        }
        with pytest.raises(tw.errors.InvalidArgumentError, match="unknown dtype"):
            call("PushTensor", wire.encode(dict(push, tensors=[{"dtype": 77, "shape": [1], "nbytes": 4}]), [b"abcd"]))
        with pytest.raises(tw.errors.InvalidArgumentError, match="needs 8 bytes"):
            call("PushTensor", wire.encode(dict(push, tensors=[{"dtype": 1, "shape": [2], "nbytes": 4}]), [b"abcd"]))
        with pytest.raises(tw.errors.InvalidArgumentError, match="not one tensor"):
            call("PushTensor", wire.encode(push))
        stream = ch.method(a, rpc.WORKER, "PushTensorStream", kind="stream_unary")
        header = dict(push, tensors=[{"dtype": 1, "shape": [4], "nbytes": 16}])
        for chunks, message in [
            ([wire.encode(header, [b"x" * 8]), b"y" * 16], "more than the 16 bytes"),
            ([wire.encode(header, [b"x" * 8])], "truncated push"),
        ]:
            with pytest.raises(Exception) as e:
                stream(iter(chunks), timeout=5)
            assert message in e.value.details()
        with pytest.raises(tw.errors.AbortedError, match="not open"):
            ch.call(
                a, rpc.MASTER, "RunStep", wire.encode({"session": "nope", "feeds": [], "fetches": [], "targets": []})
            )
        # The server still serves.
        assert _raw_list_devices(a, security.Security())["devices"]
    finally:
        ch.close()


def test_malformed_stream_messages_are_errors(local_server):
    """Each malformed message on the stream of calls ends that stream with an error status; the next call
    opens a new one."""
    ch = rpc.Channels(security.Security())
    a = local_server.address

    def call(data):
        return ch.stream_call(a, rpc.WORKER, "RunGraph", data, 10.0, "streamed call")

    try:
        for data, message in [
            (b"\x00", "truncated message"),
            (b"\xff\xff\xff\x00{}", "truncated message"),
            (wire.encode({"method": "Launch"}), "unknown method 'Launch'"),
            (wire.encode({"method": ["RunGraph"]}), "unknown method"),
            (wire.encode({}), "unknown method None"),
            (wire.encode({"method": "RunGraph", "handle": "x", "step_id": 1}), "graph handle"),
        ]:
            with pytest.raises(tw.errors.InvalidArgumentError, match=f"streamed call: .*{message}"):
                call(data)
        assert _status_over_stream(ch, a)["devices"]
    finally:
        ch.close()


def test_a_task_with_its_most_streams_open_is_called_unary():
    """A server serves streams on at most half its threads: a client refused one more makes unary calls."""
    server = tw.train.Server({"w": ["127.0.0.1:0"]}, "w", 0, max_workers=2)  # one stream at most
    first, second = rpc.Channels(security.Security()), rpc.Channels(security.Security())
    key = (server.address, rpc.WORKER)
    try:
        assert _status_over_stream(first, server.address)["devices"]  # (its stream stays open, idle)
        for _ in range(2):
            assert _status_over_stream(second, server.address)["devices"]
        assert first._open[key] == 1 and second._open[key] == 0 and key in second._refused
    finally:
        first.close()
        second.close()
        server.stop()


def test_an_idle_stream_is_closed_and_frees_its_server_thread(monkeypatch):
    monkeypatch.setattr(rpc, "STREAM_IDLE_S", 0.2)
    server = tw.train.Server({"w": ["127.0.0.1:0"]}, "w", 0, max_workers=2)  # one stream at most
    first, second = rpc.Channels(security.Security()), rpc.Channels(security.Security())
    key = (server.address, rpc.WORKER)
    try:
        assert _status_over_stream(first, server.address)["devices"]
        deadline = time.monotonic() + 10
        while first._open[key] and time.monotonic() < deadline:  # (the watchdog looks every second)
            time.sleep(0.05)
        assert first._open[key] == 0
        time.sleep(0.2)  # (the server sees the stream end)
        assert _status_over_stream(second, server.address)["devices"]
        assert second._open[key] == 1 and key not in second._refused  # the server had a thread for it
    finally:
        first.close()
        second.close()
        server.stop()


def test_a_late_stream_call_is_deadline_exceeded(local_server):
    """The watchdog ends a streamed call at its deadline (the task's step goes on: its own timeout is longer);
    the stream is not used again."""
    with tw.Graph().as_default() as g, tw.device("/job:localhost/replica:0/task:0/device:CPU:0"):
        dequeue = tw.FIFOQueue(3, tw.float32).dequeue()
    ch = rpc.Channels(security.Security())
    a = local_server.address
    try:
        gdef = g.as_graph_def().SerializeToString()
        handle = wire.decode(ch.call(a, rpc.WORKER, "RegisterGraph", wire.encode({}, [gdef])))[0]["handle"]
        run = {"method": "RunGraph", "handle": handle, "step_id": 7, "feeds": [], "fetches": [dequeue.name]}
        start = time.monotonic()
        with pytest.raises(tw.errors.DeadlineExceededError, match="RunGraph: Deadline Exceeded"):
            ch.stream_call(a, rpc.WORKER, "RunGraph", wire.encode(dict(run, timeout_ms=3000)), 0.3, "RunGraph")
        assert 0.3 <= time.monotonic() - start < 2.5
        assert _status_over_stream(ch, a)["devices"]
        assert ch._open[(a, rpc.WORKER)] == 1  # the late one was closed
    finally:
        ch.close()


def test_a_loop_on_the_worker_reads_and_updates_a_ps_variable_every_iteration(cluster):
    """A while loop split across tasks: its predicate on the worker, a variable's update and read on the ps in each
    iteration (the ps runs a control loop; the predicate and the values cross tasks once per iteration, dead ones
    included), and a cond whose taken branch alone updates a ps variable."""
    ps, worker = cluster
    with tw.Graph().as_default():
        with tw.device("/job:ps/task:0"):
            counter = tw.Variable(0.0, name="loop_counter")
            skipped = tw.Variable(0.0, name="cond_skipped")
        with tw.device("/job:worker/task:0"):
            n = tw.placeholder(tw.int32, [])

            def body(i, acc):
                with tw.device("/job:ps/task:0"):
                    count = tw.assign_add(counter, 1.0)
                return i + 1, acc + count

            _, total = tw.while_loop(lambda i, acc: i < n, body, [0, 0.0], parallel_iterations=4)
            p = tw.placeholder(tw.bool, [])

            def untaken():
                with tw.device("/job:ps/task:0"):
                    return tw.identity(tw.assign_add(skipped, 1.0))

            picked = tw.cond(p, lambda: tw.constant(-1.0), untaken)
        with tw.Session(worker.target) as sess:
            sess.run([counter.initializer, skipped.initializer])
            start = 0.0
            for steps in [0, 1, 5, 40]:
                # Iterations update the counter in any order, and an update's value is the variable's when its
                # reader runs (TF1's ref semantics): another of the 4 iterations in flight may have added to it
                # by then. Each iteration adds exactly once.
                expected = sum(start + k + 1 for k in range(steps))
                assert expected <= sess.run(total, {n: steps}) <= expected + 3 * steps
                start += steps
                assert sess.run(counter) == start
            assert sess.run(picked, {p: True}) == -1.0
            assert sess.run(skipped) == 0.0  # the untaken branch's update never ran on the ps
            assert sess.run(picked, {p: False}) == 1.0
        tw.Session.reset(worker.target)

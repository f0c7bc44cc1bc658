"""Named resource containers: `tf.container` scopes the `container` attr of stateful ops, the runtime keeps
variables and resources apart by (container, name), and `Session.reset(target, containers)` frees the named
containers (the default one when none are named) on every task. Expected values: what TF 2.21's
tf.compat.v1 gives for the same programs (local sessions and an in-process `tf.train.Server`), and a
ps + worker cluster of real processes."""

import os
import sys
import textwrap

import pytest

import tensorweave as tw
from tensorweave.distributed import launch


def _attrs(tf1):
    """The `container` attrs of stateful ops made under nested, None and "" container scopes."""
    g = tf1.Graph()
    with g.as_default():
        with tf1.container("x") as name:
            with g.container("y"):
                a = tf1.Variable(1.0, name="a", use_resource=False)
            with tf1.container(None):
                b = tf1.Variable(1.0, name="b", use_resource=False)
            with tf1.container(""):
                c = tf1.Variable(1.0, name="c", use_resource=False)
            d = tf1.Variable(1.0, name="d", use_resource=False)
            q = tf1.FIFOQueue(3, tf1.float32, name="q")
        e = tf1.Variable(1.0, name="e", use_resource=False)
    ops = [a.op, b.op, c.op, d.op, q.queue_ref.op, e.op]
    return name, [op.get_attr("container") for op in ops]


def _server_program(tf1, target):
    """Containers on one server: graphs in different sessions share a variable or queue only when container
    and name match; resets free the named containers. Returns what each step saw."""

    def build(container, value):
        g = tf1.Graph()
        with g.as_default():
            with tf1.container(container):
                v = tf1.Variable(value, name="v", use_resource=False)
                q = tf1.FIFOQueue(5, tf1.float32, shared_name="q", name="q")
            d = tf1.Variable(value + 100.0, name="d", use_resource=False)
            ops = {
                "v": v,
                "d": d,
                "size": q.size(),
                "enq": q.enqueue(value),
                "init": tf1.global_variables_initializer(),
                "uninit": tf1.report_uninitialized_variables(),
            }
        return g, ops

    def look(container, value=-1.0):
        g, ops = build(container, value)
        seen = []
        with tf1.Session(target, graph=g) as sess:
            for key in ("v", "d"):
                try:
                    seen.append(float(sess.run(ops[key])))
                except tf1.errors.FailedPreconditionError as e:
                    seen.append("uninitialized" if "uninitialized value" in e.message else e.message)
            seen.append(sorted(sess.run(ops["uninit"]).tolist()))
            seen.append(int(sess.run(ops["size"])))
        return seen

    log = []
    for container, value in (("a", 1.0), ("b", 2.0)):
        g, ops = build(container, value)
        with tf1.Session(target, graph=g) as sess:
            sess.run(ops["init"])
            for _ in range(int(value)):
                sess.run(ops["enq"])
    log.append(("a", look("a")))  # the value (and queue) of "a" seen by another graph's session
    log.append(("b", look("b")))
    tf1.Session.reset(target, ["a"])
    log.append(("reset a", look("a"), look("b")))
    tf1.Session.reset(target, ["no-such-container"])
    log.append(("reset unknown", look("b")))
    tf1.Session.reset(target)
    log.append(("reset None", look("b")))
    g, ops = build("b", 7.0)
    with tf1.Session(target, graph=g) as sess:
        sess.run(ops["d"].initializer)
    tf1.Session.reset(target, [])
    log.append(("reset []", look("b")))
    return log


def _tf1():
    tf = pytest.importorskip("tensorflow")
    tf.compat.v1.disable_eager_execution()
    return tf.compat.v1


def test_container_scopes_set_the_attr_as_tf():
    tf1 = _tf1()
    assert _attrs(tw) == _attrs(tf1)
    name, got = _attrs(tw)
    assert name == "x" and got == [b"y", b"", b"", b"x", b"x", b""]


def test_containers_on_a_server_as_tf():
    tf1 = _tf1()
    expected = _server_program(tf1, tf1.train.Server.create_local_server().target)
    got = _server_program(tw, tw.train.Server.create_local_server().target)
    assert got == expected
    # What that means: "a" reset (variable uninitialized, queue empty), "b" and the default kept; an unknown
    # name frees nothing; no names (None or []) is the default container only.
    assert expected[2] == ("reset a", ["uninitialized", 102.0, [b"v"], 0], [2.0, 102.0, [], 2])
    assert expected[4] == ("reset None", [2.0, "uninitialized", [b"d"], 2])


def _local_program(tf1):
    with tf1.Graph().as_default():
        v = tf1.Variable(3.0, name="v", use_resource=False)
        with tf1.container("c"):
            w = tf1.Variable(4.0, name="w", use_resource=False)
        sess = tf1.Session()
        sess.run(tf1.global_variables_initializer())
        tf1.Session.reset("", ["c"])  # every in-process session is closed
        with pytest.raises(tf1.errors.CancelledError, match="Session has been closed"):
            sess.run(v)
        with tf1.Session() as fresh:  # a new session starts empty
            with pytest.raises(tf1.errors.FailedPreconditionError, match="uninitialized"):
                fresh.run(w)
            fresh.run(w.initializer)
            return float(fresh.run(w))


def test_local_reset_closes_the_sessions_as_tf():
    tf1 = _tf1()
    assert _local_program(tw) == _local_program(tf1) == 4.0


def test_reset_bad_arguments():
    tf1 = _tf1()
    for mod in (tw, tf1):
        with pytest.raises(mod.errors.NotFoundError, match="No session factory registered"):
            mod.Session.reset("foo")
        with pytest.raises(TypeError):
            mod.Session.reset(5)
    with pytest.raises(TypeError, match="containers must be a list of strings"):
        tw.Session.reset("", "abc")
    with pytest.raises(TypeError, match="containers must be a list of strings"):
        tw.Session.reset("", [1])
    # No server there: a clear error, not a hang (TF waits for it forever).
    (port,) = launch.free_ports(1)
    with pytest.raises(tw.errors.UnavailableError, match=f"127.0.0.1:{port}"):
        tw.Session.reset(f"grpc://127.0.0.1:{port}", ["c"])


SERVER = textwrap.dedent(
    """
    import tensorweave as tw
    from tensorweave.distributed import cluster_resolver

    task = cluster_resolver()
    tw.train.Server(task.cluster, task.task_type, task.task_id).join()
    """
)


def test_cluster_reset_of_named_containers_on_the_ps(tmp_path):
    with launch.LocalCluster([sys.executable, "-c", SERVER], num_ps=1, num_workers=1, logdir=str(tmp_path)) as c:
        c.wait_until_serving(timeout=60)
        target = "grpc://" + c.cluster["worker"][0]

        def build(value):
            g = tw.Graph()
            with g.as_default(), tw.device("/job:ps/task:0"):
                with tw.container("c"):
                    v = tw.Variable(value, name="v")
                with tw.container("k"):
                    k = tw.Variable(value + 1.0, name="v")  # op "v_1", in another container
                d = tw.Variable(value + 2.0, name="d")
                init = tw.global_variables_initializer()
                uninit = tw.report_uninitialized_variables()
            return g, (v, k, d), init, uninit

        def read(value=0.0):
            g, vars_, _, uninit = build(value)
            with tw.Session(target, graph=g) as sess:
                out = []
                for var in vars_:
                    try:
                        out.append(float(sess.run(var)))
                    except tw.errors.FailedPreconditionError as e:
                        assert "Attempting to use uninitialized value" in e.message, e.message
                        out.append(None)
                return out, sorted(sess.run(uninit).tolist())

        g, _, init, _ = build(10.0)
        with tw.Session(target, graph=g) as sess:
            sess.run(init)
        assert read() == ([10.0, 11.0, 12.0], [])  # kept on the ps after the session closed
        tw.Session.reset(target, ["c"])
        assert read() == ([None, 11.0, 12.0], [b"v"])
        tw.Session.reset(target)  # the default container only
        assert read() == ([None, 11.0, None], [b"d", b"v"])
        tw.Session.reset(target, ["k", "c"])
        assert read() == ([None, None, None], [b"d", b"v", b"v_1"])
        assert all(p.poll() is None for p in c.procs.values()), os.listdir(tmp_path)

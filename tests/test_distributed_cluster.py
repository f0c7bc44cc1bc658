"""The distributed runtime's pure-Python parts: ClusterSpec against TensorFlow's behaviour, TW_CONFIG, the
tensor wire form (round trips and malformed messages) and the local cluster launcher (real processes, each
bounded by a watchdog)."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tensorweave as tw
from tensorweave.distributed import cluster_resolver
from tensorweave.distributed import launch
from tensorweave.distributed import wire

ClusterSpec = tw.train.ClusterSpec


# --- ClusterSpec (expected values: what tf.compat.v1.train.ClusterSpec gives for the same specs) -------------
def test_cluster_spec_dense_and_sparse():
    c = ClusterSpec({"worker": ["a:1", "b:2"], "ps": {0: "p:1", 3: "p:4"}})
    assert c.as_dict() == {"worker": ["a:1", "b:2"], "ps": {0: "p:1", 3: "p:4"}}
    assert c.jobs == ["worker", "ps"]
    assert c.num_tasks("ps") == 2 and c.num_tasks("worker") == 2
    assert c.task_indices("ps") == [0, 3]
    assert c.job_tasks("ps") == ["p:1", None, None, "p:4"]
    assert c.task_address("worker", 1) == "b:2"
    assert str(c) == "ClusterSpec({'ps': {0: 'p:1', 3: 'p:4'}, 'worker': ['a:1', 'b:2']})"
    assert bool(c) and not bool(ClusterSpec({}))
    assert c == ClusterSpec(c.as_dict()) and c == ClusterSpec(c) and c != ClusterSpec({"worker": ["a:1"]})
    assert ClusterSpec({"w": [b"h:1"]}).task_address("w", 0) == "h:1"


@pytest.mark.parametrize(
    "spec,error,message",
    [
        (3, TypeError, "must be a dictionary mapping one or more job names"),
        ({1: ["a"]}, TypeError, "Job name 1 must be bytes or unicode"),
        ({"w": "a:1"}, TypeError, "The tasks for job 'w' must be a list or a dictionary"),
        ({"w": [1]}, TypeError, "Task address 1 must be bytes or unicode"),
        ({"w": {"x": "a"}}, ValueError, "invalid literal for int()"),
    ],
)
def test_cluster_spec_bad_specs(spec, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        ClusterSpec(spec)


def test_cluster_spec_lookups_of_what_is_not_there():
    c = ClusterSpec({"ps": {0: "p:1", 3: "p:4"}})
    for f in (lambda: c.num_tasks("zz"), lambda: c.task_indices("zz"), lambda: c.job_tasks("zz")):
        with pytest.raises(ValueError, match="No such job in cluster: 'zz'"):
            f()
    with pytest.raises(ValueError, match="No task with index 1 in job 'ps'"):
        c.task_address("ps", 1)


def test_replica_device_setter_takes_a_cluster_spec():
    cluster = ClusterSpec({"ps": ["p0:1", "p1:1"], "worker": ["w0:1"]})
    with tw.Graph().as_default(), tw.device(tw.train.replica_device_setter(cluster=cluster)):
        v1, v2 = tw.Variable(1.0), tw.Variable(2.0)
        s = v1 + v2
    assert (v1.device, v2.device, s.device) == ("/job:ps/task:0", "/job:ps/task:1", "/job:worker")


# --- TW_CONFIG -----------------------------------------------------------------------------------------------
def test_tw_config():
    cluster = {"ps": ["127.0.0.1:1"], "worker": ["127.0.0.1:2", "127.0.0.1:3"]}
    env = {"TW_CONFIG": json.dumps({"cluster": cluster, "task": {"type": "worker", "index": 1}})}
    t = cluster_resolver(env)
    assert t.cluster == ClusterSpec(cluster)
    assert (t.task_type, t.task_id, t.address, t.master, t.is_chief) == (
        "worker",
        1,
        "127.0.0.1:3",
        "grpc://127.0.0.1:3",
        False,
    )
    assert cluster_resolver({}) is None and cluster_resolver({"TW_CONFIG": " "}) is None


@pytest.mark.parametrize(
    "text,message",
    [
        ("{", "not valid JSON"),
        ("[1]", "must be a JSON object"),
        ('{"task": {}}', "has no 'cluster'"),
        ('{"cluster": {"w": "x"}}', "cluster is malformed"),
        ('{"cluster": {"w": ["h:1"]}, "task": {"type": "ps", "index": 0}}', "task type 'ps' is not a job"),
        ('{"cluster": {"w": ["h:1"]}, "task": {"type": "w", "index": 4}}', "task w:4 is not in its cluster"),
        ('{"cluster": {"w": ["h:1"]}, "task": {"type": "w", "index": "x"}}', "is not an integer"),
    ],
)
def test_tw_config_malformed(text, message):
    with pytest.raises(ValueError, match=message):
        cluster_resolver({"TW_CONFIG": text})


# --- the wire form -------------------------------------------------------------------------------------------
def test_wire_round_trip_every_dtype():
    values = [
        np.arange(12, dtype=np.float32).reshape(3, 4),
        np.array([[b"ab", b""], [b"xyz", b"\x00q"]], dtype=object),
        np.array(True),
        np.float64(2.5),
        np.zeros((0, 5), np.int64),
        np.arange(6, dtype=np.int8)[::2],  # not contiguous
    ] + [np.arange(4).astype(t) for t in (np.float16, np.int16, np.int32, np.uint8, np.uint16, np.uint32, np.uint64)]
    header, payload = wire.decode(wire.encode_tensors({"k": 1}, values))
    out = wire.decode_tensors(header, payload)
    assert header["k"] == 1
    for v, o in zip(values, out):
        v = np.asarray(v)
        assert o.shape == v.shape and (o.dtype == v.dtype or v.dtype == object)
        np.testing.assert_array_equal(o, v)


def test_wire_header_prefix_gives_the_message_of_the_whole_header():
    """A header encoded once (`header_prefix`) and extended per message (`encode_with_prefix`) decodes as the
    whole header does."""
    static = {"handle": 7, "feeds": ["a:0", 'q"\\'], "flag": False}
    prefix = wire.header_prefix(static)
    values = [np.arange(3, dtype=np.float32), np.array([b"x", b"yz"], dtype=object)]
    for tensors in (values, []):
        data = wire.encode_with_prefix(prefix, {"step_id": 2**62 + 5}, tensors)
        assert data == wire.encode_tensors(dict(static, step_id=2**62 + 5), tensors)
        header, payload = wire.decode(data)
        assert header == dict(static, step_id=2**62 + 5, tensors=header["tensors"])
        for got, want in zip(wire.decode_tensors(header, payload), tensors):
            np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError):
        wire.header_prefix({})


def test_wire_decodes_without_copying():
    data = wire.encode_tensors({}, [np.arange(1000, dtype=np.float64)])
    (out,) = wire.decode_tensors(*wire.decode(data))
    assert not out.flags.owndata and np.shares_memory(out, np.frombuffer(data, np.uint8))


def _message(meta, payload):
    return wire.encode({"tensors": [meta]}, [payload])


@pytest.mark.parametrize(
    "data,error,message",
    [
        (b"\x01\x00", tw.errors.InvalidArgumentError, "truncated message"),
        (b"\xff\x00\x00\x00{}", tw.errors.InvalidArgumentError, "truncated message: header of 255 bytes"),
        (b"\x02\x00\x00\x00{x", tw.errors.InvalidArgumentError, "malformed message header"),
        (b"\x02\x00\x00\x00[]", tw.errors.InvalidArgumentError, "not an object"),
        (
            _message({"dtype": 99, "shape": [1], "nbytes": 4}, b"1234"),
            tw.errors.InvalidArgumentError,
            "unknown dtype 99",
        ),
        (_message({"dtype": 1, "shape": [2], "nbytes": 4}, b"1234"), tw.errors.InvalidArgumentError, "needs 8 bytes"),
        (_message({"dtype": 1, "shape": [-1], "nbytes": 4}, b"1234"), tw.errors.InvalidArgumentError, "non-negative"),
        (
            _message({"dtype": 1, "shape": [2], "nbytes": 8}, b"1234"),
            tw.errors.InvalidArgumentError,
            "truncated tensor",
        ),
        (_message({"dtype": 1, "shape": [1], "nbytes": 4}, b"12345"), tw.errors.InvalidArgumentError, "1 bytes after"),
        (
            _message({"dtype": 7, "shape": [2], "nbytes": 3, "lengths": [1, 1]}, b"abc"),
            tw.errors.InvalidArgumentError,
            "do not add up",
        ),
        (_message({"dtype": 1, "shape": [1 << 40], "nbytes": 1 << 42}, b""), tw.errors.ResourceExhaustedError, "over"),
    ],
)
def test_wire_malformed_messages_are_errors(data, error, message):
    with pytest.raises(error, match=message):
        wire.decode_tensors(*wire.decode(data))


# --- the launcher --------------------------------------------------------------------------------------------
_TASK_SCRIPT = textwrap.dedent(
    """
    import json, os, sys, time
    from tensorweave.distributed import cluster_resolver
    t = cluster_resolver()
    print("ROLE", t.task_type, t.task_id, t.address, json.dumps(t.cluster.as_dict()), flush=True)
    markers = os.environ["TW_TEST_MARKERS"]
    open(os.path.join(markers, f"{t.task_type}-{t.task_id}"), "w").close()
    if t.task_type == "ps":
        time.sleep(600)  # a parameter server serves until the launcher stops it
    # Worker 1's failure stops the cluster: it ends only once every task has printed its role.
    deadline = time.time() + 60
    while len(os.listdir(markers)) < 3 and time.time() < deadline:
        time.sleep(0.05)
    sys.exit(int(sys.argv[1]) if t.task_id == 1 else 0)
    """
)


def test_launcher_runs_every_task_with_its_config_and_logs(tmp_path):
    script = tmp_path / "task.py"
    script.write_text(_TASK_SCRIPT)
    logdir = tmp_path / "logs"
    cmd = [
        sys.executable,
        "-m",
        "tensorweave.distributed.launch",
        "--ps",
        "1",
        "--workers",
        "2",
        "--logdir",
        str(logdir),
        "--timeout",
        "60",
        str(script),
        "3",
    ]
    (tmp_path / "markers").mkdir()
    env = dict(os.environ, TW_TEST_MARKERS=str(tmp_path / "markers"))
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=90, check=False, env=env)
    assert r.returncode == 3, r.stdout + r.stderr  # worker 1's status
    assert sorted(os.listdir(logdir)) == ["ps-0.log", "worker-0.log", "worker-1.log"]
    roles = {}
    for name in os.listdir(logdir):
        line = next(x for x in (logdir / name).read_text().splitlines() if x.startswith("ROLE"))
        _, job, index, address, cluster = line.split(" ", 4)
        roles[(job, int(index))] = (address, json.loads(cluster))
    cluster = roles[("ps", 0)][1]
    assert set(roles) == {("ps", 0), ("worker", 0), ("worker", 1)}
    assert all(c == cluster for _, c in roles.values())
    assert roles[("worker", 1)][0] == cluster["worker"][1] and cluster["ps"][0].startswith("127.0.0.1:")


def test_launcher_watchdog_kills_the_cluster(tmp_path):
    script = tmp_path / "hang.py"
    script.write_text("import os, time\nprint(os.getpid(), flush=True)\ntime.sleep(600)\n")
    with launch.LocalCluster([sys.executable, str(script)], num_ps=1, num_workers=1, logdir=str(tmp_path)) as c:
        with pytest.raises(TimeoutError):
            c.wait(timeout=1.0)
        procs = list(c.procs.values())
    assert all(p.poll() is not None for p in procs)  # all killed on exit

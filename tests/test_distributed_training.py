"""The distributed runtime with real processes on 127.0.0.1, started by the local launcher with TW_CONFIG:
asynchronous between-graph training (1 ps, 2 workers) reaching the single-process accuracy, a killed
parameter server noticed within seconds (UnavailableError, never a hang), and a killed worker that the other
workers of asynchronous training do not notice. Every cluster is killed by a
watchdog (the launcher's timeout, `LocalCluster` on exit)."""

import os
import signal
import sys
import time

import pytest
from distributed_util import wait_for
from tensorweave.distributed import launch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "distributed", "train_digits_async.py")
pytest.importorskip("sklearn")


def test_async_between_graph_training_reaches_single_process_accuracy(tmp_path):
    sys.path.insert(0, os.path.dirname(EXAMPLE))
    try:
        import train_digits_async
    finally:
        sys.path.pop(0)
    single = train_digits_async.train_single_process(steps=300)
    with launch.LocalCluster(
        [sys.executable, EXAMPLE, "--steps", "300"], num_ps=1, num_workers=2, logdir=str(tmp_path)
    ) as cluster:
        codes = cluster.wait(timeout=120)
        logs = {k: cluster.log(*k) for k in cluster.procs if k[0] == "worker"}
    assert codes == {("worker", 0): 0, ("worker", 1): 0}, logs
    accuracies = [
        float(line.split()[1]) for log in logs.values() for line in log.splitlines() if line.startswith("ACCURACY")
    ]
    assert len(accuracies) == 2, logs
    assert single > 0.85
    for a in accuracies:  # asynchronous updates: the same accuracy, up to the noise of stale gradients
        assert a >= single - 0.05, (accuracies, single)


def test_a_killed_parameter_server_is_unavailable_within_seconds(tmp_path):
    script = os.path.join(ROOT, "tests", "distributed_fault_task.py")
    with launch.LocalCluster([sys.executable, script], num_ps=1, num_workers=1, logdir=str(tmp_path)) as cluster:
        wait_for(lambda: "STEPPING" in cluster.log("worker", 0), 60, "the worker's first steps")
        killed_at = time.time()
        cluster.kill("ps", 0, signal.SIGKILL)
        codes = cluster.wait(timeout=30)  # a hang fails here (TimeoutError), and the cluster is killed
        log = cluster.log("worker", 0)
    assert codes[("worker", 0)] == 0, log
    line = next(x for x in log.splitlines() if x.startswith("ERROR"))
    _, cls, when, _ = line.split(" ", 3)
    assert cls == "UnavailableError", line
    assert float(when) - killed_at < 20, line  # a bound on a hang (it fails at once), not a performance figure


def _steps(log):
    return max([int(x.split()[1]) for x in log.splitlines() if x.startswith("STEP ")], default=0)


def test_asynchronous_workers_go_on_when_one_is_killed(tmp_path):
    script = os.path.join(ROOT, "tests", "distributed_fault_task.py")
    with launch.LocalCluster([sys.executable, script], num_ps=1, num_workers=2, logdir=str(tmp_path)) as cluster:
        for i in (0, 1):
            wait_for(lambda i=i: "STEPPING" in cluster.log("worker", i), 60, f"worker {i}'s first steps")
        cluster.kill("worker", 1, signal.SIGKILL)
        at_kill = _steps(cluster.log("worker", 0))
        wait_for(lambda: _steps(cluster.log("worker", 0)) >= at_kill + 60, 60, "worker 0 to go on")
        log = cluster.log("worker", 0)
        assert cluster.procs[("worker", 0)].poll() is None, log
    assert "ERROR" not in log, log

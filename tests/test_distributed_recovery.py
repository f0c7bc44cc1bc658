"""Recovery after a parameter server restart, with real processes on 127.0.0.1 (the local launcher, every
cluster killed by a watchdog: `LocalCluster` on exit and the wait's timeout): the chief trains with
`MonitoredTrainingSession(checkpoint_dir=...)`; the ps is killed with SIGKILL and started again (empty); the
chief's step fails with UnavailableError, its MonitoredSession makes a new session, which restores the latest
checkpoint, and training goes on from there, losing at most one checkpoint interval, to its last step."""

import os
import signal
import sys
import time

from distributed_util import wait_for
from tensorweave.distributed import launch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TASK = os.path.join(ROOT, "tests", "distributed_recovery_task.py")
EVERY = 10
LAST = 80


def _steps(log):
    """[(global step, count)] of the STEP lines of a log, in order."""
    return [tuple(int(v) for v in x.split()[1:3]) for x in log.splitlines() if x.startswith("STEP ")]


def test_training_resumes_from_the_latest_checkpoint_after_a_ps_restart(tmp_path):
    ckpt = tmp_path / "ckpt"
    command = [sys.executable, TASK, "--checkpoint-dir", str(ckpt), "--every", str(EVERY), "--last-step", str(LAST)]
    with launch.LocalCluster(command, num_ps=1, num_workers=1, logdir=str(tmp_path / "logs")) as cluster:

        def log():
            return cluster.log("worker", 0)

        wait_for(lambda: len(_steps(log())) >= 3 * EVERY + 5, 90, "the chief's first steps")
        cluster.kill("ps", 0, signal.SIGKILL)
        before = _steps(log())
        time.sleep(0.5)  # the chief notices and tries again while the ps is down
        cluster.restart("ps", 0)
        try:
            codes = cluster.wait(timeout=90)  # a hang fails here, and the cluster is killed
        except TimeoutError:
            os.kill(cluster.procs[("worker", 0)].pid, signal.SIGUSR1)  # its threads' stacks into its log
            time.sleep(1)
            raise AssertionError(f"the chief hung after the ps restarted:\n{log()[-20000:]}") from None
        text = log()
    assert codes == {("worker", 0): 0}, text
    assert "DONE" in text, text
    steps = _steps(text)
    last_before = before[-1][0]
    after = steps[len(before) :]
    assert after, text
    # The new ps was restored from the latest checkpoint: not from scratch, at most one interval back.
    resumed = after[0][0]
    assert last_before - EVERY < resumed <= last_before + 1, (last_before, after[:3])
    assert resumed > 1, text
    # Every variable came back from the same checkpoint (they moved together before and after).
    assert all(s == c for s, c in steps), steps
    assert steps[-1][0] == LAST, steps[-5:]
    # The chief's MonitoredSession saw the failed step (UnavailableError: the ps is gone) and made a new session.
    assert "LOG tensorweave An error was raised. This may be due to a preemption" in text, text

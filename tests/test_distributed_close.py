"""Closing a remote session (`Session("grpc://...").close()`) while another thread's step is blocked on a task of
the cluster ends that step with CancelledError, as closing a local session does. Servers on 127.0.0.1 in this
process; the local session is the oracle."""

import threading
import time

import numpy as np
import pytest
import tensorweave as tw


def _blocked_then_closed(target, ps_device, worker_device):
    """The error of a step blocked in a dequeue of an empty queue when its session is closed, the seconds
    the close took to end it, and the queue's next value after a fresh session fed it."""
    with tw.Graph().as_default():
        with tw.device(ps_device):
            q = tw.FIFOQueue(3, tw.float32, shared_name="close_q")
            dequeue = q.dequeue()
            enqueue = q.enqueue(7.0)
        with tw.device(worker_device):
            out = dequeue + 1.0
        sess = tw.Session(target)
        got = {}

        def run():
            try:
                sess.run(out)
            except Exception as e:  # noqa: BLE001 - the test looks at it
                got["error"] = e

        t = threading.Thread(target=run, daemon=True)
        t.start()
        time.sleep(0.3)
        assert t.is_alive(), got
        start = time.monotonic()
        sess.close()
        t.join(10)
        assert not t.is_alive(), "closing the session left its step blocked"
        seconds = time.monotonic() - start
        with tw.Session(target) as again:  # the queue is still there and works
            again.run(enqueue)
            value = again.run(out)
        with pytest.raises(RuntimeError, match="closed Session"):
            sess.run(out)
    return got.get("error"), seconds, value


def test_closing_a_remote_session_cancels_its_blocked_step(cluster, master_path):
    ps, worker = cluster
    local_err, _, local_value = _blocked_then_closed("", None, None)
    err, seconds, value = _blocked_then_closed(worker.target, "/job:ps/task:0", "/job:worker/task:0")
    assert isinstance(local_err, tw.errors.CancelledError), local_err
    assert isinstance(err, tw.errors.CancelledError), err
    assert "closed" in err.message or "cancelled" in err.message, err.message
    assert seconds < 5  # a bound on a hang, not a performance figure
    assert value == local_value == np.float32(8.0)

"""Shared by the distributed tests: waiting, bounded, for a condition on the tasks' logs, and the
fixtures of a ps + worker cluster in this process and of the client's path to its master. conftest.py
loads this module as a plugin, so every test file has the fixtures."""

import time

import pytest


def wait_for(predicate, timeout, what):
    """Polls predicate() every 50 ms; AssertionError naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def cluster():
    """A ps task and a worker task, each its own server, in this process."""
    import tensorweave as tw
    from tensorweave.distributed import launch

    ps_port, worker_port = launch.free_ports(2)
    spec = {"ps": [f"127.0.0.1:{ps_port}"], "worker": [f"127.0.0.1:{worker_port}"]}
    ps = tw.train.Server(spec, "ps", 0)
    worker = tw.train.Server(spec, "worker", 0)
    yield ps, worker
    worker.stop()
    ps.stop()


@pytest.fixture(params=["in-process", "grpc"])
def master_path(request, monkeypatch):
    """A client of a server of this process calls its master directly (TF's LocalMaster); "grpc" makes it
    go through RunStep and the other master RPCs as a client in another process does."""
    from tensorweave.distributed import server as server_lib

    if request.param == "grpc":
        monkeypatch.setattr(server_lib, "local_master", lambda address, security: None)
    return request.param

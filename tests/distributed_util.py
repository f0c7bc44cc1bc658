"""Shared by the tests that run real clusters: waiting, bounded, for a condition on the tasks' logs."""

import time


def wait_for(predicate, timeout, what):
    """Polls predicate() every 50 ms; AssertionError naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")

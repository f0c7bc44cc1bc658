"""Shared fixtures: every test builds into its own fresh default graph."""

import os

# Tests that compare with TensorFlow get the same TensorFlow on every machine: its oneDNN kernels, which it turns
# on by itself only on CPUs with AVX-512 VNNI and the like (tests/fidelity/record.py says why).
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "1")

import numpy as np
import pytest
import tensorweave as tw

# The distributed tests' in-process ps + worker cluster and master-path fixtures.
pytest_plugins = ["tests.distributed_util"]


@pytest.fixture
def graph():
    """A fresh `tw.Graph()`, the default graph for the duration of the test."""
    g = tw.Graph()
    with g.as_default():
        yield g


@pytest.fixture
def sess(graph):
    """A session on the test's fresh graph (closed afterwards)."""
    s = tw.Session(graph=graph)
    try:
        yield s
    finally:
        s.close()


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


def pytest_terminal_summary(terminalreporter):
    """After a run of the ONNX node conformance tests, their count (how many
    of onnx's node tests pass through the importer and the lite runtime)."""
    reports = [r for kind in ("passed", "failed", "skipped") for r in terminalreporter.stats.get(kind, [])]
    node_tests = [r for r in reports if "::test_onnx_node[" in getattr(r, "nodeid", "") and r.when == "call"]
    if not node_tests:
        return
    from converters import onnx_conformance

    passed = sum(1 for r in node_tests if r.passed)
    terminalreporter.write_sep("-", "ONNX conformance")
    terminalreporter.write_line(onnx_conformance.summary(onnx_conformance.data_dir(), passed))

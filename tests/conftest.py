"""Shared fixtures: every test builds into its own fresh default graph."""

import os

# Tests that compare with TensorFlow get the same TensorFlow on every machine: its oneDNN kernels, which it turns
# on by itself only on CPUs with AVX-512 VNNI and the like (tests/fidelity/record.py says why).
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import tensorweave as tw  # noqa: E402


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

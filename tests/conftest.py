"""Shared fixtures: every test builds into its own fresh default graph."""

import numpy as np
import pytest

import tensorweave as tw


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

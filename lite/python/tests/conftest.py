import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

import twl_writer  # noqa: E402  (generates the schema's Python code)


@pytest.fixture(scope="session")
def mlp_model():
    """(bytes, params) of a 4-3-2 MLP with a dynamic batch."""
    return twl_writer.mlp()


@pytest.fixture
def mlp_path(tmp_path, mlp_model):
    path = tmp_path / "mlp.twl"
    path.write_bytes(mlp_model[0])
    return str(path)

"""Every fidelity case: tensorweave must observe what TensorFlow 1 observes (see harness.py)."""

import json
import os
import subprocess
import sys
import warnings

import pytest

import tensorweave as tw
from tests.fidelity import harness

CASES = harness.load_cases()
ROOT = os.path.dirname(os.path.dirname(harness.HERE))
OUTCOMES = harness.OUTCOMES


def _tensorflow_installed():
    try:
        import importlib.util

        return importlib.util.find_spec("tensorflow") is not None
    except ValueError:
        return False


@pytest.fixture(scope="session")
def tensorflow_observations():
    """TensorFlow's observations of every case: live from a subprocess where TensorFlow is installed, else the
    stored reference."""
    proc = None
    if _tensorflow_installed() and os.environ.get("TW_FIDELITY_REFERENCE") != "stored":
        proc = subprocess.run(
            [sys.executable, "-m", "tests.fidelity.record", "--stdout"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=900,
        )
        if proc.returncode not in (0, harness.NO_TENSORFLOW):
            raise RuntimeError(f"running the cases under TensorFlow failed:\n{proc.stderr[-4000:]}")
    if proc is not None and proc.returncode == 0:
        data = json.loads(proc.stdout)
        source = f"TensorFlow {data['tensorflow']} (live)"
    else:
        with open(harness.REFERENCE_FILE) as f:
            data = json.load(f)
        source = f"TensorFlow {data['tensorflow']} (stored reference)"
    harness.SOURCE = source
    return data["cases"]


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_case_behaves_as_tensorflow(case_id, tensorflow_observations):
    c = CASES[case_id]
    if case_id not in tensorflow_observations:
        pytest.fail(f"{case_id} has no TensorFlow observation: rerun `python -m tests.fidelity.record`")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = harness.observe(tw, c.fn)
    diffs = harness.differences(ours, tensorflow_observations[case_id], c.tol)
    if c.known_difference and not diffs and c.tf_varies:
        OUTCOMES["identical"] += 1  # this machine's TensorFlow agrees
        return
    if c.known_difference:
        OUTCOMES["known"] += 1
        assert diffs, f"{case_id} now matches TensorFlow: drop its known_difference note ({c.known_difference})"
        return
    OUTCOMES["identical" if not diffs else "different"] += 1
    assert not diffs, "\n".join(diffs)

"""TF1 programs run unchanged under TensorFlow (`tensorflow.compat.v1`, the oracle) and under tensorweave, and
compared: losses after a few steps, values, static shapes, dtypes, names and error classes
(tests/tf1_programs/ holds the programs, one script each).

The TF half runs once, in a subprocess of its own (TF1 programs call `tf.disable_v2_behavior()`, which would
change TF for the rest of this process); it is skipped when TensorFlow is missing, and each program then only
has to run under tensorweave without an error.
"""

import importlib.util
import os
import pickle
import subprocess
import sys
import tempfile

import numpy as np
import pytest

from tests.tf1_programs import PROGRAMS, runner
from tests.tf1_programs.compare import differences

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HAVE_TF = importlib.util.find_spec("tensorflow") is not None


@pytest.fixture(scope="module")
def results():
    """(ours, TensorFlow's or None): every program's results under both. The TF half runs in a subprocess
    while ours run here, so the two overlap on a 2-core machine."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "tf.pkl")
        proc = None
        if HAVE_TF:
            env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
            proc = subprocess.Popen(
                [sys.executable, "-m", "tests.tf1_programs.runner", "tensorflow", out],
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
        try:
            tw = runner.import_system("tensorweave")
            ours = {name: runner.run_program(tw, name) for name in PROGRAMS}
        finally:
            if proc is not None:
                _, stderr = proc.communicate(timeout=600)
        if proc is None:
            return ours, None
        if proc.returncode != 0:
            pytest.fail(f"the TensorFlow half failed:\n{stderr[-3000:]}")
        with open(out, "rb") as f:
            return ours, pickle.load(f)


@pytest.mark.parametrize("name", PROGRAMS)
def test_program(name, results):
    ours, tensorflow_results = results
    ours = ours[name]
    assert "error" not in ours, f"{name} failed under tensorweave:\n{ours.get('traceback')}"
    if tensorflow_results is None:
        return
    theirs = tensorflow_results[name]
    assert "error" not in theirs, f"{name} failed under TensorFlow (the program is wrong):\n{theirs['traceback']}"
    diffs = differences(ours["ok"], theirs["ok"])
    assert not diffs, f"{name}: tensorweave differs from TensorFlow:\n" + "\n".join(d[:800] for d in diffs)


def test_programs_exist():
    assert len(PROGRAMS) >= 25


def test_compare_finds_differences():
    """The comparison itself fails on a wrong value, shape, string, key or type (so the tests above can fail)."""
    base = {"loss": [np.float32(1.0), np.float32(2.0)], "shape": [None, 3], "name": "x:0", "err": "ValueError"}
    assert differences(base, base) == []
    assert differences({**base, "loss": [np.float32(1.0), np.float32(2.001)]}, base)
    assert differences({**base, "shape": [None, 4]}, base)
    assert differences({**base, "name": "y:0"}, base)
    assert differences({**base, "err": None}, base)
    assert differences({k: v for k, v in base.items() if k != "err"}, base)
    assert differences({**base, "loss": np.zeros([2, 1])}, base)


def test_control_dependency_on_fed_placeholder():
    """A control edge from a fed placeholder waits for nothing (TF's feed rewrite), the executor fix behind
    tf.metrics.mean's update_op (p11): only the placeholder's own value was ever missing."""
    import tensorweave as tw_

    with tw_.Graph().as_default():
        x = tw_.placeholder(tw_.float32, [None])
        with tw_.control_dependencies([x]):
            y = tw_.constant(2.0) * 3.0
        z = x + y
        with tw_.Session() as sess:
            assert sess.run(z, {x: [1.0]}).tolist() == [7.0]
            assert sess.run(y, {x: [1.0]}) == 6.0
            with pytest.raises(tw_.errors.InvalidArgumentError, match="must feed a value for placeholder"):
                sess.run(y)

"""The ONNX node conformance tests of the supported ops, run through the
importer and the lite runtime (converters/onnx_conformance.py holds the
include list and every exclusion with its reason)."""

import glob
import os

import numpy as np
import pytest

pytest.importorskip("onnx")

from converters import lite_runner  # noqa: E402
from converters import onnx_conformance  # noqa: E402

pytestmark = pytest.mark.skipif(not lite_runner.available(), reason="bazel build //lite/c:libtensorweave_lite.so first")


@pytest.fixture(scope="module")
def data_dir():
    return onnx_conformance.data_dir()


def _selected():
    try:
        return onnx_conformance.selected_tests(onnx_conformance.data_dir())
    except Exception as e:  # noqa: BLE001 - reported by test_the_suite_is_there
        return [f"<no data: {e}>"]


def test_the_suite_is_there(data_dir):
    # Guards against an include list that silently selects nothing.
    assert len(onnx_conformance.selected_tests(data_dir)) >= 150


@pytest.mark.parametrize("name", _selected())
def test_onnx_node(data_dir, name):
    onnx_conformance.run_case(data_dir, name, lite_runner.LiteRunner)


@pytest.mark.parametrize("name", sorted(onnx_conformance.EXCLUDE))
def test_excluded_tests_still_fail_as_stated(data_dir, name):
    """An exclusion that starts passing, or fails with another error than
    the one it names, must be updated."""
    if not os.path.isdir(os.path.join(data_dir, name)):
        pytest.skip(f"{name} is not in this onnx version's suite")
    onnx_conformance.check_still_fails(data_dir, name, lite_runner.LiteRunner)


def test_a_wrong_failure_or_a_pass_is_reported(data_dir, monkeypatch):
    # An excluded test failing with another error than the one named fails.
    name = "test_batchnorm_epsilon_training_mode"
    wrong = onnx_conformance.Excluded("why", onnx_conformance.ConversionError, "a message it does not give")
    monkeypatch.setitem(onnx_conformance.EXCLUDE, name, wrong)
    with pytest.raises(AssertionError, match="it failed with ConversionError: .*training mode batch"):
        onnx_conformance.check_still_fails(data_dir, name, lite_runner.LiteRunner)
    wrong_class = onnx_conformance.Excluded("why", lite_runner.LiteError, "training mode batch")
    monkeypatch.setitem(onnx_conformance.EXCLUDE, name, wrong_class)
    with pytest.raises(AssertionError, match="failing with LiteError"):
        onnx_conformance.check_still_fails(data_dir, name, lite_runner.LiteRunner)
    # A passing test listed as excluded fails.
    monkeypatch.setitem(onnx_conformance.EXCLUDE, "test_relu", wrong)
    with pytest.raises(AssertionError, match="test_relu passes now"):
        onnx_conformance.check_still_fails(data_dir, "test_relu", lite_runner.LiteRunner)


def test_a_runtime_answering_in_another_dtype_fails(data_dir):
    # The same values in another element type are a mismatch, not a pass.
    class Float64Runner(lite_runner.LiteRunner):
        def run(self, feeds):
            return {k: v.astype(np.float64) for k, v in super().run(feeds).items()}

    with pytest.raises(AssertionError, match="output y is float64, the reference float32"):
        onnx_conformance.run_case(data_dir, "test_relu", Float64Runner)


def test_every_exclusion_is_of_an_included_op():
    # An exclusion outside INCLUDE is dead text: nothing would run it.
    prefixes = [p if p.endswith("_") else p + "_" for p in onnx_conformance.INCLUDE]
    stray = [n for n in onnx_conformance.EXCLUDE if not any(n.startswith(p) for p in prefixes)]
    assert not stray, f"exclusions of tests no INCLUDE prefix selects: {stray}"


def test_every_include_prefix_names_tests_of_the_suite(data_dir):
    # A prefix that matches no test of the suite (a typo, or "test_cast_INT",
    # which matched neither test_cast_INT2_* nor test_cast_INT4_*) checks nothing.
    names = [os.path.basename(p) for p in glob.glob(os.path.join(data_dir, "test_*"))]
    idle = [
        p
        for p in onnx_conformance.INCLUDE
        if not any(n == p or n.startswith(p if p.endswith("_") else p + "_") for n in names)
    ]
    assert not idle, f"INCLUDE prefixes that match no test: {idle}"


def test_the_summary_counts_passes_exclusions_and_missing_ops(data_dir, monkeypatch):
    # The line the run prints (tests/conftest.py): the pass count it is given,
    # the suite's size, its excluded tests and the op types with no importer.
    from converters.onnx_import import IMPORTERS

    total = len(glob.glob(os.path.join(data_dir, "test_*")))
    excluded = sum(1 for n in onnx_conformance.EXCLUDE if os.path.isdir(os.path.join(data_dir, n)))
    line = onnx_conformance.summary(data_dir, 7)
    assert line.startswith(f"ONNX node tests: 7 of {total} pass through the importer and the lite runtime; ")
    assert f"; {excluded} excluded with reasons; " in line
    missing = int(line.rsplit("; ", 1)[1].split()[0])
    monkeypatch.delitem(IMPORTERS, "Relu")
    assert int(onnx_conformance.summary(data_dir, 7).rsplit("; ", 1)[1].split()[0]) == missing + 1

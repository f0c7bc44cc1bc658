"""The ONNX node conformance tests of the supported ops, run through the
importer and the lite runtime (converters/onnx_conformance.py holds the
include list and every exclusion with its reason)."""

import os

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
def test_excluded_tests_still_fail(data_dir, name):
    """An exclusion that starts passing must be removed from EXCLUDE."""
    if not os.path.isdir(os.path.join(data_dir, name)):
        pytest.skip(f"{name} is not in this onnx version's suite")
    with pytest.raises(Exception):  # noqa: B017 - any conversion or runtime failure
        onnx_conformance.run_case(data_dir, name, lite_runner.LiteRunner)

"""Registry-wide checks: every op has a kernel and a gradient (or is declared
not differentiable); every differentiable op has a finite-difference
gradient case that really differentiates through it; every lite builtin
and every entry of the tf->twl table has a core-vs-lite-vs-onnxruntime
case; the tf->twl and ONNX export tables convert the same op types.

Each check is a function returning its problems, also called here with a
fake extra op / builtin / case to show that it can fail."""

import os

import pytest
import tensorweave as tw
from gradient_cases import GradientCase, all_cases, coverage_problems
from tensorweave import _pywrap_tensorweave as pywrap
from tensorweave._src.ops import gradients_impl

from converters import onnx_export, tables, tf_to_twl

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TESTS_DIR)


def _op_names():
    return sorted(d["name"] for d in pywrap.op_defs())


def test_every_op_has_a_cpu_kernel():
    kernels = set(pywrap.registered_kernels())
    missing = [op for op in _op_names() if op not in kernels]
    assert not missing, f"ops without a kernel: {missing}"


# Ops that TensorFlow itself leaves without a gradient (neither registered nor declared NotDifferentiable), so
# that differentiating through them is a LookupError there as here.
_NO_GRADIENT_AS_IN_TF = {"GuaranteeConst", "FractionalMaxPoolGrad", "FractionalAvgPoolGrad", "MatrixLogarithm"}


def test_every_op_has_a_gradient_or_is_declared_not_differentiable():
    differentiable, not_differentiable = gradients_impl.registered_gradients()
    missing = [op for op in _op_names() if op not in differentiable | not_differentiable | _NO_GRADIENT_AS_IN_TF]
    assert not missing, f"ops without a gradient or NotDifferentiable: {missing}"


def _test_sources():
    texts = []
    for base in (TESTS_DIR, os.path.join(ROOT, "core")):
        for dirpath, _, files in os.walk(base):
            for f in files:
                if f.endswith(("_test.cc", ".py")) and ("test" in f or "gradient_cases" in dirpath):
                    with open(os.path.join(dirpath, f), encoding="utf-8") as fh:
                        texts.append(fh.read())
    return "\n".join(texts)


def test_every_op_without_a_gradient_is_named_in_a_test():
    # A weak check, kept for the ops that no stronger one covers: the
    # differentiable ops are checked below (a gradient case that builds a
    # graph through them); the others need their quoted name in some test.
    differentiable, _ = gradients_impl.registered_gradients()
    text = _test_sources()
    missing = [op for op in _op_names() if op not in differentiable and f'"{op}"' not in text and f"'{op}'" not in text]
    assert not missing, f"ops that no test names (as a quoted op type): {missing}"


# --- gradients: tests/gradient_cases ---------------------------------------------------
def test_every_differentiable_op_has_a_gradient_case_that_covers_it():
    differentiable, not_differentiable = gradients_impl.registered_gradients()
    problems = coverage_problems(differentiable, not_differentiable, all_cases())
    assert not problems, "\n".join(problems)


def test_gradient_coverage_reports_an_op_without_a_case_and_a_false_claim():
    differentiable, not_differentiable = gradients_impl.registered_gradients()
    cases = all_cases()
    # A newly registered gradient with no case.
    problems = coverage_problems(differentiable | {"FakeNewOp"}, not_differentiable, cases)
    assert problems == ["FakeNewOp has a gradient but no gradient case names it in .ops"]
    # A case naming an op its graph does not differentiate through (tw.div
    # of floats builds RealDiv, not Div), or through a constant only.
    wrong = [
        GradientCase("div claims Div", lambda x, y: tw.div(x, y), [[2], [2]], low=0.5, high=2.0, ops=["Div"]),
        GradientCase("constant exp", lambda x: x + tw.exp(tw.constant(1.0, tw.float64)), [[2]], ops=["Exp"]),
        GradientCase("claims Equal", lambda x: tw.identity(x), [[2]], ops=["Equal"]),
    ]
    problems = coverage_problems(differentiable, not_differentiable, cases + wrong)
    assert problems == [
        "case 'div claims Div' names Div, but its graph has no Div on a path from its inputs",
        "case 'constant exp' names Exp, but its graph has no Exp on a path from its inputs",
        "case 'claims Equal' names Equal, which declared NotDifferentiable",
        "case 'claims Equal' names Equal, but its graph has no Equal on a path from its inputs",
    ]


# --- lite builtins and the conversion tables: tests/test_lite_vs_core.py -------------
@pytest.fixture(scope="module")
def lite_coverage():
    import test_lite_vs_core

    return test_lite_vs_core, test_lite_vs_core.coverage()


def test_every_lite_builtin_has_a_comparison_case(lite_coverage):
    harness, coverage = lite_coverage
    missing = harness.uncovered(harness.builtin_names(), {name: ops[0] for name, ops in coverage.items()})
    assert not missing, f"lite builtins that no case of tests/test_lite_vs_core.py converts to: {missing}"


def test_onnx_only_builtins_are_compared_in_the_onnx_tests(lite_coverage):
    harness, _ = lite_coverage
    text = ""
    for name in (
        "test_converters_transformer.py",
        "test_converters_rnn.py",
        "test_converters_resize_cast.py",
        "test_converters_index_ops.py",
        "test_converters_elementwise_ops.py",
        "test_converters_logic_reduce_ops.py",
        "test_converters_quant_ops.py",
        "test_converters_conv_pool_ops.py",
        "test_converters_ptq.py",
        "test_converters_composite_ops.py",
        "test_converters_dynamic_shapes.py",
        "test_converters_dynamic_dims.py",
    ):
        with open(os.path.join(TESTS_DIR, name)) as f:
            text += f.read()
    schema = {k for k in vars(harness.twl_schema.enum("BuiltinOperator")) if not k.startswith("_")}
    assert harness.ONNX_ONLY_BUILTINS <= schema
    assert [b for b in sorted(harness.ONNX_ONLY_BUILTINS) if f'"{b}"' not in text] == []


def test_every_tf_to_twl_lowering_has_a_comparison_case_or_a_reason(lite_coverage):
    harness, coverage = lite_coverage
    assert all(harness.NO_CASE.values()), "each op type without a case needs its reason"
    required = set(tf_to_twl.LOWERINGS) - set(harness.NO_CASE)
    missing = harness.uncovered(required, {name: ops[1] for name, ops in coverage.items()})
    assert not missing, (
        f"tf->twl op types that no case's frozen graph holds (add a case or a NO_CASE reason): {missing}"
    )
    # A reason for an op type that a case does hold is stale.
    held = set().union(*(ops[1] for ops in coverage.values()))
    assert not set(harness.NO_CASE) & held, f"NO_CASE entries that a case holds: {set(harness.NO_CASE) & held}"
    assert set(harness.NO_CASE) <= set(tf_to_twl.LOWERINGS), "NO_CASE entries not in the tf->twl table"


def test_lite_coverage_reports_a_builtin_without_a_case(lite_coverage):
    harness, coverage = lite_coverage
    builtins = {name: ops[0] for name, ops in coverage.items()}
    assert harness.uncovered(harness.builtin_names() | {"FAKE_NEW_BUILTIN"}, builtins) == ["FAKE_NEW_BUILTIN"]
    # Without the standalone Relu6 case, RELU6 has none (the other Relu6
    # cases fuse it into MUL / CONV_2D).
    without = {name: ops for name, ops in builtins.items() if name != "Relu6"}
    assert harness.uncovered(harness.builtin_names(), without) == ["RELU6"]


def test_tf_to_twl_and_onnx_export_tables_convert_the_same_op_types():
    problems = tables.table_differences(tf_to_twl.LOWERINGS, onnx_export.EXPORTERS)
    assert not problems, "\n".join(problems)


def test_table_differences_need_a_reason():
    lowerings = {"Relu": None, "Conv2D": None, "Erf": None}
    exporters = {"Relu": None, "Conv2D": None, "Gelu": None}
    assert tables.table_differences(lowerings, exporters, {}, {}) == [
        "Erf: lowered to .twl but not exported to ONNX, and not in ONLY_TO_TWL with a reason",
        "Gelu: exported to ONNX but not lowered to .twl, and not in ONLY_TO_ONNX with a reason",
    ]
    assert tables.table_differences(lowerings, exporters, {"Erf": "why"}, {"Gelu": "why"}) == []
    assert tables.table_differences(lowerings, exporters, {"Erf": ""}, {"Gelu": "why", "Relu": "why"}) == [
        "Erf: lowered to .twl but not exported to ONNX, and not in ONLY_TO_TWL with a reason",
        "Relu: listed in ONLY_TO_ONNX but it is not an ONNX-only op type (stale entry)",
    ]


def test_public_functions_have_docstrings():
    undocumented = [
        name
        for name in dir(tw)
        if not name.startswith("_") and callable(getattr(tw, name)) and not getattr(tw, name).__doc__
    ]
    assert not undocumented, f"public names without a docstring: {undocumented}"

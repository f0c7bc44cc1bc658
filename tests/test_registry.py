"""Registry-wide checks: every op has a kernel, a gradient (or is declared
not differentiable) and is exercised by some test."""

import os

import tensorweave as tw
from tensorweave import _pywrap_tensorweave as pywrap
from tensorweave._src.ops import gradients_impl

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TESTS_DIR)


def _op_names():
    return sorted(d["name"] for d in pywrap.op_defs())


def test_every_op_has_a_cpu_kernel():
    kernels = set(pywrap.registered_kernels())
    missing = [op for op in _op_names() if op not in kernels]
    assert not missing, f"ops without a kernel: {missing}"


def test_every_op_has_a_gradient_or_is_declared_not_differentiable():
    differentiable, not_differentiable = gradients_impl.registered_gradients()
    missing = [op for op in _op_names() if op not in differentiable | not_differentiable]
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


def test_every_op_is_named_in_a_test():
    text = _test_sources()
    missing = [op for op in _op_names() if f'"{op}"' not in text and f"'{op}'" not in text]
    assert not missing, f"ops that no test names (as a quoted op type): {missing}"


def test_public_functions_have_docstrings():
    undocumented = [
        name
        for name in dir(tw)
        if not name.startswith("_") and callable(getattr(tw, name)) and not getattr(tw, name).__doc__
    ]
    assert not undocumented, f"public names without a docstring: {undocumented}"

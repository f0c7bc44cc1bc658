"""Declarative gradient cases, one module per op family.

Each family module defines `CASES`, a list of `GradientCase`; the single test
in tests/test_gradients.py checks every case's symbolic gradient against
central differences in float64. Adding a differentiable op means adding a
case here, nothing else.

`GradientCase.ops` names the op types whose gradient functions a case
checks. tests/test_registry.py requires every op with a registered gradient
to be named by some case, and builds each case's graph to check that every
op type it names really lies on a path from the case's inputs to its output
(`coverage_problems`), so a wrong claim fails as well as a missing case.
"""

import dataclasses
import importlib
import pkgutil
from collections.abc import Sequence
from typing import Callable, Optional

import numpy as np

import tensorweave as tw


@dataclasses.dataclass
class GradientCase:
    """fn(*inputs) -> Tensor, differentiated with respect to every input.

    shapes: one shape per differentiable input (float64 placeholders).
    low/high: the range the random input values are drawn from (keep away
      from kinks, e.g. low=0.1 for sqrt, or pass `values` explicitly).
    values: optional explicit numpy inputs instead of random ones.
    """

    name: str
    fn: Callable
    shapes: Sequence[Sequence[int]]
    low: float = -1.0
    high: float = 1.0
    values: Optional[Sequence] = None
    atol: float = 1e-6
    rtol: float = 1e-5
    # The op types whose gradients this case checks: each must lie on a path
    # from an input to the output of fn (tests/test_registry.py checks it).
    ops: Sequence[str] = ()


def all_cases():
    cases = []
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        cases.extend(getattr(module, "CASES", []))
    return cases


def input_values(case, rng=None):
    """The case's float64 inputs: its explicit values, else random ones."""
    if case.values is not None:
        return [np.array(v, dtype=np.float64) for v in case.values]
    rng = np.random.default_rng(0) if rng is None else rng
    return [rng.uniform(case.low, case.high, size=s).astype(np.float64) for s in case.shapes]


def differentiated_op_types(case):
    """The op types on a path from the case's inputs to its output, in the
    graph fn builds: the ops whose gradient functions the case exercises."""
    with tw.Graph().as_default():
        xs = [tw.placeholder(tw.float64, v.shape) for v in input_values(case)]
        y = case.fn(*xs)
        sources = {x.op.name for x in xs}
        depends = {}  # op name -> whether it depends on an input

        def visit(op):
            if op.name not in depends:
                depends[op.name] = False  # (no cycles in these graphs)
                # A list, not a generator: every input is visited (any() would stop early).
                depends[op.name] = op.name in sources or any([visit(t.op) for t in op.inputs])  # noqa: C419
            return depends[op.name]

        visit(y.op)
        graph_ops = {op.name: op.type for op in tw.get_default_graph().get_operations()}
    return {graph_ops[name] for name, on_path in depends.items() if on_path and name not in sources}


def coverage_problems(differentiable, not_differentiable, cases):
    """Problems (strings) with the gradient cases: a differentiable op type
    that no case names in `.ops`; a case naming an op type that its graph does
    not differentiate through; a case naming an op type without a gradient."""
    problems = []
    named = set()
    for case in cases:
        if not case.ops:
            continue
        named.update(case.ops)
        claimed = set(case.ops)
        for op in sorted(claimed - set(differentiable)):
            why = "declared NotDifferentiable" if op in not_differentiable else "has no registered gradient"
            problems.append(f"case {case.name!r} names {op}, which {why}")
        on_path = differentiated_op_types(case)
        for op in sorted(claimed - on_path):
            problems.append(f"case {case.name!r} names {op}, but its graph has no {op} on a path from its inputs")
    for op in sorted(set(differentiable) - named):
        problems.append(f"{op} has a gradient but no gradient case names it in .ops")
    return problems

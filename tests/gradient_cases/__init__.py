"""Declarative gradient cases, one module per op family.

Each family module defines `CASES`, a list of `GradientCase`; the single test
in tests/test_gradients.py checks every case's symbolic gradient against
central differences in float64. Adding a differentiable op means adding a
case here, nothing else.
"""

import dataclasses
import importlib
import pkgutil
from typing import Callable, Optional, Sequence


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
    ops: Sequence[str] = ()  # op types this case covers (for the registry test)


def all_cases():
    cases = []
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        cases.extend(getattr(module, "CASES", []))
    return cases

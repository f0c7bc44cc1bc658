"""Gradient cases through cond and while_loop: the gradients of Switch, Merge, Enter, Exit and NextIteration
(and the stacks a while loop's gradient keeps) against central differences.
A cond inside a loop is checked in tests/test_control_flow.py."""

import tensorweave as tw

from gradient_cases import GradientCase


def _power_loop(x):
    """x ** 3 (elementwise) by a while loop: x enters as a loop invariant, the product is a loop variable."""
    return tw.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x), [tw.constant(0), tw.ones_like(x)])[1]


CASES = [
    GradientCase(
        "cond taken branch",
        lambda x: tw.cond(tw.reduce_sum(x) > 0, lambda: x * x, lambda: tw.sin(x)),
        [[3]],
        values=[[0.5, -0.2, 0.4]],
        ops=["Switch", "Merge"],
    ),
    GradientCase(
        "cond other branch",
        lambda x: tw.cond(tw.reduce_sum(x) > 0, lambda: x * x, lambda: tw.sin(x) * 3.0),
        [[3]],
        values=[[-0.5, -0.2, 0.4]],
        ops=["Switch", "Merge"],
    ),
    GradientCase("while power", _power_loop, [[2, 2]], ops=["Enter", "Exit", "NextIteration", "Merge", "Switch"]),
    GradientCase(
        "while loop variable",
        lambda x: tw.while_loop(lambda a: tw.reduce_sum(a) < 20.0, lambda a: a * a + 1.0, [x]),
        [[2]],
        values=[[0.5, 1.0]],
        ops=["Enter", "Exit"],
    ),
]

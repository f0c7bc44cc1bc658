"""tw.autograph.experimental: Feature, do_not_convert, set_loop_options."""

import enum as _enum
import functools as _functools


class Feature(_enum.Enum):
    """The optional AutoGraph conversions (TF's names)."""

    ALL = "ALL"
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    ASSERT_STATEMENTS = "ASSERT_STATEMENTS"
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    LISTS = "LISTS"
    NAME_SCOPES = "NAME_SCOPES"


def do_not_convert(func=None):
    """Marks `func` as not to be converted; works as `@do_not_convert` and `@do_not_convert()`."""
    if func is None:
        return do_not_convert
    if not callable(func):
        raise TypeError(f"do_not_convert expects a callable, got {type(func).__name__}")

    @_functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)

    wrapper.__ag_do_not_convert__ = True
    return wrapper


def set_loop_options(parallel_iterations=None, swap_memory=None, maximum_iterations=None, shape_invariants=None):
    """Loop options for a converted Python loop: no effect (loops are not converted); tw.while_loop takes them."""
    del parallel_iterations, swap_memory, maximum_iterations, shape_invariants


__all__ = ["Feature", "do_not_convert", "set_loop_options"]

"""tw.debugging (TF1's tf.debugging): the assert_* functions, Assert, check_numerics, is_nan/is_inf/is_finite.

Example:
  >>> import tensorweave as tw
  >>> tw.debugging.assert_equal is tw.assert_equal
  True
"""

import tensorweave as _tw

_NAMES = [
    "Assert",
    "assert_equal",
    "assert_greater",
    "assert_greater_equal",
    "assert_integer",
    "assert_less",
    "assert_less_equal",
    "assert_near",
    "assert_negative",
    "assert_non_negative",
    "assert_non_positive",
    "assert_none_equal",
    "assert_positive",
    "assert_proper_iterable",
    "assert_rank",
    "assert_rank_at_least",
    "assert_rank_in",
    "assert_same_float_dtype",
    "assert_scalar",
    "assert_type",
    "check_numerics",
    "is_finite",
    "is_inf",
    "is_nan",
    "is_non_decreasing",
    "is_numeric_tensor",
    "is_strictly_increasing",
]
for _name in _NAMES:
    globals()[_name] = getattr(_tw, _name)


def assert_all_finite(t, msg, name=None, x=None, message=None):
    """check_numerics(t, msg): t, failing the step when it holds a NaN or Inf (TF1's)."""
    return _tw.check_numerics(t if x is None else x, msg if message is None else message, name=name)


from tensorweave._src.ops.debug_extras import (
    assert_shapes,
    disable_check_numerics,
    disable_traceback_filtering,
    enable_check_numerics,
    enable_traceback_filtering,
    get_log_device_placement,
    is_traceback_filtering_enabled,
    set_log_device_placement,
)

__all__ = [  # noqa: PLE0604
    *_NAMES,
    "assert_all_finite",
    "assert_shapes",
    "disable_check_numerics",
    "disable_traceback_filtering",
    "enable_check_numerics",
    "enable_traceback_filtering",
    "get_log_device_placement",
    "is_traceback_filtering_enabled",
    "set_log_device_placement",
]
del _name

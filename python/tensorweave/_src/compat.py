"""tf.compat's helpers: bytes/text conversion, the numeric type tuples, forward compatibility and dimensions."""

import contextlib
import datetime
import numbers
import os

import numpy as np

from tensorweave._src.framework.tensor_shape import dimension_at_index, dimension_value

__all__ = [
    "as_bytes",
    "as_str",
    "as_str_any",
    "as_text",
    "bytes_or_text_types",
    "complex_types",
    "dimension_at_index",
    "dimension_value",
    "forward_compatibility_horizon",
    "forward_compatible",
    "integral_types",
    "path_to_str",
    "real_types",
]

integral_types = (numbers.Integral, np.integer)
real_types = (numbers.Real, np.integer, np.floating)
complex_types = (numbers.Complex, np.number)
bytes_or_text_types = (bytes, str)


def as_bytes(bytes_or_text, encoding="utf-8"):
    """`bytes_or_text` as bytes: str is encoded, bytes (and bytearray) returned as bytes; else TypeError."""
    encoding = __import__("codecs").lookup(encoding).name
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def as_text(bytes_or_text, encoding="utf-8"):
    """`bytes_or_text` as str: bytes are decoded, str returned; else TypeError."""
    encoding = __import__("codecs").lookup(encoding).name
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


as_str = as_text


def as_str_any(value, encoding="utf-8"):
    """str(value), except that bytes are decoded."""
    if isinstance(value, bytes):
        return as_str(value, encoding=encoding)
    return str(value)


def path_to_str(path):
    """A PathLike as its str path; anything else unchanged."""
    if hasattr(path, "__fspath__"):
        path = as_str_any(path.__fspath__())
    return path


# The forward-compatibility horizon of the TensorFlow release whose API tensorweave follows (2.21).
_FORWARD_COMPATIBILITY_HORIZON = datetime.date(2026, 1, 16)
_DELTA_DAYS_VAR = "TF_FORWARD_COMPATIBILITY_DELTA_DAYS"
_date_number = None


def _date_to_date_number(year, month, day):
    return (year << 9) | (month << 5) | day


def _update_date_number(date_to_override=None):
    global _date_number
    if date_to_override:
        date = date_to_override
    else:
        date = _FORWARD_COMPATIBILITY_HORIZON
        delta_days = os.getenv(_DELTA_DAYS_VAR)
        if delta_days:
            date += datetime.timedelta(days=int(delta_days))
    if date < _FORWARD_COMPATIBILITY_HORIZON:
        from tensorweave._src.platform import tf_logging

        tf_logging.warning(
            "Trying to set the forward compatibility date to the past date %s. This will be ignored." % date  # noqa: UP031
        )
        return
    _date_number = _date_to_date_number(date.year, date.month, date.day)


_update_date_number()


def forward_compatible(year, month, day):
    """True when the forward-compatibility window has passed the given date."""
    return _date_number > _date_to_date_number(year, month, day)


@contextlib.contextmanager
def forward_compatibility_horizon(year, month, day):
    """Within the block, forward_compatible() answers as if the horizon were the given date."""
    try:
        _update_date_number(datetime.date(year, month, day))
        yield
    finally:
        _update_date_number()

"""tw.autograph (TF1's tf.autograph): in TF1 graph mode these are conversion entry points and decorators.
tensorweave does not rewrite Python control flow into graph ops (write it with tw.cond / tw.while_loop), so
`to_graph` returns the function unchanged and `to_code` its source.

Example:
  >>> import tensorweave as tw
  >>> f = lambda x: x + 1
  >>> tw.autograph.to_graph(f) is f
  True
"""

import inspect as _inspect
import textwrap as _textwrap

from tensorweave._src.platform import tf_logging as _logging
from tensorweave.autograph import experimental

_verbosity = {"level": 0, "alsologtostdout": False}


class ConversionError(Exception):
    """An entity AutoGraph cannot take (TF's autograph ConversionError)."""


def to_graph(entity, recursive=True, arg_values=None, arg_types=None, experimental_optional_features=None):
    """Returns the function `entity` unchanged: no AutoGraph conversion (see the module doc). As TF, an object
    without a `__code__` (not a Python function or method) is a ConversionError."""
    del recursive, arg_values, arg_types, experimental_optional_features
    if not hasattr(getattr(entity, "__func__", entity), "__code__"):
        raise ConversionError(
            f"converting {entity}: ValueError: Cannot apply autograph to a function that doesn't expose a "
            "__code__ object. If this is a @tf.function, try passing f.python_function instead."
        )
    return entity


def to_code(
    entity, recursive=True, arg_values=None, arg_types=None, indentation="  ", experimental_optional_features=None
):
    """The source code of `entity` (what to_graph returns runs that code)."""
    del recursive, arg_values, arg_types, indentation, experimental_optional_features
    try:
        return _textwrap.dedent(_inspect.getsource(to_graph(entity)))
    except (OSError, TypeError) as e:  # source not available (a lambda typed at a prompt, a builtin)
        raise ValueError(f"Cannot get the source code of {entity!r}: {e}") from None


def set_verbosity(level, alsologtostdout=False):
    """Sets AutoGraph's log verbosity (recorded; tensorweave's AutoGraph logs nothing)."""
    _verbosity["level"] = int(level)
    _verbosity["alsologtostdout"] = bool(alsologtostdout)


def trace(*args):
    """Logs the arguments at INFO (TF prints them when the code runs; in a graph that is when it is built)."""
    _logging.info(" ".join(str(a) for a in args))
    if _verbosity["alsologtostdout"]:
        print(*args)


__all__ = ["experimental", "set_verbosity", "to_code", "to_graph", "trace"]

"""The differential harness: each case runs under tensorweave and under TensorFlow 1 and the two must agree.

A case is a function of the framework module (`tensorweave`, or `tensorflow.compat.v1` with v2 behaviour off)
and a session on a fresh default graph. It builds what it needs and returns what a TF1 program would observe:
tensors (fetched at the end), numpy values, static shapes, dimensions, dtypes, names, Python values, nested in
lists, tuples and dicts. An exception raised by the case is an observation too: its class, as a TF1 `except`
clause would catch it (a builtin class such as ValueError, or a `tf.errors` class).

  @case
  def div_floors_ints(tf, sess):
      return tf.div([-7, 7], [2, -2])          # TF1: [-4, -4]

Cases live in `cases_<family>.py` beside this file. TensorFlow runs them in a subprocess (so that
`disable_v2_behavior` never touches the tensorweave process or other tests), and its observations are stored
in `reference.json` by `python -m tests.fidelity.record`; without TensorFlow the tests compare against that
file. A case whose difference is deliberate carries `known_difference="why"`: it is expected to differ (the
test fails when it starts to match, so the note cannot go stale) and is listed in the README.
"""

import importlib
import math
import os
import pkgutil
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE_FILE = os.path.join(HERE, "reference.json")
# record.py's exit status when TensorFlow is installed but does not import (the tests then use the stored reference).
NO_TENSORFLOW = 3

# The exception classes a TF1 program catches by name: the tf.errors classes and Python's own.
TF_ERROR_NAMES = {
    "OpError",
    "CancelledError",
    "UnknownError",
    "InvalidArgumentError",
    "DeadlineExceededError",
    "NotFoundError",
    "AlreadyExistsError",
    "PermissionDeniedError",
    "UnauthenticatedError",
    "ResourceExhaustedError",
    "FailedPreconditionError",
    "AbortedError",
    "OutOfRangeError",
    "UnimplementedError",
    "InternalError",
    "UnavailableError",
    "DataLossError",
}


@dataclass
class Case:
    id: str
    fn: Callable
    tol: float
    known_difference: Optional[str]
    tf_varies: bool = False


CASES = {}
# What the test run found, for the summary line (tests/fidelity/conftest.py).
OUTCOMES = {"identical": 0, "different": 0, "known": 0}


def case(fn=None, *, tol=1e-5, known_difference=None, tf_varies=False):
    """Registers a fidelity case; `tol` is the relative and absolute tolerance for floating-point values.
    `tf_varies`: TensorFlow's own result for a known difference depends on the machine (its CPU kernels differ by
    instruction set), so matching it is no sign that the note went stale."""

    def register(f):
        family = f.__module__.rsplit(".", 1)[-1].removeprefix("cases_")
        case_id = f"{family}.{f.__name__}"
        known = CASES.get(case_id)
        # The same file imported under a second module name (pytest's doctest collection) is no duplicate.
        if known is not None and known.fn.__code__.co_filename != f.__code__.co_filename:
            raise ValueError(f"duplicate fidelity case {case_id}")
        CASES[case_id] = Case(case_id, f, tol, known_difference, tf_varies)
        return f

    return register(fn) if fn is not None else register


def load_cases():
    """Imports every `cases_*.py` module beside this file; returns the registry."""
    for info in pkgutil.iter_modules([HERE]):
        if info.name.startswith("cases_"):
            importlib.import_module(f"{__package__}.{info.name}")
    return CASES


def exception_class(exc):
    """The class a TF1 program would name in `except`: a tf.errors class, else the nearest builtin class."""
    for cls in type(exc).__mro__:
        if cls.__name__ in TF_ERROR_NAMES:
            return cls.__name__
        if cls.__module__ == "builtins":
            return cls.__name__
    return type(exc).__name__


def _is_tensor_like(value):
    # tf.Tensor, tf.Variable (ref or resource), tf.Operation, tensorweave's own.
    return hasattr(value, "graph") and (hasattr(value, "op") or hasattr(value, "node_def") or hasattr(value, "type"))


def _normalize_number(x):
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, bytes):
        return x.decode("utf-8", "replace")
    if isinstance(x, str):
        return x
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def _normalize_array(a, kind):
    if a.dtype.kind == "c":
        values = [[_normalize_number(v.real), _normalize_number(v.imag)] for v in a.reshape(-1)]
    elif a.dtype.kind == "O":
        values = [_normalize_number(v) for v in a.reshape(-1)]
    else:
        values = [_normalize_number(v) for v in a.reshape(-1).tolist()]
    dtype = "string" if a.dtype.kind in "OSU" else a.dtype.name
    return {"kind": kind, "dtype": dtype, "shape": list(a.shape), "values": values}


def normalize(value, fetch):
    """Turns an observation into JSON data; `fetch` evaluates graph elements left in it."""
    if _is_tensor_like(value) and not hasattr(value, "as_list"):
        return normalize(fetch(value), fetch)
    type_name = type(value).__name__
    if type_name == "TensorShape":
        dims = value.as_list() if value.ndims is not None else None
        return {"kind": "shape", "dims": dims}
    if type_name == "Dimension":
        return {"kind": "dimension", "value": value.value}
    if type_name == "DType":
        return {"kind": "dtype", "name": value.name}
    if isinstance(value, np.ndarray):
        return _normalize_array(value, "array")
    if isinstance(value, np.generic):
        return _normalize_array(np.asarray(value), "numpy-scalar")
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return {
            "kind": "python",
            "type": type(value).__name__,
            "value": _normalize_number(value) if value is not None else None,
        }
    if isinstance(value, (list, tuple)):
        return {"kind": "sequence", "items": [normalize(v, fetch) for v in value]}
    if isinstance(value, dict):
        return {"kind": "dict", "items": {str(k): normalize(v, fetch) for k, v in sorted(value.items())}}
    raise TypeError(f"fidelity cases cannot observe a {type(value).__name__}: return values, shapes or names")


def observe(tf, fn):
    """Runs one case under `tf` in a fresh graph; returns its normalized observation."""
    graph = tf.Graph()
    with graph.as_default():
        sess = tf.Session(graph=graph)
        try:
            try:
                result = fn(tf, sess)
                return normalize(result, sess.run)
            except Exception as exc:  # the class of what a case raises is what it observes
                return {"kind": "raises", "class": exception_class(exc)}
        finally:
            sess.close()


def _numbers_close(a, b, tol):
    if isinstance(a, str) or isinstance(b, str) or isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    return abs(a - b) <= tol * (1.0 + abs(b))


def differences(ours, theirs, tol, path="result"):
    """Lists how observation `ours` differs from `theirs` (empty when they agree)."""
    if ours.get("kind") != theirs.get("kind"):
        return [f"{path}: {_describe(ours)} where TensorFlow gives {_describe(theirs)}"]
    kind = ours["kind"]
    if kind in ("array", "numpy-scalar"):
        for key in ("dtype", "shape"):
            if ours[key] != theirs[key]:
                return [f"{path}: {key} {ours[key]} where TensorFlow gives {theirs[key]}"]
        a, b = ours["values"], theirs["values"]
        if not all(_numbers_close(x, y, tol) for x, y in zip(_flat(a), _flat(b))):
            return [f"{path}: values {_short(a)} where TensorFlow gives {_short(b)}"]
        return []
    if kind == "sequence":
        if len(ours["items"]) != len(theirs["items"]):
            return [f"{path}: {len(ours['items'])} items where TensorFlow gives {len(theirs['items'])}"]
        return [
            d
            for i, (x, y) in enumerate(zip(ours["items"], theirs["items"]))
            for d in differences(x, y, tol, f"{path}[{i}]")
        ]
    if kind == "dict":
        if set(ours["items"]) != set(theirs["items"]):
            return [f"{path}: keys {sorted(ours['items'])} where TensorFlow gives {sorted(theirs['items'])}"]
        return [
            d for k in ours["items"] for d in differences(ours["items"][k], theirs["items"][k], tol, f"{path}[{k!r}]")
        ]
    if kind == "python" and ours["type"] == theirs["type"] == "float":
        ok = _numbers_close(ours["value"], theirs["value"], tol)
        return [] if ok else [f"{path}: {ours['value']} where TensorFlow gives {theirs['value']}"]
    return [] if ours == theirs else [f"{path}: {_describe(ours)} where TensorFlow gives {_describe(theirs)}"]


def _flat(values):
    for v in values:
        if isinstance(v, list):
            yield from v
        else:
            yield v


def _short(values, limit=12):
    return values if len(values) <= limit else values[:limit] + ["..."]


def _describe(obs):
    kind = obs.get("kind")
    if kind == "raises":
        return f"raises {obs['class']}"
    if kind in ("array", "numpy-scalar"):
        return f"{kind} {obs['dtype']}{obs['shape']} {_short(obs['values'])}"
    if kind == "python":
        return f"{obs['type']} {obs['value']!r}"
    if kind == "shape":
        return f"shape {obs['dims']}"
    return repr(obs)

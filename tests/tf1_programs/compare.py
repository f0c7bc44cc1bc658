"""Compares two results of one program (nested dicts / lists of numbers, arrays and strings)."""

import numpy as np


def differences(ours, theirs, rtol=1e-4, atol=1e-5, path="result"):
    """A list of strings, one per difference between `ours` and `theirs` (empty when they agree)."""
    if isinstance(theirs, dict):
        if not isinstance(ours, dict) or sorted(ours) != sorted(theirs):
            return [f"{path}: keys {sorted(ours) if isinstance(ours, dict) else ours!r} != {sorted(theirs)}"]
        return [d for k in theirs for d in differences(ours[k], theirs[k], rtol, atol, f"{path}[{k!r}]")]
    if isinstance(theirs, list):
        if not isinstance(ours, list) or len(ours) != len(theirs):
            return [f"{path}: {ours!r} != {theirs!r}"]
        return [d for i, (a, b) in enumerate(zip(ours, theirs)) for d in differences(a, b, rtol, atol, f"{path}[{i}]")]
    if isinstance(theirs, (str, bytes)) or theirs is None or isinstance(theirs, bool):
        return [] if type(ours) is type(theirs) and ours == theirs else [f"{path}: {ours!r} != {theirs!r}"]
    a, b = np.asarray(ours), np.asarray(theirs)
    if a.shape != b.shape:
        return [f"{path}: shape {a.shape} != {b.shape}"]
    if b.dtype.kind in "OSU" or a.dtype.kind in "OSU":
        return [] if a.tolist() == b.tolist() else [f"{path}: {a!r} != {b!r}"]
    as_type = np.complex128 if "c" in (a.dtype.kind, b.dtype.kind) else np.float64
    if not np.allclose(a.astype(as_type), b.astype(as_type), rtol=rtol, atol=atol, equal_nan=True):
        return [f"{path}: {a!r} != {b!r}"]
    return []

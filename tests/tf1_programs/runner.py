"""Runs the TF1 programs under one system and pickles what they returned.

  python -m tests.tf1_programs.runner tensorflow|tensorweave OUT.pkl [names...]

Under TensorFlow the programs get `tensorflow.compat.v1` after `disable_v2_behavior()`, as TF1 code run on TF2
does; under tensorweave `tensorweave.compat.v1` with the same call. A program that raises records its error class
and message in place of its results.
"""

import os
import pickle
import sys
import tempfile
import traceback

import numpy as np


def import_system(system):
    if system == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # tf.layers needs tf_keras under TF 2.16+
        import tensorflow.compat.v1 as tf
    else:
        import tensorweave.compat.v1 as tf
    tf.disable_v2_behavior()
    return tf


def to_plain(value):
    """Results as plain Python and numpy values (no system's own types), so the two can be compared."""
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, (np.ndarray, np.generic)):
        return np.asarray(value)
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return value
    raise TypeError(f"program returned a {type(value).__name__}: {value!r}")


def run_program(tf, name):
    from tests.tf1_programs import load

    with tempfile.TemporaryDirectory() as workdir:
        try:
            return {"ok": to_plain(load(name).main(tf, workdir))}
        except Exception as e:  # noqa: BLE001 - recorded and compared
            return {"error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()}


def main(argv):
    system, out = argv[0], argv[1]
    from tests.tf1_programs import PROGRAMS

    names = argv[2:] or PROGRAMS
    tf = import_system(system)
    results = {name: run_program(tf, name) for name in names}
    with open(out, "wb") as f:
        pickle.dump(results, f)


if __name__ == "__main__":
    main(sys.argv[1:])

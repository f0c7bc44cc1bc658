"""TF1 programs written the way TF1 tutorials and answers wrote them, each run unchanged under TensorFlow
(`tensorflow.compat.v1`) and under tensorweave (`tests/test_tf1_programs.py` compares the two).

Each `pNN_*.py` has `main(tf, workdir)`: `tf` is the module the program imported as `tf`, `workdir` a fresh
directory for checkpoints and summaries. It returns a dict of what the program printed (losses, shapes, dtypes,
names, error class names), which the test compares between the two systems.
"""

import importlib
import os

PROGRAMS = sorted(f[:-3] for f in os.listdir(os.path.dirname(__file__)) if f.startswith("p") and f.endswith(".py"))


def load(name):
    return importlib.import_module(f"{__name__}.{name}")

"""Runs every fidelity case under TensorFlow 1 (`tensorflow.compat.v1`, v2 behaviour off) and prints or stores
the observations.

  python -m tests.fidelity.record            # rewrites tests/fidelity/reference.json
  python -m tests.fidelity.record --stdout   # prints them (what the tests read when TensorFlow is installed)
"""

import argparse
import json
import os
import sys
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
# compat.v1.layers come from tf-keras (Keras 3 has no tf.layers); tools/install_deps.sh installs it.
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
# TensorFlow turns its oneDNN kernels on by itself only on CPUs with AVX-512 VNNI and the like; elsewhere (AVX2
# machines) its Eigen kernels refuse what oneDNN's do (dilated Conv3D and dilated Conv2D gradients are errors there)
# and a few values differ (softmax beside a NaN). The oracle is the same TensorFlow on every machine: oneDNN on.
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "1")

from tests.fidelity import harness  # noqa: E402


def tensorflow_v1():
    try:
        import tensorflow as tf
    except ImportError as e:
        print(f"tensorflow does not import: {e}", file=sys.stderr)
        sys.exit(harness.NO_TENSORFLOW)

    v1 = tf.compat.v1
    v1.disable_v2_behavior()
    v1.logging.set_verbosity(v1.logging.ERROR)
    return v1, tf.__version__


def record():
    tf, version = tensorflow_v1()
    cases = harness.load_cases()
    observations = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for case_id, c in sorted(cases.items()):
            observations[case_id] = harness.observe(tf, c.fn)
    return {"tensorflow": version, "cases": observations}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stdout", action="store_true", help="print the observations instead of storing them")
    args = parser.parse_args(argv)
    data = record()
    text = json.dumps(data, indent=1, sort_keys=True)
    if args.stdout:
        sys.stdout.write(text)
    else:
        with open(harness.REFERENCE_FILE, "w") as f:
            f.write(text + "\n")
        print(f"wrote {len(data['cases'])} observations of TensorFlow {data['tensorflow']} to {harness.REFERENCE_FILE}")


if __name__ == "__main__":
    main()

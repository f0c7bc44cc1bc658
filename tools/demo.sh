#!/usr/bin/env bash
# The main demo: trains a CNN on scikit-learn's digits, checkpoints and
# restores it, converts it to .twl and .onnx, and runs both on the lite
# runtime and onnxruntime. Installs what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install.sh
tools/build_lite_python.sh
PYTHON="${PYTHON:-python3}"
"$PYTHON" examples/train_digits.py "$@"

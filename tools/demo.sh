#!/usr/bin/env bash
# The main demo: trains a CNN on scikit-learn's digits, checkpoints and
# restores it, converts it to .twl and .onnx, and runs both on the lite
# runtime and onnxruntime. Installs what is missing first; each stage says
# what it does and about how long it takes, and the run ends with a summary.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/stages.sh
PYTHON="${PYTHON:-python3}"
stage --required "install: prerequisites and the core (tools/install.sh)" \
  "seconds when installed; about 15 min on a new machine" tools/install.sh
stage --required "install: tensorweave-lite (tools/build_lite_python.sh)" \
  "about 1 min" tools/build_lite_python.sh
stage "demo: train, checkpoint, restore, convert, run lite + onnxruntime" \
  "under a minute" "$PYTHON" examples/train_digits.py "$@"
stage "demo: a while_loop LSTM (dynamic_rnn) trained, converted to the lite LSTM, run" \
  "seconds" "$PYTHON" examples/train_sequence_rnn.py
finish_stages

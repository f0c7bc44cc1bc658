#!/usr/bin/env bash
# Runs the main demo. Installs what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install.sh
PYTHON="${PYTHON:-python3}"
"$PYTHON" examples/train_digits.py "$@"

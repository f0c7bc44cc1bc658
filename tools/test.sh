#!/usr/bin/env bash
# Runs every test: C++ with Bazel, Python with pytest. Installs what is
# missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install.sh
echo "== C++ tests (bazel test //...)"
bazel test //... 2>&1 | tail -n 40
PYTHON="${PYTHON:-python3}"
echo "== Python tests (pytest)"
"$PYTHON" -m pytest tests python "$@"

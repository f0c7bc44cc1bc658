#!/usr/bin/env bash
# Installs prerequisites, then tensorweave itself in development mode.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/stages.sh
tools/install_deps.sh
PYTHON="${PYTHON:-python3}"
echo "== building the C++ core and its Python extension with Bazel"
echo "   (about 10 minutes on 2 cores the first time, seconds when nothing changed; Bazel's progress follows)"
PYTHON_BIN_PATH="$("$PYTHON" -c 'import sys; print(sys.executable)')" \
  bazel_shown build //python:_pywrap_tensorweave.so
echo "== pip install -e . (tensorweave in development mode; reuses the build above)"
"$PYTHON" -m pip install -q --no-build-isolation -e .

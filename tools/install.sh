#!/usr/bin/env bash
# Installs prerequisites, then tensorweave itself in development mode.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install_deps.sh
PYTHON="${PYTHON:-python3}"
"$PYTHON" -m pip install -q --no-build-isolation -e .

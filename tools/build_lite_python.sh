#!/bin/bash
# Builds and installs the tensorweave-lite pip package (lite/python) from a
# checkout: installs the system build dependencies if missing (g++, flatc,
# flatbuffers headers), then `pip install ./lite/python`.
#
#   tools/build_lite_python.sh            # build + install
#   tools/build_lite_python.sh --test     # ... then run its pytest suite
#   TWL_NATIVE=0 tools/build_lite_python.sh   # a portable build (no -march=native)
#
# This script installs from source on the machine that will run it, so it
# tunes for this CPU by default (TWL_NATIVE=1; the other kernels than GEMM
# and Conv2D, which a portable build carries for SSE2, AVX2 and AVX-512, get
# the CPU's full vector width: LeNet ~25% faster here); a wheel built for
# other machines should use TWL_NATIVE=0.
#   PYTHON=python3.11 tools/build_lite_python.sh
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PYTHON=${PYTHON:-python3}
export TWL_NATIVE=${TWL_NATIVE:-1}
RUN_TESTS=0
[[ "${1:-}" == "--test" ]] && RUN_TESTS=1

need=()
command -v g++ >/dev/null || need+=(g++)
command -v flatc >/dev/null || need+=(flatbuffers-compiler)
[[ -f /usr/include/flatbuffers/flatbuffers.h ]] || need+=(libflatbuffers-dev)
if ! "$PYTHON" -c 'import sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then
  need+=(python3-dev)
fi
if (( ${#need[@]} )); then
  echo "== installing ${need[*]}"
  SUDO=""
  (( EUID != 0 )) && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${need[@]}"
fi

# The build reads the runtime sources from this checkout even if pip copies
# the package directory elsewhere.
export TWL_SOURCE_ROOT=$ROOT
pip_args=()
# Use the installed setuptools when there is one (works offline); otherwise
# let pip fetch the build requirements into an isolated environment.
if "$PYTHON" -c 'import setuptools, wheel' 2>/dev/null; then
  pip_args+=(--no-build-isolation)
fi
echo "== pip install $ROOT/lite/python"
"$PYTHON" -m pip install "${pip_args[@]}" "$ROOT/lite/python"

# Smoke check from outside the source tree (so the installed copy is used).
cd /
"$PYTHON" -c 'import tensorweave_lite, sys; print("== installed tensorweave_lite", tensorweave_lite.__version__, "from", tensorweave_lite.__file__)'
command -v tensorweave-lite >/dev/null && echo "== console script: $(command -v tensorweave-lite)"

if (( RUN_TESTS )); then
  "$PYTHON" -c 'import pytest, flatbuffers' 2>/dev/null ||
    "$PYTHON" -m pip install pytest flatbuffers
  "$PYTHON" -m pytest -q -p no:cacheprovider "$ROOT/lite/python/tests"
fi

#!/usr/bin/env bash
# Runs every test: C++ with Bazel (also under AddressSanitizer and
# UndefinedBehaviorSanitizer for the lite runtime, fuzzed for a minute, and
# cross-built for aarch64 under qemu), Python with pytest. Installs what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
tools/install.sh
tools/build_lite_python.sh
echo "== C++ tests (bazel test //...)"
bazel test //... 2>&1 | tail -n 60
echo "== lite runtime under ASan + UBSan (bazel test --config=asan //lite/...)"
bazel test --config=asan //lite/... 2>&1 | tail -n 5
echo "== lite runtime fuzzed with libFuzzer + ASan/UBSan (60 s)"
lite/fuzz/run_libfuzzer.sh 60 2>&1 | tail -n 4
echo "== lite runtime cross-built for aarch64, run under qemu"
lite/cross/build_aarch64.sh 2>&1 | tail -n 5
echo "== tensorweave-lite Python package tests (pytest)"
"$PYTHON" -m pytest lite/python/tests
echo "== Python tests (pytest)"
# --doctest-modules: every docstring example in the package must run.
"$PYTHON" -m pytest tests python converters --doctest-modules "$@"

#!/usr/bin/env bash
# Runs every test: C++ with Bazel (also under AddressSanitizer and
# UndefinedBehaviorSanitizer for the lite runtime, fuzzed for a minute, the
# core's kernels fuzzed under ASan + UBSan (core/fuzz), and cross-built for
# aarch64 under qemu), Python with pytest, the lite Java API with JUnit.
# Installs what is missing first.
# Each stage says what it does and about how long it takes, shows its
# progress, and the run ends with a summary of every stage.
# Arguments are passed to the last stage's pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/stages.sh
PYTHON="${PYTHON:-python3}"

stage --required "install: prerequisites and the core (tools/install.sh)" \
  "seconds when installed; about 15 min on a new machine" tools/install.sh
stage --required "install: tensorweave-lite (tools/build_lite_python.sh)" \
  "about 1 min" tools/build_lite_python.sh
stage "C++ tests (bazel test //...)" "about 1 min warm, 12 cold" \
  bazel_shown test //...
stage "lite runtime under ASan + UBSan (bazel test --config=asan //lite/...)" "about 1 min warm, 6 cold" \
  bazel_shown test --config=asan //lite/...
# The executor, sessions (concurrent steps, partitions, rendezvous,
# cancellation, control flow), queues, the mutex of tf.CriticalSection and the distributed worker runtime
# (remote rendezvous, steps in flight across tasks) under ThreadSanitizer: a data race
# fails CI (.bazelrc: halt_on_error).
stage "core concurrency tests under ThreadSanitizer (bazel test --config=tsan)" \
  "about 1 min warm, 5 cold (the instrumented core: 4m50s on this 2-core machine)" \
  bazel_shown test --config=tsan //core/runtime:runtime_test \
  //core/runtime:partitioned_session_test //core/kernels:queue_ops_test \
  //core/kernels:mutex_ops_test \
  //distributed:worker_env_test //core/gpu:bfc_allocator_test
stage "lite runtime fuzzed with libFuzzer + ASan/UBSan (60 s)" "about 2 min" \
  lite/fuzz/run_libfuzzer.sh 60
stage "core kernels fuzzed: random graphs around every registered op, ASan + UBSan (75 s)" \
  "about 2 min warm, 4-8 cold (the core's ASan build: 2.5 min on an idle 2-core machine, 7 under load)" \
  core/fuzz/run_kernel_fuzzer.sh 75
stage "lite runtime cross-built for aarch64, run under qemu" "about 1 min warm, 5 cold" \
  lite/cross/build_aarch64.sh
stage "lite runtime portable x86-64: the stripped library within 1 MiB (lite/tools/check_lite_size.sh)" \
  "seconds warm, about 3 min cold" lite/tools/check_lite_size.sh
stage "tensorweave-lite Python package tests (pytest)" "under a minute" \
  "$PYTHON" -m pytest lite/python/tests
# The Java API (lite/java): its JNI library, then its JUnit tests on the
# host JVM (standing in for Android) with -Xcheck:jni.
if command -v javac >/dev/null && [[ -f /usr/share/java/junit4.jar ]]; then
  stage "lite Java API: JNI library + JUnit tests (lite/java/test.sh)" "under a minute" \
    lite/java/test.sh
else
  printf '\n== lite Java API: skipped (javac or /usr/share/java/junit4.jar missing; tools/install_deps.sh installs them)\n'
fi
# The CUDA GPU library (core/gpu, tools/build_gpu.sh) builds wherever nvcc is,
# so that a GPU build cannot silently rot: it must load into the core
# extension with every symbol resolved and report its GPUs (here: none,
# cleanly), and the CPU-fallback tests must pass with it loaded.
gpu_library_builds() {
  local dir rc=0
  dir="$(mktemp -d)"
  TW_CUDA_PTX=0 tools/build_gpu.sh "$dir/libtensorweave_gpu.so" || rc=$?
  if ((rc == 0)); then
    TW_GPU=0 "$PYTHON" - "$dir/libtensorweave_gpu.so" <<'PYEOF' || rc=$?
import sys
from tensorweave._src.platform import gpu_loader
loaded, count, message = gpu_loader.load_library(sys.argv[1])
print(f"GPU library: loaded={loaded}, TW_GpuPluginInit={count}: {message}")
sys.exit(0 if loaded else 1)
PYEOF
  fi
  if ((rc == 0)); then
    TW_GPU_LIBRARY="$dir/libtensorweave_gpu.so" TW_GPU_VERBOSE=1 \
      "$PYTHON" -m pytest tests/test_gpu_fallback.py -q -p no:cacheprovider || rc=$?
  fi
  rm -rf "$dir"
  return $rc
}
if command -v "${NVCC:-nvcc}" >/dev/null; then
  stage "GPU library builds (tools/build_gpu.sh), loads, CPU fallback with it" \
    "about 4 min cold, seconds when its objects are cached" gpu_library_builds
else
  printf '\n== GPU library builds: skipped (nvcc is not on PATH)\n'
fi
# --doctest-modules: every docstring example in the package must run. The
# tf.compat.v1 API coverage table (tools/api_coverage.py) is printed first.
python_tests() {
  "$PYTHON" tools/api_coverage.py
  "$PYTHON" -m pytest tests python converters distributed --doctest-modules "$@"
}
stage "Python tests (pytest), after the API coverage report" \
  "about 1 min; the fidelity cases run TensorFlow in a subprocess" python_tests "$@"
finish_stages

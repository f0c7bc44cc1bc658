#!/bin/bash
# Cross-builds the lite runtime, libtensorweave_lite.so and the C++ tests for
# aarch64 with Debian's g++-aarch64-linux-gnu, then runs every test under
# qemu-aarch64. Installs what it needs with apt-get (Debian bookworm).
#
#   lite/cross/build_aarch64.sh            # build + test
#   JOBS=4 OUT=/tmp/a64 lite/cross/build_aarch64.sh
#   lite/cross/build_aarch64.sh --no-test  # build only
#   TEST_FILTER=gemm lite/cross/build_aarch64.sh   # tests whose path matches
#
# Outputs (under $OUT, default build/aarch64 in the checkout):
#   libtensorweave_lite.so, libtensorweave_lite.stripped.so, libtwl_runtime.a,
#   libtensorweave_lite_jni{,.stripped}.so (the Java API's, lite/java),
#   tests/lite/**/<name>_test, test_results.txt
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
OUT=${OUT:-build/aarch64}
JOBS=${JOBS:-2}
SYSROOT=/usr/aarch64-linux-gnu
RUN_TESTS=1
[[ "${1:-}" == "--no-test" ]] && RUN_TESTS=0

need=()
command -v aarch64-linux-gnu-g++ >/dev/null || need+=(g++-aarch64-linux-gnu)
[[ -f $SYSROOT/include/stdio.h ]] || need+=(libc6-dev-arm64-cross)
command -v qemu-aarch64 >/dev/null || need+=(qemu-user)
command -v flatc >/dev/null || need+=(flatbuffers-compiler)
[[ -f /usr/include/flatbuffers/flatbuffers.h ]] || need+=(libflatbuffers-dev)
[[ -f /usr/src/googletest/googletest/src/gtest-all.cc ]] || need+=(googletest)
command -v make >/dev/null || need+=(make)
command -v javac >/dev/null || need+=(openjdk-17-jdk-headless)  # jni.h
if (( ${#need[@]} )); then
  echo "== installing ${need[*]}"
  SUDO=""
  (( EUID != 0 )) && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${need[@]}"
fi

echo "== building for aarch64 into $OUT (make -j$JOBS)"
make -f lite/cross/Makefile CROSS=aarch64-linux-gnu- OUT="$OUT" -j"$JOBS" all tests

lib=$OUT/libtensorweave_lite.so
stripped=$OUT/libtensorweave_lite.stripped.so
echo "== $(file -b "$lib" | cut -d, -f1-2)"
echo "== libtensorweave_lite.so: $(stat -c %s "$lib") bytes, stripped $(stat -c %s "$stripped") bytes"
# The runtime's size goal: the stripped library, every kernel set in, at most 1 MiB.
limit=$((1024 * 1024))
if (( $(stat -c %s "$stripped") > limit )); then
  echo "the stripped libtensorweave_lite.so is $(stat -c %s "$stripped") bytes, over the 1 MiB ($limit bytes) goal"
  exit 1
fi
# Exports exactly the functions c_api.h declares (as //lite/c:shared_library_test).
exported=$(aarch64-linux-gnu-nm -D --defined-only "$lib" | awk '$2 ~ /[TW]/ {print $3}' | sort)
declared=$(grep -o 'twl_[a-z_]*(' lite/c/c_api.h | tr -d '(' | sort -u)
if [[ "$exported" != "$declared" ]]; then
  echo "exported symbols differ from c_api.h:"; diff <(echo "$declared") <(echo "$exported") || true
  exit 1
fi
echo "== exports the $(echo "$exported" | wc -l) functions of c_api.h, nothing else"
# The JNI library (lite/java) exports only JNI functions.
jni_lib=$OUT/libtensorweave_lite_jni.so
jni_exported=$(aarch64-linux-gnu-nm -D --defined-only "$jni_lib" | awk '$2 ~ /[TW]/ {print $3}')
if grep -qv '^Java_org_tensorweave_lite_NativeApi_' <<< "$jni_exported"; then
  echo "libtensorweave_lite_jni.so exports more than JNI functions:"; echo "$jni_exported"
  exit 1
fi
echo "== libtensorweave_lite_jni.so: $(echo "$jni_exported" | wc -l) JNI functions," \
  "stripped $(stat -c %s "$OUT/libtensorweave_lite_jni.stripped.so") bytes"

(( RUN_TESTS )) || exit 0
echo "== running tests under qemu-aarch64 -L $SYSROOT"
results=$OUT/test_results.txt
: > "$results"
failed=0
passed=0
export QEMU_LD_PREFIX=$SYSROOT
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
while read -r test; do
  [[ -n "${TEST_FILTER:-}" && "$test" != *"$TEST_FILTER"* ]] && continue
  name=${test#"$OUT"/tests/}
  start=$(date +%s%N)
  if TEST_TMPDIR=$tmp timeout "${TEST_TIMEOUT:-900}" \
      qemu-aarch64 -L "$SYSROOT" "$test" --gtest_brief=1 > "$tmp/log" 2>&1; then
    status=PASS; passed=$((passed + 1))
  else
    status="FAIL (exit $?)"; failed=$((failed + 1))
  fi
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  summary=$(grep -E '^\[  (PASSED|FAILED) ' "$tmp/log" | tr '\n' ' ' || true)
  printf '%-50s %-12s %7d ms  %s\n' "$name" "$status" "$ms" "$summary" | tee -a "$results"
  [[ $status == PASS ]] || sed 's/^/    /' "$tmp/log" | tail -40 | tee -a "$results"
done < "$OUT/tests.txt"

# End to end on the target: write the reference models, classify them
# through the shared library (C99 example), smoke-run the benchmark.
if [[ -z "${TEST_FILTER:-}" ]]; then
  models=$tmp/models
  mkdir -p "$models"
  for step in "write_test_models $models" "classify $models/mlp.twl" \
              "classify $models/lenet.twl" \
              "benchmark_model --graph=$models/lenet.twl --runs=5 --warmup=1 --num_threads=2"; do
    if qemu-aarch64 -L "$SYSROOT" $OUT/bin/$step > "$tmp/log" 2>&1; then
      status=PASS; passed=$((passed + 1))
    else
      status="FAIL (exit $?)"; failed=$((failed + 1))
    fi
    printf '%-50s %-12s %s\n' "bin/${step%% *}" "$status" "$(tail -1 "$tmp/log")" | tee -a "$results"
  done
fi
echo "== $passed passed, $failed failed (details in $results)"
(( failed == 0 ))

#!/usr/bin/env bash
# Builds the kernel fuzzer under AddressSanitizer + UndefinedBehaviorSanitizer
# (bazel --config=asan) and runs it for a bounded time: the regression cases
# in core/fuzz/regressions replay first, then random graphs around every op
# of the registry. Prints the exec count and the ops' coverage; exits
# non-zero on a crash, a hang, a sanitizer report or an op never built.
#
#   core/fuzz/run_kernel_fuzzer.sh [SECONDS] [more kernel_fuzzer flags]
#
# Crashing cases are written to $TW_FUZZ_OUT/crashes (default
# /tmp/tw-kernel-fuzz): copy one into core/fuzz/regressions/ with the fix.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
shift || true
out=${TW_FUZZ_OUT:-/tmp/tw-kernel-fuzz}
start=$(date +%s)
bazel build --config=asan //core/fuzz:kernel_fuzzer >"$out.build.log" 2>&1 ||
  { tail -n 30 "$out.build.log"; exit 1; }
echo "kernel_fuzzer: ASan + UBSan build took $(( $(date +%s) - start )) s"
# Bazel's own answer, not the bazel-asan-bin link (a build with another
# output base repoints the link).
bin=$(bazel info --config=asan bazel-bin 2>/dev/null)
exec "$bin/core/fuzz/kernel_fuzzer" --seconds="$seconds" \
  --crash_dir="$out/crashes" "$@"

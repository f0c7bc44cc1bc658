#!/bin/bash
# The lite runtime's size goal (issue 13): the stripped
# libtensorweave_lite.so, every kernel set in, at most 1 MiB. Checks the
# portable x86-64 build (bazel --config=portable: the SSE2, AVX2 and AVX-512
# kernel sets picked at run time), the largest; lite/cross/build_aarch64.sh
# checks the aarch64 one. Elsewhere than on x86-64 it has nothing to check.
#
#   lite/tools/check_lite_size.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
if [[ "$(uname -m)" != x86_64 ]]; then
  echo "== not an x86-64 host: no portable x86-64 build to check"
  exit 0
fi
bazel build --config=portable //lite/c:libtensorweave_lite.so
lib=bazel-portable-bin/lite/c/libtensorweave_lite.so
stripped=$(mktemp)
trap 'rm -f "$stripped"' EXIT
strip -o "$stripped" "$lib"
size=$(stat -c %s "$stripped")
limit=$((1024 * 1024))
echo "== portable x86-64 libtensorweave_lite.so: $(stat -c %s "$lib") bytes, stripped $size bytes (limit $limit)"
if ((size > limit)); then
  echo "the stripped portable libtensorweave_lite.so is $size bytes, over the 1 MiB ($limit bytes) goal"
  exit 1
fi

#!/usr/bin/env bash
# Builds the lite runtime's model fuzzer with clang's libFuzzer, AddressSanitizer
# and UndefinedBehaviorSanitizer, and runs it for a bounded time over a corpus
# seeded with valid models (load -> allocate -> invoke on every input).
#
#   lite/fuzz/run_libfuzzer.sh [SECONDS]      (from anywhere in the checkout)
#
# Installs clang and its runtime from Debian if missing. Exits non-zero on any
# crash, leak, sanitizer report or timeout that libFuzzer finds.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
out=${TWL_FUZZ_OUT:-/tmp/twl-fuzz}
if ! command -v clang++ >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq clang libclang-rt-14-dev >/dev/null
fi
bazel build //lite/schema:twl_schema //lite/tools:write_test_models >/dev/null 2>&1
mkdir -p "$out/include/lite/schema" "$out/corpus" "$out/obj"
cp -f bazel-bin/lite/schema/twl_generated.h "$out/include/lite/schema/"
bazel-bin/lite/tools/write_test_models "$out/corpus" >/dev/null
# The same models with the integrity trailer (lite/schema/README.md), so the
# fuzzer starts from checksummed files too.
python3 - "$out/corpus" <<'PY'
import struct, sys, zlib, pathlib
for p in sorted(pathlib.Path(sys.argv[1]).glob("*.twl")):
    if p.stem.endswith("_sealed"):
        continue
    head = p.read_bytes() + b"TWLI" + struct.pack("<I", 1)
    (p.parent / f"{p.stem}_sealed.twl").write_bytes(head + struct.pack("<I", zlib.crc32(head)) + b"TWLI")
PY
flags=(-std=c++17 -O1 -g -fno-exceptions -fno-rtti -Wno-psabi -DFLATBUFFERS_MAX_ALIGNMENT=64
       -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
       -I. -isystem "$out/include")
objs=()
for src in lite/runtime/*.cc lite/runtime/kernels/*.cc lite/fuzz/model_fuzzer.cc; do
  case "$src" in *_test.cc) continue ;; esac
  obj="$out/obj/$(echo "$src" | tr / _).o"
  if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ]; then
    clang++ "${flags[@]}" -c "$src" -o "$obj" &
    # Two compiles at a time (the machine has two cores).
    while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
  fi
  objs+=("$obj")
done
wait
clang++ -fsanitize=fuzzer,address,undefined "${objs[@]}" -pthread -o "$out/model_fuzzer"
echo "== fuzzing for ${seconds}s (corpus: $(ls "$out/corpus" | wc -l) seed models)"
"$out/model_fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=65536 -dict=lite/fuzz/twl.dict -print_final_stats=1 "$out/corpus" 2>&1 | tail -n 15

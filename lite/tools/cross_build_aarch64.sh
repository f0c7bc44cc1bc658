#!/bin/bash
# Cross-builds the lite runtime, its C API shared library, the C example and
# the tools for aarch64 with Debian's g++-aarch64-linux-gnu (no Bazel
# toolchain needed), then runs them under qemu-aarch64 when it is installed.
#
#   lite/tools/cross_build_aarch64.sh [OUT_DIR]     (from the repo root)
set -euo pipefail
out=${1:-/tmp/twl-aarch64}
mkdir -p "$out/include"
cxx=${CXX:-aarch64-linux-gnu-g++}
cc=${CC:-aarch64-linux-gnu-gcc}
# The generated schema header comes from the host build (it is plain C++).
bazel build //lite/schema:twl_schema >/dev/null 2>&1
mkdir -p "$out/include/lite/schema"
cp -f bazel-bin/lite/schema/twl_generated.h "$out/include/lite/schema/"
ln -sfn /usr/include/flatbuffers "$out/include/flatbuffers"
flags=(-std=c++17 -O2 -fvect-cost-model=dynamic -fPIC -fno-exceptions -fno-rtti -fvisibility=hidden
       -DFLATBUFFERS_MAX_ALIGNMENT=64 -I. -isystem "$out/include" -Wall)
srcs=$(ls lite/runtime/*.cc lite/runtime/kernels/*.cc | grep -v _test.cc)
objs=()
for src in $srcs lite/c/c_api.cc lite/runtime/testing/model_builder.cc \
           lite/runtime/testing/test_models.cc; do
  obj="$out/obj/${src//\//_}.o"
  mkdir -p "$out/obj"
  "$cxx" "${flags[@]}" -DTWL_BUILDING_C_API -c "$src" -o "$obj"
  objs+=("$obj")
done
runtime_objs=$(printf '%s\n' "${objs[@]}" | grep -v testing_)
"$cxx" -shared -o "$out/libtensorweave_lite.so" $runtime_objs -pthread \
    -Wl,--version-script=lite/c/exported_symbols.lds -Wl,--gc-sections -Wl,-z,defs
"$cc" -std=c99 -O2 -I. lite/c/examples/classify.c -o "$out/classify" \
    -L"$out" -ltensorweave_lite -Wl,-rpath,'$ORIGIN'
"$cxx" "${flags[@]}" lite/tools/benchmark_model.cc $runtime_objs \
    -o "$out/benchmark_model" -pthread
"$cxx" "${flags[@]}" lite/tools/write_test_models.cc "${objs[@]}" \
    -o "$out/write_test_models" -pthread
file "$out/libtensorweave_lite.so" | cut -d, -f1-2
aarch64-linux-gnu-strip -o "$out/libtensorweave_lite.stripped.so" \
    "$out/libtensorweave_lite.so"
echo "stripped aarch64 .so: $(stat -c %s "$out/libtensorweave_lite.stripped.so") bytes"
if command -v qemu-aarch64 >/dev/null; then
  export QEMU_LD_PREFIX=/usr/aarch64-linux-gnu
  qemu-aarch64 "$out/write_test_models" "$out"
  qemu-aarch64 "$out/classify" "$out/lenet.twl"
  qemu-aarch64 "$out/benchmark_model" --graph="$out/mlp.twl" --runs=20 \
      --warmup=2 --num_threads=2
fi

#!/usr/bin/env bash
# Builds the GPU library, libtensorweave_gpu.so: the CUDA GPU device, its
# allocator and kernels (every core/gpu/**/*.cu, core/gpu/*.cc and
# core/gpu/kernels/*.cc but the *_test.cc). The core's symbols (the kernel
# registry, Tensor, ...) stay undefined in it: they resolve, when the Python
# loader dlopens it, against the core extension, which the loader has made
# global first. So no core library is linked in. cudart is linked
# statically; cuBLAS and cuDNN are loaded at run time (core/gpu/cuda_libs.h).
#
#   tools/build_gpu.sh [OUTPUT]   (default python/tensorweave/libtensorweave_gpu.so)
#
# Environment:
#   TW_CUDA_ARCHS  real architectures to compile for (default "90"; e.g.
#                  "80 90"); PTX for compute_80 is added for the rest
#   TW_CUDA_PTX    0: no PTX (a build that only needs to compile and load)
#   TW_BAZEL_BIN   the Bazel bin dir holding the generated *.pb.h (default:
#                  `bazel info bazel-bin`, with TW_OUTPUT_BASE if set).
#   TW_GPU_JOBS    parallel compiles (default 2).
#   NVCC, CXX, CUDA_HOME   the tools (defaults: nvcc, g++, /usr/local/cuda).
#
# Object files are cached by content (the source, every header it included
# at its last compile, and the flags) under build/gpu_obj/, so a rebuild
# compiles only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)"
NVCC="${NVCC:-nvcc}"
CXX="${CXX:-g++}"
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
OBJ_DIR="$ROOT/build/gpu_obj"

# --compile-one SRC: one source into the cache; prints the object's path.
# (Run by xargs below; the flags come from the environment it exports.)
if [[ "${1:-}" == "--compile-one" ]]; then
  src="$2"
  case "$src" in
    *.cu) flags="$TW_GPU_NVCC_FLAGS" ;;
    *) flags="$TW_GPU_CXX_FLAGS" ;;
  esac
  key1="$( (echo "$flags"; echo "$src"; cat "$src") | sha256sum | cut -c1-32)"
  deps="$OBJ_DIR/$key1.deps"
  # With the headers of the last compile known: the object of those
  # contents, if it was built.
  if [[ -f "$deps" ]]; then
    key2="$( (echo "$key1"; xargs -a "$deps" -d '\n' cat 2>/dev/null || echo missing) |
      sha256sum | cut -c1-32)"
    if [[ -f "$OBJ_DIR/$key2.o" ]]; then
      echo "  cached   $src" >&2
      echo "$OBJ_DIR/$key2.o"
      exit 0
    fi
  fi
  tmp="$(mktemp "$OBJ_DIR/tmp.XXXXXX")"
  echo "  compile  $src" >&2
  case "$src" in
    *.cu) cmd=("$NVCC" $flags -MD -MF "$tmp.d" -c "$src" -o "$tmp.o") ;;
    *) cmd=("$CXX" $flags -MMD -MF "$tmp.d" -c "$src" -o "$tmp.o") ;;
  esac
  if ! "${cmd[@]}"; then
    echo "build_gpu: FAILED: ${cmd[*]}" >&2
    rm -f "$tmp" "$tmp.o" "$tmp.d"
    exit 1
  fi
  # The dependency list: every file named in the .d but the object itself.
  sed -e 's/^[^:]*://' -e 's/\\$//' "$tmp.d" | tr ' ' '\n' | grep -v '^$' |
    sort -u >"$tmp.deps"
  mv -f "$tmp.deps" "$deps"
  key2="$( (echo "$key1"; xargs -a "$deps" -d '\n' cat 2>/dev/null || echo missing) |
    sha256sum | cut -c1-32)"
  mv -f "$tmp.o" "$OBJ_DIR/$key2.o"
  rm -f "$tmp" "$tmp.d"
  echo "$OBJ_DIR/$key2.o"
  exit 0
fi

OUT="${1:-python/tensorweave/libtensorweave_gpu.so}"
JOBS="${TW_GPU_JOBS:-2}"
ARCHS="${TW_CUDA_ARCHS:-90}"

if ! command -v "$NVCC" >/dev/null; then
  echo "build_gpu: $NVCC not found (the CUDA toolkit is needed to build the GPU library)" >&2
  exit 1
fi
if [[ -z "${TW_BAZEL_BIN:-}" ]]; then
  bazel_cmd=(bazel)
  [[ -n "${TW_OUTPUT_BASE:-}" ]] && bazel_cmd+=(--output_base="$TW_OUTPUT_BASE")
  TW_BAZEL_BIN="$("${bazel_cmd[@]}" info bazel-bin 2>/dev/null)"
fi
if [[ ! -f "$TW_BAZEL_BIN/core/framework/graph.pb.h" ]]; then
  echo "build_gpu: $TW_BAZEL_BIN/core/framework/graph.pb.h not found: build the" \
    "core first (tools/dev_build.sh) or set TW_BAZEL_BIN" >&2
  exit 1
fi

gencode=""
for a in $ARCHS; do gencode+=" -gencode arch=compute_$a,code=sm_$a"; done
# PTX for compute_80 lets other GPUs JIT the kernels; TW_CUDA_PTX=0 leaves it
# out (CI only checks that the library builds and loads: half the compile).
if [[ "${TW_CUDA_PTX:-1}" != 0 ]]; then
  gencode+=" -gencode arch=compute_80,code=compute_80"
fi
common="-O2 -std=c++17 -DNDEBUG -I$ROOT -I$TW_BAZEL_BIN -I$CUDA_HOME/include"
export TW_GPU_CXX_FLAGS="$common -fPIC -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare -Wno-missing-field-initializers"
export TW_GPU_NVCC_FLAGS="$common -Xcompiler -fPIC $gencode"
export NVCC CXX OBJ_DIR

mapfile -t sources < <(
  find core/gpu -name '*.cu' | sort
  find core/gpu -maxdepth 1 -name '*.cc' ! -name '*_test.cc' | sort
  [[ -d core/gpu/kernels ]] && find core/gpu/kernels -maxdepth 1 -name '*.cc' ! -name '*_test.cc' | sort
)
echo "build_gpu: $("$NVCC" --version | tail -1)"
echo "build_gpu: ${#sources[@]} sources, archs: $ARCHS (+ compute_80 PTX), $JOBS jobs, bazel-bin: $TW_BAZEL_BIN"
echo "build_gpu: g++ flags: $TW_GPU_CXX_FLAGS"
echo "build_gpu: nvcc flags: $TW_GPU_NVCC_FLAGS"
mkdir -p "$OBJ_DIR" "$(dirname "$OUT")"
objects="$(mktemp)"
trap 'rm -f "$objects"' EXIT
if ! printf '%s\n' "${sources[@]}" |
  xargs -d '\n' -P "$JOBS" -n 1 "$ROOT/tools/build_gpu.sh" --compile-one >"$objects"; then
  echo "build_gpu: compilation failed (see above)" >&2
  exit 1
fi

link=("$CXX" -shared -o "$OUT.tmp" $(cat "$objects")
  -L"$CUDA_HOME/lib64" -lcudart_static -ldl -lrt -lpthread
  -Wl,--exclude-libs,ALL -Wl,-soname,libtensorweave_gpu.so)
echo "build_gpu: link: ${link[*]}"
"${link[@]}"
mv -f "$OUT.tmp" "$OUT"
echo "build_gpu: $OUT ($(du -h "$OUT" | cut -f1))"

# The core symbols the library needs must be exported by the extension.
ext="$(ls python/tensorweave/_pywrap_tensorweave*.so 2>/dev/null | head -1 || true)"
if [[ -n "$ext" ]]; then
  needed="$(mktemp)"
  have="$(mktemp)"
  nm -D --undefined-only "$OUT" | awk '{print $2}' | grep '11tensorweave' |
    sort -u >"$needed" || true
  nm -D --defined-only "$ext" | awk '{print $3}' | sort -u >"$have"
  missing="$(comm -23 "$needed" "$have")"
  rm -f "$needed" "$have"
  if [[ -n "$missing" ]]; then
    echo "build_gpu: WARNING: core symbols the GPU library needs that $ext does not export:" >&2
    echo "$missing" | c++filt | sed 's/^/  /' >&2
  else
    echo "build_gpu: every core symbol it needs is exported by $ext"
  fi
fi

# The ops it has kernels for: the op names that appear as strings in its
# objects (not in the .so, where the linker merges "Relu" into "LeakyRelu").
ops="$("${PYTHON:-python3}" -c 'from tensorweave import _pywrap_tensorweave as p; print("\n".join(p.op_names()))' 2>/dev/null || true)"
if [[ -n "$ops" ]]; then
  named="$(comm -12 <(strings -a $(cat "$objects") | sort -u) <(echo "$ops" | sort -u) | tr '\n' ' ')"
  echo "build_gpu: op names in its objects, about the kernels it registers ($(echo "$named" | wc -w)): $named"
fi

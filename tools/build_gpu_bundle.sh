#!/usr/bin/env bash
# Builds build/gpu_bundle/: tensorweave for the GPU machine (Python 3.12, no
# Bazel there), as a directory to put on PYTHONPATH:
#
#   build/gpu_bundle/lib/                      the image codecs' shared libraries
#   build/gpu_bundle/tensorweave/              the package's .py files
#     _pywrap_tensorweave.cpython-312-*.so     the core extension for 3.12
#     libtensorweave_gpu.so                    the CUDA device (tools/build_gpu.sh)
#     distributed/                             distributed/*.py (train.py imports it)
#
# The converters are not included (the package does not import them).
#
#   tools/build_gpu_bundle.sh [--no-gpu-lib]
#
# --no-gpu-lib: leave the GPU library out (a CPU-only bundle; for checking the
# layout where nvcc is missing).
#
# Environment:
#   TW_PY312             the Python 3.12 interpreter (default: pyenv's 3.12.1)
#   TW_PY312_OUTPUT_BASE Bazel output base of the cp312 build (default
#                        /tmp/ob_py312; the disk cache makes only the pywrap
#                        files recompile)
#   TW_BUNDLE_MARCH      the core's -march (default native, as .bazelrc; see
#                        below; x86-64-v3 for any AVX2 CPU)
#   TW_GPU_LIB           use this already built libtensorweave_gpu.so instead
#                        of running tools/build_gpu.sh
#   (tools/build_gpu.sh's variables: TW_CUDA_ARCHS, TW_GPU_JOBS, NVCC, ...)
#
# Checks at the end: `import tensorweave` under Python 3.12 from the bundle
# alone (with the GPU library present, it loads and, here, reports no GPU),
# and the bundle's size (< 60 MiB, so that it can be carried).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)"
PY312="${TW_PY312:-/root/.pyenv/versions/3.12.1/bin/python}"
OB="${TW_PY312_OUTPUT_BASE:-/tmp/ob_py312}"
BUNDLE="$ROOT/build/gpu_bundle"
MAX_MIB=60
with_gpu=1
[[ "${1:-}" == "--no-gpu-lib" ]] && with_gpu=0

t0=$SECONDS
if [[ ! -x "$PY312" ]]; then
  echo "build_gpu_bundle: $PY312 not found (set TW_PY312 to a Python 3.12)" >&2
  exit 1
fi
suffix="$("$PY312" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')"

# The build needs pybind11 for 3.12's headers, the import check numpy and
# protobuf (a fresh machine's 3.12 has none of them).
if ! "$PY312" -c 'import pybind11, numpy, google.protobuf' >/dev/null 2>&1; then
  echo "build_gpu_bundle: pip install pybind11 numpy protobuf for $PY312"
  "$PY312" -m pip install -q --progress-bar off pybind11 numpy protobuf
fi
echo "build_gpu_bundle: the core extension for $("$PY312" --version) (output base $OB)"
# .bazelrc builds for this machine's CPU (-march=native: here AVX-512 with
# FP16 and AMX), and the disk cache holds those objects, so that is the
# default (only the pywrap files recompile). The GPU machine's CPU may lack
# some of those instructions (an AVX2-only host: SIGILL at import):
# TW_BUNDLE_MARCH=x86-64-v3 builds for AVX2 + FMA, every x86 GPU host of the
# last years (a full rebuild of the core: ~15 min idle, far more under load).
# The build's -march and this CPU's flags go to BUILD_INFO, which
# tools/gpu_check.sh compares with the GPU machine's CPU.
MARCH="${TW_BUNDLE_MARCH:-native}"
march_flags=()
[[ "$MARCH" != native ]] && march_flags=(--copt=-march="$MARCH" --copt=-mtune=generic)
PYTHON_BIN_PATH="$PY312" bazel --output_base="$OB" build --symlink_prefix=/ \
  "${march_flags[@]}" //python:_pywrap_tensorweave.so
BIN="$(bazel --output_base="$OB" info "${march_flags[@]}" bazel-bin 2>/dev/null)"
ext="$BIN/python/_pywrap_tensorweave.so"
[[ -f "$ext" ]] || { echo "build_gpu_bundle: $ext not built" >&2; exit 1; }

gpu_lib=""
if [[ $with_gpu == 1 ]]; then
  if [[ -n "${TW_GPU_LIB:-}" ]]; then
    gpu_lib="$TW_GPU_LIB"
  else
    gpu_lib="$ROOT/build/gpu_bundle_lib/libtensorweave_gpu.so"
    echo "build_gpu_bundle: the GPU library (tools/build_gpu.sh)"
    TW_BAZEL_BIN="$BIN" tools/build_gpu.sh "$gpu_lib"
  fi
  [[ -f "$gpu_lib" ]] || { echo "build_gpu_bundle: $gpu_lib missing" >&2; exit 1; }
fi

# The layout, in a fresh directory swapped in at the end.
tmp="$(mktemp -d "$ROOT/build/.gpu_bundle.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
pkg="$tmp/tensorweave"
mkdir -p "$pkg"
copy_py() {  # copy_py SRC_DIR DEST_DIR: the .py files, with their folders
  (cd "$1" && find . -name '*.py' -not -path '*/__pycache__/*' -print0 |
    tar --null -T - -cf -) | tar -xf - -C "$2"
}
copy_py python/tensorweave "$pkg"
if [[ ! -f "$pkg/_src/framework/graph_pb2.py" ]]; then
  echo "build_gpu_bundle: the generated *_pb2.py are missing (pip install -e . runs protoc)" >&2
  exit 1
fi
mkdir -p "$pkg/distributed"
copy_py distributed "$pkg/distributed"
install -m 755 "$ext" "$pkg/_pywrap_tensorweave$suffix"
strip --strip-debug "$pkg/_pywrap_tensorweave$suffix"
if [[ -n "$gpu_lib" ]]; then
  install -m 755 "$gpu_lib" "$pkg/libtensorweave_gpu.so"
  strip --strip-debug "$pkg/libtensorweave_gpu.so"
fi
# The image codecs' libraries (libgif, libjpeg-turbo's libjpeg.so.62,
# libpng16) are not on the GPU machine (Ubuntu 24.04 has libjpeg.so.8):
# they go to lib/, which tools/gpu_check.sh puts on LD_LIBRARY_PATH.
mkdir -p "$tmp/lib"
for soname in libgif.so.7 libjpeg.so.62 libpng16.so.16; do
  path="$(ldd "$pkg/_pywrap_tensorweave$suffix" | awk -v s="$soname" '$1 == s {print $3}')"
  [[ -n "$path" ]] && cp -L "$path" "$tmp/lib/$soname"
done
{
  echo "built: $(date -u +%FT%TZ) from $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "march: $MARCH"
  # With -march=native: the instruction-set flags the extension may use.
  if [[ "$MARCH" == native ]]; then
    echo "cpu_flags: $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2 | tr ' ' '\n' |
      grep -E '^(avx|avx2|fma|f16c|bmi1|bmi2|avx512[a-z0-9_]*|amx[a-z0-9_]*|avx_vnni)$' | sort | tr '\n' ' ')"
  else
    echo "cpu_flags: avx avx2 fma f16c bmi1 bmi2"
  fi
} >"$tmp/BUILD_INFO"
rm -rf "$BUNDLE"
mv "$tmp" "$BUNDLE"
trap - EXIT

size_kib="$(du -sk "$BUNDLE" | cut -f1)"
echo "build_gpu_bundle: $BUNDLE: $((size_kib / 1024)) MiB"
du -h "$BUNDLE/tensorweave/"*.so | sed 's/^/  /'
if ((size_kib > MAX_MIB * 1024)); then
  echo "build_gpu_bundle: the bundle is over $MAX_MIB MiB" >&2
  exit 1
fi

# Check: the bundle imports under 3.12 on its own (from a directory outside
# the checkout, so the editable install and the tree are not seen).
echo "build_gpu_bundle: import check with $PY312"
(cd /tmp && PYTHONPATH="$BUNDLE" TW_GPU_VERBOSE=1 "$PY312" -c '
import sys
import tensorweave as tw
assert tw.__file__.startswith(sys.argv[1]), tw.__file__
print("  tensorweave from", tw.__file__)
print("  GPU library loaded:", tw._gpu_loader.is_loaded(), "-", tw.test.gpu_unavailable_reason() or "GPU available")
with tw.Graph().as_default():
    x = tw.constant([[1.0, 2.0]])
    with tw.Session() as s:
        assert s.run(tw.matmul(x, x, transpose_b=True)).tolist() == [[5.0]]
print("  a session ran")
' "$BUNDLE")
echo "build_gpu_bundle: done in $((SECONDS - t0)) s"

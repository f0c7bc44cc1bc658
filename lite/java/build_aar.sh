#!/bin/bash
# Assembles the Java API as an Android library (AAR):
#
#   lite/java/build_aar.sh [OUT.aar]     # default build/java/tensorweave-lite.aar
#
#   AndroidManifest.xml, classes.jar (javac --release 8), R.txt, res/,
#   proguard.txt (keeps NativeApi's native methods),
#   jni/<abi>/libtensorweave_lite_jni.so
#
# The native library: with ANDROID_NDK set, built with CMakeLists.txt and the
# NDK's toolchain for each of ABIS (default arm64-v8a; e.g.
# ABIS="arm64-v8a armeabi-v7a x86_64") at ANDROID_PLATFORM (android-24).
# Without it, the aarch64 cross-build's library (lite/cross/build_aarch64.sh
# --no-test, $CROSS_OUT, default build/aarch64) as jni/arm64-v8a: that one is
# linked against glibc, so it checks the layout and serves aarch64 Linux
# (Java on a Raspberry Pi, a Jetson...) but Android's loader refuses it.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
AAR=$(realpath -m "${1:-build/java/tensorweave-lite.aar}")
ABIS=${ABIS:-arm64-v8a}
JOBS=${JOBS:-2}
CROSS_OUT=${CROSS_OUT:-build/aarch64}
LIB=libtensorweave_lite_jni.so

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/aar/res" "$stage/classes"
javac --release 8 -Xlint:all,-options -Werror -d "$stage/classes" \
  $(find lite/java/src/main/java -name '*.java')
jar --create --no-manifest --file "$stage/aar/classes.jar" -C "$stage/classes" .
cp lite/java/AndroidManifest.xml lite/java/proguard.txt "$stage/aar/"
: > "$stage/aar/R.txt"

if [[ -n "${ANDROID_NDK:-}" ]]; then
  strip_tool=$(ls "$ANDROID_NDK"/toolchains/llvm/prebuilt/*/bin/llvm-strip | head -1)
  for abi in $ABIS; do
    build=build/android/$abi
    echo "== $abi: cmake with $ANDROID_NDK into $build"
    cmake -S lite/java -B "$build" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_TOOLCHAIN_FILE="$ANDROID_NDK/build/cmake/android.toolchain.cmake" \
      -DANDROID_ABI="$abi" -DANDROID_PLATFORM="${ANDROID_PLATFORM:-android-24}"
    cmake --build "$build" -j "$JOBS"
    mkdir -p "$stage/aar/jni/$abi"
    "$strip_tool" -o "$stage/aar/jni/$abi/$LIB" "$build/$LIB"
  done
else
  echo "== ANDROID_NDK is not set: packing the aarch64 cross-build from $CROSS_OUT" \
    "(glibc: for aarch64 Linux and for checking the layout, not loadable on Android)"
  if [[ ! -f "$CROSS_OUT/libtensorweave_lite_jni.stripped.so" ]]; then
    OUT=$CROSS_OUT lite/cross/build_aarch64.sh --no-test
  fi
  mkdir -p "$stage/aar/jni/arm64-v8a"
  cp "$CROSS_OUT/libtensorweave_lite_jni.stripped.so" "$stage/aar/jni/arm64-v8a/$LIB"
fi

mkdir -p "$(dirname "$AAR")"
rm -f "$AAR"
jar --create --no-manifest --file "$AAR" -C "$stage/aar" .
echo "== $AAR:"
jar --list --file "$AAR" | sort | sed 's/^/   /'

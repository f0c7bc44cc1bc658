#!/bin/bash
# Builds the Java API for the host: the JNI library (Bazel) and the classes
# (javac --release 8, the level Android's D8 takes) into $OUT:
#
#   lite/java/build.sh       # -> build/java/libtensorweave_lite_jni.so,
#                            #    build/java/tensorweave-lite.jar
#
# For Android see build_aar.sh (aarch64) and CMakeLists.txt (the NDK).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
OUT=${OUT:-build/java}

bazel build //lite/java:libtensorweave_lite_jni.so
mkdir -p "$OUT"
cp -f bazel-bin/lite/java/libtensorweave_lite_jni.so "$OUT/"
rm -rf "$OUT/classes"
javac --release 8 -Xlint:all,-options -Werror -d "$OUT/classes" \
  $(find lite/java/src/main/java -name '*.java')
jar cf "$OUT/tensorweave-lite.jar" -C "$OUT/classes" .
echo "built $OUT/tensorweave-lite.jar and $OUT/libtensorweave_lite_jni.so"

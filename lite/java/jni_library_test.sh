#!/bin/bash
# Checks that libtensorweave_lite_jni.so exports exactly one JNI function per
# native method of NativeApi.java, and nothing else (the C API and the
# runtime stay inside).
set -euo pipefail
lib=lite/java/libtensorweave_lite_jni.so
exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /[TW]/ {print $3}' | sort)
declared=$(grep -oE 'static native [][a-zA-Z]+ [a-zA-Z]+\(' \
  lite/java/src/main/java/org/tensorweave/lite/NativeApi.java |
  awk '{print "Java_org_tensorweave_lite_NativeApi_" substr($4, 1, length($4) - 1)}' | sort)
if [[ "$exported" != "$declared" ]]; then
  echo "exported JNI functions differ from NativeApi.java's native methods:"
  diff <(echo "$declared") <(echo "$exported") || true
  exit 1
fi
echo "exports the $(echo "$exported" | wc -l) native methods of NativeApi, nothing else"

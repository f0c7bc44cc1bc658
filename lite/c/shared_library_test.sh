#!/bin/bash
# Checks that libtensorweave_lite.so exports only twl_* functions (and
# every function the header declares), and reports its stripped size.
set -euo pipefail
lib=lite/c/libtensorweave_lite.so
exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /[TW]/ {print $3}' | sort)
bad=$(echo "$exported" | grep -v '^twl_' || true)
if [[ -n "$bad" ]]; then
  echo "unexpected exported symbols:"; echo "$bad"; exit 1
fi
declared=$(grep -o 'twl_[a-z_]*(' lite/c/c_api.h | tr -d '(' | sort -u)
if [[ "$declared" != "$exported" ]]; then
  echo "exported functions differ from c_api.h:"
  diff <(echo "$declared") <(echo "$exported") || true
  exit 1
fi
count=$(echo "$exported" | wc -l)
asan_symbols=$(nm -D "$lib" | grep -c " __asan_" || true)
if (( asan_symbols > 0 )); then
  echo "exports $count functions; sanitizer build, size not checked"
  exit 0
fi
stripped=$(mktemp)
strip -o "$stripped" "$lib"
size=$(stat -c %s "$stripped")
rm -f "$stripped"
echo "exports $count functions; stripped size $size bytes"
if (( size >= 1048576 )); then echo "stripped library exceeds 1 MiB"; exit 1; fi

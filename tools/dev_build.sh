#!/usr/bin/env bash
# Rebuilds the core extension after a C++ change and puts it into the
# development install (`pip install -e .`) without re-running pip: the new
# module replaces the old one by rename, so Python processes that have the old
# one loaded keep running. With TW_OUTPUT_BASE set, Bazel uses that output
# base (several people building in one checkout each keep their own server
# and do not wait on one another's lock).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
bazel_cmd=(bazel)
build_flags=()
if [[ -n "${TW_OUTPUT_BASE:-}" ]]; then
  bazel_cmd+=(--output_base="$TW_OUTPUT_BASE")
  build_flags+=(--symlink_prefix=/)
fi
export PYTHON_BIN_PATH="$("$PYTHON" -c 'import sys; print(sys.executable)')"
"${bazel_cmd[@]}" build "${build_flags[@]}" //python:_pywrap_tensorweave.so
bin="$("${bazel_cmd[@]}" info bazel-bin 2>/dev/null)"
suffix="$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')"
dest="python/tensorweave/_pywrap_tensorweave${suffix}"
tmp="$(mktemp python/tensorweave/.pywrap.XXXXXX)"
cp "$bin/python/_pywrap_tensorweave.so" "$tmp"
chmod 755 "$tmp"
mv -f "$tmp" "$dest"
echo "dev_build: $dest updated"

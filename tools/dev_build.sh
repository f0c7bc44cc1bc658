#!/usr/bin/env bash
# Rebuilds the core extension after a C++ change and puts it into the
# development install (`pip install -e .`) without re-running pip: the new
# module replaces the old one by rename, so Python processes that have the old
# one loaded keep running.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
PYTHON_BIN_PATH="$("$PYTHON" -c 'import sys; print(sys.executable)')" \
  bazel build //python:_pywrap_tensorweave.so
suffix="$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')"
dest="python/tensorweave/_pywrap_tensorweave${suffix}"
tmp="$(mktemp python/tensorweave/.pywrap.XXXXXX)"
cp bazel-bin/python/_pywrap_tensorweave.so "$tmp"
chmod 755 "$tmp"
mv -f "$tmp" "$dest"
echo "dev_build: $dest updated"

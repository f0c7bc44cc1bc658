#!/bin/bash
# The generated Python module reads a .twl written by the C++ ModelBuilder
# (needs the `flatbuffers` and `numpy` pip packages, as the converter does).
# Bazel's strict test environment finds the system python3; point it at the
# project's interpreter with
#   bazel test --test_env=PYTHON_BIN_PATH=$(which python3) //lite/schema:all
set -euo pipefail
python=${PYTHON_BIN_PATH:-python3}
if ! "$python" -c "import flatbuffers, numpy" 2>/dev/null; then
  echo "SKIPPED: $python lacks the flatbuffers/numpy packages (set PYTHON_BIN_PATH)"
  exit 0
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
lite/tools/write_test_models "$dir" > /dev/null
"$python" - "$dir/lenet.twl" lite/schema/twl_py.zip <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
import numpy as np
from twl.schema.Model import Model
from twl.schema.BuiltinOperator import BuiltinOperator

data = open(sys.argv[1], "rb").read()
assert Model.ModelBufferHasIdentifier(data, 0)
model = Model.GetRootAs(data, 0)
assert model.Version() == 1
graph = model.Subgraphs(0)
assert graph.OperatorsLength() == 8
assert graph.Operators(0).Opcode() == BuiltinOperator.CONV_2D
assert model.SignatureDefs(0).SignatureKey() == b"serving_default"
base = np.frombuffer(data, dtype=np.uint8).ctypes.data
for i in range(model.BuffersLength()):
    b = model.Buffers(i)
    if b.DataLength():
        assert (b.DataAsNumpy().ctypes.data - base) % 64 == 0, i
print("python module reads the model: OK")
PY

#!/usr/bin/env bash
# The GPU check: run on the GPU machine, in the repository root of a copy of
# the tree with build/gpu_bundle carried (tools/build_gpu_bundle.sh makes it).
# Prints the machine (nvidia-smi, Python, torch), checks that the bundle
# imports and sees the GPU, runs every tests/gpu/test_*.py file on its own
# (TW_GPU_SYNC_CHECK=1: each kernel launch is synchronized and checked), then
# the GPU benchmark (benchmarks/gpu_train_step.py, without the sync check).
# Every stage runs under `timeout`, so one hang cannot eat the device time;
# the whole check is meant to fit in 8 minutes.
#
#   tools/gpu_check.sh [--tests-only | --bench-only] [--quick] [-k EXPR] [FILE...]
#
#   --tests-only / --bench-only   one part only
#   --quick                       the benchmark's --quick (fewer steps)
#   -k EXPR                       passed to pytest
#   FILE...                       test files to run (default tests/gpu/test_*.py)
#
# Writes under $OUT (default /tmp/gpu_check): summary.txt, env.log,
# import.log, pytest_gpu.log (every file's output), junit.xml (all files),
# pytest_<file>.log, bench.log, bench.json. Stdout (of which the run tool
# returns only the last 12,000 characters) ends with the summary: each
# stage's status and time, every failing test with its message, and the
# benchmark's table.
#
# Environment: PYTHON (default python3), TW_GPU_BUNDLE (default
# build/gpu_bundle), TW_CHECK_FILE_TIMEOUT (s per test file, default 120),
# TW_CHECK_TESTS_BUDGET (s for all test files, default 300; files not started
# by then are reported as skipped), TW_CHECK_BENCH_TIMEOUT (default 130),
# TW_CHECK_JOBS (test files run at once, default 4; the benchmark runs alone).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)"
PY="${PYTHON:-python3}"
BUNDLE="${TW_GPU_BUNDLE:-$ROOT/build/gpu_bundle}"
OUT="${OUT:-/tmp/gpu_check}"
FILE_TIMEOUT="${TW_CHECK_FILE_TIMEOUT:-120}"
TESTS_BUDGET="${TW_CHECK_TESTS_BUDGET:-300}"
BENCH_TIMEOUT="${TW_CHECK_BENCH_TIMEOUT:-130}"
JOBS="${TW_CHECK_JOBS:-4}"
run_tests=1
run_bench=1
quick=()
kexpr=()
files=()
while (($#)); do
  case "$1" in
    --tests-only) run_bench=0 ;;
    --bench-only) run_tests=0 ;;
    --quick) quick=(--quick) ;;
    -k) kexpr=(-k "$2"); shift ;;
    -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d'; exit 0 ;;
    *) files+=("$1") ;;
  esac
  shift
done
mkdir -p "$OUT"
SUMMARY="$OUT/summary.txt"
: >"$SUMMARY"
T0=$SECONDS
note() { echo "$*" | tee -a "$SUMMARY"; }

# stage NAME LIMIT LOG CMD...: runs CMD under timeout, output to LOG; records
# the status and the time.
stage() {
  local name="$1" limit="$2" log="$3"
  shift 3
  local t=$SECONDS rc
  timeout -k 10 "$limit" "$@" >"$log" 2>&1
  rc=$?
  local status="ok"
  if ((rc == 124 || rc == 137)); then
    status="TIMEOUT after ${limit}s"
  elif ((rc != 0)); then
    status="FAILED (rc $rc)"
  fi
  note "$(printf '%-40s %-22s %4ds' "$name" "$status" $((SECONDS - t)))"
  return $rc
}

export PYTHONPATH="$BUNDLE${PYTHONPATH:+:$PYTHONPATH}"
# The image codecs' libraries that the GPU machine lacks (build_gpu_bundle.sh).
export LD_LIBRARY_PATH="$BUNDLE/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONDONTWRITEBYTECODE=1
export TW_GPU_VERBOSE=1

echo "=== machine ==="
{
  date -u
  timeout 20 nvidia-smi || echo "nvidia-smi failed"
  echo "--- python: $(command -v "$PY")"
  timeout 10 "$PY" --version
  timeout 60 "$PY" -c '
import numpy
print("numpy", numpy.__version__)
try:
    import torch
    print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(),
          "available", torch.cuda.is_available())
except Exception as e:
    print("torch: not usable:", e)
' 2>&1
  timeout 10 nvcc --version 2>/dev/null | tail -1
  echo "--- bundle: $BUNDLE"
  ls -la "$BUNDLE/tensorweave/"*.so 2>&1
} 2>&1 | tee "$OUT/env.log"

# The bundle's core may use the build machine's instruction set
# (tools/build_gpu_bundle.sh, -march=native): any it needs that this CPU lacks
# would kill the import with SIGILL.
if [[ -f "$BUNDLE/BUILD_INFO" ]]; then
  sed 's/^/bundle /' "$BUNDLE/BUILD_INFO"
  here=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
  lacking=""
  for flag in $(grep '^cpu_flags:' "$BUNDLE/BUILD_INFO" | cut -d: -f2); do
    [[ "$here" == *" $flag "* ]] || lacking+=" $flag"
  done
  if [[ -n "$lacking" ]]; then
    note "!!! this CPU lacks instructions the bundle was built for:$lacking (expect SIGILL;" \
      "rebuild with TW_BUNDLE_MARCH=x86-64-v3 tools/build_gpu_bundle.sh)"
  else
    note "bundle CPU flags: all present on this CPU"
  fi
fi

echo "=== import ==="
stage "import tensorweave (bundle)" 120 "$OUT/import.log" "$PY" -c '
import os, sys
import tensorweave as tw
from tensorweave.python.client import device_lib
print("tensorweave from", tw.__file__)
print("TW_NVIDIA_LIB_DIRS", os.environ.get("TW_NVIDIA_LIB_DIRS"))
print("GPU library loaded:", tw._gpu_loader.is_loaded())
print("unavailable reason:", tw.test.gpu_unavailable_reason())
for d in device_lib.list_local_devices():
    print("device:", d.name, d.device_type, d.memory_limit, d.physical_device_desc)
print("is_gpu_available:", tw.test.is_gpu_available())
sys.exit(0 if tw.test.is_gpu_available() else 3)
'
import_rc=$?
cat "$OUT/import.log"
if ((import_rc == 132)); then
  note "!!! the import died of SIGILL: the bundle uses instructions this CPU lacks (see BUILD_INFO above)"
elif ((import_rc != 0)); then
  note "!!! the bundle does not see a GPU (rc $import_rc): GPU tests will skip; see import.log"
fi

if ((run_tests)); then
  echo "=== GPU tests (TW_GPU_SYNC_CHECK=1, ${FILE_TIMEOUT}s per file, ${TESTS_BUDGET}s in all, $JOBS files at once) ==="
  if ((${#files[@]} == 0)); then
    mapfile -t files < <(ls tests/gpu/test_*.py 2>/dev/null | sort)
  fi
  : >"$OUT/pytest_gpu.log"
  rm -rf "$OUT"/junit_*.xml "$OUT"/pytest_test_*.log "$OUT"/summary_test_*.txt "$OUT/ops_ran"
  # Each test process writes the op types it saw run on the GPU here
  # (tests/gpu/gpu_util.py); the coverage line below compares them with the
  # GPU kernels the library registers.
  export TW_GPU_OPS_RAN_DIR="$OUT/ops_ran"
  tests_t0=$SECONDS
  # run_file FILE: one test file under its time limit; its summary lines go
  # to summary_<file>.txt (files run JOBS at a time: their lines are put
  # together in order at the end).
  run_file() {
    local f="$1" base left limit counts
    base="$(basename "$f" .py)"
    SUMMARY="$OUT/summary_$base.txt"
    : >"$SUMMARY"
    left=$((TESTS_BUDGET - (SECONDS - tests_t0)))
    if ((left < 20)); then
      note "$(printf '%-40s %s' "$base" "NOT RUN (tests budget spent)")"
      return
    fi
    limit=$((left < FILE_TIMEOUT ? left : FILE_TIMEOUT))
    TW_GPU_SYNC_CHECK=1 stage "$base" "$limit" "$OUT/pytest_$base.log" \
      "$PY" -m pytest "$f" -v -rfE --tb=short --maxfail=6 -p no:cacheprovider "${kexpr[@]}" \
      --junitxml="$OUT/junit_$base.xml"
    # The file's last pytest line (counts), in the summary.
    counts="$(grep -E '(passed|failed|skipped|error|no tests ran)' "$OUT/pytest_$base.log" | tail -1)"
    note "    ${counts:-(no pytest summary: crashed or timed out; see pytest_$base.log)}"
    if ! grep -qE '^=+ .*(passed|failed|skipped|error|no tests ran)' "$OUT/pytest_$base.log"; then
      note "    last lines of pytest_$base.log:"
      tail -15 "$OUT/pytest_$base.log" | sed 's/^/      /' >>"$SUMMARY"
    fi
  }
  for f in "${files[@]}"; do
    while (($(jobs -rp | wc -l) >= JOBS)); do wait -n; done
    run_file "$f" >/dev/null &
  done
  wait
  for f in "${files[@]}"; do
    base="$(basename "$f" .py)"
    {
      echo "===== $f"
      cat "$OUT/pytest_$base.log" 2>/dev/null
    } >>"$OUT/pytest_gpu.log"
    cat "$OUT/summary_$base.txt" | tee -a "$SUMMARY"
    rm -f "$OUT/summary_$base.txt"
  done
  # One junit.xml of every file's.
  "$PY" - "$OUT" <<'EOF' || true
import glob, sys, xml.etree.ElementTree as ET
out = sys.argv[1]
suites = ET.Element("testsuites")
for path in sorted(glob.glob(f"{out}/junit_*.xml")):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        print(f"junit: {path}: {e}")
        continue
    suites.extend(root.iter("testsuite"))
ET.ElementTree(suites).write(f"{out}/junit.xml", encoding="utf-8", xml_declaration=True)
EOF
  echo "=== GPU kernels the tests ran ==="
  "$PY" - "$OUT/ops_ran" <<'EOF' 2>/dev/null | tee -a "$SUMMARY"
import glob, sys
import tensorweave as tw  # noqa: F401 - loads the GPU library
from tensorweave import _pywrap_tensorweave as pywrap
ran = set()
for path in glob.glob(f"{sys.argv[1]}/*.txt"):
    ran |= set(open(path).read().split())
kernels = set(pywrap.registered_kernels("GPU"))
missing = sorted(kernels - ran)
print(f"GPU kernels run on the GPU by the tests: {len(kernels & ran)} of {len(kernels)}")
print("  not run:", " ".join(missing) if missing else "(none)")
EOF
  echo "=== failing tests ==="
  grep -hE '^(FAILED|ERROR) ' "$OUT"/pytest_test_*.log 2>/dev/null | cut -c1-240 | head -30 |
    tee -a "$SUMMARY"
  nfail="$(cat "$OUT"/pytest_test_*.log 2>/dev/null | grep -cE '^(FAILED|ERROR) ')"
  note "failing tests: ${nfail:-0} (the first 30 above; full tracebacks in pytest_gpu.log)"
fi

if ((run_bench)); then
  echo "=== benchmark ==="
  rm -f "$OUT/bench.json"
  env -u TW_GPU_SYNC_CHECK TW_GPU_VERBOSE=0 \
    timeout -k 10 "$BENCH_TIMEOUT" "$PY" benchmarks/gpu_train_step.py --json "$OUT/bench.json" \
    --time-budget $((BENCH_TIMEOUT - 50)) "${quick[@]}" >"$OUT/bench.log" 2>&1
  rc=$?
  st="ok"
  ((rc == 124 || rc == 137)) && st="TIMEOUT after ${BENCH_TIMEOUT}s"
  ((rc != 0 && rc != 124 && rc != 137)) && st="FAILED (rc $rc)"
  note "$(printf '%-40s %-22s' "benchmarks/gpu_train_step.py" "$st")"
  tail -45 "$OUT/bench.log" | tee -a "$SUMMARY"
fi

note "gpu_check: $((SECONDS - T0)) s in all; logs in $OUT"
# The run tool returns at most 8 files: the per-file logs and junit files go
# into one archive; summary.txt, pytest_gpu.log and the benchmark's stay.
(
  cd "$OUT" &&
    packed=$(ls | grep -vE '^(summary.txt|pytest_gpu.log|bench.json|bench.log|logs.tgz)$') &&
    [[ -n "$packed" ]] && tar czf logs.tgz $packed && rm -rf $packed
) || true
echo "=== summary ==="
cat "$SUMMARY"

"""Measures what tensorweave_lite costs a process: import time, modules it
imports beyond numpy, and peak RSS of load + one inference above a bare
`import numpy`. Each measurement runs in a fresh interpreter.

    python tests/footprint.py [model.twl]    # default: a small MLP
"""

import json
import os
import subprocess
import sys
import tempfile

# Peak RSS comes from VmHWM: getrusage's ru_maxrss of a child starts at its
# parent's RSS (the peak survives exec), which would hide the difference.
_RSS = """
def _status_kib(field):
    with open("/proc/self/status") as f:
        return int([l for l in f if l.startswith(field + ":")][0].split()[1])
def rss_kib():
    return _status_kib("VmRSS")
def peak_kib():
    return _status_kib("VmHWM")
"""

_BASELINE = (
    _RSS
    + """
import json, numpy
print(json.dumps([peak_kib(), rss_kib()]))
"""
)

_WITH_MODEL = (
    _RSS
    + """
import sys, time
import numpy
before = set(sys.modules)
t0 = time.perf_counter()
import tensorweave_lite
import_ms = (time.perf_counter() - t0) * 1e3
new_modules = sorted(set(sys.modules) - before)
it = tensorweave_lite.Interpreter(model_path=sys.argv[1])
it.allocate_tensors()
for d in it.get_input_details():
    it.set_tensor(d["index"], numpy.zeros(d["shape"], d["dtype"]))
it.invoke()
out = it.get_tensor(it.get_output_details()[0]["index"])
import json
print(json.dumps({"maxrss_kib": peak_kib(),
                  "rss_kib": rss_kib(),
                  "import_ms": import_ms, "new_modules": new_modules,
                  "arena_bytes": it.arena_size()}))
"""
)


def _run(code, *args):
    return subprocess.run([sys.executable, "-c", code, *args], check=True, capture_output=True, text=True).stdout


def measure(model_path, repeats=3):
    """Minimum over `repeats` runs of each (RSS noise is one-sided)."""
    baselines = [json.loads(_run(_BASELINE)) for _ in range(repeats)]
    runs = [json.loads(_run(_WITH_MODEL, model_path)) for _ in range(repeats)]
    best = min(runs, key=lambda r: r["maxrss_kib"])
    peak = min(b[0] for b in baselines)
    current = min(b[1] for b in baselines)
    return {
        "numpy_only_maxrss_kib": peak,
        "with_model_maxrss_kib": best["maxrss_kib"],
        # Peak RSS of (numpy + tensorweave_lite + load + invoke) minus the
        # peak of a bare `import numpy`.
        "rss_delta_kib": best["maxrss_kib"] - peak,
        # Resident set at the end of each process (not peaks).
        "current_rss_delta_kib": min(r["rss_kib"] for r in runs) - current,
        "import_ms": min(r["import_ms"] for r in runs),
        "new_modules": best["new_modules"],
        "arena_bytes": best["arena_bytes"],
        "model_bytes": os.path.getsize(model_path),
    }


def main():
    if len(sys.argv) > 1:
        path = sys.argv[1]
    else:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import twl_writer

        path = os.path.join(tempfile.mkdtemp(), "mlp.twl")
        with open(path, "wb") as f:
            f.write(twl_writer.mlp()[0])
    print(json.dumps(measure(path), indent=1))


if __name__ == "__main__":
    main()

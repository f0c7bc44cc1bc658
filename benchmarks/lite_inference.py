"""Inference time of tensorweave-lite against LiteRT and onnxruntime, in one
run: the MLP 784-512-512-10 and LeNet-5 (28x28x1), random weights (seed 0),
batch 1 and 32, 2 threads.

  python benchmarks/lite_inference.py [--threads 2] [--profile]
        [--portable DIR] [--no-footprint]

* tensorweave builds each model (tw.layers), `converters` freezes it and
  writes `.twl` and `.onnx`;
* TensorFlow builds the same architecture with the same weights from raw ops
  in a tf.function, TFLiteConverter.from_concrete_functions writes `.tflite`,
  LiteRT (ai_edge_litert) runs it;
* onnxruntime runs our `.onnx` (intra 2 / inter 1, all graph optimizations);
* tensorweave-lite runs the `.twl` through the Python binding
  (set_tensor/invoke/get_tensor, like the peers) and through the C++
  `bazel-bin/lite/tools/benchmark_model` (its median over --runs invokes).

Every time is the median of single-call times (benchmark_model reports the
same statistic), each system's best over --rounds interleaved rounds.
All outputs are checked against the tensorweave session (|a - b| <= 1e-4)
before timing. --portable DIR also times a second copy of the binding
(e.g. the portable wheel, `TWL_NATIVE=0 pip install --target DIR
./lite/python`) in a subprocess.

Footprint (unless --no-footprint): stripped size of libtensorweave_lite.so vs
LiteRT's and onnxruntime's core libraries, and the peak RSS above a bare
`import numpy` of load + one inference (lite/python/tests/footprint.py, run
as its own process; then the same from VmHWM for all three runtimes).

Goals (the issue): batch 1 <= 0.9x the faster of (LiteRT, onnxruntime);
batch 32 <= 1.0x; RSS above numpy < 5 MiB.
"""

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

import statistics
import time


ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir))
BENCHMARK_MODEL = os.path.join(ROOT, "bazel-bin", "lite", "tools", "benchmark_model")
LITE_SO = os.path.join(ROOT, "bazel-bin", "lite", "c", "libtensorweave_lite.so")
BATCHES = (1, 32)
ATOL = 1e-4
PEERS = ("LiteRT", "onnxruntime")
GOALS = {1: 0.9, 32: 1.0}


def median_per_call(fn, min_time=0.3, warmup=20):
    """Median seconds of single calls of fn() over about min_time seconds.

    Per-call median, like benchmark_model's: on a loaded machine a batch
    mean (harness.time_call) also counts the calls the scheduler preempted,
    which benchmark_model's median drops; compare like with like."""
    for _ in range(warmup):
        fn()
    t0 = time.perf_counter()
    fn()
    n = max(50, min(20000, int(min_time / max(time.perf_counter() - t0, 1e-7))))
    clock = time.perf_counter
    samples = []
    for _ in range(n):
        start = clock()
        fn()
        samples.append(clock() - start)
    return statistics.median(samples)


# --- models -------------------------------------------------------------------------------------
def weights(rng, cnn):
    """[(kind, kernel, bias)] in layer order; He-normal kernels, small biases."""

    def layer(kind, shape):
        fan_in = int(np.prod(shape[:-1]))
        return (
            kind,
            rng.normal(0, np.sqrt(2.0 / fan_in), shape).astype(np.float32),
            rng.normal(0, 0.1, shape[-1:]).astype(np.float32),
        )

    if cnn:
        return [
            layer("conv", [5, 5, 1, 6]),
            layer("conv", [5, 5, 6, 16]),
            layer("dense", [256, 120]),
            layer("dense", [120, 84]),
            layer("dense", [84, 10]),
        ]
    return [layer("dense", [784, 512]), layer("dense", [512, 512]), layer("dense", [512, 10])]


def export_tensorweave(name, layers, cnn, out_dir):
    """Builds the model with tw.layers, returns (twl path, onnx path, run(x))."""
    import tensorweave as tw
    from converters import freeze, onnx_export, tf_to_twl

    g = tw.Graph()
    with g.as_default():
        x = tw.placeholder(tw.float32, [None, 28, 28, 1] if cnn else [None, 784], name="x")
        h = x
        for i, (kind, k, b) in enumerate(layers):
            last = i == len(layers) - 1
            init = dict(
                kernel_initializer=tw.constant_initializer(k),
                bias_initializer=tw.constant_initializer(b),
                activation=None if last else tw.nn.relu,
            )
            if kind == "conv":
                h = tw.layers.conv2d(h, k.shape[-1], k.shape[0], padding="valid", **init)
                h = tw.layers.max_pooling2d(h, 2, 2)
            else:
                if h.shape.ndims > 2:
                    h = tw.layers.flatten(h)
                h = tw.layers.dense(h, k.shape[-1], **init)
        y = tw.nn.softmax(h, name="probs")
        init_op = tw.global_variables_initializer()
    sess = tw.Session(graph=g)
    sess.run(init_op)
    frozen = freeze.freeze_session(sess, [x], [y])
    twl_path = os.path.join(out_dir, f"{name}.twl")
    onnx_path = os.path.join(out_dir, f"{name}.onnx")
    with open(twl_path, "wb") as f:
        f.write(tf_to_twl.convert(frozen, [x.name], [y.name], ["x"], ["probs"]))
    with open(onnx_path, "wb") as f:
        f.write(onnx_export.export(frozen, [x.name], [y.name], ["x"], ["probs"]).SerializeToString())
    return twl_path, onnx_path, (lambda feed: sess.run(y, {x: feed}))


def export_tflite(name, layers, cnn, out_dir):
    """The same architecture and weights as raw TF ops -> .tflite."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    class Model(tf.Module):
        def __init__(self):
            super().__init__()
            self.params = [(kind, tf.Variable(k), tf.Variable(b)) for kind, k, b in layers]

        @tf.function(input_signature=[tf.TensorSpec([None, 28, 28, 1] if cnn else [None, 784], tf.float32)])
        def __call__(self, x):
            h = x
            for i, (kind, k, b) in enumerate(self.params):
                last = i == len(self.params) - 1
                if kind == "conv":
                    h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(h, k, [1, 1, 1, 1], "VALID"), b))
                    h = tf.nn.max_pool2d(h, 2, 2, "VALID")
                else:
                    if len(h.shape) > 2:
                        h = tf.reshape(h, [-1, int(np.prod(h.shape[1:]))])
                    h = tf.nn.bias_add(tf.matmul(h, k), b)
                    if not last:
                        h = tf.nn.relu(h)
            return tf.nn.softmax(h)

    model = Model()
    fn = model.__call__.get_concrete_function()
    converter = tf.lite.TFLiteConverter.from_concrete_functions([fn], model)
    path = os.path.join(out_dir, f"{name}.tflite")
    with open(path, "wb") as f:
        f.write(converter.convert())
    return path


# --- runners: each returns run(x) -> y, doing set / invoke / get ---------------------------------
def tflite_like_runner(interpreter_cls, path, batch, feed_shape, threads):
    it = interpreter_cls(model_path=path, num_threads=threads)
    inp = it.get_input_details()[0]["index"]
    it.resize_tensor_input(inp, [batch, *feed_shape])
    it.allocate_tensors()
    out = it.get_output_details()[0]["index"]

    def run(x):
        it.set_tensor(inp, x)
        it.invoke()
        return it.get_tensor(out)

    return run


def litert_runner(path, batch, feed_shape, threads):
    from ai_edge_litert.interpreter import Interpreter

    return tflite_like_runner(Interpreter, path, batch, feed_shape, threads)


def twl_runner(path, batch, feed_shape, threads):
    import tensorweave_lite

    return tflite_like_runner(tensorweave_lite.Interpreter, path, batch, feed_shape, threads)


def ort_runner(path, batch, feed_shape, threads):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    return lambda x: sess.run(None, {name: x})[0]


def benchmark_model(path, batch, threads, runs, profile=False):
    """(median µs, stdout) of the C++ benchmark_model."""
    cmd = [
        BENCHMARK_MODEL,
        f"--graph={path}",
        f"--num_threads={threads}",
        f"--batch={batch}",
        f"--runs={runs}",
        f"--warmup={max(50, runs // 10)}",
    ] + (["--profile"] if profile else [])
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return float(re.search(r"median ([\d.]+) us", out).group(1)), out


def binding_flavor(module_file):
    """How the binding at module_file was built and which vector kernels it
    runs here, e.g. 'native (avx512 kernels)' or 'portable (avx2 kernels of
    sse2/avx2/avx512)'. Runs in a fresh process: the module is imported from
    module_file's directory."""
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); "
        "from tensorweave_lite import _interpreter as m; print(m.KERNEL_ISA, m.MULTI_ISA)"
    )
    root = os.path.dirname(os.path.dirname(module_file))
    out = subprocess.run([sys.executable, "-c", code, root], capture_output=True, text=True)
    if out.returncode != 0:
        return "unknown"
    isa, multi = out.stdout.split()
    return f"portable ({isa} kernels of sse2/avx2/avx512)" if multi == "1" else f"native ({isa} kernels)"


_CHILD = """
import json, sys
sys.path.insert(0, sys.argv[1]); sys.path.insert(1, sys.argv[2])
import numpy as np, tensorweave_lite
from lite_inference import twl_runner, binding_flavor, median_per_call
cases = json.loads(sys.argv[3]); threads = int(sys.argv[4])
result = {"flavor": binding_flavor(tensorweave_lite.__file__), "times": {}}
for key, path, batch, shape in cases:
    x = np.random.default_rng(1).standard_normal([batch, *shape]).astype(np.float32)
    run = twl_runner(path, batch, shape, threads)
    result["times"][key] = min(median_per_call(lambda: run(x)) for _ in range(3))
print(json.dumps(result))
"""


def time_binding_in(dir_, cases, threads):
    here = os.path.dirname(os.path.abspath(__file__))
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, dir_, here, json.dumps(cases), str(threads)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


# --- footprint ----------------------------------------------------------------------------------
def stripped_size(path):
    with tempfile.TemporaryDirectory() as d:
        copy = os.path.join(d, os.path.basename(path))
        shutil.copy(path, copy)
        subprocess.run(["strip", "--strip-unneeded", copy], check=True)
        return os.path.getsize(copy)


def footprint(mlp_twl):
    import ai_edge_litert
    import onnxruntime

    print(
        "\nFootprint: shared libraries (C library = the C/C++ API library, as deployed without Python;"
        " Python = what the package maps to run a model, read from /proc/self/maps)"
    )
    print(f"{'library':62s}{'role':>12s}{'file':>11s}{'stripped':>11s}")
    rows = [("tensorweave-lite  " + os.path.relpath(LITE_SO, ROOT), "C library", LITE_SO)]
    import tensorweave_lite

    rows += [
        ("tensorweave-lite  " + os.path.basename(so), "Python", so)
        for so in glob.glob(os.path.join(os.path.dirname(tensorweave_lite.__file__), "*.so"))
    ]
    lrt = os.path.dirname(ai_edge_litert.__file__)
    ortd = os.path.join(os.path.dirname(onnxruntime.__file__), "capi")
    rows.append(("LiteRT  libLiteRt.so", "C library", os.path.join(lrt, "libLiteRt.so")))
    rows.append(
        (
            "onnxruntime  " + os.path.basename(glob.glob(os.path.join(ortd, "libonnxruntime.so*"))[0]),
            "C library",
            glob.glob(os.path.join(ortd, "libonnxruntime.so*"))[0],
        )
    )
    probe = (
        f"from ai_edge_litert.interpreter import Interpreter as I; i = I(model_path={mlp_twl[:-4] + '.tflite'!r});"
        f"i.allocate_tensors(); i.invoke(); import onnxruntime as o; o.InferenceSession({mlp_twl[:-4] + '.onnx'!r});"
        "print('\\n'.join(sorted({l.split()[-1] for l in open('/proc/self/maps') if '.so' in l})))"
    )
    mapped = subprocess.run(
        [sys.executable, "-c", probe],
        check=True,
        capture_output=True,
        text=True,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"),
    ).stdout.split()
    for so in mapped:
        for label, d in (("LiteRT  ", lrt), ("onnxruntime  ", ortd)):
            if os.path.dirname(so) == d:
                rows.append((label + os.path.basename(so), "Python", so))
    for label, role, so in rows:
        print(f"{label:62s}{role:>12s}{os.path.getsize(so) / 2**20:9.2f}Mi{stripped_size(so) / 2**20:9.2f}Mi")

    tests = os.path.join(ROOT, "lite", "python", "tests")
    sys.path.insert(0, tests)
    import twl_writer

    small = os.path.join(os.path.dirname(mlp_twl), "mlp_64_32_10.twl")
    with open(small, "wb") as f:
        f.write(twl_writer.mlp((64, 32, 10))[0])
    print(
        "\nPeak RSS of import tensorweave_lite + load + allocate + one invoke, minus a bare `import numpy`"
        " (lite/python/tests/footprint.py, min of 3 fresh processes each; goal < 5 MiB)"
    )
    print(f"{'model':36s}{'model file':>12s}{'arena':>10s}{'peak RSS delta':>16s}{'end RSS delta':>15s}{'import':>9s}")
    for label, path in (("MLP 784-512-512-10 (this benchmark)", mlp_twl), ("MLP 64-32-10 (test_footprint.py)", small)):
        # footprint.py runs as its own small process: a child's ru_maxrss
        # starts at its parent's RSS (Linux keeps the pre-exec peak), so
        # measuring from this process (TensorFlow loaded) would read ~0.
        out = subprocess.run(
            [sys.executable, os.path.join(tests, "footprint.py"), path], check=True, capture_output=True, text=True
        ).stdout
        r = json.loads(out)
        verdict = "ok" if r["rss_delta_kib"] < 5 * 1024 else "OVER"
        print(
            f"{label:36s}{r['model_bytes'] / 2**20:10.2f}Mi{r['arena_bytes'] / 1024:8.1f}Ki"
            f"{r['rss_delta_kib'] / 1024:12.2f}MiB {verdict:4s}{r['current_rss_delta_kib'] / 1024:10.2f}MiB"
            f"{r['import_ms']:7.1f}ms"
        )

    # The same for every system, from /proc/self/status VmHWM (the peak of
    # the process's own address space, which a child does not inherit).
    base = mlp_twl[:-4]
    programs = {
        "import numpy only": "import numpy",
        "tensorweave-lite (.twl)": (
            f"import numpy, tensorweave_lite as m\ni = m.Interpreter(model_path={base + '.twl'!r}, num_threads=2)"
        ),
        "LiteRT (.tflite)": (
            "import numpy\nfrom ai_edge_litert.interpreter import Interpreter\n"
            f"i = Interpreter(model_path={base + '.tflite'!r}, num_threads=2)"
        ),
        "onnxruntime (.onnx)": (
            "import numpy, onnxruntime as o\n"
            f"s = o.InferenceSession({base + '.onnx'!r}, providers=['CPUExecutionProvider'])\n"
            "s.run(None, {s.get_inputs()[0].name: numpy.zeros([1, 784], numpy.float32)})"
        ),
    }
    run_twl = (
        "\ni.allocate_tensors(); d = i.get_input_details()[0]\n"
        "i.set_tensor(d['index'], numpy.zeros(d['shape'], numpy.float32)); i.invoke()"
        "\ni.get_tensor(i.get_output_details()[0]['index'])"
    )
    hwm = "\nprint([l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0])"
    peaks = {}
    for label, code in programs.items():
        code += (run_twl if "Interpreter(" in code else "") + hwm
        peaks[label] = min(
            int(
                subprocess.run(
                    [sys.executable, "-c", code],
                    check=True,
                    capture_output=True,
                    text=True,
                    env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"),
                ).stdout.split()[-1]
            )
            for _ in range(3)
        )
    print(
        "\nPeak RSS (VmHWM) of load + one inference of the MLP 784-512-512-10, batch 1, minus `import numpy`"
        " (min of 3 processes)"
    )
    for label, kib in peaks.items():
        if label != "import numpy only":
            print(f"  {label:28s}{(kib - peaks['import numpy only']) / 1024:8.2f} MiB")


# --- main ---------------------------------------------------------------------------------------
def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--profile", action="store_true", help="print benchmark_model --profile per-op times")
    parser.add_argument("--portable", metavar="DIR", help="also time the tensorweave_lite copy installed in DIR")
    parser.add_argument("--no-footprint", action="store_true")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved timing rounds (best round median kept)")
    parser.add_argument("--keep", metavar="DIR", help="write the models here (default: a temp dir)")
    args = parser.parse_args()
    for path in (BENCHMARK_MODEL, LITE_SO):
        if not os.path.exists(path):
            sys.exit(f"{path} missing: bazel build //lite/tools:benchmark_model //lite/c:libtensorweave_lite.so")

    import tensorweave_lite

    flavor = binding_flavor(tensorweave_lite.__file__)
    out_dir = args.keep or tempfile.mkdtemp(prefix="lite_inference_")
    os.makedirs(out_dir, exist_ok=True)
    print(
        f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}, "
        f"{os.cpu_count()} cpus, {args.threads} threads; models in {out_dir}"
    )
    print(f"tensorweave_lite binding: {tensorweave_lite.__file__} -- {flavor}")

    rng = np.random.default_rng(0)
    models = {}
    for name, cnn in (("mlp", False), ("lenet", True)):
        layers = weights(rng, cnn)
        twl_path, onnx_path, tw_run = export_tensorweave(name, layers, cnn, out_dir)
        tflite_path = export_tflite(name, layers, cnn, out_dir)
        models[name] = dict(
            cnn=cnn, twl=twl_path, onnx=onnx_path, tflite=tflite_path, tw=tw_run, shape=[28, 28, 1] if cnn else [784]
        )
    titles = {"mlp": "MLP 784-512-512-10", "lenet": "LeNet-5 CNN"}

    rows, bm_out, child_cases = {}, {}, []
    for name, m in models.items():
        for batch in BATCHES:
            case = f"{titles[name]}, batch {batch}"
            x = np.random.default_rng(1).standard_normal([batch, *m["shape"]]).astype(np.float32)
            runners = {
                "LiteRT": litert_runner(m["tflite"], batch, m["shape"], args.threads),
                "onnxruntime": ort_runner(m["onnx"], batch, m["shape"], args.threads),
                "twl Python": twl_runner(m["twl"], batch, m["shape"], args.threads),
            }
            expected = m["tw"](x)
            for system, run in runners.items():
                got = run(x)
                err = float(np.max(np.abs(got - expected)))
                if got.shape != expected.shape or not err <= ATOL:
                    sys.exit(f"{case}: {system} disagrees with tensorweave: max |diff| {err:.3g}")
            # Interleave the systems over --rounds rounds; keep each system's
            # best round median of per-call times (load only adds time).
            runs = 3000 if batch == 1 else 500
            timings = {}
            for _ in range(args.rounds):
                for s, run in runners.items():
                    t = median_per_call(lambda run=run: run(x))
                    timings[s] = min(timings.get(s, t), t)
                t = benchmark_model(m["twl"], batch, args.threads, runs)[0] * 1e-6
                timings["twl C++"] = min(timings.get("twl C++", t), t)
            if args.profile:
                bm_out[case] = benchmark_model(m["twl"], batch, args.threads, runs, profile=True)[1]
            rows[case] = timings
            child_cases.append([case, m["twl"], batch, m["shape"]])
    print(f"all outputs agree with the tensorweave session within {ATOL:g}")

    portable_flavor = None
    if args.portable:
        res = time_binding_in(args.portable, child_cases, args.threads)
        portable_flavor = res["flavor"]
        for case, t in res["times"].items():
            rows[case]["twl Py portable"] = t

    systems = ["LiteRT", "onnxruntime", "twl Python", "twl C++"] + (["twl Py portable"] if args.portable else [])
    print(
        f"\nInference, median µs per invoke (set_tensor + invoke + get_tensor for the Python APIs), "
        f"{args.threads} threads"
    )
    print(
        f"  twl Python = the binding above ({flavor}); twl C++ = benchmark_model median"
        + (f"; twl Py portable = {args.portable} ({portable_flavor})" if args.portable else "")
    )
    ratio_cols = [s for s in systems if s.startswith("twl")]
    header = f"{'case':28s}" + "".join(f"{s:>16s}" for s in systems)
    header += "".join(f"{s + '/best':>{max(14, len(s) + 7)}s}" for s in ratio_cols) + f"{'goal':>7s}"
    print(header)
    failures = []
    for case, t in rows.items():
        best = min(t[p] for p in PEERS)
        goal = GOALS[int(case.rsplit(" ", 1)[1])]
        line = f"{case:28s}" + "".join(f"{t[s] * 1e6:14.1f}us" for s in systems)
        for s in ratio_cols:
            r = t[s] / best
            line += f"{r:{max(14, len(s) + 7)}.3f}"
            if s in ("twl Python", "twl C++") and r > goal:
                failures.append(
                    f"{case}: {s} {r:.3f}x the faster peer ({min(PEERS, key=lambda p: t[p])}), goal <= {goal}"
                )
        print(line + f"{'<=' + str(goal):>7s}")
    print("(best = the faster of LiteRT and onnxruntime for that case)")
    print("\nGoals: " + ("all met" if not failures else "NOT met:\n  " + "\n  ".join(failures)))

    if args.profile:
        for case, out in bm_out.items():
            print(f"\nbenchmark_model --profile, {case}:\n{out.rstrip()}")

    if not args.no_footprint:
        footprint(models["mlp"]["twl"])


if __name__ == "__main__":
    main()

"""Batch-1 latency of whole models on tensorweave-lite against onnxruntime,
the same ONNX model, 1 and 2 threads, in interleaved rounds.

  python benchmarks/lite_models.py [--models lstm,gru] [--rounds 5] [--runs 100]
        [--hidden 256] [--embed 128] [--steps 64]

Models (tests/rnn_models.py, as torch.onnx.export writes them, random
weights):
  lstm  text classifier: Embedding(1000, embed) -> 2-layer LSTM(hidden) ->
        Linear(h_n[-1], 10), `steps` tokens
  gru   the same with a 2-layer GRU (linear_before_reset=1, as PyTorch)

tensorweave-lite runs the converted .twl through the C API
(converters.lite_runner over $TWL_LITE_LIBRARY, else
bazel-bin/lite/c/libtensorweave_lite.so; `bazel build
//lite/c:libtensorweave_lite.so`): per call, inputs copied in, invoke,
output copied out (LiteRunner.prepared). onnxruntime runs with
intra_op_num_threads = threads, inter 1, all graph optimizations. Outputs
are compared (|a - b| <= 1e-4) before timing. Rounds interleave the systems;
each time is the median of single-call times within a round, each system's
best over the rounds; the ratio is tensorweave-lite / onnxruntime (goal:
at most 0.9). The fastest single call of each is printed too: on a shared,
loaded machine it is the figure least disturbed by other processes.
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

import onnxruntime as ort
import rnn_models

from converters import lite_runner, onnx_import


def _times_ms(fn, runs):
    """(median, fastest) single-call time in ms."""
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return 1e3 * float(np.median(times)), 1e3 * float(np.min(times))


def _models(args):
    sizes = {"embed": args.embed, "hidden": args.hidden, "steps": args.steps, "batch": 1}
    return {
        "lstm": lambda: rnn_models.classifier_model("LSTM", **sizes),
        "gru": lambda: rnn_models.classifier_model("GRU", **sizes),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="lstm,gru")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--runs", type=int, default=100)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--embed", type=int, default=128)
    p.add_argument("--steps", type=int, default=64)
    p.add_argument("--threads", default="1,2")
    args = p.parse_args()
    builders = _models(args)
    print(
        f"batch 1, embed {args.embed}, hidden {args.hidden}, {args.steps} steps; library {lite_runner.library_path()}"
    )
    print("| model | threads | onnxruntime ms | tensorweave-lite ms | tw/ort | fastest call: ort / tw ms, tw/ort |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name in args.models.split(","):
        model, feeds = builders[name]()
        data = onnx_import.convert(model)
        for threads in [int(t) for t in args.threads.split(",")]:
            so = ort.SessionOptions()
            so.intra_op_num_threads, so.inter_op_num_threads = threads, 1
            so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
            lite = lite_runner.LiteRunner(data, num_threads=threads)
            want = sess.run(None, feeds)[0]
            call = lite.prepared(feeds)
            got = call()[0]
            err = float(np.abs(got - want).max())
            assert err <= 1e-4, f"{name}: outputs differ by {err}"
            best = {"ort": (np.inf, np.inf), "tw": (np.inf, np.inf)}
            for _ in range(args.rounds):
                for key, fn in (("ort", lambda s=sess, f=feeds: s.run(None, f)), ("tw", call)):
                    best[key] = tuple(min(a, b) for a, b in zip(best[key], _times_ms(fn, args.runs)))
            (ort_ms, ort_min), (tw_ms, tw_min) = best["ort"], best["tw"]
            print(
                f"| {name} | {threads} | {ort_ms:.3f} | {tw_ms:.3f} | {tw_ms / ort_ms:.2f} "
                f"| {ort_min:.3f} / {tw_min:.3f}, {tw_min / ort_min:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()

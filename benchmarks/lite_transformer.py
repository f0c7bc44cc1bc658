"""Batch-1 latency of the BERT-style text encoder (tests/transformer_models.py:
4 layers, hidden 128, 4 heads, FFN 512, 32 tokens, vocabulary 1000, random
weights) on tensorweave-lite against onnxruntime, the same ONNX model,
1 and 2 threads, in interleaved rounds.

  python benchmarks/lite_transformer.py [--rounds 5] [--runs 200]
        [--layer-norm op|chain] [--gelu erf|op|tanh] [--seq 32]
        [--decomposed-attention] [--threads 1,2]

tensorweave-lite runs the converted .twl through the C API
(converters.lite_runner over bazel-bin/lite/c/libtensorweave_lite.so; build it
with `bazel build //lite/c:libtensorweave_lite.so`): per call, inputs copied
in, invoke, output copied out (LiteRunner.prepared); onnxruntime runs with
intra_op_num_threads = threads, inter 1, all graph optimizations (which
include its own LayerNorm/GELU/attention fusions). The converter fuses each
layer's attention into one ATTENTION op; --decomposed-attention keeps the
MatMul/Softmax/Transpose ops (as before that fusion). Both are fed the same
numpy inputs per call and return numpy outputs. Outputs are compared
(|a - b| <= 1e-4) before timing. Each time is the median of single-call
times within a round, each system's best over the rounds.
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

import onnxruntime as ort
import transformer_models

from converters import lite_runner, onnx_import
from converters.onnx_import import fusion


def _median_ms(fn, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return 1e3 * float(np.median(times))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--runs", type=int, default=200)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--seq", type=int, default=32)
    p.add_argument("--layer-norm", default="op", choices=["op", "chain"])
    p.add_argument("--gelu", default="erf", choices=["erf", "op", "tanh"])
    p.add_argument("--decomposed-attention", action="store_true")
    p.add_argument("--threads", default="1,2")
    args = p.parse_args()
    fusion.ATTENTION = not args.decomposed_attention
    model = transformer_models.encoder(layers=args.layers, seq=args.seq, layer_norm=args.layer_norm, gelu=args.gelu)
    feeds = transformer_models.feeds(seq=args.seq)
    data = onnx_import.convert(model)
    print(
        f"encoder: {args.layers} layers, hidden 128, seq {args.seq}, layer_norm={args.layer_norm}, "
        f"gelu={args.gelu}, attention {'decomposed' if args.decomposed_attention else 'fused'}"
    )
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
        assert err <= 1e-4, f"outputs differ by {err}"
        best = {"onnxruntime": np.inf, "tensorweave-lite": np.inf}
        for _ in range(args.rounds):
            best["onnxruntime"] = min(best["onnxruntime"], _median_ms(lambda s=sess: s.run(None, feeds), args.runs))
            best["tensorweave-lite"] = min(best["tensorweave-lite"], _median_ms(call, args.runs))
        ratio = best["tensorweave-lite"] / best["onnxruntime"]
        print(
            f"threads {threads}: onnxruntime {best['onnxruntime']:.3f} ms, tensorweave-lite "
            f"{best['tensorweave-lite']:.3f} ms, tw/ort {ratio:.2f} (max |diff| {err:.1e})"
        )


if __name__ == "__main__":
    main()

"""Batch-1 latency of whole models on tensorweave-lite against onnxruntime
(the same ONNX model) and LiteRT (the same architecture in Keras), 1 and 2
threads, in interleaved rounds.

  python benchmarks/lite_models.py [--models lstm,gru] [--rounds 5] [--runs 100]
        [--hidden 256] [--embed 128] [--steps 64] [--no-litert]

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
intra_op_num_threads = threads, inter 1, all graph optimizations. LiteRT
(ai_edge_litert, skipped when not installed) runs the same architecture
built with tf_keras (Embedding -> LSTM/GRU(return_sequences) -> LSTM/GRU ->
Dense; GRU reset_after, as PyTorch's) with its own random weights, converted
by tf.lite.TFLiteConverter (fused UNIDIRECTIONAL_SEQUENCE_LSTM; GRU becomes
a WHILE loop), on num_threads = threads: per call set_tensor, invoke,
get_tensor. tensorweave-lite's outputs are compared with onnxruntime's
(|a - b| <= 1e-4) before timing. Rounds interleave the systems; each time is
the median of single-call times within a round, each system's best over the
rounds; the ratios are tensorweave-lite / onnxruntime and / LiteRT (goal:
at most 0.9 of the faster). The fastest single call of each is printed too:
on a shared, loaded machine it is the figure least disturbed by other
processes.
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


def _litert_call(cell, args, threads):
    """A LiteRT call of the Keras `cell` classifier, or None without LiteRT."""
    try:
        from ai_edge_litert.interpreter import Interpreter
    except ImportError:
        return None
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    import tf_keras as keras

    keras.utils.set_random_seed(0)
    ids = keras.Input([args.steps], batch_size=1, dtype="int32")
    x = keras.layers.Embedding(1000, args.embed)(ids)
    layer = getattr(keras.layers, cell)
    x = layer(args.hidden, return_sequences=True)(x)
    out = keras.layers.Dense(10)(layer(args.hidden)(x))
    data = tf.lite.TFLiteConverter.from_keras_model(keras.Model(ids, out)).convert()
    interpreter = Interpreter(model_content=data, num_threads=threads)
    interpreter.allocate_tensors()
    inp, outp = interpreter.get_input_details()[0]["index"], interpreter.get_output_details()[0]["index"]
    tokens = np.random.default_rng(0).integers(0, 1000, [1, args.steps]).astype(np.int32)

    def call():
        interpreter.set_tensor(inp, tokens)
        interpreter.invoke()
        return interpreter.get_tensor(outp)

    return call


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
    p.add_argument("--no-litert", action="store_true", help="leave LiteRT out")
    args = p.parse_args()
    builders = _models(args)
    print(
        f"batch 1, embed {args.embed}, hidden {args.hidden}, {args.steps} steps; library {lite_runner.library_path()}"
    )
    print(
        "| model | threads | onnxruntime ms | LiteRT ms | tensorweave-lite ms | tw/ort | tw/LiteRT "
        "| fastest call: ort / LiteRT / tw ms |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
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
            systems = {"ort": lambda s=sess, f=feeds: s.run(None, f), "tw": call}
            litert = None if args.no_litert else _litert_call(name.upper(), args, threads)
            if litert is not None:
                systems["litert"] = litert
            best = {key: (np.inf, np.inf) for key in ("ort", "tw", "litert")}
            for _ in range(args.rounds):
                for key, fn in systems.items():
                    best[key] = tuple(min(a, b) for a, b in zip(best[key], _times_ms(fn, args.runs)))
            (ort_ms, ort_min), (tw_ms, tw_min), (lr_ms, lr_min) = best["ort"], best["tw"], best["litert"]
            print(
                f"| {name} | {threads} | {ort_ms:.3f} | {lr_ms:.3f} | {tw_ms:.3f} | {tw_ms / ort_ms:.2f} "
                f"| {tw_ms / lr_ms:.2f} | {ort_min:.3f} / {lr_min:.3f} / {tw_min:.3f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()

"""Batch-1 latency of the BERT-style text encoder (tests/transformer_models.py:
4 layers, hidden 128, 4 heads, FFN 512, 32 tokens, vocabulary 1000, random
weights) on tensorweave-lite against onnxruntime (the same ONNX model) and
LiteRT (the same architecture in Keras), 1 and 2 threads, in interleaved
rounds.

  python benchmarks/lite_transformer.py [--rounds 5] [--runs 200]
        [--layer-norm op|chain] [--gelu erf|op|tanh] [--seq 32]
        [--decomposed-attention] [--threads 1,2] [--dynamic-seq] [--no-litert]

tensorweave-lite runs the converted .twl through the C API
(converters.lite_runner over bazel-bin/lite/c/libtensorweave_lite.so; build it
with `bazel build //lite/c:libtensorweave_lite.so`): per call, inputs copied
in, invoke, output copied out (LiteRunner.prepared); onnxruntime runs with
intra_op_num_threads = threads, inter 1, all graph optimizations (which
include its own LayerNorm/GELU/attention fusions). The converter fuses each
layer's attention into one ATTENTION op; --decomposed-attention keeps the
MatMul/Softmax/Transpose ops (as before that fusion). Both are fed the same
numpy inputs per call and return numpy outputs. --dynamic-seq exports the
sequence dim as symbolic (reshapes computed from Shape(input_ids), as
torch.onnx.export with dynamic_axes). LiteRT (ai_edge_litert, skipped when
not installed) runs the encoder built with tf_keras (Embedding + position
Embedding, LayerNormalization, per layer MultiHeadAttention with the
padding mask, LayerNormalization, Dense(gelu erf) -> Dense,
LayerNormalization; its own random weights), converted by
tf.lite.TFLiteConverter, on num_threads = threads (its XNNPACK delegate):
per call set_tensor twice, invoke, get_tensor. tensorweave-lite's outputs
are compared with onnxruntime's (|a - b| <= 1e-4) before timing. Each time
is the median of single-call times within a round, each system's best over
the rounds; the goal is tensorweave-lite at most 0.9 of the faster other.
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


def _litert_call(args, threads, feeds):
    """A LiteRT call of the Keras encoder, or None without LiteRT."""
    try:
        from ai_edge_litert.interpreter import Interpreter
    except ImportError:
        return None
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    import tf_keras as keras

    keras.utils.set_random_seed(0)
    hidden, heads, seq = 128, 4, args.seq
    ids = keras.Input([seq], batch_size=1, dtype="int32", name="input_ids")
    mask = keras.Input([seq], batch_size=1, dtype="int32", name="attention_mask")
    positions = keras.layers.Embedding(512, hidden)(tf.range(seq)[None])
    x = keras.layers.LayerNormalization(epsilon=1e-12)(keras.layers.Embedding(1000, hidden)(ids) + positions)
    attention_mask = keras.layers.Lambda(lambda m: tf.cast(m[:, None, :], tf.bool) & tf.ones([1, seq, 1], tf.bool))(
        mask
    )
    for _ in range(args.layers):
        a = keras.layers.MultiHeadAttention(heads, hidden // heads)(x, x, attention_mask=attention_mask)
        x = keras.layers.LayerNormalization(epsilon=1e-12)(x + a)
        f = keras.layers.Dense(512, activation=lambda t: tf.nn.gelu(t, approximate=False))(x)
        x = keras.layers.LayerNormalization(epsilon=1e-12)(x + keras.layers.Dense(hidden)(f))
    data = tf.lite.TFLiteConverter.from_keras_model(keras.Model([ids, mask], x)).convert()
    interpreter = Interpreter(model_content=data, num_threads=threads)
    interpreter.allocate_tensors()
    inputs = [
        (d["index"], feeds["attention_mask" if "attention_mask" in d["name"] else "input_ids"].astype(np.int32))
        for d in interpreter.get_input_details()
    ]
    output = interpreter.get_output_details()[0]["index"]

    def call():
        for index, value in inputs:
            interpreter.set_tensor(index, value)
        interpreter.invoke()
        return interpreter.get_tensor(output)

    return call


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
    p.add_argument("--dynamic-seq", action="store_true")
    p.add_argument("--no-litert", action="store_true", help="leave LiteRT out")
    args = p.parse_args()
    fusion.ATTENTION = not args.decomposed_attention
    model = transformer_models.encoder(
        layers=args.layers, seq=args.seq, layer_norm=args.layer_norm, gelu=args.gelu, dynamic_seq=args.dynamic_seq
    )
    feeds = transformer_models.feeds(seq=args.seq)
    data = onnx_import.convert(model)
    print(
        f"encoder: {args.layers} layers, hidden 128, seq {args.seq}, layer_norm={args.layer_norm}, "
        f"gelu={args.gelu}, attention {'decomposed' if args.decomposed_attention else 'fused'}, "
        f"sequence dim {'dynamic' if args.dynamic_seq else 'static'}"
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
        systems = {"onnxruntime": lambda s=sess: s.run(None, feeds), "tensorweave-lite": call}
        litert = None if args.no_litert else _litert_call(args, threads, feeds)
        if litert is not None:
            systems["LiteRT"] = litert
        best = dict.fromkeys(systems, np.inf)
        for _ in range(args.rounds):
            for key, fn in systems.items():
                best[key] = min(best[key], _median_ms(fn, args.runs))
        tw = best["tensorweave-lite"]
        versus = f", LiteRT {best['LiteRT']:.3f} ms, tw/LiteRT {tw / best['LiteRT']:.2f}" if litert else ""
        print(
            f"threads {threads}: onnxruntime {best['onnxruntime']:.3f} ms, tensorweave-lite "
            f"{tw:.3f} ms, tw/ort {tw / best['onnxruntime']:.2f}{versus} (max |diff| {err:.1e})",
            flush=True,
        )


if __name__ == "__main__":
    main()

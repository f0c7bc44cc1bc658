"""int8 post-training quantization of CNNs: accuracy, size and batch-1
latency of tensorweave-lite's int8 model against its float model and
against onnxruntime's float and int8 (quantize_static) models, in one run.

  python benchmarks/lite_int8.py [--models resnet18,mobilenetv2] [--size 224]
        [--calibration 16] [--eval 100] [--rounds 3] [--runs 10] [--threads 1]

The models are benchmarks/lite_cnn_models.py's (PyTorch, random weights,
exported to ONNX, batch 1). Both quantizers get the same calibration
inputs (smoothed Gaussian noise images) and the same recipe: int8 weights
per output channel, uint8 activations per tensor, min/max ranges
(onnxruntime: QDQ format, per_channel=True, QUInt8/QInt8). Reported:
  - top-1 agreement of each int8 model with its float model on --eval
    held-out inputs, and the file sizes;
  - latency (median of single calls per round, best round): tensorweave
    int8, tensorweave float, onnxruntime int8, onnxruntime float, and the
    ratios tw-int8 / tw-float and tw-int8 / ort-int8.
  - mobilenetv2 also against LiteRT's int8 (when tensorflow, tf_keras and
    ai_edge_litert are installed): tf_keras.applications.MobileNetV2 (the
    same network: alpha 1.0, ReLU6, 1280-wide head, random weights and
    BatchNorm statistics) through TFLiteConverter's full-integer recipe
    (int8 activations and per-channel int8 weights, float input and
    output, the same calibration images), run by LiteRT's interpreter
    (XNNPACK) in the same rounds; ms lrt-int8 and tw-int8 / lrt-int8.
--save-dir DIR writes each int8 model to DIR/<model>_int8.twl.
--cpu-time times calls by the calling thread's CPU time instead of wall
time (1 thread only: steadier on a loaded machine).
Skips (exit 0, a message) when torch, onnx or onnxruntime is missing.
"""

import argparse
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def _images(n, size, seed):
    x = np.random.default_rng(seed).normal(size=(n, 3, size + 2, size + 2)).astype(np.float32)
    return (x[:, :, 2:, 2:] + x[:, :, 1:-1, 1:-1] + x[:, :, :-2, :-2]) / 1.7


def _ort_quantize(model, calibration, tmp):
    from onnxruntime import quantization as q

    class Reader(q.CalibrationDataReader):
        def __init__(self):
            self.batches = iter([{"input": calibration[i : i + 1]} for i in range(len(calibration))])

        def get_next(self):
            return next(self.batches, None)

    import onnx

    src, dst = os.path.join(tmp, "float.onnx"), os.path.join(tmp, "int8.onnx")
    onnx.save(model, src)
    q.quantize_static(
        src,
        dst,
        Reader(),
        quant_format=q.QuantFormat.QDQ,
        per_channel=True,
        activation_type=q.QuantType.QUInt8,
        weight_type=q.QuantType.QInt8,
    )
    with open(dst, "rb") as f:
        return f.read()


def _litert_int8(calibration, threads):
    """A callable running LiteRT's int8 MobileNetV2 on an NCHW batch of one,
    or None when tensorflow, tf_keras or ai_edge_litert is missing."""
    try:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf
        import tf_keras
        from ai_edge_litert.interpreter import Interpreter
    except ImportError:
        return None
    tf_keras.utils.set_random_seed(0)
    size = calibration.shape[-1]
    model = tf_keras.applications.MobileNetV2(input_shape=(size, size, 3), weights=None)
    rng = np.random.default_rng(0)
    for layer in model.layers:
        if isinstance(layer, tf_keras.layers.BatchNormalization):
            shape = layer.gamma.shape
            layer.set_weights(
                [
                    rng.uniform(0.5, 1.5, shape).astype(np.float32),
                    rng.normal(0, 0.1, shape).astype(np.float32),
                    rng.normal(0, 0.1, shape).astype(np.float32),
                    rng.uniform(0.5, 1.5, shape).astype(np.float32),
                ]
            )
    nhwc = calibration.transpose(0, 2, 3, 1)
    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    converter.representative_dataset = lambda: ([nhwc[i : i + 1]] for i in range(len(nhwc)))
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    interpreter = Interpreter(model_content=converter.convert(), num_threads=threads)
    interpreter.allocate_tensors()
    inp = interpreter.get_input_details()[0]["index"]
    out = interpreter.get_output_details()[0]["index"]

    def call(x):
        interpreter.set_tensor(inp, np.ascontiguousarray(x.transpose(0, 2, 3, 1)))
        interpreter.invoke()
        return interpreter.get_tensor(out)

    return call


def _cpu_times_ms(fn, runs):
    """(median, fastest) single-call time in ms of the calling thread's CPU."""
    times = []
    for _ in range(runs):
        t = time.thread_time()
        fn()
        times.append(time.thread_time() - t)
    return 1e3 * float(np.median(times)), 1e3 * float(np.min(times))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="resnet18,mobilenetv2")
    p.add_argument("--size", type=int, default=224)
    p.add_argument("--calibration", type=int, default=16)
    p.add_argument("--eval", type=int, default=100)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--cpu-time", action="store_true")
    p.add_argument("--save-dir", help="write each model's int8 .twl there (for benchmark_model --profile)")
    args = p.parse_args()
    if args.cpu_time and args.threads != 1:
        p.error("--cpu-time times one thread: use --threads 1")
    import lite_cnn_models as cnn

    missing = cnn._missing_modules()
    if missing:
        print(f"skipped: {', '.join(missing)} not installed")
        return
    import onnxruntime as ort

    from converters import lite_runner, onnx_import, ptq

    print(f"batch 1, {args.size}x{args.size}, {args.threads} thread(s); library {lite_runner.library_path()}")
    rows = []
    for name in args.models.split(","):
        model, _ = cnn.MODELS[name](args.size)
        calibration = _images(args.calibration, args.size, 1)
        held_out = _images(args.eval, args.size, 2)
        float_twl = onnx_import.convert(model)
        int8_twl = ptq.quantize(float_twl, {"input": calibration})
        if args.save_dir:
            with open(os.path.join(args.save_dir, f"{name}_int8.twl"), "wb") as f:
                f.write(int8_twl)
        with tempfile.TemporaryDirectory() as tmp:
            int8_onnx = _ort_quantize(model, calibration, tmp)
        so = ort.SessionOptions()
        so.intra_op_num_threads, so.inter_op_num_threads = args.threads, 1
        sessions = {
            "ort-float": ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"]),
            "ort-int8": ort.InferenceSession(int8_onnx, so, providers=["CPUExecutionProvider"]),
        }
        runners = {
            "tw-float": lite_runner.LiteRunner(float_twl, num_threads=args.threads),
            "tw-int8": lite_runner.LiteRunner(int8_twl, num_threads=args.threads),
        }
        top1 = {k: [] for k in ("tw-float", "tw-int8", "ort-float", "ort-int8")}
        for i in range(args.eval):
            feeds = {"input": held_out[i : i + 1]}
            for k, r in runners.items():
                top1[k].append(int(next(iter(r.run(feeds).values())).argmax()))
            for k, s in sessions.items():
                top1[k].append(int(s.run(None, feeds)[0].argmax()))
        agree = {
            "tw": np.mean(np.array(top1["tw-int8"]) == top1["tw-float"]),
            "ort": np.mean(np.array(top1["ort-int8"]) == top1["ort-float"]),
        }
        feeds = {"input": held_out[:1]}
        calls = {k: r.prepared(feeds) for k, r in runners.items()}
        calls.update({k: (lambda s=s, feeds=feeds: s.run(None, feeds)) for k, s in sessions.items()})
        litert = _litert_int8(calibration, args.threads) if name == "mobilenetv2" else None
        if litert is not None:
            calls["lrt-int8"] = lambda f=litert, x=held_out[:1]: f(x)
        timer = _cpu_times_ms if args.cpu_time else cnn._times_ms
        best = dict.fromkeys(calls, np.inf)
        fastest = dict.fromkeys(calls, np.inf)
        for _ in range(args.rounds):
            for k, fn in calls.items():
                median, low = timer(fn, args.runs)
                best[k], fastest[k] = min(best[k], median), min(fastest[k], low)
        best["fastest"] = fastest
        rows.append((name, len(float_twl), len(int8_twl), len(int8_onnx), agree, best))
        print(f"{name}: done", flush=True)
    print(
        "| model | twl float / int8 bytes | ort int8 bytes | top-1 agree tw / ort | ms tw-int8 | tw-float "
        "| ort-int8 | ort-float | lrt-int8 | tw-int8/tw-float | tw-int8/ort-int8 | tw-int8/lrt-int8 "
        "(median, fastest call) |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, fsize, qsize, osize, agree, t in rows:
        lrt, vs_lrt = "n/a", "n/a"
        if "lrt-int8" in t:
            f = t["fastest"]
            lrt = f"{t['lrt-int8']:.2f}"
            vs_lrt = f"{t['tw-int8'] / t['lrt-int8']:.2f}, {f['tw-int8'] / f['lrt-int8']:.2f}"
        print(
            f"| {name} | {fsize:,} / {qsize:,} ({fsize / qsize:.2f}x) | {osize:,} | {agree['tw']:.3f} / "
            f"{agree['ort']:.3f} | {t['tw-int8']:.2f} | {t['tw-float']:.2f} | {t['ort-int8']:.2f} "
            f"| {t['ort-float']:.2f} | {lrt} | {t['tw-int8'] / t['tw-float']:.2f} "
            f"| {t['tw-int8'] / t['ort-int8']:.2f} | {vs_lrt} |"
        )


if __name__ == "__main__":
    main()

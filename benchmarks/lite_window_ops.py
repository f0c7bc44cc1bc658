"""Times the lite runtime's window ops from ONNX against onnxruntime: the
ConvTranspose shapes of decoders (stride 2, kernels 2/3/4) and pools with
the ONNX options (explicit pads, ceil_mode, dilation), 1 and 2 threads.

  python benchmarks/lite_window_ops.py [--runs 30]

Each time is the median of single calls (after a warm-up) of the whole
converted model: for lite that includes the NCHW <-> NHWC transposes around
the one op (which a real model pays once at its ends); outputs are checked
against onnxruntime first.
"""

import argparse
import statistics
import time

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from converters import lite_runner, onnx_import

RNG = np.random.default_rng(0)


def _model(node, x_shape, inits=()):
    g = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(v, n) for n, v in inits],
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 19)])
    m.ir_version = 8
    return m


def _cases():
    for c, o, hw, k in ((64, 32, 32, 4), (128, 64, 16, 2), (32, 16, 64, 3)):
        pads = [0, 0, 0, 0] if k == 2 else [1, 1, 1, 1]
        extra = {"output_padding": [1, 1]} if k == 3 else {}
        w = RNG.standard_normal((c, o, k, k)).astype(np.float32)
        node = helper.make_node("ConvTranspose", ["x", "w"], ["y"], strides=[2, 2], pads=pads, **extra)
        yield f"ConvTranspose {c}->{o} {hw}x{hw} k{k} s2", _model(node, [1, c, hw, hw], [("w", w)]), [1, c, hw, hw]
    for op, attrs in (
        ("MaxPool", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
        ("AveragePool", {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1, "count_include_pad": 1}),
        ("MaxPool", {"kernel_shape": [2, 2], "dilations": [2, 2]}),
    ):
        shape = [1, 64, 56, 56]
        name = f"{op} " + " ".join(f"{k}={v}" for k, v in attrs.items())
        yield name, _model(helper.make_node(op, ["x"], ["y"], **attrs), shape), shape


def _median(fn, runs):
    for _ in range(3):
        fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    for name, model, shape in _cases():
        x = RNG.standard_normal(shape).astype(np.float32)
        data = onnx_import.convert(model)
        for threads in (1, 2):
            options = ort.SessionOptions()
            options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
            session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
            runner = lite_runner.LiteRunner(data, num_threads=threads)
            np.testing.assert_allclose(runner.run({"x": x})["y"], session.run(None, {"x": x})[0], rtol=1e-4, atol=1e-4)
            lite = _median(lambda r=runner, feeds={"x": x}: r.run(feeds), args.runs)
            peer = _median(lambda s=session, feeds={"x": x}: s.run(None, feeds), args.runs)
            print(
                f"{name:70s} threads {threads}: lite {lite:7.3f} ms  onnxruntime {peer:7.3f} ms  ({lite / peer:.2f}x)"
            )


if __name__ == "__main__":
    main()

"""Load time of a ~14 MB .twl model on the lite runtime, with and without
its integrity trailer's CRC-32 check (issue 14).

  python benchmarks/lite_load.py [--runs 30] [--keep DIR]

The model is an MLP 784-2048-1024-10 (3.7M float32 weights, 14.7 MB),
random weights (seed 0), written by the converter's .twl writer
(`converters.twl_writer`, which appends the trailer). Each load is
`tensorweave_lite.Interpreter(model_path=...)` (the file is mapped; it is in
the page cache after the first run) or `Interpreter(model_content=bytes)`,
timed alone (median of --runs), with `verify_checksum` True and False, and
then allocate_tensors() + one invoke once more for the end-to-end figure.
The CRC-32 throughput is the file size over the difference of the medians;
zlib.crc32 over the same bytes is printed for comparison.
"""

import argparse
import os
import statistics
import tempfile
import time
import zlib

import numpy as np

import tensorweave_lite as twl
from converters.twl_writer import TwlModelBuilder


def build_mlp(sizes=(784, 2048, 1024, 10), seed=0):
    rng = np.random.default_rng(seed)
    m = TwlModelBuilder(description="lite_load benchmark MLP")
    x = m.add_input("x", [1, sizes[0]], np.float32, signature=[-1, sizes[0]])
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        w = m.add_constant(f"w{i}", (rng.standard_normal((n_out, n_in)) / np.sqrt(n_in)).astype(np.float32))
        b = m.add_constant(f"b{i}", np.zeros(n_out, np.float32))
        y = m.add_tensor(f"h{i}", [1, n_out], np.float32, signature=[-1, n_out])
        act = "RELU" if i < len(sizes) - 2 else "NONE"
        m.add_op("FULLY_CONNECTED", [x, w, b], [y], ("FullyConnectedOptions", {"fused_activation_function": act}))
        x = y
    m.add_output("y", x)
    return m.serialize()


def median_ms(fn, runs):
    fn()  # warm: page cache, allocator
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--keep", metavar="DIR", help="write the model here (default: a temp dir)")
    args = parser.parse_args()
    data = build_mlp()
    directory = args.keep or tempfile.mkdtemp()
    path = os.path.join(directory, "mlp_load.twl")
    with open(path, "wb") as f:
        f.write(data)
    size = len(data)
    weights = sum(a * b for a, b in zip((784, 2048, 1024), (2048, 1024, 10)))
    print(f"model: MLP 784-2048-1024-10, {weights / 1e6:.2f}M float weights, {size / 1e6:.1f} MB ({path})")

    rows = []
    for source in ("model_path", "model_content"):
        kwargs = {"model_path": path} if source == "model_path" else {"model_content": data}
        on = median_ms(lambda: twl.Interpreter(**kwargs), args.runs)
        off = median_ms(lambda: twl.Interpreter(verify_checksum=False, **kwargs), args.runs)
        rows.append((source, on, off))

    def first_inference(verify):
        interpreter = twl.Interpreter(model_path=path, verify_checksum=verify)
        interpreter.allocate_tensors()
        interpreter.invoke()

    e2e_on = median_ms(lambda: first_inference(True), max(5, args.runs // 3))
    e2e_off = median_ms(lambda: first_inference(False), max(5, args.runs // 3))
    crc_ms = median_ms(lambda: zlib.crc32(data), args.runs)

    print(f"{'load':<34}{'checksum on':>14}{'checksum off':>14}{'cost':>10}{'CRC GB/s':>10}")
    for source, on, off in rows:
        gbs = size / ((on - off) / 1e3) / 1e9 if on > off else float("inf")
        print(f"{'Interpreter(' + source + '=...)':<34}{on:>11.2f} ms{off:>11.2f} ms{on - off:>7.2f} ms{gbs:>10.2f}")
    print(f"{'+ allocate_tensors + invoke':<34}{e2e_on:>11.2f} ms{e2e_off:>11.2f} ms{e2e_on - e2e_off:>7.2f} ms")
    print(f"zlib.crc32 over the same bytes: {crc_ms:.2f} ms ({size / crc_ms / 1e6:.2f} GB/s)")


if __name__ == "__main__":
    main()

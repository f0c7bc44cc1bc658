"""fp32 MatMul throughput: tensorweave vs numpy (its bundled OpenBLAS) vs torch.

Prints GFLOP/s for n x n x n products (n = 1024, 2048) with 1 and 2 threads,
and tensorweave's ratio to each. Systems are timed in alternation, several
rounds, keeping each one's best time: the machines this runs on are shared,
and the best of interleaved runs is the fairest figure under noise.

    python benchmarks/matmul.py [--sizes 1024 2048] [--threads 1 2] [--rounds 5]

numpy's OpenBLAS is slowed by OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE where the
environment sets them; unset both for this command alone:

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/matmul.py
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import tensorweave as tw  # noqa: E402


def _numpy_blas(threadpoolctl):
    """threadpoolctl's handle on numpy's own BLAS (not the system OpenBLAS
    that tensorweave links), or None."""
    if threadpoolctl is None:
        return None, "unknown"
    controller = threadpoolctl.ThreadpoolController()
    numpy_dir = os.path.dirname(np.__file__)
    for lib in controller.lib_controllers:
        if lib.user_api == "blas" and ("numpy" in lib.filepath or lib.filepath.startswith(numpy_dir)):
            return lib, f"{lib.internal_api} {lib.version} {getattr(lib, 'architecture', '')}"
    return None, "unknown"


def _best_time(fn, min_seconds=0.3):
    """Best seconds per call over calls lasting at least min_seconds in all."""
    fn()
    best = float("inf")
    start = time.perf_counter()
    calls = 0
    while calls < 2 or time.perf_counter() - start < min_seconds:
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
        calls += 1
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1024, 2048])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    try:
        import threadpoolctl
    except ImportError:
        threadpoolctl = None
    try:
        import torch
    except ImportError:
        torch = None
    numpy_blas, numpy_blas_name = _numpy_blas(threadpoolctl)
    print(
        f"numpy {np.__version__} BLAS: {numpy_blas_name}; "
        f"torch: {torch.__version__ if torch else 'not installed'}; "
        f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}"
    )

    rng = np.random.default_rng(0)
    rows = []
    for threads in args.threads:
        if numpy_blas is not None:
            numpy_blas.set_num_threads(threads)
        if torch is not None:
            torch.set_num_threads(threads)
        for n in args.sizes:
            a = rng.standard_normal((n, n), dtype=np.float32)
            b = rng.standard_normal((n, n), dtype=np.float32)
            graph = tw.Graph()
            with graph.as_default():
                product = tw.matmul(tw.constant(a), tw.constant(b))
            config = tw.ConfigProto(intra_op_parallelism_threads=threads, inter_op_parallelism_threads=1)
            with tw.Session(graph=graph, config=config) as sess:
                got = sess.run(product)
                np.testing.assert_allclose(got, a @ b, rtol=1e-3, atol=1e-2 * np.sqrt(n))
                systems = {"tensorweave": lambda: sess.run(product.op), "numpy": lambda: np.matmul(a, b)}
                if torch is not None:
                    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
                    systems["torch"] = lambda: torch.matmul(ta, tb)
                best = {name: float("inf") for name in systems}
                for _ in range(args.rounds):
                    for name, fn in systems.items():
                        best[name] = min(best[name], _best_time(fn))
            gflops = {name: 2.0 * n**3 / t / 1e9 for name, t in best.items()}
            rows.append((n, threads, gflops))

    names = list(rows[0][2])
    header = f"{'n':>6} {'threads':>7}" + "".join(f"{s + ' GF/s':>18}" for s in names)
    header += "".join(f"{'tw/' + s:>12}" for s in names if s != "tensorweave")
    print(header)
    for n, threads, gflops in rows:
        line = f"{n:>6} {threads:>7}" + "".join(f"{gflops[s]:>18.1f}" for s in names)
        line += "".join(f"{gflops['tensorweave'] / gflops[s]:>12.2f}" for s in names if s != "tensorweave")
        print(line)


if __name__ == "__main__":
    main()

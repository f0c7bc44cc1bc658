"""Transpose, gather, concat and strided slice: tensorweave vs numpy (with
a contiguous copy, as a kernel must produce) on the same arrays, in one
process. Each tensorweave time includes Session.run and fetching the
result; the "identity" row is that fixed cost for a result of the same size.

  PYTHONPATH=python python benchmarks/array_ops.py
"""

import numpy as np

from harness import report
from harness import time_call


def main():
    import tensorweave as tw

    rng = np.random.default_rng(0)
    m = rng.standard_normal((2048, 2048)).astype(np.float32)
    nhwc = rng.standard_normal((32, 56, 56, 64)).astype(np.float32)
    table = rng.standard_normal((50000, 128)).astype(np.float32)
    ids = rng.integers(0, 50000, size=20000)
    cases = {
        "identity 2048x2048": (m, lambda x: tw.identity(x), lambda a: a.copy()),
        "transpose 2048x2048": (m, lambda x: tw.transpose(x), lambda a: np.ascontiguousarray(a.T)),
        "NHWC->NCHW 32x56x56x64": (
            nhwc,
            lambda x: tw.transpose(x, [0, 3, 1, 2]),
            lambda a: np.ascontiguousarray(a.transpose(0, 3, 1, 2)),
        ),
        "general perm [3,1,2,0]": (
            nhwc,
            lambda x: tw.transpose(x, [3, 1, 2, 0]),
            lambda a: np.ascontiguousarray(a.transpose(3, 1, 2, 0)),
        ),
        "gather 20000 of 50000x128": (table, lambda x: tw.gather(x, ids), lambda a: a[ids]),
        "x[::2, 1:-1] 2048x2048": (m, lambda x: x[::2, 1:-1], lambda a: np.ascontiguousarray(a[::2, 1:-1])),
        "concat 2x 2048x2048 axis 1": (
            m,
            lambda x: tw.concat([x, x], 1),
            lambda a: np.concatenate([a, a], 1),
        ),
    }
    rows = {}
    for name, (value, build, reference) in cases.items():
        g = tw.Graph()
        with g.as_default():
            x = tw.constant(value)
            y = build(x)
        sess = tw.Session(graph=g)
        np.testing.assert_array_equal(sess.run(y), reference(value))
        rows[name] = {
            "tensorweave": time_call(lambda: sess.run(y), min_time=1.0, repeats=5, warmup=3),
            "numpy": time_call(lambda: reference(value), min_time=1.0, repeats=5, warmup=3),
        }
        sess.close()
    report("Array ops (median per call)", rows, ["numpy"])


if __name__ == "__main__":
    main()

"""Session.run overhead: tensorweave vs TensorFlow's compat.v1 Session and
PyTorch eager, on the same small computations, in one process.

  python benchmarks/session_overhead.py

Cases: a 1-op graph with a feed; a chain of 100 small ops; 100 independent
small ops (a wide graph) joined by control dependencies. Goals (issue 2):
1-op at most 1/8 of TensorFlow's time, 100-op chain and wide at most 1/2.
"""

import os

import numpy as np

from harness import report
from harness import time_call

N = 100
SHAPE = [16]


def tensorweave_cases():
    import tensorweave as tw

    cases = {}
    value = np.ones(SHAPE, np.float32)
    g = tw.Graph()
    with g.as_default():
        x = tw.placeholder(tw.float32, SHAPE, name="x")
        one = x + 1.0
        chain = x
        for _ in range(N):
            chain = chain + 1.0
        branches = [x * float(i) for i in range(N)]
        with tw.control_dependencies(branches):
            wide = tw.identity(x)
    sess = tw.Session(graph=g)
    cases["1-op, fed"] = lambda: sess.run(one, {x: value})
    cases[f"{N}-op chain"] = lambda: sess.run(chain, {x: value})
    cases[f"{N}-op wide"] = lambda: sess.run(wide, {x: value})
    return cases


def tensorflow_cases():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    try:
        import tensorflow as tf
    except ImportError:
        return {}
    tf1 = tf.compat.v1
    cases = {}
    value = np.ones(SHAPE, np.float32)
    g = tf.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, SHAPE, name="x")
        one = x + 1.0
        chain = x
        for _ in range(N):
            chain = chain + 1.0
        branches = [x * float(i) for i in range(N)]
        with tf.control_dependencies(branches):
            wide = tf.identity(x)
    sess = tf1.Session(graph=g)
    cases["1-op, fed"] = lambda: sess.run(one, {x: value})
    cases[f"{N}-op chain"] = lambda: sess.run(chain, {x: value})
    cases[f"{N}-op wide"] = lambda: sess.run(wide, {x: value})
    return cases


def torch_cases():
    try:
        import torch
    except ImportError:
        return {}
    torch.set_num_threads(2)
    value = np.ones(SHAPE, np.float32)

    def one():
        return (torch.from_numpy(value) + 1.0).numpy()

    def chain():
        t = torch.from_numpy(value)
        for _ in range(N):
            t = t + 1.0
        return t.numpy()

    def wide():
        t = torch.from_numpy(value)
        for i in range(N):
            _ = t * float(i)
        return t.numpy()

    return {"1-op, fed": one, f"{N}-op chain": chain, f"{N}-op wide": wide}


def main():
    systems = {
        "tensorweave": tensorweave_cases(),
        "tf.compat.v1": tensorflow_cases(),
        "torch eager": torch_cases(),
    }
    rows = {}
    for system, cases in systems.items():
        for case, fn in cases.items():
            rows.setdefault(case, {})[system] = time_call(fn)
    report("Session.run overhead (median time per call)", rows, ["tf.compat.v1", "torch eager"])


if __name__ == "__main__":
    main()

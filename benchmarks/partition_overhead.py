"""The cost of partitioning: the 100-op chain of session_overhead.py on one CPU device, and the same chain
split across 2 CPU devices at every 10th op (a Send/Recv pair at each of the 10 cuts), in one process,
timed in interleaved rounds; TensorFlow's compat.v1 with the same split beside it where installed.

  python benchmarks/partition_overhead.py

Goal (issue 9): each cut edge costs under 2 us: (split - one device) / cuts.
"""

import os

import numpy as np

from harness import time_interleaved

N = 100
EVERY = 10
SHAPE = [16]


def chain(tw_or_tf, split):
    """Builds x -> x+1 -> ... (N ops); with `split`, the ops alternate between CPU:0 and CPU:1 every EVERY
    ops. Returns (placeholder, output, number of cut edges)."""
    tf1 = getattr(tw_or_tf, "compat", None)
    tf1 = tf1.v1 if tf1 is not None else tw_or_tf
    x = tf1.placeholder(tw_or_tf.float32, SHAPE, name="x")
    t = x
    cuts = 0
    for i in range(N):
        device = f"/cpu:{(i // EVERY) % 2}" if split else "/cpu:0"
        if split and i > 0 and i % EVERY == 0:
            cuts += 1
        with tf1.device(device):
            t = t + 1.0
    return x, t, cuts


def cases(module, tf1, config):
    out = {}
    value = np.ones(SHAPE, np.float32)
    for split in (False, True):
        g = module.Graph()
        with g.as_default():
            x, y, cuts = chain(module, split)
        sess = tf1.Session(graph=g, config=config)
        assert float(sess.run(y, {x: value})[0]) == N + 1
        out[split] = (lambda s=sess, x=x, y=y: s.run(y, {x: value}), cuts)
    return out


def main():
    import tensorweave as tw

    systems = {"tensorweave": cases(tw, tw, tw.ConfigProto(device_count={"CPU": 2}))}
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    try:
        import tensorflow as tf

        tf.compat.v1.disable_eager_execution()
        systems["tf.compat.v1"] = cases(tf, tf.compat.v1, tf.compat.v1.ConfigProto(device_count={"CPU": 2}))
    except ImportError:
        pass
    fns = {}
    for system, c in systems.items():
        for split, (fn, _) in c.items():
            fns[(system, split)] = fn
    times = time_interleaved(fns)
    cuts = systems["tensorweave"][True][1]
    print(f"\n{N}-op chain, one CPU device vs split across 2 CPU devices at every {EVERY}th op ({cuts} cut edges)")
    print(f"{'system':16s}{'1 device':>14s}{'2 devices':>14s}{'per cut edge':>16s}")
    for system in systems:
        one, two = times[(system, False)], times[(system, True)]
        print(f"{system:16s}{one * 1e6:12.1f}us{two * 1e6:12.1f}us{(two - one) / cuts * 1e6:14.2f}us")
    print("goal: tensorweave's cost per cut edge under 2 us")


if __name__ == "__main__":
    main()

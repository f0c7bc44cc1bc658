"""What tracing a step costs: the LeNet-5 training step of train_step.py (batch 64) untraced, with
`RunOptions(trace_level=FULL_TRACE)` filling a RunMetadata, and with the Chrome trace made from it by
`timeline.Timeline`, in tensorweave and in TensorFlow's compat.v1 Session, in one run. The variants of one
system are called in turn, one call each, and each one's median call time is reported: on a busy machine
that compares them under the same load (batches of calls, as time_interleaved takes, were dominated by the
load's swings here).

  python benchmarks/trace_cost.py [--threads 2] [--calls 200]
"""

import argparse
import os
import statistics
import time

import numpy as np
import train_step
from harness import report


def _lenet(tf1, nn, threads, rng):
    """A LeNet-5 training step as a callable taking options= and run_metadata=, built with TF1's op API."""
    batch, shape, _ = train_step.MODELS["LeNet-5 CNN"]
    g = tf1.Graph()
    with g.as_default():
        tf1.set_random_seed(0)
        x = tf1.placeholder(tf1.float32, [batch, 28, 28, 1])
        labels = tf1.placeholder(tf1.int64, [batch])
        counter = iter(range(100))

        def variable(shape):
            k = next(counter)
            return tf1.get_variable(f"v{k}", shape, initializer=tf1.glorot_uniform_initializer())

        def conv(h, filters):
            w = variable([5, 5, h.shape[-1], filters])
            b = variable([filters])
            return nn.max_pool2d(nn.relu(nn.bias_add(nn.conv2d(h, w, [1, 1, 1, 1], "VALID"), b)), 2, 2, "VALID")

        def dense(h, units, relu=True):
            y = nn.bias_add(tf1.matmul(h, variable([h.shape[-1], units])), variable([units]))
            return nn.relu(y) if relu else y

        h = tf1.reshape(conv(conv(x, 6), 16), [batch, -1])
        logits = dense(dense(dense(h, 120), 84), 10, relu=False)
        loss = tf1.reduce_mean(nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        train = tf1.train.GradientDescentOptimizer(train_step.LR).minimize(loss)
        init = tf1.global_variables_initializer()
    config = tf1.ConfigProto(intra_op_parallelism_threads=threads, inter_op_parallelism_threads=threads)
    sess = tf1.Session(graph=g, config=config)
    sess.run(init)
    xv, yv = train_step.data(rng, batch, shape)
    step = sess.make_callable(train, [x, labels], accept_options=True)
    return lambda **kwargs: step(xv, yv, **kwargs)


def _variants(tf1, nn, timeline, threads, rng):
    step = _lenet(tf1, nn, threads, rng)
    full = tf1.RunOptions(trace_level=tf1.RunOptions.FULL_TRACE)

    def traced():
        metadata = tf1.RunMetadata()
        step(options=full, run_metadata=metadata)
        return metadata

    return {
        "untraced": step,
        "FULL_TRACE": traced,
        "FULL_TRACE + Timeline": lambda: timeline.Timeline(traced().step_stats).generate_chrome_trace_format(),
    }


def _alternating(fns, calls, warmup=10):
    """Median seconds per call of each fn in {name: fn}, calling them in turn, one call each."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    samples = {name: [] for name in fns}
    for _ in range(calls):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(times) for name, times in samples.items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    import tensorweave as tw
    from tensorweave.python.client import timeline as tw_timeline

    systems = {"tensorweave": _variants(tw, tw.nn, tw_timeline, args.threads, rng)}
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    try:
        import tensorflow as tf
        from tensorflow.python.client import timeline as tf_timeline
    except ImportError:
        pass
    else:
        tf.compat.v1.disable_v2_behavior()
        systems["tf.compat.v1"] = _variants(tf.compat.v1, tf.nn, tf_timeline, args.threads, rng)
    rows = {case: {} for case in systems["tensorweave"]}
    for system, variants in systems.items():
        for case, seconds in _alternating(variants, args.calls).items():
            rows[case][system] = seconds
    report(f"LeNet-5 training step, {args.threads} threads: the cost of tracing", rows, ["tf.compat.v1"])
    for system in systems:
        base = rows["untraced"][system]
        for case in ("FULL_TRACE", "FULL_TRACE + Timeline"):
            print(f"{system}: {case} / untraced = {rows[case][system] / base:.3f}")


if __name__ == "__main__":
    main()

"""A 2-layer LSTM over a while_loop: tensorweave vs TensorFlow's compat.v1 (v1 control flow), in one process.

  python benchmarks/rnn_while_loop.py [--steps 50] [--rounds 15]

The program is TF1's `dynamic_rnn` loop written out: the time-major inputs [50, 32, 128] are unstacked into a
TensorArray; a `while_loop` reads step t, runs two LSTM cells (hidden 256; each cell is TF1's LSTMCell graph:
concat([x, h]) x kernel [in + 256, 1024] + bias, split into i, j, f, o, sigmoid/tanh) and writes the top
layer's output into a TensorArray that is stacked after the loop; the loss is the mean squared difference of
the stacked outputs from a target. The training step is `GradientDescentOptimizer(0.1).minimize(loss)` (the
backward loop pops the forward values from stacks). Issue 11's goal: at most 0.8x TensorFlow's training step.

Both systems start from the same weights (numpy, seeded) and are fed the same inputs; the losses of the first
training steps are checked to agree before anything is timed. Timings are interleaved rounds (the machine is
noisy: read the ratios, not the absolute figures); each round also records the process's CPU time, which on
a shared, loaded machine is the steadier of the two.

Measured 2026-11-28 on the shared 2-core dev machine (Xeon with AVX-512, load average 7-8 from other work),
`--rounds 9`, two runs: process CPU time tw/TF 0.80 and 0.80 forward, 0.82 and 0.87 training (wall time 0.75-0.85
forward, 0.82-0.91 training, unreliable under that load). What brought the training step from 1.18 (2026-11-26)
to 0.82-0.87: the gradient of a loop-invariant weight is no longer a small MatMul plus a full-size Add in every
backward iteration but one MatMul after the loop over the rows collected in TensorArrays
(control_flow_grad._hoisted_matmul); the backward loop's dgates x W^T reads W transposed once before the loop
(control_flow_grad.loop_invariant_transpose) instead of transposing it while packing in each iteration; and MatMul
keeps a loop's weight packed for its AVX-512 kernel across iterations (matmul_op.cc). The goal of 0.8x is not
quite met; what remains is the step's small GEMMs (SmallGemmBlock, ~30% of the CPU time under perf), the two
weight-gradient GEMMs (~12%) and the cells' element-wise ops.
"""

import argparse
import os
import statistics
import time

import numpy as np
from harness import report

HIDDEN = 256
BATCH = 32
INPUT = 128
LAYERS = 2
FORGET_BIAS = 1.0


def initial_values(seed=0, hidden=HIDDEN, depth=INPUT, layers=LAYERS):
    """The weights both systems start from: {name: array} (Glorot-uniform kernels, small biases)."""
    rng = np.random.RandomState(seed)
    values = {}
    for layer in range(layers):
        fan_in = (depth if layer == 0 else hidden) + hidden
        limit = np.sqrt(6.0 / (fan_in + 4 * hidden))
        values[f"kernel_{layer}"] = rng.uniform(-limit, limit, (fan_in, 4 * hidden)).astype(np.float32)
        values[f"bias_{layer}"] = rng.uniform(-0.1, 0.1, (4 * hidden,)).astype(np.float32)
    return values


def feeds(steps, seed=1, hidden=HIDDEN, batch=BATCH, depth=INPUT):
    rng = np.random.RandomState(seed)
    x = rng.standard_normal((steps, batch, depth)).astype(np.float32)
    y = rng.uniform(-0.5, 0.5, (steps, batch, hidden)).astype(np.float32)
    return x, y


def lstm_cell(tf, x, state, kernel, bias):
    """TF1's LSTMCell (no peepholes, no projection) as its graph: returns (h, (c, h))."""
    c_prev, h_prev = state
    gates = tf.nn.bias_add(tf.matmul(tf.concat([x, h_prev], 1), kernel), bias)
    i, j, f, o = tf.split(gates, 4, axis=1)
    c = tf.sigmoid(f + FORGET_BIAS) * c_prev + tf.sigmoid(i) * tf.tanh(j)
    h = tf.sigmoid(o) * tf.tanh(c)
    return h, (c, h)


def build_model(tf, v1, steps, values, hidden=HIDDEN, batch=BATCH, depth=INPUT, layers=LAYERS, lr=0.1):
    """Builds the loop, the loss and the training op in the current default graph.

    Returns (x placeholder, y placeholder, loss, train op)."""
    x = v1.placeholder(tf.float32, [steps, batch, depth], name="x")
    y = v1.placeholder(tf.float32, [steps, batch, hidden], name="y")
    kernels = [v1.Variable(values[f"kernel_{k}"], name=f"kernel_{k}") for k in range(layers)]
    biases = [v1.Variable(values[f"bias_{k}"], name=f"bias_{k}") for k in range(layers)]
    inputs_ta = tf.TensorArray(tf.float32, size=steps, element_shape=[batch, depth]).unstack(x)
    outputs_ta = tf.TensorArray(tf.float32, size=steps, element_shape=[batch, hidden])
    zeros = tf.zeros([batch, hidden])
    state0 = tuple((zeros, zeros) for _ in range(layers))

    def body(t, state, out_ta):
        h = inputs_ta.read(t)
        new_state = []
        for k in range(layers):
            h, s = lstm_cell(tf, h, state[k], kernels[k], biases[k])
            new_state.append(s)
        return t + 1, tuple(new_state), out_ta.write(t, h)

    _, _, outputs_ta = v1.while_loop(
        lambda t, *_: t < steps, body, (tf.constant(0), state0, outputs_ta), parallel_iterations=32
    )
    outputs = outputs_ta.stack()
    loss = tf.reduce_mean(tf.square(outputs - y))
    train = v1.train.GradientDescentOptimizer(lr).minimize(loss)
    return x, y, loss, train


def session(tf, v1, steps, values):
    g = tf.Graph()
    with g.as_default():
        x, y, loss, train = build_model(tf, v1, steps, values)
        init = v1.global_variables_initializer()
    config = v1.ConfigProto(inter_op_parallelism_threads=2, intra_op_parallelism_threads=1)
    sess = v1.Session(graph=g, config=config)
    sess.run(init)
    return sess, x, y, loss, train, init


def time_rounds(fns, rounds, calls=3, warmup=3):
    """Median wall and process CPU seconds per call of each fn in {name: fn}, in rounds that visit every fn in
    turn. The CPU time (all the process's threads) is the steadier figure on a loaded machine: time spent
    waiting for a core is not in it."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    wall = {name: [] for name in fns}
    cpu = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            fn()
            t0, c0 = time.perf_counter(), time.process_time()
            for _ in range(calls):
                fn()
            wall[name].append((time.perf_counter() - t0) / calls)
            cpu[name].append((time.process_time() - c0) / calls)
    return {n: statistics.median(v) for n, v in wall.items()}, {n: statistics.median(v) for n, v in cpu.items()}


def systems():
    import tensorweave as tw

    found = {"tensorweave": (tw, tw)}
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    try:
        import tensorflow as tf
    except ImportError:
        return found
    tf.compat.v1.disable_control_flow_v2()
    tf.compat.v1.disable_eager_execution()
    found["tf.compat.v1"] = (tf, tf.compat.v1)
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    values = initial_values()
    xv, yv = feeds(args.steps)
    sessions = {name: session(tf, v1, args.steps, values) for name, (tf, v1) in systems().items()}

    # The same loss from the same weights, and after two training steps.
    losses = {}
    for name, (sess, x, y, loss, train, init) in sessions.items():
        fd = {x: xv, y: yv}
        seen = []
        for _ in range(3):
            seen.append(sess.run([loss, train], fd)[0])
        seen.append(sess.run(loss, fd))
        losses[name] = np.array(seen)
        sess.run(init)
        print(f"{name:14s} losses of steps 0..3: {np.array2string(losses[name], precision=7)}")
    if "tf.compat.v1" in losses:
        diff = np.max(np.abs(losses["tensorweave"] - losses["tf.compat.v1"]) / np.abs(losses["tf.compat.v1"]))
        print(f"largest relative difference of the losses: {diff:.2e}")
        if diff > 1e-4:
            raise SystemExit("tensorweave and TensorFlow disagree on the loss: not timing")

    fns = {}
    for name, (sess, x, y, loss, train, init) in sessions.items():
        fd = {x: xv, y: yv}
        fns[("forward", name)] = lambda sess=sess, loss=loss, fd=fd: sess.run(loss, fd)
        fns[("train", name)] = lambda sess=sess, train=train, fd=fd: sess.run(train, fd)
    wall, cpu = time_rounds(fns, rounds=args.rounds)
    for what, times in [("wall time", wall), ("process CPU time", cpu)]:
        rows = {}
        for (case, name), seconds in times.items():
            label = f"{LAYERS}-layer LSTM {case}, {args.steps} steps"
            rows.setdefault(label, {})[name] = seconds
        report(
            f"LSTM while_loop (hidden {HIDDEN}, batch {BATCH}, input {INPUT}; median {what} per Session.run)",
            rows,
            ["tf.compat.v1"],
        )


if __name__ == "__main__":
    main()

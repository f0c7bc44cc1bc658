"""Training-step time: forward, backward and SGD update of three models, with
2 threads, in tensorweave, PyTorch eager and TensorFlow's compat.v1 Session,
in one run:

  MLP 784-512-512-10, batch 128
  LeNet-5 CNN (28x28x1: conv5x5 6 and 16, each ReLU + 2x2 max-pool; fc 120-84-10), batch 64
  CIFAR CNN (32x32x3: conv3x3 SAME 64, 128, 256, each ReLU + 2x2 max-pool; fc 4096-512-10), batch 64

  python benchmarks/train_step.py [--threads 2] [--rounds 15] [--models cifar]

Each model is one layer list (MODELS) that every system builds the same way. Besides the times, the run
prints each model's floating-point work per step and the rate tensorweave reaches, as a fraction of the
machine's practical peak: the rate of a large (2048^3) float32 GEMM in tensorweave with the same threads.

Goals: MLP <= 0.85x (issue 3), LeNet-5 CNN <= 0.75x (issue 3) and CIFAR CNN <= 0.75x (issue 16) the
faster peer's time.
"""

import argparse
import os
import time

import numpy as np
from harness import report, time_interleaved

LR = 0.01

# (batch, input shape HWC or [features], layers). Layers: ("conv", k, cin, cout, padding), ("pool",),
# ("flatten",), ("fc", fin, fout, relu).
MODELS = {
    "MLP 784-512-512-10": (
        128,
        [784],
        [("fc", 784, 512, True), ("fc", 512, 512, True), ("fc", 512, 10, False)],
    ),
    "LeNet-5 CNN": (
        64,
        [28, 28, 1],
        [
            ("conv", 5, 1, 6, "VALID"),
            ("pool",),
            ("conv", 5, 6, 16, "VALID"),
            ("pool",),
            ("flatten",),
            ("fc", 256, 120, True),
            ("fc", 120, 84, True),
            ("fc", 84, 10, False),
        ],
    ),
    "CIFAR CNN": (
        64,
        [32, 32, 3],
        [
            ("conv", 3, 3, 64, "SAME"),
            ("pool",),
            ("conv", 3, 64, 128, "SAME"),
            ("pool",),
            ("conv", 3, 128, 256, "SAME"),
            ("pool",),
            ("flatten",),
            ("fc", 4096, 512, True),
            ("fc", 512, 10, False),
        ],
    ),
}
SHORT_NAMES = {"mlp": "MLP 784-512-512-10", "lenet": "LeNet-5 CNN", "cifar": "CIFAR CNN"}


def step_flops(batch, shape, layers):
    """Multiply-adds x 2 of one training step: the forward pass, the weight gradients, and the input
    gradients of every layer but the first (which has none to compute)."""
    total = 0
    h, w = shape[:2] if len(shape) == 3 else (1, 1)
    first = True
    for layer in layers:
        if layer[0] == "conv":
            _, k, cin, cout, padding = layer
            if padding == "VALID":
                h, w = h - k + 1, w - k + 1
            fwd = 2 * batch * h * w * cout * cin * k * k
            total += fwd * (2 if first else 3)
            first = False
        elif layer[0] == "pool":
            h, w = h // 2, w // 2
        elif layer[0] == "fc":
            _, fin, fout, _ = layer
            fwd = 2 * batch * fin * fout
            total += fwd * (2 if first else 3)
            first = False
    return total


def data(rng, batch, shape):
    x = rng.standard_normal([batch] + shape).astype(np.float32)
    y = rng.integers(0, 10, size=batch).astype(np.int64)
    return x, y


def build_tf1(tf, tf1, layers, x):
    """The model in TF1 ops (tensorweave's or TensorFlow's: the same code)."""
    h = x
    for i, layer in enumerate(layers):
        if layer[0] == "conv":
            _, k, cin, cout, padding = layer
            w = tf1.get_variable(f"w{i}", [k, k, cin, cout], initializer=tf1.glorot_uniform_initializer())
            b = tf1.get_variable(f"b{i}", [cout], initializer=tf1.zeros_initializer())
            h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(h, w, [1, 1, 1, 1], padding), b))
        elif layer[0] == "pool":
            h = tf.nn.max_pool2d(h, 2, 2, "VALID")
        elif layer[0] == "flatten":
            h = tf.reshape(h, [int(h.shape[0]), -1])
        else:
            _, fin, fout, relu = layer
            w = tf1.get_variable(f"w{i}", [fin, fout], initializer=tf1.glorot_uniform_initializer())
            b = tf1.get_variable(f"b{i}", [fout], initializer=tf1.zeros_initializer())
            h = tf.nn.bias_add(tf.matmul(h, w), b)
            if relu:
                h = tf.nn.relu(h)
    return h


def session_steps(tf, tf1, threads, rng, models):
    steps = {}
    for name in models:
        batch, shape, layers = MODELS[name]
        g = tf.Graph()
        with g.as_default():
            tf1.set_random_seed(0)
            x = tf1.placeholder(tf.float32, [batch] + shape)
            labels = tf1.placeholder(tf.int64, [batch])
            logits = build_tf1(tf, tf1, layers, x)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
            train = tf1.train.GradientDescentOptimizer(LR).minimize(loss)
            init = tf1.global_variables_initializer()
        config = tf1.ConfigProto(intra_op_parallelism_threads=threads, inter_op_parallelism_threads=threads)
        sess = tf1.Session(graph=g, config=config)
        sess.run(init)
        xv, yv = data(rng, batch, shape)
        step = sess.make_callable(train, [x, labels])
        steps[name] = lambda step=step, xv=xv, yv=yv: step(xv, yv)
    return steps


def tensorweave_steps(threads, rng, models):
    import tensorweave as tw

    return session_steps(tw, tw, threads, rng, models)


def tensorflow_steps(threads, rng, models):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    try:
        import tensorflow as tf
    except ImportError:
        return {}
    return session_steps(tf, tf.compat.v1, threads, rng, models)


def torch_steps(threads, rng, models):
    try:
        import torch
        from torch import nn
    except ImportError:
        return {}
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    steps = {}
    for name in models:
        batch, shape, layers = MODELS[name]
        modules = []
        for layer in layers:
            if layer[0] == "conv":
                _, k, cin, cout, padding = layer
                modules += [nn.Conv2d(cin, cout, k, padding=k // 2 if padding == "SAME" else 0), nn.ReLU()]
            elif layer[0] == "pool":
                modules.append(nn.MaxPool2d(2))
            elif layer[0] == "flatten":
                modules.append(nn.Flatten())
            else:
                _, fin, fout, relu = layer
                modules += [nn.Linear(fin, fout)] + ([nn.ReLU()] if relu else [])
        model = nn.Sequential(*modules)
        opt = torch.optim.SGD(model.parameters(), lr=LR)
        xv, yv = data(rng, batch, shape)
        xt = torch.from_numpy(np.ascontiguousarray(xv.transpose(0, 3, 1, 2)) if len(shape) == 3 else xv)
        yt = torch.from_numpy(yv)
        loss_fn = nn.CrossEntropyLoss()

        def step(model=model, opt=opt, xt=xt, yt=yt, loss_fn=loss_fn):
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(xt), yt)
            loss.backward()
            opt.step()

        steps[name] = step
    return steps


def gemm_peak(threads, n=2048, repeats=5):
    """FLOP/s of a float32 n^3 GEMM in tensorweave with `threads` threads (best of `repeats`)."""
    import tensorweave as tw

    g = tw.Graph()
    with g.as_default():
        a = tw.constant(np.random.default_rng(0).standard_normal((n, n)).astype(np.float32))
        product = tw.reduce_sum(tw.matmul(a, a))
    config = tw.ConfigProto(intra_op_parallelism_threads=threads, inter_op_parallelism_threads=threads)
    with tw.Session(graph=g, config=config) as sess:
        sess.run(product)
        best = float("inf")
        for _ in range(repeats):
            t0 = time.perf_counter()
            sess.run(product)
            best = min(best, time.perf_counter() - t0)
    return 2 * n**3 / best


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--models", default="mlp,lenet,cifar", help="comma-separated: mlp, lenet, cifar")
    args = parser.parse_args()
    models = [SHORT_NAMES[m] for m in args.models.split(",")]
    rng = np.random.default_rng(0)
    systems = {
        "tensorweave": tensorweave_steps(args.threads, rng, models),
        "torch eager": torch_steps(args.threads, rng, models),
        "tf.compat.v1": tensorflow_steps(args.threads, rng, models),
    }
    rows = {}
    for case in models:
        fns = {system: steps[case] for system, steps in systems.items() if case in steps}
        rows[case] = time_interleaved(fns, rounds=args.rounds)
    report(
        f"Training step, {args.threads} threads (median of interleaved rounds)", rows, ["torch eager", "tf.compat.v1"]
    )
    peak = gemm_peak(args.threads)
    print(f"\npractical peak (2048^3 float32 GEMM, {args.threads} threads): {peak / 1e9:.1f} GFLOP/s")
    for case, timings in rows.items():
        flops = step_flops(*MODELS[case])
        line = f"{case}: {flops / 1e9:.2f} GFLOP per step"
        if "tensorweave" in timings:
            rate = flops / timings["tensorweave"]
            line += f", tensorweave {rate / 1e9:.1f} GFLOP/s = {rate / peak:.0%} of peak"
        peers = [timings[s] for s in ("torch eager", "tf.compat.v1") if s in timings]
        if peers and "tensorweave" in timings:
            line += f"; tensorweave / faster peer = {timings['tensorweave'] / min(peers):.3f}"
        print(line)


if __name__ == "__main__":
    main()

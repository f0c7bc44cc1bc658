"""Training-step time: forward, backward and SGD update of an MLP
(784-512-512-10, batch 128) and a LeNet-5 CNN (28x28x1, batch 64), with 2
threads, in tensorweave, PyTorch eager and TensorFlow's compat.v1 Session,
in one run.

  python benchmarks/train_step.py [--threads 2] [--rounds 15]

Goals (issue 3): MLP <= 0.85x and CNN <= 0.75x the faster peer's time.
"""

import argparse
import os

import numpy as np

from harness import report
from harness import time_interleaved

MLP_BATCH, CNN_BATCH = 128, 64
LR = 0.01


def data(rng, batch, cnn):
    x = rng.standard_normal((batch, 28, 28, 1) if cnn else (batch, 784)).astype(np.float32)
    y = rng.integers(0, 10, size=batch).astype(np.int64)
    return x, y


def tensorweave_steps(threads, rng):
    import tensorweave as tw

    steps = {}
    for name, cnn, batch in (("MLP 784-512-512-10", False, MLP_BATCH), ("LeNet-5 CNN", True, CNN_BATCH)):
        g = tw.Graph()
        with g.as_default():
            tw.set_random_seed(0)
            x = tw.placeholder(tw.float32, [batch, 28, 28, 1] if cnn else [batch, 784])
            labels = tw.placeholder(tw.int64, [batch])
            if cnn:
                h = tw.layers.conv2d(x, 6, 5, activation=tw.nn.relu)
                h = tw.layers.max_pooling2d(h, 2, 2)
                h = tw.layers.conv2d(h, 16, 5, activation=tw.nn.relu)
                h = tw.layers.max_pooling2d(h, 2, 2)
                h = tw.layers.flatten(h)
                h = tw.layers.dense(h, 120, activation=tw.nn.relu)
                h = tw.layers.dense(h, 84, activation=tw.nn.relu)
            else:
                h = tw.layers.dense(x, 512, activation=tw.nn.relu)
                h = tw.layers.dense(h, 512, activation=tw.nn.relu)
            logits = tw.layers.dense(h, 10)
            loss = tw.reduce_mean(tw.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
            train = tw.train.GradientDescentOptimizer(LR).minimize(loss)
            init = tw.global_variables_initializer()
        config = tw.ConfigProto(intra_op_parallelism_threads=threads, inter_op_parallelism_threads=threads)
        sess = tw.Session(graph=g, config=config)
        sess.run(init)
        xv, yv = data(rng, batch, cnn)
        step = sess.make_callable(train, [x, labels])
        steps[name] = lambda step=step, xv=xv, yv=yv: step(xv, yv)
    return steps


def torch_steps(threads, rng):
    try:
        import torch
        from torch import nn
    except ImportError:
        return {}
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    steps = {}
    mlp = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    cnn = nn.Sequential(
        nn.Conv2d(1, 6, 5),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(256, 120),
        nn.ReLU(),
        nn.Linear(120, 84),
        nn.ReLU(),
        nn.Linear(84, 10),
    )
    for name, model, cnn_input, batch in (
        ("MLP 784-512-512-10", mlp, False, MLP_BATCH),
        ("LeNet-5 CNN", cnn, True, CNN_BATCH),
    ):
        opt = torch.optim.SGD(model.parameters(), lr=LR)
        xv, yv = data(rng, batch, cnn_input)
        xt = torch.from_numpy(xv.transpose(0, 3, 1, 2).copy() if cnn_input else xv)
        yt = torch.from_numpy(yv)
        loss_fn = nn.CrossEntropyLoss()

        def step(model=model, opt=opt, xt=xt, yt=yt, loss_fn=loss_fn):
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(xt), yt)
            loss.backward()
            opt.step()

        steps[name] = step
    return steps


def tensorflow_steps(threads, rng):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    try:
        import tensorflow as tf
    except ImportError:
        return {}
    tf1 = tf.compat.v1
    steps = {}
    for name, cnn, batch in (("MLP 784-512-512-10", False, MLP_BATCH), ("LeNet-5 CNN", True, CNN_BATCH)):
        g = tf.Graph()
        with g.as_default():
            tf1.set_random_seed(0)
            x = tf1.placeholder(tf.float32, [batch, 28, 28, 1] if cnn else [batch, 784])
            labels = tf1.placeholder(tf.int64, [batch])
            # tf.compat.v1.layers needs Keras 2; build the same layers from ops.
            counter = iter(range(100))

            def dense(h, units, activation=None):
                k = next(counter)
                w = tf1.get_variable(f"w{k}", [h.shape[-1], units], initializer=tf1.glorot_uniform_initializer())
                b = tf1.get_variable(f"b{k}", [units], initializer=tf1.zeros_initializer())
                y = tf.nn.bias_add(tf.matmul(h, w), b)
                return activation(y) if activation else y

            def conv(h, filters, size, activation):
                k = next(counter)
                w = tf1.get_variable(
                    f"w{k}", [size, size, h.shape[-1], filters], initializer=tf1.glorot_uniform_initializer()
                )
                b = tf1.get_variable(f"b{k}", [filters], initializer=tf1.zeros_initializer())
                return activation(tf.nn.bias_add(tf.nn.conv2d(h, w, [1, 1, 1, 1], "VALID"), b))

            def pool(h):
                return tf.nn.max_pool2d(h, 2, 2, "VALID")

            if cnn:
                h = pool(conv(x, 6, 5, tf.nn.relu))
                h = pool(conv(h, 16, 5, tf.nn.relu))
                h = tf.reshape(h, [batch, -1])
                h = dense(h, 120, activation=tf.nn.relu)
                h = dense(h, 84, activation=tf.nn.relu)
            else:
                h = dense(x, 512, activation=tf.nn.relu)
                h = dense(h, 512, activation=tf.nn.relu)
            logits = dense(h, 10)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
            train = tf1.train.GradientDescentOptimizer(LR).minimize(loss)
            init = tf1.global_variables_initializer()
        config = tf1.ConfigProto(intra_op_parallelism_threads=threads, inter_op_parallelism_threads=threads)
        sess = tf1.Session(graph=g, config=config)
        sess.run(init)
        xv, yv = data(rng, batch, cnn)
        step = sess.make_callable(train, [x, labels])
        steps[name] = lambda step=step, xv=xv, yv=yv: step(xv, yv)
    return steps


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    systems = {
        "tensorweave": tensorweave_steps(args.threads, rng),
        "torch eager": torch_steps(args.threads, rng),
        "tf.compat.v1": tensorflow_steps(args.threads, rng),
    }
    rows = {}
    for case in systems["tensorweave"]:
        fns = {system: steps[case] for system, steps in systems.items() if case in steps}
        rows[case] = time_interleaved(fns, rounds=args.rounds)
    report(
        f"Training step, {args.threads} threads (median of interleaved rounds)", rows, ["torch eager", "tf.compat.v1"]
    )
    for case, timings in rows.items():
        peers = [timings[s] for s in ("torch eager", "tf.compat.v1") if s in timings]
        if peers and "tensorweave" in timings:
            print(f"{case}: tensorweave / faster peer = {timings['tensorweave'] / min(peers):.3f}")


if __name__ == "__main__":
    main()

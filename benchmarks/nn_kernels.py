"""Per-layer times of a LeNet-5 training step: tensorweave's nn kernels vs
PyTorch eager (CPU), same shapes, 2 threads, in one process.

  PYTHONPATH=python python benchmarks/nn_kernels.py      # 2 threads
  NN_BENCH_THREADS=1 PYTHONPATH=python python benchmarks/nn_kernels.py

LeNet-5 on 28x28x1, batch 64: conv5x5x6 SAME + bias + relu + maxpool2,
conv5x5x16 VALID + bias + relu + maxpool2, fc 400-120-84-10, sparse softmax
cross entropy. For each layer: the forward op(s), and the backward ops a
training step runs (conv1 needs no input gradient). tensorweave times are
one Session.run of the ops as targets (inputs are constants), so they
include the session's per-run overhead (the "session overhead" row).
PyTorch runs the same ops in NCHW, its native layout; its backward rows
call the ATen backward functions directly.

Run it on an otherwise idle machine: with other processes on the cores, the
2-thread figures of both systems (torch's most) are dominated by waiting for
descheduled threads; compare the ratios of one run, never figures across runs.
"""

import os

# numpy's own OpenBLAS threads would spin beside the measured kernels.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

from harness import report
from harness import time_call

THREADS = int(os.environ.get("NN_BENCH_THREADS", "2"))
BATCH = 64
RNG = np.random.default_rng(0)


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


# NHWC activations and HWIO filters of every layer, shared by both systems.
X = rand(BATCH, 28, 28, 1)
W1, B1 = rand(5, 5, 1, 6) * 0.2, rand(6)
A1 = rand(BATCH, 28, 28, 6)  # conv1 output / relu input
P1 = rand(BATCH, 14, 14, 6)  # pool1 output
W2, B2 = rand(5, 5, 6, 16) * 0.1, rand(16)
A2 = rand(BATCH, 10, 10, 16)
P2 = rand(BATCH, 5, 5, 16)
F1, F2, F3 = rand(400, 120) * 0.05, rand(120, 84) * 0.1, rand(84, 10) * 0.1
H1, H2, LOGITS = rand(BATCH, 120), rand(BATCH, 84), rand(BATCH, 10)
LABELS = RNG.integers(0, 10, size=BATCH).astype(np.int64)


def tensorweave_cases():
    import tensorweave as tw

    g = tw.Graph()
    cases = {}
    with g.as_default():
        c = tw.constant
        s1, s2 = [1, 1, 1, 1], [1, 2, 2, 1]
        graph = tw.get_default_graph()

        def op(op_type, inputs, **attrs):
            return graph._create_op(op_type, inputs, attrs).outputs[0]

        conv_attrs = lambda p: dict(strides=s1, padding=p)  # noqa: E731
        pool_attrs = dict(ksize=s2, strides=s2, padding="VALID")
        x, w1, a1, p1, w2, a2, p2 = map(c, (X, W1, A1, P1, W2, A2, P2))
        cases["conv1 fwd"] = [tw.nn.conv2d(x, w1, s1, "SAME")]
        cases["conv1 bwd (filter)"] = [op("Conv2DBackpropFilter", [x, c([5, 5, 1, 6]), a1], **conv_attrs("SAME"))]
        cases["bias1+relu1 fwd"] = [tw.nn.relu(tw.nn.bias_add(a1, c(B1)))]
        cases["bias1+relu1 bwd"] = [op("BiasAddGrad", [op("ReluGrad", [a1, a1])])]
        cases["pool1 fwd"] = [tw.nn.max_pool(a1, s2, s2, "VALID")]
        cases["pool1 bwd"] = [op("MaxPoolGrad", [a1, c(P1), p1], **pool_attrs)]
        cases["conv2 fwd"] = [tw.nn.conv2d(p1, w2, s1, "VALID")]
        cases["conv2 bwd (input+filter)"] = [
            op("Conv2DBackpropInput", [c([BATCH, 14, 14, 6]), w2, a2], **conv_attrs("VALID")),
            op("Conv2DBackpropFilter", [p1, c([5, 5, 6, 16]), a2], **conv_attrs("VALID")),
        ]
        cases["bias2+relu2 fwd"] = [tw.nn.relu(tw.nn.bias_add(a2, c(B2)))]
        cases["bias2+relu2 bwd"] = [op("BiasAddGrad", [op("ReluGrad", [a2, a2])])]
        cases["pool2 fwd"] = [tw.nn.max_pool(a2, s2, s2, "VALID")]
        cases["pool2 bwd"] = [op("MaxPoolGrad", [a2, c(P2), p2], **pool_attrs)]
        flat = tw.reshape(p2, [BATCH, 400])
        cases["fc1-3 fwd"] = [tw.matmul(tw.matmul(tw.matmul(flat, c(F1)), c(F2)), c(F3))]
        cases["fc1-3 bwd"] = [
            tw.matmul(c(LOGITS), c(F3), transpose_b=True),
            tw.matmul(c(H2), c(LOGITS), transpose_a=True),
            tw.matmul(c(H2), c(F2), transpose_b=True),
            tw.matmul(c(H1), c(H2), transpose_a=True),
            tw.matmul(c(H1), c(F1), transpose_b=True),
            tw.matmul(flat, c(H1), transpose_a=True),
        ]
        cases["xent fwd+bwd"] = [tw.nn.sparse_softmax_cross_entropy_with_logits(labels=c(LABELS), logits=c(LOGITS))]
        cases["session overhead"] = [tw.no_op()]
    config = tw.ConfigProto(intra_op_parallelism_threads=THREADS, inter_op_parallelism_threads=1)
    sess = tw.Session(graph=g, config=config)
    out = {}
    for name, tensors in cases.items():
        targets = [t.op if hasattr(t, "op") else t for t in tensors]
        out[name] = (lambda ts: lambda: sess.run(ts))(targets)
    return out


def torch_cases():
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        return {}
    torch.set_num_threads(THREADS)
    t = lambda a: torch.from_numpy(np.ascontiguousarray(a))  # noqa: E731
    nchw = lambda a: t(a.transpose(0, 3, 1, 2))  # noqa: E731
    oihw = lambda w: t(w.transpose(3, 2, 0, 1))  # noqa: E731
    x, a1, p1, a2, p2 = map(nchw, (X, A1, P1, A2, P2))
    w1, w2 = oihw(W1), oihw(W2)
    b1, b2 = t(B1), t(B2)
    f1, f2, f3 = t(F1.T.copy()), t(F2.T.copy()), t(F3.T.copy())
    h1, h2, logits, labels = t(H1), t(H2), t(LOGITS), t(LABELS)
    flat = p2.reshape(BATCH, 400)
    cb = torch.ops.aten.convolution_backward
    _, idx1 = F.max_pool2d(a1, 2, 2, return_indices=True)
    _, idx2 = F.max_pool2d(a2, 2, 2, return_indices=True)
    mpb = torch.ops.aten.max_pool2d_with_indices_backward
    cases = {
        "conv1 fwd": lambda: F.conv2d(x, w1, padding=2),
        "conv1 bwd (filter)": lambda: cb(
            a1, x, w1, None, [1, 1], [2, 2], [1, 1], False, [0, 0], 1, [False, True, False]
        ),
        "bias1+relu1 fwd": lambda: torch.relu(a1 + b1.view(1, 6, 1, 1)),
        "bias1+relu1 bwd": lambda: torch.ops.aten.threshold_backward(a1, a1, 0).sum((0, 2, 3)),
        "pool1 fwd": lambda: F.max_pool2d(a1, 2, 2),
        "pool1 bwd": lambda: mpb(p1, a1, [2, 2], [2, 2], [0, 0], [1, 1], False, idx1),
        "conv2 fwd": lambda: F.conv2d(p1, w2),
        "conv2 bwd (input+filter)": lambda: cb(
            a2, p1, w2, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1, [True, True, False]
        ),
        "bias2+relu2 fwd": lambda: torch.relu(a2 + b2.view(1, 16, 1, 1)),
        "bias2+relu2 bwd": lambda: torch.ops.aten.threshold_backward(a2, a2, 0).sum((0, 2, 3)),
        "pool2 fwd": lambda: F.max_pool2d(a2, 2, 2),
        "pool2 bwd": lambda: mpb(p2, a2, [2, 2], [2, 2], [0, 0], [1, 1], False, idx2),
        "fc1-3 fwd": lambda: F.linear(F.linear(F.linear(flat, f1), f2), f3),
        "fc1-3 bwd": lambda: (logits @ f3, logits.T @ h2, h2 @ f2, h2.T @ h1, h1 @ f1, h1.T @ flat),
        "xent fwd+bwd": lambda: torch.ops.aten._log_softmax_backward_data(
            torch.log_softmax(logits, 1), torch.log_softmax(logits, 1), 1, torch.float32
        ),
    }
    return {k: (lambda f: lambda: torch.no_grad()(f)())(f) for k, f in cases.items()}


def main():
    rows = {}
    for system, cases in (("tensorweave", tensorweave_cases()), ("torch", torch_cases())):
        for name, fn in cases.items():
            rows.setdefault(name, {})[system] = time_call(fn)
    total = {
        s: sum(r[s] for n, r in rows.items() if s in r and n != "session overhead") for s in ("tensorweave", "torch")
    }
    rows["sum of layers"] = total
    report(f"LeNet-5 layers, batch {BATCH}, {THREADS} threads (microseconds per call)", rows, ["torch"])


if __name__ == "__main__":
    main()

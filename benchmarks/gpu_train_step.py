"""Training steps on the GPU: tensorweave against PyTorch (CUDA, eager) in the same process (issue 10's figures).

Both in fp32 with TF32 off (torch: `torch.backends.cuda.matmul.allow_tf32 = False`,
`torch.backends.cudnn.allow_tf32 = False`; tensorweave's cuBLAS handle uses CUBLAS_DEFAULT_MATH), plain SGD
(GradientDescent, lr 0.01), softmax cross-entropy with int labels, the same initial weights (from numpy). Every
step is fed from numpy: torch copies the batch with `torch.from_numpy(x).cuda()` inside the timed step and
synchronizes at its end; tensorweave runs `sess.run(train_op, feed_dict=...)` (which returns when the step is
done). tensorweave's graphs are built under `tw.device("/gpu:0")` with soft placement, and the ops that still
ran on the CPU are listed (a missing GPU kernel shows there, not as a crash).

  - MLP 784-512-512-10, batch 128                         goal: <= 0.5x torch eager's step time
  - LeNet-5 (28x28x1: conv5x5 6 same, maxpool, conv5x5 16 valid, maxpool, fc 120, 84, 10; ReLU), batch 64
                                                          goal: <= 0.5x
  - MLP 4096-4096-4096-10, batch 1024                     goal: <= 1.05x
  - CIFAR CNN (32x32x3: conv3x3 64, 128, 256 each with ReLU and 2x2 maxpool; fc 4096-512-10), batch 256
                                                          goal: <= 1.05x
  - fp32 MatMul 4096^3 (operands on the GPU, a scalar sum fetched)   goal: >= 0.95x torch's GFLOP/s
  - peak GPU memory of the wide MLP's step (tensorweave's get_memory_info("GPU:0")["peak"] against
    torch.cuda.max_memory_allocated(), each after reset)  goal: <= 1.1x

Step times are the median over several timed windows after warm-up steps (tensorweave's warm-up includes the
first runs after which the step is captured as a CUDA graph). Without a GPU it says so and exits 0.

  python benchmarks/gpu_train_step.py [--quick] [--json FILE] [--only NAME[,NAME]] [--time-budget S]
  python benchmarks/gpu_train_step.py --cpu-smoke   # builds and runs each tensorweave model twice on the CPU
"""

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

LR = 0.01
MODELS = ["mlp_small", "lenet5", "mlp_wide", "cifar_cnn"]
GOALS = {  # kind, bound: time ratio tensorweave / torch (<=), or throughput / memory ratio
    "mlp_small": ("time", 0.5),
    "lenet5": ("time", 0.5),
    "mlp_wide": ("time", 1.05),
    "cifar_cnn": ("time", 1.05),
    "matmul_4096": ("gflops", 0.95),
    "mlp_wide_peak_memory": ("memory", 1.1),
}


# --- the models, as numpy weights shared by both frameworks ----------------------------------------------


def glorot(rng, shape, fan_in, fan_out):
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    return rng.uniform(-limit, limit, shape).astype(np.float32)


def model_spec(name):
    """(batch, input shape NHWC or [features], layers): layers are ("conv", k, cin, cout, padding),
    ("pool",), ("flatten",), ("fc", in, out, relu)."""
    if name == "mlp_small":
        return 128, [784], [("fc", 784, 512, True), ("fc", 512, 512, True), ("fc", 512, 10, False)]
    if name == "mlp_wide":
        return 1024, [4096], [("fc", 4096, 4096, True), ("fc", 4096, 4096, True), ("fc", 4096, 10, False)]
    if name == "lenet5":
        return (
            64,
            [28, 28, 1],
            [
                ("conv", 5, 1, 6, "same"),
                ("pool",),
                ("conv", 5, 6, 16, "valid"),
                ("pool",),
                ("flatten",),
                ("fc", 400, 120, True),
                ("fc", 120, 84, True),
                ("fc", 84, 10, False),
            ],
        )
    if name == "cifar_cnn":
        return (
            256,
            [32, 32, 3],
            [
                ("conv", 3, 3, 64, "same"),
                ("pool",),
                ("conv", 3, 64, 128, "same"),
                ("pool",),
                ("conv", 3, 128, 256, "same"),
                ("pool",),
                ("flatten",),
                ("fc", 4096, 512, True),
                ("fc", 512, 10, False),
            ],
        )
    raise ValueError(name)


def init_weights(layers, seed=0):
    """[(w, b)] per conv/fc layer: conv w as HWIO (tensorweave's layout), fc w as [in, out]."""
    rng = np.random.default_rng(seed)
    weights = []
    for layer in layers:
        if layer[0] == "conv":
            _, k, cin, cout, _ = layer
            weights.append((glorot(rng, (k, k, cin, cout), k * k * cin, k * k * cout), np.zeros(cout, np.float32)))
        elif layer[0] == "fc":
            _, fin, fout, _ = layer
            weights.append((glorot(rng, (fin, fout), fin, fout), np.zeros(fout, np.float32)))
    return weights


def make_batches(batch, shape, count=4, seed=1):
    """`count` (x NHWC, x NCHW, labels) batches, fed in turn."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        x = rng.standard_normal([batch] + shape).astype(np.float32)
        y = rng.integers(0, 10, batch).astype(np.int64)
        x_nchw = np.ascontiguousarray(x.transpose(0, 3, 1, 2)) if len(shape) == 3 else x
        out.append((x, x_nchw, y))
    return out


# --- timing ----------------------------------------------------------------------------------------------------


def time_steps(step, warmup, windows, steps_per_window, budget_s):
    """Median seconds per step over `windows` windows, after `warmup` steps; fewer steps per window when the
    steps are slow, so that the whole takes about `budget_s`. Returns (seconds per step, steps per window)."""
    t0 = time.perf_counter()
    done = 0
    for _ in range(warmup):
        step()
        done += 1
        if time.perf_counter() - t0 > budget_s / 3:
            break
    estimate = (time.perf_counter() - t0) / max(done, 1)
    spw = int(max(1, min(steps_per_window, (budget_s * 0.6) / windows / max(estimate, 1e-6))))
    times = []
    for _ in range(windows):
        start = time.perf_counter()
        for _ in range(spw):
            step()
        times.append((time.perf_counter() - start) / spw)
    return statistics.median(times), spw


# --- tensorweave -----------------------------------------------------------------------------------------------


def tw_forward(tw, x, layers, weights):
    h = x
    variables = iter(weights)
    for layer in layers:
        if layer[0] == "conv":
            w, b = next(variables)
            h = tw.nn.relu(tw.nn.bias_add(tw.nn.conv2d(h, w, [1, 1, 1, 1], layer[4].upper()), b))
        elif layer[0] == "pool":
            h = tw.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        elif layer[0] == "flatten":
            h = tw.reshape(h, [-1, int(np.prod(h.shape.as_list()[1:]))])
        else:
            w, b = next(variables)
            h = tw.nn.bias_add(tw.matmul(h, w), b)
            if layer[3]:
                h = tw.nn.relu(h)
    return h


class TwModel:
    """One model's training step in its own graph and session, on `device`."""

    def __init__(self, tw, name, device="/gpu:0"):
        self.tw = tw
        batch, shape, layers = model_spec(name)
        self.graph = tw.Graph()
        with self.graph.as_default(), tw.device(device):
            self.x = tw.placeholder(tw.float32, [batch] + shape, name="x")
            self.y = tw.placeholder(tw.int64, [batch], name="y")
            weights = [
                (tw.Variable(w, name=f"w{i}"), tw.Variable(b, name=f"b{i}"))
                for i, (w, b) in enumerate(init_weights(layers))
            ]
            logits = tw_forward(tw, self.x, layers, weights)
            self.loss = tw.reduce_mean(tw.nn.sparse_softmax_cross_entropy_with_logits(labels=self.y, logits=logits))
            self.train_op = tw.train.GradientDescentOptimizer(LR).minimize(self.loss)
            init = tw.global_variables_initializer()
        self.sess = tw.Session(graph=self.graph, config=tw.ConfigProto(allow_soft_placement=True))
        self.sess.run(init)
        self.batches = make_batches(batch, shape)
        self.i = 0

    def step(self):
        x, _, y = self.batches[self.i % len(self.batches)]
        self.i += 1
        self.sess.run(self.train_op, feed_dict={self.x: x, self.y: y})

    def loss_value(self):
        x, _, y = self.batches[0]
        return float(self.sess.run(self.loss, feed_dict={self.x: x, self.y: y}))

    def cpu_ops(self):
        """The op types of the step that ran on the CPU (from the partition graphs), but the feeds' and
        fetches' own plumbing."""
        tw = self.tw
        x, _, y = self.batches[0]
        metadata = tw.RunMetadata()
        self.sess.run(
            self.train_op,
            feed_dict={self.x: x, self.y: y},
            options=tw.RunOptions(output_partition_graphs=True),
            run_metadata=metadata,
        )
        plumbing = {"_Send", "_Recv", "_HostSend", "_HostRecv", "_Arg", "_Retval", "NoOp", "Placeholder"}
        return sorted(
            {
                n.op
                for g in metadata.partition_graphs
                for n in g.node
                if "CPU" in n.device.upper() and n.op not in plumbing
            }
        )

    def close(self):
        self.sess.close()


def tw_matmul(tw, n):
    graph = tw.Graph()
    rng = np.random.default_rng(2)
    with graph.as_default(), tw.device("/gpu:0"):
        a = tw.Variable(rng.standard_normal((n, n)).astype(np.float32))
        b = tw.Variable(rng.standard_normal((n, n)).astype(np.float32))
        total = tw.reduce_sum(tw.matmul(a, b))
        init = tw.global_variables_initializer()
    sess = tw.Session(graph=graph, config=tw.ConfigProto(allow_soft_placement=True))
    sess.run(init)
    return sess, total


# --- torch -----------------------------------------------------------------------------------------------------


class TorchModel:
    def __init__(self, torch, name):
        import torch.nn.functional as F

        self.torch, self.F = torch, F
        batch, shape, layers = model_spec(name)
        modules = []
        for layer, (w, b) in zip(
            [lyr for lyr in layers if lyr[0] in ("conv", "fc")], init_weights(layers), strict=True
        ):
            if layer[0] == "conv":
                _, k, cin, cout, padding = layer
                m = torch.nn.Conv2d(cin, cout, k, padding=k // 2 if padding == "same" else 0)
                m.weight.data.copy_(torch.from_numpy(np.ascontiguousarray(w.transpose(3, 2, 0, 1))))
            else:
                m = torch.nn.Linear(layer[1], layer[2])
                m.weight.data.copy_(torch.from_numpy(np.ascontiguousarray(w.T)))
            m.bias.data.copy_(torch.from_numpy(b))
            modules.append(m)
        seq = []
        it = iter(modules)
        for layer in layers:
            if layer[0] == "conv":
                seq += [next(it), torch.nn.ReLU()]
            elif layer[0] == "pool":
                seq.append(torch.nn.MaxPool2d(2, 2))
            elif layer[0] == "flatten":
                seq.append(torch.nn.Flatten())
            else:
                seq.append(next(it))
                if layer[3]:
                    seq.append(torch.nn.ReLU())
        self.model = torch.nn.Sequential(*seq).cuda()
        self.opt = torch.optim.SGD(self.model.parameters(), lr=LR)
        self.batches = make_batches(batch, shape)
        self.i = 0

    def step(self):
        torch = self.torch
        _, x_np, y_np = self.batches[self.i % len(self.batches)]
        self.i += 1
        x = torch.from_numpy(x_np).cuda()
        y = torch.from_numpy(y_np).cuda()
        self.opt.zero_grad(set_to_none=True)
        loss = self.F.cross_entropy(self.model(x), y)
        loss.backward()
        self.opt.step()
        torch.cuda.synchronize()


# --- the run ---------------------------------------------------------------------------------------------------


def verdict(kind, ratio, bound):
    if ratio is None:
        return "n/a"
    ok = ratio <= bound if kind in ("time", "memory") else ratio >= bound
    return "MET" if ok else "missed"


def run(args):
    import tensorweave as tw

    if not tw.test.is_gpu_available():
        print(f"gpu_train_step: no GPU ({tw.test.gpu_unavailable_reason()}); nothing to measure")
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"gpu": None, "reason": tw.test.gpu_unavailable_reason()}, f, indent=1)
        return 0
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = args.cudnn_benchmark  # torch's default: off
    only = set(args.only.split(",")) if args.only else None
    warmup, windows, spw = (5, 3, 10) if args.quick else (25, 5, 40)
    names = [n for n in MODELS if only is None or n in only]
    entries = len(names) * 2 + 2
    budget = max(2.0, args.time_budget / entries)
    device_name = torch.cuda.get_device_name(0)
    results = {
        "device": device_name,
        "torch": torch.__version__,
        "tensorweave_gpu": tw.test.gpu_device_name(),
        "quick": args.quick,
        "cuda_graphs": os.environ.get("TW_CUDA_GRAPHS", "on (default)"),
        "torch_cudnn_benchmark": args.cudnn_benchmark,
        "results": {},
    }
    print(f"gpu_train_step on {device_name}, torch {torch.__version__}, fp32, TF32 off, SGD, fed from numpy")

    def record(key, **values):
        results["results"][key] = values
        with_goal = GOALS.get(key)
        if with_goal and values.get("ratio") is not None:
            values["goal"] = f"{'<=' if with_goal[0] != 'gflops' else '>='} {with_goal[1]}x"
            values["verdict"] = verdict(with_goal[0], values["ratio"], with_goal[1])

    for name in names:
        row = {}
        try:
            m = TwModel(tw, name)
            row["tw_cpu_ops"] = m.cpu_ops()
            before = tw._pywrap_tensorweave.step_capture_counters()
            t, n = time_steps(m.step, warmup, windows, spw, budget)
            after = tw._pywrap_tensorweave.step_capture_counters()
            # (captures, replays, fallbacks) of CUDA-graph steps while timed.
            row["tw_cuda_graphs"] = [a - b for a, b in zip(after, before)]
            row.update(tw_ms=t * 1e3, tw_steps_per_window=n, tw_loss=m.loss_value())
            if name == "mlp_wide":
                tw.config.experimental.reset_memory_stats("GPU:0")
                before = tw.config.experimental.get_memory_info("GPU:0")
                m.step()
                after = tw.config.experimental.get_memory_info("GPU:0")
                row["tw_peak_bytes"] = after["peak"]
                row["tw_current_before_bytes"] = before["current"]
            m.close()
            del m
        except Exception as e:  # noqa: BLE001 - report and go on with the other models
            row["tw_error"] = f"{type(e).__name__}: {str(e)[:600]}"
        try:
            tm = TorchModel(torch, name)
            t, n = time_steps(tm.step, warmup, windows, spw, budget)
            row.update(torch_ms=t * 1e3, torch_steps_per_window=n)
            if name == "mlp_wide":
                torch.cuda.reset_peak_memory_stats()
                tm.step()
                row["torch_peak_bytes"] = torch.cuda.max_memory_allocated()
            del tm
            torch.cuda.empty_cache()
        except Exception as e:  # noqa: BLE001
            row["torch_error"] = f"{type(e).__name__}: {str(e)[:600]}"
        ratio = row["tw_ms"] / row["torch_ms"] if "tw_ms" in row and "torch_ms" in row else None
        record(name, ratio=ratio, **row)
        if name == "mlp_wide" and "tw_peak_bytes" in row and "torch_peak_bytes" in row:
            record(
                "mlp_wide_peak_memory",
                tw_bytes=row["tw_peak_bytes"],
                torch_bytes=row["torch_peak_bytes"],
                ratio=row["tw_peak_bytes"] / row["torch_peak_bytes"],
            )
        print(f"  {name}: " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()))
        sys.stdout.flush()

    if only is None or "matmul_4096" in only:
        n = 4096
        flops = 2.0 * n**3
        row = {}
        try:
            sess, total = tw_matmul(tw, n)
            t, _ = time_steps(lambda: sess.run(total), 3, windows, 10, budget)
            row.update(tw_ms=t * 1e3, tw_gflops=flops / t / 1e9)
            sess.close()
        except Exception as e:  # noqa: BLE001
            row["tw_error"] = f"{type(e).__name__}: {str(e)[:600]}"
        try:
            g = torch.Generator().manual_seed(2)
            a = torch.randn(n, n, generator=g).cuda()
            b = torch.randn(n, n, generator=g).cuda()
            t, _ = time_steps(lambda: (a @ b).sum().item(), 3, windows, 10, budget)
            row.update(torch_ms=t * 1e3, torch_gflops=flops / t / 1e9)
            del a, b
        except Exception as e:  # noqa: BLE001
            row["torch_error"] = f"{type(e).__name__}: {str(e)[:600]}"
        ratio = row["tw_gflops"] / row["torch_gflops"] if "tw_gflops" in row and "torch_gflops" in row else None
        record("matmul_4096", ratio=ratio, **row)

    print_table(results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
        print(f"written: {args.json}")
    return 0


def print_table(results):
    print()
    print(f"{'benchmark':<22} {'tensorweave':>14} {'torch eager':>14} {'ratio':>7} {'goal':>8}  verdict")
    for key, r in results["results"].items():
        kind = GOALS.get(key, ("time",))[0]
        if kind == "gflops":
            tw_s = f"{r['tw_gflops']:.0f} GFLOP/s" if "tw_gflops" in r else "error"
            to_s = f"{r['torch_gflops']:.0f} GFLOP/s" if "torch_gflops" in r else "error"
        elif kind == "memory":
            tw_s, to_s = f"{r['tw_bytes'] / 2**20:.0f} MiB", f"{r['torch_bytes'] / 2**20:.0f} MiB"
        else:
            tw_s = f"{r['tw_ms']:.3f} ms" if "tw_ms" in r else "error"
            to_s = f"{r['torch_ms']:.3f} ms" if "torch_ms" in r else "error"
        ratio = f"{r['ratio']:.2f}x" if r.get("ratio") is not None else "-"
        print(f"{key:<22} {tw_s:>14} {to_s:>14} {ratio:>7} {r.get('goal', '-'):>8}  {r.get('verdict', '-')}")
        for side in ("tw", "torch"):
            if f"{side}_error" in r:
                print(f"    {side} error: {r[side + '_error']}")
        if r.get("tw_cpu_ops"):
            print(f"    tensorweave ran on the CPU: {', '.join(r['tw_cpu_ops'])}")


def cpu_smoke():
    """Builds each tensorweave model on the CPU and checks that a few steps lower the loss: the graphs of the
    benchmark are right even where no GPU is."""
    import tensorweave as tw

    for name in MODELS:
        if name == "mlp_wide":
            continue  # 4096-wide: too slow for a smoke test on a small CPU
        m = TwModel(tw, name, device="/cpu:0")
        before = m.loss_value()
        for _ in range(3):
            m.i = 0
            m.step()
        after = m.loss_value()
        m.close()
        print(f"{name}: loss {before:.4f} -> {after:.4f}")
        if not after < before:
            print(f"gpu_train_step --cpu-smoke: {name}'s loss did not go down")
            return 1
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer warm-up and timed steps")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--only", help="comma-separated: " + ",".join(MODELS + ["matmul_4096"]))
    parser.add_argument("--time-budget", type=float, default=120.0, help="about how long the timing may take (s)")
    parser.add_argument(
        "--cudnn-benchmark", action="store_true", help="torch.backends.cudnn.benchmark = True (default: off)"
    )
    parser.add_argument("--cpu-smoke", action="store_true", help="check the tensorweave graphs on the CPU")
    args = parser.parse_args()
    if args.cpu_smoke:
        return cpu_smoke()
    return run(args)


if __name__ == "__main__":
    sys.exit(main())

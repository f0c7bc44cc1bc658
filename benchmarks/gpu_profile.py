"""Where a GPU training step's time goes: the CUDA kernels and copies of one model's step in tensorweave and in
PyTorch eager, side by side, from CUPTI (through torch.profiler, which records every kernel of the process,
tensorweave's included).

  python benchmarks/gpu_profile.py [--models cifar_cnn,mlp_wide] [--steps 20] [--top 15]

tensorweave's step runs with TW_CUDA_GRAPHS=0 here (set before the import) so that its kernels are launched
one by one, as torch's are, and each shows under its own name. Each table lists, per kernel name, the total
GPU time over the profiled steps divided by the step count, the launches per step and the share of the step's
GPU time; the last line is the sum (GPU busy time per step) against the wall time per step.
Models and weights are benchmarks/gpu_train_step.py's."""

import argparse
import collections
import os
import sys
import time

os.environ.setdefault("TW_CUDA_GRAPHS", "0")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gpu_train_step as bench  # noqa: E402


def profile(torch, step, steps):
    """{kernel name: (total GPU us, launches)} over `steps` steps, and the wall seconds per step."""
    from torch.profiler import ProfilerActivity, profile as torch_profile

    for _ in range(5):
        step()
    torch.cuda.synchronize()
    with torch_profile(activities=[ProfilerActivity.CUDA]) as prof:
        start = time.perf_counter()
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
        wall = (time.perf_counter() - start) / steps
    totals = collections.defaultdict(lambda: [0.0, 0])
    for event in prof.events():
        if event.device_type.name != "CUDA":
            continue
        entry = totals[event.name]
        entry[0] += event.device_time if hasattr(event, "device_time") else event.cuda_time
        entry[1] += 1
    if not totals:  # this torch's events carry no device type: its own table, then
        print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=25))
    return totals, wall


def print_table(title, totals, wall, steps, top):
    busy = sum(us for us, _ in totals.values()) / steps
    print(f"\n{title}: GPU busy {busy / 1e3:.3f} ms per step, wall {wall * 1e3:.3f} ms per step")
    print(f"  {'us/step':>9} {'n/step':>6} {'share':>6}  kernel")
    for name, (us, n) in sorted(totals.items(), key=lambda kv: -kv[1][0])[:top]:
        print(f"  {us / steps:9.1f} {n / steps:6.1f} {us / steps / max(busy, 1e-9):6.1%}  {name[:110]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="cifar_cnn,mlp_wide")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    import tensorweave as tw

    if not tw.test.is_gpu_available():
        print(f"gpu_profile: no GPU ({tw.test.gpu_unavailable_reason()})")
        return 0
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    for name in args.models.split(","):
        m = bench.TwModel(tw, name)
        totals, wall = profile(torch, m.step, args.steps)
        print_table(
            f"{name}: tensorweave (TW_CUDA_GRAPHS={os.environ['TW_CUDA_GRAPHS']})", totals, wall, args.steps, args.top
        )
        m.close()
        tm = bench.TorchModel(torch, name)
        totals, wall = profile(torch, tm.step, args.steps)
        print_table(f"{name}: torch eager", totals, wall, args.steps, args.top)
        del tm
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The distributed runtime on loopback (every task its own process on 127.0.0.1, started with TW_CONFIG),
each figure beside its reference, in one run:

- null-step latency against the number of workers (1 ps, 1-4 workers): a step that runs a NoOp on every task
  (the paper's microbenchmark: 1.8 ms with 1 worker); goal: 1 worker at most 1.0 ms;
- tensor transfer throughput between two tasks, 4 KB to 64 MB (a variable on the ps read by an op on the
  worker: one push of its bytes per step) against a bare grpcio call carrying the same bytes between two
  processes; goal: at least 0.8x of it at every size.

  python benchmarks/distributed.py [--steps 300] [--max-workers 4] [--sizes 4K,64K,1M,16M,64M]
"""

import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_SERVE = "import tensorweave as tw; tw.train.Server.from_env().join()"


def _cluster(num_workers):
    from tensorweave.distributed import launch

    c = launch.LocalCluster([sys.executable, "-c", _SERVE], num_ps=1, num_workers=num_workers)
    c.wait_until_serving()
    return c


def _time_steps(fn, steps, warmup=30):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(steps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def null_step(num_workers, steps):
    import tensorweave as tw

    with _cluster(num_workers) as c, tw.Graph().as_default():
        ops = []
        for job, n in (("ps", 1), ("worker", num_workers)):
            for i in range(n):
                with tw.device(f"/job:{job}/task:{i}"):
                    ops.append(tw.no_op())
        with tw.device("/job:worker/task:0"):
            step = tw.group(*ops)
        with tw.Session("grpc://" + c.cluster["worker"][0]) as sess:
            return _time_steps(lambda: sess.run(step), steps)


def transfer(sizes, steps):
    """{size: seconds per step} moving `size` bytes from the ps to the worker."""
    import tensorweave as tw

    out = {}
    with _cluster(1) as c, tw.Graph().as_default(), tw.Session("grpc://" + c.cluster["worker"][0]) as sess:
        for size in sizes:
            with tw.device("/job:ps/task:0"):
                v = tw.Variable(tw.zeros([size // 4], tw.float32))
            with tw.device("/job:worker/task:0"):
                head = v[:1]
            sess.run(v.initializer)
            n = max(5, min(steps, int(2e9 // max(size, 1) // 10)))
            out[size] = _time_steps(lambda head=head: sess.run(head), n, warmup=3)
    return out


def _echo_server(port):
    from concurrent import futures

    import grpc

    opts = [("grpc.max_receive_message_length", 1 << 30), ("grpc.max_send_message_length", 1 << 30)]
    server = grpc.server(futures.ThreadPoolExecutor(4), options=opts)
    methods = {
        "Echo": grpc.unary_unary_rpc_method_handler(lambda req, ctx: req),  # the bytes back
        "Send": grpc.unary_unary_rpc_method_handler(lambda req, ctx: b"ok"),  # one way
    }
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler("echo", methods)])
    server.add_insecure_port(f"127.0.0.1:{port}")
    server.start()
    server.wait_for_termination()


def bare_grpc(sizes, steps):
    """{size: (seconds per echo, seconds per one-way call)}: bare grpcio unary calls carrying `size` bytes to
    another process, which sends them back (echo) or a 2-byte reply (one way)."""
    import subprocess

    import grpc
    from tensorweave.distributed import launch

    (port,) = launch.free_ports(1)
    p = subprocess.Popen([sys.executable, __file__, "--echo-server", str(port)])
    try:
        opts = [("grpc.max_receive_message_length", 1 << 30), ("grpc.max_send_message_length", 1 << 30)]
        ch = grpc.insecure_channel(f"127.0.0.1:{port}", options=opts)
        grpc.channel_ready_future(ch).result(timeout=30)
        echo, send = ch.unary_unary("/echo/Echo"), ch.unary_unary("/echo/Send")
        out = {}
        for size in sizes:
            payload = bytes(size)  # made once: the reference pays no serialization at all
            n = max(5, min(steps, int(2e9 // max(size, 1) // 10)))
            out[size] = (
                _time_steps(lambda payload=payload: echo(payload, timeout=60), n, warmup=3),
                _time_steps(lambda payload=payload: send(payload, timeout=60), n, warmup=3),
            )
        ch.close()
        return out
    finally:
        p.kill()
        p.wait()


def _parse_size(s):
    mult = {"K": 1 << 10, "M": 1 << 20}.get(s[-1].upper(), 1)
    return int(s[:-1] if s[-1].upper() in "KM" else s) * mult


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--max-workers", type=int, default=4)
    p.add_argument("--sizes", default="4K,64K,1M,4M,16M,64M")
    p.add_argument("--echo-server", type=int, default=None, help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.echo_server is not None:
        _echo_server(a.echo_server)
        return
    print("null step (1 ps + n workers, a NoOp on every task), median of", a.steps, "steps")
    print(f"{'workers':>8} {'ms/step':>9}   reference: paper 1.8 ms (1 worker, 16 ps); goal <= 1.0 ms for 1 worker")
    for n in range(1, a.max_workers + 1):
        print(f"{n:>8} {null_step(n, a.steps) * 1e3:>9.3f}", flush=True)
    sizes = [_parse_size(s) for s in a.sizes.split(",")]
    ours = transfer(sizes, a.steps)
    bare = bare_grpc(sizes, a.steps)
    print("\ntensor transfer ps -> worker (a whole step: RunStep, RunGraph on both tasks, the push of the bytes)")
    print("vs bare grpcio calls carrying the same bytes between two processes (echo: and back; one way: 2-byte reply)")
    print(
        f"{'bytes':>10} {'tw MB/s':>9} {'echo MB/s':>10} {'ratio':>6} {'1-way MB/s':>11} {'ratio':>6}   goal: >= 0.8x echo"
    )
    for s in sizes:
        e, o = bare[s]
        print(
            f"{s:>10} {s / ours[s] / 1e6:>9.1f} {s / e / 1e6:>10.1f} {e / ours[s]:>6.2f} {s / o / 1e6:>11.1f} "
            f"{o / ours[s]:>6.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()

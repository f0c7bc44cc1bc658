"""The distributed runtime on loopback (every task its own process on 127.0.0.1, started with TW_CONFIG),
each figure beside its reference, in one run:

- null-step latency against the number of workers (1 ps, 1-4 workers): a step that runs a NoOp on every task
  (the paper's microbenchmark: 1.8 ms with 1 worker); goal: 1 worker at most 1.0 ms;
  The client runs in worker 0's process (`Session(server.target)`: its master is called in-process); a
  client in another process (RunStep through gRPC) is measured too for 1 worker;
- tensor transfer throughput between two tasks, 4 KB to 64 MB (a variable on the ps read by an op on the
  worker: its bytes cross once per step, in the reply of the ps's RunGraph, a message on the worker's persistent
  stream of calls to the ps; the client in the worker's process, and in another one) against a bare grpcio
  unary call carrying the same bytes between two processes; goal: at least 0.8x of it at every size
  (TW_MAX_STREAMS=0 makes every call a unary one, for comparison);
- asynchronous data-parallel training of the MLP of benchmarks/train_step.py (784-512-512-10, batch 128, SGD)
  on 1 ps + 2 workers (variables on the ps, each worker's steps through its own server): examples/s of all
  workers together against one process;
- synchronous training (SyncReplicasOptimizer, 2 replicas aggregated per step) with one worker made 3x slower,
  with 0 and with 1 backup worker, beside the straggler-free throughput; goal: the backup worker recovers at
  least 80% of it. Each worker's compute is a sleep of --sync-compute-ms (the straggler's three times as long)
  before its real step (gradients of an MLP applied through the ps's accumulators and token queue): with 3-4
  processes on a 2-core machine, compute that used the CPU would measure the contention of the processes for
  the cores, not the synchronization protocol.

  The same TF1 program runs under TensorFlow's own distributed runtime in the same run (its figure beside ours),
  for 2 and 3 replicas aggregated per step. With TF's token protocol the backup worker cannot recover more than
  (n - 1 + 1/3) / n of the straggler-free throughput with n workers (token_bound: 0.78 for 2 + 1, 0.83 for 3 + 1).

  python benchmarks/distributed.py [--steps 300] [--max-workers 4] [--sizes 4K,64K,1M,16M,64M] [--mlp-seconds 10]
      [--sync-seconds 8] [--sync-compute-ms 30] [--sync-replicas 2,3] [--no-reference] [--stat median|min]
      (a 0 leaves a part out)
"""

import argparse
import importlib.util
import json
import os
import statistics
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_SERVE = "import tensorweave as tw; tw.train.Server.from_env().join()"


def _cluster(num_workers):
    from tensorweave.distributed import launch

    c = launch.LocalCluster([sys.executable, "-c", _SERVE], num_ps=1, num_workers=num_workers)
    c.wait_until_serving()
    return c


# The statistic of the timed steps (--stat; TW_BENCH_STAT carries it to the tasks): the median, or the minimum
# (what a step costs when nothing else on a busy machine gets in its way).
_STAT = {"median": statistics.median, "min": min}[os.environ.get("TW_BENCH_STAT", "median")]


def _time_steps(fn, steps, warmup=30):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(steps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return _STAT(times)


def _null_graph(num_workers):
    import tensorweave as tw

    ops = []
    for job, n in (("ps", 1), ("worker", num_workers)):
        for i in range(n):
            with tw.device(f"/job:{job}/task:{i}"):
                ops.append(tw.no_op())
    with tw.device("/job:worker/task:0"):
        return tw.group(*ops)


def null_step_remote(num_workers, steps):
    """Seconds per null step of a client in another process than the master (RunStep through gRPC)."""
    import tensorweave as tw

    with _cluster(num_workers) as c, tw.Graph().as_default():
        step = _null_graph(num_workers)
        with tw.Session("grpc://" + c.cluster["worker"][0]) as sess:
            return _time_steps(lambda: sess.run(step), steps)


def _null_task(steps):
    """A task of the null-step run (TW_CONFIG): worker 0 is the client (`Session(server.target)` in its own
    process, as the paper's) and prints its median seconds per step; the other tasks serve."""
    import tensorweave as tw
    from tensorweave.distributed import cluster_resolver

    t = cluster_resolver()
    server = tw.train.Server(t.cluster, t.task_type, t.task_id)
    if t.task_type != "worker" or t.task_id != 0:
        server.join()
    with tw.Graph().as_default():
        step = _null_graph(len(t.cluster.as_dict()["worker"]))
        with tw.Session(server.target) as sess:
            print("NULL_STEP_S", _time_steps(lambda: sess.run(step), steps), flush=True)


def null_step(num_workers, steps):
    """Seconds per null step, the client in worker 0's process (TF's `Session(server.target)`)."""
    from tensorweave.distributed import launch

    with launch.LocalCluster([sys.executable, __file__, "--null-task", str(steps)], 1, num_workers) as c:
        p = c.procs[("worker", 0)]
        p.wait(timeout=steps * 0.05 + 120)
        log = c.log("worker", 0)
    times = [float(x.split()[1]) for x in log.splitlines() if x.startswith("NULL_STEP_S")]
    if not times:
        raise RuntimeError(f"worker 0 failed: {log}")
    return times[0]


def _transfer_steps(sess, sizes, steps):
    """{size: seconds per step} of steps that read a ps variable of `size` bytes on the worker."""
    import tensorweave as tw

    out = {}
    for size in sizes:
        with tw.device("/job:ps/task:0"):
            v = tw.Variable(tw.zeros([size // 4], tw.float32))
        with tw.device("/job:worker/task:0"):
            head = v[:1]
        sess.run(v.initializer)
        n = max(5, min(steps, int(2e9 // max(size, 1) // 10)))
        out[size] = _time_steps(lambda head=head: sess.run(head), n, warmup=3)
    return out


def _transfer_task(sizes, steps):
    """A task of the transfer run (TW_CONFIG): worker 0 is the client (`Session(server.target)`) and prints
    its seconds per step for each size."""
    import tensorweave as tw
    from tensorweave.distributed import cluster_resolver

    t = cluster_resolver()
    server = tw.train.Server(t.cluster, t.task_type, t.task_id)
    if t.task_type != "worker":
        server.join()
    with tw.Graph().as_default(), tw.Session(server.target) as sess:
        for size, seconds in _transfer_steps(sess, sizes, steps).items():
            print("TRANSFER_S", size, seconds, flush=True)


def transfer(sizes, steps):
    """({size: seconds per step} with the client in the worker's process, the same with the client in this
    process (remote: RunStep through gRPC), {size: seconds per push alone}), moving `size` bytes from the ps
    to the worker."""
    import tensorweave as tw
    from tensorweave.distributed import launch

    spec = ",".join(str(s) for s in sizes)
    with launch.LocalCluster([sys.executable, __file__, "--transfer-task", f"{spec}:{steps}"], 1, 1) as c:
        c.procs[("worker", 0)].wait(timeout=600)
        log = c.log("worker", 0)
    ours = {int(x.split()[1]): float(x.split()[2]) for x in log.splitlines() if x.startswith("TRANSFER_S")}
    if len(ours) != len(sizes):
        raise RuntimeError(f"worker 0 failed: {log}")
    with _cluster(1) as c, tw.Graph().as_default(), tw.Session("grpc://" + c.cluster["worker"][0]) as sess:
        remote = _transfer_steps(sess, sizes, steps)
        pushes = _push_only(c.cluster["worker"][0], sizes, steps)
    return ours, remote, pushes


def _push_only(address, sizes, steps):
    """{size: seconds per push}: the transport alone (what a task's _Send does: PushTensors on the stream of
    calls, streamed in chunks above 4 MB, delivered into the receiving task's rendezvous), from this process to
    the task at `address`."""
    import random
    import threading

    from tensorweave.distributed import rpc, security, wire, worker_service

    channels = rpc.Channels(security.Security())
    transport = worker_service.Transport(channels, lambda task: address)
    device = "/job:worker/replica:0/task:0/device:CPU:0"
    key = f"/job:ps/replica:0/task:0/device:CPU:0;1;{device};bench:0;0:0"
    out = {}
    for size in sizes:
        value = np.zeros(size // 4, np.float32)
        n = max(5, min(steps, int(2e9 // max(size, 1) // 10)))
        times = []
        for i in range(n + 3):
            step_id = random.getrandbits(62) + 1
            done = threading.Event()
            status = []

            def finished(code, message="", status=status, done=done):
                status.append((code, message))
                done.set()

            t = time.perf_counter()
            transport("/job:worker/replica:0/task:0", step_id, key, value, False, finished)
            done.wait()
            if i >= 3:
                times.append(time.perf_counter() - t)
            if status[0][0] != 0:
                raise RuntimeError(f"push failed: {status[0]}")
            channels.call(address, rpc.WORKER, "CleanupStep", wire.encode({"step_id": step_id}))
        out[size] = _STAT(times)
    channels.close()
    return out


MLP_BATCH = 128


def _import(system):
    """The TF1 API of `system`: tensorweave, or TensorFlow's compat.v1 in graph mode."""
    if system == "tf":
        import tensorflow.compat.v1 as tf

        tf.disable_eager_execution()
        return tf
    import tensorweave as tw

    return tw


def _task():
    """(job, task index, ClusterSpec) of this task, from TW_CONFIG (both systems read it the same way)."""
    config = json.loads(os.environ["TW_CONFIG"])
    return config["task"]["type"], config["task"]["index"], config["cluster"]


def _dense_loss(tf, x, labels, widths):
    """The mean cross-entropy of an MLP over `x` (ReLU hidden layers of `widths[:-1]`), its variables made with
    get_variable (Glorot-uniform kernels) so that the same code runs under both systems."""
    h = x
    for i, width in enumerate(widths):
        w = tf.get_variable(f"w{i}", [h.shape[1], width], initializer=tf.glorot_uniform_initializer())
        h = tf.matmul(h, w) + tf.get_variable(f"b{i}", [width], initializer=tf.zeros_initializer())
        h = tf.nn.relu(h) if i < len(widths) - 1 else h
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=h))


def _mlp(tf, cluster, task_index):
    device = None
    if cluster is not None:
        device = tf.train.replica_device_setter(cluster=cluster, worker_device=f"/job:worker/task:{task_index}")
    with tf.device(device):
        tf.set_random_seed(0)
        x = tf.placeholder(tf.float32, [MLP_BATCH, 784])
        labels = tf.placeholder(tf.int64, [MLP_BATCH])
        train = tf.train.GradientDescentOptimizer(0.01).minimize(_dense_loss(tf, x, labels, (512, 512, 10)))
        init = tf.global_variables_initializer()
        ready = tf.report_uninitialized_variables(tf.global_variables())  # local ones wait for local_init
    return x, labels, train, init, ready


def _mlp_examples_per_second(sess, x, labels, train, seconds):
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((MLP_BATCH, 784)).astype(np.float32)
    yv = rng.integers(0, 10, MLP_BATCH).astype(np.int64)
    step = sess.make_callable(train, [x, labels])
    for _ in range(5):
        step(xv, yv)
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        step(xv, yv)
        n += 1
    return n * MLP_BATCH / (time.perf_counter() - start)


def _mlp_task(system, seconds):
    """A task of the MLP run (TW_CONFIG): the ps serves, each worker trains and prints its examples/s; with no
    TW_CONFIG, the whole model in this one process."""
    tf = _import(system)
    if "TW_CONFIG" not in os.environ:
        with tf.Graph().as_default():
            x, labels, train, init, _ = _mlp(tf, None, 0)
            with tf.Session() as sess:
                sess.run(init)
                print("EXAMPLES_PER_S", _mlp_examples_per_second(sess, x, labels, train, seconds), flush=True)
        return
    job, task_id, spec = _task()
    cluster = tf.train.ClusterSpec(spec)
    server = tf.train.Server(cluster, job, task_id)
    if job == "ps":
        server.join()
    with tf.Graph().as_default():
        x, labels, train, init, ready = _mlp(tf, cluster, task_id)
        with tf.Session(server.target) as sess:
            if task_id == 0:
                sess.run(init)
            while len(sess.run(ready)):
                time.sleep(0.05)
            print("EXAMPLES_PER_S", _mlp_examples_per_second(sess, x, labels, train, seconds), flush=True)
            os._exit(0)


def _rates(logs):
    return [float(x.split()[1]) for log in logs for x in log.splitlines() if x.startswith("EXAMPLES_PER_S")]


def mlp_async(system, seconds):
    """(examples/s in one process, examples/s of 2 workers together on 1 ps + 2 workers), each process running
    `system`."""
    import subprocess

    from tensorweave.distributed import launch

    command = [sys.executable, __file__, "--mlp-task", f"{system},{seconds}"]
    env = {k: v for k, v in os.environ.items() if k != "TW_CONFIG"}
    single = _rates(
        [
            subprocess.run(
                command, check=False, env=env, capture_output=True, text=True, timeout=seconds * 4 + 120
            ).stdout
        ]
    )
    with launch.LocalCluster(command, 1, 2) as c:
        codes = c.wait(timeout=seconds * 4 + 120)
        logs = [c.log("worker", i) for i in range(2)]
    rates = _rates(logs)
    if len(single) != 1 or len(rates) != 2:
        raise RuntimeError(f"{system}: the workers failed ({codes}): {logs}")
    return single[0], sum(rates)


SYNC_BATCH = 64


def _sync_task(system, aggregate, seconds, compute_seconds, slow_factor):
    """A task of the synchronous-training run (TW_CONFIG), under tensorweave or TensorFlow (`system`):
    SyncReplicasOptimizer(replicas_to_aggregate=`aggregate`, total_num_replicas=<the workers>) over an MLP on
    synthetic data; each worker sleeps `compute_seconds` before each of its steps, the last one (the straggler)
    `slow_factor` times as long. The chief (worker 0) prints the global steps per second over `seconds` (after a
    warm-up). The program is the same TF1 code for both systems."""
    tf = _import(system)
    job, task_id, spec = _task()
    cluster = tf.train.ClusterSpec(spec)
    server = tf.train.Server(cluster, job, task_id)
    if job == "ps":
        server.join()
    total, is_chief = cluster.num_tasks("worker"), task_id == 0
    device = tf.train.replica_device_setter(cluster=cluster, worker_device=f"/job:worker/task:{task_id}")
    with tf.Graph().as_default(), tf.device(device):
        tf.set_random_seed(0)
        x = tf.placeholder(tf.float32, [SYNC_BATCH, 784])
        labels = tf.placeholder(tf.int64, [SYNC_BATCH])
        loss = _dense_loss(tf, x, labels, (256, 10))
        global_step = tf.train.get_or_create_global_step()
        opt = tf.train.SyncReplicasOptimizer(
            tf.train.GradientDescentOptimizer(0.01), replicas_to_aggregate=aggregate, total_num_replicas=total
        )
        train = opt.minimize(loss, global_step=global_step)
        init = tf.global_variables_initializer()
        ready = tf.report_uninitialized_variables(tf.global_variables())  # local ones wait for local_init
        local_init = tf.local_variables_initializer()
        with tf.Session(server.target) as sess:
            if is_chief:
                sess.run(init)
                sess.run(local_init)
                sess.run(opt.chief_init_op)
                sess.run(opt.get_init_tokens_op())
                coord = tf.train.Coordinator()
                opt.get_chief_queue_runner().create_threads(sess, coord=coord, daemon=True, start=True)
            else:
                while len(sess.run(ready)):
                    time.sleep(0.05)
                sess.run(local_init)
                sess.run(opt.local_step_init_op)
            rng = np.random.default_rng(task_id)
            xv = rng.standard_normal((SYNC_BATCH, 784)).astype(np.float32)
            yv = rng.integers(0, 10, SYNC_BATCH).astype(np.int64)
            step = sess.make_callable(train, [x, labels])
            compute = compute_seconds * (slow_factor if task_id == total - 1 else 1.0)
            start = end = None
            while True:
                time.sleep(compute)
                step(xv, yv)
                if is_chief:
                    now = time.perf_counter()
                    if start is None and now > _sync_task.t0 + 2.0:  # the warm-up
                        start = (now, sess.run(global_step))
                    elif start is not None and now > start[0] + seconds:
                        end = (now, sess.run(global_step))
                        break
            rate = (end[1] - start[1]) / (end[0] - start[0])
            print("GLOBAL_STEPS_PER_S", rate, flush=True)
            os._exit(0)  # the other workers may wait for tokens the chief no longer gives


_sync_task.t0 = time.perf_counter()


def sync_throughput(system, workers, aggregate, seconds, compute_seconds, slow_factor):
    """Examples/s (global steps/s x aggregate x batch) of synchronous training on 1 ps + `workers` workers."""
    from tensorweave.distributed import launch

    task = f"{system},{aggregate},{seconds},{compute_seconds},{slow_factor}"
    with launch.LocalCluster([sys.executable, __file__, "--sync-task", task], 1, workers) as c:
        c.procs[("worker", 0)].wait(timeout=seconds + 120)
        log = c.log("worker", 0)
    rates = [float(x.split()[1]) for x in log.splitlines() if x.startswith("GLOBAL_STEPS_PER_S")]
    if not rates:
        raise RuntimeError(f"the chief failed: {log}")
    return rates[0] * aggregate * SYNC_BATCH


def _have_tensorflow():
    return importlib.util.find_spec("tensorflow") is not None


def token_bound(aggregate, slow_factor=3.0):
    """The most of the straggler-free throughput that TF's token protocol allows with `aggregate` replicas and
    one backup worker, one of the n = aggregate + 1 workers `slow_factor` times slower. Each step enqueues n
    tokens (TF's tokens_per_step) and every dequeue starts a gradient, fresh or stale; in the steady state the
    tokens made equal the tokens taken, n per step = (n - 1 + 1/slow) per compute time, so a step takes
    n / (n - 1 + 1/slow) compute times instead of one (7/9 for n = 3 at 3x: the gradients of fast workers that
    took a leftover token of a finished step are dropped as stale)."""
    n = aggregate + 1
    return (n - 1 + 1 / slow_factor) / n


def backup_workers(system, aggregate, seconds, compute_seconds):
    """[(label, examples/s)]: `aggregate` replicas aggregated per step, without and with a straggler (the last
    worker's compute 3x as long), with 0 and 1 backup worker."""
    n, ms = aggregate, compute_seconds * 1e3
    run = lambda workers, slow: sync_throughput(system, workers, n, seconds, compute_seconds, slow)
    return [
        (f"{n} workers, aggregate {n}, no straggler", run(n, 1.0)),
        (f"{n} workers, aggregate {n}, straggler ({3 * ms:.0f} ms)", run(n, 3.0)),
        (f"{n + 1} workers, aggregate {n} (1 backup), no straggler", run(n + 1, 1.0)),
        (f"{n + 1} workers, aggregate {n} (1 backup), straggler", run(n + 1, 3.0)),
    ]


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
    p.add_argument("--mlp-seconds", type=float, default=10.0)
    p.add_argument("--echo-server", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--mlp-task", default=None, help=argparse.SUPPRESS)
    p.add_argument("--null-task", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--sync-task", default=None, help=argparse.SUPPRESS)
    p.add_argument("--transfer-task", default=None, help=argparse.SUPPRESS)
    p.add_argument("--sync-seconds", type=float, default=8.0)
    p.add_argument("--sync-compute-ms", type=float, default=30.0, help="each worker's compute per step (a sleep)")
    p.add_argument("--sync-replicas", default="2,3", help="replicas aggregated per step, one run each")
    p.add_argument("--no-reference", dest="reference", action="store_false", help="skip TensorFlow's runs")
    p.add_argument("--stat", choices=["median", "min"], default=None, help="of the timed steps (default median)")
    a = p.parse_args()
    if a.echo_server is not None:
        _echo_server(a.echo_server)
        return
    if a.mlp_task is not None:
        system, seconds = a.mlp_task.split(",")
        _mlp_task(system, float(seconds))
        return
    if a.null_task is not None:
        _null_task(a.null_task)
        return
    if a.transfer_task is not None:
        spec, steps = a.transfer_task.split(":")
        _transfer_task([int(x) for x in spec.split(",")], int(steps))
        return
    if a.sync_task is not None:
        system, aggregate, seconds, compute, slow = a.sync_task.split(",")
        _sync_task(system, int(aggregate), float(seconds), float(compute), float(slow))
        return
    if a.stat is not None:
        global _STAT
        os.environ["TW_BENCH_STAT"] = a.stat
        _STAT = {"median": statistics.median, "min": min}[a.stat]
    stat = os.environ.get("TW_BENCH_STAT", "median")
    print(f"null step (1 ps + n workers, a NoOp on every task), {stat} of", a.steps, "steps")
    print("client in worker 0's process (Session(server.target): its master called in-process, as the paper's);")
    print("remote: the client in another process (RunStep through gRPC)")
    print(
        f"{'workers':>8} {'ms/step':>9} {'remote':>9}   reference: paper 1.8 ms (1 worker, 16 ps); goal <= 1.0 ms for 1 worker"
    )
    for n in range(1, a.max_workers + 1):
        remote = f"{null_step_remote(n, a.steps) * 1e3:>9.3f}" if n == 1 else ""
        print(f"{n:>8} {null_step(n, a.steps) * 1e3:>9.3f} {remote}", flush=True)
    sizes = [_parse_size(s) for s in a.sizes.split(",")]
    ours, remote, pushes = transfer(sizes, a.steps)
    bare = bare_grpc(sizes, a.steps)
    print(
        "\ntensor transfer ps -> worker, a whole step (RunGraph on both tasks, the push of the bytes) with the client"
    )
    print("in the worker's process (tw) and in another process (remote: RunStep through gRPC too), vs bare grpcio")
    print("calls carrying the same bytes between two processes (echo: and back; one way: 2-byte reply), and the push")
    print(f"alone (tw's transport: a push into the receiving task's rendezvous) vs the one-way call; {stat}s")
    print(
        f"{'bytes':>10} {'tw MB/s':>9} {'echo MB/s':>10} {'ratio':>6} {'remote':>7} {'1-way MB/s':>11} {'ratio':>6} "
        f"{'push MB/s':>10} {'vs 1-way':>8}   goal: >= 0.8x echo"
    )
    for s in sizes:
        e, o = bare[s]
        print(
            f"{s:>10} {s / ours[s] / 1e6:>9.1f} {s / e / 1e6:>10.1f} {e / ours[s]:>6.2f} {e / remote[s]:>7.2f} "
            f"{s / o / 1e6:>11.1f} {o / ours[s]:>6.2f} {s / pushes[s] / 1e6:>10.1f} {o / pushes[s]:>8.2f}",
            flush=True,
        )
    systems = ["tw"] + (["tf"] if _have_tensorflow() and a.reference else [])
    if a.mlp_seconds > 0:
        print(f"\nasynchronous MLP 784-512-512-10 training, batch {MLP_BATCH}, on {os.cpu_count()} cores, examples/s:")
        for s in systems:
            single, cluster = mlp_async(s, a.mlp_seconds)
            print(
                f"  {s}: one process {single:.0f}; 1 ps + 2 workers {cluster:.0f} ({cluster / single:.2f}x)", flush=True
            )

    if a.sync_seconds > 0:
        print(
            f"\nsynchronous training (SyncReplicasOptimizer, MLP 784-256-10, batch {SYNC_BATCH} per replica), 1 ps; "
            f"each worker's compute a {a.sync_compute_ms:.0f} ms sleep, the straggler's 3x; examples/s:"
        )
        for aggregate in [int(n) for n in a.sync_replicas.split(",")]:
            rows = {s: backup_workers(s, aggregate, a.sync_seconds, a.sync_compute_ms / 1e3) for s in systems}
            print(f"  {'':<58} " + " ".join(f"{s:>8}" for s in systems))
            for i, (label, _) in enumerate(rows["tw"]):
                print(f"  {label:<58} " + " ".join(f"{rows[s][i][1]:>8.0f}" for s in systems))
            for s in systems:
                r = rows[s]
                print(
                    f"  {s}: straggler, no backup: {r[1][1] / r[0][1]:.2f}x the straggler-free; with 1 backup: "
                    f"{r[3][1] / r[0][1]:.2f}x   goal: >= 0.8x; TF's token protocol allows at most "
                    f"{token_bound(aggregate):.2f}x",
                    flush=True,
                )


if __name__ == "__main__":
    main()

"""A local cluster for trying tensorweave's distributed runtime on one host:

    python -m tensorweave.distributed.launch --ps 1 --workers 2 [--logdir DIR] [--timeout S] script.py [args...]
    tensorweave-cluster --ps 1 --workers 2 script.py [args...]

starts one process per task, each running `script.py args` with `TW_CONFIG` set to the cluster (free ports of
127.0.0.1) and the task's role; each task's output goes to its own file (`DIR/<job>-<index>.log`). The
launcher waits for the workers (and the chief); parameter servers, which usually serve forever
(`server.join()`), are then stopped. Every task is killed when the launcher exits, is interrupted, when a
worker fails (unless --keep-going), or when the watchdog (--timeout) fires. Exit status: 0 when every worker
succeeded, else the first failing worker's status (124 on a timeout)."""

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

__all__ = ["LocalCluster", "free_ports", "main"]


def free_ports(n, host="127.0.0.1"):
    """`n` distinct ports free on `host` now (bound together, then released)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind((host, 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def make_cluster(num_ps, num_workers, chief=False, host="127.0.0.1"):
    """{job: [addresses]} of a local cluster with free ports."""
    jobs = ([("chief", 1)] if chief else []) + [("ps", num_ps), ("worker", num_workers)]
    ports = iter(free_ports(sum(n for _, n in jobs), host))
    return {job: [f"{host}:{next(ports)}" for _ in range(n)] for job, n in jobs if n > 0}


def tw_config(cluster, job, index, security=None):
    config = {"cluster": cluster, "task": {"type": job, "index": index}}
    if security:
        config["security"] = security
    return json.dumps(config)


class LocalCluster:
    """Processes of one cluster on this host: `command` (a list) runs for every task with TW_CONFIG set.

    Use as a context manager: every process is killed (its whole process group) on exit.
    """

    def __init__(
        self, command, num_ps=1, num_workers=2, chief=False, logdir=None, env=None, security=None, cluster=None
    ):
        self.cluster = cluster or make_cluster(num_ps, num_workers, chief)
        self.logdir = logdir or tempfile.mkdtemp(prefix="tw-cluster-")
        os.makedirs(self.logdir, exist_ok=True)
        self.procs = {}  # (job, index) -> Popen
        self._command = command
        self._env = env
        self._security = security
        self._killed = set()
        self._logs = {}
        try:
            for job, addresses in self.cluster.items():
                for i in range(len(addresses)):
                    self._start(job, i)
        except BaseException:
            self.shutdown()  # (out of processes or files part-way: the tasks started are not left running)
            raise

    def _start(self, job, i):
        e = dict(os.environ if self._env is None else self._env)
        e["TW_CONFIG"] = tw_config(self.cluster, job, i, self._security)
        e.setdefault("PYTHONUNBUFFERED", "1")
        old = self._logs.get((job, i))
        log = open(self.log_path(job, i), "ab" if old is not None else "wb")  # noqa: SIM115 - closed by shutdown()
        if old is not None:
            old.close()
        self._logs[(job, i)] = log
        self.procs[(job, i)] = subprocess.Popen(
            self._command,
            env=e,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )

    def restart(self, job, index):
        """Starts a task again (after `kill`): the same command and address; its output is appended to its
        log. `wait` watches it again."""
        if self.procs[(job, index)].poll() is None:
            raise RuntimeError(f"{job}:{index} is still running: kill it first")
        self._killed.discard((job, index))
        self._start(job, index)

    def log_path(self, job, index):
        return os.path.join(self.logdir, f"{job}-{index}.log")

    def log(self, job, index):
        with open(self.log_path(job, index), errors="replace") as f:
            return f.read()

    def waited_tasks(self):
        return [k for k in self.procs if k[0] != "ps"]

    def wait(self, timeout=None, keep_going=False):
        """Waits for the workers (and chief); returns {(job, index): returncode}; a worker's failure ends the
        wait unless `keep_going`; TimeoutError when `timeout` passes first (the processes keep running)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        codes = {}
        pending = set(self.waited_tasks())
        while pending:
            for k in list(pending):
                rc = self.procs[k].poll()
                if rc is not None:
                    codes[k] = rc
                    pending.discard(k)
                    if rc != 0 and not keep_going:
                        return codes
            for k, p in self.procs.items():  # a parameter server that died (not killed by kill()) is a failure too
                if k[0] == "ps" and k not in codes and k not in self._killed and p.poll() is not None:
                    codes[k] = p.returncode
                    if not keep_going:
                        return codes
            if pending:
                if deadline is not None and time.monotonic() > deadline:
                    raise TimeoutError(f"tasks {sorted(pending)} still running after {timeout} s")
                time.sleep(0.05)
        return codes

    def wait_until_serving(self, timeout=60.0):
        """Waits until every task accepts connections (its server started); TimeoutError naming the tasks
        that did not in `timeout` seconds (their logs say why)."""
        import grpc

        deadline = time.monotonic() + timeout
        for job, addresses in self.cluster.items():
            for i, address in enumerate(addresses):
                with grpc.insecure_channel(address) as ch:
                    try:
                        grpc.channel_ready_future(ch).result(timeout=max(0.1, deadline - time.monotonic()))
                    except grpc.FutureTimeoutError:
                        raise TimeoutError(f"{job}:{i} is not serving at {address} after {timeout} s") from None

    def kill(self, job, index, sig=signal.SIGKILL):
        """Kills one task (its process group) and waits for it; `wait` then ignores it."""
        self._killed.add((job, index))
        p = self.procs[(job, index)]
        if p.poll() is None:
            try:
                os.killpg(p.pid, sig)
            except ProcessLookupError:
                pass
            p.wait()

    def shutdown(self):
        """Kills every task (SIGTERM, then SIGKILL after 2 s)."""
        for p in self.procs.values():
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + 2.0
        for p in self.procs.values():
            try:
                p.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait()
        for log in self._logs.values():
            log.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.shutdown()


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="tensorweave-cluster",
        description="Starts a local tensorweave cluster (one process per task, TW_CONFIG set) running a script.",
    )
    parser.add_argument("--ps", type=int, default=1, help="parameter server tasks (default 1)")
    parser.add_argument("--workers", type=int, default=2, help="worker tasks (default 2)")
    parser.add_argument("--chief", action="store_true", help="add a 'chief' job of one task")
    parser.add_argument("--logdir", default=None, help="where each task's log goes (default: a temporary directory)")
    parser.add_argument("--timeout", type=float, default=None, help="watchdog: kill the cluster after this many s")
    parser.add_argument("--keep-going", action="store_true", help="do not stop the cluster when a worker fails")
    parser.add_argument("--secret", default=None, help="a shared secret every RPC must carry (or TW_SECRET)")
    parser.add_argument("script", help="the Python script every task runs")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    a = parser.parse_args(argv)
    if a.workers < 1 or a.ps < 0:
        parser.error("need at least one worker and no negative counts")
    if a.timeout is not None and not a.timeout > 0:
        parser.error(f"--timeout must be a positive number of seconds, got {a.timeout}")
    if a.logdir is not None and os.path.exists(a.logdir) and not os.path.isdir(a.logdir):
        parser.error(f"--logdir {a.logdir!r} is not a directory")
    security = {"secret": a.secret} if a.secret else None
    command = [sys.executable, a.script] + a.args
    try:
        cluster = LocalCluster(command, a.ps, a.workers, a.chief, a.logdir, security=security)
    except OSError as e:  # too many tasks for this host's ports, files or processes; an unwritable logdir
        parser.error(f"cannot start {a.ps} ps and {a.workers} worker tasks: {e}")

    def interrupted(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupted)
    print(f"tensorweave-cluster: {json.dumps(cluster.cluster)}; logs in {cluster.logdir}", flush=True)
    status = 0
    try:
        codes = cluster.wait(a.timeout, a.keep_going)
        for (job, i), rc in sorted(codes.items()):
            print(f"tensorweave-cluster: {job}:{i} exited with {rc} (log {cluster.log_path(job, i)})", flush=True)
            if rc != 0 and status == 0:
                status = rc if rc > 0 else 128 - rc
    except TimeoutError as e:
        print(f"tensorweave-cluster: watchdog: {e}; killing the cluster", file=sys.stderr, flush=True)
        status = 124
    except KeyboardInterrupt:
        print("tensorweave-cluster: interrupted; killing the cluster", file=sys.stderr, flush=True)
        status = 130
    finally:
        cluster.shutdown()
    return status


if __name__ == "__main__":
    sys.exit(main())

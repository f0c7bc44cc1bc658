"""`Server`: one task of a cluster (TF1's `tf.train.Server`): a gRPC server bound to the address its cluster
spec gives the task, with the Worker service (the task's C++ runtime) and the Master service (remote sessions,
`Session(server.target)`)."""

import logging
import os
import threading
import weakref

from tensorweave._src.framework import errors
from tensorweave.distributed import cluster_spec as _cs
from tensorweave.distributed import security as _security

_log = logging.getLogger("tensorweave.distributed")
# The servers of this process by address ("host:port"): a session whose target names one of them calls its
# master directly, without gRPC (TF's LocalMaster).
_local_servers = weakref.WeakValueDictionary()
_local_lock = threading.Lock()
# Every started server of this process, stopped at interpreter exit before concurrent.futures joins its
# pools' threads: a handler still waiting on a call (a peer killed mid-request) would otherwise hold the exit
# forever. threading's exit hooks run newest first, so this one (registered after concurrent.futures' own)
# runs before that join.
_started_servers = weakref.WeakSet()
_exit_hook_registered = False


def _stop_started_servers():
    for server in list(_started_servers):
        try:
            server.stop(0)
        except Exception:  # noqa: BLE001 - the process is exiting; stop the others
            _log.exception("stopping %s at exit", server.task_name)


_LOOPBACK = ("127.0.0.1", "localhost", "0.0.0.0", "::", "::1", "[::]", "[::1]")


def _local_keys(address):
    """The names of an address of this host: a loopback or wildcard host is any of them."""
    host, port = address.rsplit(":", 1)
    return [f"{h}:{port}" for h in _LOOPBACK] if host in _LOOPBACK else [address]


def local_master(address, security):
    """The MasterService of the running server of this process at `address`, or None; None too when the
    client's `security` settings differ from the server's (that client goes through gRPC, which checks them)."""
    with _local_lock:
        server = _local_servers.get(_local_keys(address)[0])
    if server is None or server._stopped.is_set() or not server._started:
        return None
    fields = ("secret", "tls_cert", "tls_key", "tls_ca")
    if any(getattr(security, f) != getattr(server._security, f) for f in fields):
        return None
    return server._master


__all__ = ["Server", "ServerDef"]


class ServerDef:
    """What a Server is: its `cluster` (a ClusterSpec), `job_name`, `task_index`, `protocol` and
    `default_session_config` (TF's ServerDef fields)."""

    def __init__(self, cluster, job_name, task_index, protocol="grpc", default_session_config=None):
        self.cluster = cluster
        self.job_name = job_name
        self.task_index = task_index
        self.protocol = protocol
        self.default_session_config = default_session_config

    def __repr__(self):
        return f"ServerDef(job_name={self.job_name!r}, task_index={self.task_index}, protocol={self.protocol!r}, cluster={self.cluster})"


def _server_def(server_or_cluster_def, job_name, task_index, protocol, config):
    if isinstance(server_or_cluster_def, ServerDef):
        d = server_or_cluster_def
        job_name = d.job_name if job_name is None else job_name
        task_index = d.task_index if task_index is None else task_index
        protocol = protocol or d.protocol
        config = config if config is not None else d.default_session_config
        cluster = d.cluster
    else:
        cluster = _cs.ClusterSpec(server_or_cluster_def)
    if job_name is None:
        if len(cluster.jobs) != 1:
            raise ValueError("Must specify an explicit `job_name`.")
        job_name = cluster.jobs[0]
    if job_name not in cluster.jobs:
        raise ValueError(f"No such job in cluster: {job_name!r}")
    if task_index is None:
        indices = cluster.task_indices(job_name)
        if len(indices) != 1:
            raise ValueError("Must specify an explicit `task_index`.")
        task_index = indices[0]
    cluster.task_address(job_name, task_index)  # ValueError when absent
    protocol = protocol or "grpc"
    if protocol not in ("grpc", "grpc+tls"):
        raise ValueError(f"Unknown protocol {protocol!r}: tensorweave speaks 'grpc' and 'grpc+tls'")
    return ServerDef(cluster, job_name, int(task_index), protocol, config)


class Server:
    """An in-process server of one task of a cluster.

    Args:
      server_or_cluster_def: a ClusterSpec, a {job: [addresses]} dict, or a `ServerDef`.
      job_name: this task's job (may be left out when the cluster has one job).
      task_index: this task's index in the job (may be left out when the job has one task).
      protocol: "grpc" (default), or "grpc+tls" (TLS required: `tls_cert` and `tls_key` must be given).
      config: a `ConfigProto`: its `device_count`, thread counts and `allow_soft_placement` are the task's.
      start: start serving at once (else call `start()`).
      secret, secret_file, tls_cert, tls_key, tls_ca, tls_client_auth: security settings (see
        `tensorweave.distributed.security`); what is left out comes from TW_CONFIG's "security" and the
        environment. They also become this process's settings for its own sessions and calls.

    The server binds only the address its task has in the cluster spec; a port 0 there picks a free port
    (`target` gives it).

    Example:
      >>> import tensorweave as tw
      >>> server = tw.train.Server.create_local_server()
      >>> with tw.Graph().as_default():
      ...     c = tw.constant(3.0) * 2.0
      ...     with tw.Session(server.target) as sess:
      ...         print(sess.run(c))
      6.0
    """

    def __init__(
        self,
        server_or_cluster_def,
        job_name=None,
        task_index=None,
        protocol=None,
        config=None,
        start=True,
        secret=None,
        secret_file=None,
        tls_cert=None,
        tls_key=None,
        tls_ca=None,
        tls_client_auth=None,
        max_workers=64,
    ):
        from concurrent import futures

        import grpc

        from tensorweave import _pywrap_tensorweave as _pywrap
        from tensorweave.distributed import master as _master
        from tensorweave.distributed import rpc
        from tensorweave.distributed import worker_service

        self._server_def = _server_def(server_or_cluster_def, job_name, task_index, protocol, config)
        d = self._server_def
        given = {
            "secret": secret,
            "secret_file": secret_file,
            "tls_cert": tls_cert,
            "tls_key": tls_key,
            "tls_ca": tls_ca,
            "tls_client_auth": tls_client_auth,
        }
        settings = {k: v for k, v in given.items() if v is not None}
        self._security = _security.Security.resolve(settings)
        if d.protocol == "grpc+tls" and self._security.tls_cert is None:
            raise ValueError("protocol 'grpc+tls' needs tls_cert and tls_key")
        _security.set_process_default(self._security)
        self.task_name = f"/job:{d.job_name}/replica:0/task:{d.task_index}"
        address = d.cluster.task_address(d.job_name, d.task_index)
        host, port = _cs.parse_address(address)

        cfg = d.default_session_config
        device_count = dict(getattr(cfg, "device_count", {}) or {})
        inter = int(getattr(cfg, "inter_op_parallelism_threads", 0) or 0)
        intra = int(getattr(cfg, "intra_op_parallelism_threads", 0) or 0)
        self._env = _pywrap.WorkerEnv(d.job_name, d.task_index, device_count, inter, intra)
        self.channels = rpc.Channels(self._security)
        transport = worker_service.Transport(self.channels, self._resolve)
        self._env.set_transport(transport)
        self._worker = worker_service.WorkerService(self._env, self.task_name, transport)
        self._master = _master.MasterService(self)

        slots = worker_service.StreamSlots(max(1, max_workers // 2))  # (half its threads: the rest for unary calls)
        self._grpc = grpc.server(
            futures.ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix=f"tw-{d.job_name}{d.task_index}"),
            handlers=[self._worker.handlers(slots), self._master.handlers(slots)],
            interceptors=self._security.interceptors(),
            options=rpc.SERVER_OPTIONS,
            maximum_concurrent_rpcs=None,
        )
        creds = self._security.server_credentials()
        try:
            if creds is None:
                bound = self._grpc.add_insecure_port(address)
            else:
                bound = self._grpc.add_secure_port(address, creds)
        except RuntimeError as e:
            raise errors.UnknownError(None, None, f"Could not start gRPC server at {address}: {e}") from None
        if not bound:
            raise errors.UnknownError(None, None, f"Could not start gRPC server: cannot bind {address}")
        if port == 0:  # the port picked for us becomes the task's address
            spec = d.cluster.as_dict()
            tasks = spec[d.job_name]
            tasks[d.task_index] = f"{host}:{bound}"
            d.cluster = _cs.ClusterSpec(spec)
            address = f"{host}:{bound}"
        self._address = address
        self._started = False
        self._stopped = threading.Event()
        _log.info(
            "%s serving at %s (%s%s)",
            self.task_name,
            address,
            "TLS" if creds is not None else "plaintext",
            ", shared secret" if self._security.secret is not None else "",
        )
        if start:
            self.start()

    def _resolve(self, task):
        return self._master.address_of(task)

    @property
    def cluster(self):
        return self._server_def.cluster

    @property
    def server_def(self):
        """The `ServerDef` this server was made from."""
        return self._server_def

    @property
    def target(self):
        """The session target of this server: `grpc://host:port`."""
        return f"grpc://{self._address}"

    @property
    def address(self):
        return self._address

    def start(self):
        """Starts serving (once)."""
        global _exit_hook_registered
        if not self._started:
            self._grpc.start()
            self._started = True
            with _local_lock:
                _started_servers.add(self)
                if not _exit_hook_registered:
                    threading._register_atexit(_stop_started_servers)
                    _exit_hook_registered = True
            with _local_lock:
                for key in _local_keys(self._address):
                    _local_servers[key] = self

    def join(self):
        """Blocks until the server stops (a parameter server's main loop)."""
        self.start()
        self._grpc.wait_for_termination()

    def stop(self, grace=None):
        """Stops serving (calls in progress get `grace` seconds)."""
        if not self._stopped.is_set():
            self._stopped.set()
            with _local_lock:
                for key in _local_keys(self._address):
                    if _local_servers.get(key) is self:
                        del _local_servers[key]
            self._grpc.stop(grace).wait()
            self.channels.close()

    def __del__(self):
        try:
            self.stop()
        except Exception:  # noqa: BLE001, S110 - interpreter shutdown
            pass

    @staticmethod
    def create_local_server(config=None, start=True):
        """A single-task server on a free port of 127.0.0.1 (job "localhost")."""
        return Server(
            {"localhost": ["127.0.0.1:0"]},
            job_name="localhost",
            task_index=0,
            protocol="grpc",
            config=config,
            start=start,
        )

    @staticmethod
    def from_env(config=None, start=True, environ=None, **security):
        """The server of the task `TW_CONFIG` describes (ValueError when TW_CONFIG is unset)."""
        task = _cs.cluster_resolver(os.environ if environ is None else environ)
        if task is None or task.task_type is None:
            raise ValueError("TW_CONFIG is unset or names no task: cannot make this task's server")
        return Server(task.cluster, task.task_type, task.task_id, config=config, start=start, **security)

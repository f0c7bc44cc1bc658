"""The client of a remote session (`Session("grpc://host:port")`): an object with the interface of the C++
session the local `Session` drives (`make_callable`, `run_callable`, `list_devices`, `close`), so feeds,
fetch structures and their checks are the local session's. It ships the graph to the master (CreateSession,
and ExtendSession when the graph grew between runs) and runs each step there (RunStep)."""

import base64
import threading

import numpy as np

from tensorweave._src.framework import errors
from tensorweave.distributed import rpc
from tensorweave.distributed import security as _security
from tensorweave.distributed import wire
from tensorweave.distributed.worker_service import _as_array


def parse_target(target):
    if isinstance(target, bytes):
        target = target.decode()
    if not target.startswith("grpc://") or not target[len("grpc://") :]:
        raise ValueError(f"Session target {target!r} is not '' or 'grpc://host:port'")
    return target[len("grpc://") :]


_channels = {}
_channels_lock = threading.Lock()


def _process_channels():
    sec = _security.process_default()
    with _channels_lock:
        ch = _channels.get(id(sec))
        if ch is None:
            ch = _channels[id(sec)] = (sec, rpc.Channels(sec))
        return ch[1]


class RemoteSession:
    def __init__(self, target, graph, config):
        from tensorweave.distributed import server as _server

        self._address = parse_target(target)
        self._graph = graph
        # A server of this process at the target: its master is called directly (TF's LocalMaster), no gRPC.
        self._local = _server.local_master(self._address, _security.process_default())
        self._channels = _process_channels()
        self._lock = threading.Lock()
        self._callables = {}
        self._version = None
        self._handle = None
        self._config = {
            "allow_soft_placement": bool(getattr(config, "allow_soft_placement", False)),
            "operation_timeout_in_ms": int(getattr(config, "operation_timeout_in_ms", 0) or 0),
        }
        self._closed = False
        self._sync_graph()

    def _call(self, name, header, buffers=(), timeout=None):
        if self._local is not None:
            return self._local.call_direct(name, header, b"".join(buffers))
        return self._channels.call(self._address, rpc.MASTER, name, wire.encode(header, buffers), timeout)

    def _sync_graph(self):
        """Ships the graph to the master when it is new or grew since it was last shipped."""
        version = self._graph.version
        if version == self._version:
            return
        with self._lock:
            if version == self._version:
                return
            graph_def = self._graph._c.to_graph_def()
            if self._handle is None:
                header, _ = wire.decode(
                    self._call("CreateSession", {"version": version, "config": self._config}, [graph_def])
                )
                self._handle = header["session"]
            else:
                self._call("ExtendSession", {"session": self._handle, "version": version}, [graph_def])
            self._version = version

    def set_graph_optimizer(self, options):
        self._config["graph_optimizer"] = options

    def make_callable(self, feed_names, fetch_names, target_names):
        for name in list(fetch_names) + list(feed_names):
            self._graph.get_tensor_by_name(name)
        with self._lock:
            handle = len(self._callables) + 1
            self._callables[handle] = (list(feed_names), list(fetch_names), list(target_names))
        return handle

    def run_callable(self, handle, values, timeout_in_ms=0):
        return self._run(handle, values, timeout_in_ms, None)

    def run_callable_with_metadata(self, handle, values, want_partitions, trace_level, timeout_in_ms):
        """As the local session's: the step traced on every task (RunOptions trace_level > NO_TRACE: one
        DeviceStepStats per device of the cluster) and, when asked, the graph each task ran."""
        metadata = {"trace": trace_level > 0, "partition_graphs": bool(want_partitions)}
        out = self._run(handle, values, timeout_in_ms, metadata)
        return out, {"partition_graphs": metadata.get("graphs", []), "step_stats": metadata.get("step_stats", b"")}

    def _run(self, handle, values, timeout_in_ms, metadata):
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        self._sync_graph()
        feeds, fetches, targets = self._callables[handle]
        timeout_in_ms = timeout_in_ms or self._config["operation_timeout_in_ms"]
        if self._local is not None:
            arrays = [wire.as_wire_array(v, enum) for v, enum in values]
            out = self._local.run_step_values(self._handle, feeds, fetches, targets, arrays, timeout_in_ms, metadata)
            return [_fetched(_as_array(v)) for v in out]
        header = {
            "method": "RunStep",
            "session": self._handle,
            "feeds": feeds,
            "fetches": fetches,
            "targets": targets,
            "timeout_ms": timeout_in_ms,
        }
        if metadata is not None and (metadata["trace"] or metadata["partition_graphs"]):
            header.update(metadata)
        else:
            metadata = None
        request = wire.encode_tensors(header, [(v, enum) for v, enum in values])
        timeout = timeout_in_ms / 1000.0 + 10.0 if timeout_in_ms else rpc.STEP_TIMEOUT + 10.0
        what = f"RunStep on {self._address}"
        reply = self._channels.stream_call(self._address, rpc.MASTER, "RunStep", request, timeout, what)
        header, payload = wire.decode(reply)
        if metadata is not None:
            metadata["step_stats"] = base64.b64decode(header.get("step_stats", ""))
            metadata["graphs"] = [base64.b64decode(g) for g in header.get("partition_graphs", [])]
        return [_fetched(v) for v in wire.decode_tensors(header, payload)]

    def list_devices(self):
        header, _ = wire.decode(self._call("ListDevices", {}, timeout=rpc.CONTROL_TIMEOUT * 6))
        return [tuple(d[:4]) for d in header["devices"]]

    def close(self):
        if not self._closed:
            self._closed = True
            if self._handle is not None:
                try:
                    self._call("CloseSession", {"session": self._handle})
                except errors.OpError:
                    pass  # the master is gone: nothing to free


def _fetched(value):
    """A fetched value as the local session gives it: numpy scalar for 0-d, bytes for a string scalar, a
    writable array otherwise."""
    if value.dtype == object:
        return value[()] if value.ndim == 0 else value
    if value.ndim == 0:
        return value[()]
    return np.array(value)  # a writable copy (of the reply's bytes, or of a tensor of an in-process master)


def reset(target, containers=None):
    """Frees the resources (variables, queues) of the named containers (none named: the default one) on every
    task of the cluster `target`'s server is in; its master forgets its sessions."""
    address = parse_target(target)
    channels = _process_channels()
    channels.call(
        address,
        rpc.MASTER,
        "Reset",
        wire.encode({"containers": list(containers or [])}),
        timeout=rpc.CONTROL_TIMEOUT * 6,
    )

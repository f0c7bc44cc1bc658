"""The Worker service of a task (grpcio generic handlers over `WorkerEnv`, the C++ runtime of the task):
GetStatus, RegisterGraph, RunGraph, DeregisterGraph, CleanupStep, AbortStep, Reset, and PushTensor (unary) /
PushTensorStream (client streaming, for tensors over `rpc.CHUNK_BYTES`) through which other tasks push the
tensors their `_Send`s address to this task. Also the transport that pushes this task's own `_Send`s to other
tasks. Every handler validates what it receives: a malformed request ends with an error status, never a crash.
"""

import base64
import logging
import random
import threading

import grpc
import numpy as np

from tensorweave._src.framework import errors
from tensorweave.distributed import rpc
from tensorweave.distributed import wire

_log = logging.getLogger("tensorweave.distributed")


def _int(header, key, what=None):
    v = header.get(key)
    if not isinstance(v, int) or isinstance(v, bool):
        raise errors.InvalidArgumentError(None, None, f"malformed request: {what or key} {v!r} is not an integer")
    return v


def _names(header, key):
    v = header.get(key, [])
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise errors.InvalidArgumentError(None, None, f"malformed request: '{key}' is not a list of names")
    return v


def handler(fn):
    """A unary handler taking (header, payload) and returning reply bytes; errors become statuses."""

    def run(request, context):
        try:
            header, payload = wire.decode(request)
            return fn(header, payload)
        except errors.OpError as e:
            rpc.abort(context, e)
        except Exception as e:  # noqa: BLE001 - a bug must be a status, not a dead server thread
            _log.exception("internal error in %s", getattr(fn, "__name__", "handler"))
            context.abort(grpc.StatusCode.INTERNAL, f"{type(e).__name__}: {e}")

    return grpc.unary_unary_rpc_method_handler(run)


class WorkerService:
    """The worker side of a task: `env` is its `_pywrap_tensorweave.WorkerEnv`."""

    def __init__(self, env, task_name):
        self.env = env
        self.task_name = task_name
        self._lock = threading.Lock()
        # Graph handles given out carry this server's instance in their high bits: a master's handle from an
        # earlier run of this task (which restarted since) is NotFound, never another graph.
        self._instance = random.getrandbits(30) + 1

    def _external(self, handle):
        return (self._instance << 32) | handle

    def _internal(self, handle):
        if handle >> 32 != self._instance:
            raise errors.NotFoundError(
                None, None, f"no graph registered with handle {handle} on {self.task_name} (it restarted since?)"
            )
        return handle & 0xFFFFFFFF

    def run_local(self, handle, step_id, feeds, fetches, timeout_ms, wait_for_sends=True, trace=False):
        """RunGraph from the master of this same task (no RPC); traced: (outputs, serialized StepStats)."""
        run = self.env.run_graph_traced if trace else self.env.run_graph
        return run(self._internal(handle), step_id, feeds, fetches, timeout_ms, wait_for_sends=wait_for_sends)

    def handlers(self):
        methods = {
            "GetStatus": handler(self.get_status),
            "RegisterGraph": handler(self.register_graph),
            "RunGraph": handler(self.run_graph),
            "DeregisterGraph": handler(self.deregister_graph),
            "CleanupStep": handler(self.cleanup_step),
            "AbortStep": handler(self.abort_step),
            "Reset": handler(self.reset),
            "PushTensor": handler(self.push_tensor),
            "PushTensorStream": grpc.stream_unary_rpc_method_handler(self.push_tensor_stream),
        }
        return grpc.method_handlers_generic_handler(rpc.WORKER, methods)

    # --- handlers ---------------------------------------------------------------
    def get_status(self, header, payload):
        devices = [list(d) for d in self.env.device_attributes()]
        return wire.encode({"task": self.task_name, "devices": devices})

    def register_graph(self, header, payload):
        handle = self.env.register_graph(bytes(payload))
        return wire.encode({"handle": self._external(handle)})

    def run_graph(self, header, payload):
        handle = _int(header, "handle", "graph handle")
        step_id = _int(header, "step_id", "step id")
        feed_names = _names(header, "feeds")
        fetches = _names(header, "fetches")
        timeout_ms = header.get("timeout_ms", 0)
        if not isinstance(timeout_ms, int) or timeout_ms < 0:
            raise errors.InvalidArgumentError(None, None, f"malformed request: timeout {timeout_ms!r}")
        wait_for_sends = header.get("wait_for_sends", True)
        if not isinstance(wait_for_sends, bool):
            raise errors.InvalidArgumentError(None, None, f"malformed request: wait_for_sends {wait_for_sends!r}")
        trace = header.get("trace", False)
        if not isinstance(trace, bool):
            raise errors.InvalidArgumentError(None, None, f"malformed request: trace {trace!r}")
        values = wire.decode_tensors(header, payload)
        if len(values) != len(feed_names):
            raise errors.InvalidArgumentError(
                None, None, f"malformed request: {len(feed_names)} feed names and {len(values)} feed values"
            )
        out = self.run_local(handle, step_id, dict(zip(feed_names, values)), fetches, timeout_ms, wait_for_sends, trace)
        reply = {}
        if trace:
            out, stats = out
            reply["step_stats"] = base64.b64encode(stats).decode("ascii")
        return wire.encode_tensors(reply, [_as_array(v) for v in out])

    def deregister_graph(self, header, payload):
        self.env.deregister_graph(self._internal(_int(header, "handle", "graph handle")))
        return wire.encode({})

    def cleanup_step(self, header, payload):
        self.env.cleanup_step(_int(header, "step_id", "step id"))
        return wire.encode({})

    def abort_step(self, header, payload):
        code = header.get("code", errors.ABORTED)
        if not isinstance(code, int) or not 0 < code <= errors.UNAUTHENTICATED:
            code = errors.ABORTED
        message = str(header.get("message", "aborted"))
        self.env.abort_step(_int(header, "step_id", "step id"), code, message)
        return wire.encode({})

    def reset(self, header, payload):
        self.env.reset(_names(header, "containers"))
        return wire.encode({})

    def push_tensor(self, header, payload):
        step_id = _int(header, "step_id", "step id")
        key = header.get("key")
        if not isinstance(key, str):
            raise errors.InvalidArgumentError(None, None, "malformed push: no rendezvous key")
        metas = header.get("tensors")
        if not isinstance(metas, list) or len(metas) != 1:
            raise errors.InvalidArgumentError(None, None, f"malformed push of {key}: not one tensor")
        (value,) = wire.decode_tensors(header, payload)
        self._deliver(step_id, key, value, metas[0], bool(header.get("is_dead", False)))
        return wire.encode({})

    def push_tensor_stream(self, request_iterator, context):
        """A large tensor: the first message is a push header with the tensor's meta and the first chunk; the
        others are raw chunks, assembled into one buffer (the one copy) and checked against the meta."""
        try:
            first = next(request_iterator, None)
            if first is None:
                raise errors.InvalidArgumentError(None, None, "malformed push: an empty stream")
            header, chunk = wire.decode(first)
            step_id = _int(header, "step_id", "step id")
            key = header.get("key")
            metas = header.get("tensors")
            if not isinstance(key, str) or not isinstance(metas, list) or len(metas) != 1:
                raise errors.InvalidArgumentError(None, None, "malformed push: no key or not one tensor")
            dtype, _, nbytes = wire.check_meta(metas[0])
            if dtype == wire.STRING:
                raise errors.InvalidArgumentError(None, None, f"malformed push of {key}: a streamed string tensor")
            buf = np.empty(nbytes, dtype=np.uint8)
            pos = 0
            for part in _chain([chunk], request_iterator):
                n = len(part)
                if pos + n > nbytes:
                    raise errors.InvalidArgumentError(
                        None, None, f"malformed push of {key}: more than the {nbytes} bytes its header gives"
                    )
                buf[pos : pos + n] = np.frombuffer(part, dtype=np.uint8)
                pos += n
            if pos != nbytes:
                raise errors.InvalidArgumentError(
                    None, None, f"truncated push of {key}: {pos} of its {nbytes} bytes arrived"
                )
            value = wire.tensor_from(metas[0], buf.data)
            self._deliver(step_id, key, value, metas[0], bool(header.get("is_dead", False)))
            return wire.encode({})
        except errors.OpError as e:
            rpc.abort(context, e)
        except Exception as e:  # noqa: BLE001
            _log.exception("internal error in PushTensorStream")
            context.abort(grpc.StatusCode.INTERNAL, f"{type(e).__name__}: {e}")

    def _deliver(self, step_id, key, value, meta, is_dead):
        self.env.deliver(step_id, key, value, meta["dtype"], list(value.shape), is_dead)


def _chain(first, rest):
    yield from first
    yield from rest


def _as_array(value):
    """A fetched value as an array for the wire (string tensors come as nested lists of bytes)."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, (list, tuple)):
        out = np.empty(_nested_shape(value), dtype=object)
        flat = out.reshape(-1)
        for i, x in enumerate(_flatten(value)):
            flat[i] = x
        return out
    return np.asarray(value)


def _nested_shape(value):
    shape = []
    while isinstance(value, (list, tuple)):
        shape.append(len(value))
        if not value:
            break
        value = value[0]
    return tuple(shape)


def _flatten(value):
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _flatten(v)
    else:
        yield value


class Transport:
    """Pushes the tensors this task's `_Send`s address to other tasks (called by the C++ runtime from its
    executor threads: it only hands the call to a sender thread; `done(code, message)` runs when the call
    ends)."""

    def __init__(self, channels, resolve):
        self._channels = channels
        self._resolve = resolve  # "/job:j/replica:0/task:i" -> address
        self._threads = rpc.Threads("tw-send")

    def __call__(self, dst_task, step_id, key, array, is_dead, done):
        try:
            address = self._resolve(dst_task)
            meta, buffers = wire.tensor_parts(array)
            header = {"step_id": step_id, "key": key, "is_dead": bool(is_dead), "tensors": [meta]}
            nbytes = meta["nbytes"]
            timeout = rpc.CONTROL_TIMEOUT + nbytes / 20e6  # at least 20 MB/s
            if nbytes <= rpc.CHUNK_BYTES or meta["dtype"] == wire.STRING:
                method = self._channels.method(address, rpc.WORKER, "PushTensor")
                request = wire.encode(header, buffers)
            else:
                method = self._channels.method(address, rpc.WORKER, "PushTensorStream", streaming=True)
                request = _chunks(header, buffers[0], rpc.CHUNK_BYTES)
        except errors.OpError as e:
            done(e.error_code, e.message)
            return
        except Exception as e:  # noqa: BLE001
            done(errors.INTERNAL, f"sending {key} to {dst_task}: {type(e).__name__}: {e}")
            return

        def send():
            try:
                method(request, timeout=timeout, metadata=self._channels.metadata)
                done(0, "")
                return
            except grpc.RpcError as e:
                err = rpc.error_from_rpc(e, f"sending {key} of step {step_id} to {dst_task} at {address}")
                code, message = err.error_code, err.message
            except Exception as e:  # noqa: BLE001
                code, message = errors.INTERNAL, f"sending {key} to {dst_task}: {type(e).__name__}: {e}"
            done(code, message)
            # The receiving task's step waits for this value: abort it there with the reason (this task's
            # RunGraph may have ended already, not waiting for its pushes). Best effort: it may be down.
            abort = wire.encode({"step_id": step_id, "code": code, "message": message})
            try:
                self._channels.call(address, rpc.WORKER, "AbortStep", abort)
            except errors.OpError:
                pass

        self._threads.submit(send)


def _chunks(header, data, size):
    view = memoryview(data).cast("B")
    yield wire.encode(header, [view[:size]])
    for i in range(size, len(view), size):
        yield bytes(view[i : i + size])

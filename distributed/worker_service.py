"""The Worker service of a task (grpcio generic handlers over `WorkerEnv`, the C++ runtime of the task):
GetStatus, RegisterGraph, RunGraph (whose reply also carries what the step sent the calling task, when it could
wait for it; binary, distributed/reply_wire.h, when the caller runs its own part after it), DeregisterGraph, CleanupStep, AbortStep, Reset, and PushTensors (a batch of values, of one or
more steps, control edges as flags) / PushTensor (one value, the older form) / PushTensorStream (client
streaming, for tensors over `rpc.CHUNK_BYTES`) through which other tasks push the tensors their `_Send`s
address to this task; Calls, a persistent stream that carries the calls of the others (`stream_handler`). Also
the transport that pushes this task's own `_Send`s to other tasks. Every handler validates what it receives: a malformed request ends with an error status, never a crash.
"""

import base64
import logging
import random
import os
import threading
import time

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
    if not wire.INT64_MIN <= v <= wire.INT64_MAX:  # (the runtime takes int64 step ids, handles and versions)
        raise errors.InvalidArgumentError(None, None, f"malformed request: {what or key} {v} is out of the int64 range")
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


class StreamSlots:
    """How many streams of calls a server serves at once (each holds one of its threads while it is open):
    beyond `limit`, a new stream is refused with RESOURCE_EXHAUSTED before it reads a message, and its
    client makes unary calls instead (`rpc.Channels.stream_call`)."""

    def __init__(self, limit):
        self.limit = limit
        self._open = 0
        self._lock = threading.Lock()

    def take(self):
        with self._lock:
            if self._open >= self.limit:
                return False
            self._open += 1
            return True

    def give_back(self):
        with self._lock:
            self._open -= 1


def stream_handler(methods, slots):
    """The handler of a service's stream of calls (`rpc.STREAM`, `rpc.Channels.stream_call`), one call at a
    time: each message a request whose header names its method ("method", a key of `methods`, whose values
    take (header, payload) and return the reply's bytes), answered by that method's reply; a failure ends the
    stream with its status, as it ends a unary call. `slots` (a StreamSlots) bounds the open streams."""

    def calls(request_iterator, context):
        if not slots.take():
            context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, f"{rpc.STREAMS_FULL}: this task serves {slots.limit}")
        try:
            for request in request_iterator:
                header = {}
                try:
                    header, payload = wire.decode(request)
                    name = header.get("method")
                    fn = methods.get(name) if isinstance(name, str) else None
                    if fn is None:
                        raise errors.InvalidArgumentError(
                            None, None, f"malformed stream message: unknown method {name!r}"
                        )
                    reply = fn(header, payload)
                except errors.OpError as e:
                    rpc.abort(context, e)
                except Exception as e:  # noqa: BLE001 - a bug must be a status, not a dead server thread
                    _log.exception("internal error in a streamed %s", header.get("method"))
                    context.abort(grpc.StatusCode.INTERNAL, f"{type(e).__name__}: {e}")
                yield reply
        finally:
            slots.give_back()

    return grpc.stream_stream_rpc_method_handler(calls)


class WorkerService:
    """The worker side of a task: `env` is its `_pywrap_tensorweave.WorkerEnv`."""

    def __init__(self, env, task_name, transport=None):
        self.env = env
        self.task_name = task_name
        self.transport = transport  # this task's Transport (holds the values a RunGraph sends to its caller)
        self._lock = threading.Lock()
        # Registered graphs (internal handles) that receive nothing from other tasks and have no op that may wait
        # for another step: their steps cannot wait on the task that runs them, so what they send it can wait
        # for the reply.
        self._self_contained = set()
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

    def handlers(self, slots):
        unary = {
            "GetStatus": self.get_status,
            "RegisterGraph": self.register_graph,
            "RunGraph": self.run_graph,
            "DeregisterGraph": self.deregister_graph,
            "CleanupStep": self.cleanup_step,
            "AbortStep": self.abort_step,
            "Reset": self.reset,
            "PushTensor": self.push_tensor,
            "PushTensors": self.push_tensors,
        }
        methods = {name: handler(fn) for name, fn in unary.items()}
        methods["PushTensorStream"] = grpc.stream_unary_rpc_method_handler(self.push_tensor_stream)
        methods[rpc.STREAM] = stream_handler(unary, slots)
        return grpc.method_handlers_generic_handler(rpc.WORKER, methods)

    # --- handlers ---------------------------------------------------------------
    def get_status(self, header, payload):
        devices = [list(d) for d in self.env.device_attributes()]
        return wire.encode({"task": self.task_name, "devices": devices})

    def register_graph(self, header, payload):
        data = bytes(payload)
        handle = self.env.register_graph(data)
        if not any(waits_on_others(data, self.task_name)):
            with self._lock:
                self._self_contained.add(handle)
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
        reply_to = header.get("reply_to")
        if reply_to is not None and not isinstance(reply_to, str):
            raise errors.InvalidArgumentError(None, None, f"malformed request: reply_to {reply_to!r}")
        first = header.get("first", False)
        if not isinstance(first, bool) or (first and trace):
            raise errors.InvalidArgumentError(None, None, f"malformed request: first {first!r} (traced: {trace})")
        values = wire.decode_tensors(header, payload)
        if len(values) != len(feed_names):
            raise errors.InvalidArgumentError(
                None, None, f"malformed request: {len(feed_names)} feed names and {len(values)} feed values"
            )
        # What this step sends to the caller's task goes back with the reply (not while the caller waits for
        # the pushes to be acknowledged, nor when this graph waits for values from other tasks).
        self_contained = (
            reply_to is not None
            and not wait_for_sends
            and handle & 0xFFFFFFFF in self._self_contained
            and handle >> 32 == self._instance
        )
        if first:
            # The caller runs nothing of the step before this reply, which is binary (distributed/reply_wire.h):
            # the runtime keeps what a graph that cannot wait on the caller sends it for the reply, however
            # long the call runs (no push, no Python call per value).
            return self.env.run_graph_reply(
                self._internal(handle),
                step_id,
                dict(zip(feed_names, values)),
                fetches,
                timeout_ms,
                reply_to if self_contained else "",
                wait_for_sends,
            )
        hold = self_contained and self.transport is not None
        if hold:
            self.transport.hold(step_id, reply_to)
        try:
            out = self.run_local(
                handle, step_id, dict(zip(feed_names, values)), fetches, timeout_ms, wait_for_sends, trace
            )
        except BaseException:
            if hold:
                self.transport.release(step_id)
            raise
        stats = None
        if trace:
            out, stats = out
        return self._reply(out, self.transport.take(step_id) if hold else None, stats)

    @staticmethod
    def _reply(out, sent, stats):
        """A RunGraph reply: the fetched values `out`, then the values `sent` [(step_id, key, array, is_dead)]
        that it carries to the caller (None: it carries none), and the serialized StepStats when traced."""
        reply = {}
        if stats is not None:
            reply["step_stats"] = base64.b64encode(stats).decode("ascii")
        tensors = [_as_array(v) for v in out]
        if sent is not None:
            entries, pushed = wire.encode_pushes(sent)
            reply["pushes"] = entries
            reply["outputs"] = len(tensors)
            tensors.extend(pushed)
        return wire.encode_tensors(reply, tensors)

    def deregister_graph(self, header, payload):
        handle = self._internal(_int(header, "handle", "graph handle"))
        self.env.deregister_graph(handle)
        with self._lock:
            self._self_contained.discard(handle)
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

    def push_tensors(self, header, payload):
        """A batch of pushed values (of one or more steps): every entry is checked before any is delivered."""
        tensors = wire.decode_tensors(header, payload)
        items = wire.decode_pushes(header.get("pushes"), tensors, header.get("tensors", []))
        self.deliver_all(items)
        return wire.encode({})

    def deliver_all(self, items):
        """Delivers [(step_id, key, array, is_dead, dtype enum)] into this task's rendezvous; the first error is
        raised after the others were delivered (their steps go on; the failed one's sender aborts it)."""
        first = None
        for step_id, key, value, is_dead, dtype in items:
            try:
                self.env.deliver(step_id, key, value, dtype, list(value.shape), is_dead)
            except errors.OpError as e:
                first = first or e
        if first is not None:
            raise first

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


# Ops whose kernels may wait for something another step (or another task's part of this step) does: a queue's
# enqueue (full) and dequeue (empty), an accumulator's take, a reader's read (from a queue), a Python function.
BLOCKING_OPS = frozenset(
    {
        "QueueEnqueueV2",
        "QueueEnqueueManyV2",
        "QueueDequeueV2",
        "QueueDequeueManyV2",
        "QueueDequeueUpToV2",
        "AccumulatorTakeGradient",
        "SparseAccumulatorTakeGradient",
        "ReaderReadV2",
        "ReaderReadUpToV2",
        "PyFunc",
        "PyFuncStateless",
        "EagerPyFunc",
    }
)


def waits_on_others(graph_def, task_name):
    """(receives, blocks) of a task's serialized GraphDef: whether it has a _Recv of a value another task than
    `task_name` sends, and whether it has an op that may wait for other steps (BLOCKING_OPS)."""
    from tensorweave._src.framework import graph_pb2

    g = graph_pb2.GraphDef()
    g.ParseFromString(graph_def)
    prefix = task_name + "/"
    receives = blocks = False
    for node in g.node:
        if node.op == "_Recv":
            src = node.attr["send_device"].s.decode(errors="replace")
            receives = receives or not src.startswith(prefix)
        blocks = blocks or node.op in BLOCKING_OPS
    return receives, blocks


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


class _Hold:
    """The values a RunGraph's `_Send`s address to the task that called it, held for its reply."""

    __slots__ = ("deadline", "items", "task")

    def __init__(self, task, deadline):
        self.task = task
        self.deadline = deadline
        self.items = []  # [(step_id, key, array, is_dead, done)]


class Transport:
    """Pushes the tensors this task's `_Send`s address to other tasks (called by the C++ runtime from its
    executor threads: it only queues the value; `done(code, message)` runs when its push ends).

    A step's values for one destination task travel together: values queued while a push to that task waits
    for a sender thread join it, so one PushTensors call carries them all (a control edge as a flag, with no
    payload); a tensor over `rpc.CHUNK_BYTES` is streamed alone (PushTensorStream). The values a RunGraph
    sends to the task that called it are held (`hold`) and go back with its reply (`take`), no push at all,
    unless the call is still running `hold_ms` later (default 5, TW_REPLY_HOLD_MS: a long computation after
    the send): then they are pushed. Only graphs that cannot wait on the caller's task hold (no value from
    another task, no op of BLOCKING_OPS)."""

    def __init__(self, channels, resolve, hold_ms=None):
        self._channels = channels
        self._resolve = resolve  # "/job:j/replica:0/task:i" -> address
        self._threads = rpc.Threads("tw-send")
        self._lock = threading.Lock()
        self._queues = {}  # address -> [(dst_task, step_id, key, array, is_dead, done)] not yet taken
        self._scheduled = set()  # addresses with a sender scheduled that has not taken its queue yet
        self._holds = {}  # step id -> _Hold
        self._hold_s = (float(os.environ.get("TW_REPLY_HOLD_MS", "5")) if hold_ms is None else hold_ms) / 1000.0
        self._timer = None
        self._timer_idle = False
        self._timer_cv = threading.Condition(self._lock)

    def __call__(self, dst_task, step_id, key, array, is_dead, done):
        with self._lock:
            hold = self._holds.get(step_id)
            if hold is not None and hold.task == dst_task:
                hold.items.append((step_id, key, array, is_dead, done))
                return
        self._push(dst_task, [(step_id, key, array, is_dead, done)])

    # --- values held for a RunGraph reply ----------------------------------------------------------------
    def hold(self, step_id, task):
        """Holds the values step `step_id` sends to `task` (until `take`, or `hold_ms`)."""
        with self._lock:
            self._holds[step_id] = _Hold(task, time.monotonic() + self._hold_s)
            if self._timer is None:
                self._timer = threading.Thread(target=self._expire, name="tw-hold", daemon=True)
                self._timer.start()
            elif self._timer_idle:  # (otherwise it wakes at an earlier deadline and sees this one then)
                self._timer_idle = False
                self._timer_cv.notify()

    def take(self, step_id):
        """The values held for step `step_id`'s reply [(step_id, key, array, is_dead)]; each counts as
        delivered (the reply carries it). Later sends of the step are pushed."""
        with self._lock:
            hold = self._holds.pop(step_id, None)
        if hold is None:
            return []
        for *_, done in hold.items:
            done(0, "")
        return [item[:4] for item in hold.items]

    def release(self, step_id):
        """Pushes what is held for step `step_id` (its RunGraph failed: no reply will carry them)."""
        with self._lock:
            hold = self._holds.pop(step_id, None)
        if hold is not None and hold.items:
            self._push(hold.task, hold.items)

    def _expire(self):
        with self._lock:
            while True:
                now = time.monotonic()
                due = [s for s, h in self._holds.items() if h.deadline <= now]
                expired = [(self._holds.pop(s)) for s in due]
                if expired:
                    self._lock.release()
                    try:
                        for hold in expired:
                            if hold.items:
                                self._push(hold.task, hold.items)
                    finally:
                        self._lock.acquire()
                    continue
                nxt = min((h.deadline for h in self._holds.values()), default=None)
                self._timer_idle = nxt is None
                self._timer_cv.wait(None if nxt is None else max(0.0, nxt - now))

    # --- pushes --------------------------------------------------------------------------------------------
    def _push(self, dst_task, items):
        try:
            address = self._resolve(dst_task)
        except errors.OpError as e:
            for *_, done in items:
                done(e.error_code, e.message)
            return
        small = []
        for item in items:
            array = item[2]
            if array.dtype != object and array.nbytes > rpc.CHUNK_BYTES:
                self._threads.submit(lambda item=item: self._stream(dst_task, address, item))
            else:
                small.append((dst_task,) + item)
        if not small:
            return
        with self._lock:
            self._queues.setdefault(address, []).extend(small)
            if address in self._scheduled:
                return  # the sender scheduled takes these too
            self._scheduled.add(address)
        self._threads.submit(lambda: self._send_queued(address))

    def _send_queued(self, address):
        with self._lock:
            self._scheduled.discard(address)
            items = self._queues.pop(address, [])
        if not items:
            return
        try:
            entries, tensors = wire.encode_pushes([item[1:5] for item in items])
            request = wire.encode_tensors({"method": "PushTensors", "pushes": entries}, tensors)
            timeout = rpc.CONTROL_TIMEOUT + sum(t.nbytes for t in tensors) / 20e6
        except errors.OpError as e:
            self._failed(address, items, e.error_code, e.message)
            return
        except Exception as e:  # noqa: BLE001
            self._failed(address, items, errors.INTERNAL, f"pushing to {items[0][0]}: {type(e).__name__}: {e}")
            return
        self._call(
            address,
            items,
            lambda what: self._channels.stream_call(address, rpc.WORKER, "PushTensors", request, timeout, what),
        )

    def _stream(self, dst_task, address, item):
        step_id, key, array, is_dead, _ = item
        try:
            meta, buffers = wire.tensor_parts(array)
            header = {"step_id": step_id, "key": key, "is_dead": bool(is_dead), "tensors": [meta]}
            method = self._channels.method(address, rpc.WORKER, "PushTensorStream", kind="stream_unary")
            request = _chunks(header, buffers[0], rpc.CHUNK_BYTES)
        except errors.OpError as e:
            self._failed(address, [(dst_task,) + item], e.error_code, e.message)
            return
        timeout = rpc.CONTROL_TIMEOUT + meta["nbytes"] / 20e6
        self._call(
            address,
            [(dst_task,) + item],
            lambda what: method(request, timeout=timeout, metadata=self._channels.metadata),
        )

    def _call(self, address, items, send):
        """Runs `send(what)` (the call that pushes `items`; `what` names them for its error) and reports its
        end to each item's `done`."""
        _, step_id, key = items[0][:3]
        more = f" and {len(items) - 1} more" if len(items) > 1 else ""
        what = f"sending {key}{more} of step {step_id} to {items[0][0]} at {address}"
        try:
            send(what)
        except (grpc.RpcError, errors.OpError) as e:
            err = e if isinstance(e, errors.OpError) else rpc.error_from_rpc(e, what)
            self._failed(address, items, err.error_code, err.message)
            return
        except Exception as e:  # noqa: BLE001
            self._failed(address, items, errors.INTERNAL, f"pushing to {items[0][0]}: {type(e).__name__}: {e}")
            return
        for *_, done in items:
            done(0, "")

    def _failed(self, address, items, code, message):
        for *_, done in items:
            done(code, message)
        # The receiving task's steps wait for these values: abort them there with the reason (this task's
        # RunGraph may have ended already, not waiting for its pushes). Best effort: it may be down.
        for step_id in dict.fromkeys(item[1] for item in items):
            abort = wire.encode({"step_id": step_id, "code": code, "message": message})
            try:
                self._channels.call(address, rpc.WORKER, "AbortStep", abort)
            except errors.OpError:
                pass


def _chunks(header, data, size):
    view = memoryview(data).cast("B")
    yield wire.encode(header, [view[:size]])
    for i in range(size, len(view), size):
        yield bytes(view[i : i + size])

"""grpcio plumbing shared by the services and their clients: method names, channels (one per address and
security settings, cached), calls with deadlines, persistent streams of calls (a step's RunGraph, RunStep and
pushes: one message each way instead of a gRPC call, about half its latency on loopback), and the mapping of
gRPC statuses to tensorweave's error classes (gRPC's status codes are TensorFlow's error codes)."""

import os
import queue
import threading
import time

import grpc

from tensorweave._src.framework import errors

WORKER = "tensorweave.WorkerService"
MASTER = "tensorweave.MasterService"
# Tensors above this size are pushed in chunks of this size (a client-streaming call): gRPC's default largest
# message. (1 MB chunks made a step that pushes 1-4 MB tensors ~10% slower: a stream per tensor, and one more copy
# to assemble it.)
CHUNK_BYTES = int(os.environ.get("TW_CHUNK_BYTES", str(4 << 20)))
# The largest message a task sends or accepts (a tensor fed or fetched in one RunStep/RunGraph travels whole).
MAX_MESSAGE_BYTES = int(os.environ.get("TW_MAX_MESSAGE_BYTES", str((1 << 31) - 1)))
# Deadlines (seconds): control calls, and steps when neither RunOptions nor the config gives one.
CONTROL_TIMEOUT = float(os.environ.get("TW_RPC_TIMEOUT", "10"))
STEP_TIMEOUT = float(os.environ.get("TW_STEP_TIMEOUT", "3600"))
CHANNEL_OPTIONS = [
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    ("grpc.keepalive_time_ms", 10000),
    ("grpc.keepalive_timeout_ms", 5000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 1000),
    ("grpc.enable_retries", 0),
]
SERVER_OPTIONS = [
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.min_ping_interval_without_data_ms", 5000),
    ("grpc.http2.max_ping_strikes", 0),
    ("grpc.so_reuseport", 0),
]
_STATUS_BY_CODE = {s.value[0]: s for s in grpc.StatusCode}
# The bidirectional streaming method of a service that carries its other methods' calls (`Channels.stream_call`),
# and how many such streams a process keeps open to one task (calls beyond are unary calls); an idle stream
# is closed after STREAM_IDLE_S seconds (each open stream holds one of its server's threads).
STREAM = "Calls"
MAX_STREAMS = int(os.environ.get("TW_MAX_STREAMS", "4"))
STREAM_IDLE_S = 30.0
# The start of the details of a task's refusal of one more stream (it serves its most: it read nothing).
STREAMS_FULL = "too many streams of calls"


def status_code(code):
    """The grpc.StatusCode of a TensorFlow error code."""
    return _STATUS_BY_CODE.get(code, grpc.StatusCode.UNKNOWN)


def abort(context, error):
    """Ends a handler's call with `error` (an OpError) as its status."""
    context.abort(status_code(error.error_code), error.message)


def error_from_rpc(e, what):
    """The tensorweave error of a failed call (`what` names the call and its peer)."""
    code = e.code() if hasattr(e, "code") else grpc.StatusCode.UNKNOWN
    details = e.details() if hasattr(e, "details") else str(e)
    value = code.value[0] if code is not None else errors.UNKNOWN
    if code == grpc.StatusCode.DEADLINE_EXCEEDED and not details.startswith("Deadline"):
        details = f"Deadline Exceeded: {details}"
    return errors.exception_type_from_error_code(value)(None, None, f"{what}: {details}")


class Channels:
    """Channels to the cluster's tasks, one per address, made on first use, with the security settings of
    this process; the callables of the methods."""

    def __init__(self, security):
        self._security = security
        self._lock = threading.Lock()
        self._channels = {}
        self._methods = {}
        self._in_flight = set()  # futures of `send`s
        self.metadata = security.metadata()
        self._idle = {}  # (address, service) -> [idle _Stream]
        self._open = {}  # (address, service) -> number of its open streams
        self._busy = set()  # streams in a call (the watchdog cancels one past its deadline)
        self._refused = {}  # (address, service) -> until when its task refuses new streams
        self._watch_cv = threading.Condition(self._lock)
        self._watch_at = 0.0  # when the watchdog wakes next (0: no watchdog yet)
        self._closed = False

    def channel(self, address):
        with self._lock:
            ch = self._channels.get(address)
            if ch is None:
                creds = self._security.channel_credentials()
                if creds is None:
                    ch = grpc.insecure_channel(address, options=CHANNEL_OPTIONS)
                else:
                    ch = grpc.secure_channel(address, creds, options=CHANNEL_OPTIONS)
                self._channels[address] = ch
            return ch

    def method(self, address, service, name, kind="unary_unary"):
        """The callable of a method (`kind`: the channel's factory of it, "unary_unary", "stream_unary",
        "stream_stream")."""
        key = (address, service, name)
        m = self._methods.get(key)
        if m is None:
            m = getattr(self.channel(address), kind)(f"/{service}/{name}")
            self._methods[key] = m
        return m

    def call(self, address, service, name, request, timeout=None):
        """One unary call, its reply's bytes; the tensorweave error of its failure."""
        m = self.method(address, service, name)
        try:
            return m(request, timeout=timeout or CONTROL_TIMEOUT, metadata=self.metadata)
        except grpc.RpcError as e:
            raise error_from_rpc(e, f"{name} on {address}") from None

    def stream_call(self, address, service, name, request, timeout, what):
        """A call of method `name` over a persistent stream to `address` (one message each way, without the
        cost of a gRPC call: a stream carries one call at a time, a new one is opened when none is idle, up to
        MAX_STREAMS, beyond which the call is a unary one). `request`'s header must name the method
        ("method": `name`). The deadline (`timeout` seconds) and the error of a failure (`what` names the call
        and its peer) are a unary call's: a stream that failed or timed out is closed and not used again."""
        key = (address, service)
        s = self._checkout(key)
        if s is None:
            return self._unary(address, service, name, request, timeout, what)
        s.deadline = time.monotonic() + timeout
        if s.deadline < self._watch_at:
            with self._lock:
                self._watch_cv.notify()
        try:
            reply = s.call(request)
        except grpc.RpcError as e:
            self._discard(key, s)
            if e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and e.details().startswith(STREAMS_FULL):
                # The task serves as many streams as it will (it read nothing): unary calls for a while.
                with self._lock:
                    self._refused[key] = time.monotonic() + STREAM_IDLE_S
                return self._unary(address, service, name, request, timeout, what)
            if s.expired:
                raise errors.DeadlineExceededError(None, None, f"{what}: Deadline Exceeded") from None
            raise error_from_rpc(e, what) from None
        except BaseException:
            self._discard(key, s)
            raise
        s.deadline = None
        s.idle_since = time.monotonic()
        with self._lock:
            self._busy.discard(s)
            if self._closed:
                s.close()
            else:
                self._idle.setdefault(key, []).append(s)
        return reply

    def _unary(self, address, service, name, request, timeout, what):
        try:
            return self.method(address, service, name)(request, timeout=timeout, metadata=self.metadata)
        except grpc.RpcError as e:
            raise error_from_rpc(e, what) from None

    def _checkout(self, key):
        with self._lock:
            idle = self._idle.get(key)
            while idle:
                s = idle.pop()
                if s.alive():
                    self._busy.add(s)
                    return s
                self._open[key] -= 1  # ended (its task went away): a fresh one next
            if self._closed or self._open.get(key, 0) >= MAX_STREAMS:
                return None
            if key in self._refused:
                if self._refused[key] > time.monotonic():
                    return None
                del self._refused[key]
            self._open[key] = self._open.get(key, 0) + 1
            if self._watch_at == 0.0:
                self._watch_at = time.monotonic() + 1.0
                threading.Thread(target=self._watch, name="tw-stream-watch", daemon=True).start()
        try:
            m = self.method(*key, STREAM, kind="stream_stream")
            s = _Stream(m, self.metadata)
        except BaseException:
            with self._lock:
                self._open[key] -= 1
            raise
        with self._lock:
            self._busy.add(s)
        return s

    def _discard(self, key, s):
        s.close()
        with self._lock:
            self._busy.discard(s)
            self._open[key] -= 1

    def _watch(self):
        """Cancels the streams whose call is past its deadline; closes those idle for STREAM_IDLE_S."""
        with self._lock:
            while not self._closed:
                now = time.monotonic()
                at = now + 1.0
                for s in self._busy:
                    d = s.deadline
                    if d is not None and d <= now:
                        s.expired = True
                        s.close()
                    elif d is not None:
                        at = min(at, d)
                for key, idle in self._idle.items():
                    stale = [s for s in idle if now - s.idle_since > STREAM_IDLE_S]
                    for s in stale:
                        idle.remove(s)
                        self._open[key] -= 1
                        s.close()
                self._watch_at = at
                self._watch_cv.wait(at - now)

    def future(self, address, service, name, request, timeout=None):
        m = self.method(address, service, name)
        return m.future(request, timeout=timeout or CONTROL_TIMEOUT, metadata=self.metadata)

    def send(self, address, service, name, request, timeout=None):
        """A call whose reply nobody waits for (best effort: an abort, a deregistration). Its future is kept
        until it ends: grpcio cancels the call of a future that is garbage-collected before that."""
        f = self.future(address, service, name, request, timeout)
        with self._lock:
            self._in_flight.add(f)

        def ended(f):
            with self._lock:
                self._in_flight.discard(f)

        f.add_done_callback(ended)

    def drop(self, address):
        """Forgets the channel of `address` (a task that restarted gets a fresh one)."""
        with self._lock:
            ch = self._channels.pop(address, None)
            for key in [k for k in self._methods if k[0] == address]:
                del self._methods[key]
            for key in [k for k in self._idle if k[0] == address]:
                for s in self._idle.pop(key):
                    self._open[key] -= 1
                    s.close()
        if ch is not None:
            ch.close()

    def close(self):
        with self._lock:
            self._closed = True
            channels, self._channels = list(self._channels.values()), {}
            self._methods = {}
            idle, self._idle = [s for streams in self._idle.values() for s in streams], {}
            self._watch_cv.notify()
        for s in idle:
            s.close()
        for ch in channels:
            ch.close()


class _Stream:
    """A persistent bidirectional stream of calls to a task (its service's STREAM method): one call at a time,
    each a request message answered by one reply message; a failed call ends the stream with its status."""

    __slots__ = ("_call", "_requests", "deadline", "expired", "idle_since")

    def __init__(self, method, metadata):
        self._requests = queue.SimpleQueue()
        self._call = method(iter(self._requests.get, None), metadata=metadata)
        self.deadline = None  # of the call in progress
        self.expired = False
        self.idle_since = 0.0

    def call(self, request):
        self._requests.put(request)
        try:
            return next(self._call)
        except StopIteration:
            raise _Ended() from None

    def alive(self):
        return not self._call.done()

    def close(self):
        self._requests.put(None)
        self._call.cancel()


class _Ended(grpc.RpcError):
    """A stream that its task ended without a status (it was shut down)."""

    def code(self):
        return grpc.StatusCode.UNAVAILABLE

    def details(self):
        return "the task closed the stream"


def result(future, what):
    """A future's reply; its failure as a tensorweave error."""
    try:
        return future.result()
    except grpc.RpcError as e:
        raise error_from_rpc(e, what) from None


_SimpleQueue = queue.SimpleQueue


class Threads:
    """Runs calls on long-lived daemon threads: an idle one, or a new one when none is idle (never a queue, so
    calls that wait on one another cannot deadlock). grpcio's `future()` starts a thread per call on a channel
    with no call in flight; a blocking call on one of these threads does not."""

    _MAX_IDLE = 16

    def __init__(self, name):
        self._name = name
        self._lock = threading.Lock()
        self._idle = []

    def submit(self, fn):
        """Runs `fn()` on another thread; returns an object whose `result()` waits for its value (or raises
        its exception)."""
        call = _Call(fn)
        with self._lock:
            worker = self._idle.pop() if self._idle else None
        if worker is None:
            worker = _SimpleQueue()
            threading.Thread(target=self._serve, args=(worker, call), name=self._name, daemon=True).start()
        else:
            worker.put(call)
        return call

    def _serve(self, queue, call):
        while True:
            call.run()
            with self._lock:
                if len(self._idle) >= self._MAX_IDLE:
                    return
                self._idle.append(queue)
            call = queue.get()


class _Call:
    __slots__ = ("_done", "_error", "_fn", "_value")

    def __init__(self, fn):
        self._fn = fn
        self._done = threading.Event()
        self._value = self._error = None

    def run(self):
        try:
            self._value = self._fn()
        except BaseException as e:  # noqa: BLE001 - handed to the waiter
            self._error = e
        self._done.set()

    def result(self):
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._value

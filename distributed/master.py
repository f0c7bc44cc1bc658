"""The Master service of a task: remote sessions run here. A session holds the client's GraphDef (grown by
ExtendSession); each step signature (feeds, fetches, targets, graph version) is placed and partitioned once
for the cluster's devices (`partition_for_cluster`), each task's part registered on that task once, and a
step is then one RunGraph per task, all in parallel under one fresh step id (this task's own part called
directly, the others as blocking calls on long-lived threads; no RunGraph waits for its pushes to be
acknowledged: the receivers wait for the values). When every other task's part needs nothing from another
task, those parts run first and their (binary) replies bring what they send this task, which then runs its
own part: no push, and with one other task no thread hand-off. A failure anywhere aborts the step on every task and is
reported with its own error class (a task that is down: UnavailableError). A client in this process (a
`Session(server.target)` of this task's server) calls the service directly (`call_direct`,
`run_step_values`), without gRPC, as TF's LocalMaster."""

import base64
import logging
import os
import random
import threading
import grpc

from tensorweave import _pywrap_tensorweave as _pywrap
from tensorweave._src.framework import errors
from tensorweave._src.framework import step_stats_pb2
from tensorweave.distributed import rpc
from tensorweave.distributed import wire
from tensorweave.distributed import worker_service
from tensorweave.distributed.worker_service import _as_array
from tensorweave.distributed.worker_service import _int
from tensorweave.distributed.worker_service import _names
from tensorweave.distributed.worker_service import handler

_log = logging.getLogger("tensorweave.distributed")
# How long a master waits for the tasks of its cluster to come up (they may start in any order).
_CONNECT_TIMEOUT = float(os.environ.get("TW_CONNECT_TIMEOUT", "60"))


def task_of(device):
    """("job", index) of a device or task name "/job:j/replica:0/task:i[/device:...]"."""
    job = task = None
    for part in device.strip("/").split("/"):
        if part.startswith("job:"):
            job = part[4:]
        elif part.startswith("task:"):
            task = int(part[5:])
    if job is None or task is None:
        raise errors.InvalidArgumentError(None, None, f"{device!r} names no task")
    return job, task


class _Plan:
    """One step signature's registered parts: [(address, task name, graph handle, feeds, fetches)]."""

    def __init__(self, parts, fetch_owner, graph_defs=(), own_task=None):
        self.parts = parts
        self.fetch_owner = fetch_owner  # fetch name -> (part index, position in that part's fetches)
        self.graph_defs = graph_defs  # the serialized GraphDef each part's task registered
        # ([remote parts], own part) when the step has a part on this task and every other part needs nothing
        # from another task nor waits on other steps: those run first (one in the calling thread, the others on
        # threads), their replies bring what they send here, then this task's part runs in the calling thread
        # (with one other task: no thread hand-off at all).
        self.remote_first = None
        own = [i for i, p in enumerate(parts) if p[1] == own_task]
        if len(parts) >= 2 and own:
            remotes = [i for i in range(len(parts)) if i != own[0]]
            if not any(any(worker_service.waits_on_others(graph_defs[i], parts[i][1])) for i in remotes):
                self.remote_first = (remotes, own[0])
        # The JSON of each remote part's RunGraph request header without its step id and tensors, by (part,
        # timeout, trace): made once, not at every step.
        self.headers = {}


class MasterSession:
    def __init__(self, master, handle, graph_def, version, config):
        self.master = master
        self.handle = handle
        self.graph_def = graph_def
        self.version = version
        self.config = config
        self.lock = threading.Lock()
        self.plans = {}
        self.running = {}  # step id -> plan of the steps in progress (closing the session cancels them)
        self.closed = False

    def extend(self, graph_def, version):
        with self.lock:
            if version < self.version:
                raise errors.FailedPreconditionError(
                    None, None, f"graph version {version} is older than the session's {self.version}"
                )
            grew = version != self.version
            self.graph_def, self.version = graph_def, version
        if grew:  # the old version's parts are not run again: free them on their tasks
            self.forget_plans()

    def plan(self, feeds, fetches, targets):
        key = (self.version, tuple(feeds), tuple(fetches), tuple(targets))
        with self.lock:
            plan = self.plans.get(key)
            if plan is not None:
                return plan
            graph_def, version = self.graph_def, self.version
            plan = self.master._make_plan(graph_def, feeds, fetches, targets, self.config)
            self.plans[(version,) + key[1:]] = plan
            return plan

    def forget_plans(self):
        with self.lock:
            plans, self.plans = list(self.plans.values()), {}
        if self.master.server._stopped.is_set():  # its channels are closed (a client of this process closing)
            return
        for plan in plans:
            for address, _, handle, _, _ in plan.parts:
                try:
                    self.master.channels.send(address, rpc.WORKER, "DeregisterGraph", wire.encode({"handle": handle}))
                except Exception:  # noqa: BLE001, S110 - best effort: the task may be gone
                    pass


class MasterService:
    """`server` gives the cluster, this task's name and the channels to the other tasks."""

    def __init__(self, server):
        self.server = server
        self.channels = server.channels
        # Reentrant: a client of this process calls in directly, and a garbage collection under the lock may
        # close a dropped session (Session.__del__ -> CloseSession) in the same thread.
        self._lock = threading.RLock()
        self._sessions = {}
        self._next = 1
        self._by_task = {}  # task -> its devices [(name, type, memory, incarnation, ...)], on first need
        self._discovered = False
        self._threads = rpc.Threads("tw-master")

    def call_direct(self, name, header, payload):
        """A master call from a client of this process (no gRPC): the reply's bytes, or the error raised."""
        fn = {
            "CreateSession": self.create_session,
            "ExtendSession": self.extend_session,
            "CloseSession": self.close_session,
            "ListDevices": self.list_devices,
            "Reset": self.reset,
        }[name]
        return fn(header, memoryview(payload))

    def handlers(self, slots):
        unary = {
            "CreateSession": self.create_session,
            "ExtendSession": self.extend_session,
            "RunStep": self.run_step,
            "CloseSession": self.close_session,
            "ListDevices": self.list_devices,
            "Reset": self.reset,
        }
        methods = {name: handler(fn) for name, fn in unary.items()}
        methods[rpc.STREAM] = worker_service.stream_handler(unary, slots)
        return grpc.method_handlers_generic_handler(rpc.MASTER, methods)

    # --- cluster ----------------------------------------------------------------
    def _task_addresses(self):
        cluster = self.server.cluster
        return [(f"/job:{job}/replica:0/task:{i}", address) for job, i, address in cluster.tasks()]

    def devices(self, refresh=False):
        """Every device of the cluster, in task order. The first time, it waits (up to TW_CONNECT_TIMEOUT) for
        tasks that are not up yet (a cluster's tasks start in any order); later, only the tasks a failed step
        pointed at are asked again, and one that is down is an UnavailableError at once."""
        tasks = self._task_addresses()
        with self._lock:
            first = not self._discovered
            if refresh:
                self._by_task = {}
            missing = [(t, a) for t, a in tasks if t not in self._by_task]
        if missing:
            timeout = _CONNECT_TIMEOUT if first else rpc.CONTROL_TIMEOUT
            calls = []
            for task, address in missing:
                m = self.channels.method(address, rpc.WORKER, "GetStatus")
                f = m.future(wire.encode({}), timeout=timeout, metadata=self.channels.metadata, wait_for_ready=first)
                calls.append((task, address, f))
            found = {}
            for task, address, f in calls:
                try:
                    header, _ = wire.decode(f.result())
                except grpc.RpcError as e:
                    err = rpc.error_from_rpc(e, f"GetStatus of {task} at {address}")
                    if isinstance(err, errors.DeadlineExceededError):
                        err = errors.UnavailableError(
                            None, None, f"{task} at {address} did not answer within {timeout:.0f} s: {err.message}"
                        )
                    raise err from None
                found[task] = [tuple(d) for d in header["devices"]]
            with self._lock:
                self._by_task.update(found)
                self._discovered = True
        with self._lock:
            return [d for t, _ in tasks for d in self._by_task.get(t, [])]

    def forget_task(self, task):
        """A task failed a step: ask it for its devices again (it may have restarted with new ones)."""
        with self._lock:
            self._by_task.pop(task, None)

    def address_of(self, task):
        job, index = task_of(task)
        try:
            return self.server.cluster.task_address(job, index)
        except ValueError:
            raise errors.InvalidArgumentError(None, None, f"{task} is not a task of the cluster") from None

    def _make_plan(self, graph_def, feeds, fetches, targets, config):
        devices = self.devices()
        parts_by_task = _pywrap.partition_for_cluster(
            graph_def,
            [(d[0], d[1], int(d[3])) for d in devices],
            feeds,
            fetches,
            targets,
            self.server.task_name,
            bool(config.get("allow_soft_placement", False)),
        )
        registered = []
        calls = []
        graph_defs = []
        for task, (gdef, t_feeds, t_fetches, _t_targets) in sorted(parts_by_task.items()):
            graph_defs.append(bytes(gdef))
            address = self.address_of(task)
            calls.append(
                (
                    task,
                    address,
                    list(t_feeds),
                    list(t_fetches),
                    self.channels.future(address, rpc.WORKER, "RegisterGraph", wire.encode({}, [gdef])),
                )
            )
        for task, address, t_feeds, t_fetches, f in calls:
            try:
                header, _ = wire.decode(rpc.result(f, f"RegisterGraph on {task} at {address}"))
            except (errors.UnavailableError, errors.FailedPreconditionError):
                self.forget_task(task)  # down, or restarted (another incarnation): ask it again next time
                raise
            registered.append((address, task, header["handle"], t_feeds, t_fetches))
        fetch_owner = {}
        for i, part in enumerate(registered):
            for j, name in enumerate(part[4]):
                fetch_owner.setdefault(name, (i, j))
        missing = [f for f in fetches if f not in fetch_owner and f not in feeds]  # a fed fetch: the fed value
        if missing:
            raise errors.InternalError(None, None, f"no task fetches {missing}")
        return _Plan(registered, fetch_owner, graph_defs, self.server.task_name)

    # --- handlers ---------------------------------------------------------------
    def _session(self, header):
        if self.server._stopped.is_set():  # (a client of this process calls a stopped server's master directly)
            raise errors.UnavailableError(None, None, f"the server of {self.server.task_name} was stopped")
        handle = header.get("session")
        with self._lock:
            s = self._sessions.get(handle)
        if s is None:
            raise errors.AbortedError(
                None, None, f"session {handle!r} is not open on this master (it was closed, or the server restarted)"
            )
        return s

    def create_session(self, header, payload):
        config = header.get("config") or {}
        if not isinstance(config, dict):
            raise errors.InvalidArgumentError(None, None, "malformed CreateSession: config is not an object")
        version = _int(header, "version", "graph version")
        with self._lock:
            handle = f"{self.server.task_name}/session:{self._next}:{random.getrandbits(32):08x}"
            self._next += 1
        session = MasterSession(self, handle, bytes(payload), version, config)  # (no lock: it may collect garbage)
        with self._lock:
            self._sessions[handle] = session
        return wire.encode({"session": handle})

    def extend_session(self, header, payload):
        self._session(header).extend(bytes(payload), _int(header, "version", "graph version"))
        return wire.encode({})

    def close_session(self, header, payload):
        with self._lock:
            s = self._sessions.pop(header.get("session"), None)
        if s is not None:
            # Its steps in progress (one blocked in a dequeue, say) end with CancelledError, as a local
            # session's do when it is closed.
            with s.lock:
                s.closed = True
                running = list(s.running.items())
            for step_id, plan in running:
                err = errors.CancelledError(None, None, f"the session was closed while step {step_id} ran")
                self._abort_everywhere(plan, step_id, err)
            s.forget_plans()
        return wire.encode({})

    def list_devices(self, header, payload):
        return wire.encode({"devices": [list(d) for d in self.devices(refresh=True)]})

    def reset(self, header, payload):
        containers = _names(header, "containers")
        calls = [
            (task, address, self.channels.future(address, rpc.WORKER, "Reset", wire.encode({"containers": containers})))
            for task, address in self._task_addresses()
        ]
        for task, address, f in calls:
            rpc.result(f, f"Reset of {task} at {address}")
        with self._lock:
            self._sessions = {}  # their graphs' registrations went with the reset
        return wire.encode({})

    def run_step(self, header, payload):
        feeds = _names(header, "feeds")
        timeout_ms = header.get("timeout_ms", 0)
        if not isinstance(timeout_ms, int) or timeout_ms < 0:
            raise errors.InvalidArgumentError(None, None, f"malformed RunStep: timeout {timeout_ms!r}")
        values = wire.decode_tensors(header, payload)
        if len(values) != len(feeds):
            raise errors.InvalidArgumentError(
                None, None, f"malformed RunStep: {len(feeds)} feeds, {len(values)} values"
            )
        trace, partitions = header.get("trace", False), header.get("partition_graphs", False)
        if not isinstance(trace, bool) or not isinstance(partitions, bool):
            raise errors.InvalidArgumentError(None, None, "malformed RunStep: trace and partition_graphs are flags")
        metadata = {"trace": trace, "partition_graphs": partitions} if trace or partitions else None
        result = self.run_step_values(
            header.get("session"),
            feeds,
            _names(header, "fetches"),
            _names(header, "targets"),
            values,
            timeout_ms,
            metadata,
        )
        reply = {}
        if metadata is not None:
            reply["step_stats"] = base64.b64encode(metadata["step_stats"]).decode("ascii")
            reply["partition_graphs"] = [base64.b64encode(g).decode("ascii") for g in metadata["graphs"]]
        return wire.encode_tensors(reply, [_as_array(v) for v in result])

    def run_step_values(self, handle, feeds, fetches, targets, values, timeout_ms, metadata=None):
        """One step of session `handle`: the fetched values (arrays; those of this task's own part may view
        its tensors' memory). RunStep's work, also called directly by a client in this process. `metadata`
        ({"trace": bool, "partition_graphs": bool}) gets "step_stats" (a serialized StepStats: every task's
        devices, when traced) and "graphs" (the serialized GraphDef each task ran, when asked)."""
        session = self._session({"session": handle})
        feed_values = dict(zip(feeds, values))
        plan = session.plan(feeds, fetches, targets)
        trace = metadata is not None and metadata["trace"]
        outputs = self._run_plan(session, plan, feed_values, timeout_ms, trace)
        if metadata is not None:
            merged = step_stats_pb2.StepStats()
            for part in outputs:
                if trace:
                    merged.MergeFromString(part[1])
            metadata["step_stats"] = merged.SerializeToString()
            metadata["graphs"] = list(plan.graph_defs) if metadata["partition_graphs"] else []
            outputs = [part[0] for part in outputs] if trace else outputs
        result = []
        for name in fetches:
            owner = plan.fetch_owner.get(name)
            result.append(feed_values[name] if owner is None else outputs[owner[0]][owner[1]])
        return result

    def _run_plan(self, session, plan, feed_values, timeout_ms, trace=False):
        """One step: RunGraph on every task of the plan, in parallel, under one fresh step id: one part in this
        thread (this task's own part when it has one: no RPC), the others each a blocking call on a long-lived
        thread (no thread started per call); a failure aborts the step everywhere."""
        step_id = random.getrandbits(62) + 1
        with session.lock:
            if session.closed:
                raise errors.CancelledError(None, None, "the session was closed")
            session.running[step_id] = plan
        try:
            return self._run_plan_step(session, plan, feed_values, timeout_ms, trace, step_id)
        finally:
            with session.lock:
                session.running.pop(step_id, None)

    def _run_plan_step(self, session, plan, feed_values, timeout_ms, trace, step_id):
        deadline = timeout_ms / 1000.0 if timeout_ms else rpc.STEP_TIMEOUT
        own = self.server.task_name
        failures = []  # (part index, error), in the order they happened
        lock = threading.Lock()

        def failed(i, err):
            with lock:
                failures.append((i, err))
                first = len(failures) == 1
            if first:
                self._abort_everywhere(plan, step_id, err)

        def run_part(i, first=False):
            """`first`: the part runs before this task's, its reply binary (WorkerService.run_graph)."""
            address, task, handle, t_feeds, t_fetches = plan.parts[i]
            try:
                if task == own:
                    feeds = {n: feed_values[n] for n in t_feeds}
                    return self.server._worker.run_local(
                        handle, step_id, feeds, t_fetches, timeout_ms, wait_for_sends=False, trace=trace
                    )
                prefix = plan.headers.get((i, timeout_ms, trace, first))
                if prefix is None:
                    static = {
                        "method": "RunGraph",
                        "handle": handle,
                        "feeds": t_feeds,
                        "fetches": t_fetches,
                        "timeout_ms": timeout_ms,
                        "wait_for_sends": False,
                        "trace": trace,
                        "reply_to": own,
                        "first": first,
                    }
                    prefix = plan.headers.setdefault((i, timeout_ms, trace, first), wire.header_prefix(static))
                req = wire.encode_with_prefix(prefix, {"step_id": step_id}, [feed_values[n] for n in t_feeds])
                what = f"RunGraph on {task} at {address}"
                reply = self.channels.stream_call(address, rpc.WORKER, "RunGraph", req, deadline + 5.0, what)
                if first:  # (binary: what it sent this task is delivered here)
                    return self.server._worker.env.deliver_reply(step_id, reply)
                header, payload = wire.decode(reply)
                values = wire.decode_tensors(header, payload)
                if "pushes" in header:  # what that task's part sent to this one, carried by the reply
                    n = header.get("outputs")
                    if not isinstance(n, int) or not 0 <= n <= len(values):
                        raise errors.InvalidArgumentError(None, None, f"malformed RunGraph reply: outputs {n!r}")
                    metas = header["tensors"][n:]
                    pushed = wire.decode_pushes(header["pushes"], values[n:], metas, "RunGraph reply")
                    values = values[:n]
                    self.server._worker.deliver_all(pushed)
                return (values, base64.b64decode(header.get("step_stats", ""))) if trace else values
            except grpc.RpcError as e:
                failed(i, _tagged(rpc.error_from_rpc(e, f"RunGraph on {task} at {address}"), task))
            except errors.OpError as e:
                failed(i, e if task == own else _tagged(e, task))
            except Exception as e:  # noqa: BLE001
                failed(i, errors.InternalError(None, None, f"RunGraph on {task}: {type(e).__name__}: {e}"))
            return None

        n = len(plan.parts)
        outputs = [None] * n
        if plan.remote_first is not None:
            remotes, local = plan.remote_first
            first = not trace  # (a traced part's reply carries its StepStats: the JSON reply)
            others = [(i, self._threads.submit(lambda i=i: run_part(i, first))) for i in remotes[1:]]
            outputs[remotes[0]] = run_part(remotes[0], first)
            for i, call in others:
                outputs[i] = call.result()
            if not failures:
                outputs[local] = run_part(local)
        else:
            inline = next((i for i, part in enumerate(plan.parts) if part[1] == own), 0)
            others = [(i, self._threads.submit(lambda i=i: run_part(i))) for i in range(n) if i != inline]
            outputs[inline] = run_part(inline)
            for i, call in others:
                outputs[i] = call.result()
        if failures:
            err = _root_cause([e for _, e in failures])
            self._step_failed(session, err)
            raise err
        return outputs

    def _abort_everywhere(self, plan, step_id, err):
        msg = wire.encode({"step_id": step_id, "code": err.error_code, "message": err.message})
        for address, task, _, _, _ in plan.parts:
            if task == self.server.task_name:
                try:
                    self.server._worker.env.abort_step(step_id, err.error_code, err.message)
                except errors.OpError:
                    pass
                continue
            try:
                self.channels.send(address, rpc.WORKER, "AbortStep", msg, timeout=rpc.CONTROL_TIMEOUT)
            except Exception:  # noqa: BLE001, S110 - best effort
                pass

    def _step_failed(self, session, err):
        if isinstance(err, (errors.UnavailableError, errors.NotFoundError)):
            # A task may have restarted (its registered graphs are gone): register again next time.
            session.forget_plans()
            task = getattr(err, "_tw_task", None)
            if task is not None:
                self.forget_task(task)


def _tagged(err, task):
    err._tw_task = task  # the task whose call failed
    return err


def _root_cause(failures):
    """The most telling error of a failed step: a task's own failure rather than the aborts it caused."""
    for err in failures:
        if not isinstance(err, (errors.AbortedError, errors.CancelledError)):
            return err
    return failures[0]

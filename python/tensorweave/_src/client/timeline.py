"""Timeline: a traced step (`RunMetadata.step_stats`) as a trace in the Chrome Trace Event format, which
chrome://tracing and Perfetto (ui.perfetto.dev) load. The structure is TensorFlow's
`tensorflow.python.client.timeline`: a process per device for its ops ("<device> Compute") and one for its
tensors ("<device> Tensors"), an "X" event per node run, flow events ("s"/"t") from each tensor's producer
to its consumers, and with `show_memory` the tensors' lifetimes and a memory counter per allocator."""

import collections
import json
import re

__all__ = ["AllocationMaximum", "StepStatsAnalysis", "Timeline"]

AllocationMaximum = collections.namedtuple("AllocationMaximum", ("timestamp", "num_bytes", "tensors"))
AllocationMaximum.__doc__ = """The peak of one allocator: when, how many bytes, which tensors were live."""

StepStatsAnalysis = collections.namedtuple("StepStatsAnalysis", ("chrome_trace", "allocator_maximums"))
StepStatsAnalysis.__doc__ = """What `Timeline.analyze_step_stats` gives: the trace (`format_to_string()`)
and {allocator name: AllocationMaximum}."""

_LABEL = re.compile(r"(.*) = (.*)\((.*)\)")


class _ChromeTrace:
    """The events of one trace; `format_to_string` gives its JSON ({"traceEvents": [...]}), metadata first."""

    def __init__(self):
        self._metadata = []
        self._events = []
        self._flows = 0

    def new_flow_id(self):
        self._flows += 1
        return self._flows - 1

    def process(self, name, pid):
        self._metadata.append({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": name}})

    def event(self, ph, category, name, pid, tid, ts, **fields):
        event = {"ph": ph, "cat": category, "name": name, "pid": pid, "tid": tid, "ts": ts}
        event.update(fields)
        self._events.append(event)

    def format_to_string(self, pretty=False):
        """The trace as a JSON string (indented with `pretty`)."""
        trace = {"traceEvents": self._metadata + self._events}
        if pretty:
            return json.dumps(trace, indent=4, separators=(",", ": "))
        return json.dumps(trace, separators=(",", ":"))


class _Tensor:
    """One output of a node run: where and when it was made, its size, when it was last used."""

    __slots__ = ("allocator", "created", "flow_start", "last_use", "name", "num_bytes", "object_id", "pid")

    def __init__(self, name, object_id, pid, created, allocator, num_bytes, flow_start):
        self.name = name
        self.object_id = object_id
        self.pid = pid
        self.created = created
        self.last_use = created
        self.allocator = allocator
        self.num_bytes = num_bytes
        self.flow_start = flow_start  # (ts, pid, tid) where its producer ended


def _parse_label(label):
    """(node name, op, inputs) of a timeline label "name = Op(in, in:1, ^ctl)"."""
    match = _LABEL.match(label)
    if match is None:
        return "unknown", "unknown", []
    name, op, inputs = match.groups()
    return name, op, inputs.split(", ") if inputs else []


def _lanes(node_stats):
    """Per node run, a lane (the trace's tid) such that runs in one lane do not overlap, as TF's Timeline
    assigns them (its traces show lanes, not OS threads; NodeExecStats.thread_id keeps the thread)."""
    ends = [0]
    lanes = []
    for ns in node_stats:
        end = ns.all_start_micros + ns.all_end_rel_micros
        for lane, lane_end in enumerate(ends):
            if ns.all_start_micros > lane_end:
                ends[lane] = end
                break
        else:
            lane = len(ends)
            ends.append(end)
        lanes.append(lane)
    return lanes


class Timeline:
    """A traced step as a Chrome trace, as TensorFlow's `timeline.Timeline`.

    Args:
      step_stats: `RunMetadata.step_stats` of a step run with `RunOptions(trace_level=FULL_TRACE)`
        (tensorweave's or TensorFlow's StepStats).
      graph: the graph that ran (optional, unused: the labels carry the ops and inputs).

    Example:
      >>> import json
      >>> import tensorweave as tw
      >>> from tensorweave.python.client import timeline
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.placeholder(tw.float32, [None], name="x")
      ...     y = tw.square(x, name="y")
      ...     metadata = tw.RunMetadata()
      ...     options = tw.RunOptions(trace_level=tw.RunOptions.FULL_TRACE)
      ...     _ = sess.run(y, {x: [1.0, 2.0]}, options=options, run_metadata=metadata)
      >>> trace = json.loads(timeline.Timeline(metadata.step_stats).generate_chrome_trace_format())
      >>> [(e["name"], e["args"]) for e in trace["traceEvents"] if e["ph"] == "X"]
      [('Square', {'name': 'y', 'op': 'Square', 'input0': 'x'})]
    """

    def __init__(self, step_stats, graph=None):
        self._step_stats = step_stats
        self._graph = graph

    def analyze_step_stats(self, show_dataflow=True, show_memory=True, op_time="schedule"):
        """The trace and each allocator's peak (a StepStatsAnalysis). `op_time` ("schedule", "gpu", "all")
        picks which times an op shows on a GPU tracer's streams; tensorweave's steps record one time per
        op, so all three give the same trace."""
        if op_time not in ("schedule", "gpu", "all"):
            raise ValueError(f"op_time must be 'schedule', 'gpu' or 'all', got {op_time!r}")
        trace = _ChromeTrace()
        trace.process("Allocators", 0)
        devices = []  # (DeviceStepStats, compute pid, tensors pid, lanes)
        for dev_stats in self._step_stats.dev_stats:
            compute_pid, tensors_pid = 1 + 2 * len(devices), 2 + 2 * len(devices)
            trace.process(dev_stats.device + " Compute", compute_pid)
            trace.process(dev_stats.device + " Tensors", tensors_pid)
            devices.append((dev_stats, compute_pid, tensors_pid, _lanes(dev_stats.node_stats)))
        tensors = {}
        for dev_stats, compute_pid, tensors_pid, lanes in devices:
            for ns, tid in zip(dev_stats.node_stats, lanes):
                self._produced(trace, tensors, ns, compute_pid, tensors_pid, tid, show_memory)
        for dev_stats, compute_pid, _, lanes in devices:
            for ns, tid in zip(dev_stats.node_stats, lanes):
                self._ran(trace, tensors, ns, compute_pid, tid, show_dataflow)
        maximums = self._memory(trace, tensors) if show_memory else {}
        return StepStatsAnalysis(chrome_trace=trace, allocator_maximums=maximums)

    def generate_chrome_trace_format(self, show_dataflow=True, show_memory=False, op_time="schedule"):
        """The step as a JSON string in the Chrome Trace Event format.

        Args:
          show_dataflow: add flow events (arrows) from each tensor's producer to its consumers on other
            threads or devices.
          show_memory: add each tensor's lifetime (object events) and a counter of live bytes per allocator.
          op_time: "schedule", "gpu" or "all" (see `analyze_step_stats`).
        """
        analysis = self.analyze_step_stats(show_dataflow=show_dataflow, show_memory=show_memory, op_time=op_time)
        return analysis.chrome_trace.format_to_string(pretty=True)

    @staticmethod
    def _produced(trace, tensors, ns, compute_pid, tensors_pid, tid, show_memory):
        start = ns.all_start_micros
        end = start + ns.all_end_rel_micros
        for index, output in enumerate(ns.output):
            name = f"{ns.node_name}:{index}" if index else ns.node_name
            allocation = output.tensor_description.allocation_description
            tensor = _Tensor(
                name,
                len(tensors),
                tensors_pid,
                start,
                allocation.allocator_name,
                allocation.requested_bytes,
                (end, compute_pid, tid),
            )
            tensor.last_use = end
            tensors[name] = tensor
            if show_memory:
                trace.event("N", "Tensor", name, tensors_pid, tid, start, id=tensor.object_id)
                description = str(output.tensor_description).replace('"', "")
                snapshot = {"snapshot": {"tensor_description": description}}
                trace.event("O", "Tensor", name, tensors_pid, tid, end - 1, id=tensor.object_id, args=snapshot)

    @staticmethod
    def _ran(trace, tensors, ns, pid, tid, show_dataflow):
        start = ns.all_start_micros
        end = start + ns.all_end_rel_micros
        _, op, inputs = _parse_label(ns.timeline_label)
        args = {"name": ns.node_name, "op": op}
        for i, name in enumerate(inputs):
            args[f"input{i}"] = name
        trace.event("X", "Op", op, pid, tid, start, dur=ns.all_end_rel_micros, args=args)
        for name in inputs:
            if name not in tensors:
                # A cut edge: partitioning named the value "<node>/_<n>"; it came from <node>.
                cut = name.rfind("/_")
                name = name[:cut] if cut > 0 else name
            tensor = tensors.get(name)
            if tensor is None:  # a control input, or a value fed to the step
                continue
            tensor.last_use = max(tensor.last_use, end - 1)
            made_at, made_pid, made_tid = tensor.flow_start
            if show_dataflow and (made_pid != pid or made_tid != tid):
                flow = {"id": trace.new_flow_id()}
                trace.event("s", "DataFlow", name, made_pid, made_tid, made_at, **flow)
                trace.event("t", "DataFlow", name, pid, tid, start, **flow)

    @staticmethod
    def _memory(trace, tensors):
        """Deletion events and a live-bytes counter per allocator; returns each allocator's peak."""
        changes = collections.defaultdict(list)
        for tensor in tensors.values():
            trace.event("D", "Tensor", tensor.name, tensor.pid, 0, tensor.last_use, id=tensor.object_id)
            changes[tensor.allocator].append((tensor.created, tensor.num_bytes, tensor.name))
            changes[tensor.allocator].append((tensor.last_use, -tensor.num_bytes, tensor.name))
        maximums = {}
        for allocator, events in changes.items():
            live, total = set(), 0
            maximums[allocator] = AllocationMaximum(timestamp=0, num_bytes=0, tensors=set())
            # Ties in time: frees before allocations, then by name (TF's order, so the counters agree).
            for ts, num_bytes, name in sorted(events):
                total += num_bytes
                if num_bytes < 0:
                    live.discard(name)
                else:
                    live.add(name)
                if total > maximums[allocator].num_bytes:
                    maximums[allocator] = AllocationMaximum(timestamp=ts, num_bytes=total, tensors=set(live))
                trace.event("C", "Memory", allocator, 0, 0, ts, args={allocator: total})
        return maximums

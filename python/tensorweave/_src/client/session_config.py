"""Session and step options, with the fields and defaults of TensorFlow's `ConfigProto`, `RunOptions` and
`RunMetadata` protocol buffers (as plain Python objects)."""


def _int(value, field):
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            return int(value.__index__())
        except AttributeError:
            raise TypeError(f"'{type(value).__name__}' object cannot be interpreted as an integer ({field})") from None
    return value


def _bool(value, field):
    if not isinstance(value, (bool, int)):
        raise TypeError(f"{value!r} has type {type(value).__name__}, but expected one of: bool ({field})")
    return bool(value)


class GPUOptions:
    """The GPU fields of ConfigProto (`allow_growth`, `per_process_gpu_memory_fraction`,
    `visible_device_list`), kept for the GPU device.

    Example:
      >>> import tensorweave as tw
      >>> config = tw.ConfigProto(gpu_options=tw.GPUOptions(per_process_gpu_memory_fraction=0.5))
      >>> config.gpu_options.per_process_gpu_memory_fraction, config.gpu_options.allow_growth
      (0.5, False)
    """

    def __init__(self, allow_growth=False, per_process_gpu_memory_fraction=0.0, visible_device_list=""):
        self.allow_growth = _bool(allow_growth, "allow_growth")
        self.per_process_gpu_memory_fraction = float(per_process_gpu_memory_fraction)
        self.visible_device_list = str(visible_device_list)


class OptimizerOptions:
    """TF's GraphOptions.optimizer_options. `opt_level=L1` (the default) turns on constant folding and
    common-subexpression elimination of each step's graph; with `opt_level=L0` each runs only when its
    `do_constant_folding` / `do_common_subexpression_elimination` is True. `max_folded_constant_in_bytes`
    bounds a folded value (0: 10 MB). `do_function_inlining` and `global_jit_level` are kept (tensorweave
    has no functions or JIT to apply them to).

    Example:
      >>> import tensorweave as tw
      >>> off = tw.OptimizerOptions(opt_level=tw.OptimizerOptions.L0)
      >>> config = tw.ConfigProto(graph_options=tw.GraphOptions(optimizer_options=off))
      >>> config.graph_options.optimizer_options.opt_level, config.graph_options.optimizer_options.do_constant_folding
      (-1, False)
    """

    L1 = 0
    L0 = -1
    DEFAULT = 0
    OFF = -1
    ON_1 = 1
    ON_2 = 2

    def __init__(
        self,
        do_common_subexpression_elimination=False,
        do_constant_folding=False,
        max_folded_constant_in_bytes=0,
        do_function_inlining=False,
        opt_level=0,
        global_jit_level=0,
    ):
        self.do_common_subexpression_elimination = _bool(
            do_common_subexpression_elimination, "do_common_subexpression_elimination"
        )
        self.do_constant_folding = _bool(do_constant_folding, "do_constant_folding")
        self.max_folded_constant_in_bytes = _int(max_folded_constant_in_bytes, "max_folded_constant_in_bytes")
        self.do_function_inlining = _bool(do_function_inlining, "do_function_inlining")
        self.opt_level = _int(opt_level, "opt_level")
        self.global_jit_level = _int(global_jit_level, "global_jit_level")


class _Enum:
    """A protobuf enum's Name(number) / Value(name) / keys() / values() over `_NAMES`."""

    _NAMES = {}

    @classmethod
    def Name(cls, number):  # noqa: N802 - protobuf's name
        if number not in cls._NAMES:
            raise ValueError(f"Enum {cls.__name__} has no name defined for value {number!r}")
        return cls._NAMES[number]

    @classmethod
    def Value(cls, name):  # noqa: N802 - protobuf's name
        for number, known in cls._NAMES.items():
            if known == name:
                return number
        raise ValueError(f"Enum {cls.__name__} has no value defined for name {name!r}")

    @classmethod
    def keys(cls):
        return list(cls._NAMES.values())

    @classmethod
    def values(cls):
        return list(cls._NAMES)


class RewriterConfig:
    """TF's GraphOptions.rewrite_options (the Grappler switches), with TF's field names, enum values and
    defaults. Each toggle is DEFAULT (0, on), ON (1), OFF (2) or AGGRESSIVE (3, on); a toggle's name
    ("OFF") is accepted too. tensorweave's passes read: `constant_folding`, `arithmetic_optimization`
    (x*1, x+0, double transposes, reshape of reshape, squeeze/expand_dims pairs),
    `common_subgraph_elimination`, `dependency_optimization` (Identity/NoOp removal), `remapping`
    (MatMul/Conv2D + BiasAdd + activation fusion), `disable_model_pruning` (keep nodes the optimized graph
    no longer needs) and `disable_meta_optimizer` (all of them off). The other fields are kept.

    Example:
      >>> import tensorweave as tw
      >>> from tensorweave.core.protobuf import rewriter_config_pb2
      >>> rw = rewriter_config_pb2.RewriterConfig(constant_folding=rewriter_config_pb2.RewriterConfig.OFF)
      >>> rw.constant_folding, rw.remapping, rewriter_config_pb2.RewriterConfig.Toggle.Name(rw.constant_folding)
      (2, 0, 'OFF')
    """

    DEFAULT = 0
    ON = 1
    OFF = 2
    AGGRESSIVE = 3
    EXPERIMENTAL_MLIR = 4
    EXPERIMENTAL_BOTH = 5
    DEFAULT_NUM_ITERS = 0
    ONE = 1
    TWO = 2

    class Toggle(_Enum):
        """The on/off enum of a rewriter (TF's RewriterConfig.Toggle)."""

        _NAMES = {0: "DEFAULT", 1: "ON", 2: "OFF", 3: "AGGRESSIVE", 4: "EXPERIMENTAL_MLIR", 5: "EXPERIMENTAL_BOTH"}

    class NumIterationsType(_Enum):
        """How often the meta optimizer runs its passes (TF's RewriterConfig.NumIterationsType)."""

        _NAMES = {0: "DEFAULT_NUM_ITERS", 1: "ONE", 2: "TWO"}

    _TOGGLES = (
        "layout_optimizer",
        "constant_folding",
        "shape_optimization",
        "remapping",
        "common_subgraph_elimination",
        "arithmetic_optimization",
        "dependency_optimization",
        "loop_optimization",
        "function_optimization",
        "debug_stripper",
        "scoped_allocator_optimization",
        "pin_to_host_optimization",
        "implementation_selector",
        "auto_mixed_precision",
    )

    def __init__(
        self,
        disable_model_pruning=False,
        disable_meta_optimizer=False,
        meta_optimizer_iterations=0,
        min_graph_nodes=0,
        optimizers=(),
        **toggles,
    ):
        for name in toggles:
            if name not in self._TOGGLES:
                raise ValueError(f'Protocol message RewriterConfig has no "{name}" field.')
        for name in self._TOGGLES:
            value = toggles.get(name, 0)
            if isinstance(value, str):
                value = RewriterConfig.Toggle.Value(value)
            setattr(self, name, _int(value, name))  # proto3 enums are open: any number is kept
        self.disable_model_pruning = _bool(disable_model_pruning, "disable_model_pruning")
        self.disable_meta_optimizer = _bool(disable_meta_optimizer, "disable_meta_optimizer")
        if isinstance(meta_optimizer_iterations, str):
            meta_optimizer_iterations = RewriterConfig.NumIterationsType.Value(meta_optimizer_iterations)
        self.meta_optimizer_iterations = _int(meta_optimizer_iterations, "meta_optimizer_iterations")
        self.min_graph_nodes = _int(min_graph_nodes, "min_graph_nodes")
        self.optimizers = [str(o) for o in optimizers]


def graph_optimizer_options(config):
    """The switches of the C++ graph optimizer (core/runtime/graph_optimizer.h) that `config` asks for."""
    graph_options = config.graph_options
    classic = graph_options.optimizer_options
    rewrite = graph_options.rewrite_options
    on = not rewrite.disable_meta_optimizer
    level_on = classic.opt_level >= OptimizerOptions.L1

    def toggle(value):
        return on and value != RewriterConfig.OFF

    return {
        "constant_folding": toggle(rewrite.constant_folding) and (level_on or classic.do_constant_folding),
        "common_subexpression_elimination": toggle(rewrite.common_subgraph_elimination)
        and (level_on or classic.do_common_subexpression_elimination),
        "arithmetic_optimization": toggle(rewrite.arithmetic_optimization),
        "dependency_optimization": toggle(rewrite.dependency_optimization),
        "remapping": toggle(rewrite.remapping),
        "model_pruning": on and not rewrite.disable_model_pruning,
        "max_constant_bytes": classic.max_folded_constant_in_bytes or (10 << 20),
    }


class GraphOptions:
    """TF's ConfigProto.graph_options: `optimizer_options` (OptimizerOptions) and `rewrite_options`
    (RewriterConfig) switch the graph optimizer's passes; the other fields are kept.

    Example:
      >>> import tensorweave as tw
      >>> tw.GraphOptions().optimizer_options.opt_level, tw.GraphOptions().rewrite_options.constant_folding
      (0, 0)
    """

    def __init__(
        self,
        optimizer_options=None,
        build_cost_model=0,
        infer_shapes=False,
        place_pruned_graph=False,
        enable_bfloat16_sendrecv=False,
        timeline_step=0,
        rewrite_options=None,
    ):
        self.optimizer_options = optimizer_options if optimizer_options is not None else OptimizerOptions()
        self.rewrite_options = rewrite_options if rewrite_options is not None else RewriterConfig()
        self.build_cost_model = _int(build_cost_model, "build_cost_model")
        self.infer_shapes = _bool(infer_shapes, "infer_shapes")
        self.place_pruned_graph = _bool(place_pruned_graph, "place_pruned_graph")
        self.enable_bfloat16_sendrecv = _bool(enable_bfloat16_sendrecv, "enable_bfloat16_sendrecv")
        self.timeline_step = _int(timeline_step, "timeline_step")


class ConfigProto:
    """Session options, with TensorFlow's ConfigProto field names and defaults.

    Args:
      device_count: {device type: the most devices of that type the session uses}, e.g. {"CPU": 4, "GPU": 0}
        (several CPU devices in one process; a type left out gets what the machine has, one CPU).
      allow_soft_placement: when an op's requested device has no kernel for it or does not exist, place it
        on one that has (default False, as in TF: that is an error naming the op).
      log_device_placement: print each op's device to stderr when it is placed.
      intra_op_parallelism_threads: threads a single large kernel may use (0: one per core).
      inter_op_parallelism_threads: threads that run independent ops at once (0: one per core).

    Example:
      >>> import tensorweave as tw
      >>> config = tw.ConfigProto(device_count={"CPU": 2}, allow_soft_placement=True)
      >>> config.device_count["CPU"], config.log_device_placement, tw.ConfigProto().allow_soft_placement
      (2, False, False)
    """

    def __init__(
        self,
        intra_op_parallelism_threads=0,
        inter_op_parallelism_threads=0,
        allow_soft_placement=False,
        log_device_placement=False,
        device_count=None,
        gpu_options=None,
        graph_options=None,
        operation_timeout_in_ms=0,
    ):
        self.intra_op_parallelism_threads = _int(intra_op_parallelism_threads, "intra_op_parallelism_threads")
        self.inter_op_parallelism_threads = _int(inter_op_parallelism_threads, "inter_op_parallelism_threads")
        self.allow_soft_placement = _bool(allow_soft_placement, "allow_soft_placement")
        self.log_device_placement = _bool(log_device_placement, "log_device_placement")
        self.device_count = {}
        for device_type, count in dict(device_count or {}).items():
            if not isinstance(device_type, str):
                raise TypeError(f"device_count keys are device type strings, got {device_type!r}")
            self.device_count[device_type] = _int(count, f"device_count[{device_type!r}]")
        self.gpu_options = gpu_options if gpu_options is not None else GPUOptions()
        self.graph_options = graph_options if graph_options is not None else GraphOptions()
        self.operation_timeout_in_ms = _int(operation_timeout_in_ms, "operation_timeout_in_ms")


class RunOptions:
    """Options of one `Session.run` step (TF's RunOptions fields).

    `output_partition_graphs=True` fills `RunMetadata.partition_graphs` with the graph each device ran.
    `trace_level` (NO_TRACE, SOFTWARE_TRACE, HARDWARE_TRACE, FULL_TRACE): above NO_TRACE, the step records
    every node it runs into `RunMetadata.step_stats` (start and end times, thread, each output's dtype,
    shape and bytes; all levels record the same). `timeout_in_ms` > 0: a step still running after that long
    is cancelled (a blocked dequeue stops waiting, the queue keeps its elements) and raises
    DeadlineExceededError; the session stays usable (`ConfigProto(operation_timeout_in_ms=)` is the default
    for steps without one). `inter_op_thread_pool` and `report_tensor_allocations_upon_oom` are accepted and
    kept.

    Example:
      >>> import tensorweave as tw
      >>> options = tw.RunOptions(trace_level=tw.RunOptions.FULL_TRACE, output_partition_graphs=True)
      >>> options.trace_level, options.output_partition_graphs, tw.RunOptions.TraceLevel.Name(3)
      (3, True, 'FULL_TRACE')
    """

    NO_TRACE = 0
    SOFTWARE_TRACE = 1
    HARDWARE_TRACE = 2
    FULL_TRACE = 3

    class TraceLevel:
        """The trace level enum: Name(number) and Value(name) as a protobuf enum's."""

        _NAMES = {0: "NO_TRACE", 1: "SOFTWARE_TRACE", 2: "HARDWARE_TRACE", 3: "FULL_TRACE"}
        NO_TRACE = 0
        SOFTWARE_TRACE = 1
        HARDWARE_TRACE = 2
        FULL_TRACE = 3

        @classmethod
        def Name(cls, number):  # noqa: N802 - protobuf's name
            if number not in cls._NAMES:
                raise ValueError(f"Enum TraceLevel has no name defined for value {number!r}")
            return cls._NAMES[number]

        @classmethod
        def Value(cls, name):  # noqa: N802 - protobuf's name
            for number, known in cls._NAMES.items():
                if known == name:
                    return number
            raise ValueError(f"Enum TraceLevel has no value defined for name {name!r}")

        @classmethod
        def keys(cls):
            return list(cls._NAMES.values())

        @classmethod
        def values(cls):
            return list(cls._NAMES)

    def __init__(
        self,
        trace_level=0,
        timeout_in_ms=0,
        inter_op_thread_pool=0,
        output_partition_graphs=False,
        report_tensor_allocations_upon_oom=False,
    ):
        if isinstance(trace_level, str):
            trace_level = RunOptions.TraceLevel.Value(trace_level)
        self.trace_level = _int(trace_level, "trace_level")
        self.timeout_in_ms = _int(timeout_in_ms, "timeout_in_ms")
        self.inter_op_thread_pool = _int(inter_op_thread_pool, "inter_op_thread_pool")
        self.output_partition_graphs = _bool(output_partition_graphs, "output_partition_graphs")
        self.report_tensor_allocations_upon_oom = _bool(
            report_tensor_allocations_upon_oom, "report_tensor_allocations_upon_oom"
        )

    def __repr__(self):
        fields = []
        if self.trace_level:
            fields.append(f"trace_level: {self.TraceLevel._NAMES.get(self.trace_level, self.trace_level)}")
        for name in ("timeout_in_ms", "inter_op_thread_pool"):
            if getattr(self, name):
                fields.append(f"{name}: {getattr(self, name)}")
        for name in ("output_partition_graphs", "report_tensor_allocations_upon_oom"):
            if getattr(self, name):
                fields.append(f"{name}: true")
        return "\n".join(fields)


def _trace_protos():
    """The generated step_stats_pb2 and run_metadata_pb2 modules (core/framework/*.proto, generated by
    setup.py), loaded on first use so that `import tensorweave` does not load protobuf."""
    import sys

    from tensorweave._src.framework import graph_pb2

    # protoc writes `import graph_pb2` for `import "graph.proto"`; the descriptors are already in the pool.
    sys.modules.setdefault("graph_pb2", graph_pb2)
    from tensorweave._src.framework import step_stats_pb2

    sys.modules.setdefault("step_stats_pb2", step_stats_pb2)
    from tensorweave._src.framework import run_metadata_pb2

    return step_stats_pb2, run_metadata_pb2


class CostGraphDef:
    """The cost model of a step's graph (TF's CostGraphDef): `node`, empty as tensorweave does not keep one."""

    def __init__(self):
        self.node = []

    def __repr__(self):
        return ""


class RunMetadata:
    """What a `Session.run` step reports when given one (TF's RunMetadata): `partition_graphs`, the
    GraphDef each device ran (with `RunOptions(output_partition_graphs=True)`), `step_stats`, a
    `StepStats` protocol buffer with one `DeviceStepStats` per device and one `NodeExecStats` per node run
    (with `RunOptions(trace_level=FULL_TRACE)` or `SOFTWARE_TRACE`), and `cost_graph` (not produced:
    empty). Each run it is given to is cleared first. `SerializeToString()` gives TF's wire format (TF's
    own `RunMetadata.FromString` parses it); `FromString`/`ParseFromString` read it back.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.placeholder(tw.float32, [None], name="x")
      ...     y = tw.square(x, name="y")
      ...     metadata = tw.RunMetadata()
      ...     options = tw.RunOptions(trace_level=tw.RunOptions.FULL_TRACE)
      ...     _ = sess.run(y, {x: [1.0, 2.0]}, options=options, run_metadata=metadata)
      >>> [d.device for d in metadata.step_stats.dev_stats]
      ['/job:localhost/replica:0/task:0/device:CPU:0']
      >>> [(n.node_name, n.timeline_label) for n in metadata.step_stats.dev_stats[0].node_stats]
      [('y', 'y = Square(x)')]
    """

    def __init__(self):
        self.partition_graphs = []
        self._step_stats = None  # a StepStats, made on first use (protobuf loads lazily)
        self.cost_graph = CostGraphDef()

    @property
    def step_stats(self):
        if self._step_stats is None:
            self._step_stats = _trace_protos()[0].StepStats()
        return self._step_stats

    @step_stats.setter
    def step_stats(self, value):
        stats = _trace_protos()[0].StepStats()
        stats.ParseFromString(value.SerializeToString())  # TF's StepStats or ours
        self._step_stats = stats

    def Clear(self):  # noqa: N802 - protobuf's name
        self.partition_graphs = []
        self._step_stats = None
        self.cost_graph = CostGraphDef()

    def _set_partition_graphs(self, serialized):
        from tensorweave._src.framework import graph_pb2  # protobuf loads lazily (a fast `import tensorweave`)

        self.partition_graphs = [graph_pb2.GraphDef.FromString(data) for data in serialized]

    def _set_step_stats(self, serialized):
        self._step_stats = _trace_protos()[0].StepStats.FromString(serialized)

    def _proto(self):
        proto = _trace_protos()[1].RunMetadata()
        if self._step_stats is not None:
            proto.step_stats.CopyFrom(self._step_stats)
        for graph in self.partition_graphs:
            proto.partition_graphs.add().ParseFromString(graph.SerializeToString())
        return proto

    def SerializeToString(self, deterministic=None):  # noqa: N802 - protobuf's name
        """The RunMetadata protocol buffer's wire form (TensorFlow's field numbers)."""
        return self._proto().SerializeToString(deterministic=deterministic)

    def ParseFromString(self, serialized):  # noqa: N802 - protobuf's name
        """Replaces the contents with a serialized RunMetadata (TensorFlow's or tensorweave's)."""
        from tensorweave._src.framework import graph_pb2

        proto = _trace_protos()[1].RunMetadata.FromString(serialized)
        self.Clear()
        self._step_stats = proto.step_stats
        self.partition_graphs = [graph_pb2.GraphDef.FromString(g.SerializeToString()) for g in proto.partition_graphs]
        return len(serialized)

    @classmethod
    def FromString(cls, serialized):  # noqa: N802 - protobuf's name
        """A RunMetadata parsed from its serialized form."""
        metadata = cls()
        metadata.ParseFromString(serialized)
        return metadata

    def __eq__(self, other):
        if not isinstance(other, RunMetadata):
            return NotImplemented
        return self.SerializeToString(deterministic=True) == other.SerializeToString(deterministic=True)

    def __repr__(self):
        return str(self._proto())

"""TF1's `tf.profiler` (tfprof) over a tensorweave graph: float operations and
parameter counts from the graph's static shapes, and per-node execution time and
output bytes from a traced step's `RunMetadata`.

The float-operation counts follow TensorFlow's statistics op by op (2*K per
MatMul output, 2*kh*kw*in per Conv2D output, one per output of an elementwise
binary op, 5 per Softmax element, ...), so a model's FLOPs read the same as
under TensorFlow. Ops without a formula count no FLOPs; ops whose shapes are
not fully known are skipped and counted in the report's first line, as
TensorFlow does.

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default() as g:
  ...     y = tw.matmul(tw.ones([4, 80]), tw.ones([80, 10]))
  ...     opts = tw.profiler.ProfileOptionBuilder(
  ...         tw.profiler.ProfileOptionBuilder.float_operation()).with_empty_output().build()
  ...     tw.profiler.profile(g, options=opts).total_float_ops
  6400
"""

import re
import sys

import numpy as np

_VARIABLE_OPS = ("VariableV2", "Variable", "VarHandleOp")
_SELECT_NAMES = {"params": "parameters", "float_ops": "float_ops", "micros": "exec_micros", "bytes": "requested_bytes"}
_ORDER_FIELDS = dict(_SELECT_NAMES, occurrence="run_count")
_FIELDS = ("parameters", "float_ops", "exec_micros", "requested_bytes", "run_count")


class ProfileOptionBuilder:
    """Builds the options dict of `profile` (TF's tfprof options).

    `float_operation()`, `trainable_variables_parameter()` and `time_and_memory()`
    are the common starting points; the `with_*` methods refine a copy."""

    @staticmethod
    def _defaults():
        return {
            "max_depth": 10000,
            "min_bytes": 0,
            "min_micros": 0,
            "min_params": 0,
            "min_float_ops": 0,
            "min_occurrence": 0,
            "order_by": "name",
            "account_type_regexes": [".*"],
            "start_name_regexes": [".*"],
            "trim_name_regexes": [],
            "show_name_regexes": [".*"],
            "hide_name_regexes": [],
            "account_displayed_op_only": True,
            "select": ["micros"],
            "step": -1,
            "output": "stdout",
        }

    @staticmethod
    def trainable_variables_parameter():
        """Options counting the parameters of trainable variables."""
        opts = ProfileOptionBuilder._defaults()
        opts.update(account_type_regexes=["_trainable_variables"], select=["params"])
        return opts

    @staticmethod
    def float_operation():
        """Options counting each op's float operations (ops with at least one)."""
        opts = ProfileOptionBuilder._defaults()
        opts.update(min_float_ops=1, order_by="float_ops", select=["float_ops"])
        return opts

    @staticmethod
    def time_and_memory(
        min_micros=1,
        min_bytes=1,
        min_accelerator_micros=0,
        min_cpu_micros=0,
        min_peak_bytes=0,
        min_residual_bytes=0,
        min_output_bytes=0,
    ):
        """Options reporting execution time and output bytes (needs `run_meta`)."""
        del min_accelerator_micros, min_cpu_micros, min_peak_bytes, min_residual_bytes, min_output_bytes
        opts = ProfileOptionBuilder._defaults()
        opts.update(min_micros=min_micros, min_bytes=min_bytes, order_by="micros", select=["micros", "bytes"])
        return opts

    def __init__(self, options=None):
        self._options = dict(options) if options is not None else self._defaults()

    def build(self):
        return dict(self._options)

    def _set(self, **kwargs):
        self._options.update(kwargs)
        return self

    def with_max_depth(self, max_depth):
        return self._set(max_depth=max_depth)

    def with_min_memory(self, min_bytes=0, min_peak_bytes=0, min_residual_bytes=0, min_output_bytes=0):
        return self._set(min_bytes=min_bytes)

    def with_min_execution_time(self, min_micros=0, min_accelerator_micros=0, min_cpu_micros=0):
        return self._set(min_micros=min_micros)

    def with_min_parameters(self, min_params):
        return self._set(min_params=min_params)

    def with_min_occurrence(self, min_occurrence):
        return self._set(min_occurrence=min_occurrence)

    def with_min_float_operations(self, min_float_ops):
        return self._set(min_float_ops=min_float_ops)

    def with_accounted_types(self, account_type_regexes):
        return self._set(account_type_regexes=list(account_type_regexes))

    def with_node_names(
        self, start_name_regexes=None, show_name_regexes=None, hide_name_regexes=None, trim_name_regexes=None
    ):
        for key, value in (
            ("start_name_regexes", start_name_regexes),
            ("show_name_regexes", show_name_regexes),
            ("hide_name_regexes", hide_name_regexes),
            ("trim_name_regexes", trim_name_regexes),
        ):
            if value is not None:
                self._options[key] = list(value)
        return self

    def account_displayed_op_only(self, is_true):
        return self._set(account_displayed_op_only=bool(is_true))

    def with_empty_output(self):
        return self._set(output="none")

    def with_stdout_output(self):
        return self._set(output="stdout")

    def with_file_output(self, outfile):
        return self._set(output="file:outfile=" + outfile)

    def with_step(self, step):
        return self._set(step=step)

    def order_by(self, attribute):
        if attribute not in ("name",) + tuple(_ORDER_FIELDS):
            raise ValueError(f"order_by: unknown attribute '{attribute}'; one of name, {', '.join(_ORDER_FIELDS)}")
        return self._set(order_by=attribute)

    def select(self, attributes):
        unknown = [a for a in attributes if a not in _ORDER_FIELDS]
        if unknown:
            raise ValueError(f"select: unknown attributes {unknown}; choose from {sorted(_ORDER_FIELDS)}")
        return self._set(select=list(attributes))


class GraphNodeProto:
    """One node of a profile (TF's GraphNodeProto fields): its own statistics,
    the totals over it and the nodes shown under it, and those children."""

    def __init__(self, name):
        self.name = name
        self.shapes = []
        self.children = []
        for field in _FIELDS:
            setattr(self, field, 0)
            setattr(self, "total_" + field, 0)
        self.total_definition_count = 0
        self.accounted = False

    def __repr__(self):
        return f"<GraphNodeProto {self.name!r} float_ops={self.total_float_ops} parameters={self.total_parameters}>"


MultiGraphNodeProto = GraphNodeProto


# --- float operations per op type (TensorFlow's statistics) ---------------------------------------------------------


def _elements(shape):
    dims = shape.as_list() if shape.ndims is not None else None
    if dims is None or any(d is None for d in dims):
        raise _IncompleteShape
    return int(np.prod(dims, dtype=np.int64))


class _IncompleteShape(Exception):
    pass


def _in(op, i=0):
    return _elements(op.inputs[i].shape)


def _out(op):
    return _elements(op.outputs[0].shape)


def _reduction(op, finalize):
    return _in(op) + _out(op) * (finalize - 1)


def _matmul(op, transpose_attr, k_axis):
    dims = op.inputs[0].shape.as_list()
    _in(op)
    try:
        transposed = bool(op.get_attr(transpose_attr))
    except (ValueError, KeyError):
        transposed = False  # BatchMatMulV2 names it adj_x: TensorFlow's formula reads transpose_a (False)
    k = dims[k_axis - 1] if transposed else dims[k_axis]
    return 2 * k * _out(op)


def _conv_backprop(op, image, kernel):
    strides = op.get_attr("strides")
    return 2 * _elements(image) * _elements(kernel) // (image.as_list()[-1] * strides[1] * strides[2])


def _window(op):
    return int(np.prod(op.get_attr("ksize")))


_FLOPS = {
    **{t: _in for t in ("Reciprocal", "Square", "Log", "Neg", "AssignSub", "AssignAdd")},
    "Rsqrt": lambda op: 2 * _in(op),
    "L2Loss": lambda op: 3 * _in(op) - 1,
    "Softmax": lambda op: 5 * _in(op),
    **{
        t: _out
        for t in (
            "Add",
            "AddV2",
            "Sub",
            "Mul",
            "RealDiv",
            "Maximum",
            "Minimum",
            "Pow",
            "GreaterEqual",
            "Greater",
            "LessEqual",
            "Less",
            "Equal",
            "NotEqual",
        )
    },
    "RsqrtGrad": lambda op: 4 * _out(op),
    "SquaredDifference": lambda op: 2 * _out(op),
    "Mean": lambda op: _reduction(op, 1),
    **{t: (lambda op: _reduction(op, 0)) for t in ("Sum", "ArgMax", "ArgMin", "BiasAddGrad")},
    "AvgPool": lambda op: _window(op) * _out(op),
    "MaxPool": lambda op: _window(op) * _out(op),
    "AvgPoolGrad": lambda op: 2 * _window(op) * _in(op, 1),
    "MaxPoolGrad": lambda op: (_window(op) + 1) * _in(op, 1),
    "Conv2DBackpropInput": lambda op: _conv_backprop(op, op.outputs[0].shape, op.inputs[1].shape),
    "Conv2DBackpropFilter": lambda op: _conv_backprop(op, op.inputs[0].shape, op.outputs[0].shape),
    "AddN": lambda op: _in(op) * (len(op.inputs) - 1) if op.inputs else 0,
    "MatMul": lambda op: _matmul(op, "transpose_a", 1),
    **{t: (lambda op: _matmul(op, "transpose_a", -1)) for t in ("BatchMatMul", "BatchMatMulV2", "BatchMatMulV3")},
    "Conv2D": lambda op: 2 * _out(op) * _elements(op.inputs[1].shape) // op.inputs[1].shape.as_list()[3],
    "DepthwiseConv2dNative": lambda op: 2 * _out(op) * _window_of_filter(op),
    "BiasAdd": lambda op: _in(op),
}


def _window_of_filter(op):
    dims = op.inputs[1].shape.as_list()
    _elements(op.inputs[1].shape)
    return dims[0] * dims[1]


def _float_ops(op):
    """The op's FLOPs, or None where a shape it needs is not fully known."""
    formula = _FLOPS.get(op.type)
    if formula is None:
        return 0
    try:
        return int(formula(op))
    except _IncompleteShape:
        return None


# --- the profile tree ----------------------------------------------------------------------------------------------


def _exec_stats(run_meta):
    """node name -> (run count, micros, output bytes) of a traced step."""
    stats = {}
    if run_meta is None:
        return stats
    for dev in run_meta.step_stats.dev_stats:
        for ns in dev.node_stats:
            out_bytes = sum(o.tensor_description.allocation_description.requested_bytes for o in ns.output)
            count, micros, nbytes = stats.get(ns.node_name, (0, 0, 0))
            stats[ns.node_name] = (count + 1, micros + ns.all_end_rel_micros, nbytes + out_bytes)
    return stats


def _matches(regexes, text):
    return any(re.fullmatch(r, text) for r in regexes)


def _op_kinds(op, trainable):
    kinds = [op.type]
    if op.type in _VARIABLE_OPS:
        kinds.append("_variables")
        if op.name in trainable:
            kinds.append("_trainable_variables")
    return kinds


def _own_stats(graph, run_meta, options):
    """Each op's GraphNodeProto with its own statistics, and how many ops had
    incomplete shapes."""
    trainable = {v.op.name for v in graph.get_collection("trainable_variables")}
    exec_stats = _exec_stats(run_meta)
    nodes, incomplete = {}, 0
    for op in graph.get_operations():
        node = GraphNodeProto(op.name)
        node.shapes = [o.shape for o in op.outputs]
        node.total_definition_count = 1
        node.accounted = any(_matches(options["account_type_regexes"], k) for k in _op_kinds(op, trainable))
        if node.accounted:
            flops = _float_ops(op)
            if flops is None:
                incomplete += 1
            node.float_ops = flops or 0
            if op.type in _VARIABLE_OPS:
                shape = op.outputs[0].shape
                node.parameters = _elements(shape) if shape.is_fully_defined() else 0
            node.run_count, node.exec_micros, node.requested_bytes = exec_stats.get(op.name, (0, 0, 0))
        nodes[op.name] = node
    return nodes, incomplete


def _shown(node, options, depth):
    """Whether a node is displayed: accounted for (its type matches
    account_type_regexes), within max_depth, shown by name and not hidden,
    and at or over every min_* threshold."""
    name = node.name
    return (
        node.accounted
        and depth <= options["max_depth"]
        and _matches(options["show_name_regexes"], name)
        and not _matches(options["hide_name_regexes"], name)
        and node.parameters >= options["min_params"]
        and node.float_ops >= options["min_float_ops"]
        and node.exec_micros >= options["min_micros"]
        and node.requested_bytes >= options["min_bytes"]
        and node.run_count >= options["min_occurrence"]
    )


def _sort(children, order_by):
    if order_by == "name":
        children.sort(key=lambda n: n.name)
    else:
        field = "total_" + _ORDER_FIELDS[order_by]
        children.sort(key=lambda n: (-getattr(n, field), n.name))


def _accumulate(node, shown_children, own_counts):
    for field in _FIELDS:
        total = (getattr(node, field) if own_counts else 0) + sum(getattr(c, "total_" + field) for c in shown_children)
        setattr(node, "total_" + field, total)


def _scope_tree(nodes, options):
    """The name-scope view: an op's parent is the op whose name is its longest
    scope prefix; ops not shown pass their shown descendants up."""
    kids = {}
    for name in nodes:
        parent, cut = "", name.rfind("/")
        while cut > 0:
            if name[:cut] in nodes:
                parent = name[:cut]
                break
            cut = name.rfind("/", 0, cut)
        kids.setdefault(parent, []).append(name)

    def build(name, depth, started):
        node = nodes[name]
        started = started or _matches(options["start_name_regexes"], name)
        shown_here = started and _shown(node, options, depth)
        below = []
        for child in kids.get(name, []):
            below.extend(build(child, depth + 1 if shown_here else depth, started))
        _sort(below, options["order_by"])
        _accumulate(node, below, own_counts=shown_here or not options["account_displayed_op_only"])
        if shown_here:
            node.children = below
            return [node]
        return below

    root = GraphNodeProto("_TFProfRoot")
    top = []
    for name in kids.get("", []):
        top.extend(build(name, 1, False))
    _sort(top, options["order_by"])
    root.children = top
    _accumulate(root, top, own_counts=False)
    return root


def _op_tree(nodes, graph, options):
    """The op-type view: one node per op type with the sums over its accounted
    ops, ordered, each the child of the one before (TensorFlow's shape of this
    view: a node's totals cover it and the types after it)."""
    types = {}
    for op in graph.get_operations():
        node = nodes[op.name]
        group = types.setdefault(op.type, GraphNodeProto(op.type))
        group.total_definition_count += 1
        if node.accounted:
            group.accounted = True
            for field in _FIELDS:
                setattr(group, field, getattr(group, field) + getattr(node, field))
    shown = [g for g in types.values() if _shown(g, options, 1)]
    for group in shown:
        _accumulate(group, [], own_counts=True)
    _sort(shown, options["order_by"])
    root = GraphNodeProto("_TFProfRoot")
    parent = root
    for group in shown:
        parent.children = [group]
        parent = group
    for i in range(len(shown) - 1, -1, -1):
        _accumulate(shown[i], shown[i + 1 : i + 2], own_counts=True)
    _accumulate(root, shown[:1], own_counts=False)
    return root


# --- the report ----------------------------------------------------------------------------------------------------


def _count(n):
    for scale, suffix in ((1e9, "b"), (1e6, "m"), (1e3, "k")):
        if n >= scale:
            return f"{n / scale:.2f}{suffix}"
    return str(int(n))


def _micros(us):
    if us >= 1e6:
        return f"{us / 1e6:.2f}sec"
    if us >= 1e3:
        return f"{us / 1e3:.2f}ms"
    return f"{int(us)}us"


def _bytes(n):
    for scale, suffix in ((1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "KB")):
        if n >= scale:
            return f"{n / scale:.2f}{suffix}"
    return f"{int(n)}B"


_COLUMNS = {
    "params": ("# parameters", "parameters", _count, " params"),
    "float_ops": ("# float_ops", "float_ops", _count, " flops"),
    "micros": ("execution time", "exec_micros", _micros, ""),
    "bytes": ("output bytes", "requested_bytes", _bytes, ""),
    "occurrence": ("occurrence", "run_count", _count, ""),
}


def _line(node, select, is_root):
    parts = []
    if "params" in select and node.parameters and node.shapes:
        shape = node.shapes[0]
        parts.append("x".join(str(d) for d in shape.as_list()) if shape.ndims else "")
    for key in select:
        _, field, fmt, unit = _COLUMNS[key]
        own = "--" if is_root else fmt(getattr(node, field))
        parts.append(f"{own}/{fmt(getattr(node, 'total_' + field))}{unit}")
    return f"{node.name} ({', '.join(p for p in parts if p)})"


def _report(root, options, cmd, incomplete):
    select = [s for s in options["select"] if s in _COLUMNS]
    lines = []
    if incomplete:
        lines.append(f"{incomplete} ops no flops stats due to incomplete shapes.")
    lines += ["", "==================Model Analysis Report======================", "", "Profile:"]
    lines.append(" | ".join(["node name"] + [_COLUMNS[s][0] for s in select]))
    if cmd == "op":
        node = root
        while node.children:
            node = node.children[0]
            lines.append(_op_line(node, root, select))
    else:

        def walk(node, indent, is_root):
            lines.append("  " * indent + _line(node, select, is_root))
            for child in node.children:
                walk(child, indent + 1, False)

        walk(root, 0, True)
    lines += ["", "======================End of Report=========================="]
    return "\n".join(lines) + "\n"


def _op_line(node, root, select):
    """An op-type line: the value, then the share of this type and those after
    it, and of this type alone."""
    parts = []
    for key in select:
        _, field, fmt, unit = _COLUMNS[key]
        whole = getattr(root, "total_" + field) or 1
        cumulative, own = getattr(node, "total_" + field), getattr(node, field)
        parts.append(f"{fmt(own):>6}{unit or ' ' + key} ({100 * cumulative / whole:.2f}%, {100 * own / whole:.2f}%)")
    return f"{node.name:<24} " + ", ".join(parts)


def _emit(text, output):
    if output in ("none", ""):
        return
    if output == "stdout":
        sys.stdout.write(text)
        return
    if output.startswith("file:"):
        path = output.split("outfile=", 1)[1]
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return
    raise ValueError(f"profile: unsupported output '{output}' (use stdout, file:outfile=PATH or none)")


def profile(graph=None, run_meta=None, op_log=None, cmd="scope", options=None):
    """Profiles `graph` (default: the default graph) and prints the report
    `options['output']` asks for. Returns the root GraphNodeProto (its
    `total_float_ops`, `total_parameters`, ... and shown `children`).

    `cmd` is "scope" (ops by name scope) or "op" (ops grouped by type);
    `run_meta` is a RunMetadata of a step run with FULL_TRACE, for times and
    bytes."""
    from tensorweave._src.framework import ops as _ops

    del op_log
    graph = graph if graph is not None else _ops.get_default_graph()
    options = dict(ProfileOptionBuilder._defaults(), **(options or {}))
    unknown = [s for s in options["select"] if s not in _COLUMNS]
    if unknown:
        raise ValueError(f"profile: unknown select {unknown}; choose from {sorted(_COLUMNS)}")
    nodes, incomplete = _own_stats(graph, run_meta, options)
    if cmd == "scope":
        root = _scope_tree(nodes, options)
    elif cmd == "op":
        root = _op_tree(nodes, graph, options)
    else:
        raise ValueError(f"profile: cmd '{cmd}' is not supported; use 'scope' or 'op'")
    _emit(_report(root, options, cmd, incomplete), options["output"])
    return root


class Profiler:
    """Profiles one graph over several traced steps (TF's tf.profiler.Profiler):
    `add_step(step, run_meta)`, then `profile_name_scope(options)` or
    `profile_operations(options)` (options' "step": -1 for the latest)."""

    def __init__(self, graph=None, op_log=None):
        from tensorweave._src.framework import ops as _ops

        del op_log
        self._graph = graph if graph is not None else _ops.get_default_graph()
        self._steps = {}

    def add_step(self, step, run_meta):
        self._steps[step] = run_meta

    def _run_meta(self, options):
        if not self._steps:
            return None
        step = options.get("step", -1)
        return self._steps[max(self._steps)] if step == -1 else self._steps.get(step)

    def profile_name_scope(self, options):
        return profile(self._graph, self._run_meta(options), cmd="scope", options=options)

    def profile_operations(self, options):
        return profile(self._graph, self._run_meta(options), cmd="op", options=options)

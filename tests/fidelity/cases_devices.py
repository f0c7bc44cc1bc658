"""Devices: device scopes (strings, partial specs, DeviceSpec objects, device functions, None, ""), TF1's
merge rules for nested scopes, DeviceSpec, colocate_with and the `_class` attr, the colocation of variables,
optimizer slots and updates, group() across devices, and the session's option messages, against TensorFlow 1.

Nothing here runs an op on a device the machine lacks: the cases observe device strings and attrs."""

from tests.fidelity.harness import case


def _dev(tf, name, spec):
    with tf.device(spec):
        return tf.constant(1.0, name=name).device


def _placement(graph, skip=()):
    """(name, device, _class) of every op of `graph` whose name does not start with one of `skip`."""
    out = []
    for op in graph.get_operations():
        if any(op.name.startswith(s) for s in skip):
            continue
        try:
            groups = [g.decode() for g in op.get_attr("_class")]
        except ValueError:
            groups = None
        out.append([op.name, op.device, groups])
    return out


# --- device strings ---------------------------------------------------------------------------------------------


@case
def device_string_forms(tf, sess):
    specs = [
        "/cpu:0",
        "/CPU:0",
        "/gpu:1",
        "/device:CPU:0",
        "/device:cpu:0",
        "/device:GPU:*",
        "cpu",
        "GPU:2",
        "/cpu:*",
        "/job:ps",
        "/job:ps/task:1/gpu:0",
        "/job:worker/replica:2/task:3/device:CPU:4",
        "/replica:1",
        "/task:7/cpu:0",
        "/job:localhost/replica:0/task:0/device:CPU:0",
        "/device:TPU:0",
        "//cpu:0//",
        "",
    ]
    return [[s, _dev(tf, f"c{i}", s)] for i, s in enumerate(specs)]


@case
def device_nested_scopes_merge(tf, sess):
    out = []
    with tf.device("/job:ps"):
        out.append(_dev(tf, "a", "/gpu:1"))
        out.append(_dev(tf, "b", "/job:worker/task:2"))
        with tf.device("/task:3"):
            out.append(_dev(tf, "c", "/cpu:0"))
            out.append(tf.constant(1.0, name="d").device)
            with tf.device("/replica:1"), tf.device("/device:GPU:*"):
                out.append(tf.constant(1.0, name="e").device)
    with tf.device("/gpu:0"):
        out.append(_dev(tf, "f", "/cpu:1"))  # the inner type and index win
        out.append(_dev(tf, "g", "/device:CPU:*"))
    return out


@case
def device_none_and_empty(tf, sess):
    out = []
    with tf.device("/job:ps/task:0"):
        out.append(_dev(tf, "a", None))
        out.append(_dev(tf, "b", ""))
        with tf.device(None):
            out.append(_dev(tf, "c", "/cpu:0"))  # only the scopes inside the None apply
    out.append(tf.constant(1.0, name="d").device)
    return out


@case
def device_scope_applies_to_ops_and_tensors(tf, sess):
    with tf.device("/job:ps/cpu:0"):
        a = tf.placeholder(tf.float32, [2], name="a")
        b = tf.identity(a, name="b")
    c = tf.identity(b, name="c")
    return [a.device, a.op.device, b.device, b.op.node_def.device, c.device]


# --- device functions --------------------------------------------------------------------------------------------


@case
def device_function_result_replaces(tf, sess):
    out = []
    with tf.device("/job:ps"):
        with tf.device(lambda op: "/cpu:0"):
            out.append(tf.constant(1.0, name="a").device)  # the outer string fills the job
            with tf.device("/gpu:1"):
                out.append(tf.constant(1.0, name="b").device)  # the function replaces the inner spec
        with tf.device(lambda op: ""):
            out.append(tf.constant(1.0, name="c").device)
    with tf.device(lambda op: "/cpu:0"):
        out.append(tf.constant(1.0, name="d").device)  # written as the function gives it
    with tf.device(lambda op: tf.DeviceSpec(job="w", device_type="GPU")):
        out.append(tf.constant(1.0, name="e").device)
    return out


@case
def device_function_sees_the_op(tf, sess):
    seen = []

    def by_type(op):
        seen.append([op.name, op.type, op.device, op.node_def.device])
        return "/gpu:0" if op.type == "Const" else "/cpu:0"

    with tf.device("/job:outer"):
        with tf.device(by_type):
            with tf.device("/task:4"):
                a = tf.constant(1.0, name="a")
                b = tf.identity(a, name="b")
    return [a.device, b.device, seen]


@case
def device_function_returning_none_raises(tf, sess):
    with tf.device(lambda op: None):
        tf.constant(1.0, name="a")


@case
def device_function_stops_at_none(tf, sess):
    calls = []

    def record(op):
        calls.append(op.name)
        return "/cpu:0"

    with tf.device(record):
        with tf.device(None):
            a = tf.constant(1.0, name="a")
    return [a.device, calls]


# --- DeviceSpec ----------------------------------------------------------------------------------------------------


@case
def device_spec_round_trips(tf, sess):
    out = []
    for s in ["/job:ps/task:1/gpu:0", "/cpu:*", "/device:GPU:3", "/job:w/replica:2", "cpu:1", "", "/task:0"]:
        spec = tf.DeviceSpec.from_string(s)
        out.append([s, spec.to_string(), spec.job, spec.replica, spec.task, spec.device_type, spec.device_index])
        out.append(tf.DeviceSpec.from_string(spec.to_string()) == spec)
    return out


@case
def device_spec_fields_and_setters(tf, sess):
    spec = tf.DeviceSpec(job="ps", replica=1, task="2", device_type="gpu", device_index="3")
    out = [spec.to_string(), spec.task, spec.device_index, spec.device_type]
    spec.device_type = "cpu"
    spec.job = None
    spec.device_index = None
    out.append(spec.to_string())
    out.append(tf.DeviceSpec(device_type="xpu").to_string())
    out.append(repr(tf.DeviceSpec(job="a", task=1)))
    return out


@case
def device_spec_parse_from_string_mutates(tf, sess):
    spec = tf.DeviceSpec(job="ps", device_type="GPU")
    same = spec.parse_from_string("/task:2/cpu:1")
    return [same is spec, spec.to_string(), spec.job]


@case
def device_spec_merging(tf, sess):
    a = tf.DeviceSpec(job="ps", task=0, device_type="CPU")
    b = tf.DeviceSpec(device_type="GPU", device_index=1)
    merged = a.make_merged_spec(b)
    out = [merged.to_string(), a.to_string()]
    a.merge_from(tf.DeviceSpec(replica=3, task=None))
    out.append(a.to_string())
    out.append(a.replace(job="worker", device_index=2).to_string())
    out.append(a.replace(device_type=None).to_string())
    return out


@case
def device_spec_equality_and_hash(tf, sess):
    a = tf.DeviceSpec.from_string("/job:ps/cpu:0")
    b = tf.DeviceSpec(job="ps", device_type="CPU", device_index=0)
    c = tf.DeviceSpec(job="ps", device_type="CPU")
    return [a == b, hash(a) == hash(b), a == c, a != c, a == "/job:ps/device:CPU:0", len({a, b, c})]


@case
def device_spec_as_scope_is_held_by_reference(tf, sess):
    spec = tf.DeviceSpec.from_string("/job:a/gpu:1")
    with tf.device(spec):
        spec.device_index = 5
        return tf.constant(1.0, name="a").device


@case
def device_spec_empty_scope_has_no_effect(tf, sess):
    with tf.device("/job:ps"), tf.device(tf.DeviceSpec()):
        return tf.constant(1.0, name="a").device


# --- malformed device strings ------------------------------------------------------------------------------------


def _enter(tf, spec):
    with tf.device(spec):
        tf.constant(1.0)


@case
def device_unknown_part_raises(tf, sess):
    _enter(tf, "/foo:1")


@case
def device_bad_index_raises(tf, sess):
    _enter(tf, "/cpu:x")


@case
def device_bad_task_raises(tf, sess):
    _enter(tf, "/task:abc")


@case
def device_two_types_raise(tf, sess):
    _enter(tf, "/cpu:0/gpu:0")


@case
def device_unknown_short_type_raises(tf, sess):
    _enter(tf, "xpu:0")


@case
def device_too_many_fields_raise(tf, sess):
    _enter(tf, "/device:CPU:0:1")


@case
def device_job_with_two_colons_raises(tf, sess):
    _enter(tf, "/job:a:b")


@case
def device_spec_from_bad_string_raises(tf, sess):
    tf.DeviceSpec.from_string("/replica:one")


@case
def device_error_is_raised_on_entering(tf, sess):
    tf.device("/bad:1")  # not entered: no error yet
    return "created"


# --- colocate_with -------------------------------------------------------------------------------------------------


@case
def colocate_with_sets_class_and_device(tf, sess):
    with tf.device("/job:ps/task:0"):
        a = tf.constant(1.0, name="a")
    with tf.device("/job:worker/gpu:0"):
        with tf.colocate_with(a):
            b = tf.identity(a, name="b")
            with tf.device("/cpu:2"):
                c = tf.constant(2.0, name="c")  # the colocated op's device wins
        d = tf.identity(a, name="d")
    return _placement(tf.get_default_graph())


@case
def colocate_with_undeviced_op_keeps_inner_scopes(tf, sess):
    a = tf.constant(1.0, name="a")
    with tf.device("/job:worker"):
        with tf.colocate_with(a):
            b = tf.identity(a, name="b")  # the outer scope does not apply
            with tf.device("/cpu:1"):
                c = tf.identity(a, name="c")  # a scope opened inside does
    return [b.device, c.device, b.op.get_attr("_class"), c.op.get_attr("_class")]


@case
def colocate_with_tensor_variable_and_nesting(tf, sess):
    with tf.device("/job:ps"):
        v = tf.Variable(1.0, name="v")
    w = tf.constant(2.0, name="w")
    with tf.colocate_with(v):
        x = tf.identity(w, name="x")
        with tf.colocate_with(w):
            y = tf.identity(w, name="y")
            with tf.colocate_with(None, ignore_existing=True):
                z = tf.identity(w, name="z")
            with tf.colocate_with(x.op, ignore_existing=True):
                q = tf.identity(w, name="q")
    return _placement(tf.get_default_graph(), skip=("v",))


@case
def colocation_groups_follow_chains(tf, sess):
    a = tf.constant(1.0, name="a")
    with tf.colocate_with(a):
        b = tf.identity(a, name="b")
    with tf.colocate_with(b):
        c = tf.identity(b, name="c")
    return [a.op.colocation_groups(), b.op.colocation_groups(), c.op.colocation_groups()]


@case
def colocate_with_none_needs_ignore_existing(tf, sess):
    with tf.colocate_with(None):
        pass


@case
def get_attr_class_missing_raises(tf, sess):
    return tf.constant(1.0, name="a").op.get_attr("_class")


@case
def class_attr_survives_graph_def_and_import(tf, sess):
    a = tf.constant(1.0, name="a")
    with tf.colocate_with(a):
        tf.identity(a, name="b")
    graph_def = tf.get_default_graph().as_graph_def()
    nodes = {n.name: list(n.attr["_class"].list.s) for n in graph_def.node if "_class" in n.attr}
    with tf.Graph().as_default() as g:
        tf.import_graph_def(graph_def, name="imp")
        imported = g.get_operation_by_name("imp/b").get_attr("_class")
    with tf.Graph().as_default() as g:
        tf.import_graph_def(graph_def, name="")
        plain = g.get_operation_by_name("b").get_attr("_class")
    return [nodes, imported, plain]


# --- variables and optimizers --------------------------------------------------------------------------------------


@case
def variable_ops_colocated(tf, sess):
    with tf.device("/job:ps/task:0"):
        tf.Variable([1.0, 2.0], name="v")
        tf.get_variable("gv", [2], initializer=tf.zeros_initializer())
    return _placement(tf.get_default_graph())


@case
def assign_ignores_device_scope(tf, sess):
    v = tf.Variable(1.0, name="v")
    with tf.device("/job:ps/task:1"):
        v = tf.Variable(1.0, name="w")
    with tf.device("/gpu:0"):
        a = tf.assign(v, 2.0, name="a")
        b = tf.assign_add(v, 2.0, name="b")
    return [a.device, b.device, a.op.get_attr("_class"), b.op.get_attr("_class")]


def _train(tf, make_optimizer):
    with tf.device("/job:ps/task:0"):
        v = tf.Variable([1.0, 2.0], name="v")
        gv = tf.get_variable("gv", [2], initializer=tf.zeros_initializer())
    with tf.device("/job:worker/gpu:0"):
        loss = v * v + gv
        make_optimizer().minimize(loss)
    # The gradient ops are left out: tensorweave's gradients do not yet colocate their tuple and AddN ops.
    return _placement(tf.get_default_graph(), skip=("gradients",))


@case
def gradient_descent_updates_colocated(tf, sess):
    return _train(tf, lambda: tf.train.GradientDescentOptimizer(0.1))


@case
def momentum_slots_colocated(tf, sess):
    return _train(tf, lambda: tf.train.MomentumOptimizer(0.1, 0.9))


@case
def adam_slots_and_beta_powers_colocated(tf, sess):
    return _train(tf, lambda: tf.train.AdamOptimizer(0.1))


@case
def group_one_noop_per_device(tf, sess):
    with tf.device("/cpu:0"):
        a = tf.constant(1.0, name="a")
    with tf.device("/cpu:1"):
        b = tf.constant(1.0, name="b")
        c = tf.constant(1.0, name="c")
    with tf.device("/job:x"):
        g = tf.group(a, b, c, name="g")
        h = tf.group(b, c, name="h")
    return _placement(tf.get_default_graph(), skip=("a", "b", "c"))


# --- session options -------------------------------------------------------------------------------------------------


@case
def config_proto_defaults(tf, sess):
    c = tf.ConfigProto()
    return [
        c.allow_soft_placement,
        c.log_device_placement,
        dict(c.device_count),
        c.intra_op_parallelism_threads,
        c.inter_op_parallelism_threads,
        c.operation_timeout_in_ms,
        c.gpu_options.allow_growth,
        c.gpu_options.per_process_gpu_memory_fraction,
        c.gpu_options.visible_device_list,
    ]


@case
def config_proto_fields(tf, sess):
    c = tf.ConfigProto(device_count={"CPU": 4, "GPU": 0}, allow_soft_placement=True, log_device_placement=True)
    c.gpu_options.allow_growth = True
    return [dict(c.device_count), c.device_count["CPU"], c.allow_soft_placement, c.log_device_placement]


@case
def config_proto_bad_count_raises(tf, sess):
    tf.ConfigProto(device_count={"CPU": "four"})


@case
def run_options_defaults_and_constants(tf, sess):
    r = tf.RunOptions()
    return [
        r.trace_level,
        r.timeout_in_ms,
        r.inter_op_thread_pool,
        r.output_partition_graphs,
        r.report_tensor_allocations_upon_oom,
        [tf.RunOptions.NO_TRACE, tf.RunOptions.SOFTWARE_TRACE, tf.RunOptions.HARDWARE_TRACE, tf.RunOptions.FULL_TRACE],
        tf.RunOptions.TraceLevel.Name(3),
        tf.RunOptions.TraceLevel.Value("SOFTWARE_TRACE"),
    ]


@case
def run_options_fields(tf, sess):
    r = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE, timeout_in_ms=500, output_partition_graphs=True)
    by_name = tf.RunOptions(trace_level="HARDWARE_TRACE")
    return [r.trace_level, r.timeout_in_ms, r.output_partition_graphs, by_name.trace_level]


@case
def run_options_bad_timeout_raises(tf, sess):
    tf.RunOptions(timeout_in_ms="soon")


@case
def run_metadata_starts_empty(tf, sess):
    m = tf.RunMetadata()
    return [len(m.partition_graphs), len(m.step_stats.dev_stats), len(m.cost_graph.node)]


@case
def run_with_options_and_metadata(tf, sess):
    a = tf.constant([1.0, 2.0]) * 3.0
    m = tf.RunMetadata()
    value = sess.run(a, options=tf.RunOptions(), run_metadata=m)
    f = sess.make_callable(a, accept_options=True)
    again = f(options=tf.RunOptions(trace_level=tf.RunOptions.NO_TRACE), run_metadata=m)
    return [value, again, len(m.partition_graphs)]


# --- gradients -------------------------------------------------------------------------------------------------------


def _grad_placement(graph):
    """Where the gradient ops went, independent of their names (tensorweave's gradient functions build other
    ops than TF's): per forward op X, the (device, _class) pairs of the ops under gradients/X_grad/; for the
    other gradient ops, their device and the devices of the ops they are colocated with."""
    per_op, others = {}, []
    for op in graph.get_operations():
        if not op.name.startswith("gradients/"):
            continue
        try:
            groups = [g.decode() for g in op.get_attr("_class")]
        except ValueError:
            groups = None
        scope = op.name.split("/")[1]
        if scope.endswith("_grad") and op.name.count("/") >= 2:
            per_op.setdefault(scope, set()).add((op.device, tuple(groups or ())))
        else:
            targets = sorted(graph.get_operation_by_name(g[len("loc:@") :]).device for g in groups or ())
            others.append((op.device, tuple(targets)))  # (TF folds a known Shape to a Const: no op types)
    return [sorted([k, sorted(v)] for k, v in per_op.items()), sorted(set(others))]


def _two_device_model(tf):
    x = tf.placeholder(tf.float32, [2], name="x")
    with tf.device("/job:a"):
        a = tf.multiply(x, 2.0, name="a")
    with tf.device("/job:b"):
        b = tf.multiply(x, x, name="b")
        c = tf.multiply(a, b, name="c")
    return x, c


@case
def gradients_colocated_with_ops(tf, sess):
    x, c = _two_device_model(tf)
    with tf.device("/job:worker"):
        tf.gradients(c, [x], colocate_gradients_with_ops=True)
    return _grad_placement(tf.get_default_graph())


@case
def gradients_in_the_callers_scope(tf, sess):
    x, c = _two_device_model(tf)
    with tf.device("/job:worker"):
        tf.gradients(c, [x])
    return _grad_placement(tf.get_default_graph())


@case
def gradients_summed_per_device(tf, sess):
    x = tf.placeholder(tf.float32, [2], name="x")
    parts = []
    for i, job in enumerate(["a", "a", "b"]):
        with tf.device(f"/job:{job}"):
            parts.append(tf.multiply(x, float(i + 1), name=f"m{i}"))
    with tf.device("/job:b"):
        total = tf.add_n(parts, name="total")
    tf.gradients(total, [x], colocate_gradients_with_ops=True)
    return _grad_placement(tf.get_default_graph())


# --- import_graph_def ------------------------------------------------------------------------------------------------


def _graph_def_with_devices(tf):
    with tf.Graph().as_default() as g:
        with tf.device("/job:ps/task:0"):
            a = tf.constant(1.0, name="a")
        with tf.device("/gpu:1"):
            b = tf.identity(a, name="b")
        c = tf.identity(b, name="c")
        with tf.colocate_with(a):
            tf.identity(c, name="d")
        e = tf.constant(2.0, name="e")
        with tf.colocate_with(e):
            tf.identity(e, name="f")
    return g.as_graph_def()


def _imported(tf, graph_def, scope):
    with tf.Graph().as_default() as g:
        with tf.device(scope):
            tf.import_graph_def(graph_def, name="i")
        return [[op.name, op.device] for op in g.get_operations()]


@case
def import_keeps_devices(tf, sess):
    return _imported(tf, _graph_def_with_devices(tf), None)


@case
def import_merges_devices_under_scope(tf, sess):
    return _imported(tf, _graph_def_with_devices(tf), "/job:w/cpu:0")


@case
def import_applies_device_functions(tf, sess):
    return _imported(tf, _graph_def_with_devices(tf), lambda op: "/cpu:3" if op.type == "Const" else "/cpu:4")


@case
def import_malformed_device_raises(tf, sess):
    graph_def = _graph_def_with_devices(tf)
    graph_def.node[2].device = "/bogus:1"
    tf.import_graph_def(graph_def, name="")


@case
def import_colocation_with_unknown_node_raises(tf, sess):
    graph_def = _graph_def_with_devices(tf)
    for node in graph_def.node:
        if node.name == "d":
            del node.attr["_class"].list.s[:]
            node.attr["_class"].list.s.append(b"loc:@nothere")
    tf.import_graph_def(graph_def, name="")


# --- replica_device_setter ------------------------------------------------------------------------------------------


@case
def replica_device_setter_round_robin(tf, sess):
    cluster = {"ps": ["a:1", "b:1", "c:1"], "worker": ["w:1", "w:2"]}
    with tf.device(tf.train.replica_device_setter(cluster=cluster, worker_device="/job:worker/task:1")):
        v = [tf.Variable(float(i), name=f"v{i}") for i in range(4)]
        with tf.device("/gpu:0"):
            x = v[0] + v[1]
            tf.Variable(1.0, name="w")
        with tf.device("/job:ps/task:2"):
            tf.Variable(1.0, name="u")
        with tf.device("/job:other"):
            tf.Variable(1.0, name="z")
        tf.train.GradientDescentOptimizer(0.1).minimize(x * x)
    return _placement(tf.get_default_graph(), skip=("gradients",))


@case
def replica_device_setter_without_merging(tf, sess):
    with tf.device(tf.train.replica_device_setter(ps_tasks=2, merge_devices=False, ps_device="/job:ps/cpu:0")):
        tf.Variable(1.0, name="a")
        with tf.device("/cpu:1"):
            tf.Variable(1.0, name="b")
        tf.Variable(1.0, name="c")
    return _placement(tf.get_default_graph())


@case
def replica_device_setter_without_ps(tf, sess):
    return [tf.train.replica_device_setter(), tf.train.replica_device_setter(cluster={"worker": ["w:1"]})]


@case
def replica_device_setter_bad_strategy_raises(tf, sess):
    tf.train.replica_device_setter(ps_tasks=1, ps_strategy=3)


@case
def config_proto_option_messages(tf, sess):
    gpu = tf.GPUOptions(per_process_gpu_memory_fraction=0.5, allow_growth=True)
    c = tf.ConfigProto(gpu_options=gpu)
    c.graph_options.optimizer_options.global_jit_level = tf.OptimizerOptions.ON_1
    o = tf.OptimizerOptions()
    return [
        c.gpu_options.per_process_gpu_memory_fraction,
        c.gpu_options.allow_growth,
        c.graph_options.optimizer_options.global_jit_level,
        [tf.OptimizerOptions.OFF, tf.OptimizerOptions.ON_2, tf.OptimizerOptions.L0, tf.OptimizerOptions.L1],
        [o.do_constant_folding, o.opt_level, o.global_jit_level],
        tf.GraphOptions().place_pruned_graph,
    ]


@case
def variable_caching_device(tf, sess):
    with tf.device("/job:ps"):
        v = tf.Variable(1.0, name="v", caching_device="/job:worker/cpu:0")
        g = tf.get_variable("g", [2], caching_device="/job:worker/cpu:1")
    return _placement(tf.get_default_graph())


@case
def device_function_inside_colocate_with(tf, sess):
    with tf.device("/job:x"):
        a = tf.constant(1.0, name="a")
    b_seen, c_seen = [], []
    with tf.colocate_with(a):
        with tf.device(lambda op: b_seen.append(op.device) or "/cpu:0"):
            b = tf.identity(a, name="b")
    u = tf.constant(1.0, name="u")
    with tf.colocate_with(u):
        with tf.device(lambda op: c_seen.append(op.device) or "/cpu:0"):
            c = tf.identity(u, name="c")
    return [b_seen, b.device, c_seen, c.device, c.op.get_attr("_class")]


@case
def saver_restores_on_cpu_and_groups_per_device(tf, sess):
    with tf.device("/job:ps/task:0"):
        tf.Variable([1.0], name="v")
    with tf.device("/job:ps/task:1"):
        tf.Variable([1.0], name="w")
    with tf.device("/job:worker"):
        tf.train.Saver()
    graph = tf.get_default_graph()
    restore = graph.get_operation_by_name("save/restore_all")
    return [
        graph.get_operation_by_name("save/RestoreV2").device,
        graph.get_operation_by_name("save/SaveV2").device,
        restore.device,
        sorted(op.device for op in restore.control_inputs),
    ]

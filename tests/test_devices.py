"""Devices on the Python side: DeviceSpec parsing and merging, device scopes (strings, specs, functions, None,
""), colocate_with and the `_class` attr, the colocation of variables and optimizer state, ConfigProto /
RunOptions / RunMetadata, and the local devices of a CPU-only machine.

The expected values are TF1's documented behaviour (DeviceSpec's grammar, Graph._apply_device_functions,
Graph.colocate_with); tests/fidelity/cases_devices.py runs the same programs under TensorFlow 1 itself."""

import subprocess
import sys

import numpy as np
import pytest

import tensorweave as tw
from tensorweave import _pywrap_tensorweave as _pywrap
from tensorweave._src.framework import graph_pb2

_HAS_DEVICE_BINDINGS = hasattr(_pywrap, "list_local_devices")
_needs_devices = pytest.mark.skipif(not _HAS_DEVICE_BINDINGS, reason="the device runtime's bindings are not built yet")


@pytest.fixture
def graph():
    with tw.Graph().as_default() as g:
        yield g


def _const_device(spec, name="c"):
    with tw.device(spec):
        return tw.constant(1.0, name=name).op.device


# --- DeviceSpec --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,fields,canonical",
    [
        ("/job:ps/replica:1/task:2/device:GPU:3", ("ps", 1, 2, "GPU", 3), "/job:ps/replica:1/task:2/device:GPU:3"),
        ("/job:ps/task:1/gpu:0", ("ps", None, 1, "GPU", 0), "/job:ps/task:1/device:GPU:0"),
        ("/cpu:0", (None, None, None, "CPU", 0), "/device:CPU:0"),
        ("/CPU:1", (None, None, None, "CPU", 1), "/device:CPU:1"),
        ("cpu", (None, None, None, "CPU", None), "/device:CPU:*"),
        ("/gpu:*", (None, None, None, "GPU", None), "/device:GPU:*"),
        ("/device:cpu:2", (None, None, None, "CPU", 2), "/device:CPU:2"),
        ("/device:XLA_CPU:0", (None, None, None, "XLA_CPU", 0), "/device:XLA_CPU:0"),
        ("/replica:4", (None, 4, None, None, None), "/replica:4"),
        ("", (None, None, None, None, None), ""),
        ("//job:a//", ("a", None, None, None, None), "/job:a"),
    ],
)
def test_device_spec_parses(text, fields, canonical):
    spec = tw.DeviceSpec.from_string(text)
    assert (spec.job, spec.replica, spec.task, spec.device_type, spec.device_index) == fields
    assert spec.to_string() == canonical
    assert tw.DeviceSpec.from_string(canonical) == spec  # the canonical form round-trips


@pytest.mark.parametrize(
    "text,message",
    [
        ("/foo:1", "Unknown attribute 'foo'"),
        ("/job:a:b", "Unknown attribute 'job'"),
        ("/device:CPU:0:1", "Unknown attribute 'device'"),
        ("xpu:0", "Unknown attribute 'xpu'"),
        ("/cpu:0/gpu:0", "Multiple device types"),
        ("/cpu:0/device:GPU:0", "Multiple device types"),
        ("/cpu:x", "invalid literal"),
        ("/task:abc", "invalid literal"),
        ("/replica:1.5", "invalid literal"),
    ],
)
def test_device_spec_malformed(text, message):
    with pytest.raises(ValueError, match=message):
        tw.DeviceSpec.from_string(text)


def test_device_spec_setters_and_parse_from_string():
    spec = tw.DeviceSpec(job="ps", replica="1", task=2, device_type="gpu", device_index="0")
    assert (spec.replica, spec.device_type, spec.device_index) == (1, "GPU", 0)
    spec.device_type = "cpu"
    spec.task = None
    assert spec.to_string() == "/job:ps/replica:1/device:CPU:0"
    assert spec.parse_from_string("/task:3/gpu:1") is spec
    assert spec.to_string() == "/task:3/device:GPU:1"  # every field replaced, the job too
    assert tw.DeviceSpec(device_type="TPU").to_string() == "/device:TPU:*"


def test_device_spec_merge_rules():
    base = tw.DeviceSpec(job="ps", task=0, device_type="CPU", device_index=0)
    merged = base.make_merged_spec(tw.DeviceSpec(device_type="GPU", task=None))
    assert merged.to_string() == "/job:ps/task:0/device:GPU:0"  # the other's set fields win; index kept
    assert base.to_string() == "/job:ps/task:0/device:CPU:0"  # make_merged_spec leaves self alone
    base.merge_from(tw.DeviceSpec(job="worker", replica=2))
    assert base.to_string() == "/job:worker/replica:2/task:0/device:CPU:0"
    assert base.replace(device_type=None, device_index=None).to_string() == "/job:worker/replica:2/task:0"
    assert base.replace(job="x").job == "x" and base.job == "worker"


def test_device_spec_equality_hash():
    a = tw.DeviceSpec.from_string("/job:ps/cpu:0")
    b = tw.DeviceSpec(job="ps", device_type="CPU", device_index=0)
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != tw.DeviceSpec(job="ps", device_type="CPU")
    assert a != "/job:ps/device:CPU:0"  # a string is no DeviceSpec
    b.device_index = 1
    assert a != b and hash(a) != hash(b)
    assert repr(tw.DeviceSpec(job="a", task=1)) == (
        "<DeviceSpec(job=a, replica=None, task=1, device_type=None, device_index=None)>"
    )


# --- device scopes -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec,device",
    [
        ("/cpu:0", "/device:CPU:0"),
        ("/gpu:1", "/device:GPU:1"),
        ("/job:ps/task:1/gpu:0", "/job:ps/task:1/device:GPU:0"),
        ("/job:localhost/replica:0/task:0/device:CPU:0", "/job:localhost/replica:0/task:0/device:CPU:0"),
        ("GPU:*", "/device:GPU:*"),
        (tw.DeviceSpec(job="w", device_type="cpu"), "/job:w/device:CPU:*"),
        (b"/cpu:3", "/device:CPU:3"),
        ("", ""),
        (None, ""),
    ],
)
def test_device_scope_strings(graph, spec, device):
    assert _const_device(spec) == device


def test_nested_scopes_fill_unset_fields(graph):
    with tw.device("/job:ps/task:0"):
        with tw.device("/gpu:1"):
            a = tw.constant(1.0, name="a")
            with tw.device("/job:worker"):
                b = tw.constant(1.0, name="b")
        with tw.device("/task:2/cpu:0"):
            c = tw.constant(1.0, name="c")
        with tw.device(""):
            d = tw.constant(1.0, name="d")
        with tw.device(None):
            e = tw.constant(1.0, name="e")
            with tw.device("/cpu:1"):
                f = tw.constant(1.0, name="f")
    assert a.device == "/job:ps/task:0/device:GPU:1"
    assert b.device == "/job:worker/task:0/device:GPU:1"
    assert c.device == "/job:ps/task:2/device:CPU:0"
    assert d.device == "/job:ps/task:0"
    assert e.device == ""
    assert f.device == "/device:CPU:1"
    # What Python reports is what the C++ node carries.
    assert b.op.node_def.device == b.device
    nodes = {n.name: n.device for n in graph.as_graph_def().node}
    assert nodes["c"] == c.device and nodes["e"] == ""


def test_device_functions(graph):
    seen = []

    def by_type(op):
        seen.append((op.name, op.type, op.device))
        return "/gpu:0" if op.type == "Const" else tw.DeviceSpec(device_type="CPU", device_index=1)

    with tw.device("/job:ps"):
        with tw.device(by_type):
            with tw.device("/task:3"):
                a = tw.constant(1.0, name="a")
                b = tw.identity(a, name="b")
            c = tw.constant(1.0, name="c")
    with tw.device(lambda op: "/cpu:0"):
        d = tw.constant(1.0, name="d")
    # The function sees the device the scopes inside it gave; its result replaces that device; the string
    # scopes outside it fill only what it left unset.
    assert seen == [("a", "Const", "/task:3"), ("b", "Identity", "/task:3"), ("c", "Const", "")]
    assert a.device == "/job:ps/device:GPU:0"
    assert b.device == "/job:ps/device:CPU:1"
    assert c.device == "/job:ps/device:GPU:0"
    assert d.device == "/cpu:0"  # a function's string is kept as written
    assert b.op.node_def.device == "/job:ps/device:CPU:1"


def test_device_function_bad_result(graph):
    with tw.device(lambda op: None):
        with pytest.raises(TypeError, match="Expected binary or unicode string, got None"):
            tw.constant(1.0, name="a")
    with tw.device("/job:ps"), tw.device(lambda op: "/nonsense:1"):
        with pytest.raises(ValueError, match="Unknown attribute 'nonsense'"):
            tw.constant(1.0, name="b")  # the outer scope parses the function's result


def test_device_scope_errors(graph):
    with pytest.raises(ValueError, match="Unknown attribute 'bogus'"):
        with tw.device("/bogus:0"):
            pass
    scope = tw.device("/bogus:0")  # nothing is parsed before the scope is entered
    assert scope is not None
    with pytest.raises(AttributeError, match="device string, a DeviceSpec, a function of the op or None, got int"):
        with tw.device(3):  # TF's class: not a string, spec or function
            pass
    assert tw.constant(1.0, name="after").device == ""  # a failed scope leaves nothing behind


def test_device_spec_scope_held_by_reference(graph):
    spec = tw.DeviceSpec.from_string("/job:a/gpu:1")
    with tw.device(spec):
        spec.device_index = 5
        assert tw.constant(1.0).device == "/job:a/device:GPU:5"


def test_device_scope_is_per_graph():
    g1, g2 = tw.Graph(), tw.Graph()
    with g1.as_default(), g1.device("/cpu:1"):
        with g2.as_default():
            b = tw.constant(1.0)
        a = tw.constant(1.0)
    assert (a.device, b.device) == ("/device:CPU:1", "")


# --- colocate_with -------------------------------------------------------------------------------------------------


def test_colocate_with_class_and_device(graph):
    with tw.device("/job:ps/task:0"):
        a = tw.constant(1.0, name="a")
    with tw.device("/job:worker/gpu:0"):
        with tw.colocate_with(a):
            b = tw.identity(a, name="b")
            with tw.device("/cpu:2"):
                c = tw.constant(2.0, name="c")
        d = tw.identity(a, name="d")
    assert b.device == c.device == "/job:ps/task:0"
    assert b.op.get_attr("_class") == c.op.get_attr("_class") == [b"loc:@a"]
    assert d.device == "/job:worker/device:GPU:0"
    with pytest.raises(ValueError, match="has no attr named '_class'"):
        d.op.get_attr("_class")
    assert d.op.colocation_groups() == [b"loc:@d"]
    assert b.op.colocation_groups() == [b"loc:@a"]


def test_colocate_with_nesting_and_ignore_existing(graph):
    a = tw.constant(1.0, name="a")
    b = tw.constant(1.0, name="b")
    with tw.device("/job:x"):
        with tw.colocate_with(b):
            with tw.colocate_with(a.op):
                both = tw.identity(a, name="both")
                with tw.colocate_with(None, ignore_existing=True):
                    free = tw.identity(a, name="free")
                with tw.colocate_with(b, ignore_existing=True):
                    only_b = tw.identity(a, name="only_b")
    assert both.op.get_attr("_class") == [b"loc:@a", b"loc:@b"]  # sorted union
    assert free.device == ""  # colocate_with clears the device scopes too
    with pytest.raises(ValueError):
        free.op.get_attr("_class")
    assert only_b.op.get_attr("_class") == [b"loc:@b"]
    with pytest.raises(ValueError, match="ignore_existing is not True"):
        with tw.colocate_with(None):
            pass
    # The scopes are restored after the block.
    assert tw.constant(1.0, name="outside").device == ""


def test_colocate_with_graph_def_round_trip(graph):
    a = tw.constant(1.0, name="a")
    with tw.colocate_with(a):
        tw.identity(a, name="b")
    graph_def = graph.as_graph_def()
    node = [n for n in graph_def.node if n.name == "b"][0]
    assert list(node.attr["_class"].list.s) == [b"loc:@a"]
    with tw.Graph().as_default() as g2:
        tw.import_graph_def(graph_def, name="imp")
        assert g2.get_operation_by_name("imp/b").get_attr("_class") == [b"loc:@imp/a"]
    # A serialized GraphDef with a _class attr is accepted by the C++ graph as it is.
    with tw.Graph().as_default() as g3:
        tw.import_graph_def(graph_def, name="")
        assert g3.get_operation_by_name("b").get_attr("_class") == [b"loc:@a"]
        assert g3.as_graph_def() == graph_def


def test_internal_attrs_must_be_strings(graph):
    a = tw.constant(1.0, name="a")
    with pytest.raises(ValueError, match="internal attr lists hold strings"):
        graph._create_op("Identity", [a], attrs={"_class": [1]}, name="bad")


def test_variables_colocated(graph):
    with tw.device("/job:ps/task:0"):
        v = tw.Variable([1.0, 2.0], name="v")
        g = tw.get_variable("g", [2], initializer=tw.zeros_initializer())
    with tw.device("/gpu:0"):
        assign = tw.assign(v, [3.0, 4.0], name="set_v")
    ops = {op.name: op for op in graph.get_operations()}
    assert ops["v/Assign"].get_attr("_class") == [b"loc:@v"]
    assert ops["v/read"].get_attr("_class") == [b"loc:@v"] and ops["v/read"].device == "/job:ps/task:0"
    # A callable initial value: built with no device, in the variable's group (TF's attr scope).
    assert ops["g/Initializer/zeros"].device == ""
    assert ops["g/Initializer/zeros"].get_attr("_class") == [b"loc:@g"]
    assert ops["g"].get_attr("_class") == [b"loc:@g"] and ops["g"].device == "/job:ps/task:0"
    # An op taking the variable by reference goes with it; the device scope around it does not apply.
    assert assign.device == "/job:ps/task:0" and assign.op.get_attr("_class") == [b"loc:@v"]
    assert g.value().op.get_attr("_class") == [b"loc:@g"]


@pytest.mark.parametrize(
    "make,slots",
    [
        (lambda: tw.train.MomentumOptimizer(0.1, 0.9), ["Momentum"]),
        (lambda: tw.train.AdamOptimizer(0.1), ["Adam", "Adam_1"]),
        (lambda: tw.train.RMSPropOptimizer(0.1), ["RMSProp", "RMSProp_1"]),
    ],
)
def test_optimizer_state_colocated(graph, make, slots):
    with tw.device("/job:ps/task:1"):
        v = tw.Variable([1.0, 2.0], name="v")
    with tw.device("/job:worker/cpu:0"):
        train = make().minimize(tw.reduce_sum(v * v))
    ops = {op.name: op for op in graph.get_operations()}
    for slot in slots:
        for suffix in ("", "/Assign", "/read", "/Initializer/zeros"):
            name = f"v/{slot}{suffix}"
            if name in ops:
                assert ops[name].device == "/job:ps/task:1", name
                assert ops[name].get_attr("_class") == [b"loc:@v"], name
        assert f"v/{slot}" in ops
    updates = [op for op in ops.values() if op.type.startswith("Apply")]
    assert updates and all(op.device == "/job:ps/task:1" for op in updates)
    assert all(op.get_attr("_class") == [b"loc:@v"] for op in updates)
    # The training op: the group of updates on their device, under the worker's scope.
    assert train.device == "/job:ps/task:1/device:CPU:0"


@pytest.mark.skipif(not _HAS_DEVICE_BINDINGS, reason="the device runtime's bindings are not built yet")
def test_training_with_state_on_another_device(graph):
    """The variable and its Adam slots on CPU:1, the model on CPU:0: the step trains as on one device."""
    with tw.device("/cpu:1"):
        v = tw.Variable([1.0, -2.0], name="v")
    with tw.device("/cpu:0"):
        loss = tw.reduce_sum(v * v)
        train = tw.train.AdamOptimizer(0.1).minimize(loss)
    ops = {op.name: op for op in graph.get_operations()}
    assert ops["v/Adam"].device == ops["v/Adam_1"].device == "/device:CPU:1"
    with tw.Session(config=tw.ConfigProto(device_count={"CPU": 2})) as sess:
        sess.run(tw.global_variables_initializer())
        for _ in range(3):
            sess.run(train)
        after = sess.run(v)
    # The same three Adam steps in numpy (TF's update rule, gradient 2v).
    x, m, s = np.array([1.0, -2.0]), np.zeros(2), np.zeros(2)
    for t in range(1, 4):
        g = 2 * x
        m = 0.9 * m + 0.1 * g
        s = 0.999 * s + 0.001 * g * g
        x = x - 0.1 * np.sqrt(1 - 0.999**t) / (1 - 0.9**t) * m / (np.sqrt(s) + 1e-8)
    np.testing.assert_allclose(after, x, rtol=1e-5)


def test_group_across_devices(graph):
    with tw.device("/cpu:0"):
        a = tw.constant(1.0, name="a")
    with tw.device("/cpu:1"):
        b = tw.constant(1.0, name="b")
    g = tw.group(a, [b, None], name="g")
    assert g.name == "g"
    inner = sorted(g.control_inputs, key=lambda op: op.name)
    assert [(op.name, op.device) for op in inner] == [("g/NoOp", "/device:CPU:0"), ("g/NoOp_1", "/device:CPU:1")]
    one = tw.group(b, name="one")
    assert one.device == "/device:CPU:1" and one.control_inputs == [b.op]
    assert tw.group(name="empty").control_inputs == []


# --- session configuration -------------------------------------------------------------------------------------------


def test_config_proto_defaults_and_fields():
    c = tw.ConfigProto()
    assert c.allow_soft_placement is False and c.log_device_placement is False  # TF1's defaults
    assert c.device_count == {} and c.gpu_options.allow_growth is False
    c = tw.ConfigProto(device_count={"CPU": 4, "GPU": 0}, allow_soft_placement=True, log_device_placement=True)
    assert c.device_count == {"CPU": 4, "GPU": 0} and c.allow_soft_placement and c.log_device_placement
    with pytest.raises(TypeError):
        tw.ConfigProto(device_count={"CPU": "four"})
    with pytest.raises(TypeError):
        tw.ConfigProto(device_count={"CPU": 1.5})
    with pytest.raises(TypeError):
        tw.ConfigProto(allow_soft_placement="yes")
    with pytest.raises(TypeError):
        tw.ConfigProto(bogus=1)


def test_run_options_and_metadata_fields():
    r = tw.RunOptions()
    assert (r.trace_level, r.timeout_in_ms, r.inter_op_thread_pool) == (0, 0, 0)
    assert r.output_partition_graphs is False and r.report_tensor_allocations_upon_oom is False
    assert (tw.RunOptions.NO_TRACE, tw.RunOptions.SOFTWARE_TRACE) == (0, 1)
    assert (tw.RunOptions.HARDWARE_TRACE, tw.RunOptions.FULL_TRACE) == (2, 3)
    assert tw.RunOptions.TraceLevel.Name(2) == "HARDWARE_TRACE"
    assert tw.RunOptions.TraceLevel.Value("FULL_TRACE") == 3
    with pytest.raises(ValueError):
        tw.RunOptions.TraceLevel.Value("LOUD")
    r = tw.RunOptions(trace_level="SOFTWARE_TRACE", timeout_in_ms=100, inter_op_thread_pool=1)
    assert (r.trace_level, r.timeout_in_ms, r.inter_op_thread_pool) == (1, 100, 1)
    with pytest.raises(TypeError):
        tw.RunOptions(timeout_in_ms="soon")
    m = tw.RunMetadata()
    assert m.partition_graphs == [] and m.step_stats.dev_stats == [] and m.cost_graph.node == []


def test_run_with_options(graph):
    a = tw.placeholder(tw.float32, [2], name="a")
    y = a * 2.0
    with tw.Session() as sess:
        m = tw.RunMetadata()
        m.partition_graphs.append(graph_pb2.GraphDef())  # a reused metadata is cleared by the run
        out = sess.run(y, {a: [1.0, 2.0]}, options=tw.RunOptions(trace_level=tw.RunOptions.FULL_TRACE), run_metadata=m)
        np.testing.assert_allclose(out, [2.0, 4.0])
        assert m.partition_graphs == []
        f = sess.make_callable(y, [a], accept_options=True)
        np.testing.assert_allclose(f([3.0, 4.0], options=tw.RunOptions(), run_metadata=m), [6.0, 8.0])
        np.testing.assert_allclose(f([1.0, 1.0]), [2.0, 2.0])
        with pytest.raises(TypeError):
            sess.make_callable(y, [a])([1.0, 1.0], options=tw.RunOptions())
        with pytest.raises(TypeError, match="RunOptions"):
            sess.run(y, {a: [1.0, 2.0]}, options="fast")
        with pytest.raises(TypeError, match="RunMetadata"):
            sess.run(y, {a: [1.0, 2.0]}, options=tw.RunOptions(), run_metadata={})


@pytest.mark.skipif(
    not hasattr(_pywrap.Session, "run_callable_with_metadata"), reason="the partitioning runtime is not built yet"
)
def test_partition_graphs(graph):
    with tw.device("/cpu:0"):
        a = tw.constant([1.0, 2.0], name="a")
    with tw.device("/cpu:1"):
        b = tw.multiply(a, 3.0, name="b")
    with tw.Session(config=tw.ConfigProto(device_count={"CPU": 2})) as sess:
        m = tw.RunMetadata()
        out = sess.run(b, options=tw.RunOptions(output_partition_graphs=True), run_metadata=m)
        np.testing.assert_allclose(out, [3.0, 6.0])
        assert len(m.partition_graphs) == 2
        assert all(isinstance(g, graph_pb2.GraphDef) for g in m.partition_graphs)
        names = [{n.name for n in g.node} for g in m.partition_graphs]
        assert any("a" in s for s in names) and any("b" in s for s in names)
        sess.run(b, run_metadata=m)  # no options: cleared, not filled
        assert m.partition_graphs == []


# --- local devices on this (CPU-only) machine -------------------------------------------------------------------------


def _no_gpu_here():
    try:
        return subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode != 0
    except FileNotFoundError:
        return True


@_needs_devices
def test_list_local_devices_cpu():
    from tensorweave.python.client import device_lib

    devices = device_lib.list_local_devices()
    cpus = [d for d in devices if d.device_type == "CPU"]
    assert [d.name for d in cpus] == ["/device:CPU:0"]
    assert cpus[0].memory_limit > 0 and cpus[0].incarnation != 0
    assert isinstance(cpus[0].physical_device_desc, str)
    four = device_lib.list_local_devices(tw.ConfigProto(device_count={"CPU": 4}))
    assert [d.name for d in four if d.device_type == "CPU"] == [f"/device:CPU:{i}" for i in range(4)]
    assert len({d.incarnation for d in four}) == len(four)


@_needs_devices
@pytest.mark.skipif(not _no_gpu_here(), reason="this machine has a GPU")
def test_no_gpu_on_this_machine():
    assert tw.test.is_gpu_available() is False
    assert tw.test.is_gpu_available(cuda_only=True, min_cuda_compute_capability=(3, 5)) is False
    assert tw.test.gpu_device_name() == ""
    assert tw.config.list_physical_devices("GPU") == []
    assert tw.config.experimental.list_physical_devices("GPU") == []
    cpus = tw.config.list_physical_devices("CPU")
    assert [(d.name, d.device_type) for d in cpus] == [("/physical_device:CPU:0", "CPU")]
    assert tw.config.list_physical_devices() == cpus
    assert tw.config.list_logical_devices() == [("/device:CPU:0", "CPU")]
    assert tw.config.experimental.list_logical_devices("GPU") == []


@_needs_devices
def test_session_list_devices():
    with tw.Graph().as_default():
        with tw.Session(config=tw.ConfigProto(device_count={"CPU": 3})) as sess:
            devices = sess.list_devices()
    names = [d.name for d in devices if d.device_type == "CPU"]
    assert names == [f"/job:localhost/replica:0/task:0/device:CPU:{i}" for i in range(3)]
    assert all(d.memory_limit_bytes > 0 for d in devices)


def test_gpu_capability_parsing(monkeypatch):
    """is_gpu_available reads the compute capability from the device description, as TF does."""
    from tensorweave._src.client import device_lib

    gpu = ("/job:localhost/replica:0/task:0/device:GPU:0", "GPU", 1 << 30, 7, "name: H100, compute capability: 9.0")
    cpu = ("/job:localhost/replica:0/task:0/device:CPU:0", "CPU", 1 << 28, 5, "")
    monkeypatch.setattr(device_lib, "_local_devices", lambda count: [cpu, gpu])
    assert device_lib.is_gpu_available() is True
    assert device_lib.is_gpu_available(min_cuda_compute_capability=(8, 0)) is True
    assert device_lib.is_gpu_available(min_cuda_compute_capability=(9, 1)) is False
    assert device_lib.gpu_device_name() == "/device:GPU:0"
    assert [d.name for d in device_lib.list_physical_devices()] == ["/physical_device:CPU:0", "/physical_device:GPU:0"]
    monkeypatch.setattr(device_lib, "_local_devices", lambda count: [cpu])
    assert device_lib.is_gpu_available() is False and device_lib.gpu_device_name() == ""


def test_device_lib_module_path():
    """TF1 programs import it as tensorflow.python.client.device_lib."""
    code = "from tensorweave.python.client import device_lib; print(device_lib.list_local_devices.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "list_local_devices", out.stderr


# --- replica_device_setter ---------------------------------------------------------------------------------------------


def test_replica_device_setter(graph):
    setter = tw.train.replica_device_setter(ps_tasks=2, worker_device="/job:worker/task:3")
    with tw.device(setter):
        a = tw.Variable(1.0, name="a")
        b = tw.Variable(2.0, name="b")
        c = tw.Variable(3.0, name="c")
        with tw.device("/job:ps/task:1"):
            d = tw.Variable(4.0, name="d")  # a task set inside is kept (no task taken from the cycle)
        s = a + b
    assert [v.device for v in (a, b, c, d)] == ["/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:0", "/job:ps/task:1"]
    assert s.device == "/job:worker/task:3"
    assert a.initial_value.device == "/job:worker/task:3"  # only the variable ops go to the ps
    assert tw.train.replica_device_setter() is None
    assert tw.train.replica_device_setter(cluster={"worker": ["w:1"]}) is None
    with pytest.raises(TypeError, match="ps_strategy must be callable"):
        tw.train.replica_device_setter(ps_tasks=1, ps_strategy="round")
    with pytest.raises(TypeError, match="cluster must be"):
        tw.train.replica_device_setter(cluster=["ps"])


# --- the session's placement options reach the runtime ---------------------------------------------------------------


@_needs_devices
@pytest.mark.skipif(not _no_gpu_here(), reason="this machine has a GPU")
def test_soft_placement_is_off_by_default(graph):
    with tw.device("/gpu:0"):
        c = tw.multiply(tw.constant(1.0, name="one"), 2.0, name="c")
    with tw.Session() as sess:
        with pytest.raises(tw.errors.InvalidArgumentError, match="Cannot assign a device for operation"):
            sess.run(c)
    with tw.Session(config=tw.ConfigProto(allow_soft_placement=True)) as sess:
        assert sess.run(c) == 2.0


@_needs_devices
def test_log_device_placement():
    code = (
        "import tensorweave as tw\n"
        "with tw.device('/cpu:1'):\n"
        "    a = tw.constant(1.0, name='a')\n"
        "b = tw.multiply(a, 2.0, name='b')\n"
        "config = tw.ConfigProto(device_count={'CPU': 2}, log_device_placement=True)\n"
        "with tw.Session(config=config) as sess:\n"
        "    print(sess.run(b))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "2.0"
    assert "a: (Const): /job:localhost/replica:0/task:0/device:CPU:1" in proc.stderr
    assert "b: (Mul): /job:localhost/replica:0/task:0/device:CPU:0" in proc.stderr


@pytest.mark.skipif(
    not hasattr(_pywrap.Session, "run_callable_with_metadata"), reason="the partitioning runtime is not built yet"
)
def test_class_attr_reaches_the_placer(graph):
    """An op with no device of its own goes where its colocation group is placed (the `_class` attr is what
    the C++ placer reads)."""
    a = tw.constant([1.0, 2.0], name="a")
    with tw.colocate_with(a):
        with tw.device("/cpu:1"):
            c = tw.identity(a, name="c")
    d = tw.multiply(c, 2.0, name="d")
    assert a.device == "" and c.device == "/device:CPU:1"
    with tw.Session(config=tw.ConfigProto(device_count={"CPU": 2})) as sess:
        m = tw.RunMetadata()
        np.testing.assert_allclose(
            sess.run(d, options=tw.RunOptions(output_partition_graphs=True), run_metadata=m), [2.0, 4.0]
        )
    placed = {n.name: n.device for g in m.partition_graphs for n in g.node}
    assert placed["a"] == placed["c"] == "/job:localhost/replica:0/task:0/device:CPU:1"
    assert placed["d"] == "/job:localhost/replica:0/task:0/device:CPU:0"

"""The graph API: names, scopes, devices, control dependencies, lookups,
shapes and collections."""

import numpy as np
import pytest

import tensorweave as tw


def test_default_graph_fixture(graph):
    assert tw.get_default_graph() is graph
    c = tw.constant(1)
    assert c.graph is graph and c.op.graph is graph


def test_names_and_uniquification(graph):
    a = tw.constant(1.0)
    b = tw.constant(2.0)
    s1 = tw.add(a, b)
    s2 = tw.add(a, b)
    s3 = a + b
    assert a.op.name == "Const" and b.op.name == "Const_1"
    # As TF1: tf.add opens "Add", the + operator "add" (names are unique regardless of case).
    assert s1.op.name == "Add" and s2.op.name == "Add_1" and s3.op.name == "add_2"
    assert s1.name == "Add:0"
    assert s1.op.type == "AddV2"  # TensorFlow 2.x compat.v1: tf.add and + are AddV2 ops (Add for strings)
    n1 = tw.add(a, b, name="sum")
    n2 = tw.add(a, b, name="sum")
    assert n1.name == "sum:0" and n2.name == "sum_1:0"
    assert n2.op.name == "sum_1"
    # An explicit name that collides with a generated one.
    n3 = tw.add(a, b, name="sum_1")
    assert n3.op.name not in ("sum", "sum_1")
    # Uniqueness ignores case, as in TensorFlow: "add" follows Add, Add_1, Add_2.
    assert tw.add(a, b, name="add").op.name == "add_3"
    names = [op.name for op in graph.get_operations()]
    assert len(names) == len(set(names))


def test_names_case_insensitive_uniqueness(graph):
    a = tw.constant(1.0, name="foo")
    b = tw.constant(1.0, name="Foo")
    assert a.op.name == "foo" and b.op.name.lower() != "foo"


def test_name_scope_nesting(graph):
    with tw.name_scope("outer") as outer:
        assert outer == "outer/"
        a = tw.constant(1.0, name="a")
        with tw.name_scope("inner") as inner:
            assert inner == "outer/inner/"
            b = tw.constant(1.0, name="b")
            c = a + b
        with tw.name_scope("inner") as inner2:
            assert inner2 == "outer/inner_1/"
            d = tw.constant(1.0, name="d")
    with tw.name_scope("outer"):
        e = tw.constant(1.0, name="e")
    assert a.op.name == "outer/a"
    assert b.op.name == "outer/inner/b"
    assert c.op.name == "outer/inner/add"
    assert d.op.name == "outer/inner_1/d"
    assert e.op.name == "outer_1/e"
    assert graph.get_name_scope() == ""


def test_name_scope_reenter_and_reset(graph):
    with tw.name_scope("s") as scope:
        pass
    with tw.name_scope(scope):
        a = tw.constant(1, name="a")
    with tw.name_scope("x"):
        with tw.name_scope(None):
            b = tw.constant(1, name="b")
    assert a.op.name == "s/a" and b.op.name == "b"


def test_name_scope_default_name(graph):
    with tw.name_scope(None, default_name="dflt") as s:
        assert s == "dflt/"


def test_invalid_scope_name(graph):
    with pytest.raises(ValueError):
        with tw.name_scope("bad name!"):
            pass


def test_variable_name_in_scope(graph):
    with tw.name_scope("layer"):
        v = tw.Variable(1.0, name="w")
    assert v.op.name == "layer/w"
    assert v.value().name == "layer/w/read:0"


@pytest.mark.parametrize(
    "spec,canonical",
    [
        ("/cpu:0", "/device:CPU:0"),
        ("/CPU:0", "/device:CPU:0"),
        ("/device:CPU:0", "/device:CPU:0"),
        ("/gpu:1", "/device:GPU:1"),
        ("cpu", "/device:CPU:*"),  # TF1: a type without an index is any index
        ("/job:ps/task:0/cpu:0", "/job:ps/task:0/device:CPU:0"),
    ],
)
def test_device_scope_canonical(graph, spec, canonical):
    with tw.device(spec):
        c = tw.constant(1.0)
    assert c.op.device == canonical
    assert c.device == canonical


def test_device_scope_nesting_and_default(graph):
    a = tw.constant(1.0)
    assert a.op.device == ""
    with tw.device("/cpu:0"):
        b = tw.constant(1.0)
        with tw.device("/gpu:0"):
            c = tw.constant(1.0)
        with tw.device(None):
            d = tw.constant(1.0)
        e = b + b
        v = tw.Variable(1.0)
    f = tw.constant(1.0)
    assert b.op.device == "/device:CPU:0"
    assert c.op.device == "/device:GPU:0"
    assert d.op.device == ""
    assert e.op.device == "/device:CPU:0"
    assert v.device == "/device:CPU:0" and v.value().device == "/device:CPU:0"
    assert f.op.device == ""
    node = e.op.node_def
    assert node.device == "/device:CPU:0"


def test_device_cpu_graph_runs(sess):
    with tw.device("/cpu:0"):
        a = tw.constant([1, 2]) * 3
    np.testing.assert_array_equal(sess.run(a), [3, 6])


def test_invalid_device(graph):
    # TF1 knows the types CPU, GPU, TPU, CUSTOM, EPU in the short form; anything else is a ValueError.
    with pytest.raises(ValueError, match="Unknown attribute 'npu'"):
        with tw.device("/npu:0"):
            pass


def test_control_dependencies_order(sess):
    v = tw.Variable(0)
    sess.run(v.initializer)
    first = tw.assign(v, 10)
    with tw.control_dependencies([first]):
        second = tw.assign_add(v, 1)
    # As TF: the constant 1, made inside the block, carries the dependency (the assign reading it is dominated).
    assert second.op.control_inputs == [] and second.op.inputs[1].op.control_inputs == [first.op]
    # Running `second` also runs `first`, before it.
    assert sess.run(second) == 11
    sess.run(tw.assign(v, 100))
    assert sess.run(second) == 11


def test_control_dependencies_read_after_write(sess):
    v = tw.Variable(1.0)
    sess.run(v.initializer)
    upd = tw.assign_add(v, 1.0)
    with tw.control_dependencies([upd]):
        after = v.read_value()
    assert sess.run(after) == 2.0
    assert sess.run(after) == 3.0


def test_control_dependencies_nesting_and_clearing(graph):
    a = tw.no_op(name="a")
    b = tw.no_op(name="b")
    with tw.control_dependencies([a]):
        x = tw.constant(1)
        with tw.control_dependencies([b]):
            y = tw.constant(1)
        with tw.control_dependencies(None):
            z = tw.constant(1)
    assert x.op.control_inputs == [a]
    assert set(op.name for op in y.op.control_inputs) == {"a", "b"}
    assert z.op.control_inputs == []


def test_control_dependencies_on_tensor_and_bad_input(graph):
    c = tw.constant(1)
    with tw.control_dependencies([c]):
        d = tw.constant(2)
    assert d.op.control_inputs == [c.op]
    with pytest.raises(TypeError):
        with tw.control_dependencies([1]):
            pass


def test_group(sess):
    v = tw.Variable(0)
    w = tw.Variable(0)
    sess.run(tw.group(v.initializer, w.initializer))
    g = tw.group(tw.assign_add(v, 1), tw.assign_add(w, 2))
    assert isinstance(g, tw.Operation) and g.type == "NoOp"
    sess.run(g)
    sess.run(g)
    assert sess.run([v, w]) == [2, 4]


def test_get_operation_and_tensor_by_name(graph):
    with tw.name_scope("s"):
        x = tw.placeholder(tw.float32, [2], name="x")
        y = tw.identity(x, name="y")
    assert graph.get_operation_by_name("s/x") is x.op
    assert graph.get_tensor_by_name("s/y:0") is y
    assert graph.get_tensor_by_name("s/x:0") is x
    with pytest.raises(KeyError):
        graph.get_operation_by_name("s/zzz")
    with pytest.raises(KeyError):
        graph.get_tensor_by_name("s/y:1")
    with pytest.raises(ValueError):
        graph.get_tensor_by_name("s/y")
    assert graph.as_graph_element("s/y:0") is y
    assert graph.as_graph_element("s/y") is y.op
    assert graph.get_operations() == [x.op, y.op]


def test_operation_properties(graph):
    a = tw.constant(np.ones((2, 3), np.float32), name="a")
    b = tw.constant(np.ones((3, 4), np.float32), name="b")
    m = tw.matmul(a, b, transpose_a=False, name="m")
    op = m.op
    assert op.type == "MatMul"
    assert list(op.inputs) == [a, b]
    assert list(op.outputs) == [m] and op.values() == (m,)
    assert op.get_attr("transpose_a") is False
    assert op.get_attr("T") == tw.float32
    assert m.value_index == 0
    assert a.consumers() == [op]
    assert "m" in repr(op) and "MatMul" in repr(op)
    assert "m:0" in repr(m)
    nd = op.node_def
    assert nd.name == "m" and nd.op == "MatMul"
    assert [i.split(":")[0] for i in nd.input] == ["a", "b"]


def test_tensor_shapes(graph):
    c = tw.constant(np.zeros((2, 3), np.float32))
    assert c.shape.as_list() == [2, 3]
    assert c.get_shape() == tw.TensorShape([2, 3])
    assert c.shape.ndims == 2 and c.shape.is_fully_defined()
    assert c.shape.num_elements() == 6
    assert c.shape[0] == 2 and len(c.shape) == 2
    p = tw.placeholder(tw.float32, [None, 3])
    assert p.shape.as_list() == [None, 3]
    assert not p.shape.is_fully_defined()
    assert p.shape.num_elements() is None
    u = tw.placeholder(tw.int32)
    assert u.shape.ndims is None
    with pytest.raises(ValueError):
        u.shape.as_list()
    s = tw.constant(1.0)
    assert s.shape.as_list() == [] and s.shape.ndims == 0
    assert tw.matmul(p, tw.constant(np.zeros((3, 5), np.float32))).shape.as_list() == [None, 5]
    assert (u + 1).shape.ndims is None


def test_set_shape(graph):
    p = tw.placeholder(tw.float32, [None, 3])
    p.set_shape([4, 3])
    assert p.shape.as_list() == [4, 3]
    with pytest.raises(ValueError):
        p.set_shape([5, 3])


def test_shape_op_and_reshape(sess):
    p = tw.placeholder(tw.float32, [None, 3])
    s = tw.shape(p)
    assert s.dtype == tw.int32 and s.shape.as_list() == [2]
    np.testing.assert_array_equal(sess.run(s, {p: np.zeros((4, 3))}), [4, 3])
    r = tw.reshape(p, [-1])
    assert r.shape.as_list() == [None]
    np.testing.assert_array_equal(sess.run(r, {p: np.arange(6).reshape(2, 3)}), np.arange(6))
    r2 = tw.reshape(tw.constant(np.arange(12)), [3, -1])
    assert r2.shape.as_list() == [3, 4]


def test_fill_zeros_ones(sess):
    z = tw.zeros([2, 3], tw.int32)
    o = tw.ones([2], tw.float64)
    f = tw.fill([2, 2], 7.0)
    zv, ov, fv = sess.run([z, o, f])
    assert zv.dtype == np.int32 and zv.shape == (2, 3) and not zv.any()
    assert ov.dtype == np.float64 and list(ov) == [1.0, 1.0]
    np.testing.assert_array_equal(fv, np.full((2, 2), 7.0, np.float32))
    p = tw.placeholder(tw.int32, [None])
    dyn = tw.zeros(p)
    np.testing.assert_array_equal(sess.run(dyn, {p: [2, 1]}), np.zeros((2, 1)))


def test_cast(sess):
    x = tw.constant([1.7, -1.7, 2.0])
    i = tw.cast(x, tw.int32)
    assert i.dtype == tw.int32
    np.testing.assert_array_equal(sess.run(i), [1, -1, 2])
    np.testing.assert_array_equal(sess.run(tw.to_float(tw.constant([1, 2]))), [1.0, 2.0])
    assert tw.cast(x, tw.float32) is x


def test_collections(graph):
    a = tw.constant(1)
    tw.add_to_collection("mine", a)
    tw.add_to_collections(["x", "y"], a)
    assert tw.get_collection("mine") == [a]
    assert tw.get_collection("x") == [a] and tw.get_collection("y") == [a]
    assert tw.get_collection("missing") == []
    # get_collection returns a copy; get_collection_ref the list itself.
    tw.get_collection("mine").append(2)
    assert tw.get_collection("mine") == [a]
    ref = tw.get_collection_ref("mine")
    ref.append(3)
    assert tw.get_collection("mine") == [a, 3]
    assert set(graph.get_all_collection_keys()) >= {"mine", "x", "y"}
    graph.clear_collection("x")
    assert tw.get_collection("x") == []
    with tw.Graph().as_default():
        assert tw.get_collection("mine") == []


def test_graph_isolation():
    g1, g2 = tw.Graph(), tw.Graph()
    with g1.as_default():
        a = tw.constant(1, name="a")
    with g2.as_default():
        b = tw.constant(2, name="a")
        assert tw.get_default_graph() is g2
    assert a.name == b.name == "a:0"
    assert a.graph is g1 and b.graph is g2
    assert g1.get_operations() == [a.op]


def test_reset_default_graph():
    # Outside any as_default() block: the global default graph.
    before = tw.get_default_graph()
    tw.reset_default_graph()
    after = tw.get_default_graph()
    assert after is not before
    with tw.Graph().as_default():
        with pytest.raises(AssertionError):
            tw.reset_default_graph()


def test_default_graph_is_thread_local(graph):
    import threading

    seen = []
    t = threading.Thread(target=lambda: seen.append(tw.get_default_graph()))
    t.start()
    t.join()
    assert seen[0] is not graph


def test_constant_dtype_inference(graph):
    assert tw.constant(1).dtype == tw.int32
    assert tw.constant(2**40).dtype == tw.int64
    assert tw.constant(1.0).dtype == tw.float32
    assert tw.constant(True).dtype == tw.bool
    assert tw.constant(np.float64(1)).dtype == tw.float64
    assert tw.constant(np.array([1], np.uint8)).dtype == tw.uint8
    assert tw.constant("s").dtype == tw.string
    with pytest.raises(TypeError):
        tw.constant(1.5, dtype=tw.int32)
    # TF1's constant(value, shape): too few values are padded with the last, too many are a ValueError.
    with pytest.raises(TypeError):
        tw.constant([1, 2, 3], shape=[2, 2], verify_shape=True)
    with pytest.raises(ValueError):
        tw.constant([1, 2, 3, 4, 5], shape=[2, 2])


def test_constant_shape_broadcast(sess):
    np.testing.assert_array_equal(sess.run(tw.constant(3, shape=[2, 2])), np.full((2, 2), 3))
    c = tw.constant([1, 2, 3, 4], shape=[2, 2])
    np.testing.assert_array_equal(sess.run(c), [[1, 2], [3, 4]])


def test_string_constant_roundtrip(sess):
    s = tw.constant(["ab", b"cd"])
    out = sess.run(s)
    assert list(out) == [b"ab", b"cd"]


def test_convert_to_tensor(graph):
    t = tw.convert_to_tensor([1, 2])
    assert t.dtype == tw.int32
    assert tw.convert_to_tensor(t) is t
    with pytest.raises(ValueError):
        tw.convert_to_tensor(t, dtype=tw.float32)
    v = tw.Variable(1.0)
    assert tw.convert_to_tensor(v) is v.value()

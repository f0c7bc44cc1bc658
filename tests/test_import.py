"""GraphDef serialization, import_graph_def, and `import tensorweave` itself."""

import os
import subprocess
import sys

import numpy as np
import pytest

import tensorweave as tw


def _build_model():
    """A small graph exercising most node kinds; returns (graph, names)."""
    g = tw.Graph()
    with g.as_default():
        x = tw.placeholder(tw.float32, [None, 3], name="x")
        with tw.name_scope("layer"):
            w = tw.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name="w")
            b = tw.Variable(np.array([0.5, -0.5], np.float32), name="b")
            y = tw.add(tw.matmul(x, w), b, name="y")
        with tw.device("/cpu:0"):
            z = tw.multiply(y, 2.0, name="z")
        k = tw.constant(np.array([[1, 2], [3, 4]], np.int64), name="k")
        s = tw.constant(["a", "bc"], name="s")
        r = tw.reshape(k, [-1], name="r")
        with tw.control_dependencies([z]):
            after = tw.identity(r, name="after")
        tw.random_uniform([2], seed=3, name="rnd")
        tw.global_variables_initializer()
    return g


def _serialize(g):
    return g.as_graph_def().SerializeToString(deterministic=True)


def test_as_graph_def_contents():
    g = _build_model()
    gd = g.as_graph_def()
    names = [n.name for n in gd.node]
    assert names == [op.name for op in g.get_operations()]
    by_name = {n.name: n for n in gd.node}
    assert by_name["x"].op == "Placeholder"
    assert by_name["layer/y"].op == "AddV2"
    assert by_name["z"].device == "/device:CPU:0"
    assert any(i == "^z" for i in by_name["after"].input)
    mm = by_name[g.get_tensor_by_name("layer/y:0").op.inputs[0].op.name]
    assert mm.attr["transpose_a"].b is False


def test_round_trip_identical():
    g = _build_model()
    gd = g.as_graph_def()
    g2 = tw.Graph()
    with g2.as_default():
        assert tw.import_graph_def(gd, name="") is None
    assert [op.name for op in g2.get_operations()] == [op.name for op in g.get_operations()]
    assert _serialize(g2) == _serialize(g)
    assert g2.as_graph_def() == gd
    # And once more, from the bytes.
    g3 = tw.Graph()
    with g3.as_default():
        tw.import_graph_def(gd.SerializeToString(), name="")
    assert g3.as_graph_def() == gd


def test_imported_ops_have_same_metadata():
    g = _build_model()
    g2 = tw.Graph()
    with g2.as_default():
        tw.import_graph_def(g.as_graph_def(), name="")
    for a, b in zip(g.get_operations(), g2.get_operations()):
        assert (a.name, a.type, a.device) == (b.name, b.type, b.device)
        assert [t.name for t in a.inputs] == [t.name for t in b.inputs]
        assert [c.name for c in a.control_inputs] == [c.name for c in b.control_inputs]
        for ta, tb in zip(a.outputs, b.outputs):
            assert ta.dtype == tb.dtype
            assert ta.shape == tb.shape or ta.shape.ndims is None


def test_imported_graph_runs_the_same():
    g = _build_model()
    feed = np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 1.0]], np.float32)
    fetches = ["z:0", "after:0", "s:0", "rnd/RandomUniform:0"]
    with tw.Session(graph=g) as s:
        s.run("init")
        expected = s.run(fetches, {"x:0": feed})
    g2 = tw.Graph()
    with g2.as_default():
        tw.import_graph_def(g.as_graph_def(), name="")
    with tw.Session(graph=g2) as s:
        s.run("init")
        got = s.run(fetches, {"x:0": feed})
    np.testing.assert_allclose(got[0], expected[0])
    w = np.arange(6, dtype=np.float32).reshape(3, 2)
    np.testing.assert_allclose(got[0], (feed @ w + [0.5, -0.5]) * 2.0)
    np.testing.assert_array_equal(got[1], [1, 2, 3, 4])
    assert got[1].dtype == np.int64
    assert list(got[2]) == [b"a", b"bc"]
    np.testing.assert_array_equal(got[3], expected[3])  # seeded: same values


def test_import_with_prefix_and_return_elements():
    g = _build_model()
    g2 = tw.Graph()
    with g2.as_default():
        z, x_op = tw.import_graph_def(g.as_graph_def(), return_elements=["z:0", "x"], name="m")
        assert z.name == "m/z:0" and x_op.name == "m/x"
        assert isinstance(z, tw.Tensor) and isinstance(x_op, tw.Operation)
        assert g2.get_operation_by_name("m/layer/w").type == "VariableV2"
        assert z.op.device == "/device:CPU:0"
        (z2,) = tw.import_graph_def(g.as_graph_def(), return_elements=["z:0"], name="m")
        assert z2.name == "m_1/z:0"
        (z3,) = tw.import_graph_def(g.as_graph_def(), return_elements=["z:0"])
        assert z3.name == "import/z:0"
    with tw.Session(graph=g2) as s:
        s.run(["m/init", "m_1/init"])
        out = s.run([z, z2], {x_op.outputs[0]: np.ones((1, 3)), "m_1/x:0": np.ones((1, 3))})
        np.testing.assert_allclose(out[0], out[1])
        np.testing.assert_allclose(out[0], [[2 * (6 + 0.5), 2 * (9 - 0.5)]])


def test_import_input_map_replaces_placeholder():
    g = tw.Graph()
    with g.as_default():
        x = tw.placeholder(tw.float32, [None], name="x")
        tw.multiply(x, 3.0, name="y")
    gd = g.as_graph_def()
    g2 = tw.Graph()
    with g2.as_default():
        c = tw.constant([1.0, 2.0], name="c")
        (y,) = tw.import_graph_def(gd, input_map={"x:0": c}, return_elements=["y:0"], name="imp")
        assert y.op.inputs[0] is c
        (y2,) = tw.import_graph_def(gd, input_map={"x": c}, return_elements=["y:0"])
    with tw.Session(graph=g2) as s:
        # No feed needed: the placeholder's consumers read the constant.
        np.testing.assert_allclose(s.run(y), [3.0, 6.0])
        np.testing.assert_allclose(s.run(y2), [3.0, 6.0])


def test_import_input_map_dtype_mismatch():
    g = tw.Graph()
    with g.as_default():
        x = tw.placeholder(tw.float32, [None], name="x")
        tw.identity(x, name="y")
    with tw.Graph().as_default():
        c = tw.constant([1, 2])
        with pytest.raises((tw.errors.InvalidArgumentError, ValueError, TypeError)):
            tw.import_graph_def(g.as_graph_def(), input_map={"x:0": c})


def test_import_return_missing_element():
    g = _build_model()
    with tw.Graph().as_default():
        with pytest.raises((KeyError, ValueError)):
            tw.import_graph_def(g.as_graph_def(), return_elements=["nope:0"])


def test_import_name_conflict_with_empty_prefix():
    g = _build_model()
    g2 = tw.Graph()
    with g2.as_default():
        tw.import_graph_def(g.as_graph_def(), name="")
        with pytest.raises((tw.errors.OpError, ValueError)):
            tw.import_graph_def(g.as_graph_def(), name="")


def test_import_into_graph_then_add_ops():
    g = _build_model()
    g2 = tw.Graph()
    with g2.as_default():
        tw.import_graph_def(g.as_graph_def(), name="")
        z = g2.get_tensor_by_name("z:0")
        w = z + 1.0
        assert w.op.name == "add"
        # Imported names are taken: new ops and scopes are uniquified.
        assert tw.constant(1.0, name="x").op.name == "x_1"
        imported = {op.name for op in g.get_operations()}
        assert tw.constant(1.0).op.name not in imported
        with tw.name_scope("layer") as scope:
            assert scope == "layer_1/"
    with tw.Session(graph=g2) as s:
        s.run("init")
        np.testing.assert_allclose(s.run(w, {"x:0": np.zeros((1, 3))}), [[2.0, 0.0]])


def test_import_corrupt_bytes():
    g = _build_model()
    data = g.as_graph_def().SerializeToString()
    with tw.Graph().as_default():
        with pytest.raises((tw.errors.OpError, ValueError)):
            tw.import_graph_def(b"\xff\xff\xff garbage \x00\x01")
    with tw.Graph().as_default():
        with pytest.raises((tw.errors.OpError, ValueError)):
            tw.import_graph_def(data[: len(data) // 2])


def test_import_semantically_invalid_graph_def():
    from tensorweave._src.framework import graph_pb2

    g = tw.Graph()
    with g.as_default():
        tw.add(tw.constant(1.0, name="a"), tw.constant(2.0, name="b"), name="s")
    gd = g.as_graph_def()
    bad_op = graph_pb2.GraphDef()
    bad_op.CopyFrom(gd)
    bad_op.node[2].op = "NoSuchOp"
    bad_input = graph_pb2.GraphDef()
    bad_input.CopyFrom(gd)
    bad_input.node[2].input[1] = "missing:0"
    for bad in (bad_op, bad_input):
        g2 = tw.Graph()
        with g2.as_default():
            with pytest.raises(tw.errors.OpError):
                tw.import_graph_def(bad, name="")
            # A failed import leaves the graph usable and unchanged.
            assert g2.get_operations() == []
            tw.constant(1.0, name="a")


def test_import_tensorflow_style_inputs():
    """TensorFlow writes output 0 as "node" (no ":0")."""
    from tensorweave._src.framework import graph_pb2

    g = tw.Graph()
    with g.as_default():
        tw.add(tw.constant(1.0, name="a"), tw.constant(2.0, name="b"), name="s")
    gd = graph_pb2.GraphDef()
    gd.CopyFrom(g.as_graph_def())
    del gd.node[2].input[:]
    gd.node[2].input.extend(["a", "b"])
    g2 = tw.Graph()
    with g2.as_default():
        (s,) = tw.import_graph_def(gd, return_elements=["s:0"], name="")
    with tw.Session(graph=g2) as sess:
        assert sess.run(s) == 3.0


def test_graph_def_empty_graph():
    g = tw.Graph()
    gd = g.as_graph_def()
    assert len(gd.node) == 0
    with tw.Graph().as_default() as g2:
        tw.import_graph_def(gd)
        assert g2.get_operations() == []


# --- import tensorweave --------------------------------------------------------------


def _run_python(code):
    env = dict(os.environ)
    pkg_root = os.path.dirname(os.path.dirname(os.path.abspath(tw.__file__)))
    env["PYTHONPATH"] = pkg_root + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)


def test_import_does_not_load_protobuf():
    """What keeps `import tensorweave` fast: protobuf is loaded lazily."""
    code = (
        "import sys\n"
        "import tensorweave as tw\n"
        "assert tw.__file__.startswith(%r), tw.__file__\n"
        "bad = sorted(m for m in sys.modules if m.startswith('google.protobuf'))\n"
        "print(bad)\n"
        "with tw.Graph().as_default():\n"
        "    c = tw.constant([1.0, 2.0]) * 2.0\n"
        "    with tw.Session() as s:\n"
        "        print(s.run(c).tolist())\n"
        "bad2 = sorted(m for m in sys.modules if m.startswith('google.protobuf'))\n"
        "print(bool(bad2))\n"
    ) % os.path.dirname(tw.__file__)
    proc = _run_python(code)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "[]", lines[0]
    assert lines[1] == "[2.0, 4.0]"
    # Building and running a graph does not need protobuf either.
    assert lines[2] == "False"


def test_as_graph_def_loads_protobuf_lazily():
    code = (
        "import sys\n"
        "import tensorweave as tw\n"
        "g = tw.Graph()\n"
        "with g.as_default():\n"
        "    tw.constant(1)\n"
        "print(len(g.as_graph_def().node))\n"
        "print('google.protobuf' in sys.modules)\n"
    )
    proc = _run_python(code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["1", "True"]


def test_public_api_names():
    for name in [
        "placeholder",
        "Variable",
        "Session",
        "InteractiveSession",
        "ConfigProto",
        "Graph",
        "constant",
        "add",
        "subtract",
        "multiply",
        "div",
        "truediv",
        "matmul",
        "assign",
        "assign_add",
        "assign_sub",
        "global_variables_initializer",
        "trainable_variables",
        "get_variable",
        "variable_scope",
        "AUTO_REUSE",
        "import_graph_def",
        "name_scope",
        "device",
        "control_dependencies",
        "set_random_seed",
        "errors",
        "float32",
        "float64",
        "int32",
        "int64",
        "uint8",
    ]:
        assert hasattr(tw, name), name
    assert tw.errors.InvalidArgumentError is tw.errors.exception_type_from_error_code(3)

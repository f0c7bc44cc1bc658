"""Defects the fourth round of tools/bad_input_sweep.py (--set s23: gradients with hostile run-time values and
misused grad_ys, while_loop and the functional ops misused, queues, tf.io and gfile, the converter CLI, hostile
ONNX graphs) found, checked against tensorflow.compat.v1 2.21 where TF has the API."""

import os
import subprocess
import sys

import numpy as np
import pytest
import tensorweave as tw

from tests.bad_inputs_util import error_of, expect_error, need_tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PH = "placeholder_with_default"


def _values(build):
    """[tensorweave's value, TF's value] of the fetches `build(lib)` makes."""
    results = []
    for lib in (tw, need_tf()):
        with lib.Graph().as_default(), lib.Session() as sess:
            results.append(sess.run(build(lib)))
    return results


@pytest.mark.parametrize("reduce", ["reduce_sum", "reduce_prod", "reduce_mean", "reduce_max", "reduce_min"])
def test_gradient_of_a_reduction_over_a_fed_axis(reduce):
    # reduce_sum/reduce_prod over an axis fed at run time could not be differentiated: the gradient asked
    # the (unknown) shape of the kept-dims gradient for its list of dims (ValueError while building).
    def build(tf, axis=1):
        x = tf.reshape(tf.range(6.0), [2, 3])
        y = getattr(tf, reduce)(x, tf.placeholder_with_default(axis, []))
        return tf.gradients(y, x)[0]

    ours, theirs = _values(build)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)
    expect_error(tw, lambda tf: build(tf, axis=5), tw.errors.InvalidArgumentError, "reduction dimension 5")


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_gradient_of_concat_over_a_fed_axis(axis):
    # Was NotImplementedError ("the gradient needs a constant axis"); TF splits the gradient at run time.
    def build(tf, axis=axis):
        x = tf.reshape(tf.range(6.0), [2, 3])
        other = tf.ones([1, 3]) if axis == 0 else tf.ones([2, 1])
        c = tf.concat([x, other], tf.placeholder_with_default(axis, []))
        weights = tf.reshape(tf.range(tf.cast(tf.size(c), tf.float32)), tf.shape(c))
        return tf.gradients(c * weights, [x, other])

    ours, theirs = _values(build)
    for o, t in zip(ours, theirs):
        np.testing.assert_array_equal(o, t)
    expect_error(tw, lambda tf: build(tf, axis=5), tw.errors.InvalidArgumentError, "axis 5 is out of range")


@pytest.mark.parametrize("dtype", ["float64", "int32", "string"])
def test_grad_ys_of_another_dtype_is_type_error(dtype):
    # Was ValueError from the conversion; TF raises TypeError (its Mul refuses the mix).
    def build(tf):
        x = tf.constant([1.0, 2.0, 3.0])
        gy = tf.constant(["a", "b", "c"]) if dtype == "string" else tf.ones([3], getattr(tf, dtype))
        return tf.gradients(x * 2.0, x, grad_ys=gy)[0]

    expect_error(tw, build, TypeError, f"grad_ys[0] is {dtype}, but ys[0] (mul:0) is float32")


def test_grad_ys_as_a_python_list_converts(sess):
    x = tw.constant([1.0, 2.0, 3.0])
    assert sess.run(tw.gradients(x * 2.0, x, grad_ys=[[1.0, 0.5, 0.0]])[0]).tolist() == [2.0, 1.0, 0.0]


def test_gradients_with_respect_to_a_tensor_of_another_graph_is_value_error():
    # Gave [None] (a later fetch failed on it); TF refuses the mix of graphs.
    def build(tf):
        with tf.Graph().as_default():
            other = tf.constant(1.0)
        return tf.gradients(tf.constant(2.0) * 3.0, other)

    expect_error(tw, build, ValueError, "must be from the same graph")


def test_gradients_with_an_unknown_aggregation_method_is_value_error():
    # Was accepted silently.
    def build(tf):
        x = tf.constant([1.0, 2.0])
        return tf.gradients(x * x, x, aggregation_method=99)

    expect_error(tw, build, ValueError, "Invalid `aggregation_method` specified 99")


def test_while_loop_with_a_float_maximum_iterations_is_type_error():
    # maximum_iterations=2.5 ran 3 iterations. TF's v2 control flow refuses it, its v1 control flow (TF1's, on
    # after disable_v2_behavior or disable_control_flow_v2, which other tests call) runs 3: no oracle.
    def build(tf):
        return tf.while_loop(lambda i: i < 5, lambda i: i + 1, [0], maximum_iterations=2.5)

    expect_error(tw, build, TypeError, oracle=False)


@pytest.mark.parametrize("fn", ["map_fn", "scan"])
def test_map_fn_and_scan_of_elems_of_unequal_run_time_lengths_is_invalid_argument(fn):
    # Lengths 3 and 2 gave a 3-vector (zeros read where the shorter one had no element); TF fails reading it.
    def build(tf, b_value=(1.0, 2.0)):
        a = tf.placeholder_with_default(tf.zeros([3]), [None])
        b = tf.placeholder_with_default(tf.constant(b_value), [None])
        if fn == "map_fn":
            return tf.map_fn(lambda t: t[0] + t[1], (a, b), dtype=tf.float32)
        return tf.scan(lambda acc, t: acc + t[0] + t[1], (a, b), initializer=0.0)

    # TF's v2 control flow fails reading the shorter one; its v1 control flow (TF1's) reads zeros: no oracle.
    expect_error(tw, build, tw.errors.InvalidArgumentError, oracle=False)
    error = error_of(tw, build)
    assert "elems[1] has a first dimension other than elems[0]'s" in str(error)
    ours, theirs = _values(lambda tf: build(tf, (1.0, 2.0, 3.0)))
    np.testing.assert_array_equal(ours, theirs)


def test_gfile_misuse_raises_tensorflows_errors(tmp_path):
    # Python's NotADirectoryError / io.UnsupportedOperation / ValueError leaked out, and read(-7) read the whole
    # file; tf.gfile raises its error classes.
    tf1 = need_tf()
    (tmp_path / "f").write_text("abc")
    path = str(tmp_path / "f")
    for lib in (tw, tf1):
        with pytest.raises(lib.errors.FailedPreconditionError):
            lib.gfile.MakeDirs(os.path.join(path, "sub"))
        with pytest.raises(lib.errors.PermissionDeniedError, match="File isn't open for writing"):
            lib.gfile.GFile(path, "r").write("x")
        with pytest.raises(lib.errors.PermissionDeniedError, match="File isn't open for reading"):
            lib.gfile.GFile(str(tmp_path / "w"), "w").read()
        with pytest.raises(lib.errors.InvalidArgumentError, match="Seeking to a negative position: -5"):
            lib.gfile.GFile(path).seek(-5)
        with pytest.raises(lib.errors.InvalidArgumentError, match="Can't read a negative number of bytes: -7"):
            lib.gfile.GFile(path).read(-7)
        assert lib.gfile.GFile(path).read(-1) == "abc"
    with pytest.raises(tw.errors.FailedPreconditionError):
        tw.gfile.MkDir(os.path.join(path, "sub"))


def test_write_file_onto_a_directory_is_failed_precondition(tmp_path):
    # Was PermissionDenied ("Could not open ... for writing").
    def build(tf):
        return tf.io.write_file(str(tmp_path), "abc")

    expect_error(tw, build, tw.errors.FailedPreconditionError, "Is a directory")


def test_as_string_with_a_huge_precision_fails_at_once():
    # printf formatted 2^31 - 1 digits (minutes an element); TF does, to a 2 GB string.
    def build(tf):
        return tf.as_string(tf.constant([1.5]), precision=2**31 - 1)

    expect_error(tw, build, tw.errors.InvalidArgumentError, "precision 2147483647 is over 65536", oracle=False)


def test_as_string_with_a_long_precision_as_tensorflow():
    ours, theirs = _values(lambda tf: tf.as_string(tf.constant([1.5, -2.0, 1e30]), precision=1200, width=1300))
    assert ours.tolist() == theirs.tolist()


def test_calibration_file_that_is_not_an_npz_is_conversion_error(tmp_path):
    # A damaged .npz leaked zipfile.BadZipFile (a traceback from tensorweave-convert).
    from converters import ptq
    from converters.errors import ConversionError

    bad = tmp_path / "c.npz"
    bad.write_bytes(b"PK\x03\x04garbage")
    with pytest.raises(ConversionError, match="not an .npz"):
        ptq.load_calibration(str(bad))
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x.npy").write_bytes(b"\x93NUMPY\x01\x00")
    with pytest.raises(ConversionError, match="calibration directory"):
        ptq.load_calibration(str(tmp_path / "d"))


def test_convert_cli_with_a_damaged_calibration_file_prints_no_traceback(tmp_path):
    pytest.importorskip("onnx")
    from onnx import helper

    from tests.onnx_lite_util import make_model

    f = (np.float32, [2, 3])
    model = make_model([helper.make_node("Relu", ["x"], ["z"])], [("x", *f)], [("z", *f)])
    (tmp_path / "m.onnx").write_bytes(model.SerializeToString())
    (tmp_path / "c.npz").write_bytes(b"PK\x03\x04garbage")
    args = ["--input", str(tmp_path / "m.onnx"), "--output", str(tmp_path / "m.twl")]
    args += ["--quantize", "int8", "--calibration", str(tmp_path / "c.npz")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "python"), ROOT]))
    r = subprocess.run(
        [sys.executable, "-m", "converters.cli", *args], check=False, capture_output=True, text=True, env=env
    )
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert "not an .npz" in r.stderr


def _onnx_model(nodes, inputs=(("x",),), outputs=("z",), initializers=()):
    from tests.onnx_lite_util import make_model

    f = (np.float32, [2, 3])
    return make_model(nodes, [(i[0], *f) for i in inputs], [(o, *f) for o in outputs], initializers)


def _body():
    from onnx import TensorProto, helper, numpy_helper

    info = helper.make_tensor_value_info
    return helper.make_graph(
        [helper.make_node("Add", ["v", "one"], ["v2"]), helper.make_node("Identity", ["c"], ["c2"])],
        "body",
        [info("i", TensorProto.INT64, []), info("c", TensorProto.BOOL, []), info("v", TensorProto.FLOAT, [2, 3])],
        [info("c2", TensorProto.BOOL, []), info("v2", TensorProto.FLOAT, [2, 3])],
        [numpy_helper.from_array(np.ones([2, 3], np.float32), "one")],
    )


def _hostile_onnx(case):
    from onnx import helper

    node = helper.make_node
    if case == "two_writers":  # converted to a model of one of them, silently
        return _onnx_model([node("Relu", ["x"], ["z"]), node("Neg", ["x"], ["z"])]), "writes 'z', which is already"
    if case == "reads_its_own_output":
        return _onnx_model([node("Add", ["x", "z"], ["z"])]), "has not been computed"
    if case == "writes_an_input":
        return _onnx_model([node("Relu", ["z"], ["x"]), node("Relu", ["x"], ["z"])]), "writes 'x', which is already"
    if case == "loop_without_body":  # was KeyError: 'body'
        loop = node("Loop", ["n", "", "x"], ["z"])
        return _onnx_model([loop], initializers=[("n", np.array(2, np.int64))]), "lacks its subgraph attribute 'body'"
    if case == "if_without_branches":  # was KeyError: 'then_branch'
        model = _onnx_model([node("If", ["c"], ["z"])], inputs=())
        model.graph.input.append(helper.make_tensor_value_info("c", 9, []))
        return model, "lacks its subgraph attribute 'then_branch'"
    if case == "two_writers_in_a_loop_body":
        body = _body()
        body.node.append(node("Neg", ["v"], ["v2"]))
        loop = node("Loop", ["n", "", "x"], ["z"], body=body)
        return _onnx_model([loop], initializers=[("n", np.array(2, np.int64))]), "subgraph 'body'"
    if case == "no_outputs":  # converted to a .twl the lite runtime then refused
        return _onnx_model([node("Relu", ["x"], ["z"])], outputs=()), "the model has no outputs"
    raise AssertionError(case)


@pytest.mark.parametrize(
    "case",
    [
        "two_writers",
        "reads_its_own_output",
        "writes_an_input",
        "loop_without_body",
        "if_without_branches",
        "two_writers_in_a_loop_body",
        "no_outputs",
    ],
)
def test_onnx_graph_that_breaks_the_ir_rules_is_conversion_error(case):
    pytest.importorskip("onnx")
    from converters import onnx_import
    from converters.errors import ConversionError

    model, fragment = _hostile_onnx(case)
    with pytest.raises(ConversionError, match=fragment.replace("(", r"\(")):
        onnx_import.convert(model)
    with pytest.raises(ConversionError):  # the same bytes from a file: onnx's checker refuses them first
        onnx_import.convert(model.SerializeToString())


def test_onnx_loop_with_a_body_converts_and_runs():
    pytest.importorskip("onnx")
    from onnx import helper

    from converters import lite_runner, onnx_import

    loop = helper.make_node("Loop", ["n", "", "x"], ["z"], body=_body())
    data = onnx_import.convert(_onnx_model([loop], initializers=[("n", np.array(3, np.int64))]))
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(lite_runner.LiteRunner(data).run({"x": x})["z"], x + 3)


def test_onnx_ifs_nested_deep_convert_in_linear_time():
    # Each pass of the lowering prefixed the nested names with the (already prefixed) node name: names, and
    # the time, doubled with each level (20 levels: 13 s, 25: minutes). Names are now bounded.
    pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    from converters import lite_runner, onnx_import, twl_reader

    def constant(value):
        node = helper.make_node(
            "Constant", [], ["a"], value=numpy_helper.from_array(np.full([2, 3], value, np.float32))
        )
        return helper.make_graph([node], "c", [], [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3])])

    graph, leaf = constant(1.0), constant(0.0)
    for k in range(24):
        node = helper.make_node("If", ["c"], ["a"], then_branch=graph, else_branch=leaf)
        graph = helper.make_graph([node], f"g{k}", [], [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3])])
    model = _onnx_model(list(graph.node), inputs=(), outputs=("a",))
    model.graph.input.append(helper.make_tensor_value_info("c", TensorProto.BOOL, []))
    data = onnx_import.convert(model)
    m = twl_reader.read_builder(data)
    assert max(len(t.name) for t in m.tensors) < 300
    runner = lite_runner.LiteRunner(data)
    assert runner.run({"c": np.array(True)})["a"].tolist() == [[1.0] * 3] * 2
    assert runner.run({"c": np.array(False)})["a"].tolist() == [[0.0] * 3] * 2


def _external(location, **extra):
    from onnx import TensorProto

    w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2, 3], data_location=TensorProto.EXTERNAL)
    for key, value in dict(location=location, **extra).items():
        entry = w.external_data.add()
        entry.key, entry.value = key, str(value)
    return w


@pytest.mark.parametrize(
    "location, extra, fragment",
    [
        ("../outside.bin", {}, "points outside the directory"),
        ("/etc/hostname", {}, "should be a relative path"),
        ("missing.bin", {}, "is not regular file"),
        ("short.bin", {}, "too small for the declared shape"),
        ("w.bin", {"offset": 4096}, "exceeds file size"),
        ("w.bin", {"length": -5}, "must be non-negative"),
    ],
)
def test_onnx_external_data_outside_the_model_or_unreadable_is_conversion_error(tmp_path, location, extra, fragment):
    # From a path onnx's loader refuses it; from a ModelProto onnx.checker.ValidationError leaked from the
    # importer (or the data, read relative to the working directory, was used).
    pytest.importorskip("onnx")
    from onnx import helper

    from converters import onnx_import
    from converters.errors import ConversionError

    (tmp_path / "outside.bin").write_bytes(np.ones(6, np.float32).tobytes())
    d = tmp_path / "model"
    d.mkdir()
    (d / "short.bin").write_bytes(b"\0" * 8)
    (d / "w.bin").write_bytes(np.ones(6, np.float32).tobytes())
    model = _onnx_model([helper.make_node("Add", ["x", "w"], ["z"])])
    model.graph.initializer.append(_external(location, **extra))
    (d / "m.onnx").write_bytes(model.SerializeToString())
    with pytest.raises(ConversionError, match=fragment):
        onnx_import.convert(str(d / "m.onnx"))
    cwd = os.getcwd()
    os.chdir(d)
    try:
        with pytest.raises(ConversionError, match=fragment if location != "short.bin" else "malformed"):
            onnx_import.convert(model)
    finally:
        os.chdir(cwd)


def test_onnx_external_data_inside_the_model_directory_converts(tmp_path):
    pytest.importorskip("onnx")
    from onnx import helper

    from converters import lite_runner, onnx_import

    w = np.arange(6, dtype=np.float32)
    (tmp_path / "w.bin").write_bytes(w.tobytes())
    model = _onnx_model([helper.make_node("Add", ["x", "w"], ["z"])])
    model.graph.initializer.append(_external("w.bin"))
    (tmp_path / "m.onnx").write_bytes(model.SerializeToString())
    data = onnx_import.convert(str(tmp_path / "m.onnx"))
    x = np.ones([2, 3], np.float32)
    np.testing.assert_array_equal(lite_runner.LiteRunner(data).run({"x": x})["z"], x + w.reshape(2, 3))


def test_gradient_of_a_gather_in_a_while_loop_of_a_tensor_outside_it():
    # The gather's IndexedSlices gradient was made dense outside the backward loop's context: every run
    # failed ("has inputs from the frame '' and the frame 'gradients/while/while_context'"), good index or bad.
    def build(tf, index=1):
        x = tf.constant([1.0, 2.0, 3.0])
        i = tf.placeholder_with_default(index, [])
        r = tf.while_loop(lambda k, a: k < 2, lambda k, a: (k + 1, a + tf.gather(x, i)), [0, 0.0])[1]
        return tf.convert_to_tensor(tf.gradients(r, x)[0])

    ours, theirs = _values(build)
    np.testing.assert_array_equal(ours, theirs)
    expect_error(tw, lambda tf: build(tf, 7), tw.errors.InvalidArgumentError, "7 is not in [0, 3)", oracle=False)
    expect_error(tw, lambda tf: build(tf, 7), tw.errors.InvalidArgumentError, tf_class="InvalidArgumentError")


def test_gradient_of_an_embedding_lookup_in_a_while_loop_trains(sess):
    x = tw.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    ids = tw.constant([2, 0, 2])

    def body(k, a):
        return k + 1, a + tw.reduce_sum(tw.gather(x, ids[k]) * tw.cast(k + 1, tw.float32))

    r = tw.while_loop(lambda k, a: k < 3, body, [0, 0.0])[1]
    g = tw.convert_to_tensor(tw.gradients(r, x)[0])
    step = tw.train.GradientDescentOptimizer(0.1).minimize(r)
    sess.run(tw.global_variables_initializer())
    assert sess.run(g).tolist() == [[2.0, 2.0], [0.0, 0.0], [4.0, 4.0]]
    sess.run(step)
    np.testing.assert_allclose(sess.run(x), [[0.8, 1.8], [3.0, 4.0], [4.6, 5.6]], rtol=1e-6)


@pytest.mark.parametrize("loop_vars", [[0, 0.0], (0, 0.0)], ids=["list", "tuple"])
def test_while_loop_with_maximum_iterations_and_a_body_of_the_other_sequence_type_is_type_error(loop_vars):
    # As TF1's control flow (tests/tf1_programs/p146, p186 check it against TensorFlow's v1 control flow): with
    # maximum_iterations the loop variables are compared one level deeper, list and tuple strictly. TF's v2
    # control flow builds it.
    def build(tf):
        def body(k, a):
            results = (k + 1, a + 1.0)
            return list(results) if isinstance(loop_vars, tuple) else results  # the other sequence type

        return tf.while_loop(lambda k, a: k < 10, body, loop_vars, maximum_iterations=4)

    expect_error(tw, build, TypeError, oracle=False)


def test_sweep_tool_s23_set_runs():
    # The round-4 driver (--set s23): hostile ONNX external data, refused in every case, none converted.
    pytest.importorskip("onnx")
    proc = subprocess.run(
        [sys.executable, os.path.join(ROOT, "tools", "bad_input_sweep.py"), "--set", "s23", "--only", "onnx_external"],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "8 cases: tw-error-only=8", proc.stdout
    assert "ConversionError" in proc.stdout and "converted" not in proc.stdout, proc.stdout

"""Converters end to end: freeze, core -> .twl -> lite runtime, core -> ONNX
-> onnxruntime, ONNX -> .twl -> lite runtime, on an MLP, LeNet-5 and a
conv+batch-norm model; .twl structure; unsupported and malformed inputs.

Tolerances: ONNX vs the core 1e-5 relative (the brief's bound); lite vs the
core rtol 1e-4 / atol 1e-5 (its float32 kernels sum in other orders, and
folding batch norm into the weights changes rounding).
"""

import json
import os

import numpy as np
import pytest

import tensorweave as tw
from converters import freeze, lite_runner, onnx_export, onnx_import, tf_to_twl, twl_writer
from converters.cli import main as cli_main
from converters.errors import ConversionError
from converters.graph_util import tensor_name

import converter_models

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

needs_lite = pytest.mark.skipif(
    not lite_runner.available(),
    reason="bazel build //lite/c:libtensorweave_lite.so first",
)
LITE_RTOL, LITE_ATOL = 1e-4, 1e-5
ONNX_RTOL, ONNX_ATOL = 1e-5, 1e-7


@pytest.fixture(params=sorted(converter_models.MODELS))
def model(request):
    graph, sess, inputs, outputs, feed = converter_models.build(request.param)
    ((in_name, x),) = inputs.items()
    ((out_name, y),) = outputs.items()
    reference = sess.run(y, {x: feed})
    frozen = freeze.freeze_session(sess, [x], [y])
    sess.close()
    return {
        "name": request.param,
        "graph": graph,
        "x": x.name,
        "y": y.name,
        "feed": feed,
        "reference": reference,
        "frozen": frozen,
        "in_key": in_name,
        "out_key": out_name,
    }


def _ops(graph_def):
    return [n.op for n in graph_def.node]


def _run_core(graph_def, x, y, feed):
    with tw.Graph().as_default() as g, tw.Session(graph=g) as sess:
        tw.import_graph_def(graph_def, name="")
        return sess.run(tensor_name(y), {tensor_name(x): feed})


def _onnx_run(model_proto, feed):
    session = ort.InferenceSession(model_proto.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {session.get_inputs()[0].name: feed})[0]


# --- freezing ----------------------------------------------------------------------------------
def test_frozen_graph_runs_in_the_core_and_matches(model):
    ops = _ops(model["frozen"])
    assert "VariableV2" not in ops and "Assign" not in ops and "NoOp" not in ops
    assert "Identity" not in ops  # variable snapshots are gone
    assert "FusedBatchNorm" not in ops  # folded into the convolutions
    got = _run_core(model["frozen"], model["x"], model["y"], model["feed"])
    np.testing.assert_allclose(got, model["reference"], rtol=1e-5, atol=1e-6)


def test_batch_norm_is_folded_into_the_convolution_weights():
    graph, sess, inputs, outputs, feed = converter_models.build("conv_bn")
    frozen = freeze.freeze_session(sess, list(inputs.values()), list(outputs.values()))
    ops = _ops(frozen)
    assert ops.count("Conv2D") == 1 and ops.count("DepthwiseConv2dNative") == 1
    assert "Mul" not in ops and "Rsqrt" not in ops  # no per-channel scale left
    unfolded = freeze.freeze_session(sess, list(inputs.values()), list(outputs.values()), fold_batch_norms=False)
    assert "FusedBatchNorm" in _ops(unfolded)
    sess.close()


def test_freezing_prunes_training_ops_and_folds_constants(graph, sess):
    x = tw.placeholder(tw.float32, [None, 3], name="x")
    w = tw.Variable(np.ones([3, 2], np.float32), name="w")
    scale = tw.constant(2.0) * tw.constant(3.0)  # folded to one constant
    y = tw.identity(tw.matmul(x, w) * scale, name="y")
    loss = tw.reduce_sum(y * y)
    train = tw.train.GradientDescentOptimizer(0.1).minimize(loss)
    sess.run(tw.global_variables_initializer())
    sess.run(train, {x: np.ones([2, 3], np.float32)})
    frozen = freeze.freeze_session(sess, [x], [y])
    # The folded scale is then folded into the weights: one constant is left.
    assert sorted(_ops(frozen)) == ["Const", "Identity", "MatMul", "Placeholder"]
    feed = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(_run_core(frozen, "x", "y", feed), sess.run(y, {x: feed}))


def test_freezing_folds_conds_on_a_constant_flag(graph, sess):
    """tf.layers.dropout(training=flag) and a cond on a flag that defaults to False: frozen, the taken branch is
    all that is left (no Switch/Merge, no random op), and the .twl gives the core's inference values."""
    x = tw.placeholder(tw.float32, [None, 4], name="x")
    training = tw.placeholder_with_default(False, [], name="training")
    h = tw.layers.dropout(tw.layers.dense(x, 6, activation=tw.nn.relu, name="d"), rate=0.5, training=training)
    y = tw.identity(tw.cond(training, lambda: h * 3.0, lambda: tw.nn.softmax(h)), name="y")
    sess.run(tw.global_variables_initializer())
    frozen = freeze.freeze_session(sess, [x], [y])
    assert not {"Switch", "Merge", "RandomUniform"} & set(_ops(frozen))
    feed = np.random.RandomState(0).randn(3, 4).astype(np.float32)
    want = sess.run(y, {x: feed})
    np.testing.assert_allclose(_run_core(frozen, "x", "y", feed), want, rtol=1e-6)
    if lite_runner.available():
        (got,) = lite_runner.LiteRunner(tf_to_twl.convert(frozen, ["x:0"], ["y:0"])).run([feed]).values()
        np.testing.assert_allclose(got, want, rtol=LITE_RTOL, atol=LITE_ATOL)


def test_freeze_errors_name_the_problem(graph, sess):
    x = tw.placeholder(tw.float32, [None, 3], name="x")
    z = tw.placeholder(tw.float32, [None, 3], name="z")
    y = tw.add(x, z, name="y")
    with pytest.raises(ConversionError, match="not a tensor of the graph"):
        freeze.freeze_session(sess, ["x"], ["nope"])
    with pytest.raises(ConversionError, match=r"placeholders that are not inputs: \['z'\]"):
        freeze.freeze_session(sess, ["x"], [y])
    with pytest.raises(ConversionError, match="no outputs"):
        freeze.freeze_session(sess, ["x"], [])


# --- core -> .twl -> lite ------------------------------------------------------------------------
@needs_lite
def test_twl_round_trip_matches_the_core(model):
    data = tf_to_twl.convert(model["frozen"], [model["x"]], [model["y"]])
    runner = lite_runner.LiteRunner(data)
    (got,) = runner.run([model["feed"]]).values()
    np.testing.assert_allclose(got, model["reference"], rtol=LITE_RTOL, atol=LITE_ATOL)
    # The batch is dynamic: one example at a time gives the same rows.
    one = runner.run([model["feed"][:1]])
    np.testing.assert_allclose(list(one.values())[0], model["reference"][:1], rtol=LITE_RTOL, atol=LITE_ATOL)


def _twl_ops(data):
    m = twl_writer.read_model(data)
    g = m.Subgraphs(0)
    names = {v: k for k, v in vars(twl_writer.twl_schema.enum("BuiltinOperator")).items() if not k.startswith("_")}
    return [names[g.Operators(i).Opcode()] for i in range(g.OperatorsLength())]


def test_twl_fuses_bias_and_activation_into_one_op():
    graph, sess, inputs, outputs, _ = converter_models.build("lenet")
    frozen = freeze.freeze_session(sess, list(inputs.values()), list(outputs.values()))
    sess.close()
    data = tf_to_twl.convert(frozen, ["image"], ["probs"])
    assert _twl_ops(data) == [
        "CONV_2D",
        "MAX_POOL_2D",
        "CONV_2D",
        "MAX_POOL_2D",
        "RESHAPE",
        "FULLY_CONNECTED",
        "FULLY_CONNECTED",
        "FULLY_CONNECTED",
        "SOFTMAX",
    ]
    graph, sess, inputs, outputs, _ = converter_models.build("conv_bn")
    frozen = freeze.freeze_session(sess, list(inputs.values()), list(outputs.values()))
    sess.close()
    assert _twl_ops(tf_to_twl.convert(frozen, ["image"], ["probs"])) == [
        "CONV_2D",
        "DEPTHWISE_CONV_2D",
        "AVERAGE_POOL_2D",
        "MEAN",
        "FULLY_CONNECTED",
        "SOFTMAX",
    ]


def test_twl_file_layout():
    graph, sess, inputs, outputs, _ = converter_models.build("mlp")
    frozen = freeze.freeze_session(sess, list(inputs.values()), list(outputs.values()))
    sess.close()
    data = tf_to_twl.convert(frozen, ["x"], ["probs"], ["pixels"], ["scores"], {"note": "test"})
    assert data[4:8] == b"TWL1"
    m = twl_writer.read_model(data)
    assert m.Version() == 1
    assert m.Buffers(0).DataLength() == 0  # the empty sentinel
    for i in range(1, m.BuffersLength()):
        buf = m.Buffers(i)
        assert buf.DataLength() > 0
        assert buf._tab.Vector(buf._tab.Offset(4)) % 64 == 0  # force_align: 64
    g = m.Subgraphs(0)
    x = g.Tensors(g.Inputs(0))
    assert x.Name() == b"x" and list(x.ShapeAsNumpy()) == [1, 784]
    assert list(x.ShapeSignatureAsNumpy()) == [-1, 784]
    y = g.Tensors(g.Outputs(0))
    assert y.Name() == b"probs" and list(y.ShapeSignatureAsNumpy()) == [-1, 10]
    weights = [g.Tensors(g.Operators(0).Inputs(1))]
    assert list(weights[0].ShapeAsNumpy()) == [512, 784]  # FULLY_CONNECTED: [out, in]
    sig = m.SignatureDefs(0)
    assert sig.SignatureKey() == b"serving_default"
    assert sig.Inputs(0).Name() == b"pixels" and sig.Outputs(0).Name() == b"scores"
    metadata = {m.Metadata(i).Key().decode(): m.Metadata(i).Value().decode() for i in range(m.MetadataLength())}
    assert metadata["producer"].startswith("tensorweave-convert")
    options = json.loads(metadata["conversion_options"])
    assert options["note"] == "test" and options["outputs"] == ["probs:0"]


@needs_lite
def test_transpose_b_and_conv_filter_layouts():
    rng = np.random.default_rng(3)
    with tw.Graph().as_default(), tw.Session() as sess:
        x = tw.placeholder(tw.float32, [None, 6, 6, 2], name="x")
        f = tw.constant(rng.normal(size=[3, 2, 2, 4]).astype(np.float32))  # non-square HWIO
        h = tw.nn.conv2d(x, f, [1, 2, 1, 1], "SAME")
        h = tw.reshape(h, [-1, 3 * 6 * 4])
        w = tw.constant(rng.normal(size=[5, 72]).astype(np.float32))
        y = tw.identity(tw.matmul(h, w, transpose_b=True), name="y")
        feed = rng.normal(size=[2, 6, 6, 2]).astype(np.float32)
        ref = sess.run(y, {x: feed})
        frozen = freeze.freeze_session(sess, [x], [y])
    got = lite_runner.LiteRunner(tf_to_twl.convert(frozen, ["x"], ["y"])).run({"x": feed})["y"]
    np.testing.assert_allclose(got, ref, rtol=LITE_RTOL, atol=LITE_ATOL)
    np.testing.assert_allclose(_onnx_run(onnx_export.export(frozen, ["x"], ["y"]), feed), ref, rtol=1e-5, atol=1e-6)


@needs_lite
def test_explicit_padding_converts_to_twl_and_onnx():
    # padding=[[0, 0], [t, b], [l, r], [0, 0]] (Conv2D and DepthwiseConv2dNative with padding EXPLICIT): a PAD
    # before a VALID convolution in .twl, the pads themselves in ONNX; bias and relu still fused.
    rng = np.random.default_rng(5)
    pads = [[0, 0], [2, 0], [1, 3], [0, 0]]
    with tw.Graph().as_default(), tw.Session() as sess:
        x = tw.placeholder(tw.float32, [None, 7, 6, 3], name="x")
        f = tw.constant(rng.normal(size=[3, 3, 3, 8]).astype(np.float32))
        b = tw.constant(rng.normal(size=[8]).astype(np.float32))
        h = tw.nn.relu(tw.nn.bias_add(tw.nn.conv2d(x, f, [1, 1, 1, 1], pads), b))
        d = tw.constant(rng.normal(size=[3, 3, 8, 1]).astype(np.float32))
        y = tw.identity(tw.nn.depthwise_conv2d(h, d, [1, 2, 2, 1], [[0, 0], [0, 1], [1, 0], [0, 0]]), name="y")
        feed = rng.normal(size=[2, 7, 6, 3]).astype(np.float32)
        ref = sess.run(y, {x: feed})
        frozen = freeze.freeze_session(sess, [x], [y])
    assert ref.shape == (2, 3, 4, 8)
    data = tf_to_twl.convert(frozen, ["x"], ["y"])
    assert "PAD" in _twl_ops(data)
    got = lite_runner.LiteRunner(data).run({"x": feed})["y"]
    np.testing.assert_allclose(got, ref, rtol=LITE_RTOL, atol=LITE_ATOL)
    np.testing.assert_allclose(_onnx_run(onnx_export.export(frozen, ["x"], ["y"]), feed), ref, rtol=1e-5, atol=1e-5)


# --- core -> ONNX -> onnxruntime -----------------------------------------------------------------
def test_onnx_export_matches_the_core(model):
    proto = onnx_export.export(model["frozen"], [model["x"]], [model["y"]])
    onnx.checker.check_model(proto, full_check=True)
    assert proto.opset_import[0].version >= 17
    got = _onnx_run(proto, model["feed"])
    np.testing.assert_allclose(got, model["reference"], rtol=ONNX_RTOL, atol=ONNX_ATOL)


def test_onnx_export_keeps_the_interior_nchw():
    graph, sess, inputs, outputs, _ = converter_models.build("lenet")
    frozen = freeze.freeze_session(sess, list(inputs.values()), list(outputs.values()))
    sess.close()
    ops = [n.op_type for n in onnx_export.export(frozen, ["image"], ["probs"]).graph.node]
    # One Transpose into NCHW at the input, one back before the flatten.
    assert ops.count("Transpose") == 2, ops
    assert ops.count("Conv") == 2 and ops.count("Gemm") == 3 and "Add" not in ops


# --- ONNX -> .twl -> lite ------------------------------------------------------------------------
@needs_lite
def test_onnx_import_round_trip_matches_the_core(model):
    proto = onnx_export.export(model["frozen"], [model["x"]], [model["y"]])
    data = onnx_import.convert(proto)
    got = lite_runner.LiteRunner(data).run([model["feed"]])
    np.testing.assert_allclose(list(got.values())[0], model["reference"], rtol=LITE_RTOL, atol=LITE_ATOL)


@needs_lite
def test_onnx_import_nchw_cnn_with_batch_norm():
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(5)
    w = rng.normal(size=[4, 3, 3, 3]).astype(np.float32)
    params = [rng.uniform(0.5, 1.5, [4]).astype(np.float32) for _ in range(4)]
    fc = rng.normal(size=[4 * 4 * 4, 3]).astype(np.float32)
    inits = [
        numpy_helper.from_array(v, n)
        for v, n in [
            (w, "w"),
            (params[0], "s"),
            (params[1], "b"),
            (params[2], "m"),
            (params[3], "v"),
            (fc, "fc"),
            (np.array([0, -1], np.int64), "shape"),
        ]
    ]
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c", "s", "b", "m", "v"], ["bn"], epsilon=1e-3),
        helper.make_node("Relu", ["bn"], ["r"]),
        helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["p"], ["f"]),
        helper.make_node("MatMul", ["f", "fc"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])],
        inits,
    )
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    proto.ir_version = 8
    feed = rng.normal(size=[2, 3, 8, 8]).astype(np.float32)
    ref = _onnx_run(proto, feed)
    data = onnx_import.convert(proto)
    assert _twl_ops(data) == ["TRANSPOSE", "CONV_2D", "MAX_POOL_2D", "TRANSPOSE", "RESHAPE", "FULLY_CONNECTED"]
    got = lite_runner.LiteRunner(data).run({"x": feed})["y"]
    np.testing.assert_allclose(got, ref, rtol=LITE_RTOL, atol=LITE_ATOL)


# --- unsupported and malformed inputs --------------------------------------------------------------
def test_every_unsupported_op_is_listed_with_its_node(graph, sess):
    x = tw.placeholder(tw.float32, [None, 4], name="x")
    y = tw.identity(tw.math.digamma(tw.math.lgamma(x, name="foo"), name="bar") + 1.0, name="y")
    frozen = freeze.freeze_session(sess, [x], [y])
    with pytest.raises(ConversionError) as e:
        tf_to_twl.convert(frozen, ["x"], ["y"])
    assert str(e.value) == "2 ops cannot be converted to .twl: 'foo' (Lgamma), 'bar' (Digamma)"
    with pytest.raises(
        ConversionError, match=r"2 ops cannot be converted to ONNX: 'foo' \(Lgamma\), 'bar' \(Digamma\)"
    ):
        onnx_export.export(frozen, ["x"], ["y"])


def test_every_unsupported_onnx_op_is_listed():
    from onnx import TensorProto, helper

    nodes = [
        helper.make_node("RandomUniformLike", ["x"], ["a"], name="foo"),
        helper.make_node("Bernoulli", ["a"], ["b"], name="bar"),
        helper.make_node("Relu", ["b"], ["y"], name="ok"),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 4, 4]),
            helper.make_tensor_value_info("k", TensorProto.BOOL, [4]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None])],
    )
    with pytest.raises(ConversionError) as e:
        onnx_import.convert(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]))
    assert str(e.value) == "2 ops cannot be converted to .twl: 'foo' (RandomUniformLike), 'bar' (Bernoulli)"


def test_a_node_onnx_inference_cannot_read_is_a_conversion_error():
    # onnx's shape inference lets a bare C++ exception out for a Loop without its inputs and body; the
    # converter names the node and what it lacks instead.
    from onnx import TensorProto, helper

    nodes = [helper.make_node("Loop", ["x"], ["a"], name="foo"), helper.make_node("Relu", ["a"], ["y"])]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])],
    )
    with pytest.raises(ConversionError, match=r"node 'foo' \(Loop\) lacks its subgraph attribute 'body'"):
        onnx_import.convert(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]))


def test_attribute_problems_name_the_node(graph, sess):
    x = tw.placeholder(tw.float32, [None, 4], name="x")
    w = tw.placeholder(tw.float32, [4, 4], name="w")
    y = tw.nn.conv2d(tw.reshape(x, [-1, 2, 2, 1]), tw.reshape(w, [2, 2, 1, 4]), [1, 1, 1, 1], "SAME", name="conv")
    frozen = freeze.freeze_session(sess, [x, w], [y])
    with pytest.raises(ConversionError, match=r"'conv' \(Conv2D\): the filter \(input 1\) must be a constant"):
        tf_to_twl.convert(frozen, ["x", "w"], ["conv"])


def test_malformed_onnx_is_a_clear_error(tmp_path):
    path = tmp_path / "bad.onnx"
    path.write_bytes(b"\x08\x07garbage\xff\xff")
    with pytest.raises(ConversionError, match="not a valid ONNX model"):
        onnx_import.convert(str(path))
    with pytest.raises(ConversionError, match="no such ONNX file"):
        onnx_import.convert(str(tmp_path / "missing.onnx"))


def test_malformed_twl_is_rejected_by_the_runtime():
    if not lite_runner.available():
        pytest.skip("lite library not built")
    with pytest.raises(lite_runner.LiteError):
        lite_runner.LiteRunner(b"\x00" * 64)


# --- saved models and the CLI -------------------------------------------------------------------------
def _export(tmp_path, name="lenet"):
    graph, sess, inputs, outputs, feed = converter_models.build(name)
    (x,), (y,) = inputs.values(), outputs.values()
    reference = sess.run(y, {x: feed})
    export_dir = str(tmp_path / "saved")
    with graph.as_default():
        tw.saved_model.simple_save(sess, export_dir, inputs, outputs)
    sess.close()
    return export_dir, feed, reference


def test_saved_model_load_restores_variables(tmp_path):
    export_dir, feed, reference = _export(tmp_path, "mlp")
    with tw.Graph().as_default() as g, tw.Session(graph=g) as sess:
        sig = tw.saved_model.load(sess, ["serve"], export_dir)
        got = sess.run(sig["outputs"]["probs"], {sig["inputs"]["x"]: feed})
    np.testing.assert_allclose(got, reference, rtol=1e-6)
    with pytest.raises(tw.errors.AlreadyExistsError):
        with tw.Graph().as_default(), tw.Session() as sess:
            tw.saved_model.simple_save(sess, export_dir, {"x": tw.placeholder(tw.float32)}, {"y": tw.constant(1.0)})


@needs_lite
def test_cli_converts_a_saved_model_to_twl_and_onnx(tmp_path, capsys):
    export_dir, feed, reference = _export(tmp_path)
    twl_path, onnx_path = str(tmp_path / "m.twl"), str(tmp_path / "m.onnx")
    assert cli_main(["--input", export_dir, "--output", twl_path]) == 0
    assert cli_main(["--input", export_dir, "--output", onnx_path]) == 0
    assert "wrote" in capsys.readouterr().out
    got = lite_runner.LiteRunner(twl_path).run({"image": feed})["probs"]
    np.testing.assert_allclose(got, reference, rtol=LITE_RTOL, atol=LITE_ATOL)
    np.testing.assert_allclose(_onnx_run(onnx.load(onnx_path), feed), reference, rtol=ONNX_RTOL, atol=ONNX_ATOL)
    twl2 = str(tmp_path / "from_onnx.twl")
    assert cli_main(["--input", onnx_path, "--output", twl2]) == 0
    got = lite_runner.LiteRunner(twl2).run({"image": feed})["probs"]
    np.testing.assert_allclose(got, reference, rtol=LITE_RTOL, atol=LITE_ATOL)


def test_cli_reports_errors(tmp_path, capsys):
    export_dir, _, _ = _export(tmp_path, "mlp")
    out = str(tmp_path / "m.twl")
    assert cli_main(["--input", str(tmp_path / "nothing"), "--output", out]) == 1
    assert "no such file or directory" in capsys.readouterr().err
    assert cli_main(["--input", export_dir, "--output", str(tmp_path / "m.txt")]) == 1
    assert "must end in .twl or .onnx" in capsys.readouterr().err
    assert cli_main(["--input", export_dir, "--output", out, "--outputs", "missing"]) == 1
    assert "'missing:0' is not a tensor of the graph" in capsys.readouterr().err
    # A corrupted checkpoint is detected, never converted.
    data_file = os.path.join(export_dir, "variables", "variables.safetensors")
    raw = bytearray(open(data_file, "rb").read())
    raw[-1] ^= 0xFF
    open(data_file, "wb").write(bytes(raw))
    assert cli_main(["--input", export_dir, "--output", out]) == 1
    assert "cannot read the variables" in capsys.readouterr().err
    # Without its signature.json it is read as a SavedModelBuilder export: the same corrupt variables.
    os.remove(os.path.join(export_dir, "signature.json"))
    assert cli_main(["--input", export_dir, "--output", out]) == 1
    assert "could not load the SavedModel" in capsys.readouterr().err
    os.remove(os.path.join(export_dir, "saved_model.pb"))
    assert cli_main(["--input", export_dir, "--output", out]) == 1
    assert "not a saved model" in capsys.readouterr().err
    assert not os.path.exists(out)


# --- more op coverage: array ops, unfolded batch norm -------------------------------------------------
def _array_model():
    rng = np.random.default_rng(11)
    x = tw.placeholder(tw.float32, [None, 4, 4, 3], name="x")
    c = tw.constant(rng.normal(size=[3, 3, 3, 4]).astype(np.float32))
    h = tw.nn.relu(tw.nn.conv2d(x, c, [1, 1, 1, 1], "SAME"))  # NCHW inside ONNX
    h = tw.concat([h, tw.nn.sigmoid(h)], axis=3)  # channels: 8
    h = tw.pad(h, [[0, 0], [1, 0], [0, 1], [0, 0]])  # 5x5
    h = tw.transpose(h, [0, 3, 1, 2])  # [N, 8, 5, 5]
    h = h[:, 1:7:2, :, 1]  # strided slice with shrink: [N, 3, 5]
    h = tw.gather(h, [2, 0], axis=1)  # [N, 2, 5]
    h = tw.expand_dims(h, 1)  # [N, 1, 2, 5]
    h = tw.squeeze(h, [1])
    m = tw.reduce_mean(h, axis=[2], keepdims=True)  # [N, 2, 1]
    h = tw.stack([h - m, tw.square(h), tw.exp(-tw.abs(h))], axis=1)  # [N, 3, 2, 5]
    s = tw.reduce_sum(h, axis=[3])  # [N, 3, 2]
    y = tw.identity(tw.tanh(tw.reshape(s, [-1, 6])) + tw.sqrt(tw.reshape(s, [-1, 6]) ** 2 + 1.0), name="y")
    return x, y, rng.normal(size=[2, 4, 4, 3]).astype(np.float32)


@needs_lite
def test_array_ops_through_every_path():
    with tw.Graph().as_default(), tw.Session() as sess:
        x, y, feed = _array_model()
        ref = sess.run(y, {x: feed})
        frozen = freeze.freeze_session(sess, [x], [y])
    got = lite_runner.LiteRunner(tf_to_twl.convert(frozen, ["x"], ["y"])).run({"x": feed})["y"]
    np.testing.assert_allclose(got, ref, rtol=LITE_RTOL, atol=LITE_ATOL)
    proto = onnx_export.export(frozen, ["x"], ["y"])
    np.testing.assert_allclose(_onnx_run(proto, feed), ref, rtol=ONNX_RTOL, atol=1e-6)
    got = lite_runner.LiteRunner(onnx_import.convert(proto)).run({"x": feed})["y"]
    np.testing.assert_allclose(got, ref, rtol=LITE_RTOL, atol=LITE_ATOL)


@needs_lite
def test_unfolded_batch_norm_converts_too():
    graph, sess, inputs, outputs, feed = converter_models.build("conv_bn")
    (x,), (y,) = inputs.values(), outputs.values()
    ref = sess.run(y, {x: feed})
    frozen = freeze.freeze_session(sess, [x], [y], fold_batch_norms=False)
    sess.close()
    got = lite_runner.LiteRunner(tf_to_twl.convert(frozen, ["image"], ["probs"])).run({"image": feed})
    np.testing.assert_allclose(got["probs"], ref, rtol=LITE_RTOL, atol=LITE_ATOL)
    np.testing.assert_allclose(
        _onnx_run(onnx_export.export(frozen, ["image"], ["probs"]), feed), ref, rtol=ONNX_RTOL, atol=ONNX_ATOL
    )


@pytest.mark.parametrize("dtype", ["int8", "int16", "uint16", "uint32", "uint64", "float16"])
def test_dtypes_the_converters_lack_are_refused_by_name(graph, sess, dtype):
    dt = getattr(tw, dtype)
    x = tw.placeholder(dt, [None, 3], name="x")
    tw.identity(x * tw.constant(np.array([1, 2, 3]).astype(dt.as_numpy_dtype)), name="y")
    frozen = freeze.freeze_session(sess, ["x"], ["y"])
    for convert in (tf_to_twl.convert, onnx_export.export):
        with pytest.raises(ConversionError, match=f"unsupported tensor dtype {dtype}"):
            convert(frozen, ["x"], ["y"])

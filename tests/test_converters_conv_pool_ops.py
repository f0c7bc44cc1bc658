"""Conv, ConvTranspose and the pools from ONNX on the lite runtime, in the
cases onnx's node tests miss: grouped (not depthwise) and 1-D Conv, a
BatchNormalization folded into a grouped Conv, ConvTranspose as decoders use
it (stride 2, kernels 2/3/4, pads, output_padding, groups, a fused Relu,
batch 2), 1-D ConvTranspose, GlobalLpPool, pools on int8 and in 1-D with
ceil_mode, and dilated pools with explicit pads; each against onnxruntime."""

import collections

import numpy as np
import pytest
from onnx import helper, numpy_helper

from converters import lite_runner, onnx_import, twl_writer
from converters.errors import ConversionError

ort = pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.skipif(not lite_runner.available(), reason="bazel build //lite/c:libtensorweave_lite.so first")
RTOL, ATOL = 1e-4, 1e-4
RNG = np.random.default_rng(0)


def _model(nodes, x_shape, inits=(), dtype=np.float32, opset=18):
    t = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    g = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", t, x_shape)],
        [helper.make_tensor_value_info(nodes[-1].output[0], t, None)],
        [numpy_helper.from_array(np.asarray(v), n) for n, v in inits],
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def _compare(model, x):
    """Runs `model` on onnxruntime and the lite runtime (1 and 2 threads);
    returns the .twl's op counts."""
    (want,) = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})
    data = onnx_import.convert(model)
    for threads in (1, 2):
        got = lite_runner.LiteRunner(data, num_threads=threads).run({"x": x})[model.graph.output[0].name]
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)
    m = twl_writer.read_model(data).Subgraphs(0)
    names = {v: k for k, v in vars(twl_writer.twl_schema.enum("BuiltinOperator")).items() if not k.startswith("_")}
    return collections.Counter(names[m.Operators(i).Opcode()] for i in range(m.OperatorsLength()))


def _floats(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("pads", [[0, 0, 0, 0], [1, 1, 1, 1], [0, 1, 2, 1]])
def test_grouped_conv_with_folded_batch_norm_and_relu(pads):
    c, o, group = 6, 9, 3
    bn = [np.abs(_floats(o)) + 0.5, _floats(o), _floats(o), np.abs(_floats(o)) + 0.1]
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], group=group, pads=pads, strides=[1, 2]),
        helper.make_node("BatchNormalization", ["c", "s", "o", "m", "v"], ["n"]),
        helper.make_node("Relu", ["n"], ["y"]),
    ]
    inits = [("w", _floats(o, c // group, 3, 3)), ("b", _floats(o))] + list(zip("somv", bn))
    ops = _compare(_model(nodes, [2, c, 7, 8], inits), _floats(2, c, 7, 8))
    assert ops["CONV_2D"] == group and ops["CONCATENATION"] == 1 and "MUL" not in ops


@pytest.mark.parametrize("auto_pad", ["NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"])
def test_1d_conv(auto_pad):
    # onnxruntime has no dilation under SAME_*.
    extra = {"pads": [2, 1], "dilations": [2]} if auto_pad == "NOTSET" else {"auto_pad": auto_pad}
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["y"], strides=[2], **extra)]
    ops = _compare(_model(nodes, [2, 4, 11], [("w", _floats(5, 4, 3)), ("b", _floats(5))]), _floats(2, 4, 11))
    assert ops["CONV_2D"] == 1


@pytest.mark.parametrize(
    "kernel, pads, output_padding, group",
    [
        (2, [0, 0, 0, 0], [0, 0], 1),
        (3, [1, 1, 1, 1], [1, 1], 1),
        (4, [1, 1, 1, 1], [0, 0], 1),
        (4, [1, 2, 2, 1], [1, 0], 2),
    ],
)
def test_conv_transpose_stride_2_as_in_decoders(kernel, pads, output_padding, group):
    c, o = 8, 6
    nodes = [
        helper.make_node(
            "ConvTranspose",
            ["x", "w", "b"],
            ["t"],
            strides=[2, 2],
            pads=pads,
            output_padding=output_padding,
            group=group,
        ),
        helper.make_node("Relu", ["t"], ["y"]),
    ]
    inits = [("w", _floats(c, o // group, kernel, kernel)), ("b", _floats(o))]
    ops = _compare(_model(nodes, [2, c, 5, 6], inits), _floats(2, c, 5, 6))
    assert ops == {"TRANSPOSE_CONV": 1, "TRANSPOSE": 2}  # the Relu is fused


def test_1d_conv_transpose_without_bias():
    nodes = [helper.make_node("ConvTranspose", ["x", "w"], ["y"], strides=[3], pads=[1, 0], dilations=[2])]
    _compare(_model(nodes, [1, 3, 7], [("w", _floats(3, 2, 3))]), _floats(1, 3, 7))


def test_conv_transpose_needs_constant_weights():
    nodes = [helper.make_node("ConvTranspose", ["x", "x"], ["y"])]
    with pytest.raises(ConversionError, match=r"\(ConvTranspose\): the weights must be a constant"):
        onnx_import.convert(_model(nodes, [1, 1, 1, 1]))


@pytest.mark.parametrize("p", [1, 2, 3])
def test_global_lp_pool(p):
    nodes = [helper.make_node("GlobalLpPool", ["x"], ["y"], p=p)]
    assert _compare(_model(nodes, [2, 3, 5, 4]), _floats(2, 3, 5, 4))["LP_POOL_2D"] == 1


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
def test_max_pool_on_small_ints_with_pads(dtype):
    info = np.iinfo(dtype)
    x = RNG.integers(info.min, info.max, size=[1, 3, 6, 5], endpoint=True).astype(dtype)
    nodes = [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 2], pads=[1, 0, 1, 1], strides=[2, 1])]
    assert _compare(_model(nodes, [1, 3, 6, 5], dtype=dtype), x)["MAX_POOL_2D"] == 1


@pytest.mark.parametrize("op", ["MaxPool", "AveragePool", "LpPool"])
def test_1d_pools_with_ceil_mode_and_pads(op):
    extra = {} if op == "LpPool" else {"ceil_mode": 1}
    if op == "AveragePool":
        extra["count_include_pad"] = 1
    nodes = [helper.make_node(op, ["x"], ["y"], kernel_shape=[3], strides=[2], pads=[1, 1], **extra)]
    _compare(_model(nodes, [2, 3, 10]), _floats(2, 3, 10))


@pytest.mark.parametrize("op", ["MaxPool", "AveragePool"])
@pytest.mark.parametrize("count_include_pad", [0, 1])
def test_dilated_pools_with_explicit_pads(op, count_include_pad):
    extra = {"count_include_pad": count_include_pad} if op == "AveragePool" else {}
    nodes = [
        helper.make_node(
            op, ["x"], ["y"], kernel_shape=[2, 3], dilations=[2, 2], pads=[1, 1, 1, 2], strides=[1, 2], **extra
        )
    ]
    _compare(_model(nodes, [1, 4, 9, 9], opset=19), _floats(1, 4, 9, 9))


def test_max_pool_indices_with_pads_and_batch():
    nodes = [helper.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])]
    g = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", 1, [2, 3, 7, 6])],
        [helper.make_tensor_value_info("y", 1, None), helper.make_tensor_value_info("i", 7, None)],
    )
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    x = _floats(2, 3, 7, 6)
    want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})
    got = lite_runner.LiteRunner(onnx_import.convert(model)).run({"x": x})
    np.testing.assert_array_equal(got["y"], want[0])
    np.testing.assert_array_equal(got["i"], want[1])


def test_pool_indices_in_1d_are_refused():
    nodes = [helper.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=[2])]
    with pytest.raises(ConversionError, match=r"the Indices output is supported for 2-D MaxPool only"):
        onnx_import.convert(_model(nodes, [1, 1, 4]))


@pytest.mark.parametrize(
    "attributes",
    [
        {"auto_pad": "SAME_UPPER", "strides": [2, 2]},
        {"auto_pad": "SAME_LOWER", "strides": [2, 2]},
        {"output_shape": [12, 9], "strides": [3, 2]},
        {"auto_pad": "VALID", "strides": [2, 1], "dilations": [2, 1]},
    ],
)
def test_conv_transpose_output_size_attributes(attributes):
    nodes = [helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], **attributes)]
    _compare(_model(nodes, [1, 2, 4, 4], [("w", _floats(2, 3, 3, 3)), ("b", _floats(3))]), _floats(1, 2, 4, 4))


def test_symbolic_batch_through_grouped_conv_1d_pool_and_conv_transpose():
    """A model exported with a symbolic batch runs at batch 1 and 3: the
    intermediates the window ops add (group slices, the 1-D reshapes) follow
    the batch."""
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], group=2, pads=[0, 1]),
        helper.make_node("MaxPool", ["c"], ["p"], kernel_shape=[2], strides=[2], ceil_mode=1),
        helper.make_node("ConvTranspose", ["p", "wt"], ["y"], strides=[2], group=2),
    ]
    inits = [("w", _floats(4, 2, 3)), ("b", _floats(4)), ("wt", _floats(4, 3, 2))]
    model = _model(nodes, ["N", 4, 9], inits)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    runner = lite_runner.LiteRunner(onnx_import.convert(model))
    for batch in (1, 3, 2):
        x = _floats(batch, 4, 9)
        np.testing.assert_allclose(runner.run({"x": x})["y"], session.run(None, {"x": x})[0], rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("op", ["MaxPool", "AveragePool", "LpPool"])
def test_3d_pools_with_symbolic_batch(op):
    extra = {"count_include_pad": 1} if op == "AveragePool" else {}
    nodes = [
        helper.make_node(op, ["x"], ["y"], kernel_shape=[2, 3, 2], strides=[1, 2, 2], pads=[1, 1, 0, 0, 1, 1], **extra)
    ]
    model = _model(nodes, ["N", 3, 4, 7, 6])
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    runner = lite_runner.LiteRunner(onnx_import.convert(model))
    for batch in (2, 1):
        x = _floats(batch, 3, 4, 7, 6)
        np.testing.assert_allclose(runner.run({"x": x})["y"], session.run(None, {"x": x})[0], rtol=RTOL, atol=ATOL)


def _pool_versions(model):
    m = twl_writer.read_model(onnx_import.convert(model)).Subgraphs(0)
    return [m.Operators(i).Version() for i in range(m.OperatorsLength()) if m.Operators(i).BuiltinOptionsType()]


def test_pools_using_onnx_options_are_version_2():
    """A version-1 reader would ignore the new Pool2DOptions fields, so a pool
    using them is marked version 2 (and one that does not stays 1)."""
    plain = [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], auto_pad="SAME_UPPER")]
    assert _pool_versions(_model(plain, [1, 1, 5, 5])) == [1]
    for extra in ({"pads": [1, 0, 0, 1]}, {"ceil_mode": 1}, {"dilations": [2, 1]}, {"count_include_pad": 1}):
        nodes = [helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2], **extra)]
        assert _pool_versions(_model(nodes, [1, 1, 5, 5], opset=19)) == [2], extra

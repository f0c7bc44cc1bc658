"""Quantization from ONNX on the lite runtime, in the cases onnx's node tests
miss: a QDQ-wrapped MatMul (as a quantization tool writes it), per-channel
QuantizeLinear/DequantizeLinear in the NHWC layout after a Conv, constant
scales, dynamic quantization feeding MatMulInteger (computed zero point),
QLinearMatMul with per-column weight scales, QLinearConv with strides, SAME
padding and per-channel weights, and the conversion errors; each against
onnxruntime (or numpy)."""

import numpy as np
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator

from converters import lite_runner, onnx_import
from converters.errors import ConversionError
from tests.onnx_lite_util import make_model, run_lite

ort = pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.skipif(not lite_runner.available(), reason="bazel build //lite/c:libtensorweave_lite.so first")


def _model(nodes, inputs, outputs, inits=(), opset=21):
    """`inputs`: (name, shape, numpy dtype); outputs: (name, numpy dtype)."""
    return make_model(
        nodes, [(n, t, s) for n, s, t in inputs], [(n, t, None) for n, t in outputs], inits, opset, ir_version=10
    )


def _run(model, feeds, threads=(1, 3)):
    """The lite runtime's outputs (checked equal for 1 and 3 threads) and the
    .twl's op counts."""
    return run_lite(model, feeds, threads)


def _compare(model, feeds, atol=0, oracle="onnxruntime"):
    """Runs `model` on `oracle` (onnxruntime, or onnx's reference evaluator
    where onnxruntime's uint8 x int8 kernels saturate: AVX2's vpmaddubsw adds
    two products in int16) and the lite runtime (integers exactly, floats
    within `atol`); returns the op counts."""
    if oracle == "onnxruntime":
        want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)
    else:
        want = ReferenceEvaluator(model).run(None, feeds)
    got, ops = _run(model, feeds)
    for out, w in zip(model.graph.output, want):
        assert got[out.name].dtype == w.dtype, out.name
        assert got[out.name].shape == w.shape, out.name
        np.testing.assert_allclose(got[out.name], w, rtol=0, atol=atol, err_msg=out.name)
    return ops


def test_qdq_wrapped_matmul():
    """Activations per tensor (uint8, asymmetric), weights per channel (int8,
    symmetric), as a QDQ model from a post-training quantizer."""
    rng = np.random.default_rng(0)
    w = rng.normal(size=[16, 8]).astype(np.float32)
    w_scale = (np.abs(w).max(axis=0) / 127).astype(np.float32)
    w_q = np.round(w / w_scale).astype(np.int8)
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zp"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "x_scale", "x_zp"], ["xd"]),
        helper.make_node("DequantizeLinear", ["wq", "w_scale"], ["wd"], axis=1),
        helper.make_node("MatMul", ["xd", "wd"], ["y"]),
        helper.make_node("QuantizeLinear", ["y", "y_scale", "y_zp"], ["yq"]),
        helper.make_node("DequantizeLinear", ["yq", "y_scale", "y_zp"], ["out"]),
    ]
    inits = [
        ("x_scale", np.float32(0.02)),
        ("x_zp", np.uint8(120)),
        ("wq", w_q),
        ("w_scale", w_scale),
        ("y_scale", np.float32(0.05)),
        ("y_zp", np.uint8(128)),
    ]
    model = _model(nodes, [("x", [4, 16], np.float32)], [("out", np.float32)], inits)
    x = rng.normal(size=[4, 16]).astype(np.float32)
    # onnxruntime op by op: its QDQ fusion (into an integer MatMul) gave
    # results up to 62 output steps away from onnx's reference on this model,
    # which this runtime and onnxruntime unfused agree with.
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    want = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"]).run(
        None, {"x": x}
    )
    got, ops = _run(model, {"x": x})
    np.testing.assert_allclose(got["out"], want[0], rtol=0, atol=1e-6)
    assert ops["QUANTIZE"] == 2 and ops["DEQUANTIZE"] == 2


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.uint16])
def test_per_channel_quantize_after_conv(dtype):
    """Conv output stays NHWC; the per-channel axis 1 maps to its channel axis."""
    rng = np.random.default_rng(1)
    c = 3
    scale = np.array([0.05, 0.1, 0.02], np.float32)
    zp = np.array([3, 0, 7] if np.dtype(dtype).kind == "u" else [-3, 0, 7], dtype)
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("QuantizeLinear", ["c", "s", "zp"], ["q"], axis=1),
        helper.make_node("DequantizeLinear", ["q", "s", "zp"], ["d"], axis=1),
        helper.make_node("Relu", ["d"], ["y"]),
    ]
    inits = [("w", rng.normal(size=[c, 2, 3, 3]).astype(np.float32)), ("s", scale), ("zp", zp)]
    model = _model(nodes, [("x", [1, 2, 5, 6], np.float32)], [("q", dtype), ("y", np.float32)], inits)
    ops = _compare(model, {"x": rng.normal(size=[1, 2, 5, 6]).astype(np.float32)}, atol=1e-6)
    assert ops["QUANTIZE"] == 1 and ops["DEQUANTIZE"] == 1


def test_blocked_dequantize_of_constant_weights_with_computed_input():
    """A blocked (int4-style, here int8) weight dequantization whose input is
    a graph input, so nothing folds it."""
    rng = np.random.default_rng(2)
    x = rng.integers(-128, 128, size=[6, 8]).astype(np.int8)
    scale = rng.uniform(0.01, 0.1, size=[6, 2]).astype(np.float32)
    zp = rng.integers(-5, 5, size=[6, 2]).astype(np.int8)
    nodes = [helper.make_node("DequantizeLinear", ["x", "s", "zp"], ["y"], axis=1, block_size=4)]
    model = _model(nodes, [("x", [6, 8], np.int8)], [("y", np.float32)], [("s", scale), ("zp", zp)])
    _compare(model, {"x": x})


def test_dynamic_quantization_into_matmul_integer():
    """DynamicQuantizeLinear's computed zero point feeds MatMulInteger."""
    rng = np.random.default_rng(3)
    w = rng.integers(-128, 128, size=[12, 5]).astype(np.int8)
    nodes = [
        helper.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xzp"]),
        helper.make_node("MatMulInteger", ["xq", "w", "xzp", "wzp"], ["acc"]),
    ]
    inits = [("w", w), ("wzp", np.array([1, -2, 0, 3, 4], np.int8))]
    model = _model(
        nodes,
        [("x", [3, 12], np.float32)],
        [("acc", np.int32), ("xs", np.float32), ("xzp", np.uint8), ("xq", np.uint8)],
        inits,
    )
    ops = _compare(model, {"x": rng.normal(size=[3, 12]).astype(np.float32) * 4}, atol=1e-9, oracle="onnx")
    assert ops == {"DYNAMIC_QUANTIZE": 1, "QUANTIZED_BATCH_MATMUL": 1}


@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
def test_qlinear_matmul_per_column_weight_scales(dtype):
    rng = np.random.default_rng(4)
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max + 1, size=[2, 3, 20]).astype(dtype)
    b = rng.integers(info.min, info.max + 1, size=[20, 6]).astype(dtype)
    nodes = [helper.make_node("QLinearMatMul", ["a", "as", "azp", "b", "bs", "bzp", "ys", "yzp"], ["y"])]
    inits = [
        ("as", np.float32(0.03)),
        ("azp", np.array(7, dtype)),
        ("b", b),
        ("bs", rng.uniform(0.005, 0.02, size=[6]).astype(np.float32)),
        ("bzp", np.array(2, dtype)),
        ("ys", np.float32(0.9)),
        ("yzp", np.array(5, dtype)),
    ]
    model = _model(nodes, [("a", [2, 3, 20], dtype)], [("y", dtype)], inits)
    feeds = {"a": a}
    want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    got, ops = _run(model, feeds)
    assert ops == {"QUANTIZED_BATCH_MATMUL": 1}
    # onnxruntime's requantization is float32; ours rounds the exact product:
    # equal but for the odd tie broken differently.
    diff = np.abs(got["y"].astype(np.int32) - want.astype(np.int32))
    assert diff.max() <= 1 and np.mean(diff == 0) > 0.95
    # Exactly ONNX's reference arithmetic (round half to even, then + zero point).
    acc = (a.astype(np.int32) - 7) @ (b.astype(np.int32) - 2)
    mult = (np.float32(0.03) * inits[3][1] / np.float32(0.9)).astype(np.float32)
    ref = np.clip(np.rint(acc * mult.astype(np.float64)) + 5, info.min, info.max).astype(dtype)
    np.testing.assert_array_equal(got["y"], ref)


@pytest.mark.parametrize("auto_pad", ["NOTSET", "SAME_UPPER", "VALID"])
def test_qlinear_conv_strides_padding_per_channel(auto_pad):
    rng = np.random.default_rng(5)
    x = rng.integers(0, 256, size=[2, 3, 9, 8]).astype(np.uint8)
    w = rng.integers(-100, 100, size=[4, 3, 3, 3]).astype(np.int8)
    extra = {"pads": [1, 0, 2, 1]} if auto_pad == "NOTSET" else {"auto_pad": auto_pad}
    nodes = [
        helper.make_node(
            "QLinearConv", ["x", "xs", "xzp", "w", "ws", "wzp", "ys", "yzp"], ["y"], strides=[2, 1], **extra
        ),
        helper.make_node("DequantizeLinear", ["y", "ys", "yzp"], ["f"]),
    ]
    inits = [
        ("xs", np.float32(0.02)),
        ("xzp", np.uint8(110)),
        ("w", w),
        ("ws", rng.uniform(0.002, 0.01, size=[4]).astype(np.float32)),
        ("wzp", np.zeros([4], np.int8)),
        ("ys", np.float32(0.25)),
        ("yzp", np.uint8(120)),
    ]
    model = _model(nodes, [("x", [2, 3, 9, 8], np.uint8)], [("y", np.uint8), ("f", np.float32)], inits)
    ops = _compare(model, {"x": x}, atol=1e-6, oracle="onnx")
    assert ops["QUANTIZED_CONV_2D"] == 1


@pytest.mark.parametrize("group, with_bias", [(1, True), (2, True), (6, False)])
def test_qlinear_conv_groups_and_bias(group, with_bias):
    """Grouped and depthwise QLinearConv, with an int32 bias."""
    rng = np.random.default_rng(7)
    x = rng.integers(-128, 128, size=[1, 6, 7, 7]).astype(np.int8)
    w = rng.integers(-128, 128, size=[12, 6 // group, 3, 3]).astype(np.int8)
    names = ["x", "xs", "xzp", "w", "ws", "wzp", "ys", "yzp"] + (["b"] * with_bias)
    nodes = [helper.make_node("QLinearConv", names, ["y"], group=group, pads=[1, 1, 1, 1])]
    inits = [
        ("xs", np.float32(0.05)),
        ("xzp", np.int8(-3)),
        ("w", w),
        ("ws", rng.uniform(0.002, 0.01, size=[12]).astype(np.float32)),
        ("wzp", np.zeros([12], np.int8)),
        ("ys", np.float32(0.5)),
        ("yzp", np.int8(4)),
    ] + ([("b", rng.integers(-5000, 5000, size=[12]).astype(np.int32))] if with_bias else [])
    model = _model(nodes, [("x", [1, 6, 7, 7], np.int8)], [("y", np.int8)], inits)
    ops = _compare(model, {"x": x}, oracle="onnx")
    assert ops["QUANTIZED_CONV_2D"] == 1


def test_conv_integer_matches_onnxruntime():
    rng = np.random.default_rng(6)
    x = rng.integers(0, 256, size=[1, 2, 6, 7]).astype(np.uint8)
    w = rng.integers(0, 256, size=[3, 2, 2, 3]).astype(np.uint8)
    nodes = [helper.make_node("ConvInteger", ["x", "w", "xzp", "wzp"], ["y"], dilations=[2, 1], pads=[0, 1, 1, 0])]
    inits = [("w", w), ("xzp", np.uint8(128)), ("wzp", np.uint8(100))]
    model = _model(nodes, [("x", [1, 2, 6, 7], np.uint8)], [("y", np.int32)], inits, opset=10)
    _compare(model, {"x": x})


def test_computed_qlinear_scale_is_refused():
    nodes = [helper.make_node("QLinearMatMul", ["a", "as", "azp", "b", "bs", "bzp", "ys", "yzp"], ["y"])]
    inits = [
        ("azp", np.uint8(0)),
        ("b", np.ones([2, 2], np.uint8)),
        ("bs", np.float32(1)),
        ("bzp", np.uint8(0)),
        ("ys", np.float32(1)),
        ("yzp", np.uint8(0)),
    ]
    model = _model(nodes, [("a", [2, 2], np.uint8), ("as", [], np.float32)], [("y", np.uint8)], inits)
    with pytest.raises(ConversionError, match="needs constant scales; 'as' is computed"):
        onnx_import.convert(model)


def test_zero_scale_is_refused_by_the_runtime():
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["y"])]
    model = _model(nodes, [("x", [3], np.float32)], [("y", np.uint8)], [("s", np.float32(0)), ("zp", np.uint8(0))])
    with pytest.raises(lite_runner.LiteError, match="positive and finite"):
        lite_runner.LiteRunner(onnx_import.convert(model)).run({"x": np.zeros(3, np.float32)})


def test_float16_input_quantizes_as_onnxruntime_does():
    """A float16 input and scale are widened to float32 (onnx_import/float16.py), exactly."""
    nodes = [helper.make_node("QuantizeLinear", ["x", "s"], ["y"])]
    model = _model(nodes, [("x", [5], np.float16)], [("y", np.uint8)], [("s", np.float16(0.5))])
    _compare(model, {"x": np.array([0.0, 1.2, 3.7, 100.0, -2.0], np.float16)})

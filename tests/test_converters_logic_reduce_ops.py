"""Comparisons, logic, bitwise ops, reductions and ArgMax/ArgMin from ONNX on
the lite runtime, in the cases onnx's node tests miss: reductions in the NHWC
layout after a Conv (axes mapped, or the input transposed back), opsets with
axes as attributes, noop_with_empty_axes, integer reductions, a numerically
stable ReduceLogSumExp, GlobalMaxPool of rank 3 and after a Conv, and
comparisons against broadcast constants; each against onnxruntime or numpy."""

import numpy as np
import pytest
from onnx import helper

from converters import lite_runner, onnx_import
from tests.onnx_lite_util import make_model, run_lite

ort = pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.skipif(not lite_runner.available(), reason="bazel build //lite/c:libtensorweave_lite.so first")
RTOL, ATOL = 1e-4, 1e-4


def _model(nodes, inputs, outputs, inits=(), opset=18):
    """`inputs`: (name, shape, numpy dtype); outputs: (name, numpy dtype)."""
    return make_model(
        nodes, [(n, t, s) for n, s, t in inputs], [(n, t, None) for n, t in outputs], inits, opset, ir_version=8
    )


def _run(model, feeds, threads=(1, 2)):
    """The lite runtime's outputs (checked equal for 1 and 2 threads) and the
    .twl's op counts."""
    return run_lite(model, feeds, threads)


def _compare(model, feeds):
    """Runs `model` on onnxruntime and the lite runtime; returns the op counts."""
    want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)
    got, ops = _run(model, feeds)
    for out, w in zip(model.graph.output, want):
        assert got[out.name].dtype == w.dtype, out.name
        assert got[out.name].shape == w.shape, out.name
        np.testing.assert_allclose(got[out.name], w, rtol=RTOL, atol=ATOL, err_msg=out.name)
    return ops


def _x(shape, seed=0, dtype=np.float32):
    return (np.random.default_rng(seed).standard_normal(shape) * 3).astype(dtype)


_CONV_W = _x((4, 3, 3, 3), seed=1) * 0.3


def _conv_then(node, opset=18, extra_inits=()):
    """x [1, 3, 5, 6] -> Conv (NHWC inside the lite model) -> `node`."""
    conv = helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1])
    return _model(
        [conv, node],
        [("x", [1, 3, 5, 6], np.float32)],
        [("y", np.float32)],
        [("w", _CONV_W), *extra_inits],
        opset,
    )


@pytest.mark.parametrize("op", ["ReduceMax", "ReduceSum", "ReduceL2", "ReduceLogSumExp", "ReduceMean"])
@pytest.mark.parametrize(
    "axes,keepdims",
    [([1], 1), ([2, 3], 1), ([2, 3], 0), ([1, 2, 3], 0), ([-1], 1), ([3], 0)],
)
def test_reduction_after_conv_runs_in_nhwc_or_transposes_back(op, axes, keepdims):
    node = helper.make_node(op, ["c", "axes"], ["y"], keepdims=keepdims)
    model = _conv_then(node, extra_inits=[("axes", np.array(axes, np.int64))])
    ops = _compare(model, {"x": _x((1, 3, 5, 6))})
    if op != "ReduceLogSumExp" and (keepdims or axes in ([2, 3], [1, 2, 3])):
        # The axes map into NHWC: the Conv's output is not transposed back
        # before the reduction (one TRANSPOSE for the input, one at the
        # output when it stays rank 4).
        assert ops["TRANSPOSE"] == 1 + (keepdims == 1)


def test_global_max_pool_after_conv_and_of_rank_3():
    model = _conv_then(helper.make_node("GlobalMaxPool", ["c"], ["y"]))
    ops = _compare(model, {"x": _x((1, 3, 5, 6))})
    assert ops["REDUCE_MAX"] == 1
    model = _model(
        [helper.make_node("GlobalMaxPool", ["x"], ["y"])], [("x", [2, 3, 7], np.float32)], [("y", np.float32)]
    )
    _compare(model, {"x": _x((2, 3, 7))})


@pytest.mark.parametrize("opset", [11, 13])
def test_axes_as_attribute_in_older_opsets(opset):
    # ReduceSum's axes became an input in opset 13, the others' in 18.
    nodes = [helper.make_node("ReduceMax", ["x"], ["a"], axes=[0, 2], keepdims=0)]
    inits = []
    if opset >= 13:
        nodes.append(helper.make_node("ReduceSum", ["x", "axes"], ["b"], keepdims=1))
        inits.append(("axes", np.array([-1], np.int64)))
    else:
        nodes.append(helper.make_node("ReduceSum", ["x"], ["b"], axes=[-1], keepdims=1))
    nodes.append(helper.make_node("ReduceL1", ["x"], ["c"], axes=[1]))
    model = _model(nodes, [("x", [2, 3, 4], np.float32)], [(n, np.float32) for n in "abc"], inits, opset)
    _compare(model, {"x": _x((2, 3, 4))})


def test_noop_with_empty_axes_and_default_axes():
    empty = ("empty", np.array([], np.int64))
    nodes = [
        # Empty axes with noop_with_empty_axes: no reduction, the elementwise
        # parts only (|x| for ReduceL1, x for ReduceSum).
        helper.make_node("ReduceSum", ["x", "empty"], ["a"], noop_with_empty_axes=1),
        helper.make_node("ReduceL1", ["x", "empty"], ["b"], noop_with_empty_axes=1),
        # Without it (and with no axes at all): every axis.
        helper.make_node("ReduceProd", ["x", "empty"], ["c"], keepdims=0),
        helper.make_node("ReduceMin", ["x"], ["d"]),
    ]
    model = _model(nodes, [("x", [2, 3], np.float32)], [(n, np.float32) for n in "abcd"], [empty])
    _compare(model, {"x": _x((2, 3)) * 0.5})


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("op", ["ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceSumSquare", "ReduceL1"])
def test_integer_reductions(op, dtype):
    node = helper.make_node(op, ["x", "axes"], ["y"], keepdims=0)
    model = _model([node], [("x", [3, 4, 2], dtype)], [("y", dtype)], [("axes", np.array([0, 2], np.int64))])
    x = np.random.default_rng(3).integers(-5, 6, (3, 4, 2)).astype(dtype)
    _compare(model, {"x": x})


def test_log_sum_exp_is_stable_for_large_inputs():
    node = helper.make_node("ReduceLogSumExp", ["x", "axes"], ["y"], keepdims=0)
    model = _model([node], [("x", [3, 5], np.float32)], [("y", np.float32)], [("axes", np.array([1], np.int64))])
    x = _x((3, 5)) + np.array([[1000.0], [-1000.0], [0.0]], np.float32)
    got, _ = _run(model, {"x": x})
    assert np.all(np.isfinite(got["y"]))
    want = np.log(np.sum(np.exp(x.astype(np.float64) - x.max(1, keepdims=True)), 1)) + x.max(1)
    np.testing.assert_allclose(got["y"], want, rtol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64])
@pytest.mark.parametrize("op", ["ArgMax", "ArgMin"])
def test_arg_extremum_types_and_options(op, dtype):
    x = np.random.default_rng(4).integers(-2, 3, (3, 4, 5)).astype(dtype)  # many ties
    outs = []
    nodes = []
    for k, (axis, keepdims, last) in enumerate([(0, 1, 0), (-1, 0, 1), (1, 0, 0), (2, 1, 1)]):
        nodes.append(helper.make_node(op, ["x"], [f"y{k}"], axis=axis, keepdims=keepdims, select_last_index=last))
        outs.append((f"y{k}", np.int64))
        pick = (np.argmax if op == "ArgMax" else np.argmin)(np.flip(x, axis) if last else x, axis=axis)
        if last:
            pick = x.shape[axis] - 1 - pick
        outs[-1] = (f"y{k}", np.int64, np.expand_dims(pick, axis) if keepdims else pick)
    model = _model(nodes, [("x", [3, 4, 5], dtype)], [(n, t) for n, t, _ in outs], opset=13)
    got, _ = _run(model, {"x": x})
    for name, _, want in outs:
        assert got[name].dtype == np.int64
        np.testing.assert_array_equal(got[name], want, err_msg=name)


def test_comparisons_and_logic_against_broadcast_constants():
    nodes = [
        helper.make_node("Less", ["x", "c"], ["lt"]),
        helper.make_node("GreaterOrEqual", ["x", "c"], ["ge"]),
        helper.make_node("Equal", ["x", "c"], ["eq"]),
        helper.make_node("Xor", ["lt", "eq"], ["le"]),
        helper.make_node("Not", ["ge"], ["not_ge"]),
        helper.make_node("Where", ["le", "x", "c"], ["y"]),
    ]
    c = np.array([0.0, 1.0, -1.0, 2.0], np.float32)
    model = _model(
        nodes,
        [("x", [3, 4], np.float32)],
        [("lt", np.bool_), ("ge", np.bool_), ("le", np.bool_), ("not_ge", np.bool_), ("y", np.float32)],
        [("c", c)],
    )
    x = np.round(_x((3, 4)))
    x[0] = c  # some ties
    ops = _compare(model, {"x": x})
    assert ops["NOT_EQUAL"] == 1 and ops["LOGICAL_NOT"] == 1


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint32, np.int64])
def test_bitwise_and_shifts(dtype):
    rng = np.random.default_rng(5)
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, (2, 3, 4), dtype=dtype, endpoint=True)
    b = rng.integers(info.min, info.max, (3, 1), dtype=dtype, endpoint=True)
    bits = np.dtype(dtype).itemsize * 8
    s = rng.integers(0, bits, (4,)).astype(dtype)
    nodes = [
        helper.make_node("BitwiseAnd", ["a", "b"], ["and"]),
        helper.make_node("BitwiseOr", ["a", "b"], ["or"]),
        helper.make_node("BitwiseXor", ["a", "b"], ["xor"]),
        helper.make_node("BitwiseNot", ["a"], ["not"]),
        helper.make_node("BitShift", ["a", "s"], ["left"], direction="LEFT"),
        helper.make_node("BitShift", ["a", "s"], ["right"], direction="RIGHT"),
    ]
    outs = ["and", "or", "xor", "not", "left", "right"]
    model = _model(
        nodes, [("a", [2, 3, 4], dtype), ("b", [3, 1], dtype), ("s", [4], dtype)], [(n, dtype) for n in outs]
    )
    got, _ = _run(model, {"a": a, "b": b, "s": s})
    want = [a & b, a | b, a ^ b, ~a, a << s, a >> s]  # numpy: wrapping, arithmetic for signed
    for name, w in zip(outs, want):
        np.testing.assert_array_equal(got[name], w.astype(dtype), err_msg=name)


@pytest.mark.parametrize(
    "op,dtype,match",
    [
        ("BitwiseAnd", np.float32, r"\(BitwiseAnd\): operands are float32 and float32"),
        ("And", np.int32, r"\(And\): operands are int32 and int32"),
        ("ReduceSum", np.int8, r"\(ReduceSum\): input is int8; REDUCE_SUM takes float32, float64, int32, int64$"),
    ],
)
def test_types_the_kernels_lack_are_refused_at_conversion(op, dtype, match):
    from converters.errors import ConversionError

    binary = op not in ("ReduceSum",)
    node = helper.make_node(op, ["x", "x"] if binary else ["x"], ["y"])
    out = np.bool_ if op == "And" else dtype
    model = _model([node], [("x", [2, 3], dtype)], [("y", out)])
    with pytest.raises(ConversionError, match=match):
        onnx_import.convert(model)


def test_float16_comparison_is_computed_in_float32():
    """Less of float16 operands (widened to float32 exactly: onnx_import/float16.py) agrees with onnxruntime."""
    model = _model(
        [helper.make_node("Less", ["x", "y"], ["z"])],
        [("x", [2, 3], np.float16), ("y", [3], np.float16)],
        [("z", np.bool_)],
    )
    ops = _compare(model, {"x": _x([2, 3], dtype=np.float16), "y": _x([3], 1, np.float16)})
    assert ops["LESS"] == 1


# Each ONNX op and the one lite op it imports as (with its inputs: shapes and
# dtype), compared with onnxruntime.
_ONE_OP = [
    ("Less", "LESS", 2, np.float32),
    ("LessOrEqual", "LESS_EQUAL", 2, np.int32),
    ("Greater", "GREATER", 2, np.int64),
    ("GreaterOrEqual", "GREATER_EQUAL", 2, np.float32),
    ("Xor", "NOT_EQUAL", 2, np.bool_),
    ("And", "LOGICAL_AND", 2, np.bool_),
    ("Or", "LOGICAL_OR", 2, np.bool_),
    ("Not", "LOGICAL_NOT", 1, np.bool_),
    ("BitwiseAnd", "BITWISE_AND", 2, np.int32),
    ("BitwiseOr", "BITWISE_OR", 2, np.uint8),
    ("BitwiseXor", "BITWISE_XOR", 2, np.int64),
    ("BitwiseNot", "BITWISE_NOT", 1, np.int16),
    ("BitShift", "LEFT_SHIFT", 2, np.uint32),
    ("BitShift", "RIGHT_SHIFT", 2, np.uint64),
    ("ReduceSum", "REDUCE_SUM", 1, np.float32),
    ("ReduceMax", "REDUCE_MAX", 1, np.float32),
    ("ReduceMin", "REDUCE_MIN", 1, np.int32),
    ("ReduceProd", "REDUCE_PROD", 1, np.float32),
    ("ArgMin", "ARG_MIN", 1, np.float32),
]


_BOOL_OUT = {"LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL", "NOT_EQUAL", "LOGICAL_AND", "LOGICAL_OR", "LOGICAL_NOT"}


@pytest.mark.parametrize("onnx_op,lite_op,arity,dtype", _ONE_OP, ids=[c[1] for c in _ONE_OP])
def test_each_op_imports_as_its_lite_op(onnx_op, lite_op, arity, dtype):
    rng = np.random.default_rng(7)
    names = ["a", "b"][:arity]
    if dtype == np.bool_:
        feeds = {n: rng.random([2, 3, 4]) < 0.5 for n in names}
    elif np.issubdtype(dtype, np.integer):
        feeds = {n: rng.integers(0, 100, [2, 3, 4]).astype(dtype) for n in names}
    else:
        feeds = {n: rng.uniform(0.5, 1.5, [2, 3, 4]).astype(dtype) for n in names}
    kwargs = {"keepdims": 0} if onnx_op.startswith(("Reduce", "Arg")) else {}
    if onnx_op == "BitShift":
        kwargs["direction"] = lite_op.split("_")[0]
        feeds["b"] %= 8
    if onnx_op == "ArgMin":
        kwargs["axis"] = 1
    node = helper.make_node(onnx_op, names, ["y"], **kwargs)
    out_dtype = np.bool_ if lite_op in _BOOL_OUT else np.int64 if onnx_op == "ArgMin" else dtype
    model = _model([node], [(n, [2, 3, 4], dtype) for n in names], [("y", out_dtype)])
    assert _compare(model, feeds) == {lite_op: 1}

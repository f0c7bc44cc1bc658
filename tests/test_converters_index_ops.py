"""The index and data-movement importers (converters/onnx_import/index_ops.py)
on the lite runtime against onnxruntime, for what the ONNX node tests leave
out: DepthToSpace/SpaceToDepth/Split after a Conv (NHWC, no transpose back),
ties in TopK and Hardmax, computed indices and Trilu k, more element types,
and out-of-range indices, which fail the invoke with an error naming the op,
the index and the bound."""

import numpy as np
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator

from converters import lite_runner, onnx_import
from tests.onnx_lite_util import lite_op_counts, make_model

ort = pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.skipif(not lite_runner.available(), reason="bazel build //lite/c:libtensorweave_lite.so first")
RTOL, ATOL = 1e-5, 1e-5


def _model(nodes, inputs, outputs, initializers=(), opset=18):
    """A model of `nodes`; inputs/outputs are (name, numpy dtype, shape)."""
    return make_model(nodes, inputs, outputs, initializers, opset)


_ops = lite_op_counts


def _compare(model, feeds, reference="onnxruntime", ops=None):
    """The reference's outputs (onnxruntime's, or onnx's reference
    evaluator's where onnxruntime lacks the op, attribute or type) against
    the lite runtime's (1 and 2 threads): dtype, shape and values, and the
    lite ops the model converted to (`ops`: {op: count}); returns the .twl
    bytes."""
    if reference == "onnxruntime":
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        want = session.run(None, feeds)
    else:
        want = ReferenceEvaluator(model).run(None, feeds)
    data = onnx_import.convert(model)
    for threads in (1, 2):
        got = lite_runner.LiteRunner(data, num_threads=threads).run(feeds)
        for out, w in zip(model.graph.output, want):
            have = got[out.name]
            assert have.dtype == w.dtype and have.shape == w.shape, (out.name, have.dtype, have.shape, w.shape)
            np.testing.assert_allclose(have, w, rtol=RTOL, atol=ATOL, err_msg=out.name)
    if ops is not None:
        assert _ops(data) == ops
    return data


def _conv_then(op_node, out_shape, channels=8, seed=0):
    """Conv (NHWC on the lite runtime) -> `op_node` on its output 'c'."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((channels, 3, 3, 3)).astype(np.float32)
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]), op_node]
    model = _model(nodes, [("x", np.float32, [2, 3, 4, 6])], [("y", np.float32, out_shape)], [("w", w)])
    return model, {"x": rng.standard_normal((2, 3, 4, 6)).astype(np.float32)}


@pytest.mark.parametrize("mode", ["DCR", "CRD"])
def test_depth_to_space_after_conv_stays_nhwc(mode):
    node = helper.make_node("DepthToSpace", ["c"], ["y"], blocksize=2, mode=mode)
    model, feeds = _conv_then(node, [2, 2, 8, 12])
    data = _compare(model, feeds)
    # One TRANSPOSE each way at the model's edges, none around the op.
    assert _ops(data) == {"TRANSPOSE": 2, "CONV_2D": 1, "DEPTH_TO_SPACE": 1}


@pytest.mark.parametrize("mode", ["DCR", "CRD"])
def test_space_to_depth_after_conv_stays_nhwc(mode):
    node = helper.make_node("SpaceToDepth", ["c"], ["y"], blocksize=2, mode=mode)
    model, feeds = _conv_then(node, [2, 32, 2, 3])
    model.opset_import[0].version = 25  # SpaceToDepth's mode is new in opset 25 (not in onnxruntime)
    data = _compare(model, feeds, reference="onnx")
    assert _ops(data) == {"TRANSPOSE": 2, "CONV_2D": 1, "SPACE_TO_DEPTH": 1}


def test_split_after_conv_stays_nhwc():
    rng = np.random.default_rng(1)
    w = rng.standard_normal((6, 3, 1, 1)).astype(np.float32)
    split = np.array([1, 3, 2], np.int64)
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"]),
        helper.make_node("Split", ["c", "split"], ["a", "b", "d"], axis=1),
    ]
    outputs = [("a", np.float32, [1, 1, 4, 5]), ("b", np.float32, [1, 3, 4, 5]), ("d", np.float32, [1, 2, 4, 5])]
    model = _model(nodes, [("x", np.float32, [1, 3, 4, 5])], outputs, [("w", w), ("split", split)])
    data = _compare(model, {"x": rng.standard_normal((1, 3, 4, 5)).astype(np.float32)})
    assert _ops(data)["SPLIT"] == 1 and _ops(data)["TRANSPOSE"] == 4  # the input, and each output


@pytest.mark.parametrize("largest", [0, 1])
@pytest.mark.parametrize("axis", [0, -1])
def test_top_k_ties_keep_the_lower_index(largest, axis):
    x = np.random.default_rng(2).integers(0, 3, (6, 7)).astype(np.int64)  # many ties
    node = helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=axis, largest=largest)
    shape = [4, 7] if axis == 0 else [6, 4]
    model = _model(
        [node],
        [("x", np.int64, [6, 7])],
        [("v", np.int64, shape), ("i", np.int64, shape)],
        [("k", np.array([4], np.int64))],
    )
    _compare(model, {"x": x}, ops={"TOP_K": 1})


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.uint8])
def test_top_k_element_types(dtype):
    x = (np.random.default_rng(3).standard_normal((3, 5)) * 50 + 100).astype(dtype)
    node = helper.make_node("TopK", ["x", "k"], ["v", "i"])
    model = _model(
        [node], [("x", dtype, [3, 5])], [("v", dtype, [3, 2]), ("i", np.int64, [3, 2])], [("k", np.array([2]))]
    )
    _compare(model, {"x": x})


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_hardmax_ties_take_the_first(axis):
    x = np.array([[1, 3, 3], [2, 2, 0], [5, 1, 5]], np.float32)
    node = helper.make_node("Hardmax", ["x"], ["y"], axis=axis)
    data = _compare(_model([node], [("x", np.float32, [3, 3])], [("y", np.float32, [3, 3])]), {"x": x})
    assert _ops(data) == {"ARG_MAX": 1, "ONE_HOT": 1}


def test_one_hot_float_indices_negative_axis_int64_values():
    node = helper.make_node("OneHot", ["i", "depth", "values"], ["y"], axis=-2)
    model = _model(
        [node],
        [("i", np.float32, [2, 3])],
        [("y", np.int64, [2, 4, 3])],
        [("depth", np.array(4.0, np.float32)), ("values", np.array([-2, 9], np.int64))],
    )
    # onnxruntime has no OneHot of float indices with int64 values.
    _compare(model, {"i": np.array([[0, 3, -1], [-4, 2, 9]], np.float32)}, reference="onnx")


def test_trilu_computed_k():
    nodes = [
        helper.make_node("Neg", ["m"], ["k"]),
        helper.make_node("Trilu", ["x", "k"], ["y"], upper=1),
    ]
    model = _model(nodes, [("x", np.float32, [2, 3, 4]), ("m", np.int64, [])], [("y", np.float32, [2, 3, 4])], opset=14)
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for m in (-2, 0, 1, 5):
        _compare(model, {"x": x, "m": np.array(m, np.int64)}, ops={"NEG": 1, "TRILU": 1})


@pytest.mark.parametrize("dtype", [np.int64, np.float64, np.uint32])
@pytest.mark.parametrize("op", ["CumSum", "CumProd"])
def test_cumsum_and_cumprod(op, dtype):
    x = np.arange(1, 13).reshape(3, 4).astype(dtype)
    node = helper.make_node(op, ["x", "axis"], ["y"], exclusive=1, reverse=1)
    model = _model([node], [("x", dtype, [3, 4])], [("y", dtype, [3, 4])], [("axis", np.array(-1, np.int32))], opset=26)
    # onnxruntime has no CumProd, nor CumSum of uint32.
    _compare(model, {"x": x}, reference="onnx", ops={"CUMSUM" if op == "CumSum" else "CUMPROD": 1})


def test_expand_and_tile_bool():
    nodes = [
        helper.make_node("Expand", ["x", "shape"], ["e"]),
        helper.make_node("Tile", ["x", "repeats"], ["t"]),
    ]
    model = _model(
        nodes,
        [("x", np.bool_, [3, 1])],
        [("e", np.bool_, [2, 3, 4]), ("t", np.bool_, [6, 3])],
        [("shape", np.array([2, 1, 4], np.int64)), ("repeats", np.array([2, 3], np.int64))],
    )
    _compare(model, {"x": np.array([[True], [False], [True]])}, ops={"BROADCAST_TO": 1, "TILE": 1})


@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
def test_scatter_nd_and_elements_with_computed_indices(reduction):
    rng = np.random.default_rng(4)
    nodes = [
        helper.make_node("ScatterND", ["d", "i", "u"], ["y"], reduction=reduction),
        helper.make_node("ScatterElements", ["d", "j", "v"], ["z"], axis=0, reduction=reduction),
    ]
    model = _model(
        nodes,
        [
            ("d", np.float32, [4, 3]),
            ("i", np.int64, [2, 1]),
            ("u", np.float32, [2, 3]),
            ("j", np.int64, [2, 3]),
            ("v", np.float32, [2, 3]),
        ],
        [("y", np.float32, [4, 3]), ("z", np.float32, [4, 3])],
    )
    feeds = {
        "d": rng.standard_normal((4, 3)).astype(np.float32),
        "i": np.array([[3], [-4]], np.int64),
        "u": rng.standard_normal((2, 3)).astype(np.float32),
        "j": np.array([[0, -1, 2], [1, 3, 2]], np.int64),
        "v": rng.standard_normal((2, 3)).astype(np.float32),
    }
    _compare(model, feeds, ops={"SCATTER_ND": 1, "SCATTER_ELEMENTS": 1})


def _out_of_range(node, inputs, outputs, feeds, opset=18):
    data = onnx_import.convert(_model([node], inputs, outputs, opset=opset))
    runner = lite_runner.LiteRunner(data)
    with pytest.raises(lite_runner.LiteError) as e:
        runner.run(feeds)
    return str(e.value)


def test_gather_elements_index_out_of_range_is_an_error():
    message = _out_of_range(
        helper.make_node("GatherElements", ["d", "i"], ["y"], axis=1),
        [("d", np.float32, [2, 3]), ("i", np.int64, [2, 2])],
        [("y", np.float32, [2, 2])],
        {"d": np.zeros((2, 3), np.float32), "i": np.array([[0, 1], [2, 3]], np.int64)},
    )
    assert "(GATHER_ELEMENTS): index 3 out of range [-3, 3)" in message


@pytest.mark.parametrize("op", ["ScatterElements", "Scatter"])
def test_scatter_elements_index_out_of_range_is_an_error(op):
    message = _out_of_range(
        helper.make_node(op, ["d", "i", "u"], ["y"], axis=0),
        [("d", np.float32, [3, 2]), ("i", np.int32, [1, 2]), ("u", np.float32, [1, 2])],
        [("y", np.float32, [3, 2])],
        {"d": np.zeros((3, 2), np.float32), "i": np.array([[-4, 0]], np.int32), "u": np.ones((1, 2), np.float32)},
        opset=10 if op == "Scatter" else 18,
    )
    assert "(SCATTER_ELEMENTS): index -4 out of range [-3, 3)" in message


def test_gather_nd_and_scatter_nd_index_out_of_range_is_an_error():
    message = _out_of_range(
        helper.make_node("GatherND", ["d", "i"], ["y"]),
        [("d", np.int32, [2, 5]), ("i", np.int64, [1, 2])],
        [("y", np.int32, [1])],
        {"d": np.zeros((2, 5), np.int32), "i": np.array([[1, 5]], np.int64)},
    )
    assert "(GATHER_ND): index 5 out of range [-5, 5)" in message
    message = _out_of_range(
        helper.make_node("ScatterND", ["d", "i", "u"], ["y"]),
        [("d", np.float32, [4, 2]), ("i", np.int64, [1, 1]), ("u", np.float32, [1, 2])],
        [("y", np.float32, [4, 2])],
        {"d": np.zeros((4, 2), np.float32), "i": np.array([[4]], np.int64), "u": np.ones((1, 2), np.float32)},
    )
    assert "(SCATTER_ND): index 4 out of range [-4, 4)" in message


def test_reverse_sequence_length_out_of_range_is_an_error():
    message = _out_of_range(
        helper.make_node("ReverseSequence", ["x", "lens"], ["y"], batch_axis=0, time_axis=1),
        [("x", np.float32, [2, 3]), ("lens", np.int64, [2])],
        [("y", np.float32, [2, 3])],
        {"x": np.zeros((2, 3), np.float32), "lens": np.array([1, 4], np.int64)},
    )
    assert "(REVERSE_SEQUENCE): sequence length 4 out of range [0, 3]" in message


def test_shape_size_and_eye_like_of_a_computed_tensor_fold():
    nodes = [
        helper.make_node("Relu", ["x"], ["r"]),
        helper.make_node("Shape", ["r"], ["s"], start=1),
        helper.make_node("Size", ["r"], ["n"]),
        helper.make_node("EyeLike", ["r"], ["e"], k=-1),
    ]
    model = _model(
        nodes,
        [("x", np.float32, [3, 4])],
        [("s", np.int64, [1]), ("n", np.int64, []), ("e", np.float32, [3, 4])],
    )
    data = _compare(model, {"x": np.ones((3, 4), np.float32)})
    assert "SHAPE" not in _ops(data)


def test_one_hot_fractional_indices_truncate():
    # ONNX casts non-integer indices to int64 (truncating): 2.7 -> 2, -1.5 -> -1.
    node = helper.make_node("OneHot", ["i", "depth", "values"], ["y"])
    model = _model(
        [node],
        [("i", np.float32, [4])],
        [("y", np.float32, [4, 3])],
        [("depth", np.array(3.0, np.float32)), ("values", np.array([0, 1], np.float32))],
    )
    _compare(model, {"i": np.array([0, 2.7, -1.5, 3.2], np.float32)})


def test_refusals_name_the_node_and_the_reason():
    from converters.errors import ConversionError

    names = [f"o{i}" for i in range(17)]
    split = helper.make_node("Split", ["x"], names, axis=0, num_outputs=17, name="s")
    model = _model([split], [("x", np.float32, [17])], [(n, np.float32, [1]) for n in names])
    with pytest.raises(ConversionError, match=r"'s' \(Split\): 17 outputs: a lite op has at most 16"):
        onnx_import.convert(model)
    top_k = helper.make_node("TopK", ["x", "k"], ["v", "i"], name="t")
    model = _model(
        [top_k], [("x", np.float32, [5]), ("k", np.int64, [1])], [("v", np.float32, [None]), ("i", np.int64, [None])]
    )
    with pytest.raises(ConversionError, match=r"'t' \(TopK\): k \(input 1\) must be a constant"):
        onnx_import.convert(model)


def test_gather_elements_gather_nd_and_reverse_sequence_with_computed_indices():
    nodes = [
        helper.make_node("GatherElements", ["d", "i"], ["g"], axis=-1),
        helper.make_node("GatherND", ["d", "j"], ["n"], batch_dims=1),
        helper.make_node("ReverseSequence", ["d", "lens"], ["r"], batch_axis=1, time_axis=0),
    ]
    model = _model(
        nodes,
        [("d", np.float32, [3, 4]), ("i", np.int64, [3, 2]), ("j", np.int64, [3, 1]), ("lens", np.int64, [4])],
        [("g", np.float32, [3, 2]), ("n", np.float32, [3]), ("r", np.float32, [3, 4])],
    )
    feeds = {
        "d": np.arange(12, dtype=np.float32).reshape(3, 4),
        "i": np.array([[0, -1], [3, 3], [-4, 2]], np.int64),
        "j": np.array([[1], [-1], [0]], np.int64),
        "lens": np.array([3, 0, 1, 2], np.int64),
    }
    _compare(model, feeds, ops={"GATHER_ELEMENTS": 1, "GATHER_ND": 1, "REVERSE_SEQUENCE": 1})

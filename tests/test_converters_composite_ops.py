"""Ops the ONNX importer lowers to several existing lite ops, on the lite
runtime against onnxruntime (or onnx's reference evaluator, or numpy's FFT),
for what the ONNX node tests leave out: Pad in modes reflect/edge/wrap after
a Conv (gathered in NHWC), MatMul with 1-D operands on a dynamic batch,
RotaryEmbedding with computed position_ids, DFT lengths and axes, STFT with a
window, AffineGrid, SwiGLU, CausalConvWithState, LinearAttention, MaxUnpool,
TensorScatter, Col2Im, DeformConv, Det; GridSample (GRID_SAMPLE) and RoiAlign
(ROI_ALIGN) after a Conv, BitCast (BITCAST); and the conversion errors that
name the node and what is wrong."""

import numpy as np
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator

from converters import lite_runner, onnx_import
from converters.errors import ConversionError
from tests.onnx_lite_util import lite_op_counts, make_model

ort = pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.skipif(not lite_runner.available(), reason="bazel build //lite/c:libtensorweave_lite.so first")
RTOL, ATOL = 1e-5, 1e-5


def _compare(model, feeds, reference="onnxruntime", rtol=RTOL, atol=ATOL):
    """The reference's outputs against the lite runtime's (1 and 2 threads):
    dtype, shape and values; returns the .twl bytes."""
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
            np.testing.assert_allclose(have, w, rtol=rtol, atol=atol, err_msg=out.name)
    return data


@pytest.mark.parametrize("mode", ["reflect", "edge", "wrap"])
def test_pad_modes_after_conv_gather_in_nhwc(mode):
    rng = np.random.default_rng(0)
    w1 = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    w2 = rng.standard_normal((2, 4, 3, 3)).astype(np.float32)
    pads = np.array([0, 0, 2, 1, 0, 0, 1, 3], np.int64)  # H: 2 before, 1 after; W: 1 before, 3 after
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c"]),
        helper.make_node("Pad", ["c", "pads"], ["p"], mode=mode),
        helper.make_node("Conv", ["p", "w2"], ["y"]),
    ]
    model = make_model(
        nodes,
        [("x", np.float32, [1, 3, 7, 6])],
        [("y", np.float32, [1, 2, 6, 6])],
        [("w1", w1), ("w2", w2), ("pads", pads)],
    )
    data = _compare(model, {"x": rng.standard_normal((1, 3, 7, 6)).astype(np.float32)}, atol=1e-4)
    # One GATHER per padded axis, no TRANSPOSE but at the model's edges.
    assert lite_op_counts(data) == {"TRANSPOSE": 2, "CONV_2D": 2, "GATHER": 2}


def test_reflect_pad_of_integers_wider_than_the_dim():
    x = np.arange(12, dtype=np.int64).reshape(3, 4)
    pads = np.array([4, 0, 0, 5], np.int64)  # more than the dim on both sides: reflects repeatedly
    node = helper.make_node("Pad", ["x", "pads"], ["y"], mode="reflect")
    model = make_model([node], [("x", np.int64, [3, 4])], [("y", np.int64, [7, 9])], [("pads", pads)])
    data = onnx_import.convert(model)
    got = lite_runner.LiteRunner(data).run({"x": x})["y"]
    np.testing.assert_array_equal(got, np.pad(x, [(4, 0), (0, 5)], mode="reflect"))


def test_pad_mode_on_a_dynamic_axis_is_a_conversion_error():
    node = helper.make_node("Pad", ["x", "pads"], ["y"], mode="edge", name="pad_batch")
    model = make_model(
        [node], [("x", np.float32, ["n", 4])], [("y", np.float32, [None, 4])], [("pads", np.array([1, 0, 0, 0]))]
    )
    with pytest.raises(ConversionError, match=r"'pad_batch' \(Pad\): padding dynamic axis 0 in mode 'edge'"):
        onnx_import.convert(model)


@pytest.mark.parametrize(
    "a_shape,b_shape,out_shape",
    [([5], [2, 5, 3], [2, 3]), ([2, 3, 5], [5], [2, 3]), ([5], [5], [])],
)
def test_matmul_with_a_1d_operand(a_shape, b_shape, out_shape):
    rng = np.random.default_rng(1)
    node = helper.make_node("MatMul", ["a", "b"], ["y"])
    model = make_model([node], [("a", np.float32, a_shape), ("b", np.float32, b_shape)], [("y", np.float32, out_shape)])
    feeds = {"a": rng.standard_normal(a_shape).astype(np.float32), "b": rng.standard_normal(b_shape).astype(np.float32)}
    _compare(model, feeds)


def test_matmul_with_a_1d_weight_on_a_dynamic_batch():
    rng = np.random.default_rng(2)
    v = rng.standard_normal(6).astype(np.float32)
    node = helper.make_node("MatMul", ["x", "v"], ["y"])
    model = make_model([node], [("x", np.float32, ["n", 4, 6])], [("y", np.float32, ["n", 4])], [("v", v)])
    data = onnx_import.convert(model)
    runner = lite_runner.LiteRunner(data)
    for batch in (1, 3):
        x = rng.standard_normal((batch, 4, 6)).astype(np.float32)
        np.testing.assert_allclose(runner.run({"x": x})["y"], x @ v, rtol=1e-5, atol=1e-5)


def _rotary_model(x_shape, interleaved, rotary_dim=0, num_heads=0, cache_rows=16, cache_inputs=False, half=None):
    rng = np.random.default_rng(3)
    half = half or (rotary_dim or (x_shape[-1] if len(x_shape) == 4 else x_shape[-1] // num_heads)) // 2
    theta = rng.uniform(0, 2 * np.pi, (cache_rows, half))
    cos, sin = np.cos(theta).astype(np.float32), np.sin(theta).astype(np.float32)
    attributes = {"interleaved": interleaved, "rotary_embedding_dim": rotary_dim}
    if num_heads:
        attributes["num_heads"] = num_heads
    node = helper.make_node("RotaryEmbedding", ["x", "cos", "sin", "pos"], ["y"], name="rope", **attributes)
    inputs = [("x", np.float32, x_shape), ("pos", np.int64, [x_shape[0], x_shape[-2 if len(x_shape) == 4 else 1]])]
    if cache_inputs:
        inputs += [("cos", np.float32, list(cos.shape)), ("sin", np.float32, list(sin.shape))]
        return make_model([node], inputs, [("y", np.float32, x_shape)], opset=23), cos, sin
    return make_model([node], inputs, [("y", np.float32, x_shape)], [("cos", cos), ("sin", sin)], opset=23), cos, sin


@pytest.mark.parametrize(
    "x_shape,interleaved,rotary_dim,num_heads",
    [([2, 3, 5, 8], 0, 0, 0), ([2, 3, 5, 8], 1, 4, 0), ([2, 5, 12], 0, 0, 3), ([2, 5, 12], 1, 2, 3)],
)
def test_rotary_embedding_with_computed_position_ids(x_shape, interleaved, rotary_dim, num_heads):
    model, _, _ = _rotary_model(x_shape, interleaved, rotary_dim, num_heads)
    rng = np.random.default_rng(4)
    seq = x_shape[-2] if len(x_shape) == 4 else x_shape[1]
    feeds = {
        "x": rng.standard_normal(x_shape).astype(np.float32),
        "pos": rng.integers(0, 16, (x_shape[0], seq)).astype(np.int64),
    }
    data = _compare(model, feeds, reference="onnx")
    assert lite_op_counts(data)["GATHER"] == 3  # the cos and sin rows, and the swap


def test_rotary_embedding_errors_name_the_node():
    model, _, _ = _rotary_model([1, 2, 3, 8], 0, cache_inputs=True)
    with pytest.raises(ConversionError, match=r"'rope' \(RotaryEmbedding\): cos_cache and sin_cache must be constants"):
        onnx_import.convert(model)
    model, _, _ = _rotary_model([1, 2, 3, 8], 0, rotary_dim=6, half=4)  # caches for 8 / 2 columns
    with pytest.raises(ConversionError, match=r"'rope' \(RotaryEmbedding\): caches \[16, 4\] .* last dim must be 3"):
        onnx_import.convert(model)


@pytest.mark.parametrize("length", [None, 12, 20])
@pytest.mark.parametrize("onesided", [0, 1])
def test_dft_of_a_real_signal_against_numpy(length, onesided):
    x = np.random.default_rng(5).standard_normal((2, 16, 1)).astype(np.float32)
    inputs = ["x", "len" if length else "", "axis"]
    node = helper.make_node("DFT", inputs, ["y"], onesided=onesided)
    n = length or 16
    bins = n // 2 + 1 if onesided else n
    init = [("axis", np.array(1, np.int64))] + ([("len", np.array(length, np.int64))] if length else [])
    model = make_model([node], [("x", np.float32, [2, 16, 1])], [("y", np.float32, [2, bins, 2])], init, opset=20)
    got = lite_runner.LiteRunner(onnx_import.convert(model)).run({"x": x})["y"]
    want = np.fft.fft(x[..., 0].astype(np.float64), n=n, axis=1)[:, :bins]
    np.testing.assert_allclose(got, np.stack([want.real, want.imag], -1), rtol=1e-4, atol=1e-4)


def test_inverse_dft_over_a_middle_axis_of_a_complex_signal():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((3, 6, 5, 2)).astype(np.float32)
    node = helper.make_node("DFT", ["x", "", "axis"], ["y"], inverse=1)
    model = make_model(
        [node],
        [("x", np.float32, [3, 6, 5, 2])],
        [("y", np.float32, [3, 6, 5, 2])],
        [("axis", np.array(-3, np.int64))],
        opset=20,
    )
    got = lite_runner.LiteRunner(onnx_import.convert(model)).run({"x": x})["y"]
    want = np.fft.ifft(x[..., 0] + 1j * x[..., 1], axis=1)
    np.testing.assert_allclose(got, np.stack([want.real, want.imag], -1), rtol=1e-5, atol=1e-5)


def test_dft_over_the_component_axis_is_a_conversion_error():
    node = helper.make_node("DFT", ["x", "", "axis"], ["y"], name="fft")
    model = make_model(
        [node],
        [("x", np.float32, [4, 8, 1])],
        [("y", np.float32, None)],
        [("axis", np.array(-1, np.int64))],
        opset=20,
    )
    with pytest.raises(ConversionError, match=r"'fft' \(DFT\): axis -1 of a rank-3 input: it must name a signal dim"):
        onnx_import.convert(model)


def test_swiglu_after_conv_and_its_shape_error():
    rng = np.random.default_rng(7)
    w = rng.standard_normal((8, 3, 1, 1)).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"]),
        helper.make_node("Split", ["c"], ["a", "b"], axis=1, num_outputs=2),
        helper.make_node("SwiGLU", ["a", "b"], ["y"], alpha=1.5),
    ]
    model = make_model(
        nodes, [("x", np.float32, [1, 3, 4, 5])], [("y", np.float32, [1, 4, 4, 5])], [("w", w)], opset=28
    )
    data = _compare(model, {"x": rng.standard_normal((1, 3, 4, 5)).astype(np.float32)}, reference="onnx")
    assert lite_op_counts(data) == {"TRANSPOSE": 2, "CONV_2D": 1, "SPLIT": 1, "SWISH": 1, "MUL": 1}
    node = helper.make_node("SwiGLU", ["a", "b"], ["y"], name="glu")
    model = make_model(
        [node], [("a", np.float32, [2, 4]), ("b", np.float32, [1, 4])], [("y", np.float32, [2, 4])], opset=28
    )
    with pytest.raises(ConversionError, match=r"'glu' \(SwiGLU\): A \[2, 4\] and B \[1, 4\] differ in shape"):
        onnx_import.convert(model)


@pytest.mark.parametrize("comps", [1, 2])
def test_stft_with_a_hann_window_against_numpy(comps):
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 40, comps)).astype(np.float32)
    window = np.hanning(16).astype(np.float32)
    onesided = int(comps == 1)
    node = helper.make_node("STFT", ["x", "step", "window"], ["y"], onesided=onesided)
    frames, bins = (40 - 16) // 6 + 1, 9 if onesided else 16
    model = make_model(
        [node],
        [("x", np.float32, [2, 40, comps])],
        [("y", np.float32, [2, frames, bins, 2])],
        [("step", np.array(6, np.int64)), ("window", window)],
        opset=17,
    )
    got = lite_runner.LiteRunner(onnx_import.convert(model)).run({"x": x})["y"]
    signal = x[..., 0] + (1j * x[..., 1] if comps == 2 else 0)
    framed = np.stack([signal[:, f * 6 : f * 6 + 16] * window for f in range(frames)], axis=1)
    want = np.fft.fft(framed, axis=-1)[..., :bins]
    np.testing.assert_allclose(got, np.stack([want.real, want.imag], -1), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("align_corners", [0, 1])
def test_affine_grid_against_onnxruntime(align_corners):
    theta = np.random.default_rng(9).standard_normal((2, 2, 3)).astype(np.float32)
    node = helper.make_node("AffineGrid", ["theta", "size"], ["grid"], align_corners=align_corners)
    model = make_model(
        [node],
        [("theta", np.float32, [2, 2, 3])],
        [("grid", np.float32, [2, 5, 7, 2])],
        [("size", np.array([2, 3, 5, 7], np.int64))],
        opset=20,
    )
    _compare(model, {"theta": theta})


def test_affine_grid_theta_of_the_wrong_shape_is_a_conversion_error():
    node = helper.make_node("AffineGrid", ["theta", "size"], ["grid"], name="ag")
    model = make_model(
        [node],
        [("theta", np.float32, [2, 3, 4])],
        [("grid", np.float32, None)],
        [("size", np.array([2, 3, 5, 7], np.int64))],
        opset=20,
    )
    with pytest.raises(ConversionError, match=r"'ag' \(AffineGrid\): theta \[2, 3, 4\] is not \[2, 2, 3\]"):
        onnx_import.convert(model)


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_after_conv_opset_16(mode, padding_mode):
    """GridSample (opset 16's mode names) of a Conv's NHWC output with a
    computed grid, against onnxruntime: GRID_SAMPLE reads ONNX's layout."""
    rng = np.random.default_rng(10)
    w = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Tanh", ["g"], ["grid"]),
        helper.make_node("GridSample", ["c", "grid"], ["y"], mode=mode, padding_mode=padding_mode),
    ]
    model = make_model(
        nodes,
        [("x", np.float32, [2, 2, 6, 5]), ("g", np.float32, [2, 4, 7, 2])],
        [("y", np.float32, [2, 3, 4, 7])],
        [("w", w)],
        opset=16,
    )
    feeds = {
        "x": rng.standard_normal((2, 2, 6, 5)).astype(np.float32),
        "g": (1.5 * rng.standard_normal((2, 4, 7, 2))).astype(np.float32),
    }
    data = _compare(model, feeds, atol=1e-4)
    assert lite_op_counts(data)["GRID_SAMPLE"] == 1


def test_affine_grid_then_grid_sample_is_a_spatial_transformer():
    rng = np.random.default_rng(11)
    nodes = [
        helper.make_node("AffineGrid", ["theta", "size"], ["grid"]),
        helper.make_node("GridSample", ["x", "grid"], ["y"]),
    ]
    model = make_model(
        nodes,
        [("x", np.float32, [2, 3, 8, 8]), ("theta", np.float32, [2, 2, 3])],
        [("y", np.float32, [2, 3, 5, 6])],
        [("size", np.array([2, 3, 5, 6], np.int64))],
        opset=20,
    )
    feeds = {
        "x": rng.standard_normal((2, 3, 8, 8)).astype(np.float32),
        "theta": (np.eye(2, 3) + 0.3 * rng.standard_normal((2, 2, 3))).astype(np.float32),
    }
    _compare(model, feeds, atol=1e-4)


def test_grid_sample_mode_of_another_opset_is_a_conversion_error():
    node = helper.make_node("GridSample", ["x", "grid"], ["y"], mode="bilinear", name="gs")
    model = make_model(
        [node],
        [("x", np.float32, [1, 1, 4, 4]), ("grid", np.float32, [1, 2, 2, 2])],
        [("y", np.float32, [1, 1, 2, 2])],
        opset=20,
    )
    with pytest.raises(ConversionError, match=r"'gs' \(GridSample\): mode 'bilinear' is not one of opset 20's"):
        onnx_import.convert(model)


def test_causal_conv_with_state_decodes_a_dynamic_batch_step_by_step():
    """Prefill then one decode step, each against onnx's reference: the
    present state of the first feeds the second (dynamic batch)."""
    rng = np.random.default_rng(12)
    w = rng.standard_normal((3, 1, 4)).astype(np.float32)
    bias = rng.standard_normal(3).astype(np.float32)
    node = helper.make_node(
        "CausalConvWithState", ["x", "w", "b", "past"], ["y", "state"], activation="silu", name="conv"
    )
    model = make_model(
        [node],
        [("x", np.float32, ["n", 3, 5]), ("past", np.float32, ["n", 3, 3])],
        [("y", np.float32, ["n", 3, 5]), ("state", np.float32, ["n", 3, 3])],
        [("w", w), ("b", bias)],
        opset=27,
    )
    runner = lite_runner.LiteRunner(onnx_import.convert(model))
    reference = ReferenceEvaluator(model)
    for batch in (2, 1):
        feeds = {
            "x": rng.standard_normal((batch, 3, 5)).astype(np.float32),
            "past": rng.standard_normal((batch, 3, 3)).astype(np.float32),
        }
        got = runner.run(feeds)
        for name, want in zip(("y", "state"), reference.run(None, feeds)):
            np.testing.assert_allclose(got[name], want, rtol=1e-5, atol=1e-5, err_msg=name)


def test_causal_conv_with_state_errors_name_the_node():
    node = helper.make_node("CausalConvWithState", ["x", "w"], ["y"], activation="gelu", name="cc")
    model = make_model(
        [node],
        [("x", np.float32, [1, 2, 5])],
        [("y", np.float32, [1, 2, 5])],
        [("w", np.ones((2, 1, 3), np.float32))],
        opset=27,
    )
    with pytest.raises(ConversionError, match=r"'cc' \(CausalConvWithState\): activation 'gelu' is not 'silu'"):
        onnx_import.convert(model)
    node = helper.make_node("CausalConvWithState", ["x", "w"], ["y", "s"], name="cc")
    model = make_model(
        [node],
        [("x", np.float32, [1, 2, 5]), ("w", np.float32, [2, 1, 3])],
        [("y", np.float32, [1, 2, 5]), ("s", np.float32, [1, 2, 2])],
        opset=27,
    )
    with pytest.raises(ConversionError, match=r"'cc' \(CausalConvWithState\): weight \(input 1\) must be a constant"):
        onnx_import.convert(model)


@pytest.mark.parametrize("mode", ["avg", "max"])
@pytest.mark.parametrize("coordinates", ["half_pixel", "output_half_pixel"])
@pytest.mark.parametrize("sampling_ratio", [0, 2])
def test_roi_align_of_a_conv_output_with_computed_rois(mode, coordinates, sampling_ratio):
    """RoiAlign of a Conv's NHWC output (read in ONNX's layout) over rois
    that are a graph input, against onnxruntime."""
    rng = np.random.default_rng(13)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node(
            "RoiAlign",
            ["c", "rois", "idx"],
            ["y"],
            mode=mode,
            coordinate_transformation_mode=coordinates,
            output_height=3,
            output_width=2,
            sampling_ratio=sampling_ratio,
            spatial_scale=0.5,
        ),
    ]
    model = make_model(
        nodes,
        [("x", np.float32, [2, 3, 10, 12]), ("rois", np.float32, [5, 4]), ("idx", np.int64, [5])],
        [("y", np.float32, [5, 4, 3, 2])],
        [("w", w)],
        opset=16,
    )
    corner = rng.uniform(-2, 20, (5, 2))
    rois = np.concatenate([corner, corner + rng.uniform(0, 12, (5, 2))], axis=1).astype(np.float32)
    feeds = {
        "x": rng.standard_normal((2, 3, 10, 12)).astype(np.float32),
        "rois": rois,
        "idx": np.array([0, 1, 1, 0, 1], np.int64),
    }
    data = _compare(model, feeds, atol=1e-4)
    assert lite_op_counts(data)["ROI_ALIGN"] == 1


def test_roi_align_unknown_mode_is_a_conversion_error():
    node = helper.make_node("RoiAlign", ["x", "rois", "idx"], ["y"], mode="median", name="ra")
    model = make_model(
        [node],
        [("x", np.float32, [1, 1, 4, 4]), ("rois", np.float32, [2, 4]), ("idx", np.int64, [2])],
        [("y", np.float32, [2, 1, 1, 1])],
        opset=16,
    )
    with pytest.raises(ConversionError, match=r"'ra' \(RoiAlign\): mode 'median' .* is not supported"):
        onnx_import.convert(model)


def test_stft_of_a_rank_2_signal_as_pytorch_exports_it():
    """torch.stft exports STFT of a [batch, length] signal (onnxruntime runs
    it as real); the window is a constant."""
    rng = np.random.default_rng(14)
    node = helper.make_node("STFT", ["x", "step", "window", "len"], ["y"], onesided=1)
    model = make_model(
        [node],
        [("x", np.float32, [2, 100])],
        [("y", np.float32, [2, 5, 17, 2])],
        [
            ("step", np.array(16, np.int64)),
            ("window", np.hanning(32).astype(np.float32)),
            ("len", np.array(32, np.int64)),
        ],
        opset=17,
    )
    _compare(model, {"x": rng.standard_normal((2, 100)).astype(np.float32)}, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("rule", ["linear", "gated", "delta", "gated_delta"])
def test_linear_attention_unrolled_on_a_dynamic_batch(rule):
    """GQA (4 query heads over 2 KV heads), a past state, per-head decay,
    against onnx's reference at two batch sizes."""
    rng = np.random.default_rng(15)
    t, hq, hkv, dk, dv = 3, 4, 2, 4, 3
    inputs = [("q", np.float32, ["n", t, hq * dk]), ("k", np.float32, ["n", t, hkv * dk])]
    inputs += [("v", np.float32, ["n", t, hkv * dv]), ("past", np.float32, ["n", hkv, dk, dv])]
    names = ["q", "k", "v", "past"]
    if rule in ("gated", "gated_delta"):
        inputs.append(("decay", np.float32, ["n", t, hkv]))
        names.append("decay")
    if rule in ("delta", "gated_delta"):
        inputs.append(("beta", np.float32, ["n", t, hkv]))
        names += [""] * (5 - len(names)) + ["beta"]
    node = helper.make_node(
        "LinearAttention", names, ["y", "state"], q_num_heads=hq, kv_num_heads=hkv, update_rule=rule
    )
    outputs = [("y", np.float32, ["n", t, hq * dv]), ("state", np.float32, ["n", hkv, dk, dv])]
    model = make_model([node], inputs, outputs, opset=27)
    runner = lite_runner.LiteRunner(onnx_import.convert(model))
    reference = ReferenceEvaluator(model)
    for batch in (2, 1):
        feeds = {n: rng.standard_normal([batch if d == "n" else d for d in s]).astype(np.float32) for n, _, s in inputs}
        if "decay" in feeds:
            feeds["decay"] = -np.abs(feeds["decay"])
        if "beta" in feeds:
            feeds["beta"] = 1 / (1 + np.exp(-feeds["beta"]))
        got = runner.run(feeds)
        for name, want in zip(("y", "state"), reference.run(None, feeds)):
            np.testing.assert_allclose(got[name], want, rtol=1e-4, atol=1e-5, err_msg=name)


def test_linear_attention_without_its_decay_is_a_conversion_error():
    node = helper.make_node("LinearAttention", ["q", "k", "v"], ["y"], q_num_heads=2, kv_num_heads=2, name="la")
    model = make_model(
        [node],
        [("q", np.float32, [1, 2, 8]), ("k", np.float32, [1, 2, 8]), ("v", np.float32, [1, 2, 8])],
        [("y", np.float32, [1, 2, 8])],
        opset=27,
    )
    with pytest.raises(ConversionError, match=r"'la' \(LinearAttention\): update_rule 'gated_delta' needs decay"):
        onnx_import.convert(model)


def test_max_pool_indices_unpooled_as_segnet_does():
    """MaxPool's indices feed MaxUnpool (SegNet's decoder), against
    onnxruntime; output_shape pads the unpooled tensor at the end."""
    rng = np.random.default_rng(16)
    nodes = [
        helper.make_node("MaxPool", ["x"], ["p", "i"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("MaxUnpool", ["p", "i", "shape"], ["y"], kernel_shape=[2, 2], strides=[2, 2]),
    ]
    model = make_model(
        nodes,
        [("x", np.float32, [2, 3, 6, 4])],
        [("y", np.float32, [2, 3, 7, 5])],
        [("shape", np.array([2, 3, 7, 5], np.int64))],
        opset=11,
    )
    _compare(model, {"x": rng.standard_normal((2, 3, 6, 4)).astype(np.float32)})


@pytest.mark.parametrize("mode", ["linear", "circular"])
def test_tensor_scatter_writes_each_batch_at_its_index(mode):
    rng = np.random.default_rng(17)
    node = helper.make_node("TensorScatter", ["past", "update", "w"], ["present"], mode=mode, axis=2)
    model = make_model(
        [node],
        [("past", np.float32, [3, 2, 6, 4]), ("update", np.float32, [3, 2, 3, 4]), ("w", np.int64, [3])],
        [("present", np.float32, [3, 2, 6, 4])],
        opset=24,
    )
    feeds = {
        "past": rng.standard_normal((3, 2, 6, 4)).astype(np.float32),
        "update": rng.standard_normal((3, 2, 3, 4)).astype(np.float32),
        "w": np.array([0, 3, 5 if mode == "circular" else 2], np.int64),
    }
    _compare(model, feeds, reference="onnx")


def test_tensor_scatter_past_the_end_fails_the_invoke_and_axis_0_the_conversion():
    node = helper.make_node("TensorScatter", ["past", "update", "w"], ["present"], axis=1)
    model = make_model(
        [node],
        [("past", np.float32, [2, 4]), ("update", np.float32, [2, 2]), ("w", np.int64, [2])],
        [("present", np.float32, [2, 4])],
        opset=24,
    )
    runner = lite_runner.LiteRunner(onnx_import.convert(model))
    feeds = {"past": np.zeros((2, 4), np.float32), "update": np.ones((2, 2), np.float32)}
    with pytest.raises(lite_runner.LiteError, match=r"SCATTER_ND"):
        runner.run({**feeds, "w": np.array([0, 3], np.int64)})
    node = helper.make_node("TensorScatter", ["past", "update"], ["present"], axis=0, name="ts")
    model = make_model(
        [node],
        [("past", np.float32, [2, 4]), ("update", np.float32, [1, 4])],
        [("present", np.float32, [2, 4])],
        opset=24,
    )
    with pytest.raises(ConversionError, match=r"'ts' \(TensorScatter\): axis 0 of a rank-2 cache: not the batch"):
        onnx_import.convert(model)


@pytest.mark.parametrize("strides,pads,dilations", [([1, 1], [0, 0, 0, 0], [1, 1]), ([2, 1], [1, 0, 2, 1], [1, 2])])
def test_col2im_of_several_channels_against_onnxruntime(strides, pads, dilations):
    """torch.nn.Fold's export: columns of 3 channels, 2x3 blocks, into a
    7x6 image, then a Relu (the NHWC output is read back in ONNX's layout)."""
    rng = np.random.default_rng(18)
    image, block = [7, 6], [2, 3]
    blocks = [
        (image[i] + pads[i] + pads[i + 2] - dilations[i] * (block[i] - 1) - 1) // strides[i] + 1 for i in range(2)
    ]
    length = blocks[0] * blocks[1]
    nodes = [
        helper.make_node("Col2Im", ["x", "image", "block"], ["c"], strides=strides, pads=pads, dilations=dilations),
        helper.make_node("Relu", ["c"], ["y"]),
    ]
    model = make_model(
        nodes,
        [("x", np.float32, [2, 3 * 6, length])],
        [("y", np.float32, [2, 3] + image)],
        [("image", np.array(image, np.int64)), ("block", np.array(block, np.int64))],
    )
    data = _compare(model, {"x": rng.standard_normal((2, 18, length)).astype(np.float32)})
    assert lite_op_counts(data)["TRANSPOSE_CONV"] == 1


def test_col2im_with_the_wrong_column_count_is_a_conversion_error():
    node = helper.make_node("Col2Im", ["x", "image", "block"], ["y"], name="fold")
    model = make_model(
        [node],
        [("x", np.float32, [1, 4, 10])],
        [("y", np.float32, [1, 1, 4, 4])],
        [("image", np.array([4, 4], np.int64)), ("block", np.array([2, 2], np.int64))],
    )
    with pytest.raises(ConversionError, match=r"'fold' \(Col2Im\): input \[1, 4, 10\] does not hold 3 x 3 blocks"):
        onnx_import.convert(model)


@pytest.mark.parametrize(
    "src,dst", [(np.float32, np.int32), (np.int64, np.float64), (np.uint16, np.int16), (np.bool_, np.uint8)]
)
def test_bitcast_after_an_op_against_numpy_views(src, dst):
    """BitCast of a computed tensor (a Transpose's output) is numpy's view
    of its bytes as the other type."""
    rng = np.random.default_rng(19)
    x = (rng.standard_normal((3, 4)) * 1000).astype(src) if src != np.bool_ else rng.random((3, 4)) > 0.5
    nodes = [
        helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0]),
        helper.make_node("BitCast", ["t"], ["y"], to=helper.np_dtype_to_tensor_dtype(np.dtype(dst))),
    ]
    model = make_model(nodes, [("x", src, [3, 4])], [("y", dst, [4, 3])], opset=26)
    data = onnx_import.convert(model)
    got = lite_runner.LiteRunner(data).run({"x": x})["y"]
    want = np.ascontiguousarray(x.T).view(dst)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    assert lite_op_counts(data)["BITCAST"] == 1


def test_bitcast_between_sizes_is_a_conversion_error():
    node = helper.make_node("BitCast", ["x"], ["y"], to=helper.np_dtype_to_tensor_dtype(np.dtype(np.int64)), name="bc")
    model = make_model([node], [("x", np.float32, [2])], [("y", np.int64, [2])], opset=26)
    with pytest.raises(ConversionError, match=r"'bc' \(BitCast\): float32 and int64 differ in size"):
        onnx_import.convert(model)


def test_deform_conv_with_computed_offsets_groups_and_a_mask():
    """Offsets and mask computed by the graph (a detector's DCNv2 head),
    group 2, offset_group 2, stride and dilation, against onnx's
    reference."""
    rng = np.random.default_rng(20)
    w = rng.standard_normal((4, 2, 2, 2)).astype(np.float32)
    bias = rng.standard_normal(4).astype(np.float32)
    node = helper.make_node(
        "DeformConv",
        ["x", "w", "off", "b", "m"],
        ["y"],
        group=2,
        offset_group=2,
        strides=[2, 1],
        dilations=[1, 2],
        pads=[1, 0, 0, 1],
    )
    model = make_model(
        [node],
        [("x", np.float32, [1, 4, 5, 6]), ("off", np.float32, [1, 16, 3, 5]), ("m", np.float32, [1, 8, 3, 5])],
        [("y", np.float32, [1, 4, 3, 5])],
        [("w", w), ("b", bias)],
        opset=19,
    )
    feeds = {
        "x": rng.standard_normal((1, 4, 5, 6)).astype(np.float32),
        "off": (1.5 * rng.standard_normal((1, 16, 3, 5))).astype(np.float32),
        "m": rng.random((1, 8, 3, 5)).astype(np.float32),
    }
    _compare(model, feeds, reference="onnx", atol=1e-4)


def test_deform_conv_of_a_one_pixel_row_is_a_conversion_error():
    node = helper.make_node("DeformConv", ["x", "w", "off"], ["y"], name="dcn")
    model = make_model(
        [node],
        [("x", np.float32, [1, 1, 1, 4]), ("off", np.float32, [1, 2, 1, 4])],
        [("y", np.float32, [1, 1, 1, 4])],
        [("w", np.ones((1, 1, 1, 1), np.float32))],
        opset=19,
    )
    with pytest.raises(ConversionError, match=r"'dcn' \(DeformConv\): X of 1x4: sampling needs at least 2 pixels"):
        onnx_import.convert(model)


@pytest.mark.parametrize("n", [1, 3, 4])
def test_det_of_a_batch_against_numpy(n):
    x = np.random.default_rng(21).standard_normal((2, 3, n, n)).astype(np.float32)
    node = helper.make_node("Det", ["x"], ["y"])
    model = make_model([node], [("x", np.float32, [2, 3, n, n])], [("y", np.float32, [2, 3])], opset=22)
    got = lite_runner.LiteRunner(onnx_import.convert(model)).run({"x": x})["y"]
    np.testing.assert_allclose(got, np.linalg.det(x.astype(np.float64)), rtol=1e-4, atol=1e-5)


def test_det_of_a_large_matrix_is_a_conversion_error():
    node = helper.make_node("Det", ["x"], ["y"], name="det")
    model = make_model([node], [("x", np.float32, [6, 6])], [("y", np.float32, [])], opset=22)
    with pytest.raises(
        ConversionError, match=r"'det' \(Det\): input \[6, 6\]: Det takes \[\.\.\., n, n\] with 1 <= n <= 5"
    ):
        onnx_import.convert(model)

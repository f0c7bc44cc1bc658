"""Post-training quantization (converters/ptq.py, tensorweave-convert
--quantize): the digits CNN trained by examples/train_digits.py and a
small ONNX CNN (conv, depthwise conv with ReLU6, max pool, concat, residual
add, global average pool, Gemm) keep their float top-1 on held-out inputs
and shrink ~4x; one quantized convolution against a numpy int8 reference
of the same arithmetic; weights-only (dynamic) quantization; the .twl
reader's round trip; and the errors for bad calibration data and options."""

import contextlib
import io
import os
import sys

import numpy as np
import pytest
from onnx import helper

from converters import cli, lite_runner, onnx_import, ptq, twl_reader
from converters.errors import ConversionError
from tests.onnx_lite_util import lite_op_counts, make_model

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
pytestmark = pytest.mark.skipif(not lite_runner.available(), reason="bazel build //lite/c:libtensorweave_lite.so first")


def _cnn(seed=0):
    """A small ONNX CNN with a dynamic batch: input x [N, 3, 16, 16],
    output y [N, 10]."""
    rng = np.random.default_rng(seed)

    def w(*shape):
        return (rng.normal(size=shape) / np.sqrt(np.prod(shape[1:]))).astype(np.float32)

    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "wd", "bd"], ["c2"], pads=[1, 1, 1, 1], group=8),
        helper.make_node("Clip", ["c2", "lo", "hi"], ["r2"]),
        helper.make_node("Conv", ["r2", "w3", "b3"], ["c3"]),
        helper.make_node("Conv", ["r2", "w4", "b4"], ["c4"], strides=[1, 1]),
        helper.make_node("Concat", ["c3", "c4"], ["cat"], axis=1),
        helper.make_node("Conv", ["cat", "w5", "b5"], ["c5"]),
        helper.make_node("Add", ["c5", "p1"], ["s"]),
        helper.make_node("GlobalAveragePool", ["s"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"]),
        helper.make_node("Gemm", ["f", "wf", "bf"], ["y"], transB=1),
    ]
    inits = [
        ("w1", w(8, 3, 3, 3)),
        ("b1", w(8)),
        ("wd", w(8, 1, 3, 3)),
        ("bd", w(8)),
        ("lo", np.float32(0)),
        ("hi", np.float32(6)),
        ("w3", w(8, 8, 1, 1)),
        ("b3", w(8)),
        ("w4", w(8, 8, 1, 1)),
        ("b4", w(8)),
        ("w5", w(8, 16, 1, 1)),
        ("b5", w(8)),
        ("wf", w(10, 8)),
        ("bf", w(10)),
    ]
    return make_model(nodes, [("x", np.float32, ["N", 3, 16, 16])], [("y", np.float32, ["N", 10])], inits, opset=13)


@pytest.fixture(scope="module")
def cnn_twl():
    return onnx_import.convert(_cnn())


def _images(n, seed):
    """Inputs with some spatial structure (smoothed noise)."""
    x = np.random.default_rng(seed).normal(size=(n, 3, 17, 17)).astype(np.float32)
    return (x[:, :, 1:, 1:] + x[:, :, :-1, :-1] + x[:, :, 1:, :-1]) / 2


def _top1_agreement(float_model, quantized_model, feeds):
    f = next(iter(lite_runner.LiteRunner(float_model).run(feeds).values()))
    q = next(iter(lite_runner.LiteRunner(quantized_model).run(feeds).values()))
    return float(np.mean(f.argmax(-1) == q.argmax(-1))), f, q


def test_onnx_cnn_keeps_top1(cnn_twl):
    report = {}
    quantized = ptq.quantize(cnn_twl, {"x": _images(64, 1)}, report=report)
    ops = lite_op_counts(quantized)
    # Every product and the residual ADD are integer; the mean stays float.
    assert ops["QUANTIZED_CONV_2D"] == 5 and ops["QUANTIZED_BATCH_MATMUL"] == 1
    assert "CONV_2D" not in ops and "DEPTHWISE_CONV_2D" not in ops and "FULLY_CONNECTED" not in ops
    assert ops["QUANTIZED_ADD"] == 1 and "ADD" not in ops and ops["MEAN"] == 1
    # Quantized: the max pool, the concat (its inputs share its scale), the
    # add; DEQUANTIZE only into the mean and at the output.
    assert ops["DEQUANTIZE"] == 2, ops
    assert dict(ops) == {k: v for k, v in report.items()}
    # A random-weight net has small top-1 margins: 97.8% agree here, where
    # onnxruntime's quantize_static reaches 96.8% (test below).
    agreement, f, q = _top1_agreement(cnn_twl, quantized, {"x": _images(500, 2)})
    assert agreement >= 0.97
    assert np.abs(f - q).max() < 0.1 * np.abs(f).max()


def test_against_onnxruntime_quantize_static(cnn_twl, tmp_path):
    """The same recipe as onnxruntime's QDQ quantizer (per-channel int8
    weights, uint8 activations, min/max calibration on the same inputs):
    top-1 agreement with float at least as good, outputs as close."""
    ort = pytest.importorskip("onnxruntime")
    quantization = pytest.importorskip("onnxruntime.quantization")
    import onnx

    calibration = _images(64, 1)

    class Reader(quantization.CalibrationDataReader):
        def __init__(self):
            self.batches = iter([{"x": calibration}])

        def get_next(self):
            return next(self.batches, None)

    onnx.save(_cnn(), tmp_path / "cnn.onnx")
    quantization.quantize_static(
        str(tmp_path / "cnn.onnx"),
        str(tmp_path / "cnn_int8.onnx"),
        Reader(),
        quant_format=quantization.QuantFormat.QDQ,
        per_channel=True,
        activation_type=quantization.QuantType.QUInt8,
        weight_type=quantization.QuantType.QInt8,
    )
    x = _images(500, 2)
    f_ort = ort.InferenceSession(str(tmp_path / "cnn.onnx")).run(None, {"x": x})[0]
    q_ort = ort.InferenceSession(str(tmp_path / "cnn_int8.onnx")).run(None, {"x": x})[0]
    agreement, f, q = _top1_agreement(cnn_twl, ptq.quantize(cnn_twl, {"x": calibration}), {"x": x})
    np.testing.assert_allclose(f, f_ort, rtol=0, atol=1e-4)
    assert agreement >= np.mean(f_ort.argmax(1) == q_ort.argmax(1)) - 0.005
    assert np.abs(f - q).mean() <= 1.5 * np.abs(f_ort - q_ort).mean()


def test_int8_activations_and_percentile(cnn_twl):
    quantized = ptq.quantize(cnn_twl, {"x": _images(64, 1)}, activation_type="int8", method="percentile")
    agreement, _, _ = _top1_agreement(cnn_twl, quantized, {"x": _images(300, 3)})
    assert agreement >= 0.97
    m = twl_reader.read_builder(quantized)
    q_types = {
        m.tensors[o].dtype for opcode, _, outs, _, _ in m.operators if opcode == "QUANTIZED_CONV_2D" for o in outs
    }
    assert q_types == {np.dtype(np.int8)}


def _quantize_reference(x, scale, zp, lo, hi):
    return np.clip(np.round(x / scale) + zp, lo, hi)


def test_conv_matches_numpy_int8_reference():
    """One Conv + Relu quantized; the lite int8 result equals a numpy
    reference of the quantization recipe (uint8 activations at the
    calibrated min/max, int8 per-channel weights, int32 bias, requantized
    with round half to even) to within one output step."""
    rng = np.random.default_rng(5)
    w = rng.normal(size=(6, 4, 3, 3)).astype(np.float32)
    b = rng.normal(size=6).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 0, 1, 2], strides=[2, 1]),
        helper.make_node("Relu", ["c"], ["y"]),
    ]
    model = make_model(nodes, [("x", np.float32, [2, 4, 7, 6])], [("y", np.float32, None)], [("w", w), ("b", b)])
    data = onnx_import.convert(model)
    x = rng.normal(size=(2, 4, 7, 6)).astype(np.float32)
    quantized = ptq.quantize(data, {"x": x})
    got = lite_runner.LiteRunner(quantized).run({"x": x})["y"]

    # numpy reference: NHWC, explicit padding with the zero point.
    float_y = lite_runner.LiteRunner(data).run({"x": x})["y"]
    x_lo, x_hi = min(x.min(), 0), max(x.max(), 0)
    x_scale = np.float32((x_hi - x_lo) / 255)
    x_zp = np.round(-x_lo / x_scale)
    y_scale = np.float32(float_y.max() / 255)
    w_scale = (np.abs(w).reshape(6, -1).max(1) / 127).astype(np.float32)
    wq = np.round(w / w_scale[:, None, None, None]).astype(np.int64)
    bq = np.round(b / (np.float64(x_scale) * w_scale)).astype(np.int64)
    xq = _quantize_reference(x, x_scale, x_zp, 0, 255).astype(np.int64) - int(x_zp)
    xp = np.pad(xq, [(0, 0), (0, 0), (1, 1), (0, 2)])
    oh, ow = (7 + 2 - 3) // 2 + 1, (6 + 2 - 3) + 1
    acc = np.zeros((2, 6, oh, ow), np.int64)
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, 2 * i : 2 * i + 3, j : j + 3]
            acc[:, :, i, j] = np.einsum("nchw,ochw->no", patch, wq)
    acc += bq[None, :, None, None]
    multiplier = (np.float64(x_scale) * w_scale / np.float64(y_scale)).astype(np.float32)
    yq = np.clip(np.round(acc * multiplier.astype(np.float64)[None, :, None, None]), 0, 255)
    want = (yq * y_scale).astype(np.float32)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=0, atol=1.01 * y_scale)
    assert np.mean(got == want) > 0.9
    # And the float result within half a step plus the input's rounding.
    assert np.abs(got - float_y).max() < 4 * y_scale


def test_residual_add_matches_numpy_int8_reference():
    """Add + Relu of two activations quantized as QUANTIZED_ADD (no
    DEQUANTIZE/ADD/QUANTIZE); the lite result equals a numpy reference of
    the recipe: each input quantized at its calibrated range, then
    round_half_to_even((a - za) * sa / sy + (b - zb) * sb / sy) + zy with
    the Relu in the output's range [0, max]."""
    rng = np.random.default_rng(8)
    nodes = [helper.make_node("Add", ["a", "b"], ["s"]), helper.make_node("Relu", ["s"], ["y"])]
    shape = [4, 67]  # eight at a time and a tail
    model = make_model(nodes, [("a", np.float32, shape), ("b", np.float32, shape)], [("y", np.float32, None)], [])
    data = onnx_import.convert(model)
    a = rng.normal(size=shape).astype(np.float32) * 3
    b = rng.normal(size=shape).astype(np.float32) + 1
    quantized = ptq.quantize(data, {"a": a, "b": b})
    ops = lite_op_counts(quantized)
    assert ops["QUANTIZED_ADD"] == 1 and "ADD" not in ops and ops["DEQUANTIZE"] == 1, ops
    got = lite_runner.LiteRunner(quantized).run({"a": a, "b": b})["y"]
    float_y = lite_runner.LiteRunner(data).run({"a": a, "b": b})["y"]

    def params(v):
        lo, hi = min(v.min(), 0), max(v.max(), 0)
        scale = np.float32((hi - lo) / 255)
        return scale, np.round(-lo / scale)

    (sa, za), (sb, zb) = params(a), params(b)
    sy = np.float32(float_y.max() / 255)
    qa = _quantize_reference(a, sa, za, 0, 255).astype(np.int64) - int(za)
    qb = _quantize_reference(b, sb, zb, 0, 255).astype(np.int64) - int(zb)
    ma = np.float64(np.float32(np.float64(sa) / np.float64(sy)))
    mb = np.float64(np.float32(np.float64(sb) / np.float64(sy)))
    yq = np.clip(np.round(qa * ma + qb * mb), 0, 255)
    want = (yq * sy).astype(np.float32)
    np.testing.assert_allclose(got, want, rtol=0, atol=1.01 * sy)
    assert np.mean(got == want) > 0.9
    assert np.abs(got - float_y).max() < 3 * sy


def test_dynamic_quantization_of_weights():
    rng = np.random.default_rng(2)
    w = rng.normal(size=(64, 32)).astype(np.float32)
    model = make_model(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        [("x", np.float32, [4, 64])],
        [("y", np.float32, [4, 32])],
        [("w", w)],
    )
    data = onnx_import.convert(model)
    quantized = ptq.quantize(data, mode="dynamic")
    assert len(quantized) < 0.4 * len(data)
    ops = lite_op_counts(quantized)
    assert ops["DEQUANTIZE"] == 1
    x = rng.normal(size=(4, 64)).astype(np.float32)
    got = lite_runner.LiteRunner(quantized).run({"x": x})["y"]
    scale = np.abs(w).max(0) / 127
    want = x @ (np.round(w / scale) * scale)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


def test_reader_round_trip(cnn_twl):
    m = twl_reader.read_builder(cnn_twl)
    again = twl_reader.read_builder(m.serialize())
    assert again.operators[0][0] == m.operators[0][0]
    for a, b in zip(m.operators, again.operators):
        assert a[:3] == b[:3]
        if a[3] is not None:
            assert a[3][0] == b[3][0]
            assert {k: np.asarray(v).tolist() for k, v in a[3][1].items()} == {
                k: np.asarray(v).tolist() for k, v in b[3][1].items()
            }
    assert [(t.name, t.shape, t.dtype, t.signature) for t in m.tensors] == [
        (t.name, t.shape, t.dtype, t.signature) for t in again.tensors
    ]
    x = _images(3, 0)
    a = lite_runner.LiteRunner(cnn_twl).run({"x": x})["y"]
    b = lite_runner.LiteRunner(m.serialize()).run({"x": x})["y"]
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    "calibration, message",
    [
        ({"x": np.zeros((4, 3, 16, 15), np.float32)}, r"shape \[4, 3, 16, 15\]; the input takes \['N', 3, 16, 16\]"),
        ({"x": np.zeros((4, 16, 16), np.float32)}, "has shape"),
        ({"x": np.zeros((4, 3, 16, 16), np.int32)}, "is int32; the input is float32"),
        ({"x": np.zeros((0, 3, 16, 16), np.float32)}, "no samples"),
        ({"x": np.full((2, 3, 16, 16), np.nan, np.float32)}, "NaN"),
        ({"x": np.zeros((2, 3, 16, 16), np.float32), "z": np.zeros(2)}, r"arrays \['x', 'z'\]"),
        ({}, "non-empty"),
    ],
)
def test_bad_calibration_data(cnn_twl, calibration, message):
    with pytest.raises(ConversionError, match=message):
        ptq.quantize(cnn_twl, calibration)


def test_bad_options(cnn_twl, tmp_path):
    with pytest.raises(ConversionError, match="needs calibration data"):
        ptq.quantize(cnn_twl)
    with pytest.raises(ConversionError, match="mode must be"):
        ptq.quantize(cnn_twl, mode="int4")
    with pytest.raises(ConversionError, match="activation_type"):
        ptq.quantize(cnn_twl, {"x": _images(2, 0)}, activation_type="int16")
    bad = tmp_path / "cal.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ConversionError, match="calibration file"):
        ptq.quantize(cnn_twl, str(bad))
    with pytest.raises(ConversionError, match="no such calibration"):
        ptq.quantize(cnn_twl, str(tmp_path / "missing.npz"))
    with pytest.raises(ConversionError, match="holds no .npy"):
        ptq.quantize(cnn_twl, str(tmp_path))


def test_fixed_batch_needs_whole_batches():
    model = make_model(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        [("x", np.float32, [4, 8])],
        [("y", np.float32, [4, 3])],
        [("w", np.ones((8, 3), np.float32))],
    )
    data = onnx_import.convert(model)
    with pytest.raises(ConversionError, match="fixed at 4, so give a multiple"):
        ptq.quantize(data, {"x": np.ones((6, 8), np.float32)})
    quantized = ptq.quantize(data, {"x": np.random.default_rng(0).normal(size=(8, 8)).astype(np.float32)})
    assert lite_op_counts(quantized)["QUANTIZED_BATCH_MATMUL"] == 1


def _cli(*args):
    """tensorweave-convert in this process: (exit status, stderr)."""
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
        status = cli.main(list(args))
    return status, stderr.getvalue()


def test_cli_onnx_with_npy_directory(tmp_path):
    source = tmp_path / "cnn.onnx"
    source.write_bytes(_cnn().SerializeToString())
    cal = tmp_path / "cal"
    cal.mkdir()
    np.save(cal / "x.npy", _images(32, 1))
    out = tmp_path / "cnn_int8.twl"
    status, err = _cli("--input", str(source), "--output", str(out), "--quantize", "int8", "--calibration", str(cal))
    assert status == 0, err
    assert lite_op_counts(out.read_bytes())["QUANTIZED_CONV_2D"] == 5
    # Errors: a bad calibration shape, --calibration alone, .onnx output.
    np.save(cal / "x.npy", np.zeros((2, 3, 8, 8), np.float32))
    status, err = _cli("--input", str(source), "--output", str(out), "--quantize", "int8", "--calibration", str(cal))
    assert status == 1 and "calibration data for input 'x' has shape [2, 3, 8, 8]" in err
    status, err = _cli("--input", str(source), "--output", str(out), "--calibration", str(cal))
    assert status == 1 and "--calibration applies only with --quantize int8" in err
    status, err = _cli("--input", str(source), "--output", str(tmp_path / "m.onnx"), "--quantize", "dynamic")
    assert status == 1 and "--quantize applies to .twl output only" in err
    status, err = _cli("--input", str(source), "--output", str(out), "--quantize", "dynamic", "--calibration", str(cal))
    assert status == 1 and "--quantize dynamic takes no --calibration" in err


def test_digits_model(tmp_path):
    """The demo's CNN, trained briefly on scikit-learn's digits, exported as
    a saved model and converted with --quantize int8: top-1 agrees with
    the float .twl on >= 99% of the held-out images, ~4x smaller."""
    pytest.importorskip("sklearn")
    sys.path.insert(0, os.path.join(_ROOT, "examples"))
    try:
        import train_digits
    finally:
        sys.path.pop(0)
    import tensorweave as tw

    (x_train, y_train), (x_test, y_test) = train_digits.load_digits()
    graph = tw.Graph()
    model = train_digits.build_model(graph)
    rng = np.random.default_rng(0)
    export = str(tmp_path / "saved_model")
    with tw.Session(graph=graph) as sess:
        sess.run(model["init"])
        for _ in range(100):
            idx = rng.integers(0, len(x_train), 64)
            sess.run(model["train_op"], {model["images"]: x_train[idx], model["labels"]: y_train[idx]})
        tw.saved_model.simple_save(
            sess, export, inputs={"images": model["images"]}, outputs={"probabilities": model["probabilities"]}
        )
    np.savez(tmp_path / "cal.npz", images=x_train[:200])
    float_twl, int8_twl = tmp_path / "digits.twl", tmp_path / "digits_int8.twl"
    assert _cli("--input", export, "--output", str(float_twl))[0] == 0
    status, err = _cli(
        "--input", export, "--output", str(int8_twl), "--quantize", "int8", "--calibration", str(tmp_path / "cal.npz")
    )
    assert status == 0, err
    ops = lite_op_counts(int8_twl.read_bytes())
    assert ops["QUANTIZED_CONV_2D"] == 2 and ops["QUANTIZED_BATCH_MATMUL"] == 2 and ops["QUANTIZE"] == 1
    assert os.path.getsize(int8_twl) < os.path.getsize(float_twl) / 3.4
    agreement, f, _ = _top1_agreement(float_twl.read_bytes(), int8_twl.read_bytes(), {"images": x_test})
    assert np.mean(f.argmax(1) == y_test) > 0.9  # it learned
    assert agreement >= 0.99


def test_model_without_products_stays_float():
    """Ops without an int8 kernel stay float: nothing to quantize leaves the
    model's ops and results as they were."""
    model = make_model(
        [helper.make_node("Sigmoid", ["x"], ["s"]), helper.make_node("Relu", ["s"], ["y"])],
        [("x", np.float32, [2, 5])],
        [("y", np.float32, [2, 5])],
    )
    data = onnx_import.convert(model)
    x = np.random.default_rng(0).normal(size=(2, 5)).astype(np.float32)
    quantized = ptq.quantize(data, {"x": x})
    assert lite_op_counts(quantized) == lite_op_counts(data)
    np.testing.assert_array_equal(
        lite_runner.LiteRunner(quantized).run({"x": x})["y"], lite_runner.LiteRunner(data).run({"x": x})["y"]
    )

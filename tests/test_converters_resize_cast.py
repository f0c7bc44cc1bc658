"""Cast, CastLike, Dropout, Resize/Upsample and the data-movement ops on
every lite element type, through the ONNX importer and the lite runtime,
against onnx's reference evaluator, numpy and onnxruntime: what the ONNX
node tests leave out (casts between all 12 types, resizing the NHWC output
of a Conv without transposes, Upsample opset 7, the refusals)."""

import collections

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from converters import lite_runner, onnx_import, twl_writer
from converters.errors import ConversionError

pytestmark = pytest.mark.skipif(not lite_runner.available(), reason="bazel build //lite/c:libtensorweave_lite.so first")

TYPES = [
    np.float32,
    np.float64,
    np.float16,
    np.int8,
    np.uint8,
    np.int16,
    np.uint16,
    np.int32,
    np.uint32,
    np.int64,
    np.uint64,
    np.bool_,
]


def _ops(data):
    g = twl_writer.read_model(data).Subgraphs(0)
    names = {v: k for k, v in vars(twl_writer.twl_schema.enum("BuiltinOperator")).items() if not k.startswith("_")}
    return collections.Counter(names[g.Operators(i).Opcode()] for i in range(g.OperatorsLength()))


def _model(nodes, inputs, outputs, initializers=(), opset=19):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _info(name, dtype, shape):
    return helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(np.dtype(dtype)), shape)


def _run(model, feeds, threads=1):
    data = onnx_import.convert(model)
    return data, lite_runner.LiteRunner(data, num_threads=threads).run(feeds)


def _values(dtype, n=24, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.random(n) > 0.5
    if np.dtype(dtype).kind == "f":
        return (rng.standard_normal(n) * 100).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


@pytest.mark.parametrize("src", TYPES, ids=lambda t: np.dtype(t).name)
def test_cast_between_all_types(src):
    # Values every target holds or wraps as numpy defines: integers wrap,
    # floats truncate toward zero (in range), anything -> bool is != 0.
    x = _values(src)
    if np.dtype(src).kind == "f":
        x = np.concatenate([x, np.array([0.0, -0.0, 0.5, -0.5, 1.5, 100.75], src)]).astype(src)
    outputs = [f"y_{np.dtype(t).name}" for t in TYPES]
    nodes = [
        helper.make_node("Cast", ["x"], [o], to=helper.np_dtype_to_tensor_dtype(np.dtype(t)))
        for o, t in zip(outputs, TYPES)
    ]
    model = _model(
        nodes, [_info("x", src, list(x.shape))], [_info(o, t, list(x.shape)) for o, t in zip(outputs, TYPES)]
    )
    _, got = _run(model, {"x": x})
    with np.errstate(over="ignore"):  # numpy's int -> float16 casts overflow to inf, as CAST's
        for o, t in zip(outputs, TYPES):
            if np.dtype(src).kind == "f" and np.dtype(t).kind in "iu":
                info = np.iinfo(t)
                keep = (x > info.min) & (x < info.max)  # out of range: numpy leaves it to the platform
                want = x[keep].astype(t)
                have = got[o][keep]
            else:
                want, have = x.astype(t), got[o]
            assert have.dtype == want.dtype, o
            np.testing.assert_array_equal(have, want, err_msg=f"{np.dtype(src).name} -> {o}")


def test_cast_float_to_int_saturates_and_nan_is_zero():
    x = np.array([1e10, -1e10, np.nan, np.inf, -np.inf, 2.9, -2.9], np.float32)
    model = _model(
        [helper.make_node("Cast", ["x"], ["y"], to=TensorProto.INT16)],
        [_info("x", np.float32, [7])],
        [_info("y", np.int16, [7])],
    )
    _, got = _run(model, {"x": x})
    np.testing.assert_array_equal(got["y"], np.array([32767, -32768, 0, 32767, -32768, 2, -2], np.int16))


def test_cast_float16_large_array_against_numpy():
    # Every float16 bit pattern round-trips through float32 and float64,
    # and float32 values round to float16 as numpy rounds them (2 threads).
    bits = np.arange(65536, dtype=np.uint32).astype(np.uint16)
    halves = bits.view(np.float16)
    # Random bit patterns (every exponent: half subnormals, overflow, NaN)
    # and values around the half's range.
    rng = np.random.default_rng(1)
    wide = np.concatenate(
        [
            rng.integers(0, 2**32, 50000, dtype=np.uint64).astype(np.uint32).view(np.float32),
            rng.standard_normal(50000).astype(np.float32) * np.float32(1e3),
        ]
    )
    model = _model(
        [
            helper.make_node("Cast", ["h"], ["f"], to=TensorProto.FLOAT),
            helper.make_node("Cast", ["h"], ["d"], to=TensorProto.DOUBLE),
            helper.make_node("Cast", ["w"], ["n"], to=TensorProto.FLOAT16),
        ],
        [_info("h", np.float16, [65536]), _info("w", np.float32, [100000])],
        [_info("f", np.float32, [65536]), _info("d", np.float64, [65536]), _info("n", np.float16, [100000])],
    )
    _, got = _run(model, {"h": halves, "w": wide}, threads=2)
    np.testing.assert_array_equal(got["f"], halves.astype(np.float32))
    np.testing.assert_array_equal(got["d"], halves.astype(np.float64))
    with np.errstate(over="ignore"):
        want = wide.astype(np.float16)
    np.testing.assert_array_equal(got["n"], want)  # NaN payloads aside: bit-exact
    finite = ~np.isnan(want)
    np.testing.assert_array_equal(got["n"][finite].view(np.uint16), want[finite].view(np.uint16))


@pytest.mark.parametrize("dtype", TYPES, ids=lambda t: np.dtype(t).name)
def test_data_movement_ops_on_every_type(dtype):
    # Transpose, Reshape, Concat, Slice, Gather, Squeeze/Unsqueeze, Flatten,
    # Pad, Where, Identity and CastLike on one type, against onnx's reference.
    x = _values(dtype, 24).reshape(2, 3, 4)
    y = _values(dtype, 24, seed=1).reshape(2, 3, 4)
    cond = _values(np.bool_, 24, seed=2).reshape(2, 3, 4)
    ints = lambda name, v: numpy_helper.from_array(np.array(v, np.int64), name)
    nodes = [
        helper.make_node("Transpose", ["x"], ["t"], perm=[2, 0, 1]),
        helper.make_node("Reshape", ["t", "shape"], ["r"]),
        helper.make_node("Concat", ["r", "r"], ["c"], axis=1),
        helper.make_node("Slice", ["c", "starts", "ends", "axes", "steps"], ["s"]),
        helper.make_node("Gather", ["s", "indices"], ["g"], axis=1),
        helper.make_node("Unsqueeze", ["g", "uaxes"], ["u"]),
        helper.make_node("Squeeze", ["u", "uaxes"], ["q"]),
        helper.make_node("Flatten", ["q"], ["f"], axis=1),
        helper.make_node("Pad", ["f", "pads"], ["p"]),
        helper.make_node("Where", ["cond", "x", "y"], ["w"]),
        helper.make_node("Identity", ["w"], ["i"]),
        helper.make_node("CastLike", ["i", "like"], ["l"]),
    ]
    initializers = [
        ints("shape", [8, 3]),
        ints("starts", [1]),
        ints("ends", [6]),
        ints("axes", [1]),
        ints("steps", [2]),
        ints("indices", [2, 0]),
        ints("uaxes", [0]),
        ints("pads", [1, 0, 0, 2]),
        numpy_helper.from_array(np.zeros(1, np.float32), "like"),
    ]
    outputs = [("p", [9, 4]), ("w", [2, 3, 4]), ("l", [2, 3, 4])]
    model = _model(
        nodes,
        [_info("x", dtype, [2, 3, 4]), _info("y", dtype, [2, 3, 4]), _info("cond", np.bool_, [2, 3, 4])],
        [_info(n, np.float32 if n == "l" else dtype, s) for n, s in outputs],
        initializers,
    )
    feeds = {"x": x, "y": y, "cond": cond}
    want = dict(zip([n for n, _ in outputs], ReferenceEvaluator(model).run(None, feeds)))
    _, got = _run(model, feeds)
    for name, _ in outputs:
        assert got[name].dtype == want[name].dtype, name
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)


def test_dropout_is_identity_with_a_true_mask():
    x = np.random.default_rng(0).standard_normal((2, 5)).astype(np.float32)
    model = _model(
        [helper.make_node("Dropout", ["x", "ratio", "training"], ["y", "mask"])],
        [_info("x", np.float32, [2, 5])],
        [_info("y", np.float32, [2, 5]), _info("mask", np.bool_, [2, 5])],
        [
            numpy_helper.from_array(np.array(0.7, np.float32), "ratio"),
            numpy_helper.from_array(np.array(False), "training"),
        ],
    )
    _, got = _run(model, {"x": x})
    np.testing.assert_array_equal(got["y"], x)
    np.testing.assert_array_equal(got["mask"], np.ones((2, 5), bool))


def test_dropout_in_training_mode_is_refused():
    node = helper.make_node("Dropout", ["x", "", "training"], ["y"])
    inputs = [_info("x", np.float32, [2, 5])]
    outputs = [_info("y", np.float32, [2, 5])]
    true = numpy_helper.from_array(np.array(True), "training")
    with pytest.raises(ConversionError, match=r"\(Dropout\): training mode dropout: the lite runtime runs inference"):
        onnx_import.convert(_model([node], inputs, outputs, [true]))
    with pytest.raises(ConversionError, match=r"\(Dropout\): training_mode is a model input"):
        onnx_import.convert(_model([node], [*inputs, _info("training", np.bool_, [])], outputs))


def _conv_resize_conv(mode, coordinates, scale=2):
    """Conv -> Resize (scale x on H and W) -> Conv, as YOLO and segmentation
    decoders upsample."""
    rng = np.random.default_rng(3)
    w1 = numpy_helper.from_array(rng.standard_normal((8, 3, 3, 3)).astype(np.float32), "w1")
    w2 = numpy_helper.from_array(rng.standard_normal((4, 8, 1, 1)).astype(np.float32), "w2")
    scales = numpy_helper.from_array(np.array([1, 1, scale, scale], np.float32), "scales")
    n = 5 * scale
    return _model(
        [
            helper.make_node("Conv", ["x", "w1"], ["a"], pads=[1, 1, 1, 1]),
            helper.make_node(
                "Resize", ["a", "", "scales"], ["b"], mode=mode, coordinate_transformation_mode=coordinates
            ),
            helper.make_node("Conv", ["b", "w2"], ["y"]),
        ],
        [_info("x", np.float32, [1, 3, 5, 5])],
        [_info("y", np.float32, [1, 4, n, n])],
        [w1, w2, scales],
    )


@pytest.mark.parametrize(
    "mode,coordinates",
    [("nearest", "asymmetric"), ("linear", "half_pixel"), ("linear", "align_corners"), ("cubic", "pytorch_half_pixel")],
)
def test_resize_after_conv_stays_nhwc(mode, coordinates):
    model = _conv_resize_conv(mode, coordinates)
    x = np.random.default_rng(4).standard_normal((1, 3, 5, 5)).astype(np.float32)
    want = ReferenceEvaluator(model).run(None, {"x": x})[0]
    for threads in (1, 2):
        data, got = _run(model, {"x": x}, threads)
        np.testing.assert_allclose(got["y"], want, rtol=1e-4, atol=1e-4)
    # The only transposes are the model input's and output's.
    assert _ops(data)["RESIZE"] == 1
    assert _ops(data)["TRANSPOSE"] == 2, _ops(data)


def test_upsample_opset7_scales_attribute():
    x = np.arange(2 * 3 * 4, dtype=np.int32).reshape(1, 2, 3, 4)
    up = _model(
        [helper.make_node("Upsample", ["x"], ["y"], mode="nearest", scales=[1.0, 1.0, 2.0, 3.0])],
        [_info("x", np.int32, [1, 2, 3, 4])],
        [_info("y", np.int32, [1, 2, 6, 12])],
        opset=7,
    )
    _, got = _run(up, {"x": x})
    np.testing.assert_array_equal(got["y"], x.repeat(2, axis=2).repeat(3, axis=3))


@pytest.mark.parametrize(
    "op,opset,mode,scales",
    [
        ("Resize", 10, "nearest", [1, 1, 1.5, 2.5]),
        ("Resize", 10, "nearest", [1, 1, 0.6, 0.5]),  # downsampling takes the ceiling
        ("Resize", 10, "linear", [1, 1, 0.6, 0.5]),
        ("Upsample", 9, "nearest", [1, 1, 1.5, 3]),
        ("Upsample", 9, "linear", [1, 1, 2, 1.5]),
    ],
)
def test_upsample_and_resize10_against_onnxruntime(op, opset, mode, scales):
    # Neither onnx's reference nor its node tests define these (asymmetric,
    # nearest by floor up and ceiling down): onnxruntime does.
    ort = pytest.importorskip("onnxruntime")
    x = np.random.default_rng(0).standard_normal((1, 2, 5, 7)).astype(np.float32)
    out = [1, 2, int(5 * scales[2]), int(7 * scales[3])]
    model = _model(
        [helper.make_node(op, ["x", "scales"], ["y"], mode=mode)],
        [_info("x", np.float32, [1, 2, 5, 7])],
        [_info("y", np.float32, out)],
        [numpy_helper.from_array(np.array(scales, np.float32), "scales")],
        opset=opset,
    )
    want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    _, got = _run(model, {"x": x})
    np.testing.assert_allclose(got["y"], want, rtol=1e-5, atol=1e-5)


def test_resize11_tf_half_pixel_for_nn_against_onnxruntime():
    ort = pytest.importorskip("onnxruntime")
    x = np.random.default_rng(0).standard_normal((1, 2, 5, 7)).astype(np.float32)
    model = _model(
        [
            helper.make_node(
                "Resize", ["x", "roi", "scales"], ["y"], coordinate_transformation_mode="tf_half_pixel_for_nn"
            )
        ],
        [_info("x", np.float32, [1, 2, 5, 7])],
        [_info("y", np.float32, [1, 2, 8, 3])],
        [
            numpy_helper.from_array(np.zeros(0, np.float32), "roi"),
            numpy_helper.from_array(np.array([1, 1, 1.7, 0.5], np.float32), "scales"),
        ],
        opset=11,
    )
    want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    _, got = _run(model, {"x": x})
    np.testing.assert_array_equal(got["y"], want)


@pytest.mark.parametrize(
    "attributes,shape,scales",
    [
        (
            {"mode": "cubic", "exclude_outside": 1, "coordinate_transformation_mode": "half_pixel_symmetric"},
            [2, 5, 7],
            [1, 0.6, 1.7],
        ),
        ({"mode": "linear", "antialias": 1}, [2, 9, 6], [1, 0.4, 0.7]),
        ({"mode": "cubic", "antialias": 1, "cubic_coeff_a": -0.5}, [1, 9, 11], [1, 0.35, 0.5]),
        ({"mode": "nearest", "nearest_mode": "round_prefer_ceil"}, [3, 4, 5], [1.5, 0.75, 2.2]),
        (
            {"mode": "linear", "coordinate_transformation_mode": "tf_crop_and_resize", "extrapolation_value": -3.0},
            [2, 6, 6],
            [1, 1.5, 0.8],
        ),
    ],
)
def test_resize_rank3_against_onnx_reference(attributes, shape, scales):
    x = np.random.default_rng(5).standard_normal(shape).astype(np.float32)
    roi = numpy_helper.from_array(np.array([0, 0.1, -0.2, 1, 0.8, 1.1], np.float32), "roi")
    out = [int(np.float64(np.float32(s)) * d) for s, d in zip(scales, shape)]
    model = _model(
        [helper.make_node("Resize", ["x", "roi", "scales"], ["y"], **attributes)],
        [_info("x", np.float32, shape)],
        [_info("y", np.float32, out)],
        [roi, numpy_helper.from_array(np.array(scales, np.float32), "scales")],
    )
    want = ReferenceEvaluator(model).run(None, {"x": x})[0]
    for threads in (1, 2):
        _, got = _run(model, {"x": x}, threads)
        np.testing.assert_allclose(got["y"], want, rtol=1e-5, atol=1e-5)


def test_resize_refusals_name_the_problem():
    x = _info("x", np.int32, [1, 1, 2, 2])
    scales = numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales")
    linear_int = _model(
        [helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="linear")],
        [x],
        [_info("y", np.int32, [1, 1, 4, 4])],
        [scales],
    )
    with pytest.raises(ConversionError, match=r"\(Resize\): linear interpolation of int32: RESIZE takes float32"):
        onnx_import.convert(linear_int)
    variable_scales = _model(
        [helper.make_node("Resize", ["x", "", "scales"], ["y"])],
        [x, _info("scales", np.float32, [4])],
        [_info("y", np.int32, None)],
    )
    with pytest.raises(ConversionError, match=r"\(Resize\): scales \(input 2\) must be a constant"):
        onnx_import.convert(variable_scales)


def test_pytorch_interpolate_export_runs_nhwc():
    # F.interpolate as PyTorch exports it: scales as a constant, sizes as
    # Concat(Slice(Shape(x)), constant), which folding makes constant.
    torch = pytest.importorskip("torch")
    import io

    import onnx

    class Decoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
            self.head = torch.nn.Conv2d(8, 4, 1)

        def forward(self, x):
            y = torch.nn.functional.interpolate(self.conv(x), scale_factor=2, mode="nearest")
            y = torch.nn.functional.interpolate(y, size=(20, 30), mode="bilinear", align_corners=False)
            return self.head(y)

    module = Decoder().eval()
    x = torch.randn(1, 3, 8, 12)
    f = io.BytesIO()
    torch.onnx.export(module, (x,), f, opset_version=17, dynamo=False)
    model = onnx.load_from_string(f.getvalue())
    data, got = _run(model, {model.graph.input[0].name: x.numpy()})
    np.testing.assert_allclose(next(iter(got.values())), module(x).detach().numpy(), rtol=1e-4, atol=1e-5)
    assert _ops(data) == {"TRANSPOSE": 2, "CONV_2D": 2, "RESIZE": 2}

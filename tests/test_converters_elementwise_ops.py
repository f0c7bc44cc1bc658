"""The elementwise importers (converters/onnx_import/elementwise_ops.py) on
the lite runtime, for what the ONNX node tests leave out: activations
keeping the NHWC layout after a Conv, the integer element types of the
arithmetic, Pow, Mod and Sign, broadcasting Sum/Mean, integer Clip, and the
errors (integer division by zero). Compared with onnxruntime where it has
the op for the type, else with numpy."""

import numpy as np
import pytest
from onnx import helper

from converters import lite_runner, onnx_import
from converters.lite_runner import LiteError
from tests.onnx_lite_util import lite_op_counts, make_model

ort = pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.skipif(not lite_runner.available(), reason="bazel build //lite/c:libtensorweave_lite.so first")
RTOL, ATOL = 1e-4, 1e-5


_ops = lite_op_counts


def _model(nodes, inputs, outputs, initializers=(), opset=22):
    """inputs/outputs: [(name, numpy dtype, shape)]."""
    return make_model(nodes, inputs, outputs, initializers, opset)


def _run(model, feeds, threads=2):
    data = onnx_import.convert(model)
    return data, lite_runner.LiteRunner(data, num_threads=threads).run(feeds)


def _compare_ort(model, feeds):
    """The lite outputs against onnxruntime's (dtype, shape and values)."""
    want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)
    data, got = _run(model, feeds)
    for out, w in zip(model.graph.output, want):
        assert got[out.name].dtype == w.dtype and got[out.name].shape == w.shape
        np.testing.assert_allclose(got[out.name], w, rtol=RTOL, atol=ATOL, err_msg=out.name)
    return data


# Each ONNX op and the lite op it converts to (tests/test_registry.py reads
# these names: the ONNX-only builtins must be compared somewhere).
_LITE_OP = {
    "Sin": "SIN",
    "Cos": "COS",
    "Tan": "TAN",
    "Asin": "ASIN",
    "Acos": "ACOS",
    "Atan": "ATAN",
    "Sinh": "SINH",
    "Cosh": "COSH",
    "Asinh": "ASINH",
    "Acosh": "ACOSH",
    "Atanh": "ATANH",
    "Floor": "FLOOR",
    "Ceil": "CEIL",
    "Round": "ROUND",
    "Sign": "SIGN",
    "IsNaN": "IS_NAN",
    "IsInf": "IS_INF",
    "Softplus": "SOFTPLUS",
    "Softsign": "SOFTSIGN",
    "Elu": "ELU",
    "Selu": "SELU",
    "Celu": "CELU",
    "LeakyRelu": "LEAKY_RELU",
    "HardSigmoid": "HARD_SIGMOID",
    "HardSwish": "HARD_SWISH",
    "Mish": "MISH",
    "ThresholdedRelu": "THRESHOLDED_RELU",
    "Shrink": "SHRINK",
}


@pytest.mark.parametrize("op", list(_LITE_OP))
def test_each_unary_op_against_onnxruntime(op):
    rng = np.random.default_rng(sorted(_LITE_OP).index(op))
    x = rng.uniform(-0.95, 0.95, size=(3, 7)).astype(np.float32)
    if op == "Acosh":
        x = 1 + np.abs(x) * 4
    elif op not in ("Asin", "Acos", "Atanh"):
        x = x * 5
    if op in ("IsNaN", "IsInf"):
        x[0, :3] = [np.nan, np.inf, -np.inf]
    out_dtype = np.bool_ if op in ("IsNaN", "IsInf") else np.float32
    model = _model([helper.make_node(op, ["x"], ["y"])], [("x", np.float32, [3, 7])], [("y", out_dtype, [3, 7])])
    data = _compare_ort(model, {"x": x})
    assert _ops(data) == {_LITE_OP[op]: 1}


_ACTIVATIONS = [
    ("LeakyRelu", {"alpha": 0.1}),
    ("HardSwish", {}),
    ("HardSigmoid", {"alpha": 0.3, "beta": 0.4}),
    ("Elu", {"alpha": 0.7}),
    ("Selu", {}),
    ("Celu", {"alpha": 1.5}),
    ("Mish", {}),
    ("ThresholdedRelu", {"alpha": 0.2}),
    ("Shrink", {"lambd": 0.3, "bias": 0.1}),
    ("Softplus", {}),
    ("Softsign", {}),
    ("Sin", {}),
    ("Round", {}),
]


@pytest.mark.parametrize("op,attributes", _ACTIVATIONS)
def test_activation_after_conv_stays_nhwc(op, attributes):
    # Conv -> activation -> PRelu (per-channel slope) -> Sigmoid-weighted Mul
    # (SiLU as PyTorch exports it): one transpose in, one out.
    rng = np.random.default_rng(0)
    w = rng.normal(size=(4, 3, 3, 3)).astype(np.float32)
    slope = rng.uniform(0.05, 0.5, size=(4, 1, 1)).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node(op, ["c"], ["a"], **attributes),
        helper.make_node("PRelu", ["a", "slope"], ["p"]),
        helper.make_node("Sigmoid", ["p"], ["s"]),
        helper.make_node("Mul", ["p", "s"], ["y"]),
    ]
    model = _model(
        nodes,
        [("x", np.float32, [1, 3, 6, 5])],
        [("y", np.float32, [1, 4, 6, 5])],
        [("w", w), ("slope", slope)],
    )
    x = rng.normal(size=(1, 3, 6, 5)).astype(np.float32) * 3
    data = _compare_ort(model, {"x": x})
    ops = _ops(data)
    assert ops["TRANSPOSE"] == 2 and ops["PRELU"] == 1


def test_swish_is_one_op():
    rng = np.random.default_rng(1)
    model = _model(
        [helper.make_node("Swish", ["x"], ["y"], alpha=1.7)],
        [("x", np.float32, [2, 50])],
        [("y", np.float32, [2, 50])],
        opset=24,
    )
    x = rng.normal(size=(2, 50)).astype(np.float32) * 4
    data, got = _run(model, {"x": x})
    assert _ops(data) == {"SWISH": 1}  # onnxruntime lacks opset 24's Swish: numpy
    np.testing.assert_allclose(got["y"], x / (1 + np.exp(-1.7 * x)), rtol=RTOL, atol=ATOL)


_INT_TYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]


def _binary_model(op, dtype, a_shape, b_shape, out_dtype=None, **attributes):
    out_shape = list(np.broadcast_shapes(tuple(a_shape), tuple(b_shape)))
    return _model(
        [helper.make_node(op, ["a", "b"], ["y"], **attributes)],
        [("a", dtype, a_shape), ("b", dtype if op != "Pow" else out_dtype, b_shape)],
        [("y", dtype, out_shape)],
        opset=13,
    )


def _trunc_div(x, y):
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y > 0) else -q


_EXACT = {
    "Add": lambda x, y: x + y,
    "Sub": lambda x, y: x - y,
    "Mul": lambda x, y: x * y,
    "Div": _trunc_div,
    "Max": max,
    "Min": min,
}


def _wrapped(values, dtype):
    """Python ints wrapped into integer type `dtype` (two's complement)."""
    bits = np.dtype(dtype).itemsize * 8
    return np.array([v % 2**bits for v in values], dtype=f"uint{bits}").view(dtype)


@pytest.mark.parametrize("dtype", _INT_TYPES + [np.float64])
@pytest.mark.parametrize("op", list(_EXACT))
def test_arithmetic_on_every_type_broadcasts_and_wraps(op, dtype):
    rng = np.random.default_rng(2)
    if np.dtype(dtype).kind == "f":
        a, b = rng.uniform(-1e3, 1e3, (3, 4)), rng.uniform(-1e3, 1e3, (4,))
    else:
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, size=(3, 4), endpoint=True, dtype=dtype)
        b = rng.integers(info.min, info.max, size=(4,), endpoint=True, dtype=dtype)
        b[b == 0] = 3  # no division by zero
        if info.min < 0:
            a[0, 0], b[0] = info.min, -1  # INT_MIN / -1 wraps
    _, got = _run(_binary_model(op, dtype, [3, 4], [4]), {"a": a, "b": b})
    assert got["y"].dtype == np.dtype(dtype)
    pairs = zip(a.ravel().tolist(), np.broadcast_to(b, a.shape).ravel().tolist())
    if np.dtype(dtype).kind == "f":
        want = np.array([_EXACT[op](x, y) if op != "Div" else x / y for x, y in pairs]).reshape(a.shape)
        np.testing.assert_allclose(got["y"], want, rtol=1e-12)
    else:
        want = _wrapped([_EXACT[op](x, y) for x, y in pairs], dtype).reshape(a.shape)
        np.testing.assert_array_equal(got["y"], want)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.int8, np.uint16])
def test_integer_division_by_zero_is_an_error(dtype):
    model = _binary_model("Div", dtype, [2], [2])
    with pytest.raises(LiteError, match=r"\(DIV\): DIV: integer division by zero"):
        _run(model, {"a": np.array([1, 2], dtype), "b": np.array([1, 0], dtype)})


@pytest.mark.parametrize("fmod", [0, 1])
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8, np.float32, np.float64])
def test_mod_against_onnxruntime(fmod, dtype):
    if fmod == 0 and np.dtype(dtype).kind == "f":
        pytest.skip("onnxruntime refuses fmod=0 on floats (opset 13)")
    rng = np.random.default_rng(3)
    signed = np.dtype(dtype).kind != "u"
    a = rng.integers(-100 if signed else 0, 100, size=(2, 3, 4)).astype(dtype)
    b = rng.integers(-9 if signed else 1, 9, size=(3, 1)).astype(dtype)
    b[b == 0] = 7
    if np.dtype(dtype).kind == "f":
        a, b = a + dtype(0.25), b + dtype(0.5)
    model = _binary_model("Mod", dtype, [2, 3, 4], [3, 1], fmod=fmod)
    data = _compare_ort(model, {"a": a, "b": b})
    assert _ops(data) == {"FMOD" if fmod else "FLOOR_MOD": 1}


def test_mod_by_zero_is_an_error():
    model = _binary_model("Mod", np.int64, [2], [2])
    with pytest.raises(LiteError, match=r"FLOOR_MOD: integer division by zero"):
        _run(model, {"a": np.array([5, 6], np.int64), "b": np.array([0, 1], np.int64)})


@pytest.mark.parametrize(
    "base,exponent", [(np.int32, np.int32), (np.int64, np.int64), (np.float32, np.int64), (np.float64, np.float64)]
)
def test_pow_against_onnxruntime(base, exponent):
    rng = np.random.default_rng(4)
    a = rng.integers(-5, 6, size=(2, 5)).astype(base)
    e = rng.integers(0, 7, size=(5,)).astype(exponent)
    model = _binary_model("Pow", base, [2, 5], [5], out_dtype=exponent)
    data = _compare_ort(model, {"a": a, "b": e})
    assert _ops(data) == {"POW": 1}


def test_pow_by_a_constant_picks_the_cheapest_op():
    def run(exponent):
        model = _model(
            [helper.make_node("Pow", ["x", "e"], ["y"])],
            [("x", np.float32, [4])],
            [("y", np.float32, [4])],
            [("e", np.array(exponent, np.float32))],
            opset=15,
        )
        x = np.array([0.5, 1, 2, 3], np.float32)
        data, got = _run(model, {"x": x})
        np.testing.assert_allclose(got["y"], x**exponent, rtol=1e-6)
        return _ops(data)

    assert run(2.0) == {"SQUARE": 1}
    assert run(0.5) == {"SQRT": 1}
    assert run(3.0) == {"POW": 1}


@pytest.mark.parametrize("dtype", [np.int8, np.uint32, np.int64, np.float64, np.float32])
def test_sign(dtype):
    x = np.array([-3, 0, 7, 1], dtype=dtype if np.dtype(dtype).kind != "u" else np.int64).astype(dtype)
    model = _model([helper.make_node("Sign", ["x"], ["y"])], [("x", dtype, [4])], [("y", dtype, [4])], opset=13)
    data, got = _run(model, {"x": x})
    assert _ops(data) == {"SIGN": 1} and got["y"].dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got["y"], np.sign(x))


@pytest.mark.parametrize("op", ["Sum", "Mean"])
def test_sum_and_mean_broadcast(op):
    rng = np.random.default_rng(5)
    shapes = {"a": [2, 1, 4], "b": [3, 1], "c": [4]}
    model = _model(
        [helper.make_node(op, list(shapes), ["y"])],
        [(n, np.float32, s) for n, s in shapes.items()],
        [("y", np.float32, [2, 3, 4])],
        opset=13,
    )
    feeds = {n: rng.normal(size=s).astype(np.float32) for n, s in shapes.items()}
    data = _compare_ort(model, feeds)
    assert _ops(data) == ({"ADD": 2} if op == "Sum" else {"ADD": 2, "MUL": 1})


@pytest.mark.parametrize("dtype", [np.int16, np.uint8, np.uint64])
def test_clip_on_other_types(dtype):
    model = _model(
        [helper.make_node("Clip", ["x", "lo", "hi"], ["y"])],
        [("x", dtype, [5])],
        [("y", dtype, [5])],
        [("lo", np.array(2, dtype)), ("hi", np.array(9, dtype))],
        opset=13,
    )
    x = np.array([0, 2, 5, 9, 200], dtype)
    data, got = _run(model, {"x": x})
    np.testing.assert_array_equal(got["y"], np.clip(x, 2, 9))
    assert _ops(data) == {"MAXIMUM": 1, "MINIMUM": 1}


def test_float16_is_computed_in_float32():
    """A float16 model computes in float32 between CASTs at its input and output (onnx_import/float16.py)."""
    model = _model([helper.make_node("Sin", ["x"], ["y"])], [("x", np.float16, [4])], [("y", np.float16, [4])])
    x = np.array([0.5, -2.0, 3.1, 100.0], np.float16)
    data, got = _run(model, {"x": x})
    assert got["y"].dtype == np.float16
    np.testing.assert_array_equal(got["y"], np.sin(x.astype(np.float32)).astype(np.float16))
    assert _ops(data) == {"CAST": 2, "SIN": 1}


def test_isinf_options():
    x = np.array([np.inf, -np.inf, 1, np.nan], np.float32)
    for pos, neg in [(1, 1), (1, 0), (0, 1)]:
        model = _model(
            [helper.make_node("IsInf", ["x"], ["y"], detect_positive=pos, detect_negative=neg)],
            [("x", np.float32, [4])],
            [("y", np.bool_, [4])],
            opset=20,
        )
        _, got = _run(model, {"x": x})
        np.testing.assert_array_equal(got["y"], (np.isposinf(x) & bool(pos)) | (np.isneginf(x) & bool(neg)))

"""GPU element-wise math, reductions and Cast (core/gpu/kernels/{cwise_ops,reduction_ops,cast_ops}.cu)
against the CPU kernels: every op on several shapes (scalars, size-0 dims, rank 1..5 broadcasting,
the row/column/strided paths), each registered dtype, forward and gradient, and an error case per
family (the GPU kernel gives the CPU's error class). Skips without a GPU."""

import numpy as np
import pytest
import tensorweave as tw

from tests.gpu.gpu_util import assert_gpu_matches_cpu, error_class, requires_gpu

pytestmark = requires_gpu

RNG = np.random.default_rng(1234)

# (x shape, y shape): same shape, scalars, size 0, row/column vectors, rank 1..5 broadcasting.
BROADCAST_SHAPES = [
    ((), ()),
    ((5,), ()),
    ((), (5,)),
    ((3, 4), (3, 4)),
    ((3, 4), (4,)),
    ((3, 4), (3, 1)),
    ((4,), (3, 4)),
    ((3, 1), (3, 4)),
    ((1,), (7,)),
    ((2, 1, 4), (3, 1)),
    ((2, 3, 1, 5, 1), (1, 3, 4, 1, 6)),
    ((0, 4), (4,)),
    ((2, 0, 3), (1, 3)),
    ((64, 257), (257,)),
]
FEW_SHAPES = [((3, 4), (3, 4)), ((5,), ()), ((2, 1, 4), (3, 1))]


def _values(shape, dtype, low=-3.0, high=3.0, away_from_zero=False):
    if np.dtype(dtype) == np.bool_:
        return np.asarray(RNG.random(shape) < 0.5)
    if np.dtype(dtype).kind == "i":
        v = np.asarray(RNG.integers(int(low) * 3, int(high) * 3 + 1, size=shape))
        if away_from_zero:
            v[v == 0] = 1
        return np.asarray(v, dtype=dtype)
    v = np.asarray(RNG.uniform(low, high, size=shape))
    if away_from_zero:
        v = np.asarray(np.sign(v) * (np.abs(v) + 0.5))
        v[v == 0] = 1.0
    return np.asarray(v, dtype=dtype)


def _fn(path):
    obj = tw
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


# name, tw function, op types, dtypes, value kwargs for y (x: default), tolerance
BINARY = [
    ("add", "add", ["Add"], [np.float32, np.float64, np.int64], {}),
    ("add_v2", "raw_ops.AddV2", ["AddV2"], [np.float32, np.float64, np.int64], {}),
    ("sub", "subtract", ["Sub"], [np.float32, np.float64, np.int64], {}),
    ("mul", "multiply", ["Mul"], [np.float32, np.float64, np.int64], {}),
    ("realdiv", "realdiv", ["RealDiv"], [np.float32, np.float64], {"away_from_zero": True}),
    ("div", "raw_ops.Div", ["Div"], [np.float32, np.float64], {"away_from_zero": True}),
    ("maximum", "maximum", ["Maximum"], [np.float32, np.float64, np.int64], {}),
    ("minimum", "minimum", ["Minimum"], [np.float32, np.float64, np.int64], {}),
    ("squared_difference", "squared_difference", ["SquaredDifference"], [np.float32, np.float64], {}),
    ("floordiv", "floordiv", ["FloorDiv"], [np.float32, np.float64], {"away_from_zero": True}),
    ("floormod", "floormod", ["FloorMod"], [np.float32, np.float64], {"away_from_zero": True}),
]
COMPARE = [
    ("equal", "equal", ["Equal"], [np.float32, np.float64, np.int64, np.bool_]),
    ("not_equal", "not_equal", ["NotEqual"], [np.float32, np.float64, np.int64, np.bool_]),
    ("less", "less", ["Less"], [np.float32, np.float64, np.int64]),
    ("less_equal", "less_equal", ["LessEqual"], [np.float32, np.float64, np.int64]),
    ("greater", "greater", ["Greater"], [np.float32, np.float64, np.int64]),
    ("greater_equal", "greater_equal", ["GreaterEqual"], [np.float32, np.float64, np.int64]),
    ("logical_and", "logical_and", ["LogicalAnd"], [np.bool_]),
    ("logical_or", "logical_or", ["LogicalOr"], [np.bool_]),
]


def _binary_cases(table):
    for row in table:
        name, dtypes = row[0], row[3]
        for dtype in dtypes:
            shapes = BROADCAST_SHAPES if dtype in (np.float32, np.bool_) else FEW_SHAPES
            for xs, ys in shapes:
                yield pytest.param(row, dtype, xs, ys, id=f"{name}-{np.dtype(dtype).name}-{xs}-{ys}")


def _call(fn, x, y):
    if fn.startswith("raw_ops."):
        return _fn(fn)(x=x, y=y)
    return _fn(fn)(x, y)


@pytest.mark.parametrize("row,dtype,xs,ys", list(_binary_cases(BINARY)))
def test_binary_broadcasting(row, dtype, xs, ys):
    _, fn, ops, _, ykw = row
    x = _values(xs, dtype)
    y = _values(ys, dtype, **ykw)
    if row[0] in ("maximum", "minimum", "squared_difference") and dtype != np.int64:
        y = y + np.asarray(0.125, dtype)  # no ties: the gradient's choice is then unique
    assert_gpu_matches_cpu(lambda a, b: _call(fn, a, b), [x, y], ops=ops, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("row,dtype,xs,ys", list(_binary_cases(COMPARE)))
def test_compare_and_logical(row, dtype, xs, ys):
    _, fn, ops, _ = row
    x = _values(xs, dtype)
    y = _values(ys, dtype)
    if dtype != np.bool_ and x.size and y.size:
        # some equal pairs, so that ==, <= and >= see ties
        y = np.array(y)
        flat = y.reshape(-1)
        flat[::2] = np.broadcast_to(x.reshape(-1)[:1], flat[::2].shape)
    assert_gpu_matches_cpu(lambda a, b: _fn(fn)(a, b), [x, y], ops=ops)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_maximum_minimum_propagate_nan(dtype):
    x = np.array([np.nan, 1.0, np.nan, -2.0], dtype)
    y = np.array([1.0, np.nan, np.nan, 3.0], dtype)
    assert_gpu_matches_cpu(
        lambda a, b: [tw.maximum(a, b), tw.minimum(a, b)], [x, y], ops=["Maximum", "Minimum"], grads=False
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("xs,ys", [((3, 4), (3, 4)), ((5,), ()), ((2, 3, 1), (4,))])
def test_pow(dtype, xs, ys):
    x = _values(xs, dtype, 0.5, 2.0)
    y = _values(ys, dtype, -2.0, 2.0)
    assert_gpu_matches_cpu(lambda a, b: tw.pow(a, b), [x, y], ops=["Pow"], rtol=2e-5, atol=1e-5)


# name, function, op types, dtypes, (low, high) of the input
UNARY = [
    ("neg", "negative", ["Neg"], [np.float32, np.float64, np.int64], (-3, 3)),
    ("abs", "abs", ["Abs"], [np.float32, np.float64, np.int64], (-3, 3)),
    ("square", "square", ["Square"], [np.float32, np.float64, np.int64], (-3, 3)),
    ("sign", "sign", ["Sign"], [np.float32, np.float64, np.int64], (-3, 3)),
    ("sqrt", "sqrt", ["Sqrt", "SqrtGrad"], [np.float32, np.float64], (0.2, 4)),
    ("rsqrt", "rsqrt", ["Rsqrt", "RsqrtGrad"], [np.float32, np.float64], (0.2, 4)),
    ("exp", "exp", ["Exp"], [np.float32, np.float64], (-3, 3)),
    ("log", "log", ["Log"], [np.float32, np.float64], (0.2, 4)),
    ("log1p", "log1p", ["Log1p"], [np.float32, np.float64], (-0.5, 3)),
    ("tanh", "tanh", ["Tanh", "TanhGrad"], [np.float32, np.float64], (-3, 3)),
    ("sigmoid", "sigmoid", ["Sigmoid", "SigmoidGrad"], [np.float32, np.float64], (-6, 6)),
    ("reciprocal", "math.reciprocal", ["Reciprocal", "ReciprocalGrad"], [np.float32, np.float64], (0.3, 3)),
    ("floor", "floor", ["Floor"], [np.float32, np.float64], (-3, 3)),
    ("ceil", "ceil", ["Ceil"], [np.float32, np.float64], (-3, 3)),
    ("round", "round", ["Round"], [np.float32, np.float64], (-3, 3)),
]
UNARY_SHAPES = [(), (7,), (0,), (3, 5), (2, 0, 3), (2, 3, 4, 5, 2)]


def _unary_cases():
    for row in UNARY:
        for dtype in row[3]:
            shapes = UNARY_SHAPES if dtype == np.float32 else [(3, 5)]
            for shape in shapes:
                yield pytest.param(row, dtype, shape, id=f"{row[0]}-{np.dtype(dtype).name}-{shape}")


@pytest.mark.parametrize("row,dtype,shape", list(_unary_cases()))
def test_unary(row, dtype, shape):
    name, fn, ops, _, (low, high) = row
    x = _values(shape, dtype, low, high)
    if name == "round" and x.size:
        x.reshape(-1)[:4] = np.array([0.5, 1.5, -2.5, 2.5], dtype)[: x.size]  # half to even
    if x.size == 0:
        ops = ops[:1]  # an empty gradient may be folded away
    assert_gpu_matches_cpu(lambda a: _fn(fn)(a), [x], ops=ops, rtol=2e-5, atol=1e-6)


def test_logical_not_and_is_finite():
    b = _values((4, 5), np.bool_)
    assert_gpu_matches_cpu(lambda a: tw.logical_not(a), [b], ops=["LogicalNot"])
    for dtype in (np.float32, np.float64):
        x = np.array([0.0, np.inf, -np.inf, np.nan, 1e30, -2.0], dtype)
        assert_gpu_matches_cpu(lambda a: tw.math.is_finite(a), [x], ops=["IsFinite"], grads=False)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.bool_])
@pytest.mark.parametrize("shape", [(), (0, 3), (4, 5)])
def test_zeros_like_ones_like(dtype, shape):
    x = _values(shape, dtype)
    assert_gpu_matches_cpu(
        lambda a: [tw.zeros_like(a), tw.ones_like(a)], [x], ops=["ZerosLike", "OnesLike"], grads=False
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("count", [1, 2, 3, 16, 17, 40])
def test_add_n(dtype, count):
    shape = (3, 7) if count != 17 else (0, 2)
    xs = [_values(shape, dtype) for _ in range(count)]
    ops = ["AddN"] if count > 1 else []
    assert_gpu_matches_cpu(lambda *a: tw.add_n(list(a)) * 1, xs, ops=ops)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.bool_])
def test_select_tf1_rules(dtype):
    t = _values((4, 3), dtype)
    e = _values((4, 3), dtype)
    for cond_shape in [(), (4,), (4, 3)]:
        c = _values(cond_shape, np.bool_)
        assert_gpu_matches_cpu(lambda c_, a, b: tw.where(c_, a, b), [c, t, e], ops=["Select"])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize(
    "cs,ts,es", [((), (3,), (3,)), ((2, 1), (1, 3), ()), ((2, 1, 3), (4, 1), (1, 3)), ((0, 3), (3,), (1,))]
)
def test_select_v2_broadcasting(dtype, cs, ts, es):
    c, t, e = _values(cs, np.bool_), _values(ts, dtype), _values(es, dtype)
    assert_gpu_matches_cpu(lambda c_, a, b: tw.where_v2(c_, a, b), [c, t, e], ops=["SelectV2"])


# -------------------------------------------------------------------------------- reductions

# shape, axis, keep_dims: all, rows, columns (split path), non-adjacent axes (two passes), rank 5,
# size-0 dims, reduced size-1 dims (a copy), the bias-gradient pattern.
REDUCTION_CASES = [
    ((7,), None, False),
    ((50000,), None, False),
    ((6, 5), [1], False),
    ((6, 5), [0], True),
    ((6, 5), [0, 1], True),
    ((3, 4, 5), [0, 2], False),
    ((3, 4, 5), [-1], True),
    ((2, 3, 4, 5, 6), [1, 3], False),
    ((300, 700), [0], False),
    ((5000, 3), [0], False),
    ((2000, 40), [0], False),
    ((40, 9000), [1], False),
    ((3, 1, 4), [1], False),
    ((0, 4), [0], False),
    ((4, 0), [1], False),
    ((), [], False),
]


def _reduction_tol(x):
    # rtol ~1e-5 relative to the sum's scale (tree vs sequential order)
    return 1e-5 * max(1.0, float(np.sum(np.abs(x.astype(np.float64)))) if x.size else 1.0)


@pytest.mark.parametrize("shape,axis,keep", REDUCTION_CASES, ids=[str(c) for c in REDUCTION_CASES])
@pytest.mark.parametrize("op", ["Sum", "Mean", "Max", "Min"])
def test_reductions_float32(op, shape, axis, keep):
    fn = {"Sum": tw.reduce_sum, "Mean": tw.reduce_mean, "Max": tw.reduce_max, "Min": tw.reduce_min}[op]
    x = _values(shape, np.float32)
    tol = _reduction_tol(x) if op in ("Sum", "Mean") else 1e-6
    if op == "Mean":
        tol /= max(1, x.size)
    # gradients of Max/Min on size-0 or scalar inputs are not this kernel's business
    assert_gpu_matches_cpu(lambda a: fn(a, axis=axis, keepdims=keep), [x], ops=[op], rtol=1e-5, atol=tol)


@pytest.mark.parametrize("shape,axis", [((6, 5), [1]), ((3, 4, 5), [0, 2]), ((50, 3), [0]), ((0, 2), [0])])
@pytest.mark.parametrize("dtype", [np.float64, np.int64])
@pytest.mark.parametrize("op", ["Sum", "Mean", "Max", "Min", "Prod"])
def test_reductions_other_dtypes(op, dtype, shape, axis):
    fn = {
        "Sum": tw.reduce_sum,
        "Mean": tw.reduce_mean,
        "Max": tw.reduce_max,
        "Min": tw.reduce_min,
        "Prod": tw.reduce_prod,
    }[op]
    x = _values(shape, dtype, -2, 2) if op != "Prod" else _values(shape, dtype, 1, 2)
    assert_gpu_matches_cpu(lambda a: fn(a, axis=axis), [x], ops=[op], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape,axis", [((4, 6), [1]), ((5, 3, 2), [0, 2]), ((30,), None), ((0, 3), [0])])
def test_prod_float32(shape, axis):
    x = _values(shape, np.float32, 0.7, 1.3)
    assert_gpu_matches_cpu(lambda a: tw.reduce_prod(a, axis=axis), [x], ops=["Prod"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "shape,axis", [((5, 7), [1]), ((5, 7), [0]), ((3, 4, 5), [0, 2]), ((10000,), None), ((0, 3), [0])]
)
def test_any_all(shape, axis):
    x = RNG.random(shape) < 0.9
    assert_gpu_matches_cpu(
        lambda a: [tw.reduce_any(a, axis=axis), tw.reduce_all(a, axis=axis)], [x], ops=["Any", "All"]
    )


def test_reductions_propagate_nan_and_empty_identity():
    x = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]], np.float32)
    assert_gpu_matches_cpu(
        lambda a: [tw.reduce_max(a, axis=1), tw.reduce_min(a, axis=1), tw.reduce_sum(a, axis=0)],
        [x],
        ops=["Max", "Min", "Sum"],
        grads=False,
    )
    e = np.zeros((0, 4), np.float32)  # -inf, +inf, 1, NaN (0/0) as the CPU
    assert_gpu_matches_cpu(
        lambda a: [tw.reduce_max(a, 0), tw.reduce_min(a, 0), tw.reduce_prod(a, 0), tw.reduce_mean(a, 0)],
        [e],
        ops=["Max", "Min", "Prod", "Mean"],
        grads=False,
    )


@pytest.mark.parametrize("out_type", [tw.int32, tw.int64])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("shape,axis", [((5, 10), 1), ((5, 10), 0), ((2, 3, 4), 1), ((7,), 0), ((3, 0), 0)])
def test_argmax_argmin(dtype, out_type, shape, axis):
    x = _values(shape, dtype, -1, 1)
    if dtype != np.int64:
        x = np.round(x * 2) / 2  # ties: the first index wins
    assert_gpu_matches_cpu(
        lambda a: [tw.argmax(a, axis, output_type=out_type), tw.argmin(a, axis, output_type=out_type)],
        [x],
        ops=["ArgMax", "ArgMin"],
    )


# -------------------------------------------------------------------------------- Cast

CAST_TYPES = [np.float32, np.float64, np.float16, np.int32, np.int64, np.bool_]


def _cast_source(dtype):
    if dtype == np.bool_:
        return np.array([True, False, True, True])
    if np.dtype(dtype).kind == "i":
        return np.array([0, -3, 7, 2**30], dtype)
    big = 6e4 if dtype == np.float16 else 1e10
    return np.array([0.0, -2.7, 2.5, big, -big, np.nan, np.inf, 65519.0, 1e-8], dtype)


@pytest.mark.parametrize("src", CAST_TYPES, ids=[np.dtype(t).name for t in CAST_TYPES])
@pytest.mark.parametrize("dst", CAST_TYPES, ids=[np.dtype(t).name for t in CAST_TYPES])
def test_cast(src, dst):
    if src == dst:
        pytest.skip("no Cast node")
    x = _cast_source(src)
    assert_gpu_matches_cpu(lambda a: tw.cast(a, tw.as_dtype(dst)), [x], ops=["Cast"], rtol=0, atol=0, grads=False)


def test_cast_gradient_and_shapes():
    for shape in [(), (0, 3), (2, 3, 4)]:
        x = _values(shape, np.float32)
        assert_gpu_matches_cpu(lambda a: tw.cast(a, tw.float64) * 2.0, [x], ops=["Cast"])


# -------------------------------------------------------------------------------- errors


def assert_same_error(build, feeds, expected=None):
    expected = expected or tw.errors.InvalidArgumentError
    cpu = error_class("/cpu:0", build, feeds, soft_placement=True)
    gpu = error_class("/gpu:0", build, feeds, soft_placement=True)
    assert cpu is expected, cpu
    assert gpu is cpu, (gpu, cpu)


def test_error_binary_incompatible_shapes():
    a = np.ones((2, 3), np.float32)
    b = np.ones((4,), np.float32)
    assert_same_error(lambda x, y: tw.add(x, y), [a, b])
    assert_same_error(lambda x, y: tw.less(x, y), [a, b])


def test_error_activation_grad_shapes():
    g = np.ones((2, 3), np.float32)
    f = np.ones((3, 2), np.float32)
    assert_same_error(lambda x, y: tw.raw_ops.ReluGrad(gradients=x, features=y), [g, f])


def test_error_add_n_and_select_shapes():
    a = np.ones((2, 3), np.float32)
    b = np.ones((3, 2), np.float32)
    assert_same_error(lambda x, y: tw.add_n([x, y]), [a, b])
    c = np.ones((5,), np.bool_)
    assert_same_error(lambda c_, x, y: tw.where(c_, x, y), [c, a, a])
    assert_same_error(lambda c_, x, y: tw.where_v2(c_, x, y), [c, a, a])


def test_error_reduction_axis():
    x = np.ones((2, 3), np.float32)
    for axis in (np.array(2, np.int32), np.array([0, 0], np.int32)):
        assert_same_error(lambda a, ax: tw.reduce_sum(a, axis=ax), [x, axis])
    assert_same_error(lambda a, ax: tw.argmax(a, ax), [x, np.array(5, np.int32)])
    assert_same_error(lambda a, ax: tw.argmax(a, ax), [np.ones((3, 0), np.float32), np.array(1, np.int32)])

"""Element-wise binary ops and matmul against numpy, with broadcasting."""

import operator

import numpy as np
import pytest

import tensorweave as tw

SHAPE_PAIRS = [
    ((), ()),
    ((), (3,)),
    ((3,), ()),
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (2, 3)),
    ((2, 1, 3), (4, 1)),
    ((0, 3), (3,)),
    ((5, 1), (1, 5)),
    ((2, 3), (2, 3)),
    ((1,), (4, 2)),
]

TW_DTYPES = {
    np.float32: tw.float32,
    np.float64: tw.float64,
    np.int32: tw.int32,
    np.int64: tw.int64,
    np.uint8: tw.uint8,
}

# Add/Sub/Mul/Div allow "numbertype"; Neg and MatMul exclude uint8.
ALL_DTYPES = [np.float32, np.float64, np.int32, np.int64, np.uint8]
SIGNED_DTYPES = [np.float32, np.float64, np.int32, np.int64]


def _values(rng, shape, dtype, nonzero=False):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        v = rng.uniform(-10, 10, size=shape)
        if nonzero:
            v = np.where(np.abs(v) < 0.5, 1.5, v)
    elif dtype.kind == "u":
        v = rng.integers(1 if nonzero else 0, 15, size=shape)
    else:
        v = rng.integers(-20, 20, size=shape)
        if nonzero:
            v = np.where(v == 0, 3, v)
    return np.asarray(v).astype(dtype)


def _check(actual, expected, dtype):
    expected = np.asarray(expected)
    assert isinstance(actual, (np.ndarray, np.generic))
    assert actual.dtype == np.dtype(dtype), (actual.dtype, dtype)
    assert actual.shape == expected.shape
    if np.dtype(dtype).kind == "f":
        rtol = 1e-6 if np.dtype(dtype) == np.float32 else 1e-12
        np.testing.assert_allclose(actual, expected.astype(dtype), rtol=rtol)
    else:
        np.testing.assert_array_equal(actual, expected.astype(dtype))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=str)
def test_add_sub_mul_broadcast(sess, rng, dtype, shapes):
    sx, sy = shapes
    x = _values(rng, sx, dtype)
    y = _values(rng, sy, dtype)
    tx = tw.constant(x)
    ty = tw.constant(y)
    assert tx.dtype == TW_DTYPES[dtype]
    ops = [tw.add(tx, ty), tw.subtract(tx, ty), tw.multiply(tx, ty)]
    for t in ops:
        assert t.dtype == TW_DTYPES[dtype]
        assert t.shape.as_list() == list(np.broadcast_shapes(sx, sy))
    got = sess.run(ops)
    with np.errstate(over="ignore"):
        _check(got[0], x + y, dtype)
        _check(got[1], x - y, dtype)  # uint8 wraps around, like numpy
        _check(got[2], x * y, dtype)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=str)
def test_div_broadcast(sess, rng, dtype, shapes):
    sx, sy = shapes
    x = _values(rng, sx, dtype)
    y = _values(rng, sy, dtype, nonzero=True)
    got = sess.run(tw.div(tw.constant(x), tw.constant(y)))
    if np.dtype(dtype).kind == "f":
        _check(got, x / y, dtype)
    else:  # TF1's tf.div floors integers (Python 2 division)
        _check(got, np.floor_divide(*np.broadcast_arrays(x, y)), dtype)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=str)
def test_truediv_broadcast(sess, rng, dtype, shapes):
    sx, sy = shapes
    x = _values(rng, sx, dtype)
    y = _values(rng, sy, dtype, nonzero=True)
    tx, ty = tw.constant(x), tw.constant(y)
    t1 = tw.truediv(tx, ty)
    t2 = tx / ty
    t3 = tw.divide(tx, ty)
    # TensorFlow's table: 8/16-bit integers divide in float32, wider ones in float64.
    if np.dtype(dtype).kind in "iu":
        out_dtype = np.float32 if np.dtype(dtype).itemsize <= 2 else np.float64
    else:
        out_dtype = dtype
    for t in (t1, t2, t3):
        assert t.dtype == TW_DTYPES[out_dtype]
    expected = x.astype(out_dtype) / y.astype(out_dtype)
    for got in sess.run([t1, t2, t3]):
        _check(got, expected, out_dtype)


@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=lambda d: np.dtype(d).name)
def test_int_div_floors_as_tf1(sess, dtype):
    x = np.array([7, -7, 7, -7, 0, 1, -1, 9], dtype=dtype)
    y = np.array([2, 2, -2, -2, 5, 3, 3, -4], dtype=dtype)
    got = sess.run(tw.div(x, tw.constant(y)))
    np.testing.assert_array_equal(got, np.array([3, -4, -4, 3, 0, 0, -1, -3], dtype=dtype))
    assert got.dtype == dtype


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8], ids=lambda d: np.dtype(d).name)
def test_int_div_by_zero_is_an_error(sess, dtype):
    # As in TensorFlow: an InvalidArgumentError naming the node, never a trap.
    x = tw.constant(np.array([5, 0, 3], dtype=dtype))
    quotient = tw.div(x, tw.constant(np.zeros(3, dtype=dtype)), name="quotient")
    with pytest.raises(tw.errors.InvalidArgumentError, match="Integer division by zero(.|\n)*quotient"):
        sess.run(quotient)


def test_float_div_by_zero_is_ieee(sess):
    x = tw.constant(np.array([1.0, -1.0, 0.0], dtype=np.float32))
    got = sess.run(tw.div(x, 0.0))
    assert got[0] == np.inf and got[1] == -np.inf and np.isnan(got[2])


def test_int_truediv_is_float64(sess):
    a = tw.constant([7, -7, 1])
    b = tw.constant([2, 2, 3])
    t = a / b
    assert t.dtype == tw.float64
    got = sess.run(t)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, np.array([7, -7, 1]) / np.array([2, 2, 3]))
    # Python scalar on the left.
    got = sess.run(7 / b)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, 7 / np.array([2, 2, 3]))


@pytest.mark.parametrize("dtype", SIGNED_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=str)
def test_operators(sess, rng, dtype, shapes):
    sx, sy = shapes
    x = _values(rng, sx, dtype)
    y = _values(rng, sy, dtype, nonzero=True)
    tx, ty = tw.constant(x), tw.constant(y)
    got = sess.run({"add": tx + ty, "sub": tx - ty, "mul": tx * ty, "neg": -tx, "div": tx / ty})
    _check(got["add"], x + y, dtype)
    _check(got["sub"], x - y, dtype)
    _check(got["mul"], x * y, dtype)
    _check(got["neg"], -x, dtype)
    out = np.float64 if np.dtype(dtype).kind == "i" else dtype
    _check(got["div"], x.astype(out) / y.astype(out), out)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_reverse_operators_with_python_scalars_float(sess, dtype):
    x = np.array([[1.5, -2.0, 4.0]], dtype=dtype)
    t = tw.constant(x)
    cases = {
        "2*t": (2 * t, 2 * x),
        "t*2": (t * 2, x * 2),
        "1-t": (1.0 - t, 1.0 - x),
        "t-1": (t - 1.0, x - 1.0),
        "3+t": (3 + t, 3 + x),
        "1/t": (1.0 / t, 1.0 / x),
        "t/2": (t / 2, x / 2),
    }
    got = sess.run({k: v[0] for k, v in cases.items()})
    for k, (_, expected) in cases.items():
        assert got[k].dtype == dtype, k
        np.testing.assert_allclose(got[k], expected.astype(dtype), rtol=1e-6, err_msg=k)


@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=lambda d: np.dtype(d).name)
def test_reverse_operators_with_python_scalars_int(sess, dtype):
    x = np.array([1, -2, 4], dtype=dtype)
    t = tw.constant(x)
    got = sess.run([2 * t, 10 - t, 3 + t, t - 1])
    for g, e in zip(got, [2 * x, 10 - x, 3 + x, x - 1]):
        assert g.dtype == dtype
        np.testing.assert_array_equal(g, e)


def test_python_scalar_takes_tensor_dtype(graph):
    t = tw.constant(np.array([1.0], dtype=np.float64))
    assert (2 * t).dtype == tw.float64
    assert (t + 1).dtype == tw.float64
    u = tw.constant(np.array([1], dtype=np.uint8))
    assert (u + 1).dtype == tw.uint8


def test_float_scalar_with_int_tensor_is_type_error(graph):
    t = tw.constant([1, 2])
    with pytest.raises(TypeError):
        t * 1.5
    with pytest.raises(TypeError):
        1.5 - t


def test_numpy_array_on_left_defers_to_tensor(sess):
    x = np.array([1.0, 2.0], dtype=np.float32)
    t = tw.constant(np.array([10.0, 20.0], dtype=np.float32))
    r = x + t
    assert isinstance(r, tw.Tensor)
    np.testing.assert_allclose(sess.run(r), [11.0, 22.0])


@pytest.mark.parametrize("shapes", [((2, 3), (4,)), ((2, 3), (2, 4)), ((5, 1, 3), (2, 4))])
def test_incompatible_broadcast_raises(graph, shapes):
    a = tw.constant(np.zeros(shapes[0], np.float32))
    b = tw.constant(np.zeros(shapes[1], np.float32))
    with pytest.raises(ValueError):
        tw.add(a, b)


def test_broadcast_with_unknown_dims(sess):
    x = tw.placeholder(tw.float32, [None, 3])
    y = tw.placeholder(tw.float32, [None, 1])
    z = x + y
    assert z.shape.as_list() == [None, 3]
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([[1.0], [2.0]], dtype=np.float32)
    np.testing.assert_allclose(sess.run(z, {x: a, y: b}), a + b)
    with pytest.raises(tw.errors.InvalidArgumentError):
        sess.run(z, {x: a, y: np.ones((3, 1), np.float32)})


def test_uint8_neg_not_allowed(graph):
    with pytest.raises(TypeError):
        -tw.constant(np.array([1], np.uint8))


# --- matmul -------------------------------------------------------------------

MATMUL_DTYPES = [np.float32, np.float64, np.int32, np.int64]


@pytest.mark.parametrize("dtype", MATMUL_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("transpose_a", [False, True])
@pytest.mark.parametrize("transpose_b", [False, True])
@pytest.mark.parametrize("mkn", [(2, 3, 4), (1, 1, 1), (5, 7, 3), (0, 3, 2), (3, 0, 2)], ids=str)
def test_matmul(sess, rng, dtype, transpose_a, transpose_b, mkn):
    m, k, n = mkn
    a = _values(rng, (m, k), dtype)
    b = _values(rng, (k, n), dtype)
    ta = tw.constant(a.T.copy() if transpose_a else a)
    tb = tw.constant(b.T.copy() if transpose_b else b)
    t = tw.matmul(ta, tb, transpose_a=transpose_a, transpose_b=transpose_b)
    assert t.shape.as_list() == [m, n]
    assert t.dtype == TW_DTYPES[dtype]
    got = sess.run(t)
    if np.dtype(dtype).kind == "f":
        assert got.dtype == dtype and got.shape == (m, n)
        np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-4)
    else:
        _check(got, a @ b, dtype)


def test_matmul_operator(sess, rng):
    a = rng.standard_normal((3, 4)).astype(np.float32)
    b = rng.standard_normal((4, 2)).astype(np.float32)
    ta, tb = tw.constant(a), tw.constant(b)
    np.testing.assert_allclose(sess.run(ta @ tb), a @ b, rtol=1e-5)
    np.testing.assert_allclose(sess.run(a @ tb), a @ b, rtol=1e-5)  # __rmatmul__


def test_matmul_uint8_not_allowed(graph):
    a = tw.constant(np.ones((2, 2), np.uint8))
    with pytest.raises(TypeError):
        tw.matmul(a, a)


def test_matmul_needs_rank_2(graph):
    with pytest.raises(ValueError):
        tw.matmul(tw.constant([1.0, 2.0]), tw.constant([[1.0], [2.0]]))


def test_matmul_runtime_inner_dim_mismatch(sess):
    a = tw.placeholder(tw.float32, [None, None])
    b = tw.placeholder(tw.float32, [None, None])
    c = tw.matmul(a, b)
    with pytest.raises(tw.errors.InvalidArgumentError):
        sess.run(c, {a: np.ones((2, 3)), b: np.ones((4, 2))})

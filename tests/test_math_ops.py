"""Math ops against numpy: element-wise ops with broadcasting, operators,
reductions, arg reductions, matmul dispatch, and their failure paths."""

import numpy as np
import pytest

import tensorweave as tw


def run(fetches, feed_dict=None):
    with tw.Session() as sess:
        return sess.run(fetches, feed_dict)


@pytest.fixture(autouse=True)
def graph():
    with tw.Graph().as_default() as g:
        yield g


RNG = np.random.default_rng(0)
A = RNG.uniform(-3, 3, size=(4, 3)).astype(np.float32)
B = RNG.uniform(0.5, 3, size=(3,)).astype(np.float32)

BINARY = [
    (tw.add, np.add),
    (tw.subtract, np.subtract),
    (tw.multiply, np.multiply),
    (tw.divide, np.divide),
    (tw.realdiv, np.divide),
    (tw.floordiv, np.floor_divide),
    (tw.floormod, np.mod),
    (tw.mod, np.mod),
    (tw.maximum, np.maximum),
    (tw.minimum, np.minimum),
    (tw.squared_difference, lambda x, y: (x - y) ** 2),
    (tw.equal, np.equal),
    (tw.not_equal, np.not_equal),
    (tw.less, np.less),
    (tw.less_equal, np.less_equal),
    (tw.greater, np.greater),
    (tw.greater_equal, np.greater_equal),
]


@pytest.mark.parametrize("fn,ref", BINARY, ids=[f.__name__ for f, _ in BINARY])
def test_binary_ops_broadcast_like_numpy(fn, ref):
    got = run(fn(A, B))
    np.testing.assert_allclose(got, ref(A, B), rtol=1e-6)
    got = run(fn(B.reshape(3, 1), A[:1]))
    np.testing.assert_allclose(got, ref(B.reshape(3, 1), A[:1]), rtol=1e-6)


def test_integer_ops_follow_python():
    x = np.array([7, -7, 7, -7], np.int32)
    y = np.array([2, 2, -2, -2], np.int32)
    np.testing.assert_array_equal(run(tw.floordiv(x, y)), x // y)
    np.testing.assert_array_equal(run(tw.floormod(x, y)), x % y)
    np.testing.assert_array_equal(run(tw.pow(x, 3)), x**3)
    with pytest.raises(tw.errors.InvalidArgumentError, match="division by zero"):
        run(tw.floordiv(tw.constant(x), tw.constant([1, 0, 1, 1])))


UNARY = [
    (tw.abs, np.abs, -3, 3),
    (tw.sign, np.sign, -3, 3),
    (tw.exp, np.exp, -3, 3),
    (tw.log, np.log, 0.1, 3),
    (tw.log1p, np.log1p, 0.1, 3),
    (tw.sqrt, np.sqrt, 0.1, 3),
    (tw.rsqrt, lambda v: 1 / np.sqrt(v), 0.1, 3),
    (tw.square, np.square, -3, 3),
    (tw.reciprocal, np.reciprocal, 0.1, 3),
    (tw.tanh, np.tanh, -3, 3),
    (tw.sigmoid, lambda v: 1 / (1 + np.exp(-v)), -3, 3),
    (tw.floor, np.floor, -3, 3),
    (tw.ceil, np.ceil, -3, 3),
    (tw.negative, np.negative, -3, 3),
]


@pytest.mark.parametrize("fn,ref,lo,hi", UNARY, ids=[f.__name__ for f, *_ in UNARY])
def test_unary_ops_match_numpy(fn, ref, lo, hi):
    x = RNG.uniform(lo, hi, size=(3, 5))
    np.testing.assert_allclose(run(fn(x)), ref(x), rtol=1e-12)
    np.testing.assert_allclose(run(fn(x.astype(np.float32))), ref(x.astype(np.float32)), rtol=1e-5)


def test_round_is_bankers_rounding():
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.4, 2.6], np.float32)
    np.testing.assert_array_equal(run(tw.round(x)), np.round(x))


def test_operators():
    x = tw.constant(A)
    y = tw.constant(B)
    got = run([x // y, x % y, x**2.0, 2.0**y, x < y, x <= 1.0, x > y, x >= 0.0, abs(x), -x, 1.0 - x])
    want = [A // B, A % B, A**2, 2.0**B, A < B, A <= 1, A > B, A >= 0, np.abs(A), -A, 1 - A]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)
    p = tw.constant([True, True, False])
    q = tw.constant([True, False, False])
    np.testing.assert_array_equal(
        run([p & q, p | q, ~p]), [[True, False, False], [True, True, False], [False, False, True]]
    )
    assert (x == x) is True and (x == y) is False  # identity, like TF1


def test_logical_ops_and_where():
    c = np.array([True, False, True])
    np.testing.assert_array_equal(run(tw.logical_and(c, [True, True, False])), [True, False, False])
    np.testing.assert_array_equal(run(tw.logical_or(c, False)), c)
    np.testing.assert_array_equal(run(tw.logical_not(c)), ~c)
    np.testing.assert_array_equal(run(tw.where(c, [1, 2, 3], [10, 20, 30])), [1, 20, 3])
    # TF1: a vector condition picks rows.
    rows = run(tw.where([False, True], [[1, 2], [3, 4]], [[-1, -2], [-3, -4]]))
    np.testing.assert_array_equal(rows, [[-1, -2], [3, 4]])
    np.testing.assert_array_equal(
        run(tw.where_v2([[True], [False]], [1, 2], 0)), np.where([[True], [False]], [1, 2], 0)
    )
    with pytest.raises(ValueError):
        tw.where(c, [1, 2, 3])
    with pytest.raises(ValueError, match="Select"):
        tw.where([True, False, True], [[1, 2], [3, 4]], [[1, 2], [3, 4]])


def test_where_with_condition_only_needs_the_where_op():
    from tensorweave._src.framework import ops

    if "Where" in ops._op_defs():
        np.testing.assert_array_equal(run(tw.where([True, False, True])), [[0], [2]])
    else:
        with pytest.raises(NotImplementedError, match="Where"):
            tw.where([True, False])


def test_add_n_and_clip_by_value():
    xs = [RNG.standard_normal((2, 3)) for _ in range(4)]
    np.testing.assert_allclose(run(tw.add_n(xs)), sum(xs))
    t = np.array([-2.0, 0.5, 3.0])
    np.testing.assert_allclose(run(tw.clip_by_value(t, -1.0, 1.0)), np.clip(t, -1, 1))
    with pytest.raises(ValueError, match="AddN"):
        tw.add_n([tw.constant([1.0, 2.0]), tw.constant([1.0])])
    with pytest.raises(ValueError, match="clip_by_value"):
        tw.clip_by_value(t, [0.0, 1.0], 2.0)


REDUCTIONS = [
    (tw.reduce_sum, np.sum),
    (tw.reduce_mean, np.mean),
    (tw.reduce_max, np.max),
    (tw.reduce_min, np.min),
    (tw.reduce_prod, np.prod),
]


@pytest.mark.parametrize("fn,ref", REDUCTIONS, ids=[f.__name__ for f, _ in REDUCTIONS])
def test_reductions_match_numpy(fn, ref):
    x = RNG.uniform(0.5, 1.5, size=(2, 3, 4))
    for axis in [None, 0, 1, -1, [0, 2], (1, 2), [0, 1, 2], []]:
        for keep in (False, True):
            want = ref(x, axis=tuple(axis) if isinstance(axis, list) else axis, keepdims=keep)
            got = run(fn(x, axis=axis, keepdims=keep))
            np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=f"axis={axis} keep={keep}")
    # TF1 aliases.
    np.testing.assert_allclose(run(fn(x, reduction_indices=[1], keep_dims=True)), ref(x, axis=1, keepdims=True))


def test_bool_reductions_and_unknown_rank():
    b = np.array([[True, False], [True, True]])
    np.testing.assert_array_equal(run(tw.reduce_all(b, 1)), [False, True])
    np.testing.assert_array_equal(run(tw.reduce_any(b, 0)), [True, True])
    p = tw.placeholder(tw.float32)  # rank unknown
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert run(tw.reduce_sum(p), {p: x}) == 15
    assert run(tw.reduce_sum(p, keepdims=True), {p: x}).shape == (1, 1)
    # Axes only known at run time.
    axes = tw.placeholder(tw.int32, [None])
    np.testing.assert_allclose(run(tw.reduce_sum(p, axes), {p: x, axes: [1]}), [3, 12])


def test_bad_reduction_axes_name_the_node():
    x = tw.constant(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="Duplicate"):
        tw.reduce_sum(x, [1, -1])
    with pytest.raises(ValueError, match="my_sum"):
        tw.reduce_sum(x, 2, name="my_sum")
    axes = tw.placeholder(tw.int32, [None])
    with pytest.raises(tw.errors.InvalidArgumentError, match="Invalid reduction dimension"):
        run(tw.reduce_sum(x, axes), {axes: [5]})


def test_argmax_argmin():
    x = RNG.standard_normal((3, 4, 5))
    for axis in (0, 1, 2, -1):
        np.testing.assert_array_equal(run(tw.argmax(x, axis)), np.argmax(x, axis))
        np.testing.assert_array_equal(run(tw.argmin(x, axis=axis)), np.argmin(x, axis))
    out = tw.argmax(x, dimension=1, output_type=tw.int32)
    assert out.dtype == tw.int32 and out.op.type == "ArgMax"
    assert tw.argmin(x, 0).dtype == tw.int64
    with pytest.raises(ValueError):
        tw.argmax(x, 3)


def test_matmul_dispatches_batch_matmul_for_rank_above_two():
    x = RNG.standard_normal((2, 1, 3, 4))
    y = RNG.standard_normal((5, 4, 2))
    z = tw.matmul(x, y)
    assert z.op.type == "BatchMatMulV2"
    assert z.shape.as_list() == [2, 5, 3, 2]
    np.testing.assert_allclose(run(z), np.matmul(x, y), rtol=1e-12)
    zt = tw.matmul(np.swapaxes(x, -1, -2), y, adjoint_a=True)
    np.testing.assert_allclose(run(zt), np.matmul(x, y), rtol=1e-12)
    assert tw.matmul(x[0, 0], y[0]).op.type == "MatMul"
    with pytest.raises(ValueError, match="BatchMatMul"):
        tw.matmul(np.ones((2, 3, 4)), np.ones((3, 4, 2)))


def test_gradients_with_shapes_known_only_at_run_time():
    # Unknown static shapes take the BroadcastGradientArgs path.
    x = tw.placeholder(tw.float64, [None, None])
    y = tw.placeholder(tw.float64, [None])
    z = tw.reduce_sum(x * y + tw.maximum(x, y) - x / y)
    gx, gy = tw.gradients(z, [x, y])
    assert any(op.type == "BroadcastGradientArgs" for op in tw.get_default_graph().get_operations())
    xv, yv = RNG.uniform(1, 2, size=(3, 4)), RNG.uniform(1, 2, size=4)
    got_x, got_y = run([gx, gy], {x: xv, y: yv})
    mask = (xv >= yv).astype(np.float64)
    np.testing.assert_allclose(got_x, yv + mask - 1 / yv)
    np.testing.assert_allclose(got_y, (xv + (1 - mask) + xv / yv**2).sum(0))


def test_gradients_aggregate_with_add_n():
    x = tw.constant(2.0)
    [g] = tw.gradients(x * x + tw.exp(x) + x, [x])
    assert any(op.type == "AddN" for op in tw.get_default_graph().get_operations())
    np.testing.assert_allclose(run(g), 2 * 2.0 + np.exp(2.0) + 1, rtol=1e-6)


def test_math_namespace():
    assert tw.math.reduce_sum is tw.reduce_sum
    assert tw.math.floormod is tw.floormod and tw.math.mod is tw.floormod

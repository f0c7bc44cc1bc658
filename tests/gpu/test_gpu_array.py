"""GPU array, state, gather/scatter and random kernels (core/gpu/kernels/array_ops.cu,
state_ops.cu, gather_scatter_ops.cu, random_ops.cu) against their CPU kernels, and the int32
shape arithmetic that stays in host memory on the GPU (core/kernels/*.cc)."""

import numpy as np
import pytest
import tensorweave as tw

from tests.gpu.gpu_util import assert_gpu_matches_cpu, requires_gpu, run_on, run_recorded

pytestmark = requires_gpu

RNG = np.random.default_rng(7)
FLOATS = [np.float32, np.float64]


def rand(shape, dtype=np.float32):
    if np.dtype(dtype).kind == "f":
        return RNG.standard_normal(shape).astype(dtype)
    if np.dtype(dtype).kind == "b":
        return RNG.random(shape) < 0.5
    return RNG.integers(-50, 50, shape).astype(dtype)


# --- zero-copy reshapes and identities ------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS + [np.int64, np.bool_])
@pytest.mark.parametrize(
    "shape,new", [((2, 3, 4), (6, 4)), ((2, 3, 4), (-1,)), ((0, 3), (3, 0)), ((5,), (5, 1, 1)), ((), (1, 1))]
)
def test_reshape(dtype, shape, new):
    assert_gpu_matches_cpu(lambda x: tw.reshape(x, new), [rand(shape, dtype)], ops=["Reshape"])


@pytest.mark.parametrize("dtype", FLOATS + [np.int64])
def test_expand_dims_squeeze_identity(dtype):
    x = rand((3, 1, 4, 1), dtype)

    def build(x):
        return [
            tw.expand_dims(x, 0),
            tw.expand_dims(x, -1),
            tw.squeeze(x),
            tw.squeeze(x, [1]),
            tw.identity(x),
            tw.stop_gradient(x) + x,
        ]

    assert_gpu_matches_cpu(build, [x], ops=["ExpandDims", "Squeeze", "Identity", "StopGradient"])


def test_placeholder_with_default_and_identity_n():
    def build(x):
        d = tw.placeholder_with_default(tw.constant(np.arange(6, dtype=np.float32).reshape(2, 3)), [2, 3])
        a, b = tw.identity_n([x, d])
        return [a * 2.0, b + 1.0]

    assert_gpu_matches_cpu(build, [rand((2, 3))], ops=["PlaceholderWithDefault", "IdentityN"])


@pytest.mark.parametrize("dtype", FLOATS + [np.int64, np.bool_])
def test_const(dtype):
    value = rand((3, 5), dtype)
    empty = np.zeros((0, 2), dtype)
    assert_gpu_matches_cpu(
        lambda x: [tw.identity(tw.constant(value)), tw.identity(tw.constant(empty)), tw.identity(x)],
        [rand((2,), np.float32)],
        ops=["Const"],
        grads=False,
    )


def test_const_is_reused_across_runs():
    g = tw.Graph()
    with g.as_default(), tw.device("/gpu:0"):
        c = tw.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
        y = c * 2.0
    with tw.Session(graph=g) as sess:
        for _ in range(3):
            np.testing.assert_array_equal(sess.run(y), np.arange(12, dtype=np.float32).reshape(3, 4) * 2)


# --- transpose, slices, tile, pad -----------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS + [np.int64, np.bool_])
@pytest.mark.parametrize(
    "shape,perm",
    [
        ((3, 4), (1, 0)),
        ((70, 130), (1, 0)),
        ((3, 33, 65), (0, 2, 1)),
        ((2, 3, 4), (2, 0, 1)),
        ((2, 3, 4, 5, 1), (4, 3, 0, 2, 1)),
        ((0, 3), (1, 0)),
        ((4,), (0,)),
    ],
)
def test_transpose(dtype, shape, perm):
    assert_gpu_matches_cpu(lambda x: tw.transpose(x, perm), [rand(shape, dtype)], ops=["Transpose"])


def test_transpose_rank8_and_bad_perm():
    x = rand((2, 1, 2, 3, 1, 2, 2, 1))
    perm = (7, 6, 5, 4, 3, 2, 1, 0)
    assert_gpu_matches_cpu(lambda x: tw.transpose(x, perm), [x], ops=["Transpose"])
    g = tw.Graph()
    with g.as_default(), tw.device("/gpu:0"):
        p = tw.placeholder(tw.int32, [2])
        y = tw.transpose(tw.constant(rand((2, 3))), p)
    with tw.Session(graph=g) as sess, pytest.raises(tw.errors.InvalidArgumentError, match="repeated"):
        sess.run(y, {p: [0, 0]})


@pytest.mark.parametrize("dtype", FLOATS + [np.int64])
def test_slice(dtype):
    x = rand((4, 5, 6), dtype)
    assert_gpu_matches_cpu(
        lambda x: [
            tw.slice(x, [1, 0, 2], [2, -1, 3]),
            tw.slice(x, [0, 0, 0], [4, 5, 6]),
            tw.slice(x, [4, 0, 0], [0, 5, 6]),
        ],
        [x],
        ops=["Slice"],
    )


@pytest.mark.parametrize("dtype", FLOATS + [np.int64])
def test_strided_slice_and_grad(dtype):
    x = rand((5, 6, 7), dtype)

    def build(x):
        return [x[1:4], x[::-2, 1, ::3], x[..., tw.newaxis, 2:], x[-1], x[3:1]]

    # (the graph optimizer may rewrite StridedSliceGrad; the gradients are compared either way)
    assert_gpu_matches_cpu(build, [x], ops=["StridedSlice"])


def test_strided_slice_zero_stride():
    g = tw.Graph()
    with g.as_default(), tw.device("/gpu:0"):
        x = tw.constant(rand((3, 4)))
        st = tw.placeholder(tw.int32, [2])
        y = tw.strided_slice(x, [0, 0], [3, 4], st)
    config = tw.ConfigProto(allow_soft_placement=True)
    with tw.Session(graph=g, config=config) as sess, pytest.raises(tw.errors.InvalidArgumentError):
        sess.run(y, {st: [1, 0]})  # a zero stride


@pytest.mark.parametrize("dtype", FLOATS + [np.int64, np.bool_])
def test_tile(dtype):
    assert_gpu_matches_cpu(
        lambda x: [tw.tile(x, [2, 1, 3]), tw.tile(x, [1, 0, 1])], [rand((2, 3, 4), dtype)], ops=["Tile"]
    )


@pytest.mark.parametrize("dtype", FLOATS + [np.int64])
def test_pad(dtype):
    x = rand((2, 3, 4), dtype)
    assert_gpu_matches_cpu(
        lambda x: [
            tw.pad(x, [[1, 0], [0, 2], [3, 1]]),
            tw.pad(x, [[0, 0], [0, 0], [0, 0]]),
            tw.pad(x, [[1, 1], [1, 1], [0, 0]], constant_values=5),
        ],
        [x],
        ops=["Pad"],
    )


# --- concat, pack, split ---------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS + [np.int64, np.bool_])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat(dtype, axis):
    a, b, c = rand((2, 3, 4), dtype), rand((2, 3, 4), dtype), rand((2, 3, 4), dtype)
    if axis == 1:
        b = rand((2, 0, 4), dtype)
    assert_gpu_matches_cpu(lambda a, b, c: tw.concat([a, b, c], axis), [a, b, c], ops=["ConcatV2"])


def test_concat_bad_shapes_same_error_as_cpu():
    for device in ["/cpu:0", "/gpu:0"]:
        g = tw.Graph()
        with g.as_default(), tw.device(device):
            a = tw.placeholder(tw.float32, None)
            y = tw.concat([a, tw.constant(rand((2, 3)))], 0)
        with tw.Session(graph=g) as sess, pytest.raises(tw.errors.InvalidArgumentError, match="Dimension 1"):
            sess.run(y, {a: rand((2, 4))})


@pytest.mark.parametrize("dtype", FLOATS + [np.int64])
@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_stack_unstack(dtype, axis):
    a, b = rand((3, 4), dtype), rand((3, 4), dtype)
    assert_gpu_matches_cpu(
        lambda a, b: [tw.stack([a, b], axis)] + tw.unstack(tw.stack([a, b], axis), axis=axis),
        [a, b],
        ops=["Pack", "Unpack"],
    )


@pytest.mark.parametrize("dtype", FLOATS + [np.int64])
def test_split(dtype):
    x = rand((4, 6, 2), dtype)
    assert_gpu_matches_cpu(
        lambda x: tw.split(x, 3, axis=1) + tw.split(x, [1, -1, 0], axis=0), [x], ops=["Split", "SplitV"]
    )


# --- fill, one_hot ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS + [np.int64, np.bool_])
def test_fill(dtype):
    value = np.asarray(rand((), dtype))
    assert_gpu_matches_cpu(lambda v: [tw.fill([2, 3], v), tw.fill([0, 3], v)], [value], ops=["Fill"], grads=False)


@pytest.mark.parametrize("axis", [-1, 0, 1])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_one_hot(axis, index_dtype):
    idx = np.array([[0, 3, -1], [2, 9, 1]], index_dtype)  # -1 and 9 are out of range: all off
    assert_gpu_matches_cpu(
        lambda i: [
            tw.one_hot(i, 4, axis=axis),
            tw.one_hot(i, 4, on_value=2.5, off_value=-1.0, axis=axis, dtype=tw.float64),
        ],
        [idx],
        ops=["OneHot"],
    )


# --- gather / scatter ------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS + [np.int32, np.int64])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_gather(dtype, index_dtype, axis):
    # (p * 1.0: the gradient of gather is IndexedSlices, which Mul's gradient makes dense)
    params = rand((5, 4, 3), dtype)
    limit = params.shape[axis]
    idx = RNG.integers(0, limit, (2, 3)).astype(index_dtype)
    assert_gpu_matches_cpu(lambda p, i: tw.gather(p * tw.ones_like(p), i, axis=axis), [params, idx], ops=["GatherV2"])


def test_gather_gradient_uses_unsorted_segment_sum():
    params = rand((6, 3))
    idx = np.array([0, 2, 2, 5, 0], np.int32)  # repeated indices: their gradients add
    assert_gpu_matches_cpu(
        lambda p, i: tw.gather(p * 1.0, i) * 3.0, [params, idx], ops=["GatherV2", "UnsortedSegmentSum"], rtol=1e-5
    )


def test_gather_out_of_range_gives_zeros_on_gpu():
    """TF's GPU kernel does not check indices on the host: an out-of-range index gathers zeros."""
    params = rand((4, 2))
    out, _, ops = run_on("/gpu:0", lambda p, i: tw.gather(p, i), [params, np.array([1, 7, -1], np.int32)], grads=False)
    assert "GatherV2" in ops
    np.testing.assert_array_equal(out[0], np.stack([params[1], np.zeros(2), np.zeros(2)]).astype(np.float32))


@pytest.mark.parametrize("dtype", FLOATS)
def test_unsorted_segment_sum(dtype):
    data = rand((6, 3), dtype)
    ids = np.array([0, 2, 2, -1, 4, 0], np.int32)  # -1 dropped
    assert_gpu_matches_cpu(
        lambda d, i: tw.unsorted_segment_sum(d, i, 5), [data, ids], ops=["UnsortedSegmentSum"], grads=False
    )


def _run_var_program(device, dtype, fn, ops=()):
    """The fetches of fn() run one by one; on a GPU, each op type in `ops` must have run there."""
    g = tw.Graph()
    with g.as_default(), tw.device(device):
        fetches = fn()
        init = tw.global_variables_initializer()
    with tw.Session(graph=g, config=tw.ConfigProto(allow_soft_placement=True)) as sess:
        sess.run(init)
        values, ran = [], set()
        for f in fetches:
            value, types = run_recorded(sess, f)
            values.append(value)
            ran |= types
    if "gpu" in device:
        assert not set(ops) - ran, f"not run on the GPU: {sorted(set(ops) - ran)}"
    return values


@pytest.mark.parametrize("dtype", FLOATS)
def test_scatter_ops_match_cpu(dtype):
    init = rand((5, 3), dtype)
    upd = rand((4, 3), dtype)

    def fn():
        v = tw.Variable(init)
        idx = tw.constant(np.array([4, 0, 4, 2], np.int32))
        return [
            tw.scatter_add(v, idx, upd),  # repeated index 4: both added
            tw.scatter_sub(v, idx, upd * 0.5),
            tw.scatter_update(v, tw.constant(np.array([1, 3], np.int64)), upd[:2]),
            v.read_value(),
        ]

    cpu = _run_var_program("/cpu:0", dtype, fn)
    gpu = _run_var_program("/gpu:0", dtype, fn, ops=["ScatterAdd", "ScatterSub", "ScatterUpdate"])
    for c, g_ in zip(cpu, gpu):
        np.testing.assert_allclose(g_, c, rtol=1e-6, atol=1e-6)


# --- variables -------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS + [np.int64])
def test_variables_assign_add_sub(dtype):
    init = rand((3, 4), dtype)
    delta = rand((3, 4), dtype)

    def fn():
        v = tw.Variable(init)
        return [
            tw.assign_add(v, delta),
            tw.assign_sub(v, delta * 3),
            tw.assign(v, delta),
            v.read_value(),
            tw.is_variable_initialized(v),
        ]

    cpu = _run_var_program("/cpu:0", dtype, fn)
    gpu = _run_var_program("/gpu:0", dtype, fn, ops=["AssignAdd", "AssignSub", "Assign", "IsVariableInitialized"])
    for c, g_ in zip(cpu, gpu):
        np.testing.assert_array_equal(g_, c)
    np.testing.assert_array_equal(gpu[3], delta)


def test_assign_in_place_keeps_snapshot_semantics():
    """Assign writes into the variable's buffer from step to step; a value read before the assign in
    the same step keeps the old contents (copy on write when a snapshot shares the buffer)."""
    g = tw.Graph()
    with g.as_default(), tw.device("/gpu:0"):
        v = tw.Variable(np.zeros((64, 64), np.float32))
        x = tw.placeholder(tw.float32, [64, 64])
        old = tw.identity(v) * 1.0
        with tw.control_dependencies([old]):
            a = tw.assign(v, x)
        init = tw.global_variables_initializer()
    with tw.Session(graph=g) as sess:
        sess.run(init)
        prev = np.zeros((64, 64), np.float32)
        for step in range(4):
            value = np.full((64, 64), step + 1, np.float32)
            got_old, got_new = sess.run([old, a], {x: value})
            np.testing.assert_array_equal(got_old, prev)
            np.testing.assert_array_equal(got_new, value)
            np.testing.assert_array_equal(sess.run(v), value)
            prev = value


def test_assign_validate_shape_error():
    g = tw.Graph()
    with g.as_default(), tw.device("/gpu:0"):
        v = tw.Variable(np.zeros((2, 2), np.float32))
        x = tw.placeholder(tw.float32, None)
        a = tw.assign(v, x)
    with tw.Session(graph=g) as sess:
        sess.run(v.initializer)
        with pytest.raises(tw.errors.InvalidArgumentError, match="shapes of both tensors"):
            sess.run(a, {x: np.zeros((3,), np.float32)})


def test_uninitialized_variable_error():
    g = tw.Graph()
    with g.as_default(), tw.device("/gpu:0"):
        v = tw.Variable(np.zeros((2,), np.float32))
        a = tw.assign_add(v, np.ones((2,), np.float32))
    with tw.Session(graph=g) as sess, pytest.raises(tw.errors.FailedPreconditionError):
        sess.run(a)


# --- random ----------------------------------------------------------------------------------


def _draw(device, op, shape, dtype=tw.float32, seed=5, runs=2):
    g = tw.Graph()
    with g.as_default():
        tw.set_random_seed(seed)
        with tw.device(device):
            r = op(shape, dtype=dtype)
            y = r * 1.0
    with tw.Session(graph=g) as sess:
        return [run_recorded(sess, y)[0] for _ in range(runs)]


@pytest.mark.parametrize("dtype", [tw.float32, tw.float64])
def test_random_uniform_same_numbers_as_cpu(dtype):
    cpu = _draw("/cpu:0", tw.random_uniform, [1001], dtype)
    gpu = _draw("/gpu:0", tw.random_uniform, [1001], dtype)
    for c, g_ in zip(cpu, gpu):
        np.testing.assert_array_equal(g_, c)  # the same Philox stream, run after run
    assert not np.array_equal(gpu[0], gpu[1])


def test_random_normal_same_numbers_as_cpu():
    cpu = _draw("/cpu:0", tw.random_normal, [3, 333])
    gpu = _draw("/gpu:0", tw.random_normal, [3, 333])
    for c, g_ in zip(cpu, gpu):
        np.testing.assert_allclose(g_, c, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [tw.float32, tw.float64])
def test_random_statistics(dtype):
    n = 200_000
    u = _draw("/gpu:0", tw.random_uniform, [n], dtype, runs=1)[0]
    assert u.min() >= 0 and u.max() < 1
    assert abs(u.mean() - 0.5) < 0.01 and abs(u.std() - np.sqrt(1 / 12)) < 0.01
    z = _draw("/gpu:0", tw.random_normal, [n], dtype, runs=1)[0]
    assert abs(z.mean()) < 0.01 and abs(z.std() - 1) < 0.01
    t = _draw("/gpu:0", tw.truncated_normal, [n], dtype, runs=1)[0]
    assert np.abs(t).max() <= 2.0
    # the standard normal truncated to [-2, 2] has std 0.8796
    assert abs(t.mean()) < 0.01 and abs(t.std() - 0.8796) < 0.01
    assert len(np.unique(t)) > n * 0.99


def test_random_same_seed_reproducible_and_empty():
    a = _draw("/gpu:0", tw.truncated_normal, [77], seed=3)
    b = _draw("/gpu:0", tw.truncated_normal, [77], seed=3)
    c = _draw("/gpu:0", tw.truncated_normal, [77], seed=4)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], a[1]) and not np.array_equal(a[0], c[0])
    assert _draw("/gpu:0", tw.random_uniform, [0, 3], runs=1)[0].shape == (0, 3)


# --- int32 shape arithmetic in host memory ---------------------------------------------------


def _mean_grad_step(device, x, b):
    g = tw.Graph()
    with g.as_default(), tw.device(device):
        # Unknown shapes: the gradient's shape arithmetic cannot be folded away.
        xp = tw.placeholder(tw.float32, None)
        bp = tw.placeholder(tw.float32, None)
        loss = tw.reduce_mean(tw.reshape(xp + bp, [-1, 4]) * 2.0)
        grads = tw.gradients(loss, [xp, bp])
    with tw.Session(graph=g) as sess:
        return run_recorded(sess, grads, {xp: x, bp: b})


def test_gradient_shape_arithmetic_on_gpu():
    """The gradients of broadcasting, Reshape and reduce_mean emit int32 Shape,
    BroadcastGradientArgs, Prod, Maximum, FloorDiv...: they run as GPU kernels in host memory
    (no soft placement here), and the step agrees with the CPU."""
    x, b = rand((3, 2, 4)), rand((4,))
    cpu, _ = _mean_grad_step("/cpu:0", x, b)
    gpu, ops = _mean_grad_step("/gpu:0", x, b)
    assert {"Shape", "BroadcastGradientArgs", "Reshape"} <= ops, sorted(ops)
    for c, g_ in zip(cpu, gpu):
        np.testing.assert_allclose(g_, c, rtol=1e-6, atol=1e-6)


def test_gather_v1_range_and_rank_run_on_the_gpu():
    """The kernels no other GPU test reaches: Gather (TF1's, before GatherV2), and Range and Rank (int32
    shape arithmetic, registered for the GPU in host memory), fed so that nothing folds them away."""
    params = rand((5, 3))
    g = tw.Graph()
    with g.as_default(), tw.device("/gpu:0"):
        n = tw.placeholder(tw.int32, [])
        x = tw.placeholder(tw.float32)  # unknown rank: Rank is computed when the step runs
        p = tw.placeholder(tw.float32, [5, 3])
        idx = tw.placeholder(tw.int32, [3])
        outs = [tw.range(1, n, 2), tw.rank(x), tw.raw_ops.Gather(params=p * 1.0, indices=idx)]
    with tw.Session(graph=g, config=tw.ConfigProto(allow_soft_placement=True)) as sess:
        values, ran = run_recorded(sess, outs, {n: 8, x: np.zeros((2, 3, 4), np.float32), p: params, idx: [4, 1, 4]})
    assert {"Range", "Rank", "Gather"} <= ran, sorted(ran)
    np.testing.assert_array_equal(values[0], [1, 3, 5, 7])
    assert values[1] == 3
    np.testing.assert_array_equal(values[2], params[[4, 1, 4]])

"""GPU matrix products (core/gpu/kernels/matmul_ops.cu) against the CPU kernels: MatMul with every
transpose combination, empty dims (k = 0 gives zeros, m or n = 0 an empty result), float32 and
float64; BatchMatMulV2 with adj_x/adj_y and numpy batch broadcasting (one operand unbatched, [2,1]
x [1,3] mixed broadcasting, size-0 batches); FusedMatMulApplyGradientDescent (one GEMM into the
variable with alpha = -lr in device memory) against numpy, repeated so the variable accumulates;
and bad shapes giving the CPU's error class. Skips without a GPU."""

import numpy as np
import pytest
import tensorweave as tw
from tensorweave._src.ops import training_ops

from tests.gpu.gpu_util import assert_gpu_matches_cpu, error_class, requires_gpu, run_recorded

pytestmark = requires_gpu

RTOL = {np.float32: 1e-4, np.float64: 1e-10}


def rand(shape, dtype, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (3, 5, 7), (64, 33, 17), (128, 256, 96)])
def test_matmul(dtype, ta, tb, m, k, n):
    a = rand((k, m) if ta else (m, k), dtype, 1)
    b = rand((n, k) if tb else (k, n), dtype, 2)
    assert_gpu_matches_cpu(
        lambda x, y: tw.matmul(x, y, transpose_a=ta, transpose_b=tb),
        [a, b],
        ops=["MatMul"],
        rtol=RTOL[dtype],
        atol=RTOL[dtype],
    )


@pytest.mark.parametrize("m,k,n", [(3, 0, 4), (0, 3, 4), (3, 4, 0), (0, 0, 0)])
def test_matmul_empty_dims(m, k, n):
    a = rand((m, k), np.float32)
    b = rand((k, n), np.float32)
    assert_gpu_matches_cpu(lambda x, y: tw.matmul(x, y), [a, b], ops=["MatMul"], grads=False)
    # k = 0: zeros, not uninitialized memory.
    with tw.Graph().as_default(), tw.device("/gpu:0"):
        out = tw.matmul(tw.constant(a), tw.constant(b))
        with tw.Session() as sess:
            value = sess.run(out)
    np.testing.assert_array_equal(value, np.zeros((m, n), np.float32))


def test_matmul_large_against_numpy():
    # 512^3: a cuBLAS GEMM with several tiles, checked against float64 numpy (TF32 would miss 1e-4).
    a = rand((512, 512), np.float32, 3)
    b = rand((512, 512), np.float32, 4)
    with tw.Graph().as_default(), tw.device("/gpu:0"):
        out = tw.matmul(tw.constant(a), tw.constant(b))
        with tw.Session() as sess:
            value = sess.run(out)
    expect = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(value, expect, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "xs,ys",
    [
        ((2, 3, 4), (2, 4, 5)),  # same batch
        ((4, 3, 4), (4, 5)),  # y unbatched: stride 0
        ((3, 4), (2, 3, 4, 5)),  # x unbatched, rank 4
        ((2, 1, 3, 4), (1, 3, 4, 5)),  # mixed broadcasting: one GEMM per batch
        ((5, 1, 2, 3), (1, 4, 3, 2)),
        ((0, 3, 4), (0, 4, 5)),  # empty batch
        ((2, 3, 0), (2, 0, 5)),  # k = 0
        ((1, 2, 1, 3, 4), (2, 1, 2, 4, 3)),  # rank 5
    ],
)
def test_batch_matmul_broadcasting(dtype, xs, ys):
    x = rand(xs, dtype, 5)
    y = rand(ys, dtype, 6)
    assert_gpu_matches_cpu(
        lambda a, b: tw.matmul(a, b), [x, y], ops=["BatchMatMulV2"], rtol=RTOL[dtype], atol=RTOL[dtype]
    )


@pytest.mark.parametrize("adj_x", [False, True])
@pytest.mark.parametrize("adj_y", [False, True])
def test_batch_matmul_adjoints(adj_x, adj_y):
    x = rand((3, 4, 5) if adj_x else (3, 5, 4), np.float32, 7)
    y = rand((3, 6, 4) if adj_y else (3, 4, 6), np.float32, 8)
    assert_gpu_matches_cpu(
        lambda a, b: tw.matmul(a, b, adjoint_a=adj_x, adjoint_b=adj_y),
        [x, y],
        ops=["BatchMatMulV2"],
        rtol=1e-4,
        atol=1e-4,
    )


@pytest.mark.parametrize(
    "xs,ys,batch",
    [((3, 4), (5, 6), False), ((3,), (3, 4), False), ((2, 3, 4), (2, 5, 6), True), ((2, 3, 4), (3, 4, 5), True)],
)
def test_bad_shapes_same_error_class(xs, ys, batch):
    x, y = rand(xs, np.float32), rand(ys, np.float32)
    fn = tw.matmul
    cpu = error_class("/cpu:0", fn, [x, y])
    gpu = error_class("/gpu:0", fn, [x, y])
    assert cpu is not None and cpu is tw.errors.InvalidArgumentError, cpu
    assert gpu is cpu, (gpu, cpu)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_fused_matmul_apply_gradient_descent(dtype, ta, tb):
    m, k, n = 6, 5, 4
    var0 = rand((m, n), dtype, 9)
    a = rand((k, m) if ta else (m, k), dtype, 10)
    b = rand((n, k) if tb else (k, n), dtype, 11)
    lr = dtype(0.25)
    with tw.Graph().as_default() as g:
        with tw.device("/gpu:0"):
            v = tw.Variable(var0)
            lr_t = tw.placeholder(tw.as_dtype(dtype), [])
            update = training_ops.fused_matmul_apply_gradient_descent(
                v, lr_t, tw.constant(a), tw.constant(b), transpose_a=ta, transpose_b=tb
            )
        with tw.Session(graph=g) as sess:
            sess.run(v.initializer)
            first, ran = run_recorded(sess, update, {lr_t: lr})
            assert "FusedMatMulApplyGradientDescent" in ran
            # A different lr each step: alpha is read from device memory every run.
            second = sess.run(update, feed_dict={lr_t: 2 * lr})
            final = sess.run(v)
    prod = (a.T if ta else a).astype(np.float64) @ (b.T if tb else b).astype(np.float64)
    want1 = var0 - lr * prod
    want2 = want1 - 2 * lr * prod
    tol = RTOL[dtype]
    np.testing.assert_allclose(first, want1, rtol=tol, atol=tol)
    np.testing.assert_allclose(second, want2, rtol=tol, atol=tol)
    np.testing.assert_allclose(final, want2, rtol=tol, atol=tol)


def test_fused_matmul_apply_keeps_snapshot():
    # A value read before the update keeps its numbers (copy on write when shared).
    var0 = rand((3, 3), np.float32, 12)
    a = rand((3, 2), np.float32, 13)
    b = rand((2, 3), np.float32, 14)
    with tw.Graph().as_default() as g:
        with tw.device("/gpu:0"):
            v = tw.Variable(var0)
            before = tw.identity(v.read_value() if hasattr(v, "read_value") else v)
            with tw.control_dependencies([before]):
                update = training_ops.fused_matmul_apply_gradient_descent(v, 1.0, tw.constant(a), tw.constant(b))
        with tw.Session(graph=g) as sess:
            sess.run(v.initializer)
            seen, after = sess.run([before, update])
    np.testing.assert_allclose(seen, var0, rtol=1e-6)
    np.testing.assert_allclose(after, var0 - a @ b, rtol=1e-4, atol=1e-5)


def test_fused_matmul_apply_uninitialized_is_failed_precondition():
    with tw.Graph().as_default() as g:
        with tw.device("/gpu:0"):
            v = tw.Variable(np.zeros((2, 2), np.float32))
            update = training_ops.fused_matmul_apply_gradient_descent(
                v, 1.0, tw.constant(np.ones((2, 3), np.float32)), tw.constant(np.ones((3, 2), np.float32))
            )
        with tw.Session(graph=g) as sess, pytest.raises(tw.errors.FailedPreconditionError, match="uninitialized"):
            sess.run(update)

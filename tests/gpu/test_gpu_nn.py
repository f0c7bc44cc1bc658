"""GPU activations and their gradients, softmax / log-softmax, the cross-entropy ops, BiasAdd and
BiasAddGrad, L2Loss (core/gpu/kernels/{cwise_ops,softmax_ops,bias_ops,reduction_ops}.cu) against
the CPU kernels, forward and gradient, plus the GPU's documented difference: a sparse label out of
range gives NaN for its row (the CPU raises InvalidArgument). Skips without a GPU."""

import numpy as np
import pytest
import tensorweave as tw

from tests.gpu.gpu_util import assert_gpu_matches_cpu, requires_gpu
from tests.gpu.test_gpu_math import assert_same_error

pytestmark = requires_gpu

RNG = np.random.default_rng(99)

SHAPES = [(), (7,), (0, 3), (4, 6), (2, 3, 4, 5, 2)]


def _normal(shape, dtype=np.float32, scale=3.0):
    return np.asarray(RNG.standard_normal(shape) * scale).astype(dtype)


ACTIVATIONS = [
    ("relu", lambda x: tw.nn.relu(x), ["Relu", "ReluGrad"], [np.float32, np.float64, np.int64]),
    ("relu6", lambda x: tw.nn.relu6(x), ["Relu6", "Relu6Grad"], [np.float32, np.float64, np.int64]),
    ("elu", lambda x: tw.nn.elu(x), ["Elu", "EluGrad"], [np.float32, np.float64]),
    ("softplus", lambda x: tw.nn.softplus(x), ["Softplus", "SoftplusGrad"], [np.float32, np.float64]),
    ("leaky_relu", lambda x: tw.nn.leaky_relu(x, alpha=0.3), ["LeakyRelu", "LeakyReluGrad"], [np.float32, np.float64]),
    ("tanh", lambda x: tw.tanh(x), ["Tanh", "TanhGrad"], [np.float32, np.float64]),
    ("sigmoid", lambda x: tw.sigmoid(x), ["Sigmoid", "SigmoidGrad"], [np.float32, np.float64]),
]


def _activation_cases():
    for name, fn, ops, dtypes in ACTIVATIONS:
        for dtype in dtypes:
            for shape in SHAPES if dtype == np.float32 else [(4, 6)]:
                yield pytest.param(fn, ops, dtype, shape, id=f"{name}-{np.dtype(dtype).name}-{shape}")


@pytest.mark.parametrize("fn,ops,dtype,shape", list(_activation_cases()))
def test_activation_forward_and_gradient(fn, ops, dtype, shape):
    if np.dtype(dtype).kind == "i":
        x = RNG.integers(-8, 9, size=shape).astype(dtype)
        ops = ops[:1]  # no gradient for integers
    else:
        x = _normal(shape, dtype)
        x[np.abs(x) < 1e-3] = 0.5  # away from the kinks
        if x.size == 0:
            ops = ops[:1]
    assert_gpu_matches_cpu(fn, [x], ops=ops, rtol=2e-5, atol=1e-6)


def test_relu6_and_relu_at_their_kinks_and_nan():
    x = np.array([-1.0, 0.0, 3.0, 6.0, 7.0, np.nan], np.float32)
    assert_gpu_matches_cpu(lambda a: [tw.nn.relu(a), tw.nn.relu6(a)], [x], ops=["Relu", "Relu6"], grads=False)
    g = _normal((6,))
    grad_ops = ["ReluGrad", "Relu6Grad"]
    assert_gpu_matches_cpu(
        lambda gg, a: [
            tw.raw_ops.ReluGrad(gradients=gg, features=a),
            tw.raw_ops.Relu6Grad(gradients=gg, features=a),
        ],
        [g, np.nan_to_num(x, nan=2.0)],
        ops=grad_ops,
        grads=False,
    )


def test_softplus_large_magnitudes_are_stable():
    x = np.array([-100.0, -20.0, 0.0, 20.0, 100.0], np.float32)
    assert_gpu_matches_cpu(lambda a: tw.nn.softplus(a), [x], ops=["Softplus", "SoftplusGrad"])


SOFTMAX_SHAPES = [(5,), (4, 10), (2, 3, 7), (3, 1), (0, 10), (3, 0), (16, 1000), (2, 5000)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SOFTMAX_SHAPES, ids=[str(s) for s in SOFTMAX_SHAPES])
def test_softmax_and_log_softmax(shape, dtype):
    x = _normal(shape, dtype)
    ops = ["Softmax", "LogSoftmax"]
    # The gradients subtract row sums over up to 5000 terms of order 1: float32 rounding of those
    # sums (summed in another order on each device) is ~1e-6 absolute.
    atol = 1e-5 if dtype == np.float32 else 1e-12
    assert_gpu_matches_cpu(lambda a: [tw.nn.softmax(a), tw.nn.log_softmax(a)], [x], ops=ops, rtol=1e-5, atol=atol)


def test_softmax_is_stable_for_large_logits():
    x = np.array([[1000.0, 999.0, -1000.0], [-1e30, 0.0, 1e30]], np.float32)
    assert_gpu_matches_cpu(
        lambda a: [tw.nn.softmax(a), tw.nn.log_softmax(a)], [x], ops=["Softmax", "LogSoftmax"], grads=False
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(4, 10), (1, 3), (0, 5), (64, 1000)])
def test_softmax_cross_entropy_dense(shape, dtype):
    logits = _normal(shape, dtype)
    labels = np.asarray(RNG.random(shape)).astype(dtype)
    if labels.size:
        labels /= labels.sum(axis=1, keepdims=True)
        labels[:, 0] = 0  # exact zeros skip the log term, as the CPU
    assert_gpu_matches_cpu(
        lambda lg, lb: tw.nn.softmax_cross_entropy_with_logits_v2(labels=lb, logits=lg),
        [logits, labels],
        ops=["SoftmaxCrossEntropyWithLogits"],
        rtol=1e-5,
        atol=1e-5,
    )


@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(4, 10), (1, 1), (0, 5), (128, 1000)])
def test_sparse_softmax_cross_entropy(shape, dtype, label_dtype):
    logits = _normal(shape, dtype)
    labels = RNG.integers(0, max(shape[1], 1), size=shape[0]).astype(label_dtype)
    assert_gpu_matches_cpu(
        lambda lg, lb: tw.nn.sparse_softmax_cross_entropy_with_logits(labels=lb, logits=lg),
        [logits, labels],
        ops=["SparseSoftmaxCrossEntropyWithLogits"],
        rtol=1e-5,
        atol=1e-5,
    )


def _sparse_xent_raw(device, logits, labels):
    graph = tw.Graph()
    with graph.as_default():
        with tw.device(device):
            lg = tw.placeholder(tw.float32, logits.shape)
            lb = tw.placeholder(tw.as_dtype(labels.dtype), labels.shape)
            loss, backprop = tw.raw_ops.SparseSoftmaxCrossEntropyWithLogits(features=lg, labels=lb)
        with tw.Session(graph=graph, config=tw.ConfigProto(allow_soft_placement=True)) as sess:
            return sess.run([loss, backprop], {lg: logits, lb: labels})


@pytest.mark.parametrize("bad", [-1, 5, 1 << 40])
def test_sparse_xent_out_of_range_label_is_nan_on_gpu_invalid_argument_on_cpu(bad):
    """TF's GPU kernel cannot report a device-memory label without a sync: the bad row is NaN (loss
    and backprop); the other rows are exact. The CPU kernel raises InvalidArgument."""
    logits = _normal((3, 5))
    label_dtype = np.int64 if bad > 1 << 31 else np.int32
    labels = np.array([1, bad, 4], label_dtype)
    with pytest.raises(tw.errors.InvalidArgumentError, match="label value"):
        _sparse_xent_raw("/cpu:0", logits, labels)
    loss, backprop = _sparse_xent_raw("/gpu:0", logits, labels)
    assert np.isnan(loss[1]) and np.all(np.isnan(backprop[1])), (loss, backprop)
    good = np.array([1, 0, 4], label_dtype)
    ref_loss, ref_backprop = _sparse_xent_raw("/cpu:0", logits, good)
    np.testing.assert_allclose(loss[[0, 2]], ref_loss[[0, 2]], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(backprop[[0, 2]], ref_backprop[[0, 2]], rtol=1e-5, atol=1e-6)


BIAS_CASES = [
    ("NHWC", (4, 3)),
    ("NHWC", (2, 5, 5, 8)),
    ("NHWC", (0, 3)),
    ("NHWC", (2, 3, 4, 2, 6)),
    ("NHWC", (20000, 6)),
    ("NCHW", (2, 8, 5, 5)),
    ("NCHW", (3, 4, 1)),
    ("NCHW", (2, 3, 7, 0)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fmt,shape", BIAS_CASES, ids=[f"{f}-{s}" for f, s in BIAS_CASES])
def test_bias_add_and_grad(fmt, shape, dtype):
    channels = shape[-1] if fmt == "NHWC" else shape[-3]
    x = _normal(shape, dtype)
    b = _normal((channels,), dtype)
    tol = 1e-5 * max(1.0, float(np.abs(x).sum()) / max(channels, 1))
    assert_gpu_matches_cpu(
        lambda a, bb: tw.nn.bias_add(a, bb, data_format=fmt), [x, b], ops=["BiasAdd"], rtol=1e-5, atol=tol
    )
    # BiasAddGrad on a fed gradient (the harness's own gradient of BiasAdd may be simplified to a Sum).
    assert_gpu_matches_cpu(
        lambda g: tw.raw_ops.BiasAddGrad(out_backprop=g, data_format=fmt),
        [x],
        ops=["BiasAddGrad"],
        rtol=1e-5,
        atol=tol,
        grads=False,
    )


def test_bias_add_int64_forward():
    x = RNG.integers(-50, 50, size=(3, 4)).astype(np.int64)
    b = RNG.integers(-50, 50, size=(4,)).astype(np.int64)
    assert_gpu_matches_cpu(lambda a, bb: tw.nn.bias_add(a, bb), [x, b], ops=["BiasAdd"])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (0,), (7, 3), (300, 300)])
def test_l2_loss(shape, dtype):
    x = _normal(shape, dtype, 1.0)
    tol = 1e-5 * max(1.0, float((x.astype(np.float64) ** 2).sum()))
    assert_gpu_matches_cpu(lambda a: tw.nn.l2_loss(a), [x], ops=["L2Loss"], rtol=1e-5, atol=tol)


def test_training_like_chain_runs_on_gpu():
    """Dense -> bias -> relu -> softmax xent and its gradient on the GPU, as on the CPU."""
    x = _normal((32, 20), scale=1.0)
    w = _normal((20, 10), scale=0.3)
    b = _normal((10,), scale=0.1)
    labels = RNG.integers(0, 10, size=32).astype(np.int64)

    def build(xx, ww, bb, lb):
        h = tw.nn.relu(tw.nn.bias_add(tw.matmul(xx, ww), bb))
        return tw.reduce_mean(tw.nn.sparse_softmax_cross_entropy_with_logits(labels=lb, logits=h))

    assert_gpu_matches_cpu(
        build,
        [x, w, b, labels],
        # (MatMul + BiasAdd + Relu may be fused into _FusedMatMul by the optimizer)
        ops=["SparseSoftmaxCrossEntropyWithLogits", "Mean", "ReluGrad", "BiasAddGrad"],
        rtol=1e-4,
        atol=1e-5,
    )


# -------------------------------------------------------------------------------- errors


def test_error_softmax_and_xent_shapes():
    assert_same_error(lambda a: tw.nn.softmax(a), [np.array(1.0, np.float32)])
    lg = np.ones((2, 3), np.float32)
    assert_same_error(
        lambda a, b: tw.nn.softmax_cross_entropy_with_logits_v2(labels=b, logits=a), [lg, np.ones((2, 4), np.float32)]
    )
    assert_same_error(
        lambda a, b: tw.raw_ops.SparseSoftmaxCrossEntropyWithLogits(features=a, labels=b),
        [lg, np.zeros((3,), np.int32)],
    )


def test_error_bias_add_shapes():
    x = np.ones((2, 3), np.float32)
    assert_same_error(lambda a, b: tw.nn.bias_add(a, b), [x, np.ones((4,), np.float32)])
    assert_same_error(lambda a, b: tw.nn.bias_add(a, b, data_format="NCHW"), [x, np.ones((3,), np.float32)])
    assert_same_error(lambda a: tw.raw_ops.BiasAddGrad(out_backprop=a), [np.ones((3,), np.float32)])

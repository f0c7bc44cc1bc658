"""GPU convolution, pooling and fused batch norm (core/gpu/kernels/{conv,pooling,batch_norm}_ops.cu)
against the CPU kernels, forward and gradient (Conv2DBackpropInput/Filter, MaxPoolGrad, AvgPoolGrad,
FusedBatchNormGrad come from the gradients):

- Conv2D over SAME and VALID, strides 1 and 2, dilation 2, 1x1 / 3x3 / 5x5 filters, batch 1 and 3,
  odd sizes (SAME with an odd total padding: cuDNN cannot pad asymmetrically, so those run on the
  im2col path even with cuDNN), float32 and float64 — each case on BOTH paths: cuDNN (when
  libcudnn.so.9 loads) and the im2col + cuBLAS fallback forced with TW_GPU_DISABLE_CUDNN=1 (set before
  the session is built: the kernels read it at construction). The CPU kernel supports NHWC only, and
  so does the GPU (NCHW gives the CPU's InvalidArgument).
- the backprop ops called directly (input_sizes / filter_sizes are host-memory inputs).
- MaxPool/AvgPool and grads: SAME/VALID, overlapping windows, windows larger than the stride; ties
  (MaxPoolGrad's first-maximum rule) checked exactly.
- FusedBatchNorm training and inference, NHWC and NCHW, and its grad.
- bad shapes giving the CPU's error class.
Skips without a GPU."""

import os
import subprocess
import sys

import numpy as np
import pytest
import tensorweave as tw

from tests.gpu.gpu_util import assert_gpu_matches_cpu, error_class, requires_gpu, run_on

pytestmark = requires_gpu

PATHS = ["cudnn", "im2col"]


@pytest.fixture(params=PATHS)
def conv_path(request, monkeypatch):
    if request.param == "im2col":
        monkeypatch.setenv("TW_GPU_DISABLE_CUDNN", "1")
    else:
        monkeypatch.delenv("TW_GPU_DISABLE_CUDNN", raising=False)
    return request.param


def rand(shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


CONV_CASES = [
    # (input NHWC, filter HWIO, strides, padding, dilations)
    ((1, 8, 8, 3), (3, 3, 3, 4), 1, "SAME", 1),
    ((3, 9, 7, 2), (3, 3, 2, 5), 1, "VALID", 1),
    ((2, 10, 10, 3), (3, 3, 3, 4), 2, "SAME", 1),  # odd total padding: asymmetric
    ((2, 11, 11, 3), (3, 3, 3, 4), 2, "VALID", 1),
    ((2, 8, 8, 4), (1, 1, 4, 6), 1, "VALID", 1),  # 1x1: the GEMM reads the input directly
    ((2, 8, 8, 4), (1, 1, 4, 6), 2, "SAME", 1),
    ((2, 12, 12, 3), (5, 5, 3, 8), 1, "SAME", 1),
    ((1, 13, 13, 2), (5, 5, 2, 3), 2, "SAME", 1),
    ((2, 12, 12, 3), (3, 3, 3, 4), 1, "SAME", 2),  # dilation 2
    ((2, 12, 12, 3), (3, 3, 3, 4), 1, "VALID", 2),
    ((4, 16, 16, 16), (3, 3, 16, 32), 1, "SAME", 1),  # a CNN-sized layer
]


@pytest.mark.parametrize("xs,fs,stride,padding,dilation", CONV_CASES)
def test_conv2d_and_grads(conv_path, xs, fs, stride, padding, dilation):
    x = rand(xs, seed=1)
    f = rand(fs, seed=2)
    assert_gpu_matches_cpu(
        lambda a, b: tw.nn.conv2d(a, b, [1, stride, stride, 1], padding, dilations=[1, dilation, dilation, 1]),
        [x, f],
        ops=["Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"],
        rtol=1e-4,
        atol=1e-4,
        # The CPU takes Winograd F(4x4,3x3) for the CNN-sized layer: its filter gradient (sums of
        # 4*16*16 products, up to ~50) differs from a direct sum by ~3e-6 of its largest value.
        atol_of_max=1e-5,
    )


@pytest.mark.parametrize(
    "xs,fs,stride,padding", [((2, 9, 9, 3), (3, 3, 3, 4), 2, "SAME"), ((1, 6, 6, 2), (3, 3, 2, 2), 1, "VALID")]
)
def test_conv2d_float64(conv_path, xs, fs, stride, padding):
    x = rand(xs, np.float64, 3)
    f = rand(fs, np.float64, 4)
    assert_gpu_matches_cpu(
        lambda a, b: tw.nn.conv2d(a, b, [1, stride, stride, 1], padding),
        [x, f],
        ops=["Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"],
        rtol=1e-10,
        atol=1e-10,
    )


@pytest.mark.parametrize("stride,padding", [(1, "SAME"), (2, "SAME"), (2, "VALID")])
def test_conv_backprops_called_directly(conv_path, stride, padding):
    xs, fs = (2, 10, 10, 3), (3, 3, 3, 5)
    x = rand(xs, seed=5)
    f = rand(fs, seed=6)
    out_rows = -(-10 // stride) if padding == "SAME" else (10 - 3) // stride + 1
    dy = rand((2, out_rows, out_rows, 5), seed=7)
    strides = [1, stride, stride, 1]
    assert_gpu_matches_cpu(
        lambda w, g: tw.nn.conv2d_backprop_input(tw.constant(np.array(xs, np.int32)), w, g, strides, padding),
        [f, dy],
        ops=["Conv2DBackpropInput"],
        rtol=1e-4,
        atol=1e-4,
        grads=False,
    )
    assert_gpu_matches_cpu(
        lambda a, g: tw.nn.conv2d_backprop_filter(a, tw.constant(np.array(fs, np.int32)), g, strides, padding),
        [x, dy],
        ops=["Conv2DBackpropFilter"],
        rtol=1e-4,
        atol=1e-4,
        grads=False,
    )


def test_conv2d_against_numpy(conv_path):
    # An independent oracle besides the CPU kernel: a direct numpy convolution (VALID, stride 1).
    x = rand((2, 6, 7, 3), seed=8)
    f = rand((3, 2, 3, 4), seed=9)
    want = np.zeros((2, 4, 6, 4))
    for i in range(4):
        for j in range(6):
            want[:, i, j, :] = np.einsum("nhwc,hwcm->nm", x[:, i : i + 3, j : j + 2, :], f)
    (got,), _, ops = run_on("/gpu:0", lambda a, b: tw.nn.conv2d(a, b, [1, 1, 1, 1], "VALID"), [x, f], grads=False)
    assert "Conv2D" in ops
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_conv2d_empty_batch_and_zero_channels(conv_path):
    for xs, fs in [((0, 5, 5, 3), (3, 3, 3, 4)), ((2, 5, 5, 0), (3, 3, 0, 4))]:
        assert_gpu_matches_cpu(
            lambda a, b: tw.nn.conv2d(a, b, [1, 1, 1, 1], "SAME"),
            [rand(xs), rand(fs)],
            ops=["Conv2D"],
            grads=False,
        )


@pytest.mark.parametrize(
    "xs,fs",
    [((1, 5, 5, 3), (3, 3, 4, 2)), ((5, 5, 3), (3, 3, 3, 2)), ((1, 2, 2, 3), (3, 3, 3, 2))],
)
def test_conv2d_bad_shapes_same_error_class(xs, fs):
    build = lambda a, b: tw.nn.conv2d(a, b, [1, 1, 1, 1], "VALID")
    cpu = error_class("/cpu:0", build, [rand(xs), rand(fs)])
    gpu = error_class("/gpu:0", build, [rand(xs), rand(fs)])
    assert cpu is tw.errors.InvalidArgumentError, cpu
    assert gpu is cpu


# --- pooling -------------------------------------------------------------------------------------


POOL_CASES = [
    ((1, 8, 8, 3), 2, 2, "VALID"),
    ((2, 9, 9, 4), 2, 2, "SAME"),
    ((2, 9, 7, 3), 3, 2, "SAME"),  # overlapping windows
    ((2, 9, 7, 3), 3, 2, "VALID"),
    ((1, 10, 10, 2), 3, 1, "SAME"),
    ((3, 6, 6, 5), 1, 1, "VALID"),
    ((2, 7, 7, 17), 4, 3, "SAME"),
]


@pytest.mark.parametrize("pool", ["max", "avg"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("xs,k,s,padding", POOL_CASES)
def test_pooling_and_grads(pool, dtype, xs, k, s, padding):
    x = rand(xs, dtype, 11)
    fn = tw.nn.max_pool if pool == "max" else tw.nn.avg_pool
    op = "MaxPool" if pool == "max" else "AvgPool"

    def build(a):
        y = fn(a, [1, k, k, 1], [1, s, s, 1], padding)
        # y * y: the pooled value's gradient depends on the input, so constant folding cannot fold
        # AvgPoolGrad (its other operand, the shape, is constant) away from the GPU.
        return [y, y * y]

    assert_gpu_matches_cpu(
        build,
        [x],
        ops=[op, op + "Grad"],
        rtol=1e-5 if dtype == np.float32 else 1e-12,
        atol=1e-5 if dtype == np.float32 else 1e-12,
    )


@pytest.mark.parametrize("k,s", [(2, 2), (3, 1), (3, 2)])
def test_max_pool_grad_ties_first_maximum(k, s):
    # Many equal values: the gradient must go to the first maximum of each window, exactly as the CPU.
    x = np.random.default_rng(12).integers(0, 3, (2, 8, 8, 3)).astype(np.float32)
    cpu_out, cpu_grads, _ = run_on("/cpu:0", lambda a: tw.nn.max_pool(a, [1, k, k, 1], [1, s, s, 1], "SAME"), [x])
    gpu_out, gpu_grads, ops = run_on("/gpu:0", lambda a: tw.nn.max_pool(a, [1, k, k, 1], [1, s, s, 1], "SAME"), [x])
    assert {"MaxPool", "MaxPoolGrad"} <= ops, ops
    np.testing.assert_array_equal(gpu_out[0], cpu_out[0])
    # The sums of the same grads in the same order: exact for disjoint windows, float-close otherwise.
    np.testing.assert_allclose(gpu_grads[0], cpu_grads[0], rtol=1e-6, atol=1e-6)
    assert np.array_equal(gpu_grads[0] != 0, cpu_grads[0] != 0)


def test_pool_bad_shape_same_error_class():
    build = lambda a: tw.nn.max_pool(a, [1, 3, 3, 1], [1, 1, 1, 1], "VALID")
    x = rand((1, 2, 2, 1))
    cpu = error_class("/cpu:0", build, [x])
    gpu = error_class("/gpu:0", build, [x])
    assert cpu is tw.errors.InvalidArgumentError, cpu
    assert gpu is cpu


# --- fused batch norm ----------------------------------------------------------------------------


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("xs", [(2, 5, 6, 4), (1, 1, 1, 3), (8, 4, 4, 16)])
def test_fused_batch_norm_training(data_format, dtype, xs):
    x = rand(xs, dtype, 13) * 3 + 1
    c = xs[3] if data_format == "NHWC" else xs[1]
    scale = rand((c,), dtype, 14)
    offset = rand((c,), dtype, 15)
    tol = 1e-4 if dtype == np.float32 else 1e-10
    assert_gpu_matches_cpu(
        lambda a, s, o: tw.nn.fused_batch_norm(a, s, o, is_training=True, data_format=data_format),
        [x, scale, offset],
        ops=["FusedBatchNorm", "FusedBatchNormGrad"],
        rtol=tol,
        atol=tol,
    )


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
def test_fused_batch_norm_inference(data_format):
    x = rand((3, 4, 5, 6), np.float32, 16)
    c = 6 if data_format == "NHWC" else 4
    scale, offset = rand((c,), seed=17), rand((c,), seed=18)
    mean, var = rand((c,), seed=19), np.abs(rand((c,), seed=20)) + 0.5
    assert_gpu_matches_cpu(
        lambda a, s, o, m, v: tw.nn.fused_batch_norm(
            a, s, o, mean=m, variance=v, is_training=False, data_format=data_format
        ),
        [x, scale, offset, mean, var],
        ops=["FusedBatchNorm"],
        rtol=1e-4,
        atol=1e-4,
    )


def test_fused_batch_norm_against_numpy():
    x = rand((4, 3, 3, 5), np.float32, 21)
    scale, offset = rand((5,), seed=22), rand((5,), seed=23)
    outs, _, ops = run_on(
        "/gpu:0",
        lambda a, s, o: list(tw.nn.fused_batch_norm(a, s, o, epsilon=1e-3, is_training=True)),
        [x, scale, offset],
        grads=False,
    )
    assert "FusedBatchNorm" in ops
    x64 = x.astype(np.float64).reshape(-1, 5)
    mean, var = x64.mean(0), x64.var(0)
    want = (x64 - mean) / np.sqrt(var + 1e-3) * scale + offset
    np.testing.assert_allclose(outs[0].reshape(-1, 5), want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(outs[1], mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outs[2], var * 36 / 35, rtol=1e-5, atol=1e-6)


def test_fused_batch_norm_bad_scale_same_error_class():
    build = lambda a, s: tw.nn.fused_batch_norm(a, s, s, is_training=True)[0]
    inputs = [rand((2, 3, 3, 4)), rand((3,))]
    cpu = error_class("/cpu:0", build, inputs)
    gpu = error_class("/gpu:0", build, inputs)
    assert cpu is tw.errors.InvalidArgumentError, cpu
    assert gpu is cpu


PATH_SCRIPT = """
import numpy as np, tensorweave as tw
from tests.gpu.gpu_util import run_on
x = np.random.default_rng(0).standard_normal((2, 8, 8, 3)).astype(np.float32)
f = np.random.default_rng(1).standard_normal((3, 3, 3, 4)).astype(np.float32)
run_on("/gpu:0", lambda a, b: tw.nn.conv2d(a, b, [1, 1, 1, 1], "SAME"), [x, f])
"""


@pytest.mark.parametrize("disable", [False, True])
def test_conv_path_taken(disable):
    """With cuDNN loadable, a symmetric float32 convolution and both its backprops run on cuDNN (and on
    im2col with TW_GPU_DISABLE_CUDNN=1): TW_GPU_CONV_VERBOSE=1 makes the kernels say which."""
    env = dict(os.environ, TW_GPU_CONV_VERBOSE="1")
    env.pop("TW_GPU_DISABLE_CUDNN", None)
    if disable:
        env["TW_GPU_DISABLE_CUDNN"] = "1"
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    proc = subprocess.run(
        [sys.executable, "-c", PATH_SCRIPT], check=False, env=env, cwd=root, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    lines = [line for line in proc.stderr.splitlines() if "tensorweave: " in line]
    ops = {"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"}
    seen = {op: line for line in lines for op in ops if f" {op} input" in line}
    assert set(seen) == ops, lines
    if disable:
        assert all("im2col" in line for line in seen.values()), lines
        return
    if any("could not be loaded" in line for line in lines):
        pytest.skip("cuDNN is not loadable here: " + " | ".join(lines))
    assert all("cuDNN" in line for line in seen.values()), lines

"""3x3 stride-1 convolutions with 16+ channels run the Winograd F(4x4, 3x3) algorithm
(core/kernels/conv_winograd.cc) in float32: Conv2D and both its gradients, against a float64 numpy
reference, on shapes that stress the tiling (outputs not a multiple of 4, channels off the vector width,
VALID, images smaller than a tile, batches with several blocks per thread)."""

import numpy as np
import pytest
import tensorweave as tw


def reference(x, f, dy, padding):
    """Forward, input gradient and filter gradient of an NHWC/HWIO 3x3 stride-1 convolution, float64."""
    x, f, dy = (a.astype(np.float64) for a in (x, f, dy))
    pad = 1 if padding == "SAME" else 0
    xp = np.pad(x, [(0, 0), (pad, pad), (pad, pad), (0, 0)])
    _, h, w, _ = dy.shape
    y = np.zeros(dy.shape)
    dxp = np.zeros(xp.shape)
    df = np.zeros(f.shape)
    for ky in range(3):
        for kx in range(3):
            window = xp[:, ky : ky + h, kx : kx + w, :]
            y += np.einsum("nhwc,cm->nhwm", window, f[ky, kx])
            dxp[:, ky : ky + h, kx : kx + w, :] += np.einsum("nhwm,cm->nhwc", dy, f[ky, kx])
            df[ky, kx] = np.einsum("nhwc,nhwm->cm", window, dy)
    dx = dxp[:, pad : pad + x.shape[1], pad : pad + x.shape[2], :]
    return y, dx, df


@pytest.mark.parametrize(
    "n,h,w,c,m,padding",
    [
        (4, 16, 16, 64, 128, "SAME"),  # the CIFAR CNN's second layer, in small
        (2, 8, 8, 128, 256, "SAME"),  # its third
        (3, 11, 13, 20, 24, "SAME"),  # partial tiles, channel tails
        (2, 10, 7, 17, 16, "VALID"),
        (1, 3, 2, 16, 33, "SAME"),  # smaller than one tile
        (7, 32, 32, 16, 16, "SAME"),  # several blocks per thread
        (2, 6, 5, 512, 512, "SAME"),  # scratch past 16 MiB, given back after each call
    ],
)
def test_conv_and_gradients_match_float64_reference(n, h, w, c, m, padding):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, h, w, c)).astype(np.float32)
    f = rng.standard_normal((3, 3, c, m)).astype(np.float32)
    oh, ow = (h, w) if padding == "SAME" else (h - 2, w - 2)
    dy = rng.standard_normal((n, oh, ow, m)).astype(np.float32)
    g = tw.Graph()
    with g.as_default():
        xt, ft, dyt = tw.constant(x), tw.constant(f), tw.constant(dy)
        y = tw.nn.conv2d(xt, ft, [1, 1, 1, 1], padding)
        dx, df = tw.gradients(y, [xt, ft], dyt)
    config = tw.ConfigProto(intra_op_parallelism_threads=2, inter_op_parallelism_threads=2)
    config.graph_options.optimizer_options.do_constant_folding = False
    with tw.Session(graph=g, config=config) as sess:
        got = sess.run([y, dx, df])
    for name, value, want in zip(["forward", "input gradient", "filter gradient"], got, reference(x, f, dy, padding)):
        assert value.shape == want.shape, name
        assert value.dtype == np.float32, name
        # Winograd's float rounding: a few times im2col's, far below the values' scale.
        scale = np.sqrt(np.mean(want**2))
        np.testing.assert_allclose(value, want, rtol=0, atol=1e-4 * scale, err_msg=name)


def test_double_stays_exact():
    """float64 keeps im2col (Winograd's transforms would cost it its exactness)."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 8, 8, 32))
    f = rng.standard_normal((3, 3, 32, 32))
    g = tw.Graph()
    with g.as_default():
        y = tw.nn.conv2d(tw.constant(x), tw.constant(f), [1, 1, 1, 1], "SAME")
    with tw.Session(graph=g) as sess:
        got = sess.run(y)
    want, _, _ = reference(x, f, np.zeros((2, 8, 8, 32)), "SAME")
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_inputs_stay_in_their_receptive_fields(bad):
    """Winograd's transforms mix a tile's inputs (Inf - Inf is NaN), so a result that is not all finite is
    recomputed by im2col: NaN and Inf land exactly where a direct convolution (and TensorFlow) puts them, in all
    three passes and in the fused conv + bias + relu."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 12, 12, 16)).astype(np.float32)
    x[1, 5, 6, 3] = bad
    f = rng.standard_normal((3, 3, 16, 16)).astype(np.float32)
    dy = rng.standard_normal((2, 12, 12, 16)).astype(np.float32)
    dy[0, 2, 9, 7] = bad
    b = rng.standard_normal(16).astype(np.float32)
    g = tw.Graph()
    with g.as_default():
        xt, ft, dyt = tw.constant(x), tw.constant(f), tw.constant(dy)
        y = tw.nn.conv2d(xt, ft, [1, 1, 1, 1], "SAME")
        dx, df = tw.gradients(y, [xt, ft], dyt)
        fused = tw.nn.relu(tw.nn.bias_add(y, b))
    with tw.Session(graph=g) as sess:
        got = sess.run([y, dx, df, fused])
    with np.errstate(invalid="ignore", over="ignore"):
        want = list(reference(x, f, dy, "SAME"))
        want.append(np.maximum(want[0] + b, 0))
    for name, value, expected in zip(["forward", "input gradient", "filter gradient", "fused"], got, want):
        np.testing.assert_array_equal(np.isnan(value), np.isnan(expected), err_msg=name)
        np.testing.assert_array_equal(np.isinf(value), np.isinf(expected), err_msg=name)
        finite = np.isfinite(expected)
        scale = np.sqrt(np.mean(expected[finite] ** 2))
        np.testing.assert_allclose(value[finite], expected[finite], rtol=0, atol=1e-4 * scale, err_msg=name)

"""3x3 stride-1 convolutions with 16+ channels run the Winograd F(4x4, 3x3) algorithm
(core/kernels/conv_winograd.cc) in float32: Conv2D and both its gradients, against a float64 numpy
reference, on shapes that stress the tiling (outputs not a multiple of 4, channels off the vector width,
VALID, images smaller than a tile, batches with several blocks per thread)."""

import numpy as np
import pytest
import tensorweave as tw
from tensorweave.core.protobuf import rewriter_config_pb2

RewriterConfig = rewriter_config_pb2.RewriterConfig


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


@pytest.mark.parametrize("act", [None, "relu", "relu6"])
@pytest.mark.parametrize("depth", [16, 40, 128])
def test_fused_bias_activation_equals_the_unfused_ops(act, depth):
    """_FusedConv2D on the Winograd path applies the bias and activation as each tile is stored: the same
    float arithmetic as Conv2D + BiasAdd + the activation (remapping off), so equal exactly, NaN included."""
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((2, 9, 10, 24)) * 4).astype(np.float32)
    x[0, 1, 2, 0] = np.nan
    f = rng.standard_normal((3, 3, 24, depth)).astype(np.float32)
    b = (rng.standard_normal(depth) * 3).astype(np.float32)
    outs = []
    for remap in (True, False):
        g = tw.Graph()
        with g.as_default():
            xt = tw.placeholder(tw.float32, x.shape)
            fn = {None: tw.identity, "relu": tw.nn.relu, "relu6": tw.nn.relu6}[act]
            y = fn(tw.nn.bias_add(tw.nn.conv2d(xt, f, [1, 1, 1, 1], "SAME"), b))
            cfg = tw.ConfigProto()
            if not remap:
                cfg.graph_options.rewrite_options.remapping = RewriterConfig.OFF
            with tw.Session(config=cfg) as sess:
                md = tw.RunMetadata()
                outs.append(sess.run(y, {xt: x}, options=tw.RunOptions(output_partition_graphs=True), run_metadata=md))
                types = {n.op for pg in md.partition_graphs for n in pg.node}
        assert ("_FusedConv2D" in types) == remap
    np.testing.assert_array_equal(outs[0], outs[1])
    assert np.isnan(outs[0]).any()

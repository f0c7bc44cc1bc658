"""The CIFAR-CNN training step's kernels outside the large convolutions
(issue 16): MaxPoolGrad over many channels (vectors of 16 channels plus a
masked tail), against a numpy reference written here, including ties, padding,
strides, overlapping windows and batch 1."""

import numpy as np
import pytest
import tensorweave as tw
from tensorweave.core.protobuf import rewriter_config_pb2

RNG = np.random.default_rng(16)
RewriterConfig = rewriter_config_pb2.RewriterConfig
TOL = {np.float32: {"rtol": 1e-5, "atol": 1e-6}, np.float64: {"rtol": 1e-12, "atol": 1e-12}}


def np_window(in_size, k, stride, padding):
    if padding == "VALID":
        return (in_size - k + stride) // stride, 0
    out = -(-in_size // stride)
    return out, max((out - 1) * stride + k - in_size, 0) // 2


def np_max_pool_grad(x, g, kh, kw, sh, sw, padding):
    """The gradient routed to the first maximum (row-major scan) of each window."""
    n, h, w, c = x.shape
    oh, pt = np_window(h, kh, sh, padding)
    ow, pl = np_window(w, kw, sw, padding)
    out = np.zeros_like(x)
    for oy in range(oh):
        for ox in range(ow):
            y0, x0 = max(oy * sh - pt, 0), max(ox * sw - pl, 0)
            y1, x1 = min(oy * sh - pt + kh, h), min(ox * sw - pl + kw, w)
            win = x[:, y0:y1, x0:x1, :].reshape(n, -1, c)
            first = np.argmax(win, axis=1)  # the first maximum on ties
            iy, ix = np.unravel_index(first, (y1 - y0, x1 - x0))
            for b in range(n):
                out[b, y0 + iy[b], x0 + ix[b], np.arange(c)] += g[b, oy, ox]
    return out


def max_pool_grad(x, g, kh, kw, sh, sw, padding):
    with tw.Graph().as_default(), tw.Session() as sess:
        xt = tw.constant(x)
        y = tw.nn.max_pool(xt, [1, kh, kw, 1], [1, sh, sw, 1], padding)
        assert y.shape.as_list() == list(g.shape)
        [dx] = tw.gradients(y, [xt], grad_ys=tw.constant(g))
        assert dx.op.type == "MaxPoolGrad"
        return sess.run(dx)


CASES = [
    # batch, in [h, w], window [kh, kw], stride [sh, sw], padding, channels
    (4, (32, 32), (2, 2), (2, 2), "SAME", 64),  # the CIFAR layers: tiled
    (2, (16, 16), (2, 2), (2, 2), "VALID", 128),
    (1, (8, 8), (2, 2), (2, 2), "SAME", 256),  # batch 1
    (2, (7, 9), (2, 2), (2, 2), "SAME", 33),  # odd sizes: padded last window, tail of 1
    (2, (7, 9), (2, 2), (2, 2), "VALID", 31),  # odd sizes: uncovered last row/column
    (2, (9, 8), (3, 3), (2, 2), "SAME", 40),  # overlapping windows, padded
    (1, (6, 7), (3, 2), (1, 1), "VALID", 20),  # stride 1, non-square window
    (2, (11, 10), (2, 3), (3, 4), "SAME", 48),  # stride > window: gaps
    (3, (5, 5), (5, 5), (1, 1), "VALID", 17),  # one window over the whole image
    (1, (1, 1), (1, 1), (1, 1), "SAME", 70),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CASES, ids=[str(c) for c in CASES])
def test_max_pool_grad_many_channels(case, dtype):
    n, (h, w), (kh, kw), (sh, sw), padding, c = case
    x = RNG.standard_normal((n, h, w, c)).astype(dtype)
    oh, ow = np_window(h, kh, sh, padding)[0], np_window(w, kw, sw, padding)[0]
    g = RNG.standard_normal((n, oh, ow, c)).astype(dtype)
    got = max_pool_grad(x, g, kh, kw, sh, sw, padding)
    np.testing.assert_allclose(got, np_max_pool_grad(x, g, kh, kw, sh, sw, padding), **TOL[dtype])


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_max_pool_grad_ties_go_to_the_first_maximum(padding):
    # Small integers (and the zeros after a relu) tie often, in every channel
    # chunk; the gradient goes to the first maximum of the window only.
    x = np.maximum(RNG.integers(-2, 3, size=(2, 9, 10, 37)), 0).astype(np.float32)
    for (kh, kw), (sh, sw) in [((2, 2), (2, 2)), ((3, 3), (2, 2)), ((2, 2), (1, 1))]:
        oh, ow = np_window(9, kh, sh, padding)[0], np_window(10, kw, sw, padding)[0]
        g = RNG.integers(1, 9, size=(2, oh, ow, 37)).astype(np.float32)
        got = max_pool_grad(x, g, kh, kw, sh, sw, padding)
        np.testing.assert_array_equal(got, np_max_pool_grad(x, g, kh, kw, sh, sw, padding))


def test_max_pool_grad_nan_and_inf():
    x = RNG.standard_normal((1, 4, 4, 19)).astype(np.float32)
    x[0, 0, 1, 3] = np.inf
    x[0, 2, 2, 18] = -np.inf
    x[0, 3, 3, 5] = np.nan  # NaN is never "greater": the first finite maximum wins
    g = RNG.standard_normal((1, 2, 2, 19)).astype(np.float32)
    got = max_pool_grad(x, g, 2, 2, 2, 2, "VALID")
    ref = np_max_pool_grad(np.nan_to_num(x, nan=-np.inf), g, 2, 2, 2, 2, "VALID")
    np.testing.assert_allclose(got, ref)


# --- convolutions with few input channels into multiples of 16 ------------------------
# (conv_direct.cc's broadcast kernels: the direct algorithm's forward pass and
# filter gradient when 1-4 channels go in and a multiple of 16 come out, and its
# input gradient when 1-4 channels come out of a multiple of 16.)


def np_conv2d_and_grads(x, w, dy, padding, dilation):
    """conv2d (stride 1, SAME or VALID, dilated) and its input and filter
    gradients for out_backprop dy, in float64 on the zero-padded input."""
    n, h, wd, cin = x.shape
    kh, kw, _, m = w.shape
    eh, ew = (kh - 1) * dilation + 1, (kw - 1) * dilation + 1
    if padding == "VALID":
        oh, ow, pt, pl = h - eh + 1, wd - ew + 1, 0, 0
    else:
        oh, ow, pt, pl = h, wd, (eh - 1) // 2, (ew - 1) // 2
    hp, wp = max(oh + eh - 1, pt + h), max(ow + ew - 1, pl + wd)
    xp = np.zeros((n, hp, wp, cin))
    xp[:, pt : pt + h, pl : pl + wd] = x
    y = np.zeros((n, oh, ow, m))
    dxp = np.zeros_like(xp)
    dw = np.zeros((kh, kw, cin, m))
    for ky in range(kh):
        for kx in range(kw):
            y0, x0 = ky * dilation, kx * dilation
            patch = xp[:, y0 : y0 + oh, x0 : x0 + ow]
            y += patch @ w[ky, kx]
            dw[ky, kx] = np.einsum("nhwc,nhwm->cm", patch, dy)
            dxp[:, y0 : y0 + oh, x0 : x0 + ow] += dy @ w[ky, kx].T
    return y, dxp[:, pt : pt + h, pl : pl + wd], dw


CONV_CASES = [
    # batch, [h, w], [kh, kw], channels in, out, padding, dilation
    (4, (32, 32), (3, 3), 3, 64, "SAME", 1),  # the CIFAR CNN's first layer
    (1, (9, 7), (3, 3), 3, 80, "SAME", 2),  # 5 vectors, dilation, pixel tail, batch 1
    (2, (7, 5), (2, 3), 2, 16, "VALID", 1),
    (3, (5, 9), (5, 4), 1, 32, "SAME", 1),  # even window: more padding after
    (2, (6, 6), (1, 1), 4, 128, "VALID", 1),
    (2, (3, 4), (3, 3), 3, 48, "VALID", 1),  # one output row
    (2, (6, 5), (3, 3), 48, 2, "SAME", 1),  # input gradient into 48 channels
    (1, (1, 1), (3, 3), 3, 16, "SAME", 1),  # one pixel, all taps but one padding
]


@pytest.mark.parametrize("case", CONV_CASES, ids=[str(c) for c in CONV_CASES])
def test_conv2d_few_channels_against_numpy(case):
    n, (h, w), (kh, kw), cin, cout, padding, dil = case
    x = RNG.standard_normal((n, h, w, cin)).astype(np.float32)
    f = RNG.standard_normal((kh, kw, cin, cout)).astype(np.float32)
    b = RNG.standard_normal(cout).astype(np.float32)
    with tw.Graph().as_default(), tw.Session() as sess:
        xt, ft, bt = tw.constant(x), tw.constant(f), tw.constant(b)
        y = tw.nn.conv2d(xt, ft, [1, 1, 1, 1], padding, dilations=[1, dil, dil, 1])
        yb = tw.nn.relu(tw.nn.bias_add(y, bt))
        dy = RNG.standard_normal(y.shape.as_list()).astype(np.float32)
        dx, df = tw.gradients(y, [xt, ft], grad_ys=tw.constant(dy))
        assert (dx.op.type, df.op.type) == ("Conv2DBackpropInput", "Conv2DBackpropFilter")
        got_y, got_yb, got_dx, got_df = sess.run([y, yb, dx, df])
    f64 = [a.astype(np.float64) for a in (x, f, dy)]
    ref_y, ref_dx, ref_df = np_conv2d_and_grads(*f64, padding, dil)
    # float32 sums of kh*kw*cin (forward), kh*kw*cout (input gradient) and
    # n*oh*ow (filter gradient) unit-variance products.
    np.testing.assert_allclose(got_y, ref_y, rtol=1e-4, atol=1e-5 * kh * kw * cin)
    np.testing.assert_allclose(got_yb, np.maximum(ref_y + b, 0), rtol=1e-4, atol=1e-5 * kh * kw * cin)
    np.testing.assert_allclose(got_dx, ref_dx, rtol=1e-4, atol=1e-5 * kh * kw * cout)
    np.testing.assert_allclose(got_df, ref_df, rtol=1e-4, atol=1e-5 * dy[..., 0].size)


# --- Relu fused into the convolution in training graphs ----------------------------------


def test_training_step_fuses_conv_bias_relu_and_matches_the_unfused_step():
    # ReluGrad reads the Relu's output (as TensorFlow's _ReluGrad), so the BiasAdd
    # has the Relu as its only reader and the remapper fuses Conv2D + BiasAdd + Relu
    # (and MatMul + BiasAdd + Relu) in the training step; the gradients are those of
    # the unfused graph (the same mask: relu(x) > 0 exactly where x > 0).
    data = {
        "x": (2, 8, 8, 3),
        "f": (3, 3, 3, 16),
        "b": (16,),
        "w": (4 * 4 * 16, 8),
        "c": (8,),
    }
    data = {k: RNG.standard_normal(v).astype(np.float32) for k, v in data.items()}

    def build():
        g = tw.Graph()
        with g.as_default():
            x = tw.constant(data["x"])
            f, b, w, c = (tw.Variable(data[k], name=k) for k in "fbwc")
            h = tw.nn.relu(tw.nn.bias_add(tw.nn.conv2d(x, f, [1, 1, 1, 1], "SAME"), b), name="act")
            h = tw.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
            y = tw.nn.relu6(tw.nn.bias_add(tw.matmul(tw.reshape(h, [2, -1]), w), c))
            loss = tw.reduce_sum(tw.square(y))
            grads = tw.gradients(loss, [f, b, w, c])
            init = tw.global_variables_initializer()
        return g, grads, init

    results = []
    for remap in (True, False):
        g, grads, init = build()
        with g.as_default():
            cfg = tw.ConfigProto()
            if not remap:
                cfg.graph_options.rewrite_options.remapping = RewriterConfig.OFF
            with tw.Session(config=cfg) as sess:
                sess.run(init)
                md = tw.RunMetadata()
                got = sess.run(grads, options=tw.RunOptions(output_partition_graphs=True), run_metadata=md)
                fused = {
                    n.op: list(n.attr["fused_ops"].list.s)
                    for pg in md.partition_graphs
                    for n in pg.node
                    if n.op.startswith("_Fused")
                }
        results.append((fused, got))
    assert results[0][0] == {"_FusedConv2D": [b"BiasAdd", b"Relu"], "_FusedMatMul": [b"BiasAdd", b"Relu6"]}
    assert results[1][0] == {}
    for a, b in zip(results[0][1], results[1][1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


# --- float Relu and ReluGrad (AVX-512 loops with a masked tail) ---------------------------


@pytest.mark.parametrize("n", [1, 15, 16, 17, 100, 70001])
def test_relu_and_relu_grad_float32(n):
    x = RNG.standard_normal(n).astype(np.float32)
    specials = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, 1e-45, -1e-45], np.float32)
    x[: min(n, len(specials))] = specials[: min(n, len(specials))]
    g = RNG.standard_normal(n).astype(np.float32)
    with tw.Graph().as_default(), tw.Session() as sess:
        xt, gt = tw.placeholder(tw.float32, [n]), tw.placeholder(tw.float32, [n])  # nothing folds
        y = tw.nn.relu(xt)
        [dx] = tw.gradients(y, [xt], grad_ys=gt)
        assert dx.op.type == "ReluGrad"
        raw = tw.get_default_graph()._create_op("ReluGrad", [gt, xt], {}).outputs[0]
        got_y, got_dx, got_raw = sess.run([y, dx, raw], {xt: x, gt: g})
    want_y = np.where(x < 0, np.float32(0), x)  # NaN and -0 pass through, as TensorFlow
    np.testing.assert_array_equal(got_y, want_y)
    assert np.array_equal(np.signbit(got_y), np.signbit(want_y))
    np.testing.assert_array_equal(got_raw, np.where(x > 0, g, np.float32(0)))
    np.testing.assert_array_equal(got_dx, np.where(want_y > 0, g, np.float32(0)))


# --- the fused kernels' bias + activation sweep (float, AVX-512) ---------------------------


@pytest.mark.parametrize("act", [None, "relu", "relu6"])
@pytest.mark.parametrize("depth", [1, 6, 15, 16, 17, 64, 100])
@pytest.mark.parametrize("channels", [3, 24])
def test_fused_bias_activation_equals_the_unfused_ops(act, depth, channels):
    # _FusedConv2D / _FusedMatMul (remapper on) against Conv2D/MatMul + BiasAdd + the
    # activation (remapping off): the same float arithmetic, so equal exactly,
    # NaN included. 3 channels in: the direct algorithm; 24 into 16+: Winograd.
    x = (RNG.standard_normal((2, 5, 7, channels)) * 4).astype(np.float32)
    x[0, 1, 2, 0] = np.nan
    f = RNG.standard_normal((3, 3, channels, depth)).astype(np.float32)
    w = RNG.standard_normal((5 * 7 * channels, depth)).astype(np.float32)
    b = (RNG.standard_normal(depth) * 3).astype(np.float32)
    outs = []
    for remap in (True, False):
        g = tw.Graph()
        with g.as_default():
            xt = tw.placeholder(tw.float32, x.shape)
            fn = {None: tw.identity, "relu": tw.nn.relu, "relu6": tw.nn.relu6}[act]
            conv = fn(tw.nn.bias_add(tw.nn.conv2d(xt, f, [1, 1, 1, 1], "SAME"), b))
            dense = fn(tw.nn.bias_add(tw.matmul(tw.reshape(xt, [2, -1]), w), b))
            cfg = tw.ConfigProto()
            if not remap:
                cfg.graph_options.rewrite_options.remapping = RewriterConfig.OFF
            with tw.Session(config=cfg) as sess:
                md = tw.RunMetadata()
                out = sess.run(
                    [conv, dense], {xt: x}, options=tw.RunOptions(output_partition_graphs=True), run_metadata=md
                )
                types = {n.op for pg in md.partition_graphs for n in pg.node}
        assert ({"_FusedConv2D", "_FusedMatMul"} <= types) == remap
        outs.append(out)
    for a, b_ in zip(*outs):
        np.testing.assert_array_equal(a, b_)


@pytest.mark.parametrize("act", [None, "relu", "relu6", "tanh"])
def test_fused_matmul_few_rows_equals_matmul_bias_activation(act):
    # At most 64 rows and enough work to split: _FusedMatMul runs MatMul's own
    # Gemm, then the bias and activation: equal to the unfused ops exactly.
    x = RNG.standard_normal((64, 520)).astype(np.float32)
    w = (RNG.standard_normal((520, 96)) * 0.1).astype(np.float32)
    b = RNG.standard_normal(96).astype(np.float32)
    outs = []
    for remap in (True, False):
        g = tw.Graph()
        with g.as_default():
            xt = tw.placeholder(tw.float32, x.shape)
            fn = {None: tw.identity, "relu": tw.nn.relu, "relu6": tw.nn.relu6, "tanh": tw.nn.tanh}[act]
            y = fn(tw.nn.bias_add(tw.matmul(xt, w), b))
            cfg = tw.ConfigProto(intra_op_parallelism_threads=2)
            if not remap:
                cfg.graph_options.rewrite_options.remapping = RewriterConfig.OFF
            with tw.Session(config=cfg) as sess:
                md = tw.RunMetadata()
                out = sess.run(y, {xt: x}, options=tw.RunOptions(output_partition_graphs=True), run_metadata=md)
                types = {n.op for pg in md.partition_graphs for n in pg.node}
        assert ("_FusedMatMul" in types) == remap
        outs.append(out)
    if act == "tanh":  # the Tanh kernel's own formula differs from std::tanh in the last bits
        np.testing.assert_allclose(outs[0], outs[1], rtol=1e-6, atol=1e-6)
    else:
        np.testing.assert_array_equal(outs[0], outs[1])
    ref = x.astype(np.float64) @ w.astype(np.float64) + b
    ref = {None: ref, "relu": np.maximum(ref, 0), "relu6": np.clip(ref, 0, 6), "tanh": np.tanh(ref)}[act]
    np.testing.assert_allclose(outs[0], ref, rtol=1e-4, atol=1e-4)

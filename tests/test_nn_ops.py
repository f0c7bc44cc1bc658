"""Forward tests of the neural-network ops against numpy references written
here, and their failure paths."""

import numpy as np
import pytest

import tensorweave as tw

RNG = np.random.default_rng(0)
TOL = {np.float32: dict(rtol=1e-4, atol=1e-5), np.float64: dict(rtol=1e-10, atol=1e-12)}
DTYPES = [np.float32, np.float64]


def run(fn, *args):
    with tw.Graph().as_default(), tw.Session() as sess:
        return sess.run(fn(*[tw.constant(a) for a in args]))


def rand(*shape, dtype=np.float64):
    return RNG.uniform(-1, 1, size=shape).astype(dtype)


# --- numpy references ----------------------------------------------------------------


def np_window(in_size, k, stride, dilation, padding):
    eff = (k - 1) * dilation + 1
    if padding == "VALID":
        out = (in_size - eff + stride) // stride
        return out, 0
    out = -(-in_size // stride)
    total = max((out - 1) * stride + eff - in_size, 0)
    return out, total // 2


def np_conv2d(x, w, strides, padding, dilations=(1, 1, 1, 1), depthwise=False):
    n, h, wd, c = x.shape
    kh, kw, _, m = w.shape
    oh, pt = np_window(h, kh, strides[1], dilations[1], padding)
    ow, pl = np_window(wd, kw, strides[2], dilations[2], padding)
    depth = c * m if depthwise else m
    out = np.zeros((n, oh, ow, depth), x.dtype)
    for oy in range(oh):
        for ox in range(ow):
            for ky in range(kh):
                iy = oy * strides[1] + ky * dilations[1] - pt
                if not 0 <= iy < h:
                    continue
                for kx in range(kw):
                    ix = ox * strides[2] + kx * dilations[2] - pl
                    if not 0 <= ix < wd:
                        continue
                    px = x[:, iy, ix, :]
                    if depthwise:
                        out[:, oy, ox, :] += (px[:, :, None] * w[ky, kx]).reshape(n, -1)
                    else:
                        out[:, oy, ox, :] += px @ w[ky, kx]
    return out


def np_pool(x, k, s, padding, reduce):
    n, h, wd, c = x.shape
    oh, pt = np_window(h, k[1], s[1], 1, padding)
    ow, pl = np_window(wd, k[2], s[2], 1, padding)
    out = np.zeros((n, oh, ow, c), x.dtype)
    for oy in range(oh):
        for ox in range(ow):
            y0, x0 = oy * s[1] - pt, ox * s[2] - pl
            win = x[:, max(y0, 0) : y0 + k[1], max(x0, 0) : x0 + k[2], :]
            out[:, oy, ox, :] = reduce(win.reshape(n, -1, c), axis=1)
    return out


def np_log_softmax(x):
    m = x.max(-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))


# --- activations -----------------------------------------------------------------------

SELU_ALPHA, SELU_SCALE = 1.6732632423543772, 1.0507009873554805
ALPHA = float(np.float32(0.3))  # the alpha attr is a float32, as in TensorFlow
ACTIVATIONS = {
    "Relu": (tw.nn.relu, lambda x: np.maximum(x, 0)),
    "Relu6": (tw.nn.relu6, lambda x: np.clip(x, 0, 6)),
    "Elu": (tw.nn.elu, lambda x: np.where(x > 0, x, np.expm1(x))),
    "Selu": (tw.nn.selu, lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(x))),
    "Softplus": (tw.nn.softplus, lambda x: np.logaddexp(x, 0)),
    "LeakyRelu": (lambda x: tw.nn.leaky_relu(x, alpha=0.3), lambda x: np.where(x > 0, x, ALPHA * x)),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", sorted(ACTIVATIONS))
def test_activation(op, dtype):
    fn, ref = ACTIVATIONS[op]
    x = (rand(4, 50, dtype=dtype) * 10).astype(dtype)
    np.testing.assert_allclose(run(fn, x), ref(x), **TOL[dtype])


def test_softplus_is_stable_for_large_inputs():
    x = np.array([-1000.0, 1000.0, 50.0])
    np.testing.assert_allclose(run(tw.nn.softplus, x), [0.0, 1000.0, 50.0])


@pytest.mark.parametrize(
    "op,ref",
    [
        ("ReluGrad", lambda g, x, y: g * (x > 0)),
        ("Relu6Grad", lambda g, x, y: g * ((x > 0) & (x < 6))),
        ("EluGrad", lambda g, x, y: np.where(y < 0, g * (y + 1), g)),
        ("SeluGrad", lambda g, x, y: np.where(y < 0, g * (y + SELU_SCALE * SELU_ALPHA), g * SELU_SCALE)),
        ("SoftplusGrad", lambda g, x, y: g / (1 + np.exp(-x))),
        ("LeakyReluGrad", lambda g, x, y: np.where(x > 0, g, ALPHA * g)),
    ],
)
def test_activation_grad_ops(op, ref):
    fwd = {
        "ReluGrad": "Relu",
        "Relu6Grad": "Relu6",
        "EluGrad": "Elu",
        "SeluGrad": "Selu",
        "SoftplusGrad": "Softplus",
        "LeakyReluGrad": "LeakyRelu",
    }[op]
    fn, np_fwd = ACTIVATIONS[fwd]
    x = rand(3, 7) * 8
    g = rand(3, 7)
    with tw.Graph().as_default(), tw.Session() as sess:
        xt = tw.constant(x)
        y = fn(xt)
        [dx] = tw.gradients(y, [xt], grad_ys=tw.constant(g))
        assert dx.op.type == op
        got = sess.run(dx)
    np.testing.assert_allclose(got, ref(g, x, np_fwd(x)), rtol=1e-10, atol=1e-12)


def test_activation_grad_shape_mismatch():
    with tw.Graph().as_default():
        g = tw.constant(np.zeros([2, 3]))
        with pytest.raises(ValueError, match="relu_grad"):
            tw.get_default_graph()._create_op("ReluGrad", [g, tw.constant(np.zeros([3, 2]))], name="relu_grad")


# --- bias --------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES + [np.int32, np.int64])
def test_bias_add_and_grad(dtype):
    x = (rand(5, 3, 7) * 10).astype(dtype)
    b = (rand(7) * 10).astype(dtype)
    np.testing.assert_allclose(run(tw.nn.bias_add, x, b), x + b)
    grad = run(lambda t: tw.get_default_graph()._create_op("BiasAddGrad", [t]).outputs[0], x)
    np.testing.assert_allclose(grad, x.sum(axis=(0, 1)), rtol=1e-5)


@pytest.mark.parametrize("shape", [(128, 512), (7, 100), (13, 20), (3, 64), (9, 1)])
def test_bias_add_and_grad_channel_counts(shape):
    # Wide rows run one row per stretch; narrow ones several rows against a
    # repeated bias, with a remainder when the rows do not fill a stretch.
    x = rand(*shape, dtype=np.float32)
    b = rand(shape[-1], dtype=np.float32)
    np.testing.assert_allclose(run(tw.nn.bias_add, x, b), x + b, rtol=1e-6)
    grad = run(lambda t: tw.get_default_graph()._create_op("BiasAddGrad", [t]).outputs[0], x)
    np.testing.assert_allclose(grad, x.astype(np.float64).sum(axis=0), rtol=1e-5, atol=1e-5)


def test_bias_add_nchw_and_large():
    x = rand(2, 3, 4, 5)
    b = rand(3)
    got = run(lambda a, c: tw.nn.bias_add(a, c, data_format="NCHW"), x, b)
    np.testing.assert_allclose(got, x + b[None, :, None, None])
    x = rand(64, 28, 28, 6, dtype=np.float32)  # parallel path, BiasAddGrad stretch path
    b = rand(6, dtype=np.float32)
    np.testing.assert_allclose(run(tw.nn.bias_add, x, b), x + b, rtol=1e-6)
    grad = run(lambda t: tw.get_default_graph()._create_op("BiasAddGrad", [t]).outputs[0], x)
    np.testing.assert_allclose(grad, x.astype(np.float64).sum(axis=(0, 1, 2)), rtol=1e-4, atol=1e-3)


def test_bias_add_bad_bias_names_node():
    with tw.Graph().as_default():
        with pytest.raises(ValueError, match="my_bias"):
            tw.nn.bias_add(tw.constant(np.zeros([2, 3])), tw.constant(np.zeros([4])), name="my_bias")


# --- convolution ---------------------------------------------------------------------------

CONV_CASES = [
    # x shape, filter shape, strides, padding, dilations
    ([2, 7, 7, 1], [5, 5, 1, 6], [1, 1, 1, 1], "SAME", [1, 1, 1, 1]),  # LeNet conv1 (direct)
    ([2, 14, 14, 6], [5, 5, 6, 16], [1, 1, 1, 1], "VALID", [1, 1, 1, 1]),  # LeNet conv2 (direct)
    ([2, 9, 8, 3], [3, 3, 3, 5], [1, 2, 2, 1], "SAME", [1, 1, 1, 1]),  # strided: im2col
    ([1, 9, 9, 2], [3, 2, 2, 4], [1, 1, 1, 1], "SAME", [1, 2, 3, 1]),  # dilated
    ([2, 5, 5, 8], [1, 1, 8, 4], [1, 1, 1, 1], "VALID", [1, 1, 1, 1]),  # pointwise
    ([1, 6, 6, 40], [3, 3, 40, 32], [1, 1, 1, 1], "SAME", [1, 1, 1, 1]),  # many channels: im2col
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CONV_CASES, ids=[str(c[:2]) for c in CONV_CASES])
def test_conv2d_and_backprops(case, dtype):
    xs, fs, strides, padding, dil = case
    x, w = rand(*xs, dtype=dtype), rand(*fs, dtype=dtype)
    ref = np_conv2d(x.astype(np.float64), w.astype(np.float64), strides, padding, dil)
    got = run(lambda a, b: tw.nn.conv2d(a, b, strides, padding, dilations=dil), x, w)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(got, ref, **tol)
    # Backprops: the adjoints, checked through <dy, conv(x, w)> identities
    # against the numpy conv of unit vectors would be slow; use autodiff of
    # sum(dy * conv) computed in numpy by linearity instead.
    dy = rand(*ref.shape, dtype=dtype)
    dx = run(lambda b, d: tw.nn.conv2d_backprop_input(xs, b, d, strides, padding, dilations=dil), w, dy)
    dw = run(lambda a, d: tw.nn.conv2d_backprop_filter(a, fs, d, strides, padding, dilations=dil), x, dy)
    # <dy, conv(x, w)> = <dx, x> = <dw, w>.
    inner = np.sum(dy.astype(np.float64) * ref)
    np.testing.assert_allclose(np.sum(dx * x.astype(np.float64)), inner, **tol)
    np.testing.assert_allclose(np.sum(dw * w.astype(np.float64)), inner, **tol)
    # And dw entry by entry: dw[k] = <dy, conv(x, e_k)>.
    for idx in [(0, 0, 0, 0), tuple(s - 1 for s in fs)]:
        e = np.zeros(fs)
        e[idx] = 1
        expect = np.sum(dy.astype(np.float64) * np_conv2d(x.astype(np.float64), e, strides, padding, dil))
        np.testing.assert_allclose(dw[idx], expect, **tol)


def test_conv2d_errors_name_the_node():
    with tw.Graph().as_default():
        x = tw.constant(np.zeros([1, 5, 5, 3], np.float32))
        with pytest.raises(ValueError, match="bad_conv"):
            tw.nn.conv2d(x, tw.constant(np.zeros([3, 3, 2, 4], np.float32)), [1, 1, 1, 1], "SAME", name="bad_conv")
        with pytest.raises(ValueError, match="big_window"):
            tw.nn.conv2d(x, tw.constant(np.zeros([7, 7, 3, 4], np.float32)), [1, 1, 1, 1], "VALID", name="big_window")
        with pytest.raises(ValueError, match="strides"):
            tw.nn.conv2d(x, tw.constant(np.zeros([3, 3, 3, 4], np.float32)), [2, 1, 1, 1], "SAME")


def test_conv2d_backprop_input_bad_out_backprop_at_run_time():
    with tw.Graph().as_default(), tw.Session() as sess:
        sizes = tw.placeholder(tw.int32, [4])
        w = tw.constant(np.zeros([3, 3, 1, 2], np.float32))
        dy = tw.constant(np.zeros([1, 4, 4, 2], np.float32))
        dx = tw.nn.conv2d_backprop_input(sizes, w, dy, [1, 1, 1, 1], "SAME", name="bp_input")
        with pytest.raises(tw.errors.InvalidArgumentError, match="bp_input"):
            sess.run(dx, {sizes: [1, 5, 5, 1]})
        assert sess.run(dx, {sizes: [1, 4, 4, 1]}).shape == (1, 4, 4, 1)


@pytest.mark.parametrize("dtype", DTYPES)
def test_depthwise_conv2d(dtype):
    x, w = rand(2, 6, 5, 3, dtype=dtype), rand(3, 3, 3, 2, dtype=dtype)
    for strides, padding in (([1, 1, 1, 1], "SAME"), ([1, 2, 2, 1], "VALID")):
        ref = np_conv2d(x.astype(np.float64), w.astype(np.float64), strides, padding, depthwise=True)
        got = run(lambda a, b: tw.nn.depthwise_conv2d(a, b, strides, padding), x, w)
        np.testing.assert_allclose(got, ref, **TOL[dtype])
        dy = rand(*ref.shape, dtype=dtype)
        with tw.Graph().as_default(), tw.Session() as sess:
            xt, wt = tw.constant(x), tw.constant(w)
            y = tw.nn.depthwise_conv2d(xt, wt, strides, padding)
            dx, dw = tw.gradients(y, [xt, wt], grad_ys=tw.constant(dy))
            assert dx.op.type == "DepthwiseConv2dNativeBackpropInput"
            assert dw.op.type == "DepthwiseConv2dNativeBackpropFilter"
            dx, dw = sess.run([dx, dw])
        inner = np.sum(dy.astype(np.float64) * ref)
        np.testing.assert_allclose(np.sum(dx * x), inner, rtol=1e-4)
        np.testing.assert_allclose(np.sum(dw * w), inner, rtol=1e-4)


# --- pooling -------------------------------------------------------------------------------

POOL_CASES = [
    ([2, 28, 28, 6], [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
    ([1, 7, 6, 3], [1, 3, 3, 1], [1, 2, 2, 1], "SAME"),
    ([1, 5, 5, 2], [1, 2, 3, 1], [1, 1, 2, 1], "VALID"),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", POOL_CASES, ids=[str(c[0]) for c in POOL_CASES])
def test_pooling(case, dtype):
    shape, k, s, padding = case
    x = rand(*shape, dtype=dtype)
    got = run(lambda t: tw.nn.max_pool(t, k, s, padding), x)
    np.testing.assert_allclose(got, np_pool(x, k, s, padding, np.max), **TOL[dtype])
    got = run(lambda t: tw.nn.avg_pool(t, k, s, padding), x)
    np.testing.assert_allclose(got, np_pool(x, k, s, padding, np.mean), **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
def test_max_pool_grad_routes_to_first_maximum(dtype):
    # Channel 0 ties at taps 1 and 2, channel 1 at every tap (as after a relu).
    x = np.array([[[1.0, 0.0], [3.0, 0.0]], [[3.0, 0.0], [0.0, 0.0]]], dtype).reshape([1, 2, 2, 2])
    with tw.Graph().as_default(), tw.Session() as sess:
        xt = tw.constant(x)
        y = tw.nn.max_pool(xt, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        g = np.array([5.0, 7.0], dtype).reshape([1, 1, 1, 2])
        [dx] = tw.gradients(y, [xt], grad_ys=tw.constant(g))
        assert dx.op.type == "MaxPoolGrad"
        got = sess.run(dx).reshape(4, 2)
    np.testing.assert_array_equal(got[:, 0], [0.0, 5.0, 0.0, 0.0])
    np.testing.assert_array_equal(got[:, 1], [7.0, 0.0, 0.0, 0.0])


MAX_POOL_GRAD_CASES = [
    # in [h, w], window, stride, padding, channels
    ((5, 6), 3, 2, "SAME", 16),  # overlapping windows, one vector of channels
    ((5, 6), 3, 2, "SAME", 17),  # more channels than a vector
    ((4, 6), 2, 2, "VALID", 6),  # disjoint windows tiling the input
    ((5, 7), 2, 2, "VALID", 6),  # disjoint, last row and column uncovered
    ((7, 8), 3, 3, "SAME", 5),  # disjoint, padded
    ((7, 7), 2, 3, "VALID", 3),  # stride > window: gaps between windows
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", MAX_POOL_GRAD_CASES, ids=[str(c) for c in MAX_POOL_GRAD_CASES])
def test_max_pool_grad_against_numpy(case, dtype):
    (h, w), kk, ss, padding, channels = case
    x = rand(2, h, w, channels, dtype=dtype)
    k, s = [1, kk, kk, 1], [1, ss, ss, 1]
    y = np_pool(x, k, s, padding, np.max)
    g = rand(*y.shape, dtype=dtype)
    expect = np.zeros_like(x)
    oh, pt = np_window(h, kk, ss, 1, padding)
    ow, pl = np_window(w, kk, ss, 1, padding)
    for n in range(2):
        for oy in range(oh):
            for ox in range(ow):
                for c in range(channels):
                    y0, x0 = max(oy * ss - pt, 0), max(ox * ss - pl, 0)
                    win = x[n, y0 : oy * ss - pt + kk, x0 : ox * ss - pl + kk, c]
                    iy, ix = np.unravel_index(np.argmax(win), win.shape)
                    expect[n, y0 + iy, x0 + ix, c] += g[n, oy, ox, c]
    got = run(
        lambda a, b, d: (
            tw.get_default_graph()
            ._create_op("MaxPoolGrad", [a, b, d], {"ksize": k, "strides": s, "padding": padding})
            .outputs[0]
        ),
        x,
        y,
        g,
    )
    np.testing.assert_allclose(got, expect, **TOL[dtype])


def test_pool_errors_name_the_node():
    with tw.Graph().as_default():
        x = tw.constant(np.zeros([1, 4, 4, 1], np.float32))
        with pytest.raises(ValueError, match="pool_ksize"):
            tw.nn.max_pool(x, [2, 2, 2, 1], [1, 1, 1, 1], "VALID", name="pool_ksize")
        with pytest.raises(ValueError, match="rank_pool"):
            tw.nn.avg_pool(
                tw.constant(np.zeros([4, 4], np.float32)), [1, 2, 2, 1], [1, 1, 1, 1], "VALID", name="rank_pool"
            )
        y = tw.constant(np.zeros([1, 3, 3, 1], np.float32))
        with pytest.raises(ValueError, match="mpg"):
            tw.get_default_graph()._create_op(
                "MaxPoolGrad",
                [x, y, y],
                {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID"},
                name="mpg",
            )


# --- softmax and losses ----------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_and_log_softmax(dtype):
    x = (rand(3, 4, 10) * 30).astype(dtype)
    ls = np_log_softmax(x.astype(np.float64))
    np.testing.assert_allclose(run(tw.nn.softmax, x), np.exp(ls), **TOL[dtype])
    np.testing.assert_allclose(run(tw.nn.log_softmax, x), ls, **TOL[dtype])
    # Another axis: as TensorFlow, the axis is swapped to the end and back.
    ls0 = np_log_softmax(np.moveaxis(x.astype(np.float64), 0, -1))
    np.testing.assert_allclose(
        run(lambda t: tw.nn.softmax(t, axis=0), x), np.moveaxis(np.exp(ls0), -1, 0), **TOL[dtype]
    )
    np.testing.assert_allclose(run(lambda t: tw.nn.log_softmax(t, axis=0), x), np.moveaxis(ls0, -1, 0), **TOL[dtype])
    with pytest.raises(tw.errors.InvalidArgumentError):
        with tw.Graph().as_default():
            tw.nn.softmax(tw.constant(x), axis=3)


@pytest.mark.parametrize("op", ["SoftmaxGrad", "LogSoftmaxGrad"])
def test_softmax_grad_ops(op):
    x, g = rand(4, 6), rand(4, 6)
    y = np.exp(np_log_softmax(x))
    with tw.Graph().as_default(), tw.Session() as sess:
        xt = tw.constant(x)
        out = tw.nn.softmax(xt) if op == "SoftmaxGrad" else tw.nn.log_softmax(xt)
        [dx] = tw.gradients(out, [xt], grad_ys=tw.constant(g))
        assert dx.op.type == op
        got = sess.run(dx)
    if op == "SoftmaxGrad":
        ref = (g - (g * y).sum(-1, keepdims=True)) * y
    else:
        ref = g - y * g.sum(-1, keepdims=True)
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_cross_entropy(dtype):
    x = (rand(5, 7) * 5).astype(dtype)
    labels = np.abs(rand(5, 7)).astype(dtype)
    labels /= labels.sum(-1, keepdims=True)
    with tw.Graph().as_default(), tw.Session() as sess:
        op = tw.get_default_graph()._create_op("SoftmaxCrossEntropyWithLogits", [tw.constant(x), tw.constant(labels)])
        loss, backprop = sess.run(op.outputs)
        v1 = sess.run(tw.nn.softmax_cross_entropy_with_logits(labels=labels, logits=x))
    ls = np_log_softmax(x.astype(np.float64))
    np.testing.assert_allclose(loss, -(labels * ls).sum(-1), **TOL[dtype])
    np.testing.assert_allclose(v1, loss, **TOL[dtype])
    np.testing.assert_allclose(backprop, np.exp(ls) - labels, **TOL[dtype])


@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("dtype", DTYPES)
def test_sparse_softmax_cross_entropy(dtype, label_dtype):
    x = (rand(6, 4) * 5).astype(dtype)
    labels = np.array([0, 3, 1, 2, 2, 0], label_dtype)
    with tw.Graph().as_default(), tw.Session() as sess:
        op = tw.get_default_graph()._create_op(
            "SparseSoftmaxCrossEntropyWithLogits",
            [tw.constant(x), tw.constant(labels)],
            {"Tlabels": tw.as_dtype(label_dtype).as_datatype_enum},
        )
        loss, backprop = sess.run(op.outputs)
    ls = np_log_softmax(x.astype(np.float64))
    np.testing.assert_allclose(loss, -ls[np.arange(6), labels], **TOL[dtype])
    onehot = np.eye(4)[labels]
    np.testing.assert_allclose(backprop, np.exp(ls) - onehot, **TOL[dtype])


@pytest.mark.parametrize("bad", [4, -1])
def test_sparse_softmax_cross_entropy_out_of_range_label(bad):
    with tw.Graph().as_default(), tw.Session() as sess:
        labels = tw.placeholder(tw.int64, [3])
        loss = tw.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=tw.constant(np.zeros([3, 4], np.float32)), name="xent"
        )
        with pytest.raises(tw.errors.InvalidArgumentError, match=r"(?s)index 2.*xent"):
            sess.run(loss, {labels: [0, 1, bad]})
        assert sess.run(loss, {labels: [0, 1, 3]}).shape == (3,)


def test_xent_shape_errors():
    with tw.Graph().as_default():
        with pytest.raises(ValueError, match="xent_shapes"):
            tw.nn.softmax_cross_entropy_with_logits_v2(
                labels=np.zeros([2, 3]), logits=np.zeros([2, 4]), name="xent_shapes"
            )
        with pytest.raises(ValueError, match="`labels.shape` must equal `logits.shape` except for the last dimension"):
            tw.nn.sparse_softmax_cross_entropy_with_logits(
                labels=np.zeros([3], np.int32), logits=np.zeros([2, 4]), name="sparse_shapes"
            )


@pytest.mark.parametrize("dtype", DTYPES)
def test_l2_loss(dtype):
    x = rand(7, 13, dtype=dtype)
    np.testing.assert_allclose(run(tw.nn.l2_loss, x), np.sum(x.astype(np.float64) ** 2) / 2, **TOL[dtype])


# --- batch normalization -----------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_fused_batch_norm_training_and_inference(dtype):
    x = (rand(4, 3, 2, 5) * 3 + 1).astype(dtype)
    scale, offset = rand(5, dtype=dtype), rand(5, dtype=dtype)
    eps = float(np.float32(0.001))  # the epsilon attr is a float32
    with tw.Graph().as_default(), tw.Session() as sess:
        y, m, v = sess.run(tw.nn.fused_batch_norm(x, scale, offset, epsilon=eps))
        pm, pv = np.abs(rand(5, dtype=dtype)), np.abs(rand(5, dtype=dtype)) + 0.5
        yi, mi, vi = sess.run(tw.nn.fused_batch_norm(x, scale, offset, pm, pv, epsilon=eps, is_training=False))
    x64 = x.astype(np.float64)
    mean, var = x64.mean(axis=(0, 1, 2)), x64.var(axis=(0, 1, 2))
    np.testing.assert_allclose(y, (x64 - mean) / np.sqrt(var + eps) * scale + offset, **TOL[dtype])
    np.testing.assert_allclose(m, mean, **TOL[dtype])
    n = x.size // 5
    np.testing.assert_allclose(v, var * n / (n - 1), **TOL[dtype])
    np.testing.assert_allclose(yi, (x64 - pm) / np.sqrt(pv + eps) * scale + offset, **TOL[dtype])
    np.testing.assert_allclose(mi, pm)
    np.testing.assert_allclose(vi, pv)


def test_fused_batch_norm_grad_op_and_errors():
    x, dy = rand(3, 2, 2, 4), rand(3, 2, 2, 4)
    scale = rand(4)
    with tw.Graph().as_default(), tw.Session() as sess:
        xt = tw.constant(x)
        y, _, _ = tw.nn.fused_batch_norm(xt, scale, np.zeros(4), epsilon=0.0)
        [dx] = tw.gradients(y, [xt], grad_ys=tw.constant(dy))
        assert dx.op.type == "FusedBatchNormGrad"
        got = sess.run(dx)
        with pytest.raises(ValueError, match="bn_bad"):
            tw.nn.fused_batch_norm(xt, np.ones(3), np.zeros(3), name="bn_bad")
    mean, inv = x.mean(axis=(0, 1, 2)), 1 / np.sqrt(x.var(axis=(0, 1, 2)))
    xhat = (x - mean) * inv
    ref = scale * inv * (dy - dy.mean(axis=(0, 1, 2)) - xhat * (dy * xhat).mean(axis=(0, 1, 2)))
    np.testing.assert_allclose(got, ref, rtol=1e-8, atol=1e-10)

"""float16 and bfloat16 through ops whose kernels compute in float32 (convolutions, pooling, MatMul, softmax and
cross entropy, batch norm, ...): TF1 programs that cast to tf.float16 / tf.bfloat16 (mixed precision with
float32 master weights) build, run, differentiate and train as under TensorFlow, within the half type's rounding."""

import numpy as np
import pytest

import tensorweave as tw

tf = pytest.importorskip("tensorflow")
v1 = tf.compat.v1

_RNG = np.random.RandomState(0)
_X = _RNG.randn(2, 8, 8, 3).astype(np.float32)
_W = (_RNG.randn(3, 3, 3, 4) * 0.3).astype(np.float32)
_ULPS = {"float16": 2e-3, "bfloat16": 1.6e-2}  # about 2 units in the last place

CASES = {
    "conv2d": lambda t, c: t.nn.conv2d(c(_X), c(_W), [1, 1, 1, 1], "SAME"),
    "conv2d_strided": lambda t, c: t.nn.conv2d(c(_X), c(_W), [1, 2, 2, 1], "VALID"),
    "depthwise": lambda t, c: t.nn.depthwise_conv2d(c(_X), c(_W[:, :, :, :1]), [1, 1, 1, 1], "SAME"),
    "max_pool": lambda t, c: t.nn.max_pool(c(_X), [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
    "avg_pool": lambda t, c: t.nn.avg_pool(c(_X), [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
    "matmul": lambda t, c: t.matmul(c(_X.reshape(16, 24)), c(_X.reshape(24, 16))),
    "batch_matmul": lambda t, c: t.matmul(c(_X[0]), c(_X[1].transpose(0, 2, 1))),
    "bias_add": lambda t, c: t.nn.bias_add(c(_X), c(np.arange(3, dtype=np.float32))),
    "softmax": lambda t, c: t.nn.softmax(c(_X)),
    "log_softmax": lambda t, c: t.nn.log_softmax(c(_X)),
    "xent": lambda t, c: t.nn.softmax_cross_entropy_with_logits_v2(
        labels=c(np.eye(3, dtype=np.float32)[[0, 2]]), logits=c(_X[0, 0, :2])
    ),
    "sparse_xent": lambda t, c: t.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 2], logits=c(_X[0, 0, :2])),
    "fused_batch_norm": lambda t, c: t.nn.fused_batch_norm(
        c(_X), np.ones(3, np.float32), np.zeros(3, np.float32), is_training=True
    )[0],
    "l2_loss": lambda t, c: t.nn.l2_loss(c(_X)),
    "relu6_elu": lambda t, c: t.nn.relu6(c(_X)) + t.nn.elu(c(_X)),
    "conv_gradients": lambda t, c: t.gradients(
        t.reduce_sum(t.nn.conv2d(c(_X), c(_W), [1, 1, 1, 1], "SAME") ** 2), t.get_collection("inputs")
    ),
}


def _run(t, name, dtype):
    graph = t.Graph()
    with graph.as_default():

        def c(a):
            x = t.cast(t.constant(a), dtype)
            t.add_to_collection("inputs", x)
            return x

        y = CASES[name](t, c)
        ys = y if isinstance(y, list) else [y]
        assert all(v.dtype.base_dtype.name == dtype for v in ys), [v.dtype for v in ys]
        with t.Session(graph=graph) as sess:
            return sess.run([t.cast(v, t.float32) for v in ys])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_half_types_match_tf(name, dtype):
    got, want = _run(tw, name, dtype), _run(v1, name, dtype)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=_ULPS[dtype], atol=_ULPS[dtype] * np.abs(w).max())


def _train(t, dtype, opt, master_float32=True):
    """Five steps of a conv net computed in `dtype`, with float32 master weights (TF's mixed precision) or
    variables of `dtype`; the float32 losses."""
    rng = np.random.RandomState(0)
    x, y = rng.randn(8, 8, 8, 3).astype(np.float32), rng.randint(0, 5, 8)
    graph = t.Graph()
    with graph.as_default():

        def variable(value):
            return t.Variable(value if master_float32 else t.cast(value, dtype))

        w = variable((rng.randn(3, 3, 3, 4) * 0.3).astype(np.float32))
        w2 = variable((rng.randn(64, 5) * 0.1).astype(np.float32))
        h = t.nn.relu(t.nn.conv2d(t.cast(x, dtype), t.cast(w, dtype), [1, 1, 1, 1], "SAME"))
        h = t.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        logits = t.cast(t.matmul(t.reshape(h, [8, 64]), t.cast(w2, dtype)), t.float32)
        loss = t.reduce_mean(t.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        optimizer = {
            "sgd": lambda: t.train.GradientDescentOptimizer(0.1),
            "adam": lambda: t.train.AdamOptimizer(0.01),
            "momentum": lambda: t.train.MomentumOptimizer(0.1, 0.9),
            "adagrad": lambda: t.train.AdagradOptimizer(0.1),
        }[opt]()
        train = optimizer.minimize(loss)
        with t.Session(graph=graph) as sess:
            sess.run(t.global_variables_initializer())
            return [sess.run([loss, train])[0] for _ in range(5)]


def _half_rtol(dtype):
    # TF's own float16 kernels differ by CPU (oneDNN's half kernels on some, Eigen's on others, e.g. AMD Zen 4):
    # its losses move by up to one float16 ulp (2**-10 relative) from machine to machine; bfloat16 ones do not.
    return 1e-3 if dtype == "float16" else 1e-5


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("opt", ["sgd", "adam"])
def test_mixed_precision_training_matches_tf(dtype, opt):
    np.testing.assert_allclose(_train(tw, dtype, opt), _train(v1, dtype, opt), rtol=_half_rtol(dtype))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_gradient_descent_on_half_variables_matches_tf(dtype):
    np.testing.assert_allclose(
        _train(tw, dtype, "sgd", master_float32=False),
        _train(v1, dtype, "sgd", master_float32=False),
        rtol=_half_rtol(dtype),
    )


# The Apply* kernels update half variables in float and round once (TF rounds after each operation): the losses
# agree within the half type's rounding. (TF's Adam on float16 variables is NaN from the second step: its v underflows
# to 0 in float16; here it trains.)
@pytest.mark.parametrize(
    "dtype,opt", [("float16", "momentum"), ("bfloat16", "momentum"), ("float16", "adagrad"), ("bfloat16", "adam")]
)
def test_optimizers_on_half_variables_match_tf(dtype, opt):
    np.testing.assert_allclose(
        _train(tw, dtype, opt, master_float32=False), _train(v1, dtype, opt, master_float32=False), rtol=1e-2
    )


def test_adam_on_float16_variables_trains():
    losses = _train(tw, "float16", "adam", master_float32=False)
    assert np.all(np.isfinite(losses)) and losses[-1] < 0.5 * losses[0]
    np.testing.assert_allclose(losses, _train(tw, "float16", "adam"), rtol=1e-2)  # as with float32 master weights


def test_half_ops_compute_between_casts_and_keep_other_errors():
    with tw.Graph().as_default() as g:
        x = tw.cast(tw.constant(_X), tw.float16)
        y = tw.nn.conv2d(x, tw.cast(tw.constant(_W), tw.float16), [1, 1, 1, 1], "SAME")
        assert y.dtype == tw.float16 and y.op.type == "Cast"
        assert [op.get_attr("T") for op in g.get_operations() if op.type == "Conv2D"] == [tw.float32]
        # mixed half types are still the op's own TypeError
        with pytest.raises(TypeError, match="bfloat16"):
            tw.matmul(tw.cast(tw.ones([2, 2]), tw.float16), tw.cast(tw.ones([2, 2]), tw.bfloat16))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_batch_normalization_of_half_inputs_keeps_float32_parameters(dtype):
    # As TF: tf.layers / Keras batch norm of a 16-bit input has float32 gamma, beta and moving averages, and
    # normalizes in float32; the output has the input's dtype.
    x = _X * 3.0 + 1.0
    with tw.Graph().as_default():
        training = tw.placeholder_with_default(True, [])
        y1 = tw.layers.batch_normalization(tw.cast(x, dtype), training=training)
        y2 = tw.keras.layers.BatchNormalization(dtype=dtype)(tw.cast(x, dtype), training=True)
        assert {v.dtype.base_dtype for v in tw.global_variables()} == {tw.float32}
        assert y1.dtype == y2.dtype == tw.as_dtype(dtype)
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            got = sess.run([tw.cast(y1, tw.float32), tw.cast(y2, tw.float32)])
    want = (x - x.mean((0, 1, 2))) / np.sqrt(x.var((0, 1, 2)) + 1e-3)
    for g in got:
        np.testing.assert_allclose(g, want, atol=4 * _ULPS[dtype] * np.abs(want).max())


def _lstm_losses(t):
    rng = np.random.RandomState(0)
    graph = t.Graph()
    with graph.as_default():
        x = t.constant(rng.randn(4, 5, 3).astype(np.float16))
        cell = t.nn.rnn_cell.LSTMCell(8, initializer=t.constant_initializer(rng.randn(11, 32).astype(np.float32) * 0.3))
        out, _ = t.nn.dynamic_rnn(cell, x, dtype=t.float16)
        loss = t.reduce_mean(t.cast(out, t.float32) ** 2)
        train = t.train.MomentumOptimizer(0.5, 0.9).minimize(loss)
        dtypes = [out.dtype.name] + [v.dtype.base_dtype.name for v in t.trainable_variables()]
        with t.Session(graph=graph) as sess:
            sess.run(t.global_variables_initializer())
            return dtypes, [sess.run([loss, train])[0] for _ in range(4)]


def test_a_layer_takes_its_first_inputs_dtype():
    # As TF1's layers: a cell or layer built without a dtype makes its variables in its first input's dtype.
    dtypes, losses = _lstm_losses(tw)
    assert dtypes == ["float16", "float16", "float16"]
    if not hasattr(v1.nn.rnn_cell, "LSTMCell") or not hasattr(v1.nn, "dynamic_rnn"):
        return
    try:
        want = _lstm_losses(v1)
    except (AttributeError, ValueError):  # TF 2.21's v1 cells need tf_keras (TF_USE_LEGACY_KERAS=1)
        return
    assert dtypes == want[0]
    np.testing.assert_allclose(losses, want[1], rtol=2e-3)

"""tw.layers against numpy: shapes, variable names, values, training modes."""

import numpy as np
import pytest

import tensorweave as tw


@pytest.fixture
def graph():
    with tw.Graph().as_default() as g:
        yield g


def _run(fetches, feed=None):
    with tw.Session() as sess:
        sess.run(tw.global_variables_initializer())
        return sess.run(fetches, feed)


def test_dense_matches_numpy_and_names_its_variables(graph):
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    y = tw.layers.dense(tw.constant(x), 3, activation=tw.nn.relu)
    y2 = tw.layers.dense(y, 2, use_bias=False)
    names = [v.name for v in tw.trainable_variables()]
    assert names == ["dense/kernel:0", "dense/bias:0", "dense_1/kernel:0"]
    kernel, bias, kernel2, out, out2 = _run(tw.trainable_variables() + [y, y2])
    np.testing.assert_allclose(out, np.maximum(x @ kernel + bias, 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out2, out @ kernel2, rtol=1e-5, atol=1e-6)
    # glorot_uniform kernel, zero bias by default
    limit = np.sqrt(6.0 / (4 + 3))
    assert np.all(np.abs(kernel) <= limit) and np.all(bias == 0)


def test_dense_reuse_and_bad_input(graph):
    x = tw.placeholder(tw.float32, [None, 4])
    a = tw.layers.dense(x, 3, name="shared")
    b = tw.layers.dense(x, 3, name="shared", reuse=True)
    assert len(tw.trainable_variables()) == 2
    value = np.ones((2, 4), np.float32)
    out_a, out_b = _run([a, b], {x: value})
    np.testing.assert_array_equal(out_a, out_b)
    with pytest.raises(ValueError, match="last dimension"):
        tw.layers.dense(tw.placeholder(tw.float32, [None, None]), 3)


def _conv_reference(x, w, b):
    n, h, wd, c = x.shape
    kh, kw, _, f = w.shape
    out = np.zeros((n, h - kh + 1, wd - kw + 1, f), np.float64)
    for i in range(out.shape[1]):
        for j in range(out.shape[2]):
            patch = x[:, i : i + kh, j : j + kw, :]
            out[:, i, j, :] = np.tensordot(patch, w, axes=([1, 2, 3], [0, 1, 2]))
    return out + b


def test_conv_pool_flatten_match_numpy(graph):
    x = np.random.default_rng(1).standard_normal((2, 6, 6, 3)).astype(np.float32)
    conv = tw.layers.conv2d(tw.constant(x), 4, 3, activation=tw.nn.relu)
    pooled = tw.layers.max_pooling2d(conv, 2, 2)
    averaged = tw.layers.average_pooling2d(conv, 2, 2)
    flat = tw.layers.flatten(pooled)
    assert conv.shape.as_list() == [2, 4, 4, 4]
    assert flat.shape.as_list() == [2, 16]
    kernel, bias = tw.trainable_variables()
    k, b, c, p, a, f = _run([kernel, bias, conv, pooled, averaged, flat])
    expected = np.maximum(_conv_reference(x, k, b), 0)
    np.testing.assert_allclose(c, expected, rtol=1e-4, atol=1e-5)
    blocks = expected.reshape(2, 2, 2, 2, 2, 4)
    np.testing.assert_allclose(p, blocks.max(axis=(2, 4)), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(a, blocks.mean(axis=(2, 4)), rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(f, p.reshape(2, -1))


def test_conv2d_same_padding_and_strides(graph):
    x = tw.placeholder(tw.float32, [None, 7, 7, 2])
    y = tw.layers.conv2d(x, 3, (3, 3), strides=2, padding="same")
    assert y.shape.as_list() == [None, 4, 4, 3]
    nchw = tw.placeholder(tw.float32, [None, 2, 7, 7])
    assert tw.layers.conv2d(nchw, 3, 3, strides=2, data_format="channels_first").shape.as_list() == [None, 3, 3, 3]
    with pytest.raises(ValueError, match="must be one of `channels_first`, `channels_last`"):
        tw.layers.conv2d(x, 3, 3, data_format="channels_middle")


def test_dropout_training_flag(graph):
    x = tw.ones([1000])
    training = tw.placeholder_with_default(False, [])
    y = tw.layers.dropout(x, rate=0.25, seed=3, training=training)
    off, on = _run(y), None
    with tw.Session() as sess:
        on = sess.run(y, {training: True})
    np.testing.assert_array_equal(off, np.ones(1000))
    assert set(np.unique(on)) <= {0.0, np.float32(1 / 0.75)}
    assert 650 < np.count_nonzero(on) < 850
    assert tw.layers.dropout(x, training=False).op.type == "Identity"


def test_batch_normalization_train_and_inference(graph):
    rng = np.random.default_rng(2)
    x_value = (rng.standard_normal((8, 3, 3, 4)) * 2 + 5).astype(np.float32)
    x = tw.placeholder(tw.float32, [None, 3, 3, 4])
    training = tw.placeholder_with_default(False, [])
    y = tw.layers.batch_normalization(x, momentum=0.9, epsilon=1e-3, training=training)
    updates = tw.get_collection(tw.GraphKeys.UPDATE_OPS)
    assert len(updates) == 2
    names = sorted(v.name for v in tw.global_variables())
    assert names == [
        "batch_normalization/beta:0",
        "batch_normalization/gamma:0",
        "batch_normalization/moving_mean:0",
        "batch_normalization/moving_variance:0",
    ]
    with tw.Session() as sess:
        sess.run(tw.global_variables_initializer())
        # Inference with fresh moving averages (0, 1): y = x / sqrt(1 + eps).
        np.testing.assert_allclose(sess.run(y, {x: x_value}), x_value / np.sqrt(1.001), rtol=1e-5)
        out, _ = sess.run([y, updates], {x: x_value, training: True})
        mean = x_value.mean(axis=(0, 1, 2))
        var = x_value.var(axis=(0, 1, 2))
        np.testing.assert_allclose(out, (x_value - mean) / np.sqrt(var + 1e-3), rtol=1e-4, atol=1e-4)
        moving_mean, moving_var = sess.run([v for v in tw.global_variables() if "moving" in v.name])
        n = x_value.size // 4
        np.testing.assert_allclose(moving_mean, 0.1 * mean, rtol=1e-4)
        np.testing.assert_allclose(moving_var, 0.9 + 0.1 * var * n / (n - 1), rtol=1e-4)


def test_layers_train_a_classifier(graph):
    """Layers + losses + an optimizer learn a separable problem."""
    rng = np.random.default_rng(3)
    x_value = rng.standard_normal((256, 2)).astype(np.float32)
    y_value = (x_value[:, 0] + x_value[:, 1] > 0).astype(np.int64)
    tw.set_random_seed(0)
    x = tw.placeholder(tw.float32, [None, 2])
    labels = tw.placeholder(tw.int64, [None])
    h = tw.layers.dense(x, 16, activation=tw.nn.relu)
    logits = tw.layers.dense(h, 2)
    loss = tw.losses.sparse_softmax_cross_entropy(labels, logits)
    train = tw.train.AdamOptimizer(0.05).minimize(loss)
    accuracy = tw.reduce_mean(tw.cast(tw.equal(tw.argmax(logits, 1), labels), tw.float32))
    with tw.Session() as sess:
        sess.run(tw.global_variables_initializer())
        for _ in range(100):
            sess.run(train, {x: x_value, labels: y_value})
        assert sess.run(accuracy, {x: x_value, labels: y_value}) > 0.95


@pytest.mark.parametrize(
    "init, check",
    [
        (lambda: tw.initializers.zeros(), lambda v: np.all(v == 0)),
        (lambda: tw.initializers.ones(), lambda v: np.all(v == 1)),
        (lambda: tw.initializers.constant(2.5), lambda v: np.all(v == 2.5)),
        # He: variance 2 / fan_in = 2 / 400, so the std is about 0.0707.
        (lambda: tw.initializers.he_normal(seed=1), lambda v: abs(v.std() - 0.0707) < 0.01),
        (lambda: tw.initializers.he_uniform(seed=1), lambda v: np.abs(v).max() <= np.sqrt(6 / 400)),
        (lambda: tw.initializers.glorot_normal(seed=1), lambda v: abs(v.std() - np.sqrt(2 / 800)) < 0.01),
    ],
)
def test_initializers(graph, init, check):
    v = tw.get_variable("v", [400, 400], initializer=init())
    assert check(_run(v))

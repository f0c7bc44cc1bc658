"""tw.keras BatchNormalization / LayerNormalization against tf_keras 2 (TF1 graph mode) with the same weights."""

import numpy as np
import pytest
import tensorweave as tw


def _tf_keras():
    tf1 = pytest.importorskip("tensorflow.compat.v1")
    tf_keras = pytest.importorskip("tf_keras")
    tf1.disable_v2_behavior()
    return tf1, tf_keras


def _weights(layer, rng):
    """Non-trivial values for every weight (variances positive)."""
    return [np.abs(rng.randn(*w.shape.as_list())).astype(np.float32) + 0.5 for w in layer.weights]


def _both(make, x, call_kwargs, feed_phase=None, steps=1):
    """Outputs, gradients of sum(y*y) w.r.t. the trainable weights, and the weights after running the layer's
    updates `steps` times, in both libraries."""
    tf1, tf_keras = _tf_keras()
    results = []
    for lib, g in (("tw", tw), ("tf", tf1)):
        keras = tw.keras if lib == "tw" else tf_keras
        with g.Graph().as_default():
            inp = g.placeholder(g.float32, [None] + list(x.shape[1:]))
            layer = make(keras.layers)
            y = layer(inp, **call_kwargs)
            grads = g.gradients(g.reduce_sum(y * y), layer.trainable_weights)
            names = [v.name for v in layer.weights]
            feed = {inp: x}
            if feed_phase is not None:
                feed[keras.backend.learning_phase()] = feed_phase
            with g.Session() as sess:
                sess.run(g.global_variables_initializer())
                if lib == "tw":
                    values = _weights(layer, np.random.RandomState(5))
                for v, w in zip(layer.weights, values):
                    v.load(w, sess)
                out, grad = sess.run([y, grads], feed)
                for _ in range(steps):
                    sess.run(layer.updates, feed)
                after = sess.run(layer.weights)
            results.append((names, out, grad, after, len(layer.updates)))
    return results


BN_CASES = [
    ((6, 3), {}),
    ((4, 5, 3), {}),
    ((4, 3, 3, 2), {}),
    ((4, 2, 3, 3), {"axis": 1}),
    ((3, 2, 2, 2, 3), {}),
    ((5, 4), {"center": False}),
    ((5, 4), {"scale": False, "momentum": 0.5, "epsilon": 0.1}),
    ((4, 3, 5), {"axis": [1, 2]}),
]


@pytest.mark.parametrize("shape, kwargs", BN_CASES)
@pytest.mark.parametrize("training", [True, False])
def test_batch_normalization_matches_tf_keras(shape, kwargs, training):
    x = (np.random.RandomState(0).randn(*shape) * 2 + 1).astype(np.float32)
    ours, theirs = _both(lambda L: L.BatchNormalization(**kwargs), x, {"training": training})
    assert ours[0] == theirs[0]  # variable names
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-4, atol=1e-4)
    for a, b in zip(ours[2], theirs[2]):
        np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-3)
    for a, b in zip(ours[3], theirs[3]):  # moving averages after the updates
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    assert ours[4] == (2 if training else 0)


@pytest.mark.parametrize("phase", [True, False])
def test_batch_normalization_follows_learning_phase(phase):
    x = np.random.RandomState(1).randn(8, 3).astype(np.float32)
    ours, theirs = _both(lambda L: L.BatchNormalization(momentum=0.9), x, {}, feed_phase=phase, steps=2)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-4, atol=1e-4)
    for a, b in zip(ours[3], theirs[3]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_batch_normalization_updates_collection_and_names():
    with tw.Graph().as_default():
        x = tw.placeholder(tw.float32, [None, 4])
        bn = tw.keras.layers.BatchNormalization()
        bn(x, training=True)
        bn2 = tw.keras.layers.BatchNormalization(trainable=False)
        bn2(x, training=True)  # a frozen layer runs in inference mode: no updates
        assert [v.name for v in bn.weights] == [
            "batch_normalization/gamma:0",
            "batch_normalization/beta:0",
            "batch_normalization/moving_mean:0",
            "batch_normalization/moving_variance:0",
        ]
        assert [v.name for v in bn.non_trainable_weights] == [
            "batch_normalization/moving_mean:0",
            "batch_normalization/moving_variance:0",
        ]
        assert len(bn.updates) == 2 and bn2.updates == []
        assert tw.get_collection(tw.GraphKeys.UPDATE_OPS) == bn.updates
        assert bn2.trainable_weights == []


def test_batch_normalization_sgd_step_matches_tf_keras():
    """One SGD step of a Dense+BN model in training mode, moving averages included."""
    tf1, tf_keras = _tf_keras()
    rng = np.random.RandomState(3)
    x = rng.randn(8, 4).astype(np.float32)
    t = rng.randn(8, 3).astype(np.float32)
    results = []
    for g, keras in ((tw, tw.keras), (tf1, tf_keras)):
        with g.Graph().as_default():
            inp = g.placeholder(g.float32, [None, 4])
            dense, bn = keras.layers.Dense(3), keras.layers.BatchNormalization()
            y = bn(dense(inp), training=True)
            loss = g.reduce_mean(g.square(y - t))
            with g.control_dependencies(bn.updates):
                train = g.train.GradientDescentOptimizer(0.1).minimize(loss)
            with g.Session() as sess:
                sess.run(g.global_variables_initializer())
                if g is tw:
                    init = sess.run(dense.weights + bn.weights)
                for v, w in zip(dense.weights + bn.weights, init):
                    v.load(w, sess)
                sess.run(train, {inp: x})
                results.append(sess.run(dense.weights + bn.weights))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_batch_normalization_errors():
    with tw.Graph().as_default():
        with pytest.raises(ValueError, match="Invalid value for `axis` argument"):
            tw.keras.layers.BatchNormalization(axis=2)(tw.placeholder(tw.float32, [None, 3]))
        with pytest.raises(ValueError, match="undefined `axis` dimension"):
            tw.keras.layers.BatchNormalization()(tw.placeholder(tw.float32, [None, None]))
        with pytest.raises(ValueError, match="fused=True"):
            tw.keras.layers.BatchNormalization(fused=True)(tw.placeholder(tw.float32, [None, 3]))
        bn = tw.keras.layers.BatchNormalization(name="bn")
        bn(tw.placeholder(tw.float32, [None, 3]))
        with pytest.raises(ValueError, match='layer "bn".*expected ndim=2, found ndim=3'):
            bn(tw.placeholder(tw.float32, [None, 2, 3]))


@pytest.mark.parametrize(
    "shape, kwargs",
    [((4, 6), {}), ((2, 3, 5), {}), ((2, 3, 4, 5), {"axis": [1, 2, 3]}), ((3, 4, 5), {"axis": 1, "epsilon": 0.1}),
     ((3, 5), {"center": False}), ((3, 5), {"scale": False})],
)  # fmt: skip
def test_layer_normalization_matches_tf_keras(shape, kwargs):
    x = (np.random.RandomState(2).randn(*shape) * 3 - 1).astype(np.float32)
    ours, theirs = _both(lambda L: L.LayerNormalization(**kwargs), x, {})
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-4, atol=1e-4)
    for a, b in zip(ours[2], theirs[2]):
        np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-3)


def test_layer_normalization_errors():
    with tw.Graph().as_default(), pytest.raises(ValueError, match="Invalid value for `axis` argument"):
        tw.keras.layers.LayerNormalization(axis=3)(tw.placeholder(tw.float32, [None, 3]))

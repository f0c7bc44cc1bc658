"""tw.keras layers in TF1 graph programs, against tf_keras 2 in TF1 graph mode with the same weights."""

import numpy as np
import pytest
import tensorweave as tw


def _tf_keras():
    tf1 = pytest.importorskip("tensorflow.compat.v1")
    tf_keras = pytest.importorskip("tf_keras")
    tf1.disable_v2_behavior()
    return tf1, tf_keras


def _run_both(make_layers, x_np):
    """Builds the same layer stack in both libraries, copies tensorweave's weights into tf_keras's, runs both."""
    tf1, tf_keras = _tf_keras()
    with tw.Graph().as_default():
        x = tw.keras.Input(x_np.shape[1:])
        layers = make_layers(tw.keras.layers)
        y = x
        for layer in layers:
            y = layer(y)
        names = [v.name for v in tw.trainable_variables()]
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            weights = sess.run(tw.trainable_variables())
            ours = sess.run(y, {x: x_np})
    with tf1.Graph().as_default():
        x = tf_keras.Input(x_np.shape[1:])
        layers = make_layers(tf_keras.layers)
        y = x
        for layer in layers:
            y = layer(y)
        their_names = [v.name for v in tf1.trainable_variables()]
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            for v, w in zip(tf1.trainable_variables(), weights):
                v.load(w, sess)
            theirs = sess.run(y, {x: x_np})
    return ours, theirs, names, their_names


def test_dense_stack_matches_tf_keras():
    x = np.random.RandomState(0).randn(5, 4).astype(np.float32)
    ours, theirs, names, their_names = _run_both(
        lambda L: [L.Dense(3, activation="relu"), L.Dense(2, activation="softmax")], x
    )
    assert names == their_names == ["dense/kernel:0", "dense/bias:0", "dense_1/kernel:0", "dense_1/bias:0"]
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def test_conv_pool_flatten_matches_tf_keras():
    x = np.random.RandomState(1).randn(2, 8, 8, 3).astype(np.float32)
    ours, theirs, names, their_names = _run_both(
        lambda L: [
            L.Conv2D(4, 3, padding="same", activation="tanh"),
            L.MaxPooling2D(2),
            L.Flatten(),
            L.Activation("sigmoid"),
        ],
        x,
    )
    assert names == their_names
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)


def test_dropout_follows_learning_phase():
    with tw.Graph().as_default():
        x = tw.keras.Input((1000,))
        y = tw.keras.layers.Dropout(0.5)(x)
        ones = np.ones((1, 1000), np.float32)
        with tw.Session() as sess:
            np.testing.assert_array_equal(sess.run(y, {x: ones}), ones)
            train = sess.run(y, {x: ones, tw.keras.backend.learning_phase(): True})
    assert set(np.unique(train)) <= {0.0, 2.0}
    assert 300 < np.count_nonzero(train) < 700


def test_dense_trains_with_tf_train_optimizer():
    rng = np.random.RandomState(2)
    xs = rng.randn(64, 3).astype(np.float32)
    ys = xs @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3
    with tw.Graph().as_default():
        x = tw.keras.Input((3,))
        t = tw.placeholder(tw.float32, [None, 1])
        y = tw.keras.layers.Dense(1)(x)
        loss = tw.reduce_mean(tw.square(y - t))
        step = tw.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            first = sess.run(loss, {x: xs, t: ys})
            for _ in range(200):
                sess.run(step, {x: xs, t: ys})
            last = sess.run(loss, {x: xs, t: ys})
    assert last < 1e-4 < first


def test_unknown_activation_is_a_value_error():
    with pytest.raises(ValueError, match="Unknown activation function: 'nope'"):
        tw.keras.layers.Dense(2, activation="nope")


def test_input_needs_a_shape():
    with tw.Graph().as_default(), pytest.raises(ValueError, match="shape"):
        tw.keras.Input()


def test_compat_v1_has_keras():
    assert tw.compat.v1.keras.layers.Dense is tw.keras.layers.Dense

"""tw.keras.Sequential compile/fit/evaluate/predict against tf_keras 2 in TF1 graph mode, same initial weights."""

import numpy as np
import pytest
import tensorweave as tw

RNG = np.random.RandomState(0)
X = RNG.randn(48, 4).astype(np.float32)
Y = (X[:, 0] + X[:, 1] > 0).astype(np.int64)


def _model(keras):
    return keras.Sequential(
        [keras.layers.Dense(8, activation="tanh", input_shape=(4,)), keras.layers.Dense(2, activation="softmax")]
    )


def test_fit_evaluate_predict_match_tf_keras():
    tf1 = pytest.importorskip("tensorflow.compat.v1")
    tf_keras = pytest.importorskip("tf_keras")
    tf1.disable_v2_behavior()
    with tw.Graph().as_default(), tw.Session().as_default():
        m = _model(tw.keras)
        m.compile(tw.train.GradientDescentOptimizer(0.1), "sparse_categorical_crossentropy", metrics=["accuracy"])
        weights = m.get_weights()
        ours = m.fit(X, Y, batch_size=16, epochs=3, verbose=0, shuffle=False, validation_data=(X[:8], Y[:8]))
        our_eval = m.evaluate(X, Y, verbose=0)
        our_pred = m.predict(X[:5])
    with tf1.Graph().as_default(), tf1.Session().as_default():
        m = _model(tf_keras)
        m.compile(tf_keras.optimizers.legacy.SGD(0.1), "sparse_categorical_crossentropy", metrics=["accuracy"])
        m.set_weights(weights)
        theirs = m.fit(X, Y, batch_size=16, epochs=3, verbose=0, shuffle=False, validation_data=(X[:8], Y[:8]))
        their_eval = m.evaluate(X, Y, verbose=0)
        their_pred = m.predict(X[:5])
    assert set(ours.history) == set(theirs.history) == {"loss", "acc", "val_loss", "val_acc"}  # TF1 graph-mode names
    for key in theirs.history:
        np.testing.assert_allclose(ours.history[key], theirs.history[key], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(our_eval, their_eval, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(our_pred, their_pred, rtol=1e-4, atol=1e-6)


def test_mse_training_reduces_loss():
    with tw.Graph().as_default(), tw.Session().as_default():
        m = tw.keras.Sequential([tw.keras.layers.Dense(1, input_shape=(4,))])
        m.compile("adam", "mse")
        h = m.fit(X, X @ np.array([1.0, 2.0, -1.0, 0.5], np.float32), epochs=5, verbose=0)
    assert list(h.history) == ["loss"] and h.history["loss"][-1] < h.history["loss"][0]


def test_unknown_loss_and_optimizer_are_value_errors():
    with tw.Graph().as_default():
        m = _model(tw.keras)
        with pytest.raises(ValueError, match="Unknown loss function: .nope."):
            m.compile("sgd", "nope")
        with pytest.raises(ValueError, match="Unknown optimizer: .nope."):
            m.compile("nope", "mse")

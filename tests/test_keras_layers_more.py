"""tw.keras shape, merge, activation and embedding layers against tf_keras 2 in TF1 graph mode."""

import numpy as np
import pytest
import tensorweave as tw


def _both(build, feeds_np, dtypes=None):
    tf1 = pytest.importorskip("tensorflow.compat.v1")
    tf_keras = pytest.importorskip("tf_keras")
    tf1.disable_v2_behavior()
    dtypes = dtypes or ["float32"] * len(feeds_np)
    results = []
    for lib, keras in ((tw, tw.keras), (tf1, tf_keras)):
        with lib.Graph().as_default():
            xs = [keras.Input(a.shape[1:], dtype=d) for a, d in zip(feeds_np, dtypes)]
            y = build(keras.layers, xs)
            names = [v.name for v in lib.trainable_variables()]
            with lib.Session() as sess:
                sess.run(lib.global_variables_initializer())
                if lib is tw:
                    weights = sess.run(lib.trainable_variables())
                else:
                    for v, w in zip(lib.trainable_variables(), weights):
                        v.load(w, sess)
                results.append((sess.run(y, dict(zip(xs, feeds_np))), names))
    (ours, our_names), (theirs, their_names) = results
    assert our_names == their_names
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


RNG = np.random.RandomState(0)
A = RNG.randn(3, 4).astype(np.float32)
B = RNG.randn(3, 4).astype(np.float32)
IMG = RNG.randn(2, 5, 6, 3).astype(np.float32)
SEQ = RNG.randn(2, 7, 3).astype(np.float32)


@pytest.mark.parametrize(
    "build",
    [
        lambda L, x: L.Reshape((2, 2))(x[0]),
        lambda L, x: L.RepeatVector(3)(x[0]),
        lambda L, x: L.ReLU()(x[0]),
        lambda L, x: L.LeakyReLU(0.1)(x[0]),
        lambda L, x: L.Softmax()(x[0]),
        lambda L, x: L.Lambda(lambda t: t * 2.0 + 1.0)(x[0]),
        lambda L, x: L.Dense(3, activation="elu")(x[0]),
    ],
)
def test_single_input_layers(build):
    _both(build, [A])


@pytest.mark.parametrize(
    "build",
    [
        lambda L, x: L.concatenate([x[0], x[1]]),
        lambda L, x: L.Concatenate(axis=0)([x[0], x[1]]),
        lambda L, x: L.add([x[0], x[1]]),
        lambda L, x: L.Subtract()([x[0], x[1]]),
        lambda L, x: L.Multiply()([x[0], x[1]]),
        lambda L, x: L.Average()([x[0], x[1]]),
        lambda L, x: L.Maximum()([x[0], x[1]]),
    ],
)
def test_merge_layers(build):
    _both(build, [A, B])


@pytest.mark.parametrize(
    "build",
    [
        lambda L, x: L.GlobalAveragePooling2D()(x[0]),
        lambda L, x: L.GlobalMaxPooling2D()(x[0]),
        lambda L, x: L.ZeroPadding2D((1, 2))(x[0]),
        lambda L, x: L.Cropping2D(((1, 0), (2, 1)))(x[0]),
        lambda L, x: L.Permute((3, 1, 2))(x[0]),
        lambda L, x: L.AveragePooling2D()(x[0]),
    ],
)
def test_image_layers(build):
    _both(build, [IMG])


@pytest.mark.parametrize(
    "build",
    [
        lambda L, x: L.GlobalAveragePooling1D()(x[0]),
        lambda L, x: L.GlobalMaxPooling1D()(x[0]),
        lambda L, x: L.MaxPooling1D()(x[0]),
        lambda L, x: L.Conv1D(2, 3, activation="relu")(x[0]),
    ],
)
def test_sequence_layers(build):
    _both(build, [SEQ])


def test_embedding_matches_and_is_named_like_keras():
    ids = np.array([[1, 2, 3], [9, 0, 4]], np.int32)
    _both(lambda L, x: L.Embedding(10, 4)(x[0]), [ids], dtypes=["int32"])


def test_wrong_rank_names_the_layer():
    with tw.Graph().as_default():
        x = tw.keras.Input((4,))
        with pytest.raises(ValueError, match="global_average_pooling2d.*expected ndim=4, found ndim=2"):
            tw.keras.layers.GlobalAveragePooling2D()(x)


def test_merge_needs_a_list():
    with tw.Graph().as_default():
        x = tw.keras.Input((4,))
        with pytest.raises(ValueError, match="at least 2 inputs"):
            tw.keras.layers.Add()([x])

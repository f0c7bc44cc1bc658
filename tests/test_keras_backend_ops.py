"""tf.keras.backend's math, shape, loss, convolution and control helpers (`K.`) against tf_keras 2 in TF1 graph
mode: the same inputs give the same values, shapes and dtypes."""

import numpy as np
import pytest
import tensorweave as tw

RNG = np.random.RandomState(0)
A = RNG.randn(2, 3, 4).astype(np.float32)
B = RNG.randn(2, 4, 5).astype(np.float32)
M = RNG.randn(3, 4).astype(np.float32)
P = RNG.rand(3, 4).astype(np.float32)
T = (RNG.rand(3, 4) > 0.5).astype(np.float32)
IMG = RNG.randn(1, 5, 5, 2).astype(np.float32)
KERN = RNG.randn(3, 3, 2, 4).astype(np.float32)


def _outputs(K):
    a, b, m, p, t = (K.constant(v) for v in (A, B, M, P, T))
    img, kern = K.constant(IMG), K.constant(KERN)
    return [
        K.abs(m), K.sign(m), K.round(m), K.hard_sigmoid(m), K.elu(m, 0.5), K.relu(m, 0.1, 1.0),
        K.max(m, 1), K.min(m, 0, True), K.prod(m, 1), K.var(m, 0), K.std(m), K.any(m > 0, 1), K.all(m > -1, 0),
        K.argmax(m), K.cumsum(m, 1), K.cumprod(m, 0), K.batch_dot(a, b), K.batch_dot(a, a, axes=(2, 2)),
        K.batch_flatten(a), K.permute_dimensions(a, (0, 2, 1)), K.repeat(m, 2), K.repeat_elements(m, 2, 1),
        K.reverse(m, 1), K.one_hot(K.constant([0, 2], dtype="int32"), 3), K.tile(m, (1, 2)),
        K.binary_crossentropy(t, p), K.binary_crossentropy(t, m, from_logits=True), K.categorical_crossentropy(t, p),
        K.sparse_categorical_crossentropy(K.constant([1, 0, 3]), p), K.conv2d(img, kern, padding="same"),
        K.conv2d(img, kern, strides=(2, 2)), K.pool2d(img, (2, 2), (2, 2), pool_mode="avg"),
        K.temporal_padding(a, (1, 2)), K.spatial_2d_padding(img), K.resize_images(img, 2, 2, "channels_last"),
        K.switch(K.constant(True), m, -m), K.switch(m > 0, m, m * 0.1), K.l2_normalize(m, 1),
        K.bias_add(m, K.constant([1.0, 2.0, 3.0, 4.0])), K.in_top_k(p, K.constant([0, 1, 2], dtype="int32"), 2),
        K.arange(5), K.softsign(m), K.softplus(m), K.gather(m, [2, 0]),
    ]  # fmt: skip


def test_backend_helpers_match_tf_keras():
    tf1 = pytest.importorskip("tensorflow.compat.v1")
    tf_keras = pytest.importorskip("tf_keras")
    tf1.disable_v2_behavior()
    with tw.Graph().as_default(), tw.Session() as sess:
        K = tw.keras.backend
        ours = sess.run(_outputs(K))
        facts = (K.ndim(K.constant(A)), K.dtype(K.constant(A)), K.count_params(K.constant(M)), K.image_data_format())
    with tf1.Graph().as_default(), tf1.Session() as sess:
        K = tf_keras.backend
        theirs = sess.run(_outputs(K))
        assert facts == (K.ndim(K.constant(A)), K.dtype(K.constant(A)), K.count_params(K.constant(M)), "channels_last")
    assert len(ours) == len(theirs)
    for i, (got, want) in enumerate(zip(ours, theirs)):
        assert got.shape == want.shape and got.dtype == want.dtype, i
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=str(i))


def test_learning_phase_scope_and_errors():
    K = tw.keras.backend
    with tw.Graph().as_default(), tw.Session() as sess:
        x = K.constant([1.0, 2.0])
        with K.learning_phase_scope(1):
            train = K.in_train_phase(x * 2.0, x)
        assert sess.run(train).tolist() == [2.0, 4.0]
        assert sess.run(K.in_train_phase(x * 2.0, x)).tolist() == [1.0, 2.0]  # the default phase: test
        with pytest.raises(ValueError, match="Cannot do batch_dot on inputs with rank < 2"):
            K.batch_dot(x, x)
        with pytest.raises(ValueError, match="Invalid pooling mode"):
            K.pool2d(K.constant(IMG), (2, 2), pool_mode="median")
        with pytest.raises(ValueError, match="Unknown data_format"):
            K.set_image_data_format("nhwc")


def test_layer_aliases_and_minimum_dot():
    L = tw.keras.layers
    assert L.AvgPool2D is L.AveragePooling2D and L.MaxPool1D is L.MaxPooling1D
    assert L.GlobalAvgPool3D is L.GlobalAveragePooling3D and L.GlobalMaxPool2D is L.GlobalMaxPooling2D
    with tw.Graph().as_default(), tw.Session() as sess:
        a, b = tw.constant([[1.0, 5.0], [3.0, 2.0]]), tw.constant([[2.0, 1.0], [0.0, 4.0]])
        low, d = sess.run([L.minimum([a, b]), L.dot([a, b], axes=1)])
    np.testing.assert_array_equal(low, [[1.0, 1.0], [0.0, 2.0]])
    np.testing.assert_array_equal(d, [[7.0], [8.0]])

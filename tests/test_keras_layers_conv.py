"""tw.keras convolution-family layers against tf_keras 2 (TF1 graph mode) with the same weights."""

import numpy as np
import pytest
import tensorweave as tw


def _tf_keras():
    tf1 = pytest.importorskip("tensorflow.compat.v1")
    tf_keras = pytest.importorskip("tf_keras")
    tf1.disable_v2_behavior()
    return tf1, tf_keras


def _both(make, x, make_theirs=None):
    """Names, outputs and input/weight gradients of sum(y^2) of the same layer in both libraries."""
    tf1, tf_keras = _tf_keras()
    results, values = [], None
    for g, keras in ((tw, tw.keras), (tf1, tf_keras)):
        with g.Graph().as_default():
            inp = g.placeholder(g.float32, [None, *x.shape[1:]])
            layer = (make_theirs if (make_theirs and g is tf1) else make)(keras.layers)
            y = layer(inp)
            grads = g.gradients(g.reduce_sum(g.square(y)), [inp] + layer.weights)
            with g.Session() as sess:
                sess.run(g.global_variables_initializer())
                if values is None:
                    rng = np.random.RandomState(0)
                    values = [rng.randn(*w.shape.as_list()).astype(np.float32) for w in layer.weights]
                for v, w in zip(layer.weights, values):
                    v.load(w, sess)
                out, grad = sess.run([y, grads], {inp: x})
            results.append(([w.name for w in layer.weights], out, grad))
    (names, out, grad), (their_names, their_out, their_grad) = results
    assert names == their_names
    np.testing.assert_allclose(out, their_out, rtol=1e-4, atol=1e-4)
    for a, b in zip(grad, their_grad):
        np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-3)
    return out


R = np.random.RandomState(1)
X1 = R.randn(2, 9, 3).astype(np.float32)
X2 = R.randn(2, 7, 8, 4).astype(np.float32)
X3 = R.randn(2, 4, 5, 6, 2).astype(np.float32)

CASES = [
    (lambda L: L.Conv1D(4, 3), X1),
    (lambda L: L.Conv1D(4, 3, padding="causal", dilation_rate=2, activation="relu"), X1),
    (lambda L: L.Conv1D(2, 3, strides=2, padding="same", use_bias=False), X1),
    (lambda L: L.Conv2D(5, 3, dilation_rate=2, padding="same"), X2),
    (lambda L: L.Conv2D(3, (2, 3), strides=(2, 1), activation="tanh"), X2),
    (lambda L: L.Conv3D(3, 2), X3),
    (lambda L: L.Conv3D(2, (1, 2, 3), strides=(1, 2, 1), padding="same"), X3),
    (lambda L: L.DepthwiseConv2D(3, depth_multiplier=2), X2),
    (lambda L: L.DepthwiseConv2D((3, 2), strides=2, padding="same", activation="relu"), X2),
    (lambda L: L.DepthwiseConv2D(3, dilation_rate=2, use_bias=False), X2),
    (lambda L: L.MaxPooling3D(), X3),
    (lambda L: L.AveragePooling3D(pool_size=2, strides=1, padding="same"), X3),
    (lambda L: L.GlobalAveragePooling3D(), X3),
    (lambda L: L.GlobalMaxPooling3D(), X3),
    (lambda L: L.UpSampling1D(3), X1),
    (lambda L: L.UpSampling2D((2, 3)), X2),
    (lambda L: L.UpSampling2D(interpolation="bilinear"), X2),
    (lambda L: L.ZeroPadding1D((1, 2)), X1),
    (lambda L: L.ZeroPadding3D(1), X3),
    (lambda L: L.ZeroPadding3D(((1, 0), (0, 2), (1, 1))), X3),
    (lambda L: L.Cropping1D((1, 2)), X1),
    (lambda L: L.SeparableConv1D(4, 3, depth_multiplier=2, depthwise_initializer="he_normal"), X1),
    (lambda L: L.Conv3DTranspose(2, 2, strides=2, padding="same"), X3),
    (lambda L: L.Conv2DTranspose(3, 3, strides=2, activation="relu"), X2),
    (lambda L: L.SeparableConv2D(3, 3, padding="same"), X2),
    (lambda L: L.UpSampling3D((1, 2, 3)), X3),
    (lambda L: L.Cropping3D(((1, 0), (1, 2), (0, 3))), X3),
    (lambda L: L.Cropping3D(1), X3),
]


@pytest.mark.parametrize("index", range(len(CASES)))
def test_layer_matches_tf_keras(index):
    make, x = CASES[index]
    _both(make, x)


def test_grouped_conv2d():
    """groups=2 against numpy (TF has no CPU kernel for a grouped Conv2D)."""
    with tw.Graph().as_default():
        inp = tw.placeholder(tw.float32, [None, 7, 8, 4])
        layer = tw.keras.layers.Conv2D(6, 3, groups=2)
        y = layer(inp)
        assert layer.weights[0].shape.as_list() == [3, 3, 2, 6]
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            kernel, bias = sess.run(layer.weights)
            out = sess.run(y, {inp: X2})
    # Each group's convolution in numpy: output channels 3g..3g+2 see input channels 2g, 2g+1 only.
    ref = np.zeros_like(out)
    for gi in range(2):
        xg = X2[..., 2 * gi : 2 * gi + 2]
        for oc in range(3 * gi, 3 * gi + 3):
            for i in range(5):
                for j in range(6):
                    ref[:, i, j, oc] = np.einsum("bhwc,hwc->b", xg[:, i : i + 3, j : j + 3], kernel[..., oc]) + bias[oc]
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


def test_channels_first_equals_transposed_channels_last():
    x = X2
    with tw.Graph().as_default():
        a = tw.keras.layers.Conv2D(3, 3, padding="same", data_format="channels_first")
        b = tw.keras.layers.Conv2D(3, 3, padding="same")
        inp = tw.placeholder(tw.float32, [None, 7, 8, 4])
        ya = a(tw.transpose(inp, [0, 3, 1, 2]))
        yb = b(inp)
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            for v, w in zip(b.weights, sess.run(a.weights)):
                v.load(w, sess)
            ra, rb = sess.run([ya, yb], {inp: x})
    np.testing.assert_allclose(ra, rb.transpose(0, 3, 1, 2), rtol=1e-5, atol=1e-5)


def test_conv_errors():
    L = tw.keras.layers
    with pytest.raises(ValueError, match="filters"):
        L.Conv2D(-1, 3)
    with pytest.raises(ValueError, match="evenly divisible by the number of groups"):
        L.Conv2D(5, 3, groups=2)
    with pytest.raises(ValueError, match="dilation_rate > 1"):
        L.Conv2D(2, 3, strides=2, dilation_rate=2)
    with pytest.raises(ValueError, match="Causal padding"):
        L.Conv2D(2, 3, padding="causal")
    with pytest.raises(ValueError, match="kernel_size"):
        L.Conv2D(2, (3, 3, 3))
    with pytest.raises(ValueError, match="interpolation"):
        L.UpSampling2D(interpolation="cubic")
    with tw.Graph().as_default():
        with pytest.raises(ValueError, match='layer "conv2d".*expected min_ndim=4, found ndim=3'):
            L.Conv2D(2, 3)(tw.placeholder(tw.float32, [None, 5, 5]))
        with pytest.raises(ValueError, match="input channels must be evenly divisible"):
            L.Conv2D(4, 3, groups=2)(tw.placeholder(tw.float32, [None, 5, 5, 3]))
        with pytest.raises(ValueError, match="channel dimension of the inputs should be defined"):
            L.Conv1D(4, 3)(tw.placeholder(tw.float32, [None, 5, None]))
        with pytest.raises(ValueError, match="must be smaller than the input length"):
            L.Cropping1D((3, 3))(tw.placeholder(tw.float32, [None, 5, 2]))
        with pytest.raises(ValueError, match="expected ndim=5"):
            L.GlobalMaxPooling3D()(tw.placeholder(tw.float32, [None, 5, 2]))

"""tw.layers class forms and the new functional layers against numpy: a Layer subclass's build/call and weights,
reuse of a layer object, constructor errors, regularization losses, conv1d/conv3d/transposes/separable/pooling
values (TensorFlow comparisons: tests/fidelity/cases_layers.py)."""

import numpy as np
import pytest
import tensorweave as tw


@pytest.fixture(autouse=True)
def graph():
    with tw.Graph().as_default() as g:
        yield g


def _run(fetches, feed=None):
    with tw.Session() as sess:
        sess.run(tw.global_variables_initializer())
        return sess.run(fetches, feed)


class _Scale(tw.layers.Layer):
    def build(self, input_shape):
        self.k = self.add_weight("k", [int(input_shape[-1])], initializer=tw.constant_initializer(2.0))
        self.counter = self.add_weight("n", [], initializer=tw.zeros_initializer(), trainable=False)

    def call(self, inputs):
        return inputs * self.k


def test_layer_subclass_builds_once_and_reuses_its_weights():
    layer = _Scale()
    a = layer(tw.constant([[1.0, 2.0]]))
    b = layer(tw.constant([[3.0, 4.0]]))
    assert [v.name for v in layer.weights] == ["private__scale/k:0", "private__scale/n:0"]
    assert [v.name for v in layer.trainable_weights] == ["private__scale/k:0"]
    assert [v.name for v in layer.non_trainable_weights] == ["private__scale/n:0"]
    np.testing.assert_allclose(_run([a, b]), [[[2.0, 4.0]], [[6.0, 8.0]]])


def test_dense_class_matches_numpy_and_collects_regularization_losses():
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    layer = tw.layers.Dense(2, kernel_regularizer=lambda w: tw.reduce_sum(tw.square(w)), name="fc")
    y = layer(tw.constant(x))
    assert layer.name == "fc" and layer.kernel.name == "fc/kernel:0" and layer.bias.name == "fc/bias:0"
    assert len(layer.losses) == 1 and tw.losses.get_regularization_losses() == layer.losses
    kernel, out, reg = _run([layer.kernel, y, layer.losses[0]])
    np.testing.assert_allclose(out, x @ kernel, rtol=1e-5)
    np.testing.assert_allclose(reg, (kernel**2).sum(), rtol=1e-5)
    assert layer.get_config()["units"] == 2


def test_layer_constructor_errors():
    with pytest.raises(TypeError, match="missing required"):
        tw.layers.Dense()
    with pytest.raises(TypeError, match="not understood"):
        tw.layers.Dense(3, bogus=1)
    with pytest.raises(TypeError, match="multiple values"):
        tw.layers.Dense(3, units=4)


def test_two_unnamed_layers_get_distinct_scopes():
    x = tw.ones([2, 3])
    a, b = tw.layers.Dense(2), tw.layers.Dense(2)
    a(x)
    b(x)
    assert (a.name, b.name) == ("dense", "dense_1")


def test_conv1d_layer_matches_numpy():
    x = np.random.default_rng(1).standard_normal((2, 7, 3)).astype(np.float32)
    layer = tw.layers.Conv1D(4, 3, strides=2)
    y = layer(tw.constant(x))
    kernel, bias, out = _run([layer.kernel, layer.bias, y])
    want = np.stack([np.tensordot(x[:, 2 * i : 2 * i + 3], kernel, axes=([1, 2], [0, 1])) for i in range(3)], 1)
    np.testing.assert_allclose(out, want + bias, rtol=1e-5, atol=1e-5)


def test_conv2d_transpose_layer_is_the_adjoint_of_conv2d():
    # <conv2d_transpose(y), x> == <y, conv2d(x)> with the same kernel and no bias.
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 6, 6, 2)).astype(np.float32)
    y = rng.standard_normal((1, 3, 3, 3)).astype(np.float32)
    t = tw.layers.conv2d_transpose(tw.constant(y), 2, 2, strides=2, use_bias=False, name="t")
    kernel = tw.trainable_variables()[0]
    c = tw.nn.conv2d(tw.constant(x), kernel, [1, 2, 2, 1], "VALID")
    tv, cv = _run([t, c])
    assert tv.shape == x.shape
    np.testing.assert_allclose((tv * x).sum(), (y * cv).sum(), rtol=1e-4)


def test_pooling3d_and_separable_layers_shapes():
    x = tw.placeholder(tw.float32, [None, 4, 6, 8, 2])
    assert tw.layers.max_pooling3d(x, 2, 2).shape.as_list() == [None, 2, 3, 4, 2]
    assert tw.layers.AveragePooling3D([1, 2, 2], 1, padding="same")(x).shape.as_list() == [None, 4, 6, 8, 2]
    s = tw.layers.SeparableConv1D(5, 3, depth_multiplier=3)
    out = s(tw.placeholder(tw.float32, [None, 10, 2]))
    assert out.shape.as_list() == [None, 8, 5]
    assert [v.shape.as_list() for v in s.weights] == [[3, 2, 3], [1, 6, 5], [5]]
    with pytest.raises(ValueError, match="padding"):
        tw.layers.conv3d(x, 2, 2, padding="full")
    with pytest.raises(ValueError, match="channels_last"):
        tw.layers.conv3d(x, 2, 2, data_format="channels_first")

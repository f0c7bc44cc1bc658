"""tw.keras.initializers / regularizers / constraints against tf_keras 2 (TF1 graph mode) and numpy."""

import numpy as np
import pytest
import tensorweave as tw

k = tw.keras


def _tf_keras():
    tf1 = pytest.importorskip("tensorflow.compat.v1")
    tf_keras = pytest.importorskip("tf_keras")
    tf1.disable_v2_behavior()
    return tf1, tf_keras


def _run(fn):
    with tw.Graph().as_default():
        out = fn()
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            return sess.run(out)


def _run_tf(fn):
    tf1, _ = _tf_keras()
    with tf1.Graph().as_default():
        out = fn()
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            return sess.run(out)


INIT_CLASSES = [
    "Zeros", "Ones", "Constant", "RandomUniform", "RandomNormal", "TruncatedNormal", "VarianceScaling",
    "GlorotUniform", "GlorotNormal", "HeUniform", "HeNormal", "LecunUniform", "LecunNormal", "Orthogonal",
    "Identity",
]  # fmt: skip


@pytest.mark.parametrize("name", INIT_CLASSES)
def test_initializer_configs_match_tf_keras(name):
    _, tf_keras = _tf_keras()
    ours = k.initializers.serialize(getattr(k.initializers, name)())
    theirs = tf_keras.initializers.serialize(getattr(tf_keras.initializers, name)())
    assert ours["class_name"] == theirs["class_name"]
    assert ours["config"] == theirs["config"]
    again = k.initializers.deserialize(ours)
    assert type(again) is getattr(k.initializers, name)


@pytest.mark.parametrize(
    "alias, cls",
    [("glorot_uniform", "GlorotUniform"), ("he_normal", "HeNormal"), ("lecun_uniform", "LecunUniform"),
     ("zeros", "Zeros"), ("ones", "Ones"), ("orthogonal", "Orthogonal"), ("random_normal", "RandomNormal")],
)  # fmt: skip
def test_get_by_name(alias, cls):
    assert type(k.initializers.get(alias)) is getattr(k.initializers, cls)
    assert getattr(k.initializers, alias) is getattr(k.initializers, cls)


def test_deterministic_initializers_match_tf_keras():
    _, tf_keras = _tf_keras()
    for make in (
        lambda m: m.initializers.Zeros()([2, 3]),
        lambda m: m.initializers.Ones()([4]),
        lambda m: m.initializers.Constant(2.5)([2, 2]),
        lambda m: m.initializers.Identity(gain=3.0)([3, 4]),
    ):
        np.testing.assert_array_equal(_run(lambda f=make: f(k)), _run_tf(lambda f=make: f(tf_keras)))


@pytest.mark.parametrize(
    "name, fan, distribution",
    [("GlorotUniform", "avg", "uniform"), ("GlorotNormal", "avg", "normal"), ("HeUniform", "in2", "uniform"),
     ("HeNormal", "in2", "normal"), ("LecunUniform", "in", "uniform"), ("LecunNormal", "in", "normal")],
)  # fmt: skip
def test_variance_scaling_statistics(name, fan, distribution):
    shape = [400, 300]
    values = _run(lambda: getattr(k.initializers, name)(seed=1)(shape))
    scale = {"avg": 2.0 / 700, "in2": 2.0 / 400, "in": 1.0 / 400}[fan]
    assert values.shape == tuple(shape) and values.dtype == np.float32
    np.testing.assert_allclose(values.std(), np.sqrt(scale), rtol=0.03)
    if distribution == "uniform":
        assert np.abs(values).max() <= np.sqrt(3 * scale) + 1e-6
    else:  # truncated at 2 stddevs of the untruncated normal
        assert np.abs(values).max() <= 2 * np.sqrt(scale) / 0.87962566103423978 + 1e-6


def test_random_initializers_defaults():
    u = _run(lambda: k.initializers.RandomUniform()([200, 200]))
    assert u.min() >= -0.05 and u.max() <= 0.05
    n = _run(lambda: k.initializers.TruncatedNormal(seed=3)([200, 200]))
    assert np.abs(n).max() <= 0.1 + 1e-6
    np.testing.assert_allclose(_run(lambda: k.initializers.RandomNormal(mean=1.0)([200, 200])).mean(), 1.0, atol=0.01)


def test_orthogonal_is_orthogonal():
    q = _run(lambda: k.initializers.Orthogonal(gain=2.0)([5, 8]))
    np.testing.assert_allclose(q @ q.T, 4.0 * np.eye(5), atol=1e-5)


def test_initializer_errors():
    with pytest.raises(ValueError, match="Unknown initializer: 'nope'"):
        k.initializers.get("nope")
    with pytest.raises(ValueError, match="Could not interpret initializer identifier: 3"):
        k.initializers.get(3)
    with pytest.raises(ValueError, match="scale"):
        k.initializers.VarianceScaling(scale=-1.0)
    with pytest.raises(ValueError, match="mode"):
        k.initializers.VarianceScaling(mode="fan_max")
    with pytest.raises(ValueError, match="Identity"):
        _run(lambda: k.initializers.Identity()([2, 2, 2]))
    assert k.initializers.get(None) is None
    assert type(k.initializers.get(k.initializers.Ones)) is k.initializers.Ones


@pytest.mark.parametrize(
    "make", [lambda m: m.regularizers.l1(0.3), lambda m: m.regularizers.l2(0.2), lambda m: m.regularizers.l1_l2(),
             lambda m: m.regularizers.L1L2(l1=0.1, l2=0.5), lambda m: m.regularizers.get("l2")],
)  # fmt: skip
def test_regularizer_values_and_configs_match_tf_keras(make):
    tf1, tf_keras = _tf_keras()
    x = np.random.RandomState(0).randn(3, 4).astype(np.float32)
    ours = _run(lambda: make(k)(tw.constant(x)))
    theirs = _run_tf(lambda: make(tf_keras)(tf1.constant(x)))
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)
    ours_cfg, theirs_cfg = k.regularizers.serialize(make(k)), tf_keras.regularizers.serialize(make(tf_keras))
    assert ours_cfg["class_name"] == theirs_cfg["class_name"]
    assert ours_cfg["config"].keys() == theirs_cfg["config"].keys()
    for key in ours_cfg["config"]:
        np.testing.assert_allclose(ours_cfg["config"][key], theirs_cfg["config"][key], rtol=1e-6)


def test_regularizer_errors():
    with pytest.raises(ValueError, match="Unknown regularizer: 'l3'"):
        k.regularizers.get("l3")
    with pytest.raises(ValueError, match="l1"):
        k.regularizers.L1L2(l1=-1.0)
    with pytest.raises(ValueError, match="Could not interpret regularizer identifier"):
        k.regularizers.get(1.5)


@pytest.mark.parametrize(
    "make", [lambda m: m.constraints.MaxNorm(1.5), lambda m: m.constraints.MaxNorm(2, axis=1),
             lambda m: m.constraints.NonNeg(), lambda m: m.constraints.UnitNorm(), lambda m: m.constraints.get("unit_norm"),
             lambda m: m.constraints.MinMaxNorm(0.5, 1.2, rate=0.7)],
)  # fmt: skip
def test_constraint_values_match_tf_keras(make):
    tf1, tf_keras = _tf_keras()
    w = (3 * np.random.RandomState(1).randn(4, 3)).astype(np.float32)
    ours = _run(lambda: make(k)(tw.constant(w)))
    theirs = _run_tf(lambda: make(tf_keras)(tf1.constant(w)))
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    assert k.constraints.serialize(make(k)) == tf_keras.constraints.serialize(make(tf_keras))


def test_constraint_errors():
    with pytest.raises(ValueError, match="Unknown constraint: 'maxnorm2'"):
        k.constraints.get("maxnorm2")
    with pytest.raises(ValueError, match="Could not interpret constraint identifier"):
        k.constraints.get(7)


def test_dense_takes_keras_identifiers():
    """String identifiers on a layer; regularization losses on `losses` (and the collection) equal tf_keras's."""
    tf1, tf_keras = _tf_keras()
    x = np.random.RandomState(2).randn(5, 4).astype(np.float32)

    def build(m):
        layer = m.layers.Dense(
            3, kernel_initializer="he_normal", bias_initializer="ones", kernel_regularizer="l2",
            bias_regularizer=m.regularizers.l1(0.5), activity_regularizer="l1_l2", kernel_constraint="max_norm",
            input_dim=4,
        )  # fmt: skip
        return layer

    with tw.Graph().as_default():
        layer = build(k)
        inp = tw.placeholder(tw.float32, [None, 4])
        layer(inp)
        assert isinstance(layer.kernel.constraint, k.constraints.MaxNorm)
        assert layer.bias.constraint is None
        assert layer._batch_input_shape == (None, 4)
        assert len(layer.losses) == 3
        assert len(tw.get_collection(tw.GraphKeys.REGULARIZATION_LOSSES)) == 3
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            weights = sess.run(layer.weights)
            np.testing.assert_array_equal(weights[1], np.ones(3))
            ours = sorted(sess.run(layer.losses, {inp: x}))
    with tf1.Graph().as_default():
        layer = build(tf_keras)
        inp = tf1.placeholder(tf1.float32, [None, 4])
        layer(inp)
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            layer.set_weights(weights)
            theirs = sorted(sess.run(layer.losses, {inp: x}))
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)


def test_regularization_loss_names_and_collection():
    """Weight regularizers of Keras layers: losses named `<variable>/Regularizer/...` (as tf_keras), on the layer's
    `losses` and in REGULARIZATION_LOSSES."""
    with tw.Graph().as_default():
        x = tw.placeholder(tw.float32, [None, 6, 6, 2])
        conv = k.layers.Conv2D(3, 3, kernel_regularizer=k.regularizers.l2(0.1), bias_regularizer="l1")
        bn = k.layers.BatchNormalization(gamma_regularizer="l2")
        bn(conv(x), training=False)
        names = [t.op.name for t in conv.losses + bn.losses]
        assert names[0].startswith("conv2d/kernel/Regularizer/")
        assert names[1].startswith("conv2d/bias/Regularizer/")
        assert names[2].startswith("batch_normalization/gamma/Regularizer/")
        assert tw.get_collection(tw.GraphKeys.REGULARIZATION_LOSSES) == conv.losses + bn.losses
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            kernel, bias, gamma = sess.run([conv.kernel, conv.bias, bn.gamma])
            ours = sess.run(conv.losses + bn.losses)
    np.testing.assert_allclose(
        ours, [0.1 * np.sum(kernel**2), 0.01 * np.sum(np.abs(bias)), 0.01 * np.sum(gamma**2)], rtol=1e-5
    )


def test_input_names_are_unique_per_graph():
    with tw.Graph().as_default():
        a, b = k.Input((3,)), k.Input((4,))
        assert (a.op.name, b.op.name) == ("input_1", "input_2")
    with tw.Graph().as_default():
        assert k.Input((3,)).op.name == "input_1"

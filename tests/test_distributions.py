"""tw.distributions against TensorFlow 2.21's tf.compat.v1.distributions (values) and finite facts (gradients)."""

import numpy as np
import pytest

import tensorweave as tw

tf1 = pytest.importorskip("tensorflow.compat.v1")

X = np.array([-1.5, 0.0, 0.3, 2.0], np.float32)


def _both(build):
    """Runs build(module) in a tensorweave graph and in a TF1 graph; returns both results."""
    with tw.Graph().as_default(), tw.Session() as sess:
        ours = sess.run(build(tw.distributions))
    g = tf1.Graph()
    with g.as_default(), tf1.Session(graph=g) as sess:
        theirs = sess.run(build(tf1.distributions))
    return ours, theirs


@pytest.mark.parametrize(
    "make",
    [
        lambda d: d.Normal(loc=[0.5, -1.0, 0.0, 2.0], scale=[1.0, 0.5, 2.0, 3.0]),
        lambda d: d.Uniform(low=-2.0, high=[1.0, 0.5, 3.0, 2.5]),
        lambda d: d.Exponential(rate=[0.5, 1.0, 2.0, 3.0]),
        lambda d: d.Laplace(loc=[0.5, -1.0, 0.0, 2.0], scale=[1.0, 0.5, 2.0, 3.0]),
        lambda d: d.Gamma(concentration=[0.5, 1.0, 2.5, 4.0], rate=[1.0, 2.0, 0.5, 3.0]),
    ],
)
def test_continuous_matches_tf(make):
    positive = make(tw.distributions).name in ("Exponential", "Gamma")
    x = np.abs(X) + 0.1 if positive else X

    def build(d):
        dist = make(d)
        return [
            dist.log_prob(x),
            dist.prob(x),
            dist.cdf(x),
            dist.entropy(),
            dist.mean(),
            dist.stddev(),
            dist.variance(),
        ]

    ours, theirs = _both(build)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_bernoulli_matches_tf():
    def build(d):
        dist = d.Bernoulli(logits=[-1.0, 0.0, 2.0, 0.7])
        by_probs = d.Bernoulli(probs=[0.2, 0.5, 0.9, 0.6])
        k = [0, 1, 1, 0]
        return [
            dist.log_prob(k),
            dist.prob(k),
            dist.entropy(),
            dist.mean(),
            dist.mode(),
            by_probs.log_prob(k),
            d.kl_divergence(dist, by_probs),
        ]

    ours, theirs = _both(build)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_normal_kl_and_shapes_match_tf():
    def build(d):
        a = d.Normal(loc=[[0.0], [1.0]], scale=[1.0, 2.0, 0.5])
        b = d.Normal(loc=0.3, scale=1.5)
        return [d.kl_divergence(a, b), a.batch_shape_tensor(), a.sample([5, 2], seed=1)]

    ours, theirs = _both(build)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5)
    np.testing.assert_array_equal(ours[1], [2, 3])
    assert ours[2].shape == theirs[2].shape == (5, 2, 2, 3)
    n = tw.distributions.Normal(loc=[[0.0], [1.0]], scale=[1.0, 2.0, 0.5])
    assert n.batch_shape.as_list() == [2, 3] and n.event_shape.as_list() == []
    assert n.reparameterization_type is tw.distributions.FULLY_REPARAMETERIZED


def test_normal_sample_is_reparameterized_and_has_right_moments():
    with tw.Graph().as_default(), tw.Session() as sess:
        loc = tw.constant(1.5)
        scale = tw.constant(0.5)
        s = tw.distributions.Normal(loc, scale).sample(20000, seed=3)
        g_loc, g_scale = tw.gradients(tw.reduce_mean(s), [loc, scale])
        sv, gl, gs = sess.run([s, g_loc, g_scale])
    assert abs(sv.mean() - 1.5) < 0.02 and abs(sv.std() - 0.5) < 0.02
    assert gl == pytest.approx(1.0, rel=1e-5)
    assert gs == pytest.approx((sv.mean() - 1.5) / 0.5, abs=1e-4)  # d mean(loc + scale*eps)/d scale = mean(eps)


def test_errors():
    with tw.Graph().as_default():
        with pytest.raises(ValueError, match="Must pass probs or logits, but not both"):
            tw.distributions.Bernoulli(logits=0.0, probs=0.5)
        with pytest.raises(TypeError, match="loc must be a floating-point"):
            tw.distributions.Normal(loc=tw.constant(1), scale=1.0)
        with pytest.raises(NotImplementedError, match="No KL"):
            tw.distributions.kl_divergence(tw.distributions.Normal(0.0, 1.0), tw.distributions.Exponential(1.0))
    assert tw.compat.v1.distributions.Normal is tw.distributions.Normal


def test_categorical_matches_tf():
    logits = np.array([[1.0, -0.5, 0.3], [0.0, 2.0, -1.0]], np.float32)

    def build(d):
        dist = d.Categorical(logits=logits)
        other = d.Categorical(probs=[0.2, 0.3, 0.5])
        k = [[2, 1], [0, 0]]
        s = dist.sample([4, 5], seed=4)
        return [
            dist.log_prob(k),
            dist.prob([1, 2]),
            dist.entropy(),
            dist.mode(),
            other.log_prob(2),
            d.kl_divergence(dist, d.Categorical(logits=logits[::-1])),
            s,
        ]

    ours, theirs = _both(build)
    for a, b in zip(ours[:-1], theirs[:-1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert ours[-1].shape == theirs[-1].shape == (4, 5, 2) and ours[-1].dtype == np.int32
    assert ours[-1].min() >= 0 and ours[-1].max() <= 2

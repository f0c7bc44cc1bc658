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


# --- Beta, Dirichlet, Multinomial, DirichletMultinomial, StudentT, RegisterKL ---------------------------

COUNTS = np.array([[1, 2, 1], [0, 3, 2]], np.float32)


@pytest.mark.parametrize(
    "make, value, methods",
    [
        (
            lambda d: d.Beta([0.5, 2.0, 3.0], [1.5, 2.0, 0.7]),
            np.array([0.2, 0.5, 0.9], np.float32),
            ["log_prob", "prob", "cdf", "entropy", "mean", "variance", "stddev", "mode"],
        ),
        (
            lambda d: d.Dirichlet([[1.5, 2.0, 3.0], [0.5, 4.0, 1.0]]),
            np.array([[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]], np.float32),
            ["log_prob", "prob", "entropy", "mean", "variance", "stddev", "covariance"],
        ),
        (
            lambda d: d.Multinomial(total_count=[4.0, 5.0], logits=[[0.1, 0.5, -1.0], [1.0, 0.0, 0.0]]),
            COUNTS,
            ["log_prob", "prob", "mean", "variance", "covariance"],
        ),
        (
            lambda d: d.Multinomial(total_count=4.0, probs=[0.2, 0.3, 0.5]),
            COUNTS[:1],
            ["log_prob", "mean", "variance", "covariance"],
        ),
        (
            lambda d: d.DirichletMultinomial(total_count=5.0, concentration=[[1.0, 2.0, 0.5], [3.0, 1.0, 1.0]]),
            np.array([[1, 2, 2], [0, 3, 2]], np.float32),
            ["log_prob", "prob", "mean", "variance", "covariance"],
        ),
        (
            lambda d: d.StudentT(df=[0.8, 1.5, 3.0, 10.0], loc=[0.0, 1.0, -1.0, 2.0], scale=[1.0, 2.0, 0.5, 1.5]),
            np.array([0.3, -1.0, 2.0, 2.5], np.float32),
            ["log_prob", "prob", "cdf", "entropy", "mean", "variance", "stddev", "mode"],
        ),
    ],
)
def test_more_distributions_match_tf(make, value, methods):
    def build(d):
        dist = make(d)
        return [getattr(dist, m)(value) if m in ("log_prob", "prob", "cdf") else getattr(dist, m)() for m in methods]

    ours, theirs = _both(build)
    for method, got, want in zip(methods, ours, theirs):
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6, equal_nan=True, err_msg=method)


def test_more_distributions_shapes_and_reparameterization():
    def build(d):
        dists = [
            d.Beta([1.0, 2.0], 3.0),
            d.Dirichlet([[1.0, 2.0, 3.0]] * 2),
            d.Multinomial([3.0, 4.0], probs=[0.5, 0.5]),
            d.DirichletMultinomial(2.0, [1.0, 1.0, 1.0, 1.0]),
            d.StudentT(3.0, [0.0, 1.0, 2.0], 1.0),
        ]
        info = [(str(x.batch_shape), str(x.event_shape), str(x.reparameterization_type)) for x in dists]
        return info, [x.batch_shape_tensor() for x in dists] + [x.event_shape_tensor() for x in dists]

    with tw.Graph().as_default():
        ours_info = build(tw.distributions)[0]
    with tf1.Graph().as_default():
        theirs_info = build(tf1.distributions)[0]
    assert ours_info == theirs_info
    ours, theirs = _both(lambda d: build(d)[1])
    for got, want in zip(ours, theirs):
        np.testing.assert_array_equal(got, want)
    assert tw.distributions.FULLY_REPARAMETERIZED is tw.distributions.Beta.reparameterization_type


def test_kl_divergences_match_tf():
    def build(d):
        return [
            d.kl_divergence(d.Beta([1.0, 2.0], [3.0, 0.5]), d.Beta([2.0, 2.0], [1.0, 1.5])),
            d.kl_divergence(d.Gamma([1.0, 2.0], [3.0, 0.5]), d.Gamma([2.0, 2.0], [1.0, 1.5])),
            d.kl_divergence(d.Dirichlet([[1.0, 2.0, 3.0]]), d.Dirichlet([[2.0, 1.0, 0.5]])),
        ]

    ours, theirs = _both(build)
    for got, want in zip(ours, theirs):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    with tw.Graph().as_default(), pytest.raises(NotImplementedError, match="No KL"):
        tw.distributions.kl_divergence(tw.distributions.Beta(1.0, 1.0), tw.distributions.StudentT(1.0, 0.0, 1.0))


def test_register_kl():
    D = tw.distributions

    class MyBeta(D.Beta):
        pass

    class Other(D.Beta):
        pass

    @D.RegisterKL(MyBeta, D.StudentT)
    def _kl(a, b, name=None):
        return tw.constant(7.0)

    with tw.Graph().as_default(), tw.Session() as sess:
        assert sess.run(D.kl_divergence(MyBeta(1.0, 1.0), D.StudentT(1.0, 0.0, 1.0))) == 7.0
        # A subclass finds its parents' registration (Beta, Beta).
        want = sess.run(D.kl_divergence(D.Beta(1.0, 2.0), D.Beta(3.0, 1.0)))
        assert sess.run(D.kl_divergence(Other(1.0, 2.0), D.Beta(3.0, 1.0))) == want
        with pytest.raises(ValueError, match="already been registered"):
            D.RegisterKL(MyBeta, D.StudentT)(_kl)
        with pytest.raises(TypeError, match="callable"):
            D.RegisterKL(Other, Other)(3)
        nan = D.kl_divergence(D.Normal(0.0, 0.0), D.Normal(0.0, 0.0), allow_nan_stats=False)
        with pytest.raises(tw.errors.InvalidArgumentError, match="returned NaN"):
            sess.run(nan)


def _statistics(dist, n, seed):
    with tw.Graph().as_default(), tw.Session() as sess:
        samples = dist().sample(n, seed=seed)
        again = dist().sample(n, seed=seed)
        d = dist()
        x, y, mean, var = sess.run([samples, again, d.mean(), d.variance()])
    return x, y, mean, var


@pytest.mark.parametrize(
    "dist, support",
    [
        (lambda: tw.distributions.Beta([0.5, 2.0], [1.5, 3.0]), "unit"),
        (lambda: tw.distributions.Dirichlet([[1.5, 2.0, 3.0], [0.3, 0.3, 5.0]]), "simplex"),
        (lambda: tw.distributions.Multinomial([4.0, 7.0], probs=[[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]]), "counts"),
        (lambda: tw.distributions.DirichletMultinomial(6.0, [[1.0, 2.0, 0.5], [3.0, 1.0, 1.0]]), "counts"),
        (lambda: tw.distributions.StudentT([5.0, 10.0], [1.0, -2.0], [2.0, 0.5]), "real"),
    ],
)
def test_sample_moments(dist, support):
    """Sample mean and variance within 5 standard errors of the distribution's (fixed seed); a fixed op seed
    repeats its draws."""
    n = 20000
    x, again, mean, var = _statistics(dist, n, seed=7)
    np.testing.assert_array_equal(x, again)
    assert x.shape == (n,) + mean.shape
    np.testing.assert_array_less(np.abs(x.mean(0) - mean), 5 * np.sqrt(var / n) + 1e-6)
    fourth = np.mean((x - x.mean(0)) ** 4, axis=0)
    np.testing.assert_array_less(np.abs(x.var(0) - var), 5 * np.sqrt(np.abs(fourth - var**2) / n) + 1e-6)
    if support == "unit":
        assert ((x > 0) & (x < 1)).all()
    elif support == "simplex":
        np.testing.assert_allclose(x.sum(-1), 1.0, rtol=1e-5)
    elif support == "counts":
        totals = np.broadcast_to(mean.sum(-1), x.shape[:-1])  # the mean's counts add up to total_count
        np.testing.assert_allclose(x.sum(-1), totals, rtol=1e-6)
        assert (x == np.round(x)).all() and (x >= 0).all()


def _stat_error(d, case):
    """The (class name, message) of running a statistic that is undefined, or None."""
    try:
        with (tw.Graph() if d is tw.distributions else tf1.Graph()).as_default():
            sess = (tw.Session if d is tw.distributions else tf1.Session)()
            if case == "beta_mode":
                sess.run(d.Beta([0.5, 2.0], 2.0, allow_nan_stats=False).mode())
            elif case == "gamma_mode":
                sess.run(d.Gamma([0.5, 2.0], 2.0, allow_nan_stats=False).mode())
            elif case == "student_mean":
                sess.run(d.StudentT([0.5, 2.0], 0.0, 1.0, allow_nan_stats=False).mean())
            elif case == "student_variance":
                sess.run(d.StudentT([0.5, 3.0], 0.0, 1.0, allow_nan_stats=False).variance())
            elif case == "beta_concentration":
                sess.run(d.Beta([-1.0, 2.0], 2.0, validate_args=True).mean())
            elif case == "beta_sample":
                sess.run(d.Beta(2.0, 2.0, validate_args=True).log_prob(1.5))
            elif case == "multinomial_counts":
                sess.run(d.Multinomial(3.0, probs=[0.5, 0.5], validate_args=True).log_prob([1.0, 1.0]))
            elif case == "dirichlet_event":
                sess.run(d.Dirichlet([1.0], validate_args=True).mean())
        return None
    except Exception as e:  # noqa: BLE001 - the class and message are compared
        return type(e).__name__, str(e)


@pytest.mark.parametrize(
    "case, message",
    [
        ("beta_mode", "Mode undefined for concentration1 <= 1"),
        ("gamma_mode", "mode not defined when any concentration <= 1"),
        ("student_mean", "mean not defined for components of df <= 1"),
        ("student_variance", "variance not defined for components of df <= 1"),
        ("beta_concentration", "Concentration parameter must be positive"),
        ("beta_sample", "sample must be less than `1`"),
        ("multinomial_counts", "counts must sum to `self.total_count`"),
        ("dirichlet_event", "event_size >= 2"),
    ],
)
def test_undefined_statistics_and_invalid_args(case, message):
    for d in (tw.distributions, tf1.distributions):
        got = _stat_error(d, case)
        assert got is not None and got[0] == "InvalidArgumentError" and message in got[1], (d, got)


def test_nan_statistics_match_tf():
    def build(d):
        return [
            d.Beta([0.5, 2.0], 2.0).mode(),
            d.StudentT([0.5, 1.5, 3.0], 0.0, 1.0).mean(),
            d.StudentT([0.5, 1.5, 3.0], 0.0, 1.0).variance(),
            d.StudentT([1.5, 3.0], 0.0, 1.0, allow_nan_stats=False).variance(),
            d.Dirichlet([0.5, 2.0, 3.0]).mode(),
        ]

    ours, theirs = _both(build)
    for got, want in zip(ours, theirs):
        np.testing.assert_allclose(got, want, equal_nan=True, rtol=1e-6)

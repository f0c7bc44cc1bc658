"""Regression tests for the differences the s24 sweep of TF1 programs (tests/tf1_programs/p197..) found, each
checked against TensorFlow's compat.v1 behaviour (the expected names and messages are TensorFlow 2.21's; values
are checked against numpy / scipy-free closed forms)."""

import math

import numpy as np
import pytest
import tensorweave as tw

tfd = tw.distributions


def _normal_cdf(x, loc, scale):
    return 0.5 * math.erfc(-(x - loc) / (scale * math.sqrt(2.0)))


def test_distribution_kl_cross_entropy_survival_quantile_methods():
    """Distribution.kl_divergence / cross_entropy / survival_function / log_survival_function / quantile /
    is_scalar_batch / is_scalar_event, Categorical.event_size and Exponential.concentration (p197: the methods were
    missing, AttributeError)."""
    with tw.Graph().as_default():
        p, q = tfd.Normal(0.0, 1.0), tfd.Normal([0.5, -1.0], [2.0, 0.3])
        c1, c2 = tfd.Categorical(logits=[1.0, 2.0, 0.5]), tfd.Categorical(probs=[0.2, 0.2, 0.6])
        fetch = {
            "kl": p.kl_divergence(q),
            "ce": p.cross_entropy(q),
            "ce_cat": c1.cross_entropy(c2),
            "sf": q.survival_function(0.5),
            "lsf": q.log_survival_function(0.5),
            "quantile": q.quantile([0.1, 0.975]),
            "scalar": [p.is_scalar_batch(), q.is_scalar_batch(), q.is_scalar_event()],
            "event_size": c1.event_size,
            "concentration": tfd.Exponential([0.5, 2.0]).concentration,
        }
        with tw.Session() as sess:
            r = sess.run(fetch)
    loc, scale = np.array([0.5, -1.0]), np.array([2.0, 0.3])
    kl = np.log(scale) + (1.0 + loc**2) / (2 * scale**2) - 0.5
    np.testing.assert_allclose(r["kl"], kl, rtol=1e-5)
    np.testing.assert_allclose(r["ce"], 0.5 * np.log(2 * np.pi * np.e) + kl, rtol=1e-5)
    pa = np.exp([1.0, 2.0, 0.5]) / np.exp([1.0, 2.0, 0.5]).sum()
    np.testing.assert_allclose(r["ce_cat"], -(pa * np.log([0.2, 0.2, 0.6])).sum(), rtol=1e-5)
    sf = np.array([1.0 - _normal_cdf(0.5, m, s) for m, s in zip(loc, scale)])
    np.testing.assert_allclose(r["sf"], sf, rtol=1e-5)
    np.testing.assert_allclose(r["lsf"], np.log(sf), rtol=1e-5)
    for i, pr in enumerate([0.1, 0.975]):
        np.testing.assert_allclose(_normal_cdf(r["quantile"][i], loc[i], scale[i]), pr, rtol=1e-5)
    assert [bool(x) for x in r["scalar"]] == [True, False, True]
    assert r["event_size"] == 3 and r["concentration"] == 1.0
    with tw.Graph().as_default(), pytest.raises(NotImplementedError, match="quantile is not implemented: Gamma"):
        tfd.Gamma(1.0, 1.0).quantile(0.5)


@pytest.mark.parametrize(
    "build",
    [
        lambda: tfd.Normal(0.0, -1.0, validate_args=True).sample(),
        lambda: tfd.Laplace(0.0, 0.0, validate_args=True).mean(),
        lambda: tfd.Bernoulli(probs=1.5, validate_args=True).mean(),
        lambda: tfd.Categorical(probs=[0.5, 0.6], validate_args=True).entropy(),
        lambda: tfd.Uniform(2.0, 1.0, validate_args=True).mean(),
        lambda: tfd.Gamma(1.0, 0.0, validate_args=True).mean(),
        lambda: tfd.Exponential(-1.0, validate_args=True).mean(),
    ],
    ids=["normal_scale", "laplace_scale", "bernoulli_probs", "categorical_sum", "uniform_order", "gamma", "exp"],
)
def test_validate_args_checks_parameters(build):
    """validate_args=True checks the parameters when run, as TF's: positive scales and rates, probabilities in
    [0, 1] summing to 1, low < high (p197: Normal, Bernoulli and others accepted bad ones silently). Constant
    parameters fail when the graph is built, as TF's static checks do; others when run."""
    with tw.Graph().as_default(), tw.Session() as sess, pytest.raises(tw.errors.InvalidArgumentError):
        sess.run(build())


def test_validate_args_accepts_good_parameters():
    with tw.Graph().as_default():
        ts = [
            tfd.Normal(0.0, 1.0, validate_args=True).mean(),
            tfd.Bernoulli(probs=0.25, validate_args=True).mean(),
            tfd.Categorical(probs=[0.25, 0.75], validate_args=True).entropy(),
            tfd.Uniform(1.0, 2.0, validate_args=True).mean(),
        ]
        with tw.Session() as sess:
            r = sess.run(ts)
    np.testing.assert_allclose(r[:2] + r[3:], [0.0, 0.25, 1.5])
    np.testing.assert_allclose(r[2], -(0.25 * np.log(0.25) + 0.75 * np.log(0.75)), rtol=1e-5)

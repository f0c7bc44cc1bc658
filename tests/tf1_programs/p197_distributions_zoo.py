"""tf.distributions as VAE/RL/Bayesian tutorials used them: Beta, Dirichlet, Gamma, Multinomial, Categorical,
Uniform, Laplace, StudentT, Exponential and Normal with batch parameters: log_prob, prob, cdf, mean, variance,
stddev, entropy, mode, batch_shape / event_shape, sample shapes, kl_divergence between Normals and Categoricals (the function and the methods), cross_entropy, survival_function,
quantile, is_scalar_batch, event_size,
and validate_args rejecting bad parameters."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tfd = tf.distributions
    dists = {
        "beta": (tfd.Beta([1.5, 2.0], [2.0, 0.5]), [0.3, 0.7]),
        "dirichlet": (tfd.Dirichlet([[1.0, 2.0, 3.0], [0.5, 0.5, 2.0]]), [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]),
        "gamma": (tfd.Gamma(concentration=[2.0, 3.0], rate=[1.0, 0.5]), [1.5, 4.0]),
        "categorical": (tfd.Categorical(logits=[[0.0, 1.0, 2.0], [1.0, 1.0, -1.0]]), [2, 0]),
        "uniform": (tfd.Uniform(low=[0.0, -1.0], high=[2.0, 3.0]), [0.5, 2.5]),
        "laplace": (tfd.Laplace(loc=[0.0, 1.0], scale=[1.0, 2.0]), [0.3, -1.0]),
        "student_t": (tfd.StudentT(df=[3.0, 5.0], loc=0.0, scale=[1.0, 2.0]), [0.5, -1.5]),
        "exponential": (tfd.Exponential(rate=[0.5, 2.0]), [1.0, 0.25]),
        "normal": (tfd.Normal(loc=[0.0, 1.0], scale=[1.0, 0.5]), [0.2, 1.5]),
        "multinomial": (tfd.Multinomial(total_count=4.0, probs=[0.2, 0.3, 0.5]), [1.0, 1.0, 2.0]),
        "bernoulli": (tfd.Bernoulli(probs=[0.3, 0.9]), [1, 0]),
    }
    out = {"shapes": {}, "values": {}}
    fetch = {}
    for name, (d, x) in dists.items():
        out["shapes"][name] = [
            d.batch_shape.as_list(), d.event_shape.as_list(), d.sample(5, seed=1).shape.as_list(), d.dtype.name,
        ]  # fmt: skip
        fetch[name] = {"log_prob": d.log_prob(x), "prob": d.prob(x)}
        if name != "categorical":  # Categorical has no mean (NotImplementedError in both)
            fetch[name]["mean"] = d.mean()
        if name not in ("categorical", "multinomial", "dirichlet", "bernoulli"):
            fetch[name]["cdf"] = d.cdf(x)
        if name not in ("multinomial",):
            fetch[name]["entropy"] = d.entropy()
        if name not in ("uniform", "categorical"):
            fetch[name]["variance"] = d.variance()
            fetch[name]["stddev"] = d.stddev()
        if name in ("beta", "gamma", "normal", "laplace", "categorical"):
            fetch[name]["mode"] = d.mode()
    p, q = tfd.Normal(0.0, 1.0), tfd.Normal([0.5, -1.0], [2.0, 0.3])
    c1, c2 = tfd.Categorical(logits=[1.0, 2.0, 0.5]), tfd.Categorical(probs=[0.2, 0.2, 0.6])
    fetch["kl"] = [tfd.kl_divergence(p, q), tfd.kl_divergence(c1, c2), p.kl_divergence(q), c1.kl_divergence(c2)]
    fetch["cross_entropy"] = [p.cross_entropy(q), c1.cross_entropy(c2)]
    fetch["survival"] = [
        q.survival_function(0.5),
        q.log_survival_function(0.5),
        dists["gamma"][0].survival_function(2.0),
    ]
    fetch["quantile"] = q.quantile([0.1, 0.975])
    fetch["scalar"] = [p.is_scalar_batch(), q.is_scalar_batch(), q.is_scalar_event(), c1.event_size]
    fetch["exp_concentration"] = dists["exponential"][0].concentration
    with tf.Session() as sess:
        out["values"] = sess.run(fetch)
        out["sample_mean"] = float(np.mean(sess.run(tfd.Normal(3.0, 0.1).sample(2000, seed=7))) > 2.95)
        errors = []
        for build in (
            lambda: tfd.Normal(0.0, -1.0, validate_args=True).sample(),
            lambda: tfd.Beta(-1.0, 1.0, validate_args=True).mean(),
            lambda: tfd.Bernoulli(probs=1.5, validate_args=True).mean(),
            lambda: tfd.Categorical(probs=[0.5, 0.6], validate_args=True).entropy(),
            lambda: tfd.Uniform(2.0, 1.0, validate_args=True).mean(),
            lambda: tfd.Gamma(1.0, 0.0, validate_args=True).mean(),
            lambda: tfd.Normal(0.0, 1.0, validate_args=True).mean(),
        ):
            try:
                sess.run(build())
                errors.append(None)
            except tf.errors.InvalidArgumentError as e:
                errors.append(type(e).__name__)
        out["errors"] = errors
    try:
        tfd.Categorical(logits=[0.0, 1.0]).mean()
        out["categorical_mean"] = None
    except NotImplementedError:
        out["categorical_mean"] = "NotImplementedError"
    try:
        tfd.Bernoulli(probs=0.5, logits=0.0)
        out["both"] = None
    except ValueError:
        out["both"] = "ValueError"
    return out

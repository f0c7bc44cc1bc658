"""Weight initializers as TF1 model code chose them, compared by the properties that do not depend on the random
stream: tf.orthogonal_initializer (W^T W = gain^2 I, for square and rectangular shapes), tf.initializers.identity
(exact), tf.constant_initializer with a list and broadcasting a scalar, variance_scaling (fan_in / fan_out /
fan_avg; normal's truncation bound and uniform's limit), glorot/he/lecun bounds, truncated_normal within two
standard deviations, random_uniform range, zeros/ones for ints, the initializer's dtype argument, and
get_variable's default (glorot_uniform) bound; plus each variable's initial_value op type."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(131)
    make = lambda name, shape, init, **kw: tf.get_variable(name, shape, initializer=init, **kw)  # noqa: E731
    vs = {
        "orth_sq": make("orth_sq", [6, 6], tf.orthogonal_initializer(gain=2.0, seed=1)),
        "orth_tall": make("orth_tall", [8, 3], tf.orthogonal_initializer(seed=2)),
        "orth_wide": make("orth_wide", [3, 8], tf.orthogonal_initializer(seed=3)),
        "identity": make("identity", [3, 4], tf.initializers.identity(gain=0.5)),
        "const_list": make("const_list", [2, 3], tf.constant_initializer([1, 2, 3, 4, 5, 6])),
        "const_scalar": make("const_scalar", [2, 2], tf.constant_initializer(7.0)),
        "vs_in": make("vs_in", [400, 50], tf.variance_scaling_initializer(2.0, "fan_in", "truncated_normal", seed=4)),
        "vs_out_u": make("vs_out_u", [50, 400], tf.variance_scaling_initializer(1.0, "fan_out", "uniform", seed=5)),
        "vs_avg": make("vs_avg", [100, 300], tf.variance_scaling_initializer(1.0, "fan_avg", "untruncated_normal", seed=6)),
        "glorot_u": make("glorot_u", [30, 70], tf.glorot_uniform_initializer(seed=7)),
        "glorot_n": make("glorot_n", [300, 700], tf.glorot_normal_initializer(seed=8)),
        "he_n": make("he_n", [500, 20], tf.initializers.he_normal(seed=9)),
        "lecun_u": make("lecun_u", [40, 10], tf.initializers.lecun_uniform(seed=10)),
        "trunc": make("trunc", [1000], tf.truncated_normal_initializer(1.0, 0.5, seed=11)),
        "unif": make("unif", [1000], tf.random_uniform_initializer(-3.0, -1.0, seed=12)),
        "zeros_int": make("zeros_int", [3], tf.zeros_initializer(), dtype=tf.int32),
        "ones_f64": make("ones_f64", [2], tf.ones_initializer(dtype=tf.float64), dtype=tf.float64),
        "default": tf.get_variable("default", [20, 80]),
    }
    out = {"init_ops": {k: v.initial_value.op.type for k, v in vs.items()},
           "dtypes": {k: v.dtype.base_dtype.name for k, v in vs.items()}}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        val = sess.run(vs)
    out["orth_sq"] = bool(np.allclose(val["orth_sq"].T @ val["orth_sq"], 4.0 * np.eye(6), atol=1e-4))
    out["orth_tall"] = bool(np.allclose(val["orth_tall"].T @ val["orth_tall"], np.eye(3), atol=1e-5))
    out["orth_wide"] = bool(np.allclose(val["orth_wide"] @ val["orth_wide"].T, np.eye(3), atol=1e-5))
    out["identity"] = val["identity"]
    out["const_list"], out["const_scalar"] = val["const_list"], val["const_scalar"]
    bound = lambda fan, scale: np.sqrt(3.0 * scale / fan)  # noqa: E731
    out["vs_in"] = [bool(np.abs(val["vs_in"]).max() <= 2 * np.sqrt(2.0 / 400) / 0.87962566103423978 + 1e-6),
                    bool(abs(val["vs_in"].std() - np.sqrt(2.0 / 400)) < 0.1 * np.sqrt(2.0 / 400))]
    out["vs_out_u"] = bool(np.abs(val["vs_out_u"]).max() <= bound(400, 1.0))
    out["vs_avg"] = bool(abs(val["vs_avg"].std() - np.sqrt(1.0 / 200)) < 0.05 * np.sqrt(1.0 / 200))
    out["glorot_u"] = bool(np.abs(val["glorot_u"]).max() <= np.sqrt(6.0 / 100))
    out["glorot_n"] = bool(abs(val["glorot_n"].std() - np.sqrt(2.0 / 1000)) < 0.05 * np.sqrt(2.0 / 1000))
    out["he_n"] = bool(abs(val["he_n"].std() - np.sqrt(2.0 / 500)) < 0.1 * np.sqrt(2.0 / 500))
    out["lecun_u"] = bool(np.abs(val["lecun_u"]).max() <= np.sqrt(3.0 / 40))
    out["trunc"] = bool(np.abs(val["trunc"] - 1.0).max() <= 1.0 + 1e-6 and abs(val["trunc"].mean() - 1.0) < 0.05)
    out["unif"] = bool(val["unif"].min() >= -3.0 and val["unif"].max() < -1.0)
    out["zeros_int"], out["ones_f64"] = val["zeros_int"], val["ones_f64"]
    out["default"] = bool(np.abs(val["default"]).max() <= np.sqrt(6.0 / 100))
    return out

"""Random ops whose values do not depend on the session's random state, and the newer sampling names: the
tf.random.stateless_* family (uniform float and int with minval/maxval, normal, truncated_normal, categorical /
stateless_multinomial) with a [2] seed, the same seed twice giving the same values and another seed others;
tf.random.categorical and tf.multinomial with an op seed under a graph seed (their output dtypes, output_dtype=),
tf.random.poisson / tf.random_poisson, tf.random.gamma with an alpha vector and beta, tf.random.shuffle, and
statistics of larger draws (means within tolerance); the errors for a bad seed shape."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(179)
    out = {}
    seed = tf.constant([7, 11], tf.int64)
    su = tf.random.stateless_uniform([3, 2], seed=seed)
    su2 = tf.random.stateless_uniform([3, 2], seed=[7, 11])
    su3 = tf.random.stateless_uniform([3, 2], seed=[7, 12])
    si = tf.random.stateless_uniform([6], seed=[1, 2], minval=0, maxval=10, dtype=tf.int32)
    sn = tf.random.stateless_normal([4], seed=[3, 4], mean=1.0, stddev=2.0)
    st = tf.random.stateless_truncated_normal([4], seed=[3, 4])
    logits = tf.log([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])
    sc = tf.random.stateless_categorical(logits, 5, seed=[5, 6])
    sm = tf.random.stateless_multinomial(logits, 5, seed=[5, 6])
    cat = tf.random.categorical(logits, 4, seed=1)
    cat64 = tf.multinomial(logits, 4, seed=1, output_dtype=tf.int64)
    big = tf.random.categorical(tf.log([[0.1, 0.2, 0.7]]), 20000, seed=2)
    pois = tf.random.poisson([2.0, 5.0], [3], seed=3)
    pois_big = tf.random_poisson(4.0, [20000], seed=4)
    gam = tf.random.gamma([2], alpha=[1.0, 3.0], beta=[1.0, 2.0], seed=5)
    gam_big = tf.random.gamma([20000], alpha=3.0, beta=2.0, seed=6)
    shuf = tf.random.shuffle(tf.range(8), seed=7)
    out["dtypes"] = [t.dtype.name for t in (si, sc, sm, cat, cat64, pois, gam)]
    out["shapes"] = [t.shape.as_list() for t in (su, sc, cat, pois, gam, shuf)]
    try:
        tf.random.stateless_uniform([2], seed=[1, 2, 3])
        out["bad_seed"] = None
    except (ValueError, tf.errors.InvalidArgumentError) as e:
        out["bad_seed"] = type(e).__name__
    with tf.Session() as sess:
        a, b, c = sess.run([su, su2, su3])
        out["stateless_same"] = bool(np.array_equal(a, b))
        out["stateless_other"] = bool(not np.array_equal(a, c))
        out["stateless_range"] = [float(a.min()) >= 0.0, float(a.max()) < 1.0]
        vals = sess.run([si, sn, st, sc, sm])
        out["stateless_int_range"] = [int(vals[0].min()) >= 0, int(vals[0].max()) < 10]
        out["stateless_shapes"] = [v.shape for v in vals]
        out["categorical_in_range"] = [int(x.max()) < 3 for x in sess.run([cat, cat64, sc])]
        freq = np.bincount(sess.run(big).ravel(), minlength=3) / 20000.0
        out["categorical_freq"] = freq
        out["poisson_mean"] = float(sess.run(pois_big).mean())
        out["gamma_mean"] = float(sess.run(gam_big).mean())
        p, g, s = sess.run([pois, gam, shuf])
        out["poisson_shape"] = p.shape
        out["gamma_shape"] = g.shape
        out["gamma_positive"] = bool((g > 0).all())
        out["shuffled_sorted"] = np.sort(s)
    return out

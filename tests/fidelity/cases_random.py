"""tf.random and the top-level random names against TensorFlow 1: what can be compared across two generators —
TF1's seed rules (get_seed), static shapes and dtypes, op types and names, the values that do not depend on the
draws (degenerate distributions, crops of the whole), and the error classes of bad input."""

from tests.fidelity.harness import case


@case
def get_seed_rules(tf, sess):
    out = [tf.get_seed(None), tf.get_seed(7), tf.random.get_seed(2**31 + 5)]
    tf.set_random_seed(0)
    out.append(tf.get_seed(0))  # (0, 0) is "no seed" to the kernels: TF1 moves it to (0, 2**31 - 1)
    out.append(tf.get_seed(3))
    tf.constant(1.0)
    tf.constant(2.0)
    out.append(tf.get_seed(None))  # the op seed is the id of the graph's last op
    tf.random.set_random_seed(2**32 + 1)
    out.append(tf.get_seed(None))
    return out


@case
def seeded_ops_repeat_across_sessions(tf, sess):
    tf.set_random_seed(5)
    ops = [
        tf.random_normal([3]),
        tf.random.uniform([2, 2], seed=1),
        tf.random_gamma([4], [0.5, 2.0]),
        tf.random_poisson([1.0, 30.0], [3]),
        tf.random.categorical([[0.0, 1.0, 2.0]], 5),
        tf.random_shuffle(tf.range(10)),
        tf.random_crop(tf.reshape(tf.range(20), [4, 5]), [2, 3]),
    ]
    first = sess.run(ops)
    with tf.Session() as other:
        second = other.run(ops)
    return [bool((a == b).all()) for a, b in zip(first, second)]


@case
def random_gamma_shapes_and_dtypes(tf, sess):
    g = tf.random_gamma([5, 2], [[1.0, 2.0, 3.0]], beta=[[1.0], [2.0]], seed=1)
    g64 = tf.random.gamma([3], 1.5, dtype=tf.float64, seed=2)
    v = sess.run(g)
    return [g.shape, g.dtype, g64.shape, g64.dtype, bool((v > 0).all())]


@case
def random_gamma_needs_a_float_dtype(tf, sess):
    return tf.random_gamma([2], 1.0, dtype=tf.int32)


@case
def random_poisson_shapes_dtypes_and_zero_rate(tf, sess):
    p = tf.random_poisson([0.0, 0.0, 0.0], [2], seed=3)
    p64 = tf.random.poisson(tf.constant([[1.5], [4.0]]), [4], dtype=tf.int64, seed=4)
    v = sess.run(p64)
    return [p, p.shape, p.dtype, p.op.type, p64.shape, p64.dtype, bool((v >= 0).all())]


@case
def random_poisson_mean_is_near_the_rate(tf, sess):
    p = tf.random_poisson([3.0, 50.0], [4000], seed=9)
    mean = sess.run(tf.reduce_mean(p, axis=0))
    return [bool(abs(mean[0] - 3.0) < 0.2), bool(abs(mean[1] - 50.0) < 1.0)]


@case
def random_gamma_mean_is_near_alpha_over_beta(tf, sess):
    g = tf.random_gamma([4000], [0.5, 4.0], beta=2.0, seed=9)
    mean = sess.run(tf.reduce_mean(g, axis=0))
    return [bool(abs(mean[0] - 0.25) < 0.03), bool(abs(mean[1] - 2.0) < 0.1)]


@case
def categorical_shapes_and_certain_draws(tf, sess):
    c = tf.random.categorical([[-1e9, 0.0, -1e9], [0.0, -1e9, -1e9]], 4, seed=1)
    c32 = tf.random.categorical(tf.zeros([3, 5]), 2, dtype=tf.int32, seed=1)
    m = tf.multinomial([[0.0, -1e9]], 3, seed=2)
    return [c, c.shape, c.dtype, c.op.type, c32.shape, c32.dtype, m]


@case
def categorical_of_a_vector_fails(tf, sess):
    return tf.random.categorical([0.0, 1.0], 2)


@case
def random_crop_shapes_and_whole_crop(tf, sess):
    x = tf.reshape(tf.range(24), [2, 3, 4])
    c = tf.random_crop(x, [1, 2, 4], seed=1)
    whole = tf.random_crop(x, [2, 3, 4], seed=1)
    v = sess.run(c)
    return [c.shape, c.op.type, whole, v.shape, bool((v[..., 1:] - v[..., :-1] == 1).all())]


@case
def random_shuffle_and_uniform_aliases(tf, sess):
    s = tf.random.shuffle(tf.range(6), seed=1)
    u = tf.random.uniform([3], minval=2.0, maxval=2.0, seed=1)
    n = tf.random.normal([2, 3], mean=1.0, stddev=0.0, seed=1)
    t = tf.random.truncated_normal([4], stddev=0.0, mean=-1.0, seed=1)
    return [sorted(sess.run(s).tolist()), u, n, t, s.shape, n.shape]


@case
def stateless_ops_shapes_dtypes_and_repeatability(tf, sess):
    seed = tf.constant([7, 11], tf.int64)
    ops = [
        tf.random.stateless_uniform([2, 3], seed),
        tf.random.stateless_uniform([4], [1, 2], minval=3, maxval=9, dtype=tf.int64),
        tf.random.stateless_normal([3], seed, dtype=tf.float64),
        tf.random.stateless_truncated_normal([2, 2], seed, stddev=0.5),
        tf.random.stateless_categorical([[0.0, 1.0, 2.0]], 5, seed),
        tf.random.stateless_multinomial([[0.0, 1.0]], 3, seed, output_dtype=tf.int32),
        tf.random.stateless_gamma([5, 2], seed, alpha=[0.5, 3.0]),
        tf.random.stateless_poisson([4, 2], seed, lam=[1.0, 20.0]),
    ]
    first = sess.run(ops)
    again = sess.run(ops)
    return [[o.shape, o.dtype] for o in ops] + [bool((a == b).all()) for a, b in zip(first, again)]


@case
def stateless_ops_deterministic_values(tf, sess):
    seed = [3, 4]
    return [
        tf.random.stateless_uniform([3], seed, minval=2.0, maxval=2.0),
        tf.random.stateless_normal([2], seed, mean=5.0, stddev=0.0),
        tf.random.stateless_categorical([[-1e9, 0.0]], 4, seed),
        tf.random.stateless_poisson([3], seed, lam=0.0),
        bool(sess.run(tf.reduce_all(tf.abs(tf.random.stateless_truncated_normal([500], seed)) <= 2.0))),
    ]


@case
def stateless_seed_of_the_wrong_shape(tf, sess):
    return tf.random.stateless_uniform([2], seed=[1, 2, 3])


@case
def stateless_uniform_int_needs_maxval(tf, sess):
    return tf.random.stateless_uniform([2], seed=[1, 2], dtype=tf.int32)


@case
def split_and_fold_in_shapes_and_dtypes(tf, sess):
    s = tf.random.split(tf.constant([1, 2], tf.int64), 3)
    f = tf.random.fold_in([1, 2], 7)
    s2 = tf.random.split([5, 6])
    fv, sv = sess.run([f, s])
    return [s.shape, s.dtype, f.shape, f.dtype, s2.shape, int(fv[1]), bool((sess.run(s) == sv).all())]


@case
def candidate_samplers_are_the_nn_functions(tf, sess):
    names = ["all_candidate_sampler", "fixed_unigram_candidate_sampler", "log_uniform_candidate_sampler"]
    names.append("uniform_candidate_sampler")
    sampled = tf.random.uniform_candidate_sampler(tf.constant([[1], [3]], tf.int64), 1, 4, True, 10, seed=1)
    return [getattr(tf.random, n) is getattr(tf.nn, n) for n in names] + [sampled[0].shape, sampled[1].shape]

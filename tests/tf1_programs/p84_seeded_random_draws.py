"""Seeded random ops printed, as TF1 users compared runs: tf.set_random_seed with op seeds on random_normal,
random_uniform (float and int ranges), truncated_normal, tf.multinomial, random_shuffle, random_gamma,
random_poisson, tf.random.categorical, a dropout mask, the default initializers of tf.get_variable and
tf.layers.dense (glorot_uniform with a graph seed), and re-running the same op (a new draw each run) versus a
new Session (the sequence restarts); values must equal TensorFlow's."""


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(84)
    ops = {
        "normal": tf.random_normal([2, 3], mean=1.0, stddev=2.0, seed=1),
        "uniform": tf.random_uniform([4], -1.0, 1.0, seed=2),
        "uniform_int": tf.random_uniform([5], 0, 100, dtype=tf.int64, seed=3),
        "truncated": tf.truncated_normal([3], stddev=0.5, seed=4),
        "multinomial": tf.multinomial([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]], 6, seed=5),
        "categorical": tf.random.categorical([[1.0, 1.0, 1.0, 1.0]], 5, seed=6),
        "shuffle": tf.random_shuffle(tf.range(8), seed=7),
        "gamma": tf.random_gamma([3], alpha=[0.5, 2.0], seed=8),
        "poisson": tf.random_poisson([1.0, 5.0], [3], seed=9),
        "dropout": tf.nn.dropout(tf.ones([2, 5]), keep_prob=0.6, seed=10),
        "no_op_seed": tf.random_normal([3]),
    }
    v = tf.get_variable("v", [2, 3])
    dense = tf.layers.dense(tf.ones([1, 4]), 2, name="dense")
    out = {"shapes": {k: t.shape.as_list() for k, t in ops.items()}}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["first"] = sess.run(ops)
        out["second"] = sess.run(ops["normal"])
        out["vars"] = sess.run([v, dense])
    with tf.Session() as sess:
        out["new_session"] = sess.run(ops["normal"])
    return out

"""Sampling inside the graph as TF1 text-generation and RL code did it: a tf.while_loop that draws the next token
with tf.multinomial(logits, 1, seed=) from a fixed bigram table and writes it to a TensorArray, the same loop run
twice in one session (the op's stream advances: different samples) and in a fresh session (the same ones again),
tf.map_fn over rows drawing tf.random_uniform per row (parallel_iterations=1: with more, the order the
iterations draw in is the executor's), tf.random_normal inside tf.cond branches, and a
REINFORCE-style log-probability of the sampled tokens (tf.nn.sparse_softmax_cross_entropy_with_logits); the
graph-level seed set with tf.set_random_seed, the samples compared exactly."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(192)
    vocab, steps = 5, 8
    rng = np.random.RandomState(192)
    table = tf.constant(np.log(rng.dirichlet(np.ones(vocab), size=vocab)).astype(np.float32))
    ta = tf.TensorArray(tf.int64, size=steps)
    logp_ta = tf.TensorArray(tf.float32, size=steps)

    def body(t, token, ta, logp_ta):
        logits = tf.gather(table, tf.reshape(token, [1]))
        nxt = tf.multinomial(logits, 1, seed=7)[0, 0]
        logp = -tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.reshape(nxt, [1]), logits=logits)[0]
        return t + 1, nxt, ta.write(t, nxt), logp_ta.write(t, logp)

    _, _, ta, logp_ta = tf.while_loop(
        lambda t, *_: t < steps, body, [tf.constant(0), tf.constant(0, tf.int64), ta, logp_ta]
    )
    tokens = ta.stack()
    total_logp = tf.reduce_sum(logp_ta.stack())
    rows = tf.map_fn(lambda r: r + tf.random_uniform([3], seed=11), tf.zeros([4, 3]), parallel_iterations=1)
    flag = tf.placeholder(tf.bool, [])
    branch = tf.cond(flag, lambda: tf.random_normal([2], seed=13), lambda: tf.random_normal([2], seed=14) + 10.0)
    out = {}
    with tf.Session() as sess:
        first, lp = sess.run([tokens, total_logp])
        second = sess.run(tokens)
        out["first"], out["logp"], out["second"] = first, lp, second
        out["rows"] = sess.run(rows)
        out["branches"] = [sess.run(branch, {flag: True}), sess.run(branch, {flag: False})]
    with tf.Session() as sess:
        out["fresh"] = sess.run(tokens)
    out["repeatable"] = bool(np.array_equal(out["fresh"], out["first"]))
    return out

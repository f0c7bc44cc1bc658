"""Inference-time decoding written with tf.while_loop as TF1 research code did it: a GRU-cell language model
(weights from numpy) decoded greedily with a TensorArray and a finished mask that stops at the end token, a small
beam search keeping the top-k (log-prob, token, parent) each step with tf.nn.top_k and gather_nd, and backtracking
the best beam through the parents with a reverse while_loop."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(54)
    vocab, emb_dim, units, beam, max_len, eos = 7, 4, 6, 3, 6, 0
    emb = tf.constant(rng.randn(vocab, emb_dim).astype(np.float32), name="emb")
    cell = tf.nn.rnn_cell.GRUCell(units, name="gru")
    proj_w = tf.constant(rng.randn(units, vocab).astype(np.float32), name="proj_w")
    start = tf.placeholder(tf.int32, [None], name="start")
    batch = tf.shape(start)[0]

    def step(tokens, state):
        out, state = cell(tf.nn.embedding_lookup(emb, tokens), state)
        return tf.nn.log_softmax(tf.matmul(out, proj_w)), state

    # greedy
    def g_cond(t, tokens, state, finished, ta):
        return tf.logical_and(t < max_len, tf.logical_not(tf.reduce_all(finished)))

    def g_body(t, tokens, state, finished, ta):
        logp, state = step(tokens, state)
        nxt = tf.where(finished, tf.fill([batch], eos), tf.argmax(logp, axis=1, output_type=tf.int32))
        return t + 1, nxt, state, tf.logical_or(finished, tf.equal(nxt, eos)), ta.write(t, nxt)

    init = (
        tf.constant(0),
        start,
        cell.zero_state(batch, tf.float32),
        tf.zeros([batch], tf.bool),
        tf.TensorArray(tf.int32, size=0, dynamic_size=True),
    )
    steps, _, _, _, ta = tf.while_loop(g_cond, g_body, init)
    greedy = tf.transpose(ta.stack())

    # beam search for one sequence
    start_tok = tf.placeholder(tf.int32, [], name="start_tok")

    def b_body(t, tokens, state, scores, tok_ta, par_ta):
        logp, state = step(tokens, state)  # [beam, vocab]
        total = tf.reshape(scores[:, None] + logp, [-1])
        total = tf.cond(tf.equal(t, 0), lambda: tf.reshape(logp[:1], [-1]), lambda: total)
        top, idx = tf.nn.top_k(total, k=beam)
        parent = idx // vocab
        token = idx % vocab
        state = tf.gather(state, parent)
        return t + 1, token, state, top, tok_ta.write(t, token), par_ta.write(t, parent)

    b_init = (
        tf.constant(0),
        tf.fill([beam], start_tok),
        cell.zero_state(beam, tf.float32),
        tf.zeros([beam]),
        tf.TensorArray(tf.int32, size=max_len),
        tf.TensorArray(tf.int32, size=max_len),
    )
    _, _, _, beam_scores, tok_ta, par_ta = tf.while_loop(lambda t, *a: t < max_len, b_body, b_init)
    toks, pars = tok_ta.stack(), par_ta.stack()

    def back_body(t, k, acc):
        return t - 1, pars[t, k], acc.write(t, toks[t, k])

    _, _, acc = tf.while_loop(
        lambda t, k, acc: t >= 0,
        back_body,
        (tf.constant(max_len - 1), tf.constant(0), tf.TensorArray(tf.int32, max_len)),
    )
    best = acc.stack()
    out = {
        "greedy_shape": greedy.shape.as_list(),
        "best_shape": best.shape.as_list(),
        "var_names": [v.op.name for v in tf.global_variables()],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for v in tf.global_variables():
            sess.run(v.assign(rng.randn(*v.shape.as_list()).astype(np.float32) * 0.5))
        out["greedy"], out["steps"] = sess.run([greedy, steps], {start: [1, 2, 3, 5]})
        out["beam"] = sess.run([beam_scores, toks, pars, best], {start_tok: 2})
    return out

"""Beam search written by hand as 2017 TF1 NMT / captioning code did it before tf.contrib.seq2seq's
BeamSearchDecoder: a fixed "language model" (a transition matrix of log-probabilities), the beams' scores plus the
next-token log-probs flattened to [batch, beam * vocab], tf.nn.top_k over them, beam and token ids recovered with
// and %, the beams' histories reordered with tf.batch_gather / tf.gather_nd on (batch, beam) index pairs, finished
beams kept by a tf.where on an end token with length normalization, all inside a tf.while_loop with
shape_invariants; then backtracking parent pointers in a reversed tf.scan; the best sequences and scores."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    vocab, beam, batch, max_len, end_id = 6, 3, 2, 5, 0
    rng = np.random.RandomState(183)
    trans = rng.rand(vocab, vocab).astype(np.float32) + 0.05
    trans[:, end_id] *= np.linspace(0.2, 1.5, vocab).astype(np.float32)
    log_trans = np.log(trans / trans.sum(axis=1, keepdims=True)).astype(np.float32)
    start_tokens = tf.constant([2, 4], tf.int32)
    table = tf.constant(log_trans)

    scores0 = tf.tile(tf.constant([[0.0] + [-1e9] * (beam - 1)]), [batch, 1])
    tokens0 = tf.tile(tf.expand_dims(start_tokens, 1), [1, beam])
    finished0 = tf.zeros([batch, beam], tf.bool)
    history0 = tf.expand_dims(tokens0, 2)  # the start token first (gather_nd of an empty history is an error)
    parents_ta = tf.TensorArray(tf.int32, size=max_len)
    tokens_ta = tf.TensorArray(tf.int32, size=max_len)

    def body(t, scores, tokens, finished, history, parents_ta, tokens_ta):
        step_logp = tf.gather(table, tokens)  # [batch, beam, vocab]
        end_only = tf.one_hot(tf.fill([batch, beam], end_id), vocab, on_value=0.0, off_value=-1e9)
        step_logp = tf.where(tf.tile(tf.expand_dims(finished, 2), [1, 1, vocab]), end_only, step_logp)
        total = tf.expand_dims(scores, 2) + step_logp
        flat = tf.reshape(total, [batch, beam * vocab])
        top_scores, top_ids = tf.nn.top_k(flat, k=beam)
        parent = top_ids // vocab
        token = top_ids % vocab
        batch_pos = tf.tile(tf.expand_dims(tf.range(batch), 1), [1, beam])
        pairs = tf.stack([batch_pos, parent], axis=2)
        history = tf.concat([tf.gather_nd(history, pairs), tf.expand_dims(token, 2)], axis=2)
        was_finished = tf.batch_gather(finished, parent)
        finished = tf.logical_or(was_finished, tf.equal(token, end_id))
        return (t + 1, top_scores, token, finished, history,
                parents_ta.write(t, parent), tokens_ta.write(t, token))  # fmt: skip

    def cond(t, scores, tokens, finished, *rest):
        return tf.logical_and(t < max_len, tf.logical_not(tf.reduce_all(finished)))

    t, scores, _, finished, history, parents_ta, tokens_ta = tf.while_loop(
        cond,
        body,
        [tf.constant(0), scores0, tokens0, finished0, history0, parents_ta, tokens_ta],
        shape_invariants=[tf.TensorShape([]), scores0.shape, tokens0.shape, finished0.shape,
                          tf.TensorShape([batch, beam, None]), tf.TensorShape(None), tf.TensorShape(None)],
    )  # fmt: skip
    lengths = tf.reduce_sum(tf.cast(tf.not_equal(history[:, :, 1:], end_id), tf.float32), axis=2) + 1.0
    normalized = scores / lengths
    best = tf.argmax(normalized, axis=1, output_type=tf.int32)
    best_seq = tf.gather_nd(history, tf.stack([tf.range(batch), best], axis=1))

    parents = parents_ta.stack()[:t]
    toks = tokens_ta.stack()[:t]

    def back(carry, step):
        beam_idx, _ = carry
        parent, token = step
        tok = tf.batch_gather(token, tf.expand_dims(beam_idx, 1))[:, 0]
        return tf.batch_gather(parent, tf.expand_dims(beam_idx, 1))[:, 0], tok

    _, backtracked = tf.scan(back, (parents, toks), initializer=(best, tf.zeros([batch], tf.int32)), reverse=True)
    out = {"history_shape": history.shape.as_list(), "parents_shape": parents.shape.as_list()}
    with tf.Session() as sess:
        res = sess.run([t, scores, finished, history, normalized, best, best_seq, tf.transpose(backtracked)])
    out["steps"], out["scores"], out["finished"], out["history"] = res[:4]
    out["normalized"], out["best"], out["best_seq"], out["backtracked"] = res[4:]
    return out

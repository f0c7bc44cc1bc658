"""A linear-chain CRF tagger written by hand, as 2016-2017 TF1 NER code did before tf.contrib.crf was trusted:
BiLSTM-free emission scores from a dense layer, a transition matrix variable, the log partition function by
the forward algorithm in tf.scan with reduce_logsumexp (masked by sequence length with tf.where / where_v2),
the gold path score with gather_nd over (batch, time, tag) indices and transitions gathered by flat index,
negative log-likelihood minimized with Adam, and Viterbi decoding with tf.scan back-pointers plus a reversed
backtrack scan; results checked against brute-force enumeration in numpy."""

import itertools

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(107)
    batch, steps, feat, n_tags = 3, 4, 5, 3
    xs = rng.randn(batch, steps, feat).astype(np.float32)
    tags_np = rng.randint(0, n_tags, (batch, steps)).astype(np.int32)
    lens_np = np.array([4, 2, 3], np.int32)
    x = tf.placeholder(tf.float32, [None, steps, feat])
    tags = tf.placeholder(tf.int32, [None, steps])
    lengths = tf.placeholder(tf.int32, [None])
    w = tf.Variable(rng.randn(feat, n_tags).astype(np.float32) * 0.3, name="emission_w")
    trans = tf.Variable(rng.randn(n_tags, n_tags).astype(np.float32) * 0.1, name="transitions")
    emissions = tf.einsum("btf,fk->btk", x, w)
    mask = tf.sequence_mask(lengths, steps)
    time_major = tf.transpose(emissions, [1, 0, 2])
    mask_t = tf.transpose(mask)

    def forward(alpha, inputs):
        emit, m = inputs
        scores = tf.expand_dims(alpha, 2) + tf.expand_dims(trans, 0) + tf.expand_dims(emit, 1)
        new_alpha = tf.reduce_logsumexp(scores, axis=1)
        return tf.where_v2(tf.expand_dims(m, 1), new_alpha, alpha)

    alphas = tf.scan(forward, (time_major[1:], mask_t[1:]), initializer=time_major[0])
    log_z = tf.reduce_logsumexp(alphas[-1], axis=1)
    b_idx = tf.tile(tf.expand_dims(tf.range(tf.shape(x)[0]), 1), [1, steps])
    t_idx = tf.tile(tf.expand_dims(tf.range(steps), 0), [tf.shape(x)[0], 1])
    unary = tf.gather_nd(emissions, tf.stack([b_idx, t_idx, tags], axis=2))
    unary = tf.reduce_sum(tf.where(mask, unary, tf.zeros_like(unary)), axis=1)
    flat_trans = tf.reshape(trans, [-1])
    pair_idx = tags[:, :-1] * n_tags + tags[:, 1:]
    binary = tf.gather(flat_trans, pair_idx)
    binary = tf.reduce_sum(binary * tf.cast(mask[:, 1:], tf.float32), axis=1)
    log_likelihood = unary + binary - log_z
    loss = -tf.reduce_mean(log_likelihood)
    train = tf.train.AdamOptimizer(0.05).minimize(loss)

    def viterbi_step(state, inputs):
        score, _ = state
        emit, m = inputs
        cand = tf.expand_dims(score, 2) + tf.expand_dims(trans, 0)
        best = tf.reduce_max(cand, axis=1) + emit
        ptr = tf.argmax(cand, axis=1, output_type=tf.int32)
        keep_ptr = tf.tile(tf.expand_dims(tf.range(n_tags), 0), [tf.shape(score)[0], 1])
        return tf.where_v2(tf.expand_dims(m, 1), best, score), tf.where_v2(tf.expand_dims(m, 1), ptr, keep_ptr)

    init_ptr = tf.zeros_like(tf.cast(time_major[0], tf.int32))
    scores, ptrs = tf.scan(viterbi_step, (time_major[1:], mask_t[1:]), initializer=(time_major[0], init_ptr))
    last = tf.argmax(scores[-1], axis=1, output_type=tf.int32)

    def backtrack(tag, ptr):
        return tf.gather_nd(ptr, tf.stack([tf.range(tf.shape(tag)[0]), tag], axis=1))

    prev = tf.scan(backtrack, ptrs, initializer=last, reverse=True)
    path = tf.concat([tf.transpose(prev), tf.expand_dims(last, 1)], axis=1)
    best_score = tf.reduce_max(scores[-1], axis=1)
    out = {"shapes": [t.shape.as_list() for t in (emissions, alphas, log_z, scores, ptrs, path)], "nll": []}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {x: xs, tags: tags_np, lengths: lens_np}
        for _ in range(10):
            out["nll"].append(sess.run([loss, train], feed)[0])
        em, tr, lz, p, bs = sess.run([emissions, trans, log_z, path, best_score], feed)
    brute_z, brute_best = [], []
    for b in range(batch):
        n = lens_np[b]
        scores_all = {
            seq: sum(em[b, t, seq[t]] for t in range(n)) + sum(tr[seq[t], seq[t + 1]] for t in range(n - 1))
            for seq in itertools.product(range(n_tags), repeat=n)
        }
        brute_z.append(np.log(np.sum(np.exp(list(scores_all.values())))))
        brute_best.append(max(scores_all, key=scores_all.get))
    out["log_z"] = lz
    out["log_z_matches_brute_force"] = bool(np.allclose(lz, brute_z, atol=1e-4))
    out["paths"] = [p[b, : lens_np[b]].tolist() for b in range(batch)]
    out["viterbi_matches_brute_force"] = [list(bb) for bb in brute_best] == out["paths"]
    out["best_score"] = bs
    return out

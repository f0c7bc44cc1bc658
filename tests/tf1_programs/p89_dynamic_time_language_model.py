"""An LSTM language model over batches whose length is known only when fed (placeholders [None, None], the
common TF1 case): embedding, dynamic_rnn with a MultiRNNCell of two LSTMCells and sequence_length, the
final state fetched and fed back as initial_state between runs (truncated BPTT), logits by tensordot, a masked
sequence loss, Adam with clip_by_global_norm; batches of two different lengths run through the same graph."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(89)
    rng = np.random.RandomState(89)
    vocab, units, batch = 12, 6, 3
    tokens = tf.placeholder(tf.int32, [None, None], name="tokens")
    targets = tf.placeholder(tf.int32, [None, None], name="targets")
    lengths = tf.placeholder(tf.int32, [None], name="lengths")
    emb = tf.get_variable("embedding", [vocab, 5])
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(units, name=f"lstm{i}") for i in range(2)])
    init_state = cell.zero_state(batch, tf.float32)
    outputs, final = tf.nn.dynamic_rnn(
        cell, tf.nn.embedding_lookup(emb, tokens), sequence_length=lengths, initial_state=init_state
    )
    w = tf.get_variable("softmax_w", [units, vocab])
    b = tf.get_variable("softmax_b", [vocab], initializer=tf.zeros_initializer())
    logits = tf.tensordot(outputs, w, axes=[[2], [0]]) + b
    mask = tf.sequence_mask(lengths, tf.shape(tokens)[1], dtype=tf.float32)
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=targets, logits=logits)
    loss = tf.reduce_sum(xent * mask) / tf.reduce_sum(mask)
    tvars = tf.trainable_variables()
    grads, gnorm = tf.clip_by_global_norm(tf.gradients(loss, tvars), 1.0)
    train = tf.train.AdamOptimizer(0.02).apply_gradients(zip(grads, tvars))
    out = {
        "vars": [(v.op.name, v.shape.as_list()) for v in tvars],
        "shapes": [outputs.shape.as_list(), logits.shape.as_list(), final[1].h.shape.as_list()],
        "runs": [],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        state = sess.run(init_state)
        for steps in (5, 3, 5, 4):
            seq = rng.randint(0, vocab, (batch, steps + 1)).astype(np.int32)
            lens = np.array([steps, steps - 1, steps], np.int32)
            feed = {tokens: seq[:, :-1], targets: seq[:, 1:], lengths: lens, init_state: state}
            l, n, state, o, _ = sess.run([loss, gnorm, final, outputs, train], feed)
            out["runs"].append([l, n, o.shape, float(np.abs(o[1, steps - 1 :]).sum())])
        out["state"] = state
    return out

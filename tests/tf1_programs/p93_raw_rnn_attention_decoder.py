"""A seq2seq model with Bahdanau attention written by hand (no tf.contrib.seq2seq), over batches whose lengths
are known only when fed: a bidirectional_dynamic_rnn GRU encoder on [None, None] token ids with
sequence_length, and a tf.nn.raw_rnn decoder whose loop_fn feeds the previous target embedding (teacher
forcing from a TensorArray) concatenated with the attention context computed inside the cell call; masked
sequence loss, Adam, two batches of different lengths."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(93)
    rng = np.random.RandomState(93)
    vocab, emb_dim, units = 10, 4, 5
    src = tf.placeholder(tf.int32, [None, None], name="src")
    src_len = tf.placeholder(tf.int32, [None], name="src_len")
    tgt_in = tf.placeholder(tf.int32, [None, None], name="tgt_in")
    tgt_out = tf.placeholder(tf.int32, [None, None], name="tgt_out")
    tgt_len = tf.placeholder(tf.int32, [None], name="tgt_len")
    emb = tf.get_variable("embedding", [vocab, emb_dim])
    with tf.variable_scope("encoder"):
        (fw, bw), (st_fw, st_bw) = tf.nn.bidirectional_dynamic_rnn(
            tf.nn.rnn_cell.GRUCell(units),
            tf.nn.rnn_cell.GRUCell(units),
            tf.nn.embedding_lookup(emb, src),
            sequence_length=src_len,
            dtype=tf.float32,
        )
        memory = tf.concat([fw, bw], -1)
        init = tf.layers.dense(tf.concat([st_fw, st_bw], -1), units, activation=tf.tanh, name="bridge")
    batch = tf.shape(src)[0]
    src_mask = tf.sequence_mask(src_len, tf.shape(src)[1])
    with tf.variable_scope("attention"):
        keys = tf.layers.dense(memory, units, use_bias=False, name="memory_layer")
        query_layer = tf.layers.Dense(units, use_bias=False, name="query_layer")
        v = tf.get_variable("v", [units])
    dec_inputs = tf.TensorArray(tf.float32, size=tf.shape(tgt_in)[1]).unstack(
        tf.transpose(tf.nn.embedding_lookup(emb, tgt_in), [1, 0, 2])
    )
    cell = tf.nn.rnn_cell.GRUCell(units, name="decoder_cell")

    def attend(state):
        score = tf.reduce_sum(v * tf.tanh(keys + tf.expand_dims(query_layer(state), 1)), -1)
        score = tf.where(src_mask, score, tf.fill(tf.shape(score), -1e9))
        align = tf.nn.softmax(score)
        return tf.reduce_sum(tf.expand_dims(align, -1) * memory, 1)

    def loop_fn(time, cell_output, cell_state, loop_state):
        if cell_output is None:
            state = init
        else:
            state = cell_state
        finished = time >= tgt_len
        step_input = tf.cond(
            tf.reduce_all(finished),
            lambda: tf.zeros([batch, emb_dim]),
            lambda: dec_inputs.read(tf.minimum(time, tf.shape(tgt_in)[1] - 1)),
        )
        next_input = tf.concat([step_input, attend(state)], -1)
        next_input.set_shape([None, emb_dim + 2 * units])
        return finished, next_input, state, cell_output, None

    outputs_ta, final_state, _ = tf.nn.raw_rnn(cell, loop_fn)
    outputs = tf.transpose(outputs_ta.stack(), [1, 0, 2])
    logits = tf.layers.dense(outputs, vocab, name="projection")
    mask = tf.sequence_mask(tgt_len, tf.shape(logits)[1], dtype=tf.float32)
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tgt_out[:, : tf.shape(logits)[1]], logits=logits)
    loss = tf.reduce_sum(xent * mask) / tf.cast(batch, tf.float32)
    train = tf.train.AdamOptimizer(0.02).minimize(loss)
    out = {
        "vars": [(v_.op.name, v_.shape.as_list()) for v_ in tf.trainable_variables()],
        "shapes": [memory.shape.as_list(), outputs.shape.as_list(), logits.shape.as_list()],
        "runs": [],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for s_len, t_len in [(5, 4), (3, 6), (5, 4)]:
            s = rng.randint(1, vocab, (2, s_len)).astype(np.int32)
            t = rng.randint(1, vocab, (2, t_len + 1)).astype(np.int32)
            feed = {
                src: s,
                src_len: [s_len, s_len - 1],
                tgt_in: t[:, :-1],
                tgt_out: t[:, 1:],
                tgt_len: [t_len, t_len - 2],
            }
            l, o, _ = sess.run([loss, outputs, train], feed)
            out["runs"].append([l, o.shape, float(np.abs(o[1, t_len - 2 :]).sum())])
        out["final"] = sess.run(final_state, feed)
    return out

"""A contrib-free seq2seq greedy decoder of the NMT tutorial's era: an LSTM encoder (dynamic_rnn), then a
tf.while_loop whose body runs the decoder cell one step, projects to the vocabulary, takes argmax, embeds it and
writes logits and ids into TensorArrays (element_shape, dynamic_size=False, clear_after_read), stopping at EOS or
maximum length with a `finished` vector; shape_invariants for a growing tensor; the training loss by teacher
forcing and gradients flowing through the loop (back_prop) into the embedding; the stacked outputs'
static shapes."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(203)
    vocab, emb_dim, units, batch, max_len, eos = 7, 4, 5, 3, 6, 1
    init = tf.random_uniform_initializer(-0.3, 0.3, seed=3)
    src = tf.constant([[2, 3, 4, 5], [6, 2, 0, 0], [3, 3, 3, 0]], tf.int32)
    src_lengths = tf.constant([4, 2, 3])
    with tf.variable_scope("seq2seq", initializer=init):
        embedding = tf.get_variable("embedding", [vocab, emb_dim])
        enc_cell = tf.nn.rnn_cell.LSTMCell(units, name="encoder")
        _, enc_state = tf.nn.dynamic_rnn(
            enc_cell, tf.nn.embedding_lookup(embedding, src), sequence_length=src_lengths, dtype=tf.float32
        )
        dec_cell = tf.nn.rnn_cell.LSTMCell(units, name="decoder")
        proj = tf.layers.Dense(vocab, name="output_projection")

        def cond(t, finished, *_):
            return tf.logical_and(t < max_len, tf.logical_not(tf.reduce_all(finished)))

        def body(t, finished, inputs, state, logits_ta, ids_ta, history):
            out, new_state = dec_cell(inputs, state)
            logits = proj(out)
            ids = tf.argmax(logits, axis=-1, output_type=tf.int32)
            ids = tf.where(finished, tf.fill([batch], eos), ids)
            new_finished = tf.logical_or(finished, tf.equal(ids, eos))
            history = tf.concat([history, tf.expand_dims(ids, 1)], axis=1)
            return (t + 1, new_finished, tf.nn.embedding_lookup(embedding, ids), new_state,
                    logits_ta.write(t, logits), ids_ta.write(t, ids), history)  # fmt: skip

        start = tf.nn.embedding_lookup(embedding, tf.zeros([batch], tf.int32))
        loop_vars = (
            tf.constant(0), tf.zeros([batch], tf.bool), start, enc_state,
            tf.TensorArray(tf.float32, size=max_len, element_shape=[batch, vocab], clear_after_read=False),
            tf.TensorArray(tf.int32, size=max_len, dynamic_size=False),
            tf.zeros([batch, 0], tf.int32),
        )  # fmt: skip
        invariants = (
            tf.TensorShape([]), tf.TensorShape([batch]), tf.TensorShape([batch, emb_dim]),
            tf.nn.rnn_cell.LSTMStateTuple(tf.TensorShape([batch, units]), tf.TensorShape([batch, units])),
            tf.TensorShape(None), tf.TensorShape(None), tf.TensorShape([batch, None]),
        )  # fmt: skip
        steps, finished, _, _, logits_ta, ids_ta, history = tf.while_loop(
            cond, body, loop_vars, shape_invariants=invariants, back_prop=True, parallel_iterations=1
        )
        logits = tf.transpose(logits_ta.stack()[:steps], [1, 0, 2])
        ids = tf.transpose(ids_ta.gather(tf.range(steps)))
        # teacher forcing: the same decoder unrolled over the target
        target = tf.constant([[4, 2, 1, 0], [3, 1, 0, 0], [5, 5, 6, 1]], tf.int32)
        dec_in = tf.nn.embedding_lookup(embedding, tf.concat([tf.zeros([batch, 1], tf.int32), target[:, :-1]], 1))
        dec_out, _ = tf.nn.dynamic_rnn(dec_cell, dec_in, initial_state=enc_state)
        mask = tf.sequence_mask([3, 2, 4], 4, dtype=tf.float32)
        loss = tf.contrib.seq2seq.sequence_loss(proj(dec_out), target, mask) if hasattr(tf, "contrib") else (
            tf.reduce_sum(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=target, logits=proj(dec_out)) * mask)
            / tf.reduce_sum(mask))  # fmt: skip
        loop_score = tf.reduce_sum(tf.reduce_max(tf.nn.log_softmax(logits), -1))
        emb_grad = tf.gradients(loop_score, embedding)[0]
        train = tf.train.AdamOptimizer(0.05).minimize(loss)
    out = {
        "static": [logits.shape.as_list(), ids.shape.as_list(), history.shape.as_list(), steps.shape.as_list()],
        "vars": sorted(v.op.name for v in tf.trainable_variables()),
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["decode"] = sess.run([steps, finished, ids, history, logits])
        out["emb_grad"] = np.asarray(sess.run(tf.convert_to_tensor(emb_grad)))
        out["losses"] = [sess.run([loss, train])[0] for _ in range(15)]
        out["after"] = sess.run([steps, ids])
    return out

"""An NMT-style encoder-decoder as the 2017 TF NMT tutorial wrote it, without tf.contrib.seq2seq: time-major
inputs (tf.transpose of [batch, time] ids), tf.nn.dynamic_rnn(time_major=True, sequence_length=) for the encoder
(an LSTMCell) whose final state starts the decoder, the decoder run by dynamic_rnn on the shifted targets with
its own sequence_length, a projection by tf.layers.Dense(use_bias=False, name="output_projection") applied to
the time-major outputs, the masked cross entropy averaged per batch ("crossent * target_weights / batch_size"),
gradients clipped by global norm, Adam; then greedy inference with tf.while_loop over the same cell and projection
(reuse through the same objects), finished flags, and a TensorArray of predicted ids; variable names, shapes,
losses and decoded ids."""

import numpy as np

SOS, EOS = 1, 2


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(144)
    rng = np.random.RandomState(144)
    vocab, emb_dim, units, batch = 10, 6, 8, 4
    src_len = np.array([5, 3, 4, 2], np.int32)
    src = np.zeros([batch, 5], np.int32)
    for i, n in enumerate(src_len):
        src[i, :n] = rng.randint(3, vocab, n)
    tgt_out = np.zeros([batch, 6], np.int32)
    tgt_in = np.zeros([batch, 6], np.int32)
    tgt_len = src_len + 1
    for i, n in enumerate(src_len):
        seq = list(src[i, :n][::-1])
        tgt_in[i, : n + 1] = [SOS] + seq
        tgt_out[i, : n + 1] = seq + [EOS]

    source = tf.placeholder(tf.int32, [None, None], name="source")
    source_len = tf.placeholder(tf.int32, [None], name="source_len")
    target_in = tf.placeholder(tf.int32, [None, None], name="target_in")
    target_out = tf.placeholder(tf.int32, [None, None], name="target_out")
    target_len = tf.placeholder(tf.int32, [None], name="target_len")
    batch_size = tf.size(source_len)
    with tf.variable_scope("embeddings"):
        embedding = tf.get_variable(
            "embedding_share", [vocab, emb_dim], initializer=tf.random_uniform_initializer(-0.5, 0.5)
        )
    with tf.variable_scope("encoder"):
        enc_inp = tf.nn.embedding_lookup(embedding, tf.transpose(source))
        enc_cell = tf.nn.rnn_cell.LSTMCell(units)
        enc_out, enc_state = tf.nn.dynamic_rnn(
            enc_cell, enc_inp, sequence_length=source_len, time_major=True, dtype=tf.float32
        )
    projection = tf.layers.Dense(vocab, use_bias=False, name="output_projection")
    with tf.variable_scope("decoder") as decoder_scope:
        dec_cell = tf.nn.rnn_cell.LSTMCell(units)
        dec_inp = tf.nn.embedding_lookup(embedding, tf.transpose(target_in))
        dec_out, _ = tf.nn.dynamic_rnn(
            dec_cell, dec_inp, sequence_length=target_len, initial_state=enc_state, time_major=True, scope=decoder_scope
        )
        logits = projection(dec_out)
    labels = tf.transpose(target_out)
    crossent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    max_time = tf.shape(labels)[0]
    target_weights = tf.transpose(tf.sequence_mask(target_len, max_time, dtype=logits.dtype))
    loss = tf.reduce_sum(crossent * target_weights) / tf.to_float(batch_size)
    params = tf.trainable_variables()
    gradients = tf.gradients(loss, params)
    clipped, grad_norm = tf.clip_by_global_norm(gradients, 5.0)
    global_step = tf.Variable(0, trainable=False, name="global_step")
    update = tf.train.AdamOptimizer(0.02).apply_gradients(zip(clipped, params), global_step=global_step)

    # greedy inference with the trained cell and projection
    max_iters = tf.reduce_max(source_len) * 2

    def cond(t, state, inp, finished, ids):
        return tf.logical_and(t < max_iters, tf.logical_not(tf.reduce_all(finished)))

    def body(t, state, inp, finished, ids):
        with tf.variable_scope(decoder_scope, reuse=True):
            with tf.variable_scope("rnn"):
                out, new_state = dec_cell(inp, state)
        step_ids = tf.argmax(projection(out), axis=-1, output_type=tf.int32)
        step_ids = tf.where(finished, tf.fill([batch_size], EOS), step_ids)
        new_finished = tf.logical_or(finished, tf.equal(step_ids, EOS))
        return t + 1, new_state, tf.nn.embedding_lookup(embedding, step_ids), new_finished, ids.write(t, step_ids)

    start = tf.nn.embedding_lookup(embedding, tf.fill([batch_size], SOS))
    ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
    _, _, _, _, ids_ta = tf.while_loop(
        cond, body, [tf.constant(0), enc_state, start, tf.zeros([batch_size], tf.bool), ta]
    )
    predicted = tf.transpose(ids_ta.stack())

    feed = {source: src, source_len: src_len, target_in: tgt_in, target_out: tgt_out, target_len: tgt_len}
    out = {
        "vars": [(v.name, v.shape.as_list()) for v in tf.global_variables()],
        "shapes": [enc_out.shape.as_list(), logits.shape.as_list(), predicted.shape.as_list()],
        "losses": [],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(30):
            _, l, n = sess.run([update, loss, grad_norm], feed)
            if step % 6 == 0:
                out["losses"].append(l)
                out.setdefault("norms", []).append(n)
        out["final_loss"] = sess.run(loss, feed)
        out["predicted"] = sess.run(predicted, {source: src, source_len: src_len})
        out["enc_state_c"] = sess.run(enc_state.c, feed)
        out["step"] = sess.run(global_step)
    return out

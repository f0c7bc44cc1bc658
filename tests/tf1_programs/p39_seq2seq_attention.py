"""A small seq2seq model as TF1 tutorials wrote it without tf.contrib: embeddings, a bidirectional dynamic_rnn
encoder over padded batches (sequence_length), a Luong-style attention decoder unrolled with raw_rnn-free
tf.while_loop + TensorArray, masked sequence loss, clip_by_global_norm, exponential_decay and Adam with a
global step."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(39)
    rng = np.random.RandomState(39)
    vocab, emb, units, src_len, tgt_len, batch = 12, 6, 8, 5, 4, 3
    src = tf.placeholder(tf.int32, [None, src_len], name="src")
    src_lens = tf.placeholder(tf.int32, [None], name="src_lens")
    tgt_in = tf.placeholder(tf.int32, [None, tgt_len], name="tgt_in")
    tgt_out = tf.placeholder(tf.int32, [None, tgt_len], name="tgt_out")
    tgt_lens = tf.placeholder(tf.int32, [None], name="tgt_lens")
    init = tf.random_uniform_initializer(-0.1, 0.1, seed=1)
    with tf.variable_scope("seq2seq", initializer=init):
        embedding = tf.get_variable("embedding", [vocab, emb])
        enc_in = tf.nn.embedding_lookup(embedding, src)
        fw = tf.nn.rnn_cell.GRUCell(units, name="fw")
        bw = tf.nn.rnn_cell.GRUCell(units, name="bw")
        (out_fw, out_bw), (st_fw, st_bw) = tf.nn.bidirectional_dynamic_rnn(
            fw, bw, enc_in, sequence_length=src_lens, dtype=tf.float32
        )
        memory = tf.concat([out_fw, out_bw], axis=2)  # [b, T, 2u]
        mask = tf.sequence_mask(src_lens, src_len, dtype=tf.float32)
        dec_cell = tf.nn.rnn_cell.LSTMCell(2 * units, name="decoder")
        state0 = tf.nn.rnn_cell.LSTMStateTuple(
            tf.zeros_like(tf.concat([st_fw, st_bw], 1)), tf.concat([st_fw, st_bw], 1)
        )
        w_att = tf.get_variable("w_att", [2 * units, 2 * units])
        out_proj = tf.layers.Dense(vocab, name="out_proj")
        dec_emb = tf.nn.embedding_lookup(embedding, tgt_in)
        inputs_ta = tf.TensorArray(tf.float32, size=tgt_len).unstack(tf.transpose(dec_emb, [1, 0, 2]))
        logits_ta = tf.TensorArray(tf.float32, size=tgt_len)

        def body(t, state, ta):
            x = inputs_ta.read(t)
            h, new_state = dec_cell(x, state)
            scores = tf.squeeze(tf.matmul(memory, tf.expand_dims(tf.matmul(h, w_att), 2)), 2)
            scores = scores + (1.0 - mask) * -1e9
            alpha = tf.nn.softmax(scores)
            context = tf.reduce_sum(memory * tf.expand_dims(alpha, 2), 1)
            return t + 1, new_state, ta.write(t, out_proj(tf.concat([h, context], 1)))

        _, _, logits_ta = tf.while_loop(lambda t, *_: t < tgt_len, body, (tf.constant(0), state0, logits_ta))
        logits = tf.transpose(logits_ta.stack(), [1, 0, 2])
    weights = tf.sequence_mask(tgt_lens, tgt_len, dtype=tf.float32)
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tgt_out, logits=logits)
    loss = tf.reduce_sum(xent * weights) / tf.reduce_sum(weights)
    global_step = tf.train.get_or_create_global_step()
    lr = tf.train.exponential_decay(0.05, global_step, 2, 0.5, staircase=True)
    params = tf.trainable_variables()
    grads, norm = tf.clip_by_global_norm(tf.gradients(loss, params), 1.0)
    train = tf.train.AdamOptimizer(lr).apply_gradients(zip(grads, params), global_step=global_step)
    preds = tf.argmax(logits, -1, output_type=tf.int32)
    feed = {
        src: rng.randint(1, vocab, (batch, src_len)),
        src_lens: [5, 3, 2],
        tgt_in: rng.randint(1, vocab, (batch, tgt_len)),
        tgt_out: rng.randint(1, vocab, (batch, tgt_len)),
        tgt_lens: [4, 2, 3],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = {k: sess.run(v) for k, v in sorted({v.op.name: v for v in params}.items())}
        history = [sess.run([loss, norm, lr, train], feed)[:3] for _ in range(5)]
        final = sess.run({"loss": loss, "preds": preds, "step": global_step}, feed)
    return {
        "names": sorted(values),
        "shapes": {k: list(v.shape) for k, v in values.items()},
        "history": history,
        "final": final,
        "logits_shape": logits.shape.as_list(),
        "memory_shape": memory.shape.as_list(),
    }

"""A stacked bidirectional LSTM tagger as NER tutorials wrote it: bidirectional_dynamic_rnn over MultiRNNCells of
ResidualWrapper(DropoutWrapper(LSTMCell)) with keep probabilities fed by a placeholder_with_default (1.0 at
evaluation), sequence_length masking, concatenated outputs, a time-distributed projection, a masked loss and
Adam with clip_by_global_norm; the variables' names and shapes, the output/state structures, the final states
at each sequence's end, and the error for a residual over mismatched sizes."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(208)
    rng = np.random.RandomState(208)
    batch, steps, dim, units, tags = 3, 5, 4, 4, 3
    x = tf.placeholder(tf.float32, [None, steps, dim], name="x")
    lengths = tf.placeholder(tf.int32, [None], name="lengths")
    y = tf.placeholder(tf.int32, [None, steps], name="y")
    keep = tf.placeholder_with_default(1.0, [], name="keep_prob")

    def stack(prefix):
        cells = []
        for i in range(2):
            cell = tf.nn.rnn_cell.LSTMCell(units, name=f"{prefix}_lstm{i}")
            cell = tf.nn.rnn_cell.DropoutWrapper(cell, input_keep_prob=keep, output_keep_prob=keep)
            cells.append(tf.nn.rnn_cell.ResidualWrapper(cell))
        return tf.nn.rnn_cell.MultiRNNCell(cells)

    (fw, bw), (fw_state, bw_state) = tf.nn.bidirectional_dynamic_rnn(
        stack("fw"), stack("bw"), x, sequence_length=lengths, dtype=tf.float32, scope="bilstm"
    )
    outputs = tf.concat([fw, bw], axis=-1)
    logits = tf.layers.dense(outputs, tags, name="proj")
    mask = tf.sequence_mask(lengths, steps, dtype=tf.float32)
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits, weights=mask)
    grads, variables = zip(*tf.train.AdamOptimizer(0.05).compute_gradients(loss))
    clipped, norm = tf.clip_by_global_norm(grads, 1.0)
    train = tf.train.AdamOptimizer(0.05).apply_gradients(zip(clipped, variables))
    out = {
        "vars": sorted((v.op.name, v.shape.as_list()) for v in tf.trainable_variables()),
        "shapes": [outputs.shape.as_list(), logits.shape.as_list(), len(fw_state), fw_state[0].h.shape.as_list()],
        "state_type": type(fw_state[1]).__name__,
    }
    feed = {
        x: rng.randn(batch, steps, dim).astype(np.float32),
        lengths: [5, 3, 1],
        y: rng.randint(0, tags, [batch, steps]),
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        fw_v, bw_v, fs, bs = sess.run([fw, bw, fw_state, bw_state], feed)
        out["fw_padding_zero"] = bool(np.all(fw_v[1, 3:] == 0) and np.all(fw_v[2, 1:] == 0))
        out["fw_final_is_last_output"] = np.allclose(fs[1].h[1], fw_v[1, 2]) and np.allclose(fs[1].h[2], fw_v[2, 0])
        out["bw_final_is_first_output"] = bool(np.allclose(bs[1].h[1], bw_v[1, 0]))
        out["values"] = [fw_v, bw_v]
        out["train"] = [sess.run([loss, norm, train], feed)[:2] for _ in range(6)]
        dropped = sess.run(outputs, {**feed, keep: 0.5})
        out["dropout_changes"] = bool(not np.allclose(dropped, sess.run(outputs, feed)))
    try:
        bad = tf.nn.rnn_cell.ResidualWrapper(tf.nn.rnn_cell.LSTMCell(3, name="bad"))
        tf.nn.dynamic_rnn(bad, tf.zeros([2, 4, 5]), dtype=tf.float32, scope="bad_rnn")
        out["residual_error"] = None
    except ValueError as e:
        out["residual_error"] = type(e).__name__
    return out

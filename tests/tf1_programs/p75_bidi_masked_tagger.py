"""A sequence tagger over padded batches: embeddings, tf.nn.bidirectional_dynamic_rnn with LSTMCells and
sequence_length, outputs concatenated, per-token sparse_softmax_cross_entropy_with_logits masked by
tf.sequence_mask and averaged over real tokens, accuracy over real tokens with tf.boolean_mask, Adagrad."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(75)
    rng = np.random.RandomState(75)
    words = rng.randint(1, 20, (4, 6)).astype(np.int32)
    lengths = np.array([6, 3, 5, 1], np.int32)
    for i, n in enumerate(lengths):
        words[i, n:] = 0
    tags = (words % 3).astype(np.int32)
    w = tf.placeholder(tf.int32, [None, None], name="words")
    t = tf.placeholder(tf.int32, [None, None], name="tags")
    n = tf.placeholder(tf.int32, [None], name="lengths")
    emb = tf.get_variable("embeddings", [20, 5])
    x = tf.nn.embedding_lookup(emb, w)
    fw = tf.nn.rnn_cell.LSTMCell(6)
    bw = tf.nn.rnn_cell.LSTMCell(6)
    (out_fw, out_bw), (st_fw, st_bw) = tf.nn.bidirectional_dynamic_rnn(fw, bw, x, sequence_length=n, dtype=tf.float32)
    h = tf.concat([out_fw, out_bw], axis=-1)
    logits = tf.layers.dense(h, 3, name="proj")
    mask = tf.sequence_mask(n, tf.shape(w)[1], dtype=tf.float32)
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=t, logits=logits)
    loss = tf.reduce_sum(xent * mask) / tf.reduce_sum(mask)
    bool_mask = tf.sequence_mask(n, tf.shape(w)[1])
    pred = tf.argmax(logits, -1, output_type=tf.int32)
    acc = tf.reduce_mean(tf.cast(tf.equal(tf.boolean_mask(pred, bool_mask), tf.boolean_mask(t, bool_mask)), tf.float32))
    train = tf.train.AdagradOptimizer(0.3).minimize(loss)
    out = {
        "vars": [(v.op.name, v.shape.as_list()) for v in tf.global_variables()],
        "shapes": [h.shape.as_list(), logits.shape.as_list(), xent.shape.as_list(), st_fw.h.shape.as_list()],
        "names": [out_fw.name, xent.op.type, mask.name],
        "losses": [],
    }
    feed = {w: words, t: tags, n: lengths}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(6):
            out["losses"].append(sess.run([loss, acc, train], feed)[:2])
        o_fw, o_bw, s_bw = sess.run([out_fw, out_bw, st_bw], feed)
        out["padded_zero"] = [float(np.abs(o_fw[1, 3:]).sum()), float(np.abs(o_bw[3, 1:]).sum())]
        out["bw_state"] = s_bw
    return out

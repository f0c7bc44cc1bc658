"""A CRF-free sequence tagger's evaluation as tutorials wrote it: padded token ids with sequence_length,
embedding + bidirectional GRU (dynamic_rnn with a None time dimension from a placeholder), per-token logits,
boolean_mask of padded positions, tf.metrics.accuracy with weights from sequence_mask, argmax over masked logits,
a while_loop Viterbi over a fixed transition matrix (tf.reduce_max / argmax with back-pointers in a TensorArray and
a reverse pass), and training with RMSProp for a few steps with the loss printed."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(220)
    rng = np.random.RandomState(220)
    vocab, tags, dim = 12, 4, 5
    ids = tf.placeholder(tf.int32, [None, None], name="ids")
    lengths = tf.placeholder(tf.int32, [None], name="lengths")
    labels = tf.placeholder(tf.int32, [None, None], name="labels")
    emb = tf.get_variable("emb", [vocab, dim], initializer=tf.random_uniform_initializer(-0.5, 0.5, seed=1))
    x = tf.nn.embedding_lookup(emb, ids)
    cell = lambda n: tf.nn.rnn_cell.GRUCell(4, name=n, kernel_initializer=tf.orthogonal_initializer(seed=2))
    (fw, bw), _ = tf.nn.bidirectional_dynamic_rnn(cell("fw"), cell("bw"), x, sequence_length=lengths, dtype=tf.float32)
    logits = tf.layers.dense(tf.concat([fw, bw], -1), tags, kernel_initializer=tf.glorot_uniform_initializer(seed=3))
    mask = tf.sequence_mask(lengths, tf.shape(ids)[1])
    flat_logits = tf.boolean_mask(logits, mask)
    flat_labels = tf.boolean_mask(labels, mask)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=flat_labels, logits=flat_logits))
    train = tf.train.RMSPropOptimizer(0.05).minimize(loss)
    preds = tf.argmax(logits, -1, output_type=tf.int32)
    acc, acc_update = tf.metrics.accuracy(labels, preds, weights=tf.cast(mask, tf.float32))
    trans = tf.constant(np.log(np.full([tags, tags], 0.1) + np.eye(tags) * 0.6), tf.float32)

    def viterbi(scores):  # scores [T, tags]
        T = tf.shape(scores)[0]
        backptr = tf.TensorArray(tf.int32, size=T - 1)

        def body(t, alpha, backptr):
            cand = tf.expand_dims(alpha, 1) + trans
            backptr = backptr.write(t - 1, tf.argmax(cand, 0, output_type=tf.int32))
            return t + 1, tf.reduce_max(cand, 0) + scores[t], backptr

        _, alpha, backptr = tf.while_loop(lambda t, *_: t < T, body, [1, scores[0], backptr])
        pointers = backptr.stack()
        best_last = tf.argmax(alpha, output_type=tf.int32)

        def back(t, tag, path):
            prev = pointers[t][tag]
            return t - 1, prev, path.write(t, prev)

        path = tf.TensorArray(tf.int32, size=T)
        path = path.write(T - 1, best_last)
        _, _, path = tf.while_loop(lambda t, *_: t >= 0, back, [T - 2, best_last, path])
        return path.stack(), tf.reduce_max(alpha)

    decoded, best_score = viterbi(logits[0, : lengths[0]])
    batch = {
        ids: rng.randint(1, vocab, [3, 6]) * (np.arange(6) < np.array([[6], [4], [2]])),
        lengths: [6, 4, 2],
        labels: rng.randint(0, tags, [3, 6]),
    }
    out = {"shapes": [logits.shape.as_list(), flat_logits.shape.as_list(), decoded.shape.as_list()]}
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        out["before"] = sess.run([loss, flat_logits, decoded, best_score], batch)
        out["losses"] = [sess.run([loss, train], batch)[0] for _ in range(5)]
        sess.run(acc_update, batch)
        out["acc"] = sess.run(acc)
        out["after"] = sess.run([decoded, best_score, preds], batch)
    return out

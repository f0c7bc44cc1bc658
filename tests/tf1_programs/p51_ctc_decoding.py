"""Speech-recognition style CTC as TF1 code wrote it: a BiLSTM-free linear acoustic model over padded frames,
tf.nn.ctc_loss from a SparseTensor of labels (built from dense labels with tf.where/gather_nd), a few
Adam steps, then tf.nn.ctc_greedy_decoder and ctc_beam_search_decoder, sparse_tensor_to_dense of the decoding,
and tf.edit_distance (label error rate) against the targets."""

import numpy as np


def dense_to_sparse(tf, dense, pad):
    idx = tf.where(tf.not_equal(dense, pad))
    return tf.SparseTensor(idx, tf.gather_nd(dense, idx), tf.shape(dense, out_type=tf.int64))


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(51)
    batch, frames, feats, classes = 3, 12, 5, 5  # 4 labels + blank
    x_np = rng.randn(batch, frames, feats).astype(np.float32)
    seq_len_np = np.array([12, 10, 8], np.int32)
    labels_np = np.array([[1, 2, 3, 0], [2, 2, 1, 0], [3, 1, 0, 0]], np.int32)  # 0 pads (never a label here)
    labels_np[labels_np == 0] = -1
    x = tf.placeholder(tf.float32, [None, None, feats], name="features")
    seq_len = tf.placeholder(tf.int32, [None], name="seq_len")
    labels = tf.placeholder(tf.int32, [None, None], name="labels")
    w = tf.Variable(rng.randn(feats, classes).astype(np.float32) * 0.3, name="w")
    b = tf.Variable(np.zeros(classes, np.float32), name="b")
    logits = tf.einsum("btf,fc->btc", x, w) + b
    logits_tm = tf.transpose(logits, [1, 0, 2])  # time major
    sparse_labels = dense_to_sparse(tf, labels, -1)
    loss_vec = tf.nn.ctc_loss(sparse_labels, logits_tm, seq_len)
    loss = tf.reduce_mean(loss_vec)
    train = tf.train.AdamOptimizer(0.1).minimize(loss)
    decoded, log_prob = tf.nn.ctc_greedy_decoder(logits_tm, seq_len)
    beam, beam_prob = tf.nn.ctc_beam_search_decoder(logits_tm, seq_len, beam_width=4, top_paths=2)
    dense_dec = tf.sparse_tensor_to_dense(decoded[0], default_value=-1)
    ler = tf.reduce_mean(tf.edit_distance(tf.cast(decoded[0], tf.int32), sparse_labels))
    feed = {x: x_np, seq_len: seq_len_np, labels: labels_np}
    out = {
        "loss_shape": loss_vec.shape.as_list(),
        "decoded_type": type(decoded[0]).__name__,
        "decoded_dtype": decoded[0].dtype.name,
        "log_prob_shape": log_prob.shape.as_list(),
        "beam_len": len(beam),
        "beam_prob_shape": beam_prob.shape.as_list(),
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["sparse_labels"] = list(sess.run(sparse_labels, feed))
        losses = []
        for _ in range(15):
            losses.append(sess.run([loss, train], feed)[0])
        out["losses"] = losses
        out["loss_vec"] = sess.run(loss_vec, feed)
        dd, lp, er = sess.run([dense_dec, log_prob, ler], feed)
        out["greedy"] = dd
        out["greedy_log_prob"] = lp
        out["ler"] = er
        bd, bp = sess.run([[tf.sparse_tensor_to_dense(s, default_value=-1) for s in beam], beam_prob], feed)
        out["beam"] = bd
        out["beam_prob"] = bp
    return out

"""Speech-recognition evaluation of the TF1 era: tf.nn.ctc_loss over time-major logits with
preprocess_collapse_repeated / ctc_merge_repeated / ignore_longer_outputs_than_inputs, ctc_greedy_decoder and
ctc_beam_search_decoder (beam_width, top_paths, merge_repeated), the decoded SparseTensors densified, the label
error rate with tf.edit_distance (normalize True/False), the CTC gradient, and the error for labels longer than
the inputs."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(201)
    T, B, C = 8, 3, 5
    logits_np = rng.randn(T, B, C).astype(np.float32)
    logits = tf.Variable(logits_np)
    labels = tf.SparseTensor([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [2, 0]],
                             tf.constant([1, 1, 2, 3, 1, 2], tf.int32), [3, 3])  # fmt: skip
    seq_len = tf.constant([8, 6, 5], tf.int32)
    loss = tf.nn.ctc_loss(labels, logits, seq_len)
    loss_collapse = tf.nn.ctc_loss(labels, logits, seq_len, preprocess_collapse_repeated=True)
    loss_nomerge = tf.nn.ctc_loss(labels, logits, seq_len, ctc_merge_repeated=False)
    grad = tf.gradients(tf.reduce_mean(loss), logits)[0]
    greedy, greedy_lp = tf.nn.ctc_greedy_decoder(logits, seq_len)
    beams, beam_lp = tf.nn.ctc_beam_search_decoder(logits, seq_len, beam_width=10, top_paths=2)
    beams_nm, _ = tf.nn.ctc_beam_search_decoder(logits, seq_len, beam_width=4, top_paths=1, merge_repeated=False)
    truth = tf.cast(labels, tf.int64)
    ler = tf.edit_distance(greedy[0], truth)
    ler_raw = tf.edit_distance(beams[0], truth, normalize=False)
    long_labels = tf.SparseTensor([[0, i] for i in range(6)], tf.constant([1, 2, 1, 2, 1, 2], tf.int32), [1, 6])
    short = tf.nn.ctc_loss(long_labels, logits[:4, :1], [4], ignore_longer_outputs_than_inputs=True)
    out = {"shapes": [loss.shape.as_list(), greedy_lp.shape.as_list(), beam_lp.shape.as_list(), len(beams)]}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["loss"], out["collapse"], out["nomerge"], out["grad"] = sess.run([loss, loss_collapse, loss_nomerge, grad])
        out["greedy"] = sess.run(tf.sparse_tensor_to_dense(greedy[0], default_value=-1))
        out["greedy_lp"] = sess.run(greedy_lp)
        out["beams"] = sess.run([tf.sparse_tensor_to_dense(b, default_value=-1) for b in beams])
        out["beam_lp"] = sess.run(beam_lp)
        out["beams_nm"] = sess.run(tf.sparse_tensor_to_dense(beams_nm[0], default_value=-1))
        out["ler"], out["ler_raw"] = sess.run([ler, ler_raw])
        out["short"] = sess.run(short)
        try:
            sess.run(tf.nn.ctc_loss(long_labels, logits[:4, :1], [4]))
            out["too_long"] = None
        except tf.errors.InvalidArgumentError as e:
            out["too_long"] = type(e).__name__
    return out

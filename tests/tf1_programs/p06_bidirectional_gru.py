"""A bidirectional GRU tagger (bidirectional_dynamic_rnn, time_major=False) and a static_rnn over unstacked steps."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(5)
    B, T, D, H = 3, 4, 5, 6
    X = rng.randn(B, T, D).astype(np.float32)
    lens = np.array([4, 2, 3], np.int32)
    tags = rng.randint(0, 3, (B, T))

    x = tf.placeholder(tf.float32, [None, T, D])
    L = tf.placeholder(tf.int32, [None])
    t = tf.placeholder(tf.int32, [None, T])
    init = tf.constant_initializer(0.1)
    fw = tf.nn.rnn_cell.GRUCell(H, kernel_initializer=init)
    bw = tf.nn.rnn_cell.GRUCell(H, kernel_initializer=tf.constant_initializer(-0.05))
    (out_fw, out_bw), (st_fw, st_bw) = tf.nn.bidirectional_dynamic_rnn(fw, bw, x, sequence_length=L, dtype=tf.float32)
    out = tf.concat([out_fw, out_bw], axis=-1)
    W = tf.get_variable("proj_w", [2 * H, 3], initializer=tf.constant_initializer(0.2))
    flat = tf.reshape(out, [-1, 2 * H])
    logits = tf.reshape(tf.matmul(flat, W), [-1, T, 3])
    mask = tf.sequence_mask(L, T, dtype=tf.float32)
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=t, logits=logits)
    loss = tf.reduce_sum(xent * mask) / tf.reduce_sum(mask)
    grads = tf.gradients(loss, tf.trainable_variables())

    with tf.variable_scope("static"):
        cell = tf.nn.rnn_cell.BasicRNNCell(H)
        steps = tf.unstack(x, axis=1)
        s_outs, s_state = tf.nn.static_rnn(cell, steps, dtype=tf.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sk, sb = [v for v in tf.trainable_variables() if v.name.startswith("static")]
        sk.load(np.full(sk.shape.as_list(), 0.05, np.float32), sess)
        feed = {x: X, L: lens, t: tags}
        l, g, o, sf, sbw = sess.run([loss, grads, out, st_fw, st_bw], feed)
        so, ss = sess.run([s_outs, s_state], feed)
    return {
        "loss": l,
        "grads": g,
        "out": o,
        "st_fw": sf,
        "st_bw": sbw,
        "static_outs": so,
        "static_state": ss,
        "n_steps": len(steps),
        "shapes": [out.shape.as_list(), logits.shape.as_list(), st_fw.shape.as_list(), s_outs[0].shape.as_list()],
        "vars": [v.name for v in tf.trainable_variables()],
    }

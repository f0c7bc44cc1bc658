"""RNN cell options: LSTMCell(use_peepholes, num_proj, cell_clip), ResidualWrapper, DeviceWrapper, time_major
dynamic_rnn, initial states from zero_state, GRU-in-MultiRNNCell, dropout wrappers with keep 1.0, and
raw-rnn-like manual unrolling with a reused cell. Weights are loaded from numpy."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(35)
    T, B, D = 4, 3, 5
    X = rng.randn(T, B, D).astype(np.float32)
    lens = np.array([4, 1, 3], np.int32)
    x = tf.placeholder(tf.float32, [T, None, D])
    L = tf.placeholder(tf.int32, [None])
    with tf.variable_scope("peep"):
        cell = tf.nn.rnn_cell.LSTMCell(6, use_peepholes=True, num_proj=4, cell_clip=1.0, proj_clip=0.8)
        out_p, st_p = tf.nn.dynamic_rnn(cell, x, sequence_length=L, time_major=True, dtype=tf.float32)
    with tf.variable_scope("res"):
        rcell = tf.nn.rnn_cell.ResidualWrapper(tf.nn.rnn_cell.GRUCell(D))
        out_r, st_r = tf.nn.dynamic_rnn(rcell, x, time_major=True, dtype=tf.float32)
    with tf.variable_scope("multi"):
        mcell = tf.nn.rnn_cell.MultiRNNCell(
            [
                tf.nn.rnn_cell.DeviceWrapper(tf.nn.rnn_cell.GRUCell(3), "/cpu:0"),
                tf.nn.rnn_cell.DropoutWrapper(
                    tf.nn.rnn_cell.BasicRNNCell(2, activation=tf.nn.relu), input_keep_prob=1.0
                ),
            ]
        )
        init = mcell.zero_state(B, tf.float32)
        out_m, st_m = tf.nn.dynamic_rnn(mcell, x, initial_state=init, time_major=True)
    with tf.variable_scope("manual"):
        ucell = tf.nn.rnn_cell.BasicLSTMCell(4, state_is_tuple=True)
        state = ucell.zero_state(B, tf.float32)
        outs = []
        for t in range(T):
            if t > 0:
                tf.get_variable_scope().reuse_variables()
            o, state = ucell(x[t], state)
            outs.append(o)
    variables = tf.trainable_variables()
    loss = (
        tf.reduce_sum(out_p) + tf.reduce_sum(out_r) + tf.reduce_sum(out_m) + tf.add_n([tf.reduce_sum(o) for o in outs])
    )
    grads = tf.gradients(loss, variables)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for v in variables:
            v.load(rng.uniform(-0.5, 0.5, v.shape.as_list()).astype(np.float32), sess)
        feed = {x: X, L: lens}
        vals = sess.run(
            {"out_p": out_p, "st_p": st_p, "out_r": out_r, "out_m": out_m, "st_m": st_m, "outs": outs, "state": state},
            feed,
        )
        g = sess.run(grads, feed)
    return {
        "vals": vals,
        "grads": g,
        "vars": [(v.name, v.shape.as_list()) for v in variables],
        "shapes": [
            out_p.shape.as_list(),
            st_p.c.shape.as_list(),
            st_p.h.shape.as_list(),
            out_r.shape.as_list(),
            out_m.shape.as_list(),
        ],
        "sizes": [cell.state_size.c, cell.state_size.h, cell.output_size, rcell.output_size],
    }

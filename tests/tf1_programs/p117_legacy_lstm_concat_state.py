"""Legacy TF1 RNN code from 2016: BasicLSTMCell(state_is_tuple=False) with its concatenated [c, h] state (the
deprecation era), MultiRNNCell(state_is_tuple=False), tf.nn.static_rnn over tf.unstack'ed inputs with a
sequence_length, initial state from cell.zero_state, state_size / output_size of each cell, the variable names
(rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel), GRUCell and LSTMCell(num_proj) state sizes, and a few
training steps of a many-to-one classifier."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(117)
    steps, feat, hidden = 5, 3, 4
    xs = rng.randn(3, steps, feat).astype(np.float32)
    lens = np.array([5, 3, 1], np.int32)
    ys = np.array([0, 1, 1], np.int32)
    x = tf.placeholder(tf.float32, [None, steps, feat])
    seq_len = tf.placeholder(tf.int32, [None])
    y = tf.placeholder(tf.int32, [None])
    with tf.variable_scope("legacy", initializer=tf.random_uniform_initializer(-0.3, 0.3, seed=117)):
        cells = [tf.nn.rnn_cell.BasicLSTMCell(hidden, state_is_tuple=False) for _ in range(2)]
        stack = tf.nn.rnn_cell.MultiRNNCell(cells, state_is_tuple=False)
        state0 = stack.zero_state(tf.shape(x)[0], tf.float32)
        outputs, state = tf.nn.static_rnn(stack, tf.unstack(x, axis=1), initial_state=state0, sequence_length=seq_len)
        w = tf.get_variable("w", initializer=tf.constant(rng.randn(hidden, 2).astype(np.float32)))
        logits = tf.matmul(outputs[-1], w)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    gru = tf.nn.rnn_cell.GRUCell(6)
    proj = tf.nn.rnn_cell.LSTMCell(5, num_proj=2)
    out = {
        "sizes": [
            cells[0].state_size,
            cells[0].output_size,
            stack.state_size,
            gru.state_size,
            list(proj.state_size),
            proj.output_size,
        ],
        "state_shape": state.shape.as_list(),
        "zero_state_shape": state0.shape.as_list(),
        "vars": [(v.op.name, v.shape.as_list()) for v in tf.trainable_variables()],
        "n_outputs": len(outputs),
        "losses": [],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {x: xs, seq_len: lens, y: ys}
        st, outs = sess.run([state, outputs], feed)
        out["state"] = st
        out["zeros_past_length"] = bool((outs[4][1] == 0).all() and (outs[1][2] == 0).all())
        for _ in range(5):
            out["losses"].append(sess.run([loss, train], feed)[0])
    return out

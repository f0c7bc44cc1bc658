"""A char-RNN that carries its LSTM state between session runs: LSTMStateTuple placeholders as initial_state,
cell.zero_state, sequence loss by hand, then sampling one step at a time with the same weights (reuse)."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(29)
    vocab, hidden, T, B = 6, 8, 5, 2
    data = rng.randint(0, vocab, (B, T + 1))

    inputs = tf.placeholder(tf.int32, [B, T])
    targets = tf.placeholder(tf.int32, [B, T])
    c_in = tf.placeholder(tf.float32, [B, hidden])
    h_in = tf.placeholder(tf.float32, [B, hidden])
    init_state = tf.nn.rnn_cell.LSTMStateTuple(c_in, h_in)
    with tf.variable_scope("char_rnn", initializer=tf.constant_initializer(0.05)):
        cell = tf.nn.rnn_cell.LSTMCell(hidden, forget_bias=1.0, state_is_tuple=True)
        x = tf.one_hot(inputs, vocab)
        outputs, final_state = tf.nn.dynamic_rnn(cell, x, initial_state=init_state)
        softmax_w = tf.get_variable("softmax_w", [hidden, vocab])
        softmax_b = tf.get_variable("softmax_b", [vocab], initializer=tf.zeros_initializer())
        logits = tf.reshape(tf.matmul(tf.reshape(outputs, [-1, hidden]), softmax_w) + softmax_b, [B, T, vocab])
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=targets, logits=logits))
    tvars = tf.trainable_variables()
    grads, _ = tf.clip_by_global_norm(tf.gradients(loss, tvars), 5.0)
    train = tf.train.AdamOptimizer(0.05).apply_gradients(zip(grads, tvars))
    zero = cell.zero_state(B, tf.float32)

    one = tf.placeholder(tf.int32, [1])
    with tf.variable_scope("char_rnn", reuse=True):
        s_c = tf.placeholder(tf.float32, [1, hidden])
        s_h = tf.placeholder(tf.float32, [1, hidden])
        step_out, step_state = cell(tf.one_hot(one, vocab), tf.nn.rnn_cell.LSTMStateTuple(s_c, s_h))
        step_logits = tf.matmul(step_out, tf.get_variable("softmax_w")) + tf.get_variable("softmax_b")

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        # Weights from numpy (a constant initializer leaves symmetric units, whose zero gradients Adam's
        # normalisation would turn rounding noise into steps).
        for v in tvars:
            v.load(rng.uniform(-0.3, 0.3, v.shape.as_list()).astype(np.float32), sess)
        state = sess.run(zero)
        losses = []
        for _ in range(4):
            feed = {inputs: data[:, :-1], targets: data[:, 1:], c_in: state.c, h_in: state.h}
            l, state, _ = sess.run([loss, final_state, train], feed)
            losses.append(l)
        c, h = np.zeros([1, hidden], np.float32), np.zeros([1, hidden], np.float32)
        sampled = []
        ch = 0
        for _ in range(6):
            lg, (c, h) = sess.run([step_logits, step_state], {one: [ch], s_c: c, s_h: h})
            ch = int(np.argmax(lg))
            sampled.append(ch)
    return {
        "losses": losses,
        "state": [state.c, state.h],
        "sampled": sampled,
        "state_type": type(state).__name__,
        "vars": [(v.name, v.shape.as_list()) for v in tvars],
        "shapes": [outputs.shape.as_list(), final_state.c.shape.as_list(), logits.shape.as_list()],
        "zero_shapes": [zero.c.shape.as_list(), zero.h.shape.as_list()],
    }

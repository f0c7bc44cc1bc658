"""tf.nn RNNs (issue 16): the rnn_cell cells and the static/dynamic/bidirectional drivers against TensorFlow 1 —
variable names and shapes, outputs and final states (each variable set to the same values in both frameworks),
sequence_length masking, gradients, and argument errors."""

import numpy as np

from tests.fidelity.harness import case


def _rand(*shape, seed=0, scale=1.0):
    return (np.random.default_rng(seed).uniform(-1, 1, size=shape) * scale).astype(np.float32)


def _set_weights(tf, sess):
    """Initializes, then gives every variable (by sorted name) fixed values; returns [(name, shape)]."""
    sess.run(tf.global_variables_initializer())
    variables = sorted(tf.global_variables(), key=lambda v: v.name)
    for i, v in enumerate(variables):
        sess.run(tf.assign(v, _rand(*v.shape.as_list(), seed=100 + i, scale=0.5)))
    return [(v.name, v.shape) for v in variables]


def _drive(tf, sess, cell, dynamic=True, sequence_length=None, time_major=False):
    x = tf.constant(_rand(5, 3, 2) if time_major else _rand(2, 5, 3))
    if dynamic:
        outputs, state = tf.nn.dynamic_rnn(
            cell, x, sequence_length=sequence_length, dtype=tf.float32, time_major=time_major
        )
    else:
        outputs, state = tf.nn.static_rnn(cell, tf.unstack(x, axis=1), sequence_length=sequence_length,
                                          dtype=tf.float32)  # fmt: skip
        outputs = tf.stack(outputs, axis=1)
    names = _set_weights(tf, sess)
    grads = tf.gradients(tf.reduce_sum(outputs * outputs), [x])
    return [names, outputs, outputs.shape, state, grads]


@case
def basic_rnn_cell_dynamic(tf, sess):
    return _drive(tf, sess, tf.nn.rnn_cell.BasicRNNCell(4))


@case
def basic_lstm_cell_dynamic_sequence_length(tf, sess):
    return _drive(tf, sess, tf.nn.rnn_cell.BasicLSTMCell(4, forget_bias=0.5), sequence_length=[5, 3])


@case
def basic_lstm_cell_not_tuple(tf, sess):
    return _drive(tf, sess, tf.nn.rnn_cell.BasicLSTMCell(3, state_is_tuple=False))


@case
def gru_cell_static(tf, sess):
    return _drive(tf, sess, tf.nn.rnn_cell.GRUCell(3), dynamic=False, sequence_length=[2, 4])


@case
def lstm_cell_peepholes_projection_clip(tf, sess):
    cell = tf.nn.rnn_cell.LSTMCell(4, use_peepholes=True, cell_clip=0.3, num_proj=2, proj_clip=0.2)
    return _drive(tf, sess, cell, time_major=True)


@case
def multi_rnn_cell(tf, sess):
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.GRUCell(3), tf.nn.rnn_cell.BasicLSTMCell(2)])
    return _drive(tf, sess, cell, sequence_length=[1, 5])


@case
def residual_and_dropout_wrappers(tf, sess):
    cell = tf.nn.rnn_cell.ResidualWrapper(
        tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.BasicRNNCell(3), input_keep_prob=1.0, output_keep_prob=1.0)
    )
    return _drive(tf, sess, cell)


@case
def cell_called_directly(tf, sess):
    cell = tf.nn.rnn_cell.BasicLSTMCell(3)
    state = cell.zero_state(2, tf.float32)
    out, state = cell(tf.constant(_rand(2, 4)), state)
    out2, state2 = cell(tf.constant(_rand(2, 4, seed=1)), state)
    names = _set_weights(tf, sess)
    return [names, out, out2, state2, cell.state_size, cell.output_size]


@case
def static_bidirectional_rnn(tf, sess):
    x = tf.constant(_rand(2, 4, 3))
    outputs, fw, bw = tf.nn.static_bidirectional_rnn(
        tf.nn.rnn_cell.GRUCell(2), tf.nn.rnn_cell.BasicRNNCell(3), tf.unstack(x, axis=1), dtype=tf.float32,
        sequence_length=[4, 2],
    )  # fmt: skip
    names = _set_weights(tf, sess)
    return [names, outputs, fw, bw, tf.gradients(tf.reduce_sum(tf.stack(outputs)), x)]


@case
def bidirectional_dynamic_rnn(tf, sess):
    x = tf.constant(_rand(2, 4, 3))
    (out_fw, out_bw), (fw, bw) = tf.nn.bidirectional_dynamic_rnn(
        tf.nn.rnn_cell.BasicLSTMCell(2), tf.nn.rnn_cell.GRUCell(3), x, sequence_length=[3, 4], dtype=tf.float32
    )
    names = _set_weights(tf, sess)
    return [names, out_fw, out_bw, fw, bw, out_bw.shape]


@case
def dynamic_rnn_initial_state(tf, sess):
    cell = tf.nn.rnn_cell.GRUCell(3)
    x = tf.constant(_rand(2, 3, 2))
    outputs, state = tf.nn.dynamic_rnn(cell, x, initial_state=tf.constant(_rand(2, 3, seed=5)))
    names = _set_weights(tf, sess)
    return [names, outputs, state]


@case
def dynamic_rnn_needs_dtype_or_state(tf, sess):
    return tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(3), tf.ones([2, 3, 2]))


@case
def static_rnn_needs_a_list(tf, sess):
    return tf.nn.static_rnn(tf.nn.rnn_cell.GRUCell(3), tf.ones([2, 3, 2]), dtype=tf.float32)

"""RNN APIs that tutorials used besides dynamic_rnn: tf.nn.raw_rnn with a loop_fn feeding inputs from a
TensorArray (the "advanced seq2seq" tutorial pattern), static_bidirectional_rnn over unstacked steps with
sequence_length, BasicLSTMCell(state_is_tuple=True, forget_bias), dynamic_rnn(swap_memory=True,
parallel_iterations=4), and their variable names; weights set from numpy."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(71)
    batch, steps, feat, units = 3, 4, 2, 3
    xs = rng.randn(batch, steps, feat).astype(np.float32)
    seq = np.array([4, 2, 3], np.int32)
    x = tf.placeholder(tf.float32, [batch, steps, feat])
    lens = tf.placeholder(tf.int32, [batch])
    cell = tf.nn.rnn_cell.BasicLSTMCell(units, forget_bias=0.5, state_is_tuple=True, name="raw_cell")
    inputs_ta = tf.TensorArray(tf.float32, size=steps).unstack(tf.transpose(x, [1, 0, 2]))

    def loop_fn(time, cell_output, cell_state, loop_state):
        emit = cell_output
        if cell_output is None:
            next_state = cell.zero_state(batch, tf.float32)
        else:
            next_state = cell_state
        finished = time >= lens
        next_input = tf.cond(
            tf.reduce_all(finished),
            lambda: tf.zeros([batch, feat]),
            lambda: inputs_ta.read(tf.minimum(time, steps - 1)),
        )
        return finished, next_input, next_state, emit, None

    outputs_ta, raw_state, _ = tf.nn.raw_rnn(cell, loop_fn)
    raw_out = tf.transpose(outputs_ta.stack(), [1, 0, 2])
    fw = tf.nn.rnn_cell.GRUCell(units, name="fw")
    bw = tf.nn.rnn_cell.GRUCell(units, name="bw")
    bi_out, bi_fw, bi_bw = tf.nn.static_bidirectional_rnn(
        fw, bw, tf.unstack(x, axis=1), sequence_length=lens, dtype=tf.float32
    )
    dcell = tf.nn.rnn_cell.BasicLSTMCell(units, name="dyn")
    dyn_out, dyn_state = tf.nn.dynamic_rnn(
        dcell, x, sequence_length=lens, dtype=tf.float32, swap_memory=True, parallel_iterations=4
    )
    out = {
        "vars": [(v.op.name, v.shape.as_list()) for v in tf.global_variables()],
        "static": [len(bi_out), bi_out[0].shape.as_list(), type(raw_state).__name__, dyn_out.shape.as_list()],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for v in tf.global_variables():
            sess.run(v.assign(rng.randn(*v.shape.as_list()).astype(np.float32) * 0.4))
        feed = {x: xs, lens: seq}
        out["raw"], out["raw_state"] = sess.run([raw_out, raw_state], feed)
        out["bi"] = sess.run([bi_out, bi_fw, bi_bw], feed)
        out["dyn"] = sess.run([dyn_out, dyn_state], feed)
    return out

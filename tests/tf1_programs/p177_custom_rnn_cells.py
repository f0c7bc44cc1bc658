"""Recurrent cells written by users as 2016-2018 research code did: a subclass of tf.nn.rnn_cell.RNNCell with
state_size / output_size properties and __call__ opening tf.variable_scope(scope or "my_gru") (the pre-1.2 pattern),
a layer-normalized LSTM subclassing tf.nn.rnn_cell.RNNCell with build() / add_variable and
LSTMStateTuple states (the 1.5+ pattern), both run by tf.nn.dynamic_rnn with sequence_length and by
tf.nn.static_rnn, wrapped in MultiRNNCell and DropoutWrapper(keep 1.0); the variables' names and shapes, the
zero states' structure, outputs past each sequence's length (zeros), the final states and a few training
losses."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(177)
    init = tf.random_uniform_initializer(-0.3, 0.3, seed=177)

    class MinimalGRU(tf.nn.rnn_cell.RNNCell):
        def __init__(self, num_units):
            super().__init__()
            self._num_units = num_units

        @property
        def state_size(self):
            return self._num_units

        @property
        def output_size(self):
            return self._num_units

        def __call__(self, inputs, state, scope=None):
            with tf.variable_scope(scope or "minimal_gru", initializer=init):
                xh = tf.concat([inputs, state], 1)
                z = tf.layers.dense(xh, self._num_units, tf.sigmoid, name="gate")
                c = tf.layers.dense(xh, self._num_units, tf.tanh, name="candidate")
                new_h = z * state + (1 - z) * c
            return new_h, new_h

    class LayerNormLSTM(tf.nn.rnn_cell.RNNCell):
        def __init__(self, num_units, reuse=None, name=None):
            super().__init__(_reuse=reuse, name=name)
            self._num_units = num_units

        @property
        def state_size(self):
            return tf.nn.rnn_cell.LSTMStateTuple(self._num_units, self._num_units)

        @property
        def output_size(self):
            return self._num_units

        def build(self, inputs_shape):
            depth = inputs_shape[-1]
            depth = depth.value if hasattr(depth, "value") else depth
            self._kernel = self.add_variable("kernel", [depth + self._num_units, 4 * self._num_units], initializer=init)
            self._gain = self.add_variable("ln_gain", [4 * self._num_units], initializer=tf.ones_initializer())
            self.built = True

        def call(self, inputs, state):
            c, h = state
            gates = tf.matmul(tf.concat([inputs, h], 1), self._kernel)
            mean, var = tf.nn.moments(gates, [1], keep_dims=True)
            gates = (gates - mean) * tf.rsqrt(var + 1e-5) * self._gain
            i, j, f, o = tf.split(gates, 4, axis=1)
            new_c = c * tf.sigmoid(f + 1.0) + tf.sigmoid(i) * tf.tanh(j)
            new_h = tf.tanh(new_c) * tf.sigmoid(o)
            return new_h, tf.nn.rnn_cell.LSTMStateTuple(new_c, new_h)

    rng = np.random.RandomState(177)
    inputs = rng.randn(3, 5, 4).astype(np.float32)
    lengths = np.array([5, 2, 4], np.int32)
    target = rng.randn(3, 6).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 5, 4])
    seq_len = tf.placeholder(tf.int32, [None])
    gru = MinimalGRU(6)
    gru_out, gru_state = tf.nn.dynamic_rnn(gru, x, sequence_length=seq_len, dtype=tf.float32, scope="gru_rnn")
    stack = tf.nn.rnn_cell.MultiRNNCell(
        [tf.nn.rnn_cell.DropoutWrapper(LayerNormLSTM(5), output_keep_prob=1.0), LayerNormLSTM(6, name="top")]
    )
    zero = stack.zero_state(3, tf.float32)
    ln_out, ln_state = tf.nn.dynamic_rnn(stack, x, sequence_length=seq_len, initial_state=zero, scope="ln_rnn")
    static_out, static_state = tf.nn.static_rnn(MinimalGRU(6), tf.unstack(x, axis=1), dtype=tf.float32,
                                                scope="static")  # fmt: skip
    loss = tf.reduce_mean(tf.square(gru_state - target)) + tf.reduce_mean(tf.square(ln_state[1].h - target))
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    out = {
        "vars": [(v.name, v.shape.as_list()) for v in tf.global_variables() if "Adam" not in v.name],
        "zero": [[t.shape.as_list() for t in s] for s in zero],
        "shapes": [gru_out.shape.as_list(), ln_out.shape.as_list(), len(static_out), static_state.shape.as_list()],
        "state_types": [type(s).__name__ for s in ln_state],
    }
    feed = {x: inputs, seq_len: lengths}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        g, ls, so = sess.run([gru_out, ln_state, static_out[-1]], feed)
        out["gru_out"], out["ln_state"], out["static_last"] = g, [list(s) for s in ls], so
        out["losses"] = [sess.run([loss, train], feed)[0] for _ in range(4)]
    return out

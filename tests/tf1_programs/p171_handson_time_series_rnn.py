"""Hands-On ML (1st ed.) chapter 14's time-series RNN: a BasicRNNCell(activation=tf.nn.relu) unrolled by
dynamic_rnn over [None, n_steps, 1] inputs, the outputs stacked (reshape to [-1, n_neurons]), one tf.layers.dense,
reshaped back to [-1, n_steps, 1] (the book's faster alternative to OutputProjectionWrapper), MSE and Adam on
next-value targets from a sine-like series, then "creative" generation feeding the model its own predictions in a
Python loop; the losses, the generated values, the variables' names and shapes."""

import numpy as np


def time_series(t):
    return t * np.sin(t) / 3 + 2 * np.sin(t * 5)


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(171)
    n_steps, n_inputs, n_neurons, n_outputs = 12, 1, 16, 1
    t0 = np.linspace(0, 30, 400)
    rng = np.random.RandomState(171)

    def next_batch(batch_size):
        start = rng.rand(batch_size, 1) * (30 - 1.2)
        ts = start + np.arange(0.0, n_steps + 1) * 0.1
        ys = time_series(ts)
        return ys[:, :-1].reshape(-1, n_steps, 1), ys[:, 1:].reshape(-1, n_steps, 1)

    X = tf.placeholder(tf.float32, [None, n_steps, n_inputs])
    y = tf.placeholder(tf.float32, [None, n_steps, n_outputs])
    cell = tf.nn.rnn_cell.BasicRNNCell(num_units=n_neurons, activation=tf.nn.relu)
    rnn_outputs, states = tf.nn.dynamic_rnn(cell, X, dtype=tf.float32)
    stacked_rnn_outputs = tf.reshape(rnn_outputs, [-1, n_neurons])
    stacked_outputs = tf.layers.dense(stacked_rnn_outputs, n_outputs)
    outputs = tf.reshape(stacked_outputs, [-1, n_steps, n_outputs])
    loss = tf.reduce_mean(tf.square(outputs - y))
    training_op = tf.train.AdamOptimizer(learning_rate=0.001).minimize(loss)
    out = {
        "vars": [(v.name, v.shape.as_list()) for v in tf.trainable_variables()],
        "shapes": [rnn_outputs.shape.as_list(), states.shape.as_list(), outputs.shape.as_list()],
        "mse": [],
    }
    with tf.Session() as sess:
        tf.global_variables_initializer().run()
        for iteration in range(60):
            X_batch, y_batch = next_batch(16)
            sess.run(training_op, feed_dict={X: X_batch, y: y_batch})
            if iteration % 20 == 0:
                out["mse"].append(loss.eval(feed_dict={X: X_batch, y: y_batch}))
        sequence = [0.0] * n_steps
        for _ in range(10):
            X_batch = np.array(sequence[-n_steps:]).reshape(1, n_steps, 1)
            y_pred = sess.run(outputs, feed_dict={X: X_batch})
            sequence.append(y_pred[0, -1, 0])
        out["generated"] = np.array(sequence[n_steps:], np.float32)
    out["series_head"] = time_series(t0[:3])
    return out

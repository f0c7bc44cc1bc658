"""Batch normalization by hand: tf.nn.moments, ExponentialMovingAverage under tf.cond(is_training),
tf.nn.batch_normalization; learning-rate schedules (piecewise_constant, polynomial_decay, inverse_time_decay)."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(23)
    X = rng.randn(16, 6).astype(np.float32) * 3 + 1
    Y = rng.randn(16, 1).astype(np.float32)
    w0 = (rng.randn(6, 1) * 0.3).astype(np.float32)

    x = tf.placeholder(tf.float32, [None, 6])
    y = tf.placeholder(tf.float32, [None, 1])
    is_training = tf.placeholder(tf.bool, [])
    beta = tf.Variable(tf.constant(0.0, shape=[6]), name="beta")
    gamma = tf.Variable(tf.constant(1.0, shape=[6]), name="gamma")
    batch_mean, batch_var = tf.nn.moments(x, [0], name="moments")
    ema = tf.train.ExponentialMovingAverage(decay=0.5)

    def mean_var_with_update():
        ema_apply_op = ema.apply([batch_mean, batch_var])
        with tf.control_dependencies([ema_apply_op]):
            return tf.identity(batch_mean), tf.identity(batch_var)

    mean, var = tf.cond(is_training, mean_var_with_update, lambda: (ema.average(batch_mean), ema.average(batch_var)))
    normed = tf.nn.batch_normalization(x, mean, var, beta, gamma, 1e-3)
    w = tf.Variable(w0)
    loss = tf.reduce_mean(tf.square(tf.matmul(normed, w) - y))
    step = tf.train.get_or_create_global_step()
    lr = tf.train.piecewise_constant(step, [2, 4], [0.1, 0.05, 0.01])
    poly = tf.train.polynomial_decay(0.1, step, 10, end_learning_rate=0.01, power=2.0)
    inv = tf.train.inverse_time_decay(0.1, step, 2, 0.5, staircase=True)
    nat = tf.train.natural_exp_decay(0.1, step, 3, 0.2)
    cos = tf.train.cosine_decay(0.1, step, 10)
    train = tf.train.AdamOptimizer(lr).minimize(loss, global_step=step)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        hist = []
        for _ in range(5):
            # (The schedules are read in a run of their own: read beside `train`, they would race with its
            # global step increment, in TF as here.)
            rates = sess.run([lr, poly, inv, nat, cos])
            hist.append([sess.run([train, loss], {x: X, y: Y, is_training: True})[1]] + rates)
        test_loss = sess.run(loss, {x: X[:4], y: Y[:4], is_training: False})
        avgs = sess.run([ema.average(batch_mean), ema.average(batch_var)])
    return {
        "hist": hist,
        "test_loss": test_loss,
        "avgs": avgs,
        "shapes": [batch_mean.shape.as_list(), mean.shape.as_list(), normed.shape.as_list()],
        "lr_dtype": lr.dtype.name,
    }

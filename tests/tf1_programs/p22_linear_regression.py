"""The classic TF1 linear regression: scalar variables from numpy, per-sample feeds of Python floats,
Operation.run / Tensor.eval under an InteractiveSession, tf.pow cost, ExponentialMovingAverage of the weights."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    train_X = np.asarray([3.3, 4.4, 5.5, 6.71, 6.93, 4.168, 9.779, 6.182, 7.59, 2.167])
    train_Y = np.asarray([1.7, 2.76, 2.09, 3.19, 1.694, 1.573, 3.366, 2.596, 2.53, 1.221])
    n_samples = train_X.shape[0]
    X = tf.placeholder("float")
    Y = tf.placeholder("float")
    W = tf.Variable(0.3, name="weight")
    b = tf.Variable(-0.2, name="bias")
    pred = tf.add(tf.multiply(X, W), b)
    cost = tf.reduce_sum(tf.pow(pred - Y, 2)) / (2 * n_samples)
    optimizer = tf.train.GradientDescentOptimizer(0.01).minimize(cost)
    ema = tf.train.ExponentialMovingAverage(decay=0.9)
    with tf.control_dependencies([optimizer]):
        train_with_ema = ema.apply([W, b])
    init = tf.global_variables_initializer()
    sess = tf.InteractiveSession()
    init.run()
    costs = []
    for epoch in range(3):
        for x, y in zip(train_X, train_Y):
            train_with_ema.run(feed_dict={X: x, Y: y})
        costs.append(cost.eval(feed_dict={X: train_X, Y: train_Y}))
    weights = sess.run([W, b, ema.average(W), ema.average(b)])
    names = [ema.average_name(W), ema.average(W).name, X.dtype.name, pred.shape.ndims, cost.shape.as_list()]
    ema_vars = sorted(v.name for v in tf.global_variables())
    sess.close()
    return {
        "costs": costs,
        "weights": weights,
        "names": names,
        "ema_vars": ema_vars,
        "moving_avg": [v.name for v in tf.moving_average_variables()],
    }

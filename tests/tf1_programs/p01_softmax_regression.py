"""Softmax regression on MNIST-shaped data (the TF1 "MNIST for ML beginners" tutorial)."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(0)
    images = rng.rand(200, 784).astype(np.float32)
    labels = np.eye(10, dtype=np.float32)[rng.randint(0, 10, 200)]

    x = tf.placeholder(tf.float32, [None, 784])
    W = tf.Variable(tf.zeros([784, 10]))
    b = tf.Variable(tf.zeros([10]))
    y = tf.nn.softmax(tf.matmul(x, W) + b)
    y_ = tf.placeholder(tf.float32, [None, 10])
    cross_entropy = tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(y), reduction_indices=[1]))
    train_step = tf.train.GradientDescentOptimizer(0.5).minimize(cross_entropy)

    sess = tf.InteractiveSession()
    tf.global_variables_initializer().run()
    losses = []
    for i in range(10):
        batch_xs, batch_ys = images[i * 20 : (i + 1) * 20], labels[i * 20 : (i + 1) * 20]
        _, l = sess.run([train_step, cross_entropy], feed_dict={x: batch_xs, y_: batch_ys})
        losses.append(l)
    correct_prediction = tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1))
    accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))
    acc = accuracy.eval(feed_dict={x: images, y_: labels})
    out = {
        "losses": losses,
        "accuracy": acc,
        "y_shape": y.shape.as_list(),
        "pred_dtype": correct_prediction.dtype.name,
        "argmax_dtype": tf.argmax(y, 1).dtype.name,
        "W": W.eval(),
    }
    sess.close()
    return out

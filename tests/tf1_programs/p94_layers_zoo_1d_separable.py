"""tf.layers beyond dense/conv2d as 2017-2018 models used them: conv1d + max_pooling1d / average_pooling1d over a
signal, separable_conv2d with depth_multiplier, average_pooling2d, conv2d with dilation_rate, tf.layers.dropout
with training=, tf.layers.flatten, and the same layers' variable names, output shapes and a few SGD steps."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(94)
    rng = np.random.RandomState(94)
    sig = rng.randn(3, 16, 2).astype(np.float32)
    img = rng.randn(3, 9, 9, 2).astype(np.float32)
    labels = np.array([0, 1, 1], np.int32)
    s = tf.placeholder(tf.float32, [None, 16, 2])
    x = tf.placeholder(tf.float32, [None, 9, 9, 2])
    y = tf.placeholder(tf.int32, [None])
    training = tf.placeholder_with_default(False, [])
    h1 = tf.layers.conv1d(s, 4, 3, padding="same", activation=tf.nn.relu)
    p1 = tf.layers.max_pooling1d(h1, 2, 2)
    h1b = tf.layers.conv1d(p1, 4, 3, strides=2, dilation_rate=1, name="conv1d_strided")
    p1b = tf.layers.average_pooling1d(h1b, 2, 1, padding="same")
    h2 = tf.layers.separable_conv2d(x, 4, 3, depth_multiplier=2, padding="same", activation=tf.nn.relu)
    p2 = tf.layers.average_pooling2d(h2, 2, 2)
    h3 = tf.layers.conv2d(p2, 3, 2, dilation_rate=2, padding="same", name="dilated")
    d = tf.layers.dropout(tf.layers.flatten(h3), rate=0.5, training=training, seed=1)
    feats = tf.concat([tf.layers.flatten(p1b), d], 1)
    logits = tf.layers.dense(feats, 2)
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    out = {
        "vars": [(v.op.name, v.shape.as_list()) for v in tf.trainable_variables()],
        "shapes": [t.shape.as_list() for t in (h1, p1, h1b, p1b, h2, p2, h3, d, feats)],
        "names": [t.name for t in (h1, p1, p1b, h2, p2, d, logits)],
        "losses": [],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(4):
            out["losses"].append(sess.run([loss, train], {s: sig, x: img, y: labels})[0])
        dropped = sess.run(d, {s: sig, x: img, training: True})
        out["dropout_zero_fraction_ok"] = bool(0.0 < (dropped == 0).mean() < 1.0)
    return out

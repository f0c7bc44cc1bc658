"""A video-classification toy with 3-D convolutions (C3D-style, 2017 TF1 code): tf.layers.conv3d and
max_pooling3d / average_pooling3d over [batch, frames, h, w, c] clips, a tf.nn.conv3d + max_pool3d branch by
hand with get_variable weights, a conv3d_transpose decoder (tf.nn and tf.layers), the variables' names and
shapes, output shapes, and a few Momentum steps."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(96)
    rng = np.random.RandomState(96)
    clips = rng.randn(3, 4, 8, 8, 2).astype(np.float32)
    labels = np.array([0, 2, 1], np.int64)
    x = tf.placeholder(tf.float32, [None, 4, 8, 8, 2], name="clips")
    y = tf.placeholder(tf.int64, [None], name="labels")
    k_init = tf.constant_initializer(rng.randn(3 * 3 * 3 * 2 * 4).astype(np.float32) * 0.1)
    c1 = tf.layers.conv3d(x, 4, 3, padding="same", activation=tf.nn.relu, kernel_initializer=k_init, name="c3d_1")
    p1 = tf.layers.max_pooling3d(c1, [1, 2, 2], [1, 2, 2], name="pool1")
    c2 = tf.layers.conv3d(
        p1,
        6,
        [2, 3, 3],
        strides=(1, 1, 1),
        padding="valid",
        kernel_initializer=tf.glorot_uniform_initializer(seed=2),
        name="c3d_2",
    )
    p2 = tf.layers.average_pooling3d(c2, 2, 2, padding="same")
    with tf.variable_scope("branch"):
        w = tf.get_variable("w", [2, 2, 2, 2, 3], initializer=tf.truncated_normal_initializer(stddev=0.1, seed=5))
        hb = tf.nn.conv3d(x, w, strides=[1, 1, 2, 2, 1], padding="SAME")
        pb = tf.nn.max_pool3d(hb, ksize=[1, 2, 2, 2, 1], strides=[1, 2, 2, 2, 1], padding="VALID")
        pa = tf.nn.avg_pool3d(hb, ksize=[1, 2, 1, 1, 1], strides=[1, 2, 1, 1, 1], padding="SAME")
    feats = tf.concat([tf.layers.flatten(p2), tf.layers.flatten(pb), tf.reduce_mean(pa, [1, 2, 3])], 1)
    logits = tf.layers.dense(feats, 3, kernel_initializer=tf.glorot_uniform_initializer(seed=7), name="logits")
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    with tf.variable_scope("decoder"):
        wd = tf.get_variable("wt", [2, 2, 2, 3, 3], initializer=tf.constant_initializer(0.05))
        batch = tf.shape(hb)[0]
        up = tf.nn.conv3d_transpose(
            hb, wd, output_shape=tf.stack([batch, 8, 8, 8, 3]), strides=[1, 2, 2, 2, 1], padding="SAME"
        )
        up2 = tf.layers.conv3d_transpose(
            p1, 2, 3, strides=(2, 2, 2), padding="same", kernel_initializer=tf.constant_initializer(0.02), name="deconv"
        )
    recon = tf.reduce_mean(tf.square(up2[:, :4] - x))
    total = loss + 0.1 * recon
    train = tf.train.MomentumOptimizer(0.05, 0.9).minimize(total)
    out = {
        "vars": [(v.op.name, v.shape.as_list()) for v in tf.trainable_variables()],
        "shapes": [t.shape.as_list() for t in (c1, p1, c2, p2, hb, pb, pa, feats, up, up2)],
        "names": [t.name for t in (c1, p1, c2, p2, hb, pb, pa, up, up2)],
        "losses": [],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {x: clips, y: labels}
        out["up_shape"] = list(sess.run(up, feed).shape)
        out["up_sum"] = sess.run(tf.reduce_sum(up), feed)
        for _ in range(5):
            out["losses"].append(sess.run([loss, recon, train], feed)[:2])
        out["pred"] = sess.run(tf.argmax(logits, 1), feed)
    return out

"""A GAN on 1-D data: two optimizers with var_lists from get_collection(TRAINABLE_VARIABLES, scope=...)."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(8)
    real = rng.normal(3.0, 0.5, (16, 1)).astype(np.float32)
    noise = rng.uniform(-1, 1, (16, 4)).astype(np.float32)

    def generator(z):
        with tf.variable_scope("generator"):
            h = tf.layers.dense(
                z, 8, activation=tf.nn.leaky_relu, kernel_initializer=tf.constant_initializer(0.1), name="g1"
            )
            return tf.layers.dense(h, 1, kernel_initializer=tf.constant_initializer(0.2), name="g2")

    def discriminator(x, reuse=None):
        with tf.variable_scope("discriminator", reuse=reuse):
            h = tf.layers.dense(x, 8, activation=tf.tanh, kernel_initializer=tf.constant_initializer(0.3), name="d1")
            logit = tf.layers.dense(h, 1, kernel_initializer=tf.constant_initializer(-0.1), name="d2")
            return tf.sigmoid(logit), logit

    Z = tf.placeholder(tf.float32, [None, 4])
    X = tf.placeholder(tf.float32, [None, 1])
    G = generator(Z)
    D_real, D_logit_real = discriminator(X)
    D_fake, D_logit_fake = discriminator(G, reuse=True)
    d_loss_real = tf.reduce_mean(
        tf.nn.sigmoid_cross_entropy_with_logits(logits=D_logit_real, labels=tf.ones_like(D_logit_real))
    )
    d_loss_fake = tf.reduce_mean(
        tf.nn.sigmoid_cross_entropy_with_logits(logits=D_logit_fake, labels=tf.zeros_like(D_logit_fake))
    )
    D_loss = d_loss_real + d_loss_fake
    G_loss = -tf.reduce_mean(tf.log(D_fake + 1e-8))
    d_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="discriminator")
    g_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="generator")
    D_solver = tf.train.AdamOptimizer(1e-2, beta1=0.5).minimize(D_loss, var_list=d_vars)
    G_solver = tf.train.AdamOptimizer(1e-2, beta1=0.5).minimize(G_loss, var_list=g_vars)

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        hist = []
        for it in range(6):
            _, dl = sess.run([D_solver, D_loss], feed_dict={X: real, Z: noise})
            _, gl = sess.run([G_solver, G_loss], feed_dict={Z: noise})
            hist.append((dl, gl))
        samples = sess.run(G, feed_dict={Z: noise[:3]})
    return {
        "hist": hist,
        "samples": samples,
        "d_vars": [v.name for v in d_vars],
        "g_vars": [v.name for v in g_vars],
        "n_global": len(tf.global_variables()),
        "global_names": sorted(v.name for v in tf.global_variables()),
    }

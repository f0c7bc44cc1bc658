"""A DCGAN-like program: a generator of tf.layers.dense + conv2d_transpose (strides 2, "same") with
batch_normalization and tf.nn.leaky_relu, a discriminator of conv2d layers shared by reuse, two Adam optimizers
(beta1=0.5) with var_list from tf.trainable_variables(scope=...), UPDATE_OPS under control_dependencies for the
generator step (no bias before batch norm: its gradient is rounding noise that Adam
would amplify); losses for a few alternating steps, variable names and static shapes."""

import numpy as np


def generator(tf, z, training):
    with tf.variable_scope("generator"):
        h = tf.layers.dense(z, 4 * 4 * 8, use_bias=False, name="fc")
        h = tf.reshape(h, [-1, 4, 4, 8])
        h = tf.nn.relu(tf.layers.batch_normalization(h, training=training, name="bn0"))
        h = tf.layers.conv2d_transpose(h, 4, 3, strides=2, padding="same", use_bias=False, name="deconv1")
        h = tf.nn.relu(tf.layers.batch_normalization(h, training=training, name="bn1"))
        return tf.layers.conv2d_transpose(h, 1, 5, strides=2, padding="same", activation=tf.tanh, name="deconv2")


def discriminator(tf, x, reuse=False):
    with tf.variable_scope("discriminator", reuse=reuse):
        h = tf.nn.leaky_relu(tf.layers.conv2d(x, 4, 5, strides=2, padding="same", name="conv1"), alpha=0.2)
        h = tf.nn.leaky_relu(tf.layers.conv2d(h, 8, 3, strides=2, padding="valid", name="conv2"), alpha=0.2)
        return tf.layers.dense(tf.layers.flatten(h), 1, name="out")


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(73)
    rng = np.random.RandomState(73)
    real_data = np.tanh(rng.randn(6, 16, 16, 1)).astype(np.float32)
    noise = rng.uniform(-1, 1, (6, 10)).astype(np.float32)
    z = tf.placeholder(tf.float32, [None, 10], name="z")
    real = tf.placeholder(tf.float32, [None, 16, 16, 1], name="real")
    training = tf.placeholder_with_default(True, [], name="training")
    fake = generator(tf, z, training)
    d_real = discriminator(tf, real)
    d_fake = discriminator(tf, fake, reuse=True)
    xent = tf.nn.sigmoid_cross_entropy_with_logits
    d_loss = tf.reduce_mean(xent(logits=d_real, labels=tf.ones_like(d_real))) + tf.reduce_mean(
        xent(logits=d_fake, labels=tf.zeros_like(d_fake))
    )
    g_loss = tf.reduce_mean(xent(logits=d_fake, labels=tf.ones_like(d_fake)))
    d_vars = tf.trainable_variables(scope="discriminator")
    g_vars = tf.trainable_variables(scope="generator")
    d_train = tf.train.AdamOptimizer(2e-3, beta1=0.5).minimize(d_loss, var_list=d_vars)
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS, scope="generator")):
        g_train = tf.train.AdamOptimizer(2e-3, beta1=0.5).minimize(g_loss, var_list=g_vars)
    out = {
        "d_vars": [v.op.name for v in d_vars],
        "g_vars": [(v.op.name, v.shape.as_list()) for v in g_vars],
        "shapes": [fake.shape.as_list(), d_fake.shape.as_list()],
        "update_ops": [op.name for op in tf.get_collection(tf.GraphKeys.UPDATE_OPS)],
        "n_globals": len(tf.global_variables()),
        "d": [],
        "g": [],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            out["d"].append(sess.run([d_loss, d_train], {z: noise, real: real_data})[0])
            out["g"].append(sess.run([g_loss, g_train], {z: noise})[0])
        sample = sess.run(fake, {z: noise[:2], training: False})
        out["sample"] = [sample.shape, float(sample.min()) >= -1.0, sample]
    return out

"""A convolutional autoencoder with the tf.layers class API (Conv2D / Conv2DTranspose / Dense / Flatten objects,
reused on a second input), tf.nn.conv2d_transpose by hand, tf.nn.dropout(keep_prob=) and tf.layers.flatten."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(26)
    X = rng.rand(4, 8, 8, 1).astype(np.float32)
    inp = tf.placeholder(tf.float32, [None, 8, 8, 1])
    enc = tf.layers.Conv2D(
        4,
        3,
        strides=2,
        padding="same",
        activation=tf.nn.relu,
        kernel_initializer=tf.constant_initializer(0.1),
        name="enc",
    )
    dec = tf.layers.Conv2DTranspose(
        1, 3, strides=2, padding="same", kernel_initializer=tf.constant_initializer(0.05), name="dec"
    )
    code = enc(inp)
    recon = tf.nn.sigmoid(dec(code))
    recon2 = dec(enc(inp * 0.5))  # the same layers again: no new variables
    flat = tf.layers.flatten(code)
    dense = tf.layers.Dense(3, kernel_initializer=tf.constant_initializer(0.01), name="fc")
    logits = dense(flat)
    loss = tf.reduce_mean(tf.square(recon - inp)) + 0.01 * tf.reduce_sum(tf.square(logits))
    train = tf.train.AdamOptimizer(0.01).minimize(loss)

    k = tf.constant(np.linspace(-1, 1, 3 * 3 * 2 * 4, dtype=np.float32).reshape(3, 3, 2, 4))
    up = tf.nn.conv2d_transpose(code, k, output_shape=[4, 8, 8, 2], strides=[1, 2, 2, 1], padding="SAME")
    up_valid = tf.nn.conv2d_transpose(
        code, k, output_shape=tf.stack([tf.shape(code)[0], 9, 9, 2]), strides=[1, 2, 2, 1], padding="VALID"
    )
    kept = tf.nn.dropout(tf.ones([1000]), keep_prob=0.75)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = [sess.run([train, loss], {inp: X})[1] for _ in range(4)]
        r2, u, uv = sess.run([recon2, up, up_valid], {inp: X})
        kv = sess.run(kept)
    return {
        "losses": losses,
        "r2": r2,
        "up": u,
        "up_valid": uv,
        "dropout": [bool(set(np.unique(kv).round(4)) <= {0.0, 1.3333}), bool(200 < (kv == 0).sum() < 300)],
        "vars": [(v.name, v.shape.as_list()) for v in tf.trainable_variables()],
        # (up's static batch dim is 4 in TF 1.x and tensorweave, None in TF 2's Conv2DBackpropInput shape
        # function, which takes it from out_backprop: only the rest is compared.)
        "shapes": [t.shape.as_list() for t in (code, recon, recon2, flat, logits)] + [up.shape.as_list()[1:]],
        "up_valid_shape": up_valid.shape.as_list(),
        "layer_weights": [w.name for w in dense.weights] + [w.name for w in enc.trainable_weights],
        "kernel_shape": enc.kernel.shape.as_list(),
    }

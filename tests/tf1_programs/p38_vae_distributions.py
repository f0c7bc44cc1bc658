"""A tiny VAE written with tf.distributions: an encoder gives Normal(loc, scale), z is drawn by reparameterization
(eps fed, so both systems see the same draw), the decoder gives Bernoulli logits, and the loss is the negative
ELBO with kl_divergence against a standard Normal prior; a few Adam steps, plus shapes and a seeded sample's shape."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(38)
    data = (rng.rand(16, 6) > 0.5).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 6])
    eps = tf.placeholder(tf.float32, [None, 2])
    w_enc = tf.Variable(rng.randn(6, 4).astype(np.float32) * 0.3)
    w_dec = tf.Variable(rng.randn(2, 6).astype(np.float32) * 0.3)
    h = tf.matmul(x, w_enc)
    q = tf.distributions.Normal(loc=h[:, :2], scale=tf.nn.softplus(h[:, 2:]) + 1e-3)
    prior = tf.distributions.Normal(loc=tf.zeros([2]), scale=tf.ones([2]))
    z = q.loc + q.scale * eps
    p_x = tf.distributions.Bernoulli(logits=tf.matmul(z, w_dec))
    rec = tf.reduce_sum(p_x.log_prob(x), 1)
    kl = tf.reduce_sum(tf.distributions.kl_divergence(q, prior), 1)
    loss = -tf.reduce_mean(rec - kl)
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    drawn = q.sample(3, seed=7)
    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(5):
            feed = {x: data, eps: rng.randn(16, 2).astype(np.float32)}
            losses.append(sess.run([loss, train], feed)[0])
        entropy = sess.run(tf.reduce_sum(q.entropy()), {x: data})
        sample_shape = sess.run(drawn, {x: data}).shape
    return {
        "losses": np.array(losses),
        "entropy": entropy,
        "sample_shape": sample_shape,
        "static": [str(q.batch_shape), str(q.event_shape), str(drawn.shape), drawn.dtype.name],
    }

"""A Transformer encoder block as 2018 TF1 code wrote it by hand: sinusoidal positional encoding, multi-head
self-attention with tf.layers.dense projections (kernels from a constant initializer), split_heads by
reshape/transpose, a padding mask from tf.sequence_mask added as -1e9, layer normalization by tf.nn.moments,
a position-wise feed-forward with gelu written with tanh, label-smoothed softmax_cross_entropy with
tf.losses, and a few Adam steps with a noam learning-rate schedule (rsqrt of the global step)."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(70)
    batch, length, d_model, heads, vocab = 2, 5, 8, 2, 6
    tokens = tf.placeholder(tf.int32, [None, None], name="tokens")
    lengths = tf.placeholder(tf.int32, [None], name="lengths")
    targets = tf.placeholder(tf.int32, [None, None], name="targets")
    emb = tf.get_variable("emb", initializer=tf.constant(rng.randn(vocab, d_model).astype(np.float32) * 0.5))
    pos = np.arange(length)[:, None] / np.power(10000.0, (2 * (np.arange(d_model)[None] // 2)) / d_model)
    pos[:, 0::2], pos[:, 1::2] = np.sin(pos[:, 0::2]), np.cos(pos[:, 1::2])
    x = tf.nn.embedding_lookup(emb, tokens) * np.sqrt(d_model) + tf.constant(pos, tf.float32)[: tf.shape(tokens)[1]]

    def dense(t, units, name):
        k = rng.randn(d_model if name != "ff2" else 2 * d_model, units).astype(np.float32) * 0.2
        return tf.layers.dense(t, units, kernel_initializer=tf.constant_initializer(k), name=name)

    def split_heads(t):
        t = tf.reshape(t, [tf.shape(t)[0], tf.shape(t)[1], heads, d_model // heads])
        return tf.transpose(t, [0, 2, 1, 3])

    def layer_norm(t, name):
        with tf.variable_scope(name):
            mean, var = tf.nn.moments(t, [-1], keep_dims=True)
            gamma = tf.get_variable("gamma", [d_model], initializer=tf.ones_initializer())
            beta = tf.get_variable("beta", [d_model], initializer=tf.zeros_initializer())
            return (t - mean) * tf.rsqrt(var + 1e-6) * gamma + beta

    with tf.variable_scope("encoder"):
        q, k, v = (split_heads(dense(x, d_model, n)) for n in ("q", "k", "v"))
        logits = tf.matmul(q, k, transpose_b=True) / np.sqrt(d_model // heads)
        mask = tf.sequence_mask(lengths, tf.shape(tokens)[1], dtype=tf.float32)
        logits += (1.0 - mask[:, None, None, :]) * -1e9
        weights = tf.nn.softmax(logits)
        att = tf.transpose(tf.matmul(weights, v), [0, 2, 1, 3])
        att = tf.reshape(att, [tf.shape(tokens)[0], tf.shape(tokens)[1], d_model])
        h = layer_norm(x + dense(att, d_model, "o"), "ln1")
        ff = dense(h, 2 * d_model, "ff1")
        ff = 0.5 * ff * (1.0 + tf.tanh(np.sqrt(2 / np.pi) * (ff + 0.044715 * tf.pow(ff, 3))))
        h = layer_norm(h + dense(ff, d_model, "ff2"), "ln2")
    out_logits = tf.einsum("btd,vd->btv", h, emb)
    loss = tf.losses.softmax_cross_entropy(tf.one_hot(targets, vocab), out_logits, weights=mask, label_smoothing=0.1)
    gs = tf.train.get_or_create_global_step()
    step = tf.cast(gs + 1, tf.float32)
    lr = d_model**-0.5 * tf.minimum(tf.rsqrt(step), step * 4.0**-1.5)
    train = tf.train.AdamOptimizer(lr, beta2=0.98, epsilon=1e-9).minimize(loss, global_step=gs)
    feed = {
        tokens: rng.randint(0, vocab, (batch, length)),
        lengths: [5, 3],
        targets: rng.randint(0, vocab, (batch, length)),
    }
    out = {
        "vars": sorted((v.op.name, v.shape.as_list()) for v in tf.trainable_variables()),
        "att_shape": str(weights.shape),
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["weights"] = sess.run(weights, feed)
        losses, lrs = [], []
        for _ in range(6):
            l, r, _ = sess.run([loss, lr, train], feed)
            losses.append(l)
            lrs.append(r)
        out["losses"], out["lrs"] = losses, lrs
    return out

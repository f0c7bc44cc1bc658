"""word2vec's evaluation step as the TF1 tutorial wrote it: normalized embeddings (embeddings / sqrt(reduce_sum
(square, 1, keep_dims=True))), a validation set looked up with embedding_lookup, cosine similarity by matmul
with transpose_b=True, the top-8 nearest words by tf.nn.top_k (and the tutorial's (-sim).argsort in numpy),
trained a few steps with nce_loss (op-seeded sampler) and GradientDescent on the embeddings."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(88)
    vocab, dim = 30, 8
    rng = np.random.RandomState(88)
    centers = rng.randint(0, vocab, 64).astype(np.int32)
    contexts = ((centers + rng.randint(1, 3, 64)) % vocab).astype(np.int64)[:, None]
    train_inputs = tf.placeholder(tf.int32, [None])
    train_labels = tf.placeholder(tf.int64, [None, 1])
    valid = tf.constant([1, 5, 12], dtype=tf.int32)
    embeddings = tf.Variable(tf.random_uniform([vocab, dim], -1.0, 1.0), name="embeddings")
    nce_w = tf.Variable(tf.truncated_normal([vocab, dim], stddev=1.0 / np.sqrt(dim)), name="nce_weights")
    nce_b = tf.Variable(tf.zeros([vocab]), name="nce_biases")
    embed = tf.nn.embedding_lookup(embeddings, train_inputs)
    loss = tf.reduce_mean(
        tf.nn.nce_loss(nce_w, nce_b, labels=train_labels, inputs=embed, num_sampled=6, num_classes=vocab)
    )
    train = tf.train.GradientDescentOptimizer(1.0).minimize(loss)
    norm = tf.sqrt(tf.reduce_sum(tf.square(embeddings), 1, keep_dims=True))
    normalized = embeddings / norm
    valid_emb = tf.nn.embedding_lookup(normalized, valid)
    similarity = tf.matmul(valid_emb, normalized, transpose_b=True)
    top_vals, top_ids = tf.nn.top_k(similarity, k=8)
    out = {
        "shapes": [norm.shape.as_list(), similarity.shape.as_list(), top_ids.shape.as_list()],
        "losses": [],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(5):
            lo = (step * 16) % 64
            feed = {train_inputs: centers[lo : lo + 16], train_labels: contexts[lo : lo + 16]}
            out["losses"].append(sess.run([loss, train], feed)[0])
        sim, vals, ids = sess.run([similarity, top_vals, top_ids])
        out["top"] = [vals, ids]
        out["argsort"] = [(-sim[i, :]).argsort()[1:9].tolist() for i in range(3)]
        out["self_sim"] = np.diag(sim[:, [1, 5, 12]])
    return out

"""word2vec skip-gram with tf.nn.nce_loss and a sampled_softmax_loss variant (the TF1 word2vec_basic tutorial)."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(7)
    vocabulary_size, embedding_size, batch_size, num_sampled = 50, 8, 16, 5
    emb0 = rng.uniform(-1, 1, (vocabulary_size, embedding_size)).astype(np.float32)
    nce_w0 = (rng.randn(vocabulary_size, embedding_size) / np.sqrt(embedding_size)).astype(np.float32)
    batch = rng.randint(0, vocabulary_size, batch_size)
    lab = rng.randint(0, vocabulary_size, (batch_size, 1))

    train_inputs = tf.placeholder(tf.int32, shape=[batch_size])
    train_labels = tf.placeholder(tf.int32, shape=[batch_size, 1])
    valid_dataset = tf.constant([1, 2, 3], dtype=tf.int32)
    with tf.name_scope("embeddings"):
        embeddings = tf.Variable(emb0)
        embed = tf.nn.embedding_lookup(embeddings, train_inputs)
    with tf.name_scope("weights"):
        nce_weights = tf.Variable(nce_w0)
    with tf.name_scope("biases"):
        nce_biases = tf.Variable(tf.zeros([vocabulary_size]))
    # Sampled losses draw random classes: pass the samples in so both systems see the same ones.
    sampled = tf.placeholder(tf.int64, [num_sampled])
    true_exp = tf.placeholder(tf.float32, [batch_size, 1])
    samp_exp = tf.placeholder(tf.float32, [num_sampled])
    sv = (sampled, true_exp, samp_exp)
    with tf.name_scope("loss"):
        loss = tf.reduce_mean(
            tf.nn.nce_loss(
                weights=nce_weights,
                biases=nce_biases,
                labels=train_labels,
                inputs=embed,
                num_sampled=num_sampled,
                num_classes=vocabulary_size,
                sampled_values=sv,
            )
        )
    ssm = tf.reduce_mean(
        tf.nn.sampled_softmax_loss(
            nce_weights, nce_biases, train_labels, embed, num_sampled, vocabulary_size, sampled_values=sv
        )
    )
    optimizer = tf.train.GradientDescentOptimizer(1.0).minimize(loss + ssm)
    norm = tf.sqrt(tf.reduce_sum(tf.square(embeddings), 1, keepdims=True))
    normalized_embeddings = embeddings / norm
    valid_embeddings = tf.nn.embedding_lookup(normalized_embeddings, valid_dataset)
    similarity = tf.matmul(valid_embeddings, normalized_embeddings, transpose_b=True)
    # A real sampler still runs (values random; only shapes and ranges compared).
    s, te, se = tf.nn.log_uniform_candidate_sampler(
        true_classes=tf.cast(train_labels, tf.int64),
        num_true=1,
        num_sampled=num_sampled,
        unique=True,
        range_max=vocabulary_size,
    )

    feeds = {
        train_inputs: batch,
        train_labels: lab,
        sampled: np.array([3, 9, 14, 27, 41]),
        true_exp: np.full((batch_size, 1), 0.3, np.float32),
        samp_exp: np.array([0.5, 0.4, 0.3, 0.2, 0.1], np.float32),
    }
    with tf.Session() as session:
        tf.global_variables_initializer().run()
        losses = []
        for step in range(5):
            _, l1, l2 = session.run([optimizer, loss, ssm], feed_dict=feeds)
            losses.append((l1, l2))
        sim = similarity.eval()
        nearest = (-sim[0, :]).argsort()[1:4]
        sv_np = session.run([s, te, se], feeds)
    return {
        "losses": losses,
        "sim": sim,
        "nearest": nearest,
        "sampler": [sv_np[0].shape, sv_np[1].shape, sv_np[2].shape, bool(len(set(sv_np[0])) == num_sampled)],
        "sampler_dtypes": [s.dtype.name, te.dtype.name, se.dtype.name],
        "names": [embeddings.name, nce_biases.name, embed.name.split(":")[0].split("/")[0]],
    }

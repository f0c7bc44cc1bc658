"""A large-vocabulary language-model head as TF1 code wrote it: a partitioned embedding (fixed_size_partitioner,
"div" strategy) looked up with embedding_lookup_sparse, a partitioned output layer trained with
sampled_softmax_loss over a log-uniform sampler (with remove_accidental_hits), evaluated with the full softmax;
FTRL and Adagrad with sparse updates, and a Saver round trip of the partitioned variables. (TF writes a partitioned
variable as one full variable in slices; ours are saved per part, so the checkpoint's names are not compared.)"""

import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(43)
    rng = np.random.RandomState(43)
    vocab, dim, batch = 50, 8, 6
    ids = tf.sparse_placeholder(tf.int64, name="ids")
    labels = tf.placeholder(tf.int64, [None, 1], name="labels")
    with tf.variable_scope("lm", partitioner=tf.fixed_size_partitioner(3)):
        emb = tf.get_variable("emb", [vocab, dim], initializer=tf.truncated_normal_initializer(stddev=0.1))
        out_w = tf.get_variable("out_w", [vocab, dim], initializer=tf.glorot_uniform_initializer())
        out_b = tf.get_variable("out_b", [vocab], initializer=tf.zeros_initializer())
    h = tf.nn.embedding_lookup_sparse(emb, ids, None, combiner="mean", partition_strategy="div")
    sampled = tf.nn.sampled_softmax_loss(
        out_w, out_b, labels, h, num_sampled=10, num_classes=vocab, partition_strategy="div", seed=7
    )
    loss = tf.reduce_mean(sampled)
    full_logits = tf.matmul(h, tf.concat(list(out_w), 0), transpose_b=True) + tf.concat(list(out_b), 0)
    full_loss = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.squeeze(labels, 1), logits=full_logits)
    )
    emb_vars = list(emb)
    other = [v for v in tf.trainable_variables() if v not in emb_vars]
    train = tf.group(
        tf.train.FtrlOptimizer(0.2, l1_regularization_strength=0.001).minimize(loss, var_list=emb_vars),
        tf.train.AdagradOptimizer(0.3).minimize(loss, var_list=other),
    )
    indices, values = [], []
    for row in range(batch):
        for col, tok in enumerate(rng.choice(vocab, 3, replace=False)):
            indices.append([row, col])
            values.append(tok)
    feed = {
        ids: tf.SparseTensorValue(np.array(indices, np.int64), np.array(values, np.int64), [batch, 3]),
        labels: rng.randint(0, vocab, (batch, 1)),
    }
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        history = [[sess.run([loss, train], feed)[0], sess.run(full_loss, feed)] for _ in range(4)]
        path = saver.save(sess, os.path.join(workdir, "lm"))
        before = sess.run(full_loss, feed)
    with tf.Session() as sess:
        saver.restore(sess, path)
        after = sess.run(full_loss, feed)
        parts = sess.run([v for v in emb_vars])
    return {
        "history": history,
        "restored": [before, after],
        "partition_shapes": [list(p.shape) for p in parts],
        "names": sorted(v.op.name for v in tf.global_variables()),
    }

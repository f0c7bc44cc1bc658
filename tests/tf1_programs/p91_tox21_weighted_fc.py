"""A multitask-style fully connected classifier as "TensorFlow for Deep Learning" (2018) wrote it: graph parts
under tf.name_scope("placeholders") / ("hidden-layer") / ("output") / ("loss") / ("optim") / ("summaries"),
tf.random_normal weights (op seeds), class weights fed as a placeholder multiplying
sigmoid_cross_entropy_with_logits, tf.summary.scalar merged, a FileWriter given the graph, mini-batches by
hand; the weighted accuracy computed in numpy."""

import glob

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(91)
    d, n_hidden, N = 10, 8, 40
    train_X = rng.randn(N, d).astype(np.float32)
    train_y = (train_X[:, 0] + 0.5 * train_X[:, 1] > 0.3).astype(np.float32)
    train_w = np.where(train_y == 1, 2.0, 1.0).astype(np.float32)
    with tf.name_scope("placeholders"):
        x = tf.placeholder(tf.float32, (None, d))
        y = tf.placeholder(tf.float32, (None,))
        w = tf.placeholder(tf.float32, (None,))
        keep_prob = tf.placeholder(tf.float32)
    with tf.name_scope("hidden-layer"):
        W = tf.Variable(tf.random_normal((d, n_hidden), seed=1))
        b = tf.Variable(tf.random_normal((n_hidden,), seed=2))
        x_hidden = tf.nn.dropout(tf.nn.relu(tf.matmul(x, W) + b), keep_prob)
    with tf.name_scope("output"):
        W = tf.Variable(tf.random_normal((n_hidden, 1), seed=3))
        b = tf.Variable(tf.random_normal((1,), seed=4))
        y_logit = tf.matmul(x_hidden, W) + b
        y_one_prob = tf.sigmoid(y_logit)
        y_pred = tf.round(y_one_prob)
    with tf.name_scope("loss"):
        y_expand = tf.expand_dims(y, 1)
        entropy = tf.nn.sigmoid_cross_entropy_with_logits(logits=y_logit, labels=y_expand)
        w_expand = tf.expand_dims(w, 1)
        l = tf.reduce_sum(w_expand * entropy)
    with tf.name_scope("optim"):
        train_op = tf.train.AdamOptimizer(0.01).minimize(l)
    with tf.name_scope("summaries"):
        tf.summary.scalar("loss", l)
        merged = tf.summary.merge_all()
    train_writer = tf.summary.FileWriter(workdir + "/fcnet-tox21", tf.get_default_graph())
    out = {
        "names": [x.name, W.name, y_logit.name, entropy.name, l.name, train_op.name, merged.name],
        "vars": [v.name for v in tf.trainable_variables()],
        "losses": [],
    }
    step = 0
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for epoch in range(3):
            pos = 0
            while pos < N:
                feed = {
                    x: train_X[pos : pos + 16],
                    y: train_y[pos : pos + 16],
                    w: train_w[pos : pos + 16],
                    keep_prob: 1.0,
                }
                _, summary, loss = sess.run([train_op, merged, l], feed_dict=feed)
                out["losses"].append(loss)
                train_writer.add_summary(summary, step)
                step += 1
                pos += 16
        pred = sess.run(y_pred, {x: train_X, keep_prob: 1.0})
    train_writer.close()
    out["weighted_accuracy"] = float(np.sum(train_w * (pred[:, 0] == train_y)) / np.sum(train_w))
    out["n_event_files"] = len(glob.glob(workdir + "/fcnet-tox21/events.out.tfevents.*"))
    return out

"""tf.summary scalars / histograms / merge_all + FileWriter, tf.metrics.accuracy / mean with local variables."""

import glob
import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    preds = tf.placeholder(tf.int64, [None])
    labels = tf.placeholder(tf.int64, [None])
    values = tf.placeholder(tf.float32, [None])
    acc, acc_op = tf.metrics.accuracy(labels=labels, predictions=preds)
    mean, mean_op = tf.metrics.mean(values)
    auc_names = None
    prec, prec_op = tf.metrics.precision(labels, preds)
    rec, rec_op = tf.metrics.recall(labels=labels, predictions=preds)
    mse, mse_op = tf.metrics.mean_squared_error(tf.cast(labels, tf.float32), tf.cast(preds, tf.float32))
    w = tf.Variable([1.0, 2.0, 3.0], name="w")
    with tf.name_scope("stats"):
        s1 = tf.summary.scalar("accuracy", acc)
        s2 = tf.summary.histogram("weights", w)
        s3 = tf.summary.scalar("mean", mean)
    merged = tf.summary.merge_all()
    batches = [([1, 0, 1, 1], [1, 1, 1, 0], [1.0, 2.0]), ([0, 0], [0, 1], [3.0]), ([1], [1], [10.0, 0.0])]
    logdir = os.path.join(workdir, "logs")
    with tf.Session() as sess:
        writer = tf.summary.FileWriter(logdir, sess.graph)
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        hist = []
        for i, (p, l, v) in enumerate(batches):
            sess.run([acc_op, mean_op, prec_op, rec_op, mse_op], {preds: p, labels: l, values: v})
            summ, a, m = sess.run([merged, acc, mean])
            writer.add_summary(summ, i)
            hist.append((a, m))
        pr = sess.run([prec, rec, mse])
        writer.flush()
        writer.close()
        local = sorted(v.name for v in tf.local_variables())
        sess.run(tf.variables_initializer(tf.local_variables()))
        after_reset = sess.run(acc)
    files = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
    tags = []
    for f in files:
        for e in tf.train.summary_iterator(f):
            for v in e.summary.value:
                tags.append((e.step, v.tag))
    return {
        "hist": hist,
        "pr": pr,
        "local": local,
        "after_reset": after_reset,
        "n_files": len(files),
        "tags": sorted(tags),
        "summary_names": [s1.name, s2.name, s3.name, merged.dtype.name],
        "n_summaries": len(tf.get_collection(tf.GraphKeys.SUMMARIES)),
    }

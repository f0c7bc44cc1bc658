"""The TF1 mnist_with_summaries.py tutorial on MNIST-shaped fixed data: variable_summaries (mean, stddev in a
name_scope, max, min, histogram) for each layer's weights and biases, nn_layer() with name_scope(layer_name) /
("weights") / ("biases") / ("Wx_plus_b"), a dropout keep_probability placeholder summarized as a scalar,
tf.losses.sparse_softmax_cross_entropy, accuracy in name_scope("accuracy") / ("correct_prediction"),
merge_all written by separate train and test FileWriters, a RunOptions(trace_level=FULL_TRACE) step with a
RunMetadata added by add_run_metadata; then the event files read back with tf.train.summary_iterator (the tags
in order, the scalar values, the histogram counts) and the summary tensors' names."""

import glob
import os

import numpy as np


def variable_summaries(tf, var):
    with tf.name_scope("summaries"):
        mean = tf.reduce_mean(var)
        tf.summary.scalar("mean", mean)
        with tf.name_scope("stddev"):
            stddev = tf.sqrt(tf.reduce_mean(tf.square(var - mean)))
        tf.summary.scalar("stddev", stddev)
        tf.summary.scalar("max", tf.reduce_max(var))
        tf.summary.scalar("min", tf.reduce_min(var))
        tf.summary.histogram("histogram", var)


def nn_layer(tf, input_tensor, input_dim, output_dim, layer_name, act):
    with tf.name_scope(layer_name):
        with tf.name_scope("weights"):
            weights = tf.Variable(tf.truncated_normal([input_dim, output_dim], stddev=0.1, seed=149))
            variable_summaries(tf, weights)
        with tf.name_scope("biases"):
            biases = tf.Variable(tf.constant(0.1, shape=[output_dim]))
            variable_summaries(tf, biases)
        with tf.name_scope("Wx_plus_b"):
            preactivate = tf.matmul(input_tensor, weights) + biases
            tf.summary.histogram("pre_activations", preactivate)
        activations = act(preactivate, name="activation")
        tf.summary.histogram("activations", activations)
        return activations


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(149)
    xs_all = rng.rand(80, 16).astype(np.float32)
    ys_all = (xs_all[:, :4].argmax(axis=1)).astype(np.int64)
    sess = tf.InteractiveSession()
    with tf.name_scope("input"):
        x = tf.placeholder(tf.float32, [None, 16], name="x-input")
        y_ = tf.placeholder(tf.int64, [None], name="y-input")
    hidden1 = nn_layer(tf, x, 16, 10, "layer1", tf.nn.relu)
    with tf.name_scope("dropout"):
        keep_prob = tf.placeholder(tf.float32)
        tf.summary.scalar("dropout_keep_probability", keep_prob)
        dropped = tf.nn.dropout(hidden1, keep_prob)
    y = nn_layer(tf, dropped, 10, 4, "layer2", tf.identity)
    with tf.name_scope("cross_entropy"):
        cross_entropy = tf.losses.sparse_softmax_cross_entropy(labels=y_, logits=y)
    tf.summary.scalar("cross_entropy", cross_entropy)
    with tf.name_scope("train"):
        train_step = tf.train.AdamOptimizer(0.01).minimize(cross_entropy)
    with tf.name_scope("accuracy"):
        with tf.name_scope("correct_prediction"):
            correct_prediction = tf.equal(tf.argmax(y, 1), y_)
        with tf.name_scope("accuracy"):
            accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))
    tf.summary.scalar("accuracy", accuracy)
    merged = tf.summary.merge_all()
    train_writer = tf.summary.FileWriter(os.path.join(workdir, "train"), sess.graph)
    test_writer = tf.summary.FileWriter(os.path.join(workdir, "test"))
    tf.global_variables_initializer().run()

    def feed_dict(train, i=0):
        if train:
            lo = (i * 20) % 60
            return {x: xs_all[lo : lo + 20], y_: ys_all[lo : lo + 20], keep_prob: 1.0}
        return {x: xs_all[60:], y_: ys_all[60:], keep_prob: 1.0}

    out = {"test_acc": [], "train_loss": []}
    for i in range(10):
        if i % 5 == 0:
            summary, acc = sess.run([merged, accuracy], feed_dict=feed_dict(False))
            test_writer.add_summary(summary, i)
            out["test_acc"].append(acc)
        elif i % 5 == 4:
            run_options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
            run_metadata = tf.RunMetadata()
            summary, _ = sess.run([merged, train_step], feed_dict=feed_dict(True, i), options=run_options,
                                  run_metadata=run_metadata)  # fmt: skip
            train_writer.add_run_metadata(run_metadata, "step%03d" % i)
            train_writer.add_summary(summary, i)
            out["has_step_stats"] = len(run_metadata.step_stats.dev_stats) > 0
        else:
            summary, _, loss = sess.run([merged, train_step, cross_entropy], feed_dict=feed_dict(True, i))
            train_writer.add_summary(summary, i)
            out["train_loss"].append(loss)
    train_writer.close()
    test_writer.close()
    sess.close()

    names = [t.name for t in tf.get_collection(tf.GraphKeys.SUMMARIES)]
    out["summary_names"] = names
    out["merged_name"] = merged.name
    tags, scalars, hist_counts = [], {}, []
    event_file = glob.glob(os.path.join(workdir, "test", "events.out.tfevents.*"))[0]
    for event in tf.train.summary_iterator(event_file):
        for v in event.summary.value:
            tags.append(v.tag)
            if v.HasField("simple_value"):
                scalars.setdefault(v.tag, []).append(v.simple_value)
            elif v.HasField("histo"):
                hist_counts.append(v.histo.num)
    out["test_tags"] = tags
    out["test_scalars"] = scalars
    out["hist_counts"] = hist_counts
    train_kinds = []
    for event in tf.train.summary_iterator(glob.glob(os.path.join(workdir, "train", "events.out.tfevents.*"))[0]):
        kind = event.WhichOneof("what")
        if kind == "tagged_run_metadata":
            train_kinds.append("run_metadata:" + event.tagged_run_metadata.tag)
        elif kind in ("graph_def", "file_version"):
            train_kinds.append(kind)
    out["train_event_kinds"] = train_kinds
    return out

"""The TF1 "TensorFlow Mechanics 101" tutorial (fully_connected_feed.py / mnist.py) on MNIST-shaped fixed data:
placeholder_inputs, inference with name_scope("hidden1") / ("hidden2") / ("softmax_linear") holding
truncated_normal(stddev=1/sqrt(n)) weights and zero biases, loss by sparse_softmax_cross_entropy_with_logits with
name="xentropy", training() with tf.summary.scalar("loss") and a global_step Variable(trainable=False),
evaluation() by tf.nn.in_top_k summed as int32, fill_feed_dict over a data-set object's next_batch, do_eval's
precision, summaries merged and written every few steps, saver.save(global_step=) checkpoints; the variable
and op names the tutorial's readers looked up."""

import math
import os

import numpy as np

NUM_CLASSES = 10
IMAGE_PIXELS = 28 * 28


class DataSet:
    def __init__(self, images, labels):
        self.images, self.labels, self._pos = images, labels, 0
        self.num_examples = len(images)

    def next_batch(self, n):
        start, self._pos = self._pos, self._pos + n
        if self._pos > self.num_examples:
            start, self._pos = 0, n
        return self.images[start : self._pos], self.labels[start : self._pos]


def inference(tf, images, hidden1_units, hidden2_units):
    with tf.name_scope("hidden1"):
        weights = tf.Variable(
            tf.truncated_normal([IMAGE_PIXELS, hidden1_units], stddev=1.0 / math.sqrt(float(IMAGE_PIXELS))),
            name="weights",
        )
        biases = tf.Variable(tf.zeros([hidden1_units]), name="biases")
        hidden1 = tf.nn.relu(tf.matmul(images, weights) + biases)
    with tf.name_scope("hidden2"):
        weights = tf.Variable(
            tf.truncated_normal([hidden1_units, hidden2_units], stddev=1.0 / math.sqrt(float(hidden1_units))),
            name="weights",
        )
        biases = tf.Variable(tf.zeros([hidden2_units]), name="biases")
        hidden2 = tf.nn.relu(tf.matmul(hidden1, weights) + biases)
    with tf.name_scope("softmax_linear"):
        weights = tf.Variable(
            tf.truncated_normal([hidden2_units, NUM_CLASSES], stddev=1.0 / math.sqrt(float(hidden2_units))),
            name="weights",
        )
        biases = tf.Variable(tf.zeros([NUM_CLASSES]), name="biases")
        logits = tf.matmul(hidden2, weights) + biases
    return logits


def loss_fn(tf, logits, labels):
    labels = tf.to_int64(labels)
    cross_entropy = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits, name="xentropy")
    return tf.reduce_mean(cross_entropy, name="xentropy_mean")


def training(tf, loss, learning_rate):
    tf.summary.scalar("loss", loss)
    optimizer = tf.train.GradientDescentOptimizer(learning_rate)
    global_step = tf.Variable(0, name="global_step", trainable=False)
    return optimizer.minimize(loss, global_step=global_step), global_step


def evaluation(tf, logits, labels):
    correct = tf.nn.in_top_k(logits, labels, 1)
    return tf.reduce_sum(tf.cast(correct, tf.int32))


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(138)
    centers = rng.randn(NUM_CLASSES, IMAGE_PIXELS).astype(np.float32)
    labels = np.arange(200) % NUM_CLASSES
    images = (centers[labels] + 2.0 * rng.randn(200, IMAGE_PIXELS)).astype(np.float32)
    train = DataSet(images[:150], labels[:150].astype(np.int32))
    test = DataSet(images[150:], labels[150:].astype(np.int32))
    batch_size = 25
    out = {"losses": [], "evals": []}
    with tf.Graph().as_default():
        tf.set_random_seed(138)
        images_placeholder = tf.placeholder(tf.float32, shape=(batch_size, IMAGE_PIXELS))
        labels_placeholder = tf.placeholder(tf.int32, shape=(batch_size))
        logits = inference(tf, images_placeholder, 32, 16)
        loss = loss_fn(tf, logits, labels_placeholder)
        train_op, global_step = training(tf, loss, 0.05)
        eval_correct = evaluation(tf, logits, labels_placeholder)
        summary = tf.summary.merge_all()
        init = tf.global_variables_initializer()
        saver = tf.train.Saver()
        sess = tf.Session()
        summary_writer = tf.summary.FileWriter(workdir, sess.graph)
        sess.run(init)

        def fill_feed_dict(data_set):
            images_feed, labels_feed = data_set.next_batch(batch_size)
            return {images_placeholder: images_feed, labels_placeholder: labels_feed}

        def do_eval(data_set):
            true_count = 0
            steps_per_epoch = data_set.num_examples // batch_size
            num_examples = steps_per_epoch * batch_size
            for _ in range(steps_per_epoch):
                true_count += sess.run(eval_correct, feed_dict=fill_feed_dict(data_set))
            return [num_examples, int(true_count), float(true_count) / num_examples]

        for step in range(12):
            feed_dict = fill_feed_dict(train)
            _, loss_value = sess.run([train_op, loss], feed_dict=feed_dict)
            if step % 4 == 0:
                out["losses"].append(loss_value)
                summary_str = sess.run(summary, feed_dict=feed_dict)
                summary_writer.add_summary(summary_str, step)
                summary_writer.flush()
            if (step + 1) % 6 == 0:
                checkpoint_file = os.path.join(workdir, "model.ckpt")
                out.setdefault("saved", []).append(
                    os.path.basename(saver.save(sess, checkpoint_file, global_step=step))
                )
                out["evals"].append(do_eval(train))
                out["evals"].append(do_eval(test))
        out["global_step"] = sess.run(global_step)
        out["var_names"] = [v.name for v in tf.global_variables()]
        out["trainable"] = [v.name for v in tf.trainable_variables()]
        out["names"] = [loss.name, logits.name, eval_correct.name, summary.name, train_op.name]
        out["summary_type"] = type(sess.run(summary, feed_dict=fill_feed_dict(test))).__name__
        out["latest"] = os.path.basename(tf.train.latest_checkpoint(workdir))
        out["event_files"] = len(tf.gfile.Glob(os.path.join(workdir, "events.out.tfevents.*")))
        summary_writer.close()
        sess.close()
    return out

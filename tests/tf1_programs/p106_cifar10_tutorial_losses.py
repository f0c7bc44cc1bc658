"""The cifar10.py tutorial's training machinery (TF1 models repo): _variable_with_weight_decay adding
l2_loss * wd to the "losses" collection, tf.nn.lrn after pooling, total loss as tf.add_n(get_collection("losses")),
_add_loss_summaries with an ExponentialMovingAverage(0.9, name="avg") of every loss (their averages' names),
exponential_decay(staircase=True) on the global step, apply_gradients under control_dependencies of the loss
averages, a variable ExponentialMovingAverage(0.9999, global_step) applied after the gradients, and
tf.no_op(name="train") grouping them."""

import numpy as np


def _variable_with_weight_decay(tf, name, value, wd):
    var = tf.get_variable(name, initializer=tf.constant(value))
    if wd is not None:
        weight_decay = tf.multiply(tf.nn.l2_loss(var), wd, name="weight_loss")
        tf.add_to_collection("losses", weight_decay)
    return var


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(106)
    images_np = rng.rand(6, 8, 8, 3).astype(np.float32)
    labels_np = rng.randint(0, 4, 6).astype(np.int64)
    images = tf.placeholder(tf.float32, [None, 8, 8, 3])
    labels = tf.placeholder(tf.int64, [None])
    global_step = tf.train.get_or_create_global_step()
    with tf.variable_scope("conv1") as scope:
        kernel = _variable_with_weight_decay(tf, "weights", rng.randn(3, 3, 3, 8).astype(np.float32) * 0.1, None)
        conv = tf.nn.conv2d(images, kernel, [1, 1, 1, 1], padding="SAME")
        biases = tf.get_variable("biases", [8], initializer=tf.constant_initializer(0.0))
        conv1 = tf.nn.relu(tf.nn.bias_add(conv, biases), name=scope.name)
    pool1 = tf.nn.max_pool(conv1, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME", name="pool1")
    norm1 = tf.nn.lrn(pool1, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75, name="norm1")
    with tf.variable_scope("local3") as scope:
        reshape = tf.reshape(norm1, [-1, 4 * 4 * 8])
        weights = _variable_with_weight_decay(tf, "weights", rng.randn(128, 16).astype(np.float32) * 0.05, 0.004)
        biases = tf.get_variable("biases", [16], initializer=tf.constant_initializer(0.1))
        local3 = tf.nn.relu(tf.matmul(reshape, weights) + biases, name=scope.name)
    with tf.variable_scope("softmax_linear") as scope:
        weights = _variable_with_weight_decay(tf, "weights", rng.randn(16, 4).astype(np.float32) * 0.1, 0.0)
        biases = tf.get_variable("biases", [4], initializer=tf.constant_initializer(0.0))
        logits = tf.add(tf.matmul(local3, weights), biases, name=scope.name)
    cross_entropy = tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=logits, name="cross_entropy_per_example"
    )
    cross_entropy_mean = tf.reduce_mean(cross_entropy, name="cross_entropy")
    tf.add_to_collection("losses", cross_entropy_mean)
    total_loss = tf.add_n(tf.get_collection("losses"), name="total_loss")
    loss_averages = tf.train.ExponentialMovingAverage(0.9, name="avg")
    losses = tf.get_collection("losses")
    loss_averages_op = loss_averages.apply(losses + [total_loss])
    for l in losses + [total_loss]:
        tf.summary.scalar(l.op.name + " (raw)", l)
        tf.summary.scalar(l.op.name, loss_averages.average(l))
    lr = tf.train.exponential_decay(0.1, global_step, 3, 0.5, staircase=True)
    with tf.control_dependencies([loss_averages_op]):
        opt = tf.train.GradientDescentOptimizer(lr)
        grads = opt.compute_gradients(total_loss)
    apply_gradient_op = opt.apply_gradients(grads, global_step=global_step)
    variable_averages = tf.train.ExponentialMovingAverage(0.9999, global_step)
    with tf.control_dependencies([apply_gradient_op]):
        variables_averages_op = variable_averages.apply(tf.trainable_variables())
    with tf.control_dependencies([apply_gradient_op, variables_averages_op]):
        train_op = tf.no_op(name="train")
    out = {
        "shapes": [t.shape.as_list() for t in (conv1, pool1, norm1, local3, logits)],
        "names": [t.name for t in (conv1, norm1, local3, logits, total_loss)],
        "losses": [t.name for t in losses],
        "loss_avg_names": [loss_averages.average_name(l) for l in losses + [total_loss]],
        "var_avg_names": [variable_averages.average_name(v) for v in tf.trainable_variables()],
        "summaries": [s.op.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES)],
        "moving_avg_vars": [v.op.name for v in tf.moving_average_variables()],
        "train_op": train_op.name,
        "steps": [],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {images: images_np, labels: labels_np}
        for _ in range(7):
            _, loss_value, rate = sess.run([train_op, total_loss, lr], feed)
            out["steps"].append([loss_value, rate])
        out["loss_avgs"] = sess.run([loss_averages.average(l) for l in losses])
        out["var_avg"] = sess.run(variable_averages.average(tf.trainable_variables()[-1]))
        out["norm1"] = sess.run(norm1, feed)[0, :2, :2]
        out["global_step"] = sess.run(global_step)
    return out

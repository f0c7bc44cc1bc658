"""The cifar10.py tutorial's train() bookkeeping (TF1 models repo): _add_loss_summaries with an
ExponentialMovingAverage(0.9, name="avg") applied to the individual losses and the total loss, summaries named
l.op.name + " (raw)" (an illegal summary name TF1 rewrites, with the tag it gets), the train op built under
control_dependencies([loss_averages_op]) then apply_gradients, histograms of gradients, an EMA of the trainable
variables with num_updates=global_step (the decay min(decay, (1 + step) / (10 + step))), the
tf.no_op(name="train") grouping both, and restoring the averaged weights into a fresh graph through
variables_to_restore(); the names, the shadow values and the restored weights."""

import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(182)
    xs = rng.randn(16, 4).astype(np.float32)
    ys = (xs @ np.array([1.0, -2.0, 0.5, 3.0], np.float32) + 0.1).reshape(-1, 1)
    global_step = tf.train.get_or_create_global_step()
    x = tf.placeholder(tf.float32, [None, 4])
    y = tf.placeholder(tf.float32, [None, 1])
    with tf.variable_scope("local"):
        w = tf.get_variable("weights", [4, 1], initializer=tf.constant_initializer(0.1))
        b = tf.get_variable("biases", [1], initializer=tf.zeros_initializer())
        weight_decay = tf.multiply(tf.nn.l2_loss(w), 0.01, name="weight_loss")
        tf.add_to_collection("losses", weight_decay)
    mse = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y), name="mse")
    tf.add_to_collection("losses", mse)
    total_loss = tf.add_n(tf.get_collection("losses"), name="total_loss")

    loss_averages = tf.train.ExponentialMovingAverage(0.9, name="avg")
    losses = tf.get_collection("losses")
    loss_averages_op = loss_averages.apply(losses + [total_loss])
    summaries = []
    for l in losses + [total_loss]:
        summaries.append(tf.summary.scalar(l.op.name + " (raw)", l))
        summaries.append(tf.summary.scalar(l.op.name, loss_averages.average(l)))
    lr = tf.train.exponential_decay(0.1, global_step, 5, 0.5, staircase=True)
    with tf.control_dependencies([loss_averages_op]):
        opt = tf.train.GradientDescentOptimizer(lr)
        grads = opt.compute_gradients(total_loss)
    apply_gradient_op = opt.apply_gradients(grads, global_step=global_step)
    for grad, var in grads:
        if grad is not None:
            summaries.append(tf.summary.histogram(var.op.name + "/gradients", grad))
    variable_averages = tf.train.ExponentialMovingAverage(0.9999, global_step)
    with tf.control_dependencies([apply_gradient_op]):
        variables_averages_op = variable_averages.apply(tf.trainable_variables())
    with tf.control_dependencies([apply_gradient_op, variables_averages_op]):
        train_op = tf.no_op(name="train")
    merged = tf.summary.merge_all()
    out = {
        "summary_names": [s.op.name for s in summaries],
        "avg_names": [loss_averages.average_name(l) for l in losses + [total_loss]],
        "shadow_names": [variable_averages.average(v).op.name for v in tf.trainable_variables()],
        "to_restore": sorted(variable_averages.variables_to_restore().keys()),
        "train_op": [train_op.name, train_op.type],
    }
    saver = tf.train.Saver()
    path = os.path.join(workdir, "model.ckpt")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["losses"] = []
        for _ in range(8):
            _, loss_value = sess.run([train_op, total_loss], {x: xs, y: ys})
            out["losses"].append(loss_value)
        summ = tf.Summary()
        summ.ParseFromString(sess.run(merged, {x: xs, y: ys}))
        out["tags"] = sorted(v.tag for v in summ.value)
        out["loss_avgs"] = sess.run([loss_averages.average(l) for l in losses + [total_loss]])
        out["shadows"] = sess.run([variable_averages.average(v) for v in tf.trainable_variables()])
        out["weights"] = sess.run([w, b])
        saver.save(sess, path)
    tf.reset_default_graph()
    with tf.variable_scope("local"):
        w2 = tf.get_variable("weights", [4, 1])
        b2 = tf.get_variable("biases", [1])
    ema = tf.train.ExponentialMovingAverage(0.9999)
    restorer = tf.train.Saver(ema.variables_to_restore())
    with tf.Session() as sess:
        restorer.restore(sess, path)
        out["restored"] = sess.run([w2, b2])
    return out

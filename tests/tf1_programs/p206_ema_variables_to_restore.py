"""ExponentialMovingAverage for evaluation, as the CIFAR-10 and Inception training scripts did it: ema.apply
after the train op under control_dependencies (num_updates, zero_debias), ema.average / average_name, the shadow
variables' names in MOVING_AVERAGE_VARIABLES, the Saver built from ema.variables_to_restore() (with
moving_avg_variables, plus a non-averaged variable), restoring the averages into a fresh eval graph's plain
variables, and a second EMA over a non-variable tensor (a running loss average)."""

import os

import numpy as np


def build(tf):
    x = tf.constant(np.linspace(-1, 1, 12, dtype=np.float32).reshape(6, 2))
    y = tf.constant(np.array([[1.0], [0.0], [1.0], [1.0], [0.0], [1.0]], np.float32))
    w = tf.get_variable("w", [2, 1], initializer=tf.constant_initializer([[0.5], [-0.25]]))
    b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    return tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=tf.matmul(x, w) + b)), w, b


def main(tf, workdir):
    tf.reset_default_graph()
    with tf.variable_scope("model"):
        loss, w, b = build(tf)
    step = tf.train.get_or_create_global_step()
    tf.get_variable("not_averaged", [], initializer=tf.constant_initializer(7.0), trainable=False)
    opt = tf.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=step)
    ema = tf.train.ExponentialMovingAverage(0.9, num_updates=step, name="ema")
    with tf.control_dependencies([opt]):
        train = ema.apply(tf.trainable_variables())
    loss_ema = tf.train.ExponentialMovingAverage(0.8, zero_debias=True, name="loss_avg")
    loss_avg_op = loss_ema.apply([loss])
    restore_map = ema.variables_to_restore()
    out = {
        "average_names": [ema.average_name(w), ema.average_name(b), loss_ema.average_name(loss)],
        "shadow": ema.average(w).op.name,
        "collection": sorted(v.op.name for v in tf.moving_average_variables()),
        "restore_keys": sorted(restore_map),
        "restore_map": sorted((k, v.op.name) for k, v in restore_map.items()),
        "restore_with_moving": sorted(ema.variables_to_restore(moving_avg_variables=[w])),
        "globals": sorted(v.op.name for v in tf.global_variables()),
    }
    saver = tf.train.Saver()
    path = os.path.join(workdir, "model.ckpt")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        trace = []
        for _ in range(5):
            sess.run([train, loss_avg_op])
            trace.append(sess.run([loss, ema.average(w), ema.average(b), loss_ema.average(loss)]))
        out["trace"] = trace
        out["raw"] = sess.run([w, b])
        saver.save(sess, path)
    tf.reset_default_graph()
    with tf.variable_scope("model"):
        eval_loss, w2, b2 = build(tf)
    tf.get_variable("not_averaged", [], initializer=tf.constant_initializer(0.0), trainable=False)
    eval_ema = tf.train.ExponentialMovingAverage(0.9, name="ema")
    to_restore = eval_ema.variables_to_restore()
    out["eval_restore_keys"] = sorted(to_restore)
    with tf.Session() as sess:
        tf.train.Saver(to_restore).restore(sess, path)
        out["restored"] = sess.run([w2, b2, eval_loss, tf.get_default_graph().get_tensor_by_name("not_averaged:0")])
    return out

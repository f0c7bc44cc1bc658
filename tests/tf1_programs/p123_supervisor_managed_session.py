"""The TF 1.0-era training loop with tf.train.Supervisor (before MonitoredTrainingSession): Supervisor(logdir,
global_step, save_model_secs=0, summary_op=None), sv.managed_session() initializing the variables, sv.should_stop,
sv.saver.save into the logdir, a second Supervisor restoring from it (the step continues), sv.prepare_or_wait_for_session,
sv.is_chief, and sv.request_stop ending the loop; checkpoints listed by tf.train.get_checkpoint_state."""

import os

import numpy as np


def build(tf):
    rng = np.random.RandomState(123)
    xs = rng.randn(20, 3).astype(np.float32)
    ys = (xs @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype(np.float32)
    global_step = tf.train.get_or_create_global_step()
    w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(tf.constant(xs), w) - tf.constant(ys)))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=global_step)
    return global_step, w, loss, train


def main(tf, workdir):
    logdir = os.path.join(workdir, "sv")
    out = {"first": [], "second": []}
    with tf.Graph().as_default():
        global_step, w, loss, train = build(tf)
        sv = tf.train.Supervisor(logdir=logdir, global_step=global_step, save_model_secs=0, summary_op=None)
        out["is_chief"] = sv.is_chief
        with sv.managed_session() as sess:
            while not sv.should_stop():
                l, _, step = sess.run([loss, train, global_step])
                out["first"].append([l, step])
                if step >= 4:
                    sv.request_stop()
            sv.saver.save(sess, sv.save_path, global_step=global_step)
        out["should_stop_after"] = sv.should_stop()
    state = tf.train.get_checkpoint_state(logdir)
    out["checkpoint"] = os.path.basename(state.model_checkpoint_path)
    with tf.Graph().as_default():
        global_step, w, loss, train = build(tf)
        sv = tf.train.Supervisor(logdir=logdir, global_step=global_step, save_model_secs=0, summary_op=None)
        sess = sv.prepare_or_wait_for_session()
        out["restored_step"] = sess.run(global_step)
        for _ in range(3):
            out["second"].append(sess.run([loss, train, global_step])[::2])
        out["w"] = sess.run(w)
        sv.stop()
    return out

"""tf.train.MonitoredTrainingSession single-process: checkpoint_dir, StopAtStepHook, a SessionRunHook of our own,
LoggingTensorHook, should_stop loop; then resuming from the checkpoint it wrote."""

import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(14)
    X = rng.randn(16, 3).astype(np.float32)
    Y = (X @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)

    def build():
        global_step = tf.train.get_or_create_global_step()
        x = tf.constant(X)
        y = tf.constant(Y)
        w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
        b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
        loss = tf.losses.mean_squared_error(y, tf.matmul(x, w) + b)
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=global_step)
        return global_step, loss, train_op

    class LossRecorder(tf.train.SessionRunHook):
        def __init__(self, loss):
            self.loss = loss
            self.values = []
            self.began = 0
            self.ended = False

        def begin(self):
            self.began += 1

        def before_run(self, run_context):
            return tf.train.SessionRunArgs(self.loss)

        def after_run(self, run_context, run_values):
            self.values.append(run_values.results)

        def end(self, session):
            self.ended = True

    ckpt = os.path.join(workdir, "train")
    global_step, loss, train_op = build()
    rec = LossRecorder(loss)
    # The step after the update (global_step fetched beside train_op would race with its increment).
    with tf.control_dependencies([train_op]):
        step_after = tf.identity(global_step)
    hooks = [tf.train.StopAtStepHook(last_step=5), rec, tf.train.LoggingTensorHook({"loss": loss}, every_n_iter=100)]
    steps = []
    with tf.train.MonitoredTrainingSession(checkpoint_dir=ckpt, hooks=hooks, save_summaries_steps=None) as sess:
        while not sess.should_stop():
            steps.append(sess.run(step_after))
    saved = tf.train.latest_checkpoint(ckpt)

    tf.reset_default_graph()
    global_step, loss, train_op = build()
    with tf.train.MonitoredTrainingSession(checkpoint_dir=ckpt, hooks=[tf.train.StopAtStepHook(num_steps=2)]) as sess:
        resumed_at = sess.run(global_step)
        more = []
        while not sess.should_stop():
            more.append(sess.run([train_op, loss])[1])

    tf.reset_default_graph()
    global_step, loss, train_op = build()
    with tf.train.SingularMonitoredSession(checkpoint_dir=ckpt) as sess:
        final_step = sess.run(global_step)
        raw = sess.raw_session().run(loss)
    return {
        "steps": steps,
        "recorded": rec.values,
        "began_ended": [rec.began, rec.ended],
        "saved": os.path.basename(saved),
        "resumed_at": resumed_at,
        "more": more,
        "final_step": final_step,
        "raw": raw,
    }

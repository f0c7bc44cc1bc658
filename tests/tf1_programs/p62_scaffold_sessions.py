"""The monitored-session family beyond MonitoredTrainingSession's defaults: a Scaffold with an init_fn that loads
numpy weights, a local_init_op and a custom Saver; SingularMonitoredSession with raw_session() and hooks;
MonitoredSession(session_creator=ChiefSessionCreator(checkpoint_dir=...)) resuming from a checkpoint a plain
Saver wrote; run_step_fn; a hook's before_run returning SessionRunArgs with feeds; and should_stop after an
OutOfRangeError ends the input."""

import os

import numpy as np


class FeedHook:
    pass


def main(tf, workdir):
    out = {}
    w_init = np.array([[0.5], [-0.5]], np.float32)
    xs = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5], [2.0, 1.0]], np.float32)
    ys = xs @ np.array([[2.0], [1.0]], np.float32)

    class Feeder(tf.train.SessionRunHook):
        def __init__(self, x, y):
            self.x, self.y, self.i = x, y, 0
            self.seen = []

        def before_run(self, run_context):
            i = self.i % len(xs)
            self.i += 1
            return tf.train.SessionRunArgs(fetches=self.loss, feed_dict={self.x: xs[i : i + 1], self.y: ys[i : i + 1]})

        def after_run(self, run_context, run_values):
            self.seen.append(float(run_values.results))

    ckpt_dir = os.path.join(workdir, "ckpt")
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2])
        y = tf.placeholder(tf.float32, [None, 1])
        w = tf.get_variable("w", [2, 1])
        counter = tf.get_local_variable("counter", [], initializer=tf.zeros_initializer())
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
        gs = tf.train.get_or_create_global_step()
        train = tf.train.GradientDescentOptimizer(0.05).minimize(loss, global_step=gs)
        bump = tf.assign_add(counter, 1.0)
        saver = tf.train.Saver(max_to_keep=1)

        def init_fn(scaffold, sess):
            w.load(w_init, sess)

        scaffold = tf.train.Scaffold(init_fn=init_fn, saver=saver)
        feeder = Feeder(x, y)
        feeder.loss = loss
        with tf.train.SingularMonitoredSession(hooks=[feeder], scaffold=scaffold, checkpoint_dir=ckpt_dir) as sess:
            out["w0"] = sess.raw_session().run(w)
            for _ in range(6):
                sess.run([train, bump])
            out["counter"] = sess.raw_session().run(counter)
            out["step"] = sess.raw_session().run(gs)
            out["w1"] = sess.raw_session().run(w)
            saver.save(sess.raw_session(), os.path.join(ckpt_dir, "model.ckpt"), global_step=gs)
        out["seen"] = feeder.seen
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2])
        y = tf.placeholder(tf.float32, [None, 1])
        w = tf.get_variable("w", [2, 1])
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
        gs = tf.train.get_or_create_global_step()
        train = tf.train.GradientDescentOptimizer(0.05).minimize(loss, global_step=gs)
        ds = tf.data.Dataset.from_tensor_slices((xs, ys)).batch(2)
        bx, by = ds.make_one_shot_iterator().get_next()
        dloss = tf.reduce_mean(tf.square(tf.matmul(bx, w) - by))
        creator = tf.train.ChiefSessionCreator(checkpoint_dir=ckpt_dir)
        with tf.train.MonitoredSession(session_creator=creator) as sess:
            out["restored_step"] = sess.run(gs)
            out["restored_w"] = sess.run(w)

            def step_fn(step_context):
                return step_context.run_with_hooks(dloss)

            dl = []
            while not sess.should_stop():
                dl.append(sess.run_step_fn(step_fn))
            out["dl"] = dl
            out["stopped"] = sess.should_stop()
    return out

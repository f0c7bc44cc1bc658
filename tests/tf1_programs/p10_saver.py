"""tf.train.Saver save / restore / latest_checkpoint, max_to_keep, var_list dicts, restore into a fresh graph."""

import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    v1 = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="v1")
    v2 = tf.get_variable("v2", shape=[3], initializer=tf.zeros_initializer())
    step = tf.train.get_or_create_global_step()
    inc = tf.assign_add(v2, [1.0, 2.0, 3.0])
    inc_step = tf.assign_add(step, 1)
    saver = tf.train.Saver(max_to_keep=2)
    ckpt_dir = os.path.join(workdir, "ckpt")
    os.makedirs(ckpt_dir)
    paths = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(3):
            sess.run([inc, inc_step])
            paths.append(saver.save(sess, os.path.join(ckpt_dir, "model.ckpt"), global_step=step))
        last = saver.last_checkpoints
    latest = tf.train.latest_checkpoint(ckpt_dir)
    state = tf.train.get_checkpoint_state(ckpt_dir)

    tf.reset_default_graph()
    v1b = tf.Variable(tf.zeros([2, 3]), name="v1")
    v2b = tf.get_variable("v2", shape=[3])
    other = tf.Variable(5.0, name="other")
    with tf.Session() as sess:
        saver = tf.train.Saver([v1b, v2b])
        saver.restore(sess, latest)
        uninit = sess.run(tf.report_uninitialized_variables())
        a, b = sess.run([v1b, v2b])
        sess.run(other.initializer)
        o = sess.run(other)
    tf.reset_default_graph()
    renamed = tf.Variable(tf.zeros([3]), name="renamed")
    with tf.Session() as sess:
        tf.train.Saver({"v2": renamed}).restore(sess, paths[1])
        r = sess.run(renamed)
    reader = tf.train.NewCheckpointReader(latest)
    shapes = reader.get_variable_to_shape_map()
    tf.reset_default_graph()
    missing = tf.Variable(1.0, name="not_in_ckpt")
    err = None
    with tf.Session() as sess:
        try:
            tf.train.Saver().restore(sess, latest)
        except tf.errors.NotFoundError as e:
            err = type(e).__name__
    return {
        "paths": [os.path.basename(p) for p in paths],
        "last": [os.path.basename(p) for p in last],
        "latest": os.path.basename(latest),
        "state": os.path.basename(state.model_checkpoint_path),
        "all": [os.path.basename(p) for p in state.all_model_checkpoint_paths],
        "restored": [a, b],
        "uninit": [u.decode() if isinstance(u, bytes) else u for u in uninit],
        "other": o,
        "renamed": r,
        "shapes": {k: list(v) for k, v in shapes.items()},
        "v2_from_reader": reader.get_tensor("v2"),
        "exists": tf.train.checkpoint_exists(latest),
        "err": err,
    }

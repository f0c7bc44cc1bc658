"""Warm-starting one model from another's checkpoint as TF1 transfer-learning code did: a "pretrained" model
saved with Saver(var_list={old_name: var}) renames, tf.train.list_variables of the result, a new model with
different scope names restored through a dict built from those names, tf.train.init_from_checkpoint with a
scope mapping ({"old/": "new/"}) and single-variable mapping, a Saver restoring only a subset (the head stays
initialized), and NewCheckpointReader's get_variable_to_shape_map / get_tensor."""

import os

import numpy as np


def main(tf, workdir):
    rng = np.random.RandomState(78)
    w1 = rng.randn(4, 3).astype(np.float32)
    b1 = rng.randn(3).astype(np.float32)
    out = {}
    tf.reset_default_graph()
    with tf.variable_scope("encoder"):
        enc_w = tf.get_variable("w", initializer=w1)
        enc_b = tf.get_variable("b", initializer=b1)
    step = tf.Variable(7, name="step", dtype=tf.int64)
    saver = tf.train.Saver({"pretrained/dense/kernel": enc_w, "pretrained/dense/bias": enc_b, "global_step": step})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, os.path.join(workdir, "pre"), global_step=3)
    out["path"] = os.path.basename(path)
    out["listed"] = tf.train.list_variables(path)
    reader = tf.train.NewCheckpointReader(path)
    out["shape_map"] = sorted(reader.get_variable_to_shape_map().items())
    out["has"] = [reader.has_tensor("global_step"), reader.has_tensor("encoder/w")]
    out["step_value"] = reader.get_tensor("global_step")

    tf.reset_default_graph()
    x = tf.constant(rng.randn(2, 4).astype(np.float32))
    with tf.variable_scope("model/body"):
        w = tf.get_variable("kernel", [4, 3])
        b = tf.get_variable("bias", [3])
    with tf.variable_scope("model/head"):
        head = tf.get_variable("kernel", [3, 1], initializer=tf.ones_initializer())
    y = tf.matmul(tf.nn.relu(tf.matmul(x, w) + b), head)
    restore = tf.train.Saver({"pretrained/dense/kernel": w, "pretrained/dense/bias": b})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        restore.restore(sess, path)
        out["restored"] = sess.run([w, b, head, y])

    tf.reset_default_graph()
    with tf.variable_scope("new"), tf.variable_scope("dense"):
        k = tf.get_variable("kernel", [4, 3], initializer=tf.zeros_initializer())
        bb = tf.get_variable("bias", [3], initializer=tf.zeros_initializer())
    gs = tf.get_variable("gs", [], tf.int64, initializer=tf.zeros_initializer())
    tf.train.init_from_checkpoint(path, {"pretrained/": "new/", "global_step": gs})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["warm"] = sess.run([k, bb, gs])
    tf.reset_default_graph()
    tf.get_variable("v", [2])
    try:
        tf.train.init_from_checkpoint(path, {"missing/": "v"})
        out["bad_map"] = None
    except ValueError:
        out["bad_map"] = "ValueError"
    return out

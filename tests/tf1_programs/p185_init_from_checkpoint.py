"""Initializing a new model from another's checkpoint the TF 1.5-1.15 way: tf.train.init_from_checkpoint with an
assignment_map of scope prefixes ("old_scope/": "new_scope/"), of single variables and of "/" (everything at the
root), the initializers it overrides (the values after global_variables_initializer are the checkpoint's), the
errors for a name the checkpoint lacks and a shape that does not match, tf.train.warm_start with
vars_to_warm_start as a regex, tf.train.NewCheckpointReader (has_tensor, get_variable_to_shape_map,
get_tensor) and tf.train.load_variable / list_variables."""

import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    ckpt_dir = os.path.join(workdir, "pretrained")
    with tf.Graph().as_default():
        with tf.variable_scope("encoder"):
            tf.get_variable("w", initializer=np.arange(6, dtype=np.float32).reshape(2, 3))
            tf.get_variable("b", initializer=np.array([0.5, -0.5, 1.5], np.float32))
        tf.get_variable("head", initializer=np.array([[1.0], [2.0], [3.0]], np.float32))
        tf.train.get_or_create_global_step()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = tf.train.Saver().save(sess, os.path.join(ckpt_dir, "model.ckpt"), global_step=7)
    out["path_tail"] = os.path.basename(path)
    out["listed"] = sorted(tf.train.list_variables(ckpt_dir))
    out["loaded"] = tf.train.load_variable(ckpt_dir, "encoder/b")
    reader = tf.train.NewCheckpointReader(path)
    out["reader"] = [
        reader.has_tensor("head"),
        reader.has_tensor("nope"),
        sorted(reader.get_variable_to_shape_map().items()),
        reader.get_tensor("encoder/w"),
    ]

    with tf.Graph().as_default():
        with tf.variable_scope("new_encoder"):
            w = tf.get_variable("w", [2, 3], initializer=tf.zeros_initializer())
            b = tf.get_variable("b", [3], initializer=tf.zeros_initializer())
        head = tf.get_variable("new_head", [3, 1], initializer=tf.zeros_initializer())
        fresh = tf.get_variable("fresh", [2], initializer=tf.ones_initializer())
        tf.train.init_from_checkpoint(ckpt_dir, {"encoder/": "new_encoder/", "head": "new_head"})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["mapped"] = sess.run([w, b, head, fresh])
    with tf.Graph().as_default():
        with tf.variable_scope("encoder"):
            w = tf.get_variable("w", [2, 3], initializer=tf.zeros_initializer())
            b = tf.get_variable("b", [3], initializer=tf.zeros_initializer())
        tf.train.init_from_checkpoint(path, {"/": "/"})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["same_names"] = sess.run([w, b])
    with tf.Graph().as_default():
        tf.get_variable("head", [3, 1])
        try:
            tf.train.init_from_checkpoint(ckpt_dir, {"missing": "head"})
            out["missing"] = None
        except ValueError as e:
            out["missing"] = ["ValueError", "missing" in str(e)]
    with tf.Graph().as_default():
        tf.get_variable("head", [2, 2])
        try:
            tf.train.init_from_checkpoint(ckpt_dir, {"head": "head"})
            out["bad_shape"] = None
        except ValueError as e:
            out["bad_shape"] = ["ValueError", "shape" in str(e)]
    with tf.Graph().as_default():
        with tf.variable_scope("encoder"):
            w = tf.get_variable("w", [2, 3], initializer=tf.zeros_initializer())
            b = tf.get_variable("b", [3], initializer=tf.zeros_initializer())
        h = tf.get_variable("head", [3, 1], initializer=tf.zeros_initializer())
        tf.train.warm_start(ckpt_dir, vars_to_warm_start="encoder/.*")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["warm"] = sess.run([w, b, h])
    return out

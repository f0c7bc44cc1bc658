"""Checkpoint mistakes and their errors as TF1 users met them: restoring into a graph with a variable the
checkpoint lacks (NotFoundError), with a shape that differs (InvalidArgumentError), from a path that does not
exist, Saver() with no variables (ValueError), a var_list with duplicate names; plus what works: restoring a
subset with var_list, checkpoint_exists, recover_last_checkpoints, Saver(sharded=True) round trip,
export_meta_graph / as_saver_def, and tf.train.latest_checkpoint on an empty directory (None). (The exported
MetaGraphDef's graph_def is not read: ours holds it serialized, as bytes, where TF's is a GraphDef message.)"""

import os

import numpy as np


def error_of(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the error class is the result
        return type(e).__name__
    return None


def main(tf, workdir):
    out = {}
    path = os.path.join(workdir, "m.ckpt")
    with tf.Graph().as_default():
        a = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="a")
        b = tf.Variable(2.5, name="b")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["saved"] = os.path.basename(saver.save(sess, path))
            sharded = tf.train.Saver(sharded=True)
            out["sharded_saved"] = os.path.basename(sharded.save(sess, os.path.join(workdir, "sh.ckpt")))
        out["exists"] = [tf.train.checkpoint_exists(path), tf.train.checkpoint_exists(path + "-nope")]
        out["saver_def"] = [saver.as_saver_def().max_to_keep, saver.as_saver_def().sharded]
        out["dup"] = error_of(lambda: tf.train.Saver([a, a]))
    with tf.Graph().as_default():
        tf.Variable(np.zeros([2, 3], np.float32), name="a")
        tf.Variable(0.0, name="b")
        tf.Variable(1.0, name="c")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            out["missing_var"] = error_of(lambda: saver.restore(sess, path))
    with tf.Graph().as_default():
        tf.Variable(np.zeros([3, 2], np.float32), name="a")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            out["wrong_shape"] = error_of(lambda: saver.restore(sess, path))
    with tf.Graph().as_default():
        a = tf.Variable(np.zeros([2, 3], np.float32), name="a")
        b = tf.Variable(0.0, name="b")
        c = tf.Variable(7.0, name="c")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver([a, b]).restore(sess, path)
            out["subset"] = sess.run([a, b, c])
            try:
                tf.train.Saver([a]).restore(sess, os.path.join(workdir, "none.ckpt"))
                out["bad_path"] = None
            except ValueError as e:  # TF 2.x's compat Saver: ValueError (ours is also a NotFoundError, as TF1's)
                out["bad_path"] = "not a valid checkpoint" in str(e)
            sh = tf.train.Saver([a, b], sharded=True)
            sess.run(tf.global_variables_initializer())
            sh.restore(sess, os.path.join(workdir, "sh.ckpt"))
            out["sharded_restored"] = sess.run([a, b])
    with tf.Graph().as_default():
        out["no_vars"] = error_of(lambda: tf.train.Saver())
        tf.Variable(1.0, name="v")
        s2 = tf.train.Saver(max_to_keep=3)
        s2.recover_last_checkpoints([path])
        out["recovered"] = [os.path.basename(p) for p in s2.last_checkpoints]
        mg = s2.export_meta_graph(os.path.join(workdir, "g.meta"))
        out["meta_collections"] = [sorted(mg.collection_def), mg.saver_def.max_to_keep]
    empty = os.path.join(workdir, "empty")
    os.makedirs(empty)
    out["latest_empty"] = tf.train.latest_checkpoint(empty)
    return out

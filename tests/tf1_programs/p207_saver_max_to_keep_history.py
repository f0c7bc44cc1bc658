"""Checkpoint rotation as long training jobs relied on it: Saver(max_to_keep=2) with global_step suffixes,
last_checkpoints, the files deleted from disk, the `checkpoint` state file (get_checkpoint_state,
all_model_checkpoint_paths), latest_checkpoint, latest_filename, keep_checkpoint_every_n_hours, max_to_keep=None
(keeping all) and 0, set_last_checkpoints_with_time / recover_last_checkpoints after a restart,
checkpoint_exists, saving a subset by a var_list dict, and restoring into a graph missing a variable (NotFoundError)."""

import os


def main(tf, workdir):
    tf.reset_default_graph()
    v = tf.Variable(0.0, name="v")
    tf.Variable([1, 2], name="u")
    inc = tf.assign_add(v, 1.0)
    rel = lambda paths: [os.path.basename(p) for p in paths]
    # checkpoint prefixes, without each format's own suffixes
    prefixes = lambda d: sorted({f.split(".")[0] for f in os.listdir(d)})
    out = {}
    d1, d2, d3 = (os.path.join(workdir, n) for n in ("rot", "all", "sub"))
    saver = tf.train.Saver(max_to_keep=2)
    keep_all = tf.train.Saver(max_to_keep=None)
    hourly = tf.train.Saver(max_to_keep=1, keep_checkpoint_every_n_hours=10000)
    subset = tf.train.Saver({"renamed_v": v}, max_to_keep=0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        saved = []
        for step in range(1, 5):
            sess.run(inc)
            saved.append(os.path.basename(saver.save(sess, os.path.join(d1, "model"), global_step=step * 10)))
            keep_all.save(sess, os.path.join(d2, "model"), global_step=step, latest_filename="all_ckpts")
            hourly.save(sess, os.path.join(d2, "hourly"), global_step=step)
            subset.save(sess, os.path.join(d3, "sub"), global_step=step)
        out["saved"] = saved
        out["last"] = rel(saver.last_checkpoints)
        out["last_all"] = rel(keep_all.last_checkpoints)
        out["last_hourly"] = rel(hourly.last_checkpoints)
        out["files_rot"] = prefixes(d1)
        out["files_sub"] = prefixes(d3)
        out["state_all"] = rel(tf.train.get_checkpoint_state(d2, "all_ckpts").all_model_checkpoint_paths)
        out["state_sub"] = rel(tf.train.get_checkpoint_state(d3).all_model_checkpoint_paths)
        state = tf.train.get_checkpoint_state(d1)
        out["state"] = [os.path.basename(state.model_checkpoint_path), rel(state.all_model_checkpoint_paths)]
        out["latest"] = os.path.basename(tf.train.latest_checkpoint(d1))
        out["latest_named"] = os.path.basename(tf.train.latest_checkpoint(d2, latest_filename="all_ckpts"))
        out["latest_default_d2"] = tf.train.latest_checkpoint(d2) is None
        out["exists"] = [tf.train.checkpoint_exists(os.path.join(d1, "model-40")),
                         tf.train.checkpoint_exists(os.path.join(d1, "model-10"))]  # fmt: skip
    tf.reset_default_graph()
    v = tf.Variable(-1.0, name="v")
    restarted = tf.train.Saver(max_to_keep=2)
    restarted.recover_last_checkpoints(tf.train.get_checkpoint_state(d1).all_model_checkpoint_paths)
    out["recovered"] = rel(restarted.last_checkpoints)
    restarted.set_last_checkpoints_with_time([(os.path.join(d1, "model-30"), 1.0)])
    out["set_with_time"] = rel(restarted.last_checkpoints)
    with tf.Session() as sess:
        restarted.restore(sess, os.path.join(d1, "model-30"))
        out["restored_v"] = sess.run(v)
        tf.train.Saver({"renamed_v": v}).restore(sess, os.path.join(d3, "sub-2"))
        out["restored_sub"] = sess.run(v)
    tf.reset_default_graph()
    tf.Variable(0.0, name="w_missing")
    with tf.Session() as sess:
        try:
            tf.train.Saver().restore(sess, os.path.join(d1, "model-40"))
            out["missing"] = None
        except tf.errors.NotFoundError as e:
            out["missing"] = [type(e).__name__, "w_missing" in str(e)]
    return out

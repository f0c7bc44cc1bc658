"""Checkpoint bookkeeping as TF1 training scripts did it: Saver(max_to_keep=3) saving with global_step (the files
left on disk), Saver(sharded=True), save(write_meta_graph=False, write_state=False), tf.train.get_checkpoint_state
(model_checkpoint_path, all_model_checkpoint_paths relative to the directory), tf.train.latest_checkpoint with a
latest_filename, tf.train.update_checkpoint_state, tf.train.checkpoint_exists, NewCheckpointReader's
get_variable_to_shape_map / get_variable_to_dtype_map / has_tensor / get_tensor, tf.train.list_variables and
load_variable, and the errors for a missing tensor and a missing directory."""

import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    ckpt_dir = os.path.join(workdir, "ckpts")
    os.makedirs(ckpt_dir)
    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="dense/kernel")
    tf.Variable(np.zeros(3, np.int64), name="dense/bias")
    step = tf.train.get_or_create_global_step()
    inc = tf.assign_add(step, 1)
    bump = tf.assign_add(w, tf.ones_like(w))
    saver = tf.train.Saver(max_to_keep=3)
    out = {"saved": []}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(5):
            sess.run([inc, bump])
            out["saved"].append(os.path.basename(saver.save(sess, os.path.join(ckpt_dir, "model"), global_step=step)))
        out["last_checkpoints"] = [os.path.basename(p) for p in saver.last_checkpoints]
        state = tf.train.get_checkpoint_state(ckpt_dir)
        out["state"] = [
            os.path.basename(state.model_checkpoint_path),
            [os.path.basename(p) for p in state.all_model_checkpoint_paths],
        ]
        out["latest"] = os.path.basename(tf.train.latest_checkpoint(ckpt_dir))
        out["meta_files"] = sorted(f for f in os.listdir(ckpt_dir) if f.endswith(".meta"))
        out["exists"] = [
            tf.train.checkpoint_exists(os.path.join(ckpt_dir, "model-5")),
            tf.train.checkpoint_exists(os.path.join(ckpt_dir, "model-1")),
        ]
        side = saver.save(sess, os.path.join(workdir, "side", "snap"), write_meta_graph=False, write_state=False)
        out["side"] = [
            os.path.basename(side),
            os.path.exists(side + ".meta"),
            tf.train.get_checkpoint_state(os.path.join(workdir, "side")) is None,
        ]
        sharded = tf.train.Saver(sharded=True)
        try:
            sharded.save(sess, os.path.join(workdir, "missing", "model"))
        except ValueError as e:
            out["sharded_missing_dir"] = str(e).replace(workdir, "WORKDIR")
        os.makedirs(os.path.join(workdir, "sharded"))
        sharded_path = sharded.save(sess, os.path.join(workdir, "sharded", "model"), latest_filename="latest_sharded")
        out["sharded"] = [
            os.path.basename(sharded_path),
            os.path.basename(
                tf.train.latest_checkpoint(os.path.join(workdir, "sharded"), latest_filename="latest_sharded")
            ),
        ]
        tf.train.update_checkpoint_state(
            ckpt_dir, os.path.join(ckpt_dir, "model-4"), all_model_checkpoint_paths=[os.path.join(ckpt_dir, "model-4")]
        )
        out["after_update"] = os.path.basename(tf.train.latest_checkpoint(ckpt_dir))
    reader = tf.train.NewCheckpointReader(os.path.join(ckpt_dir, "model-5"))
    shapes = reader.get_variable_to_shape_map()
    dtypes = reader.get_variable_to_dtype_map()
    out["shape_map"] = sorted((k, v) for k, v in shapes.items())
    out["dtype_map"] = sorted((k, v.name) for k, v in dtypes.items())
    out["has"] = [reader.has_tensor("dense/kernel"), reader.has_tensor("nope")]
    out["kernel"] = reader.get_tensor("dense/kernel")
    out["list"] = tf.train.list_variables(ckpt_dir)
    out["load"] = tf.train.load_variable(os.path.join(ckpt_dir, "model-3"), "dense/kernel")
    try:
        reader.get_tensor("nope")
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        out["missing_tensor"] = type(e).__name__
    try:
        tf.train.list_variables(os.path.join(workdir, "nowhere"))
    except Exception as e:  # noqa: BLE001
        out["missing_dir"] = type(e).__name__
    out["latest_none"] = tf.train.latest_checkpoint(os.path.join(workdir, "nowhere"))
    return out

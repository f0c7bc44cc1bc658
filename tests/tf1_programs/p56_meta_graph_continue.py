"""Continuing training from a checkpoint without the model code, the TF1 way: a model adds its train_op,
loss and inputs to collections and saves with Saver(max_to_keep=2, keep_checkpoint_every_n_hours) every few
steps; a second graph uses tf.train.import_meta_graph, restores latest_checkpoint, finds tensors with
get_tensor_by_name / get_operation_by_name and the collections, keeps training, and saves again with the
imported saver; the .meta files kept, get_checkpoint_state's paths, and global_step continuity (the data files differ
by design: tensorweave writes its own checkpoint format, not .index/.data)."""

import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(56)
    xs = rng.randn(32, 3).astype(np.float32)
    ys = xs @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3
    ckpt = os.path.join(workdir, "model.ckpt")
    out = {}
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        y = tf.placeholder(tf.float32, [None, 1], name="y")
        w = tf.Variable(np.zeros([3, 1], np.float32), name="w")
        b = tf.Variable(0.0, name="b")
        pred = tf.add(tf.matmul(x, w), b, name="pred")
        loss = tf.reduce_mean(tf.square(pred - y), name="loss")
        gs = tf.train.get_or_create_global_step()
        train = tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss, global_step=gs, name="train")
        tf.add_to_collection("train_op", train)
        tf.add_to_collection("inputs", x)
        tf.add_to_collection("inputs", y)
        saver = tf.train.Saver(max_to_keep=2, keep_checkpoint_every_n_hours=10000)
        losses = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for i in range(1, 10):
                losses.append(sess.run([loss, train], {x: xs, y: ys})[0])
                if i % 3 == 0:
                    saver.save(sess, ckpt, global_step=gs)
        out["losses"] = losses
        out["last"] = [os.path.basename(p) for p in saver.last_checkpoints]
    out["files"] = sorted(f for f in os.listdir(workdir) if f.startswith("model.ckpt") and f.endswith(".meta"))
    latest = tf.train.latest_checkpoint(workdir)
    out["latest"] = os.path.basename(latest)
    state = tf.train.get_checkpoint_state(workdir)
    out["state"] = [os.path.basename(p) for p in state.all_model_checkpoint_paths]
    with tf.Graph().as_default() as g:
        saver = tf.train.import_meta_graph(latest + ".meta")
        x = g.get_tensor_by_name("x:0")
        y = tf.get_collection("inputs")[1]
        loss = g.get_tensor_by_name("loss:0")
        train = tf.get_collection("train_op")[0]
        train_by_name = g.get_operation_by_name("train")
        gs = tf.train.get_global_step()
        with tf.Session() as sess:
            saver.restore(sess, latest)
            out["restored_step"] = sess.run(gs)
            more = []
            for _ in range(4):
                more.append(sess.run([loss, train], {x: xs, y: ys})[0])
            sess.run(train_by_name, {x: xs, y: ys})
            out["more"] = more
            out["step_after"] = sess.run(gs)
            out["w"] = sess.run(g.get_tensor_by_name("w:0"))
            out["saved"] = os.path.basename(saver.save(sess, ckpt, global_step=gs))
        out["vars"] = sorted(v.op.name for v in tf.global_variables())
        out["train_type"] = type(train).__name__
    out["files_after"] = sorted(f for f in os.listdir(workdir) if f.startswith("model.ckpt") and f.endswith(".meta"))
    return out

"""Restoring without the model code: saver.save writes a .meta, tf.train.import_meta_graph + restore, tensors
found by name and through a collection; tf.saved_model.simple_save / loader.load with signature tensors."""

import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable([[1.0], [2.0], [3.0]], name="w")
    b = tf.Variable(0.5, name="b")
    y = tf.add(tf.matmul(x, w), b, name="y")
    loss = tf.reduce_mean(tf.square(y), name="loss")
    train = tf.train.GradientDescentOptimizer(0.01).minimize(loss, name="train")
    tf.add_to_collection("predict", y)
    tf.add_to_collection("train_op", train)
    prefix = os.path.join(workdir, "model")
    feed = np.array([[1.0, 0.0, -1.0], [0.5, 0.5, 0.5]], np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, {x: feed})
        expected = sess.run(y, {x: feed})
        path = tf.train.Saver().save(sess, prefix)
        export_dir = os.path.join(workdir, "export")
        tf.saved_model.simple_save(sess, export_dir, inputs={"x": x}, outputs={"y": y})
    # (The checkpoint's data files are tensorweave's own layout, DESIGN.md decision 7: only the .meta, the
    # `checkpoint` state file and the prefix are compared.)
    files = sorted(f for f in os.listdir(workdir) if f in ("model.meta", "checkpoint"))
    exists = tf.train.checkpoint_exists(prefix)

    tf.reset_default_graph()
    with tf.Session() as sess:
        saver = tf.train.import_meta_graph(path + ".meta")
        saver.restore(sess, tf.train.latest_checkpoint(workdir))
        graph = tf.get_default_graph()
        x2 = graph.get_tensor_by_name("x:0")
        y2 = graph.get_tensor_by_name("y:0")
        restored = sess.run(y2, {x2: feed})
        via_collection = sess.run(tf.get_collection("predict")[0], {x2: feed})
        sess.run(tf.get_collection("train_op")[0], {x2: feed})
        after_step = sess.run(y2, {x2: feed})
        n_trainable = len(tf.trainable_variables())

    with tf.Graph().as_default() as g:
        with tf.Session(graph=g) as sess:
            meta = tf.saved_model.loader.load(sess, [tf.saved_model.tag_constants.SERVING], export_dir)
            sig = meta.signature_def[tf.saved_model.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY]
            xin = g.get_tensor_by_name(sig.inputs["x"].name)
            yout = g.get_tensor_by_name(sig.outputs["y"].name)
            served = sess.run(yout, {xin: feed})
    return {
        "expected": expected,
        "restored": restored,
        "via_collection": via_collection,
        "after_step": after_step,
        "files": files,
        "exists": exists,
        "n_trainable": n_trainable,
        "served": served,
        "sig": [sig.method_name, sorted(sig.inputs), sig.inputs["x"].name, sig.outputs["y"].name],
        "path": os.path.basename(path),
    }

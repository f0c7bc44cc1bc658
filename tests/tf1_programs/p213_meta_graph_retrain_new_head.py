"""Transfer learning from a checkpoint with only its .meta file, as StackOverflow answers showed it:
tf.train.import_meta_graph, get_tensor_by_name for the input, label and bottleneck tensors, get_collection of
the saved train_op and a custom collection, restoring the weights, adding a new softmax head on the bottleneck with
stop_gradient, training only the new variables (var_list), saving with a new Saver, and importing again with
import_scope (the names prefixed) and with clear_devices."""

import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(213)
    x_np = rng.randn(8, 4).astype(np.float32)
    y_np = (x_np[:, 0] > 0).astype(np.int64)
    x = tf.placeholder(tf.float32, [None, 4], name="input_x")
    y = tf.placeholder(tf.int64, [None], name="labels")
    with tf.variable_scope("base"):
        hidden = tf.layers.dense(x, 6, tf.nn.relu, name="hidden",
                                 kernel_initializer=tf.constant_initializer(np.linspace(-1, 1, 24).reshape(4, 6)))  # fmt: skip
        bottleneck = tf.identity(hidden, name="bottleneck")
        logits = tf.layers.dense(bottleneck, 2, name="logits", kernel_initializer=tf.ones_initializer())
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, name="train_op")
    tf.add_to_collection("train_op", train_op)
    tf.add_to_collection("bottlenecks", bottleneck)
    path = os.path.join(workdir, "base", "model")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(train_op, {x: x_np, y: y_np})
        base_loss = sess.run(loss, {x: x_np, y: y_np})
        tf.train.Saver().save(sess, path)
    tf.reset_default_graph()
    saver = tf.train.import_meta_graph(path + ".meta")
    g = tf.get_default_graph()
    x = g.get_tensor_by_name("input_x:0")
    y = g.get_tensor_by_name("labels:0")
    bottleneck = tf.stop_gradient(tf.get_collection("bottlenecks")[0])
    old_train = tf.get_collection("train_op")[0]
    with tf.variable_scope("new_head"):
        new_logits = tf.layers.dense(bottleneck, 2, kernel_initializer=tf.zeros_initializer(), name="fc")
    new_loss = tf.losses.sparse_softmax_cross_entropy(y, new_logits)
    new_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="new_head")
    new_train = tf.train.AdamOptimizer(0.1, name="head_adam").minimize(new_loss, var_list=new_vars)
    out = {
        "base_loss": base_loss,
        "imported_type": old_train.type,
        "new_vars": [v.op.name for v in new_vars],
        "all_vars": sorted(v.op.name for v in tf.global_variables()),
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        saver.restore(sess, path)
        out["restored_loss"] = sess.run(g.get_tensor_by_name("sparse_softmax_cross_entropy_loss/value:0"),
                                        {x: x_np, y: y_np})  # fmt: skip
        kernel_before = sess.run(g.get_tensor_by_name("base/hidden/kernel:0"))
        out["head"] = [sess.run([new_loss, new_train], {x: x_np, y: y_np})[0] for _ in range(5)]
        out["base_unchanged"] = bool(
            np.array_equal(kernel_before, sess.run(g.get_tensor_by_name("base/hidden/kernel:0")))
        )
        tf.train.Saver().save(sess, os.path.join(workdir, "head", "model"))
    tf.reset_default_graph()
    tf.train.import_meta_graph(path + ".meta", import_scope="imported", clear_devices=True)
    out["scoped"] = sorted(op.name for op in tf.get_default_graph().get_operations() if op.type == "VariableV2")
    out["scoped_collection"] = [t.name for t in tf.get_collection("bottlenecks")]
    return out

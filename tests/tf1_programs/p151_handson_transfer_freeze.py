"""Hands-On ML (1st ed.) chapter 11's transfer-learning recipes: a 4-hidden-layer DNN built with tf.layers.dense
under name_scope("dnn") and trained briefly, saved; then reused in a fresh graph by tf.train.import_meta_graph
with the tensors found by name (get_tensor_by_name("X:0"), "dnn/hidden3/Relu:0"), a new output layer on top;
the lower layers frozen by an optimizer var_list from tf.get_collection(TRAINABLE_VARIABLES, scope="hidden[34]|
outputs") (a regular expression), and alternatively by tf.stop_gradient; a Saver restoring only the reused
layers' variables (a dict built from a scope regex); caching the frozen layer's outputs and training the top
layers from the cache; the collections' contents and the losses."""

import os

import numpy as np


def build_dnn(tf, X, n_outputs):
    with tf.name_scope("dnn"):
        h1 = tf.layers.dense(X, 12, activation=tf.nn.relu, name="hidden1")
        h2 = tf.layers.dense(h1, 10, activation=tf.nn.relu, name="hidden2")
        h3 = tf.layers.dense(h2, 8, activation=tf.nn.relu, name="hidden3")
        h4 = tf.layers.dense(h3, 6, activation=tf.nn.relu, name="hidden4")
        logits = tf.layers.dense(h4, n_outputs, name="outputs")
    return h2, logits


def main(tf, workdir):
    rng = np.random.RandomState(151)
    X_train = rng.randn(64, 10).astype(np.float32)
    y_train = (X_train[:, 0] > 0).astype(np.int32) + (X_train[:, 1] > 0).astype(np.int32)
    out = {}
    path = os.path.join(workdir, "my_model_final.ckpt")
    tf.reset_default_graph()
    tf.set_random_seed(151)
    X = tf.placeholder(tf.float32, shape=(None, 10), name="X")
    y = tf.placeholder(tf.int32, shape=(None), name="y")
    _, logits = build_dnn(tf, X, 3)
    with tf.name_scope("loss"):
        xentropy = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
        loss = tf.reduce_mean(xentropy, name="loss")
    with tf.name_scope("train"):
        training_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    init = tf.global_variables_initializer()
    saver = tf.train.Saver()
    with tf.Session() as sess:
        init.run()
        for _ in range(20):
            sess.run(training_op, feed_dict={X: X_train, y: y_train})
        out["base_loss"] = loss.eval(feed_dict={X: X_train, y: y_train})
        saver.save(sess, path)

    # reuse through import_meta_graph
    tf.reset_default_graph()
    restorer = tf.train.import_meta_graph(path + ".meta")
    graph = tf.get_default_graph()
    X = graph.get_tensor_by_name("X:0")
    y = graph.get_tensor_by_name("y:0")
    hidden3 = graph.get_tensor_by_name("dnn/hidden3/Relu:0")
    out["imported_ops"] = [op.name for op in graph.get_operations() if op.name.startswith("dnn/hidden3")][:6]
    new_logits = tf.layers.dense(hidden3, 2, name="new_logits", kernel_initializer=tf.constant_initializer(0.1))
    new_loss = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.minimum(y, 1), logits=new_logits), name="new_loss"
    )
    new_train = tf.train.GradientDescentOptimizer(0.1, name="new_opt").minimize(
        new_loss, var_list=tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="new_logits")
    )
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        restorer.restore(sess, path)
        before = sess.run(graph.get_tensor_by_name("hidden1/kernel:0"))
        for _ in range(10):
            sess.run(new_train, feed_dict={X: X_train, y: y_train})
        out["new_loss"] = new_loss.eval(feed_dict={X: X_train, y: y_train})
        out["hidden1_unchanged"] = bool(np.array_equal(before, sess.run(graph.get_tensor_by_name("hidden1/kernel:0"))))

    # freezing by var_list with a scope regex, and restoring only the reused layers
    tf.reset_default_graph()
    tf.set_random_seed(152)
    X = tf.placeholder(tf.float32, shape=(None, 10), name="X")
    y = tf.placeholder(tf.int32, shape=(None), name="y")
    h2, logits = build_dnn(tf, X, 3)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="hidden[34]|outputs")
    out["train_vars"] = [v.name for v in train_vars]
    training_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, var_list=train_vars)
    reuse_vars = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope="hidden[123]")
    reuse_vars_dict = {var.op.name: var for var in reuse_vars}
    out["reuse_keys"] = sorted(reuse_vars_dict)
    restore_saver = tf.train.Saver(reuse_vars_dict)
    h2_stop = tf.stop_gradient(h2)
    out["stop_grad_none"] = tf.gradients(tf.reduce_sum(h2_stop), tf.trainable_variables()[0])[0] is None
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        restore_saver.restore(sess, path)
        h1_before = sess.run(tf.trainable_variables()[0])
        losses = []
        for _ in range(15):
            _, l = sess.run([training_op, loss], feed_dict={X: X_train, y: y_train})
            losses.append(l)
        out["frozen_losses"] = losses[::5]
        out["frozen_h1_same"] = bool(np.array_equal(h1_before, sess.run(tf.trainable_variables()[0])))
        # caching the frozen layer: feed h2 directly
        h2_cache = sess.run(h2, feed_dict={X: X_train})
        cached_losses = []
        for i in range(4):
            idx = np.arange(16 * i, 16 * (i + 1))
            sess.run(training_op, feed_dict={h2: h2_cache[idx], y: y_train[idx]})
            cached_losses.append(sess.run(loss, feed_dict={h2: h2_cache, y: y_train}))
        out["cached_losses"] = cached_losses
    return out

"""Hands-On Machine Learning (1st ed.) chapter 11 style: functools.partial of tf.layers.dense with
tf.variance_scaling_initializer (He init) and of tf.layers.batch_normalization(training=, momentum=0.9),
tf.nn.elu / selu / leaky_relu, gradient clipping with compute_gradients + tf.clip_by_value per gradient,
then reusing the pretrained lower layers: a Saver over get_collection(GLOBAL_VARIABLES, scope="hidden[12]")
(a regex scope), the upper layers trained alone with var_list from get_collection(TRAINABLE_VARIABLES,
scope="hidden[3]|outputs"), and the frozen layers checked unchanged."""

import os
from functools import partial

import numpy as np


def build(tf, X, training):
    he_init = tf.variance_scaling_initializer()
    dense = partial(tf.layers.dense, kernel_initializer=he_init)
    bn = partial(tf.layers.batch_normalization, training=training, momentum=0.9)
    h1 = tf.nn.elu(bn(dense(X, 8, name="hidden1")))
    h2 = tf.nn.selu(dense(h1, 6, name="hidden2"))
    h3 = tf.nn.leaky_relu(bn(dense(h2, 5, name="hidden3")), alpha=0.01)
    return dense(h3, 3, name="outputs")


def main(tf, workdir):
    rng = np.random.RandomState(92)
    xs = rng.randn(20, 4).astype(np.float32)
    ys = rng.randint(0, 3, 20).astype(np.int64)
    tf.reset_default_graph()
    tf.set_random_seed(92)
    X = tf.placeholder(tf.float32, [None, 4], name="X")
    y = tf.placeholder(tf.int64, [None], name="y")
    training = tf.placeholder_with_default(False, shape=(), name="training")
    logits = build(tf, X, training)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits), name="loss")
    optimizer = tf.train.MomentumOptimizer(0.05, 0.9)
    grads_and_vars = optimizer.compute_gradients(loss)
    capped = [(tf.clip_by_value(g, -1.0, 1.0), v) for g, v in grads_and_vars]
    extra = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(extra):
        train = optimizer.apply_gradients(capped)
    reuse_vars = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope="hidden[12]")
    out = {
        "reuse_vars": [v.op.name for v in reuse_vars],
        # (their names differ: TF's are the Merge ops of conds on `training`, tensorweave's the assigns)
        "n_update_ops": len(extra),
        "pre_losses": [],
    }
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(4):
            out["pre_losses"].append(sess.run([loss, train], {X: xs, y: ys, training: True})[0])
        path = saver.save(sess, os.path.join(workdir, "pretrained.ckpt"))
        pretrained = sess.run(reuse_vars)

    tf.reset_default_graph()
    tf.set_random_seed(93)
    X = tf.placeholder(tf.float32, [None, 4], name="X")
    y = tf.placeholder(tf.int64, [None], name="y")
    training = tf.placeholder_with_default(False, shape=(), name="training")
    logits = build(tf, X, training)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits), name="loss")
    train_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="hidden[3]|outputs")
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, var_list=train_vars)
    reuse_vars = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope="hidden[12]")
    restore_saver = tf.train.Saver(reuse_vars)
    out["train_vars"] = [v.op.name for v in train_vars]
    out["post_losses"] = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        restore_saver.restore(sess, path)
        for _ in range(4):
            out["post_losses"].append(sess.run([loss, train], {X: xs, y: ys, training: True})[0])
        after = sess.run(reuse_vars)
        out["frozen_unchanged"] = all(np.array_equal(a, b) for a, b in zip(pretrained, after))
        out["restored"] = after
    return out

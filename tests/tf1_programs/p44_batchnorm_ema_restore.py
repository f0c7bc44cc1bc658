"""A CNN with tf.layers.batch_normalization trained with its UPDATE_OPS under control_dependencies, momentum SGD
with a piecewise_constant learning rate, an ExponentialMovingAverage of the weights, and an evaluation graph that
restores the averaged weights through ema.variables_to_restore() (the TF1 recipe), with is_training as a
placeholder_with_default."""

import os

import numpy as np


def main(tf, workdir):
    rng = np.random.RandomState(44)
    images = rng.rand(8, 8, 8, 1).astype(np.float32)
    labels = rng.randint(0, 3, 8)

    def model(x, training):
        net = tf.layers.conv2d(x, 4, 3, padding="same", use_bias=False, name="conv")
        net = tf.layers.batch_normalization(net, training=training, momentum=0.9, name="bn")
        net = tf.nn.relu(net)
        net = tf.layers.max_pooling2d(net, 2, 2)
        net = tf.layers.flatten(net)
        return tf.layers.dense(net, 3, name="logits")

    tf.reset_default_graph()
    tf.set_random_seed(44)
    x = tf.placeholder(tf.float32, [None, 8, 8, 1])
    y = tf.placeholder(tf.int64, [None])
    training = tf.placeholder_with_default(False, [], name="is_training")
    logits = model(x, training)
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    step = tf.train.get_or_create_global_step()
    lr = tf.train.piecewise_constant(step, [2, 4], [0.1, 0.05, 0.01])
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        train = tf.train.MomentumOptimizer(lr, 0.9, use_nesterov=True).minimize(loss, global_step=step)
    ema = tf.train.ExponentialMovingAverage(0.5, num_updates=step)
    with tf.control_dependencies([train]):
        train_ema = ema.apply(tf.trainable_variables())
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        history = [sess.run([loss, lr, train_ema], {x: images, y: labels, training: True})[:2] for _ in range(6)]
        moving = sess.run(tf.get_default_graph().get_tensor_by_name("bn/moving_mean:0"))
        eval_loss_raw = sess.run(loss, {x: images, y: labels})
        path = saver.save(sess, os.path.join(workdir, "model"), global_step=step)
        avg_names = sorted(ema.average_name(v) for v in tf.trainable_variables())

    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 8, 8, 1])
    logits = model(x, False)
    ema = tf.train.ExponentialMovingAverage(0.5)
    restore_map = ema.variables_to_restore()
    restorer = tf.train.Saver(restore_map)
    with tf.Session() as sess:
        restorer.restore(sess, tf.train.latest_checkpoint(workdir))
        eval_logits = sess.run(logits, {x: images})
    return {
        "history": history,
        "moving_mean": moving,
        "eval_loss_raw": eval_loss_raw,
        "avg_names": avg_names,
        "restore_keys": sorted(restore_map),
        "eval_logits": eval_logits,
        "ckpt_basename": os.path.basename(path),
    }

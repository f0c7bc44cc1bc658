"""A tf.layers CNN with batch normalization, dropout(training=), UPDATE_OPS control dependencies."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(2)
    X = rng.rand(8, 28, 28, 1).astype(np.float32)
    Y = rng.randint(0, 10, 8).astype(np.int32)
    k1 = (rng.randn(5, 5, 1, 4) * 0.2).astype(np.float32)
    k2 = (rng.randn(3, 3, 4, 8) * 0.2).astype(np.float32)
    d1 = (rng.randn(7 * 7 * 8, 32) * 0.05).astype(np.float32)
    d2 = (rng.randn(32, 10) * 0.1).astype(np.float32)

    images = tf.placeholder(tf.float32, [None, 28, 28, 1])
    labels = tf.placeholder(tf.int32, [None])
    is_training = tf.placeholder(tf.bool, [])
    conv1 = tf.layers.conv2d(
        images, 4, [5, 5], padding="same", activation=tf.nn.relu, kernel_initializer=tf.constant_initializer(k1)
    )
    pool1 = tf.layers.max_pooling2d(conv1, pool_size=[2, 2], strides=2)
    conv2 = tf.layers.conv2d(
        pool1, filters=8, kernel_size=3, padding="same", kernel_initializer=tf.constant_initializer(k2)
    )
    bn = tf.layers.batch_normalization(conv2, training=is_training)
    act = tf.nn.relu(bn)
    pool2 = tf.layers.max_pooling2d(act, 2, 2)
    flat = tf.reshape(pool2, [-1, 7 * 7 * 8])
    dense = tf.layers.dense(flat, 32, activation=tf.nn.relu, kernel_initializer=tf.constant_initializer(d1))
    # Dropout's mask is random (and differs between systems): on only when asked, off in the compared steps.
    use_dropout = tf.placeholder_with_default(False, shape=[])
    drop = tf.layers.dropout(dense, rate=0.4, training=use_dropout)
    logits = tf.layers.dense(drop, 10, kernel_initializer=tf.constant_initializer(d2))
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        train_op = tf.train.MomentumOptimizer(0.01, 0.9).minimize(
            loss, global_step=tf.train.get_or_create_global_step()
        )

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        eval_losses = []
        for _ in range(3):
            sess.run(train_op, feed_dict={images: X, labels: Y, is_training: True})
            eval_losses.append(sess.run(loss, feed_dict={images: X, labels: Y, is_training: False}))
        moving = [v for v in tf.global_variables() if "moving" in v.name]
        mv = sess.run(moving)
        gs = sess.run(tf.train.get_global_step())
        d, dr = sess.run([dense, drop], feed_dict={images: X, is_training: False, use_dropout: True})
        kept = dr[dr != 0]
        dropout_scale = np.allclose(kept, d[dr != 0] / 0.6, rtol=1e-5)
    return {
        "eval_losses": eval_losses,
        "moving": mv,
        "moving_names": [v.name for v in moving],
        "gs": gs,
        "dropout_scale": bool(dropout_scale),
        "n_update_ops": len(update_ops),
        "shapes": [t.shape.as_list() for t in (conv1, pool1, conv2, pool2, flat, dense, logits)],
        "var_names": [v.name for v in tf.trainable_variables()],
        "loss_shape": loss.shape.as_list(),
        "collections_losses": len(tf.get_collection(tf.GraphKeys.LOSSES)),
    }

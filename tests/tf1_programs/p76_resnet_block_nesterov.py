"""A small ResNet as 2017 code wrote it: residual blocks of conv2d (kernel_regularizer=l2_regularizer, no bias)
+ tf.layers.batch_normalization (fused=True in one block, fused=False in the other) + relu with a projection
shortcut, global average pooling by reduce_mean, loss + tf.losses.get_regularization_loss(), MomentumOptimizer
with use_nesterov under UPDATE_OPS; the moving statistics after training and inference-mode outputs."""

import numpy as np


def block(tf, x, filters, stride, training, fused, name):
    def reg(w):  # what contrib-free code wrote for l2_regularizer
        return 1e-3 * tf.nn.l2_loss(w)

    with tf.variable_scope(name):
        shortcut = x
        if stride != 1 or x.shape[-1] != filters:
            shortcut = tf.layers.conv2d(
                x, filters, 1, strides=stride, use_bias=False, kernel_regularizer=reg, name="proj"
            )
        h = tf.layers.conv2d(
            x, filters, 3, strides=stride, padding="same", use_bias=False, kernel_regularizer=reg, name="conv1"
        )
        h = tf.nn.relu(tf.layers.batch_normalization(h, training=training, fused=fused, name="bn1"))
        h = tf.layers.conv2d(h, filters, 3, padding="same", use_bias=False, kernel_regularizer=reg, name="conv2")
        h = tf.layers.batch_normalization(h, training=training, fused=fused, momentum=0.9, name="bn2")
        return tf.nn.relu(h + shortcut)


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(76)
    rng = np.random.RandomState(76)
    images = rng.randn(4, 8, 8, 3).astype(np.float32)
    labels = np.array([0, 1, 2, 1], np.int32)
    x = tf.placeholder(tf.float32, [None, 8, 8, 3])
    y = tf.placeholder(tf.int32, [None])
    training = tf.placeholder(tf.bool, [], name="is_training")
    h = block(tf, x, 4, 1, training, True, "block1")
    h = block(tf, h, 6, 2, training, False, "block2")
    pooled = tf.reduce_mean(h, axis=[1, 2])
    logits = tf.layers.dense(pooled, 3, name="logits")
    data_loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
    reg_loss = tf.losses.get_regularization_loss()
    total = data_loss + reg_loss
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        train = tf.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True).minimize(total)
    out = {
        "reg": [t.op.name for t in tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)],
        "reg_name": reg_loss.op.name,
        "globals": [(v.op.name, v.shape.as_list()) for v in tf.global_variables()],
        "n_update": len(tf.get_collection(tf.GraphKeys.UPDATE_OPS)),
        "shapes": [h.shape.as_list(), pooled.shape.as_list()],
        "losses": [],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(4):
            out["losses"].append(sess.run([data_loss, reg_loss, train], {x: images, y: labels, training: True})[:2])
        out["moving"] = sess.run(
            [v for v in tf.global_variables() if "moving" in v.op.name and v.op.name.startswith("block2/bn1")]
        )
        out["infer"] = sess.run(logits, {x: images, training: False})
    return out

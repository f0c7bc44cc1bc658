"""The batch-norm train/eval switch the way most TF1 code wrote it: tf.layers.batch_normalization(training=
is_training) with is_training a bool placeholder (and one with placeholder_with_default), the UPDATE_OPS run
with every step (control_dependencies), and the moving averages checked after steps run with is_training True
and with False (an eval batch must not move them), plus the update ops' count, the layer's variables and
outputs in both modes."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(101)
    xs = (rng.randn(8, 5) * 3 + 2).astype(np.float32)
    ys = rng.randint(0, 2, 8).astype(np.int32)
    x = tf.placeholder(tf.float32, [None, 5], name="x")
    y = tf.placeholder(tf.int32, [None], name="y")
    is_training = tf.placeholder(tf.bool, [], name="is_training")
    k1 = tf.constant_initializer(rng.randn(5, 4).astype(np.float32) * 0.3)
    h = tf.layers.dense(x, 4, kernel_initializer=k1, name="fc1")
    h = tf.layers.batch_normalization(h, training=is_training, momentum=0.9, name="bn1")
    h = tf.nn.relu(h)
    img = tf.reshape(tf.tile(h, [1, 4]), [-1, 2, 2, 4])
    fused_flag = tf.placeholder_with_default(False, [], name="bn2_training")
    img = tf.layers.batch_normalization(img, training=fused_flag, fused=True, name="bn2")
    k2 = tf.constant_initializer(rng.randn(16, 2).astype(np.float32) * 0.3)
    logits = tf.layers.dense(tf.layers.flatten(img), 2, kernel_initializer=k2, name="out")
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    moving = [v for v in tf.global_variables() if "moving" in v.name]
    out = {
        "n_update_ops": len(update_ops),
        "globals": [v.op.name for v in tf.global_variables()],
        "trainables": [v.op.name for v in tf.trainable_variables()],
        "steps": [],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(3):
            out["steps"].append(sess.run([loss, train], {x: xs, y: ys, is_training: True, fused_flag: True})[0])
        out["after_train"] = sess.run(moving)
        for _ in range(2):  # an "evaluation" that also runs the update ops (a common mistake)
            sess.run(update_ops, {x: xs * 0.5, is_training: False})
        out["after_eval_updates"] = sess.run(moving)
        sess.run(train, {x: xs, y: ys, is_training: True})  # bn2 stays in inference mode (the default)
        out["after_mixed"] = sess.run(moving)
        out["eval_loss"] = sess.run(loss, {x: xs, y: ys, is_training: False})
        out["train_mode_out"] = sess.run(h, {x: xs[:3], is_training: True})
        out["eval_mode_out"] = sess.run(h, {x: xs[:3], is_training: False})
    return out

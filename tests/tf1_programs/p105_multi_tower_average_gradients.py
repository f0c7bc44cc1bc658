"""The cifar10_multi_gpu_train.py pattern (TF1 models repo): the model built once per tower in a Python loop
under tf.device and tf.name_scope("tower_%d"), variables created on the first tower and shared by
tf.get_variable_scope().reuse_variables(), per-tower losses from tf.get_collection("losses", scope), the
tower gradients averaged by the tutorial's average_gradients (expand_dims / concat / reduce_mean), summaries of
the gradients and variables, and apply_gradients with a global_step (devices soft-placed on the CPU)."""

import numpy as np


def inference(tf, images, rng_weights):
    with tf.variable_scope("conv1"):
        kernel = tf.get_variable("weights", initializer=tf.constant(rng_weights[0]))
        biases = tf.get_variable("biases", [4], initializer=tf.constant_initializer(0.1))
        conv = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(images, kernel, [1, 1, 1, 1], "SAME"), biases))
    pool = tf.nn.max_pool(conv, [1, 2, 2, 1], [1, 2, 2, 1], "SAME", name="pool1")
    with tf.variable_scope("softmax_linear"):
        flat = tf.reshape(pool, [tf.shape(images)[0], -1])
        w = tf.get_variable("weights", initializer=tf.constant(rng_weights[1]))
        weight_decay = tf.multiply(tf.nn.l2_loss(w), 0.004, name="weight_loss")
        tf.add_to_collection("losses", weight_decay)
        b = tf.get_variable("biases", [3], initializer=tf.constant_initializer(0.0))
        return tf.add(tf.matmul(flat, w), b, name="logits")


def tower_loss(tf, scope, images, labels, rng_weights):
    logits = inference(tf, images, rng_weights)
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits, name="xent_per_example")
    tf.add_to_collection("losses", tf.reduce_mean(xent, name="cross_entropy"))
    losses = tf.get_collection("losses", scope)
    return tf.add_n(losses, name="total_loss")


def average_gradients(tf, tower_grads):
    average_grads = []
    for grad_and_vars in zip(*tower_grads):
        grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
        grad = tf.reduce_mean(tf.concat(axis=0, values=grads), 0)
        average_grads.append((grad, grad_and_vars[0][1]))
    return average_grads


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(105)
    rng_weights = [rng.randn(3, 3, 1, 4).astype(np.float32) * 0.3, rng.randn(64, 3).astype(np.float32) * 0.1]
    images_np = rng.rand(8, 8, 8, 1).astype(np.float32)
    labels_np = rng.randint(0, 3, 8).astype(np.int32)
    num_towers = 2
    with tf.Graph().as_default(), tf.device("/cpu:0"):
        global_step = tf.get_variable("global_step", [], initializer=tf.constant_initializer(0), trainable=False)
        opt = tf.train.GradientDescentOptimizer(0.1)
        images = tf.placeholder(tf.float32, [None, 8, 8, 1])
        labels = tf.placeholder(tf.int32, [None])
        image_splits = tf.split(images, num_towers)
        label_splits = tf.split(labels, num_towers)
        tower_grads, tower_losses = [], []
        with tf.variable_scope(tf.get_variable_scope()):
            for i in range(num_towers):
                with tf.device(f"/gpu:{i}"), tf.name_scope(f"tower_{i}") as scope:
                    loss = tower_loss(tf, scope, image_splits[i], label_splits[i], rng_weights)
                    tf.get_variable_scope().reuse_variables()
                    summaries = tf.get_collection(tf.GraphKeys.SUMMARIES, scope)
                    tower_grads.append(opt.compute_gradients(loss))
                    tower_losses.append(loss)
        grads = average_gradients(tf, tower_grads)
        for grad, var in grads:
            summaries.append(tf.summary.histogram(var.op.name + "/gradients", grad))
        apply_op = opt.apply_gradients(grads, global_step=global_step)
        summary_op = tf.summary.merge(summaries)
        out = {
            "vars": [(v.op.name, v.shape.as_list()) for v in tf.global_variables()],
            "losses_collection": [t.name for t in tf.get_collection("losses")],
            "tower_loss_names": [t.name for t in tower_losses],
            "grad_names": [g.op.name for g, _ in grads],
            "n_summaries": len(summaries),
            "steps": [],
        }
        config = tf.ConfigProto(allow_soft_placement=True, log_device_placement=False)
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(5):
                l0, l1, _, step = sess.run(
                    [tower_losses[0], tower_losses[1], apply_op, global_step], {images: images_np, labels: labels_np}
                )
                out["steps"].append([l0, l1, step])
            out["summary_bytes"] = len(sess.run(summary_op, {images: images_np, labels: labels_np})) > 0
    return out

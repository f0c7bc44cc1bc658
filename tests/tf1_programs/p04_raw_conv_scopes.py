"""A CNN from tf.nn.conv2d + tf.get_variable under tf.variable_scope, shared by reuse=True (a tower for eval)."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(3)
    X = rng.rand(4, 16, 16, 3).astype(np.float32)
    Y = rng.randint(0, 5, 4)
    inits = {
        "conv1": (rng.randn(3, 3, 3, 6) * 0.3).astype(np.float32),
        "conv2": (rng.randn(3, 3, 6, 8) * 0.3).astype(np.float32),
        "fc": (rng.randn(4 * 4 * 8, 5) * 0.1).astype(np.float32),
    }

    def conv_layer(x, name, strides):
        with tf.variable_scope(name):
            w = tf.get_variable("weights", initializer=tf.constant(inits[name]))
            b = tf.get_variable("biases", [w.shape[-1]], initializer=tf.constant_initializer(0.1))
            conv = tf.nn.conv2d(x, w, strides=[1, strides, strides, 1], padding="SAME")
            return tf.nn.relu(tf.nn.bias_add(conv, b), name="relu")

    def model(x, reuse=False):
        with tf.variable_scope("model", reuse=reuse):
            h = conv_layer(x, "conv1", 1)
            h = tf.nn.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
            h = conv_layer(h, "conv2", 2)
            h = tf.nn.avg_pool(h, [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
            dim = h.get_shape()[1:].num_elements()
            flat = tf.reshape(h, [-1, dim])
            with tf.variable_scope("fc"):
                w = tf.get_variable("w", initializer=inits["fc"])
                b = tf.get_variable("b", shape=[5], initializer=tf.zeros_initializer())
                return tf.matmul(flat, w) + b, h

    x = tf.placeholder(tf.float32, [None, 16, 16, 3], name="input")
    y = tf.placeholder(tf.int64, [None])
    logits, feat = model(x)
    eval_logits, _ = model(x, reuse=True)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    opt = tf.train.RMSPropOptimizer(0.01)
    train = opt.minimize(loss)

    with tf.variable_scope("other"):
        g1 = tf.get_variable("g", [2, 3], initializer=tf.glorot_uniform_initializer())
        g2 = tf.get_variable("t", [3, 3], initializer=tf.truncated_normal_initializer(stddev=0.02))
        g3 = tf.get_variable("o", [2], initializer=tf.initializers.ones())
        g4 = tf.get_variable("c", [2, 2], initializer=tf.initializers.constant(3.0))
        g5 = tf.get_variable("v", [4, 4], initializer=tf.variance_scaling_initializer())
        g6 = tf.get_variable("r", [3], initializer=tf.random_uniform_initializer(-1, 1))
    err = None
    try:
        with tf.variable_scope("model"):
            tf.get_variable("fc/w", [1])
    except ValueError as e:
        err = type(e).__name__
    err2 = None
    try:
        with tf.variable_scope("model", reuse=True):
            tf.get_variable("nope", [1])
    except ValueError as e:
        err2 = type(e).__name__

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = [sess.run([train, loss], {x: X, y: Y})[1] for _ in range(4)]
        same = np.allclose(*sess.run([logits, eval_logits], {x: X}))
        gv = sess.run([g1, g2, g3, g4, g5, g6])
    return {
        "losses": losses,
        "same": bool(same),
        "names": [v.name for v in tf.trainable_variables()],
        "feat": feat.shape.as_list(),
        "relu_name": tf.get_default_graph().get_tensor_by_name("model/conv1/relu:0").name,
        "init_shapes": [v.shape for v in gv],
        "bounded": [bool(np.all(np.abs(gv[0]) <= np.sqrt(6 / 5))), bool(np.all(np.abs(gv[1]) <= 0.04))],
        "ones": gv[2],
        "const": gv[3],
        "errors": [err, err2],
        "scope_name": tf.get_variable_scope().name,
    }

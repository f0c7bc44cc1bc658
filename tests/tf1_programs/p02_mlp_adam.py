"""A two-layer MLP with Adam, mini-batches by feed_dict, accuracy with tf.argmax / tf.equal."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(1)
    X = rng.randn(128, 784).astype(np.float32)
    Y = rng.randint(0, 10, 128)
    w1 = (rng.randn(784, 64) * 0.05).astype(np.float32)
    w2 = (rng.randn(64, 10) * 0.05).astype(np.float32)

    n_hidden = 64
    x = tf.placeholder(tf.float32, shape=[None, 784], name="x")
    y = tf.placeholder(tf.int64, shape=[None], name="y")
    weights = {
        "h1": tf.Variable(w1, name="h1"),
        "out": tf.Variable(tf.constant_initializer(w2)(shape=[n_hidden, 10]), name="out"),
    }
    biases = {"b1": tf.Variable(tf.zeros([n_hidden])), "out": tf.Variable(tf.zeros([10]))}
    layer_1 = tf.nn.relu(tf.add(tf.matmul(x, weights["h1"]), biases["b1"]))
    logits = tf.matmul(layer_1, weights["out"]) + biases["out"]
    loss_op = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(logits=logits, labels=tf.one_hot(y, 10)))
    optimizer = tf.train.AdamOptimizer(learning_rate=0.001)
    train_op = optimizer.minimize(loss_op)
    correct_pred = tf.equal(tf.argmax(logits, 1), y)
    accuracy = tf.reduce_mean(tf.cast(correct_pred, tf.float32))
    init = tf.global_variables_initializer()

    losses = []
    with tf.Session() as sess:
        sess.run(init)
        for step in range(1, 9):
            idx = slice((step % 4) * 32, (step % 4) * 32 + 32)
            _, loss = sess.run([train_op, loss_op], feed_dict={x: X[idx], y: Y[idx]})
            losses.append(loss)
        acc = sess.run(accuracy, feed_dict={x: X, y: Y})
        slot_names = sorted(optimizer.get_slot_names())
        n_globals = len(tf.global_variables())
    return {
        "losses": losses,
        "acc": acc,
        "slots": slot_names,
        "n_globals": n_globals,
        "n_trainable": len(tf.trainable_variables()),
        "names": [x.name, y.name, weights["h1"].name, logits.shape.as_list()],
    }

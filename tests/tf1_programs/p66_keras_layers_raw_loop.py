"""tf.keras layers as building blocks of a plain TF1 training loop (the 2017-2018 "Keras as a simplified
interface to TensorFlow" recipe): layers called on placeholders, tf.train.AdamOptimizer on the model's
trainable_weights, K.learning_phase() fed for Dropout / BatchNormalization, the BatchNormalization updates run
with the train op, K.set_session, layer weights' names and shapes, and a Model built on the same layers used
for predict afterwards."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    K = tf.keras.backend
    K.clear_session()
    rng = np.random.RandomState(66)
    xs = rng.randn(32, 6, 4).astype(np.float32)
    ys = rng.randint(0, 3, 32)
    sess = tf.Session()
    K.set_session(sess)
    x = tf.placeholder(tf.float32, [None, 6, 4])
    y = tf.placeholder(tf.int64, [None])
    init = tf.keras.initializers.RandomNormal(stddev=0.3, seed=1)
    conv = tf.keras.layers.Conv1D(5, 3, padding="same", activation="relu", kernel_initializer=init, name="conv")
    bn = tf.keras.layers.BatchNormalization(name="bn")
    pool = tf.keras.layers.GlobalAveragePooling1D(name="pool")
    drop = tf.keras.layers.Dropout(0.5, seed=2, name="drop")
    dense = tf.keras.layers.Dense(3, kernel_initializer=init, name="out")
    logits = dense(drop(pool(bn(conv(x)))))
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    weights = conv.trainable_weights + bn.trainable_weights + dense.trainable_weights
    train = tf.train.AdamOptimizer(0.05).minimize(loss, var_list=weights)
    with tf.control_dependencies(bn.updates):
        train = tf.group(train)
    acc = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))
    out = {
        "weights": [(w.name, w.shape.as_list()) for w in conv.weights + bn.weights + dense.weights],
        "n_updates": len(bn.updates),
        "logits_shape": logits.shape.as_list(),
    }
    sess.run(tf.global_variables_initializer())
    losses = []
    for i in range(6):
        losses.append(sess.run([loss, train], {x: xs, y: ys, K.learning_phase(): 0})[0])
    out["losses"] = losses
    out["eval"] = sess.run([loss, acc], {x: xs, y: ys, K.learning_phase(): 0})
    out["moving_mean"] = sess.run(bn.moving_mean)
    inp = tf.keras.Input((6, 4))
    model = tf.keras.Model(inp, dense(drop(pool(bn(conv(inp))))))
    out["predict"] = model.predict(xs[:4])
    out["model_weights"] = len(model.weights)
    sess.close()
    return out

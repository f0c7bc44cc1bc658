"""A char-RNN on a tiny text with tf.nn.dynamic_rnn over a MultiRNNCell of GRUCells, one-hot inputs,
sparse_softmax_cross_entropy_with_logits, gradients clipped by global norm and RMSProp; then sampling one
character at a time with tf.multinomial (op seed) on temperature-scaled logits, state carried by feed."""

import numpy as np

TEXT = "hello tensor world, hello graph world. "


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(74)
    chars = sorted(set(TEXT))
    idx = {c: i for i, c in enumerate(chars)}
    ids = np.array([idx[c] for c in TEXT], np.int32)
    vocab, steps, units = len(chars), 8, 16
    xs = np.stack([ids[i : i + steps] for i in range(0, 24, 4)])
    ys = np.stack([ids[i + 1 : i + steps + 1] for i in range(0, 24, 4)])
    inputs = tf.placeholder(tf.int32, [None, None], name="inputs")
    targets = tf.placeholder(tf.int32, [None, None], name="targets")
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.GRUCell(units) for _ in range(2)])
    batch = tf.shape(inputs)[0]
    init = cell.zero_state(batch, tf.float32)
    outputs, final = tf.nn.dynamic_rnn(cell, tf.one_hot(inputs, vocab), initial_state=init)
    logits = tf.layers.dense(tf.reshape(outputs, [-1, units]), vocab, name="softmax")
    loss = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.reshape(targets, [-1]), logits=logits)
    )
    tvars = tf.trainable_variables()
    grads, norm = tf.clip_by_global_norm(tf.gradients(loss, tvars), 5.0)
    train = tf.train.RMSPropOptimizer(0.01).apply_gradients(zip(grads, tvars))
    temperature = tf.placeholder_with_default(1.0, [], name="temperature")
    sample = tf.multinomial(logits[-1:] / temperature, 1, seed=3)
    out = {
        "vars": [(v.op.name, v.shape.as_list()) for v in tvars],
        "shapes": [outputs.shape.as_list(), logits.shape.as_list(), sample.shape.as_list()],
        "state": [type(final).__name__, len(final), final[0].shape.as_list()],
        "losses": [],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(5):
            l, n, _ = sess.run([loss, norm, train], {inputs: xs, targets: ys})
            out["losses"].append([l, n])
        state = sess.run(init, {inputs: [[0]]})
        c = idx["h"]
        text = []
        for _ in range(10):
            feed = {inputs: [[c]], temperature: 0.5}
            for s_ph, s_val in zip(init, state):
                feed[s_ph] = s_val
            c_arr, state = sess.run([sample, final], feed)
            c = int(c_arr[0, 0])
            text.append(chars[c])
        out["sampled"] = "".join(text)
    return out

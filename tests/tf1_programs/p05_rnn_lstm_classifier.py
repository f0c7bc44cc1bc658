"""An LSTM sequence classifier: embedding lookup, dynamic_rnn with sequence_length, MultiRNNCell, DropoutWrapper."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(4)
    vocab, emb_dim, hidden, T, B = 20, 8, 12, 7, 5
    ids = rng.randint(0, vocab, (B, T))
    lens = np.array([7, 3, 5, 1, 6])
    labels = rng.randint(0, 2, B)
    emb_init = rng.randn(vocab, emb_dim).astype(np.float32) * 0.5

    inputs = tf.placeholder(tf.int32, [None, None], name="inputs")
    seq_len = tf.placeholder(tf.int32, [None], name="seq_len")
    y = tf.placeholder(tf.int32, [None])
    keep_prob = tf.placeholder_with_default(1.0, shape=())
    embedding = tf.get_variable("embedding", initializer=emb_init)
    embedded = tf.nn.embedding_lookup(embedding, inputs)

    init = tf.constant_initializer(0.1)
    with tf.variable_scope("rnn", initializer=tf.random_uniform_initializer(-0.2, 0.2, seed=1)):
        cells = [
            tf.nn.rnn_cell.DropoutWrapper(
                tf.nn.rnn_cell.LSTMCell(hidden, initializer=init), output_keep_prob=keep_prob
            ),
            tf.nn.rnn_cell.BasicLSTMCell(hidden),
        ]
        cell = tf.nn.rnn_cell.MultiRNNCell(cells)
        outputs, state = tf.nn.dynamic_rnn(cell, embedded, sequence_length=seq_len, dtype=tf.float32)
    last = state[-1].h
    logits = tf.layers.dense(last, 2, kernel_initializer=tf.constant_initializer(0.05))
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train_op = tf.train.AdagradOptimizer(0.1).minimize(loss)

    rnn_vars = [v for v in tf.trainable_variables() if v.name.startswith("rnn")]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        # The second cell's weights come from the scope's seeded random initializer: set them from numpy.
        for v in rnn_vars:
            if "cell_1" in v.name:
                shape = v.shape.as_list()
                v.load(np.linspace(-0.2, 0.2, int(np.prod(shape)), dtype=np.float32).reshape(shape), sess)
        feed = {inputs: ids, seq_len: lens, y: labels}
        losses = [sess.run([train_op, loss], feed)[1] for _ in range(3)]
        out, st = sess.run([outputs, state], feed)
    return {
        "losses": losses,
        "outputs_zero_past_len": bool(np.all(out[1, 3:] == 0) and np.all(out[3, 1:] == 0)),
        "out": out,
        "c": st[0].c,
        "h": st[1].h,
        "shapes": [embedded.shape.as_list(), outputs.shape.as_list(), last.shape.as_list()],
        "state_types": [type(s).__name__ for s in state],
        "vars": [(v.name, v.shape.as_list()) for v in rnn_vars],
        "state_size": [list(s) for s in cell.state_size],
        "output_size": cell.output_size,
    }

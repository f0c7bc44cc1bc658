"""RNN options of speech and translation models with only a graph seed (default initializers): LSTMCell with
use_peepholes, num_proj, cell_clip and proj_clip; time_major dynamic_rnn; bidirectional_dynamic_rnn with
initial_state_fw / initial_state_bw from an encoder; a dynamic_rnn over a placeholder with an unknown time dimension
wrapping a DropoutWrapper (keep 1.0 fed at eval); tf.nn.dropout with noise_shape and tf.layers.dropout with
noise_shape and seed; tf.layers.Flatten and separable_conv1d; the variables and values, and a few Adam steps."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(227)
    rng = np.random.RandomState(227)
    T, B, D = 5, 3, 4
    x_tm = tf.constant(rng.randn(T, B, D).astype(np.float32))
    peep = tf.nn.rnn_cell.LSTMCell(6, use_peepholes=True, num_proj=3, cell_clip=1.0, proj_clip=0.5, name="peep")
    tm_out, tm_state = tf.nn.dynamic_rnn(peep, x_tm, time_major=True, dtype=tf.float32, scope="time_major")
    fw_init = tf.nn.rnn_cell.LSTMStateTuple(tm_state.c, tm_state.h)
    bw_init = tf.nn.rnn_cell.LSTMStateTuple(tf.zeros([B, 6]), tf.ones([B, 3]) * 0.1)
    (bf, bb), (sf, sb) = tf.nn.bidirectional_dynamic_rnn(
        tf.nn.rnn_cell.LSTMCell(6, num_proj=3, name="fw"), tf.nn.rnn_cell.LSTMCell(6, num_proj=3, name="bw"),
        x_tm, initial_state_fw=fw_init, initial_state_bw=bw_init, time_major=True, scope="bidi",
    )  # fmt: skip
    ph = tf.placeholder(tf.float32, [None, None, D])
    keep = tf.placeholder_with_default(1.0, [])
    gru = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.GRUCell(4, name="gru"), output_keep_prob=keep)
    loop_out, loop_state = tf.nn.dynamic_rnn(gru, ph, dtype=tf.float32, scope="unknown_time")
    feats = tf.concat([bf[-1], bb[0], loop_state], axis=1)
    dropped = tf.nn.dropout(feats, keep_prob=0.5, noise_shape=[1, 10], seed=3)
    layer_drop = tf.layers.dropout(feats, rate=0.5, noise_shape=[B, 1], seed=4, training=True)
    conv = tf.layers.separable_conv1d(tf.expand_dims(feats, -1), 2, 3, depth_multiplier=2, name="sep1d")
    flat = tf.layers.Flatten()(conv)
    logits = tf.layers.dense(flat, 2, name="out")
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 1, 1], logits=logits))
    train = tf.train.AdamOptimizer(0.01).minimize(loss)
    feed = {ph: rng.randn(B, 7, D).astype(np.float32)}
    out = {
        "vars": sorted((v.op.name, v.shape.as_list()) for v in tf.trainable_variables()),
        "shapes": [tm_out.shape.as_list(), bf.shape.as_list(), loop_out.shape.as_list(), flat.shape.as_list()],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["values"] = sess.run([tm_out, tm_state, bf, bb, sf, sb, loop_out, logits], feed)
        out["dropped"] = sess.run([dropped, layer_drop], feed)
        out["losses"] = [sess.run([loss, train], feed)[0] for _ in range(4)]
    return out

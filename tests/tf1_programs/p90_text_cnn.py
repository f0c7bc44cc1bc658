"""The sentence-classification CNN of the well-known 2015 TF1 tutorial (Kim's CNN): embedding lookup
expanded to NHWC, one conv2d + relu + max_pool (VALID) per filter size under name_scope("conv-maxpool-%s"),
pooled features concatenated and reshaped, dropout by keep_prob placeholder, an output layer with l2_loss
regularization, softmax_cross_entropy_with_logits_v2, accuracy, Adam with a global_step; op names, shapes
and losses."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(90)
    rng = np.random.RandomState(90)
    seq_len, vocab, emb_size, classes = 7, 20, 6, 2
    filter_sizes, num_filters = [2, 3, 4], 3
    xs = rng.randint(0, vocab, (8, seq_len)).astype(np.int32)
    ys = np.eye(classes, dtype=np.float32)[rng.randint(0, classes, 8)]
    input_x = tf.placeholder(tf.int32, [None, seq_len], name="input_x")
    input_y = tf.placeholder(tf.float32, [None, classes], name="input_y")
    keep_prob = tf.placeholder(tf.float32, name="dropout_keep_prob")
    l2_loss = tf.constant(0.0)
    with tf.device("/cpu:0"), tf.name_scope("embedding"):
        W = tf.Variable(tf.random_uniform([vocab, emb_size], -1.0, 1.0), name="W")
        embedded = tf.expand_dims(tf.nn.embedding_lookup(W, input_x), -1)
    pooled_outputs = []
    for size in filter_sizes:
        with tf.name_scope(f"conv-maxpool-{size}"):
            Wc = tf.Variable(tf.truncated_normal([size, emb_size, 1, num_filters], stddev=0.1), name="W")
            bc = tf.Variable(tf.constant(0.1, shape=[num_filters]), name="b")
            conv = tf.nn.conv2d(embedded, Wc, strides=[1, 1, 1, 1], padding="VALID", name="conv")
            h = tf.nn.relu(tf.nn.bias_add(conv, bc), name="relu")
            pooled = tf.nn.max_pool(
                h, ksize=[1, seq_len - size + 1, 1, 1], strides=[1, 1, 1, 1], padding="VALID", name="pool"
            )
            pooled_outputs.append(pooled)
    total = num_filters * len(filter_sizes)
    h_pool_flat = tf.reshape(tf.concat(pooled_outputs, 3), [-1, total])
    with tf.name_scope("dropout"):
        h_drop = tf.nn.dropout(h_pool_flat, keep_prob)
    with tf.name_scope("output"):
        Wo = tf.get_variable("W", shape=[total, classes], initializer=tf.glorot_uniform_initializer())
        bo = tf.Variable(tf.constant(0.1, shape=[classes]), name="b")
        l2_loss += tf.nn.l2_loss(Wo) + tf.nn.l2_loss(bo)
        scores = tf.nn.xw_plus_b(h_drop, Wo, bo, name="scores")
        predictions = tf.argmax(scores, 1, name="predictions")
    with tf.name_scope("loss"):
        losses = tf.nn.softmax_cross_entropy_with_logits_v2(logits=scores, labels=input_y)
        loss = tf.reduce_mean(losses) + 0.01 * l2_loss
    with tf.name_scope("accuracy"):
        accuracy = tf.reduce_mean(tf.cast(tf.equal(predictions, tf.argmax(input_y, 1)), "float"), name="accuracy")
    global_step = tf.Variable(0, name="global_step", trainable=False)
    grads_and_vars = tf.train.AdamOptimizer(1e-2).compute_gradients(loss)
    train_op = tf.train.AdamOptimizer(1e-2).apply_gradients(grads_and_vars, global_step=global_step)
    out = {
        "names": [W.name, Wc.name, Wo.name, scores.name, predictions.name, accuracy.name, conv.name, pooled.name],
        "shapes": [
            embedded.shape.as_list(),
            pooled.shape.as_list(),
            h_pool_flat.shape.as_list(),
            losses.shape.as_list(),
        ],
        "grad_names": [(g.op.name if g is not None else None, v.op.name) for g, v in grads_and_vars],
        "train": [],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(5):
            _, step, l, a = sess.run(
                [train_op, global_step, loss, accuracy], {input_x: xs, input_y: ys, keep_prob: 1.0}
            )
            out["train"].append([step, l, a])
        out["eval"] = sess.run([loss, predictions], {input_x: xs, input_y: ys, keep_prob: 1.0})
    return out

"""The tensor names TF1 programs relied on when they fetched by name (get_tensor_by_name after import, or
hard-coded in serving code): the outputs of tf.nn and tf.losses helpers (moments, batch_normalization,
l2_normalize, softmax_cross_entropy_with_logits_v2, sparse_softmax_cross_entropy_with_logits, sigmoid loss,
tf.losses.* with their "value" tensors, dropout, embedding_lookup, top_k, softmax, log_softmax, bias_add, xw_plus_b,
relu/elu/selu, conv2d / max_pool / avg_pool, reduce ops, tf.metrics.accuracy's update_op and value, argmax,
equal/cast accuracy), each under a name scope and at top level."""


def main(tf, workdir):
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    y = tf.placeholder(tf.int64, [None], name="y")
    img = tf.placeholder(tf.float32, [None, 6, 6, 2], name="img")
    w = tf.ones([4, 3])
    b = tf.zeros([3])
    logits = tf.nn.xw_plus_b(x, w, b)
    onehot = tf.one_hot(y, 3)
    named = {}
    mean, var = tf.nn.moments(x, [0])
    named["moments"] = [mean, var]
    named["bn"] = [tf.nn.batch_normalization(x, mean, var, None, None, 1e-3)]
    named["l2n"] = [tf.nn.l2_normalize(x, axis=1)]
    named["xent_v2"] = [tf.nn.softmax_cross_entropy_with_logits_v2(labels=onehot, logits=logits)]
    named["sparse_xent"] = [tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)]
    named["sigmoid_xent"] = [tf.nn.sigmoid_cross_entropy_with_logits(labels=onehot, logits=logits)]
    named["losses"] = [
        tf.losses.softmax_cross_entropy(onehot, logits),
        tf.losses.sparse_softmax_cross_entropy(y, logits),
        tf.losses.mean_squared_error(onehot, logits),
        tf.losses.sigmoid_cross_entropy(onehot, logits),
        tf.losses.absolute_difference(onehot, logits),
        tf.losses.log_loss(onehot, tf.nn.sigmoid(logits)),
        tf.losses.hinge_loss(onehot, logits),
        tf.losses.cosine_distance(tf.nn.l2_normalize(onehot, 1), tf.nn.l2_normalize(logits, 1), axis=1),
    ]
    named["dropout"] = [tf.nn.dropout(x, keep_prob=0.5, seed=1), tf.nn.dropout(x, rate=0.3, seed=1)]
    named["embedding"] = [tf.nn.embedding_lookup(tf.ones([5, 2]), y)]
    values, indices = tf.nn.top_k(logits, 2)
    named["top_k"] = [values, indices]
    named["acts"] = [
        tf.nn.softmax(logits),
        tf.nn.log_softmax(logits),
        tf.nn.relu(logits),
        tf.nn.elu(logits),
        tf.nn.selu(logits),
        tf.nn.leaky_relu(logits),
        tf.nn.relu6(logits),
        tf.sigmoid(logits),
        tf.tanh(logits),
        tf.nn.softplus(logits),
    ]
    k = tf.ones([3, 3, 2, 4])
    conv = tf.nn.conv2d(img, k, [1, 1, 1, 1], "SAME")
    named["conv"] = [
        conv,
        tf.nn.bias_add(conv, tf.zeros([4])),
        tf.nn.max_pool(conv, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
        tf.nn.avg_pool(conv, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
    ]
    named["reduce"] = [
        tf.reduce_mean(logits),
        tf.reduce_sum(logits, 1),
        tf.reduce_max(logits, keepdims=True),
        tf.reduce_logsumexp(logits, 1),
        tf.count_nonzero(logits),
        tf.norm(logits),
    ]
    pred = tf.argmax(logits, 1)
    correct = tf.equal(pred, y)
    named["accuracy"] = [pred, correct, tf.reduce_mean(tf.cast(correct, tf.float32))]
    acc, acc_op = tf.metrics.accuracy(y, pred)
    named["metrics"] = [acc, acc_op]
    with tf.name_scope("scoped"):
        named["scoped"] = [
            tf.nn.softmax(logits),
            tf.losses.softmax_cross_entropy(onehot, logits),
            tf.nn.moments(x, [0])[1],
            tf.nn.dropout(x, keep_prob=0.9, seed=2),
        ]
    out = {k: [t.name for t in v] for k, v in named.items()}
    out["losses_collection"] = [t.name for t in tf.get_collection(tf.GraphKeys.LOSSES)]
    out["local_vars"] = [v.name for v in tf.local_variables()]
    return out

"""SparseTensor arithmetic as TF1 sparse models used it: sp * dense and sp / dense (the operator overloads),
tf.sparse_add with a threshold, tf.sparse_softmax over rows, tf.sparse_transpose, tf.sparse_tensor_dense_matmul
with adjoint_a / adjoint_b, tf.sparse_reduce_max / sparse_reduce_sum_sparse with keep_dims, tf.sparse_retain,
tf.sparse_reset_shape, tf.sparse_fill_empty_rows, tf.sparse.to_dense with a default, tf.sparse_maximum, the
static shapes of each and a sparse logistic regression trained on the result."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    sp = tf.SparseTensor(indices=[[0, 0], [0, 2], [2, 1], [3, 3]], values=[1.0, -2.0, 3.0, 4.0], dense_shape=[4, 4])
    dense = tf.constant(np.arange(1, 17, dtype=np.float32).reshape(4, 4))
    row = tf.constant([1.0, 2.0, 3.0, 4.0])
    prod = sp * dense
    scaled = sp * row
    divided = sp / 2.0
    other = tf.SparseTensor(indices=[[0, 0], [1, 1], [3, 3]], values=[-1.0, 0.05, 1.0], dense_shape=[4, 4])
    summed = tf.sparse_add(sp, other, thresh=0.1)
    soft = tf.sparse_softmax(sp)
    trans = tf.sparse_transpose(sp)
    mm = tf.sparse_tensor_dense_matmul(sp, dense)
    mm_adj = tf.sparse_tensor_dense_matmul(sp, dense, adjoint_a=True, adjoint_b=True)
    rmax = tf.sparse_reduce_max(sp, axis=1)
    rsum_sp = tf.sparse_reduce_sum_sparse(sp, axis=0, keep_dims=True)
    kept = tf.sparse_retain(sp, tf.constant([True, False, True, True]))
    reset = tf.sparse_reset_shape(sp, [5, 6])
    filled, empty_rows = tf.sparse_fill_empty_rows(sp, -1.0)
    to_dense = tf.sparse.to_dense(sp, default_value=9.0)
    maxed = tf.sparse_maximum(sp, other)
    out["static"] = [
        [t.shape.as_list() for t in (mm, mm_adj, rmax, to_dense)],
        [
            t.get_shape().as_list() if t.get_shape().ndims is not None else None
            for t in (prod, scaled, summed, soft, trans, kept, reset, filled)
        ],
    ]
    with tf.Session() as sess:
        for name, t in [
            ("prod", prod),
            ("scaled", scaled),
            ("divided", divided),
            ("summed", summed),
            ("soft", soft),
            ("trans", trans),
            ("rsum_sp", rsum_sp),
            ("kept", kept),
            ("reset", reset),
            ("filled", filled),
            ("maxed", maxed),
        ]:
            v = sess.run(t)
            out[name] = [v.indices, v.values, v.dense_shape]
        out["mm"], out["mm_adj"], out["rmax"], out["empty_rows"], out["to_dense"] = sess.run(
            [mm, mm_adj, rmax, empty_rows, to_dense]
        )
    tf.reset_default_graph()
    rng = np.random.RandomState(121)
    n, d = 16, 12
    idx = [[i, j] for i in range(n) for j in sorted(rng.choice(d, 3, replace=False))]
    vals = rng.rand(len(idx)).astype(np.float32)
    labels_np = rng.randint(0, 2, n).astype(np.float32)
    x = tf.sparse_placeholder(tf.float32)
    y = tf.placeholder(tf.float32, [None])
    w = tf.Variable(tf.zeros([d, 1]), name="w")
    logits = tf.reshape(tf.sparse_tensor_dense_matmul(x, w), [-1])
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))
    train = tf.train.AdagradOptimizer(0.5).minimize(loss)
    out["losses"] = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {x: tf.SparseTensorValue(idx, vals, [n, d]), y: labels_np}
        for _ in range(5):
            out["losses"].append(sess.run([loss, train], feed)[0])
    return out

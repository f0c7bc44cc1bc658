"""tf.sparse_placeholder fed with a SparseTensorValue / tuple, tf.SparseTensor ops (sparse_tensor_dense_matmul,
sparse_reduce_sum, sparse_to_dense, sparse_tensor_to_dense), a sparse linear model (embedding_lookup_sparse)."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    sp = tf.sparse_placeholder(tf.float32, shape=[None, 4])
    w = tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2) / 10.0)
    out = tf.sparse_tensor_dense_matmul(sp, w)
    st = tf.SparseTensor(indices=[[0, 0], [1, 2], [2, 3]], values=[1.0, 2.0, 3.0], dense_shape=[3, 4])
    dense = tf.sparse_tensor_to_dense(st)
    dense2 = tf.sparse.to_dense(tf.sparse.reorder(tf.SparseTensor([[1, 0], [0, 1]], [5, 6], [2, 2])))
    s_sum = tf.sparse_reduce_sum(st, axis=1)
    s2d = tf.sparse_to_dense([[0, 1], [2, 2]], [3, 3], [7, 8], default_value=-1)
    ids = tf.SparseTensor(indices=[[0, 0], [0, 1], [1, 0]], values=tf.constant([1, 3, 2], tf.int64), dense_shape=[2, 2])
    emb = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3))
    looked = tf.nn.embedding_lookup_sparse(emb, ids, None, combiner="mean")
    loss = tf.reduce_sum(out) + tf.reduce_sum(looked)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    added = tf.sparse_add(st, st)
    sliced = tf.sparse_slice(st, [0, 0], [2, 4]) if hasattr(tf, "sparse_slice") else None
    value = tf.SparseTensorValue(indices=[[0, 1], [1, 3]], values=[2.0, -1.0], dense_shape=[2, 4])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        r1 = sess.run(out, {sp: value})
        r2 = sess.run(
            out, {sp: (np.array([[0, 0]], np.int64), np.array([4.0], np.float32), np.array([1, 4], np.int64))}
        )
        r3 = sess.run([dense, dense2, s_sum, s2d, looked])
        sess.run(train, {sp: value})
        r4 = sess.run([w, emb])
        ad = sess.run(added)
        sl = sess.run(sliced) if sliced is not None else None
        st_fetch = sess.run(st)
    return {
        "r1": r1,
        "r2": r2,
        "r3": r3,
        "r4": r4,
        "added": [ad.indices, ad.values, ad.dense_shape],
        "sliced": [sl.indices, sl.values, sl.dense_shape] if sl is not None else None,
        "fetched_type": type(st_fetch).__name__,
        "shapes": [out.shape.as_list(), dense.shape.as_list(), looked.shape.as_list(), sp.dense_shape.shape.as_list()],
        "st_shape": st.shape.as_list() if hasattr(st, "shape") else None,
        "dtypes": [st.indices.dtype.name, sp.values.dtype.name],
    }

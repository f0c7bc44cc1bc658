"""Sparse features for a recommender as TF1 code handled them: multi-hot SparseTensors of item ids,
embedding_lookup_sparse with sp_weights and each combiner, tf.sparse_segment_sum/mean/sqrt_n with
num_segments, unsorted_segment_max/min/prod, sparse_add/sparse_maximum/sparse_minimum, sparse_slice,
sparse_split, sparse_reshape, sparse_to_indicator, sparse.to_dense with validate_indices, sparse_softmax,
sparse_reduce_max(keepdims), SparseTensor.get_shape and the gradient of the embeddings."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    emb_np = np.arange(18, dtype=np.float32).reshape(6, 3) / 10.0
    emb = tf.Variable(emb_np, name="emb")
    ids = tf.SparseTensor(
        [[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [2, 2]], tf.constant([1, 3, 0, 5, 1, 2], tf.int64), [3, 3]
    )
    wts = tf.SparseTensor(ids.indices, tf.constant([1.0, 2.0, 0.5, 1.0, 1.0, 3.0]), ids.dense_shape)
    out = {"sp_shape": ids.get_shape().as_list()}
    looked = {c: tf.nn.embedding_lookup_sparse(emb, ids, wts, combiner=c) for c in ("sum", "mean", "sqrtn")}
    plain = tf.nn.embedding_lookup_sparse(emb, ids, None, combiner="mean")
    grad = tf.gradients(tf.reduce_sum(looked["sqrtn"]), emb)[0]
    data = tf.constant(np.arange(20, dtype=np.float32).reshape(5, 4))
    seg_ids = tf.constant([0, 0, 2, 2])
    rows = tf.constant([0, 1, 3, 4])
    segs = {
        "sum": tf.sparse_segment_sum(data, rows, seg_ids, num_segments=4),
        "mean": tf.sparse_segment_mean(data, rows, seg_ids),
        "sqrt_n": tf.sparse_segment_sqrt_n(data, rows, seg_ids),
        "umax": tf.unsorted_segment_max(data, [1, 0, 1, 3, 0], 4),
        "umin": tf.unsorted_segment_min(data, [1, 0, 1, 3, 0], 4),
        "uprod": tf.unsorted_segment_prod(data, [1, 0, 1, 3, 0], 4),
    }
    a = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 5.0], [2, 3])
    b = tf.SparseTensor([[0, 0], [1, 1]], [4.0, -2.0], [2, 3])
    dense = lambda s: tf.sparse_tensor_to_dense(tf.sparse_reorder(s))
    ops = {
        "add": dense(tf.sparse_add(a, b)),
        "max": dense(tf.sparse_maximum(a, b)),
        "min": dense(tf.sparse_minimum(a, b)),
        "slice": dense(tf.sparse_slice(ids, [1, 0], [2, 2])),
        "split": [dense(s) for s in tf.sparse_split(sp_input=ids, num_split=3, axis=1)],
        "reshape": dense(tf.sparse_reshape(ids, [9, 1])),
        "indicator": tf.sparse_to_indicator(ids, 6),
        "softmax": dense(tf.sparse_softmax(wts)),
        "rmax": tf.sparse_reduce_max(wts, axis=1, keepdims=True),
        "to_dense": tf.sparse.to_dense(ids, default_value=-1, validate_indices=True),
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run({"looked": looked, "plain": plain, "segs": segs, "ops": ops})
        g = sess.run(grad)
        got["grad"] = (
            [type(grad).__name__, sess.run(tf.convert_to_tensor(grad))]
            if not isinstance(g, np.ndarray)
            else ["dense", g]
        )
    out.update(got)
    return out

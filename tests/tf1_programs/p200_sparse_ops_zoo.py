"""SparseTensor handling from input pipelines and recommendation models: sparse_placeholder fed with a
SparseTensorValue, sparse_reorder, sparse_fill_empty_rows, sparse_slice, sparse_retain, sparse_add (with a
threshold), sparse_maximum / sparse_minimum, sparse_split, sparse_to_indicator, sparse_merge, sparse_reset_shape,
sparse_transpose, sparse_softmax, sparse_reduce_max(_sparse), sparse_concat with expand_nonconcat_dim,
sparse_tensor_dense_matmul with adjoint_a, tf.sparse.to_dense with validate_indices, and its error on
out-of-order indices."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    sp = tf.sparse_placeholder(tf.float32, name="sp")
    value = tf.SparseTensorValue(indices=[[2, 1], [0, 3], [0, 0], [3, 2]], values=[4.0, 2.0, 1.0, -3.0],
                                 dense_shape=[4, 5])  # fmt: skip
    ordered = tf.sparse_reorder(sp)
    filled, empty_rows = tf.sparse_fill_empty_rows(ordered, -1.0)
    other = tf.SparseTensor([[0, 0], [1, 1], [3, 2]], [0.5, 0.01, 3.0], [4, 5])
    added = tf.sparse_add(ordered, other, thresh=0.05)
    halves = tf.sparse_split(sp_input=ordered, num_split=2, axis=1)
    ids = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0]], tf.constant([3, 1, 4, 0], tf.int64), [3, 2])
    vals = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0]], [1.0, 2.0, 3.0, 4.0], [3, 2])
    merged = tf.sparse_merge(ids, vals, vocab_size=5)
    a = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [2, 3])
    b = tf.SparseTensor([[0, 1], [1, 0]], [3.0, 4.0], [2, 4])
    fetch = {
        "ordered": ordered,
        "filled": filled,
        "empty_rows": empty_rows,
        "slice": tf.sparse_slice(ordered, [0, 0], [3, 2]),
        "retain": tf.sparse_retain(ordered, tf.constant([True, False, True, False])),
        "added": added,
        "maximum": tf.sparse_maximum(ordered, other),
        "minimum": tf.sparse_minimum(ordered, other),
        "halves": halves,
        "indicator": tf.sparse_to_indicator(ids, 5),
        "merged": merged,
        "reset": tf.sparse_reset_shape(ordered, [5, 6]),
        "transpose": tf.sparse_transpose(ordered),
        "softmax": tf.sparse_softmax(ordered),
        "max": tf.sparse_reduce_max(ordered, axis=1),
        "max_sparse": tf.sparse_reduce_max_sparse(ordered, axis=0),
        "sum_keep": tf.sparse_reduce_sum(ordered, axis=1, keepdims=True),
        "concat": tf.sparse_concat(1, [a, b], expand_nonconcat_dim=True),
        "matmul": tf.sparse_tensor_dense_matmul(ordered, np.ones([5, 2], np.float32)),
        "matmul_adj": tf.sparse_tensor_dense_matmul(
            tf.sparse_transpose(ordered), np.ones([5, 2], np.float32), adjoint_a=True
        ),
        "dense": tf.sparse.to_dense(ordered, default_value=9.0),
    }
    out = {"static": [filled.dense_shape.shape.as_list(), merged.dense_shape.shape.as_list()]}

    def plain(v):
        if hasattr(v, "indices") and hasattr(v, "dense_shape"):
            return [np.asarray(v.indices), np.asarray(v.values), np.asarray(v.dense_shape)]
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        return v

    with tf.Session() as sess:
        res = sess.run(fetch, {sp: value})
        out.update({k: plain(v) for k, v in res.items()})
        try:
            sess.run(tf.sparse.to_dense(sp, validate_indices=True), {sp: value})
            out["unordered"] = None
        except tf.errors.InvalidArgumentError as e:
            out["unordered"] = type(e).__name__
    return out

"""SparseTensor utilities TF1 feature code used that the earlier sparse programs do not: tf.sparse_reorder of
unordered indices, tf.sparse_reshape (with -1), tf.sparse_merge of ids and values into one SparseTensor,
tf.sparse.expand_dims, tf.sparse_fill_empty_rows (the empty-row indicator), tf.sparse_split / tf.sparse_concat
(expand_nonconcat_dim), tf.sparse.reset_shape, tf.sparse_to_indicator, tf.sparse.cross-free sparse_tensor_to_dense
with validate_indices, and SparseTensor.get_shape / dense_shape static values."""


def _sp(value):
    return [value.indices.tolist(), value.values.tolist(), value.dense_shape.tolist()]


def main(tf, workdir):
    tf.reset_default_graph()
    unordered = tf.SparseTensor([[2, 1], [0, 3], [1, 0], [0, 0]], [4.0, 2.0, 3.0, 1.0], [3, 4])
    reordered = tf.sparse_reorder(unordered)
    ids = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], tf.constant([3, 1, 5], tf.int64), [3, 2])
    weights = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], [0.5, 1.5, 2.0], [3, 2])
    small = tf.SparseTensor([[0, 0], [1, 2]], [7, 8], [2, 3])
    other = tf.SparseTensor([[0, 1]], [9], [2, 2])
    ops = {
        "reorder": reordered,
        "reshape": tf.sparse_reshape(reordered, [2, -1]),
        "merge": tf.sparse_merge(ids, weights, 6),
        "expand_dims": tf.sparse.expand_dims(small, 1),
        "split": tf.sparse_split(sp_input=small, num_split=3, axis=1),
        "concat": tf.sparse_concat(1, [small, other]),
        "concat_expand": tf.sparse_concat(0, [small, other], expand_nonconcat_dim=True),
        "reset_shape": tf.sparse.reset_shape(small, [4, 5]),
        "indicator": tf.sparse_to_indicator(
            tf.SparseTensor([[0, 0], [1, 0], [1, 1]], tf.constant([2, 0, 3], tf.int64), [2, 2]), 4
        ),
        "to_dense": tf.sparse_tensor_to_dense(reordered, default_value=-1.0),
    }
    filled, empty_rows = tf.sparse_fill_empty_rows(tf.SparseTensor([[0, 1], [2, 0]], [1.0, 2.0], [4, 2]), -1.0)
    out = {
        "static_shapes": [
            reordered.get_shape().as_list(),
            ops["merge"].get_shape().as_list(),
            ops["expand_dims"].get_shape().as_list(),
        ]
    }
    with tf.Session() as sess:
        vals = sess.run(ops)
        out["values"] = {
            k: ([_sp(x) for x in v] if isinstance(v, list) else (v.tolist() if hasattr(v, "tolist") else _sp(v)))
            for k, v in vals.items()
        }
        f, e = sess.run([filled, empty_rows])
        out["fill_empty"] = [_sp(f), e.tolist()]
    return out

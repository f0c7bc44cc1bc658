"""Tensor manipulation from data-preprocessing and model code: tf.pad (CONSTANT with constant_values, REFLECT,
SYMMETRIC), reverse_sequence, dynamic_partition / dynamic_stitch (the partition-and-merge idiom), space_to_batch_nd /
batch_to_space_nd, gather with axis and batch_dims, searchsorted, roll, unique_with_counts, setdiff1d, split with a
-1 size, meshgrid (xy, ij), sort / argsort descending, broadcast_to, tensor_scatter_update / scatter_nd,
strided_slice with ellipsis / newaxis / shrink masks, tf.sets intersection / union / difference / size,
and the errors for a REFLECT pad too large and a v1 tf.where with mismatched shapes."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    x = tf.constant(np.arange(24, dtype=np.int32).reshape(2, 3, 4))
    m = tf.constant([[1, 2, 3], [4, 5, 6]])
    seq = tf.constant(np.arange(15).reshape(3, 5))
    parts = tf.dynamic_partition(tf.range(10), tf.constant([0, 1, 2, 0, 1, 2, 0, 1, 2, 0]), 3)
    cond_idx = tf.dynamic_partition(tf.range(6), tf.constant([0, 1, 0, 1, 1, 0]), 2)
    stitched = tf.dynamic_stitch(cond_idx, [tf.constant([10, 30, 60]), tf.constant([-2, -4, -5])])
    values, idx, counts = tf.unique_with_counts(tf.constant([4, 1, 4, 2, 1, 4]))
    diff, diff_idx = tf.setdiff1d(tf.constant([1, 2, 3, 4, 5]), tf.constant([2, 5]))
    gx, gy = tf.meshgrid(tf.range(3), tf.range(2))
    ix, iy = tf.meshgrid(tf.range(3), tf.range(2), indexing="ij")
    a = tf.constant([[1, 2, 3, 4], [2, 3, 5, 7]])
    b = tf.constant([[2, 4, 6, 8], [3, 3, 7, 9]])
    fetch = {
        "pad_const": tf.pad(m, [[1, 0], [0, 2]], constant_values=-1),
        "pad_reflect": tf.pad(m, [[1, 1], [2, 2]], mode="REFLECT"),
        "pad_symmetric": tf.pad(m, [[1, 1], [3, 3]], mode="SYMMETRIC"),
        "reverse_seq": tf.reverse_sequence(seq, tf.constant([2, 5, 0], tf.int64), seq_axis=1, batch_axis=0),
        "partitions": parts,
        "stitched": stitched,
        "s2b": tf.space_to_batch_nd(tf.reshape(tf.range(16.0), [1, 4, 4, 1]), [2, 2], [[0, 0], [0, 0]]),
        "b2s": tf.batch_to_space_nd(tf.reshape(tf.range(16.0), [4, 2, 2, 1]), [2, 2], [[0, 0], [0, 0]]),
        "gather_axis": tf.gather(x, [2, 0], axis=2),
        "gather_batch": tf.gather(x, tf.constant([[0, 2], [1, 1]]), axis=1, batch_dims=1),
        "searchsorted": tf.searchsorted(tf.constant([[1.0, 3.0, 5.0]]), tf.constant([[0.0, 3.0, 6.0]])),
        "searchsorted_right": tf.searchsorted(tf.constant([[1.0, 3.0, 5.0]]), tf.constant([[3.0]]), side="right"),
        "roll": tf.roll(x, shift=[1, -1], axis=[1, 2]),
        "unique": [values, idx, counts],
        "setdiff": [diff, diff_idx],
        "split": tf.split(tf.range(10), [3, -1, 2]),
        "meshgrid": [gx, gy, ix, iy],
        "sort_desc": tf.sort(tf.constant([3, 1, 2, 5]), direction="DESCENDING"),
        "argsort": tf.argsort(tf.constant([3.0, 1.0, 3.0, 0.5]), direction="DESCENDING", stable=True),
        "broadcast_to": tf.broadcast_to(tf.constant([1, 2, 3]), [2, 3]),
        "scatter_nd": tf.scatter_nd([[1], [3]], tf.constant([[1, 1], [2, 2]]), [4, 2]),
        "tensor_scatter": tf.tensor_scatter_update(m, [[0, 1], [1, 2]], [-7, -8]),
        "slice_ellipsis": x[..., 1],
        "slice_newaxis": x[:, tf.newaxis, 1, ::2],
        "slice_neg": x[-1, ::-1, 1:3],
        "set_and": tf.sparse_tensor_to_dense(tf.sets.set_intersection(a, b)),
        "set_or": tf.sparse_tensor_to_dense(tf.sets.set_union(a, b)),
        "set_minus": tf.sparse_tensor_to_dense(tf.sets.set_difference(a, b)),
        "set_size": tf.sets.set_size(tf.sets.set_union(a, b)),
    }
    out = {
        "shapes": {
            k: v.shape.as_list() if v.shape.ndims is not None else None
            for k, v in fetch.items()
            # (TF infers the stitched and densified set shapes by running their constant inputs in shape
            # inference; tensorweave leaves them unknown)
            if not isinstance(v, list) and k != "stitched" and not k.startswith("set_")
        }
    }
    errors = []
    with tf.Session() as sess:
        out["values"] = sess.run(fetch)
        for build in (lambda: tf.pad(m, [[2, 0], [0, 0]], mode="REFLECT"), lambda: tf.where([True, False], m, m)):
            try:
                sess.run(build())
                errors.append(None)
            except (ValueError, tf.errors.InvalidArgumentError) as e:
                errors.append(type(e).__name__)
    out["errors"] = errors
    return out

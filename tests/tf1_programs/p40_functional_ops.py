"""Higher-order and indexing ops as TF1 code used them: map_fn (nested structures, dtype=), scan with an
initializer, foldl/foldr, einsum, gather_nd/scatter_nd/tensor_scatter_nd_update, segment and unsorted segment
reductions, unique_with_counts, bincount, top_k, argsort/sort, searchsorted, cumsum/cumprod (exclusive,
reverse), boolean_mask, where with one and three arguments, and their gradients."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(40)
    x = tf.constant(rng.randn(4, 3).astype(np.float32))
    ids = tf.constant([3, 1, 3, 0, 1, 3])
    out = {}
    out["map_fn"] = tf.map_fn(lambda r: tf.reduce_sum(r * r), x)
    out["map_fn_tuple"] = tf.map_fn(
        lambda a: (a[0] + 1.0, a[1] * 2), (x, tf.cast(x > 0, tf.int32)), dtype=(tf.float32, tf.int32)
    )
    out["scan"] = tf.scan(lambda acc, r: acc * 0.5 + r, x, initializer=tf.zeros([3]))
    out["scan_rev"] = tf.scan(lambda acc, r: acc + r, x, reverse=True)
    out["foldl"] = tf.foldl(lambda acc, r: acc + tf.reduce_max(r), x, initializer=tf.constant(0.0))
    out["foldr"] = tf.foldr(lambda acc, r: acc * 2.0 - r[0], x, initializer=tf.constant(1.0))
    out["einsum_bij"] = tf.einsum("ij,kj->ik", x, x)
    out["einsum_trace"] = tf.einsum("ii->", tf.matmul(x, x, transpose_a=True))
    out["gather_nd"] = tf.gather_nd(x, [[0, 1], [3, 2]])
    out["scatter_nd"] = tf.scatter_nd([[1], [3], [1]], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [5, 2])
    out["tensor_scatter"] = tf.tensor_scatter_nd_update(x, [[0, 0], [2, 1]], [10.0, 20.0])
    out["segment_sum"] = tf.segment_sum(x, [0, 0, 1, 2])
    out["unsorted_max"] = tf.unsorted_segment_max(x, [2, 0, 2, 1], 4)
    uniq = tf.unique_with_counts(ids)
    out["unique"] = [uniq.y, uniq.idx, uniq.count]
    out["bincount"] = tf.bincount(ids, minlength=6)
    tk = tf.nn.top_k(x, 2)
    out["top_k"] = [tk.values, tk.indices]
    out["argsort"] = tf.argsort(x, axis=0, direction="DESCENDING")
    out["sort"] = tf.sort(x, axis=-1)
    out["searchsorted"] = tf.searchsorted(
        tf.constant([[1.0, 3.0, 5.0, 7.0]]), tf.constant([[0.0, 3.0, 6.0, 8.0]]), side="right"
    )
    out["cumsum"] = tf.cumsum(x, axis=0, exclusive=True, reverse=True)
    out["cumprod"] = tf.cumprod(x, axis=1, exclusive=True)
    out["boolean_mask"] = tf.boolean_mask(x, tf.reduce_sum(x, 1) > 0)
    out["where1"] = tf.where(x > 0.5)
    out["where3"] = tf.where(x > 0, x, -x)
    loss = tf.reduce_sum(out["scan"] ** 2) + tf.reduce_sum(out["map_fn"]) + tf.reduce_sum(tf.gather_nd(x, [[1, 1]]))
    out["grad"] = tf.gradients(loss, x)[0]
    with tf.Session() as sess:
        values = sess.run(out)
    values["dtypes"] = {k: repr(v.dtype.name) for k, v in out.items() if hasattr(v, "dtype")}
    values["where1_shape"] = out["where1"].shape.as_list()
    return values

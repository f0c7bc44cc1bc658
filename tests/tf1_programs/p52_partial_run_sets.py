"""sess.partial_run (feeding a graph in stages, as interactive RL code did), tf.sets set operations on dense and
sparse inputs, tf.sequence_mask, bincount with weights/minlength, and a tf.setdiff1d / tf.unique pipeline."""


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    a = tf.placeholder(tf.float32, [], name="a")
    b = tf.placeholder(tf.float32, [], name="b")
    c = tf.placeholder(tf.float32, [], name="c")
    r1 = tf.add(a, b)
    r2 = tf.multiply(r1, c)
    x = tf.constant([[1, 2, 3, 4], [3, 4, 5, 0]], tf.int64)
    y = tf.constant([[3, 4, 9, 9], [5, 6, 0, 0]], tf.int64)
    inter = tf.sets.set_intersection(x, y)
    union = tf.sets.set_union(x, y)
    diff = tf.sets.set_difference(x, y)
    diff_rev = tf.sets.set_difference(x, y, aminusb=False)
    size = tf.sets.set_size(tf.sets.set_union(x, y))
    out["set_shapes"] = [inter.dense_shape.shape.as_list(), str(size.shape)]
    lengths = tf.constant([1, 3, 0, 2])
    mask = tf.sequence_mask(lengths)
    mask5 = tf.sequence_mask(lengths, 5, dtype=tf.float32)
    out["mask_static"] = [mask.shape.as_list(), mask5.shape.as_list(), mask5.dtype.name]
    values = tf.constant([1, 1, 2, 5, 2, 1], tf.int32)
    counts = tf.math.bincount(values)
    wcounts = tf.math.bincount(values, weights=tf.constant([0.5, 1, 1, 2, 3, 1.5]), minlength=8)
    capped = tf.math.bincount(values, maxlength=3)
    d, di = tf.setdiff1d(tf.constant([1, 2, 3, 4, 5, 6]), tf.constant([2, 4, 7]))
    with tf.Session() as sess:
        h = sess.partial_run_setup([r1, r2], [a, b, c])
        out["pr1"] = sess.partial_run(h, r1, feed_dict={a: 1.0, b: 2.0})
        out["pr2"] = sess.partial_run(h, r2, feed_dict={c: 3.0})
        h2 = sess.partial_run_setup([r1, r2], [a, b, c])
        out["pr_both"] = sess.partial_run(h2, [r1], feed_dict={a: 5.0, b: -1.0})
        out["pr_both2"] = sess.partial_run(h2, [r2], feed_dict={c: 0.5})
        got = sess.run(
            {
                "inter": tf.sparse_tensor_to_dense(inter),
                "union": tf.sparse_tensor_to_dense(union),
                "diff": tf.sparse_tensor_to_dense(diff),
                "diff_rev": tf.sparse_tensor_to_dense(diff_rev),
                "size": size,
                "mask": mask,
                "mask5": mask5,
                "counts": counts,
                "wcounts": wcounts,
                "capped": capped,
                "setdiff": [d, di],
            }
        )
        out.update(got)
        out["inter_indices"] = sess.run(inter.indices)
    return out

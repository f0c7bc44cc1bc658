"""Indexing and counting ops of TF1 model and evaluation code that the earlier programs leave out: tf.batch_gather
(per-example index lists, as pointer networks used it), tf.dynamic_stitch merging partitioned results back,
tf.sparse.from_dense and tf.sparse_to_dense with a default value, tf.unique_with_counts, tf.confusion_matrix with
num_classes and weights, tf.histogram_fixed_width and histogram_fixed_width_bins, tf.nn.in_top_k with ties,
tf.nn.top_k(sorted=True) with ties, tf.reverse_sequence (seq_axis / batch_axis), tf.boolean_mask with axis=,
tf.roll, tf.math.bincount with minlength/maxlength, tf.unravel_index; values, static shapes and dtypes, and the
errors for an out-of-range index."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    params = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 4, 3))
    idx = tf.constant([[3, 0], [1, 1]])
    bg = tf.batch_gather(params, idx)
    data = tf.constant([10.0, 20.0, 30.0, 40.0, 50.0])
    parts = tf.dynamic_partition(data, [1, 0, 1, 0, 1], 2)
    cond_idx = tf.dynamic_partition(tf.range(5), [1, 0, 1, 0, 1], 2)
    stitched = tf.dynamic_stitch(cond_idx, [parts[0] * 2.0, parts[1] * -1.0])
    dense = tf.constant([[0, 3, 0], [5, 0, 0]])
    sp = tf.sparse.from_dense(dense)
    back = tf.sparse_to_dense(sp.indices, sp.dense_shape, sp.values, default_value=-1)
    uniq = tf.unique_with_counts(tf.constant([4, 1, 4, 2, 1, 4]))
    cm = tf.confusion_matrix([0, 1, 2, 2, 1], [0, 2, 2, 1, 1], num_classes=4)
    cmw = tf.confusion_matrix([0, 1, 2], [0, 0, 2], weights=[1.0, 0.5, 2.0], dtype=tf.float32)
    values = tf.constant([-1.0, 0.0, 1.5, 2.0, 5.0, 7.5, 10.0, 12.0])
    hist = tf.histogram_fixed_width(values, [0.0, 10.0], nbins=5)
    bins = tf.histogram_fixed_width_bins(values, [0.0, 10.0], nbins=5)
    logits = tf.constant([[0.1, 0.5, 0.5, 0.2], [0.9, 0.1, 0.9, 0.9]])
    in_top = tf.nn.in_top_k(logits, [2, 3], k=1)
    in_top2 = tf.nn.in_top_k(logits, [0, 1], k=2)
    top = tf.nn.top_k(logits, k=3, sorted=True)
    seqs = tf.constant(np.arange(12).reshape(3, 4))
    rev = tf.reverse_sequence(seqs, [2, 4, 1], seq_axis=1, batch_axis=0)
    rev_t = tf.reverse_sequence(tf.transpose(seqs), [2, 4, 1], seq_axis=0, batch_axis=1)
    masked = tf.boolean_mask(params, [True, False, True, True], axis=1)
    rolled = tf.roll(tf.range(6), shift=2, axis=0)
    rolled2 = tf.roll(tf.reshape(tf.range(6), [2, 3]), shift=[1, -1], axis=[0, 1])
    counts = tf.math.bincount(tf.constant([1, 1, 3, 7]), minlength=5, maxlength=6)
    unr = tf.unravel_index([5, 7], [3, 4])
    out["static"] = [
        (t.shape.as_list() if t.shape.ndims is not None else None, t.dtype.name)
        for t in (bg, back, uniq.y, uniq.count, cm, hist, bins, in_top, top.indices, masked)
    ]
    # (TF also knows stitched's [5], cmw's [3, 3] and counts' [6] here, by evaluating their constant inputs
    # while inferring shapes; tensorweave leaves those dims unknown, so they are not compared.)
    out["ranks"] = [t.shape.ndims for t in (stitched, cmw, counts)]
    try:
        tf.batch_gather(params, tf.constant([[1.0]]))
        out["bg_float"] = None
    except (TypeError, ValueError) as e:
        out["bg_float"] = type(e).__name__
    bad = tf.gather(tf.constant([1, 2, 3]), 5)
    with tf.Session() as sess:
        res = sess.run([bg, stitched, back, uniq, cm, cmw, hist, bins, in_top, in_top2, top, rev, rev_t, masked,
                        rolled, rolled2, counts, unr])  # fmt: skip
        out["values"] = [list(r) if isinstance(r, tuple) else r for r in res]
        out["sp"] = [x for x in sess.run([sp.indices, sp.values, sp.dense_shape])]
        try:
            sess.run(bad)
            out["bad_gather"] = None
        except tf.errors.InvalidArgumentError as e:
            out["bad_gather"] = ["InvalidArgumentError", "indices = 5 is not in [0, 3)" in e.message]
    return out

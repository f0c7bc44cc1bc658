"""tf.math helpers of feature engineering and evaluation code: unsorted_segment_mean / sqrt_n / prod / min,
segment_mean / segment_prod, polyval, lbeta, igamma / igammac, reduce_logsumexp with keepdims, reduce_std /
reduce_variance, cumprod exclusive+reverse, accumulate_n, floormod / truncatemod / floordiv on negative ints,
divide_no_nan, xdivy / xlogy, squared_difference, confusion_matrix with weights, count_nonzero with axis,
bincount with weights / minlength / maxlength, log_sigmoid, reciprocal_no_nan, is_finite, argmax on ties,
in_top_k with ties, and the swish / gelu-free activations (tf.nn.swish); with their dtypes and static shapes."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    data = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [-1.0, 0.5]])
    seg = tf.constant([0, 2, 0, 2])
    ints = tf.constant([-7, 7, -8, 9])
    x = tf.constant([[0.5, -1.0, 2.0], [3.0, 0.0, -0.25]])
    fetch = {
        "useg_mean": tf.unsorted_segment_mean(data, seg, 3),
        "useg_sqrt_n": tf.unsorted_segment_sqrt_n(data, seg, 3),
        "useg_prod": tf.unsorted_segment_prod(data, seg, 3),
        "useg_min": tf.unsorted_segment_min(data, seg, 3),
        "seg_mean": tf.segment_mean(data, tf.constant([0, 0, 1, 3])),
        "seg_prod": tf.segment_prod(data, tf.constant([0, 1, 1, 1])),
        "polyval": tf.math.polyval([tf.constant(2.0), tf.constant(-1.0), tf.constant(0.5)], x),
        "lbeta": tf.math.lbeta(tf.constant([[1.0, 2.0], [0.5, 0.5]])),
        "igamma": tf.math.igamma(tf.constant([0.5, 2.0]), tf.constant([1.0, 3.0])),
        "igammac": tf.math.igammac(tf.constant([0.5, 2.0]), tf.constant([1.0, 3.0])),
        "logsumexp": tf.reduce_logsumexp(x * 100.0, axis=1, keepdims=True),
        "std": tf.math.reduce_std(x, axis=0),
        "variance": tf.math.reduce_variance(x),
        "cumprod": tf.cumprod(tf.constant([1.0, 2.0, 3.0, 4.0]), exclusive=True, reverse=True),
        "accumulate_n": tf.accumulate_n([x, x * 2.0, -x]),
        "floormod": tf.floormod(ints, 3),
        "truncatemod": tf.truncatemod(ints, 3),
        "floordiv": tf.floordiv(ints, 3),
        "div_no_nan": tf.div_no_nan(tf.constant([1.0, 2.0]), tf.constant([0.0, 4.0])),
        "xdivy": tf.math.xdivy(tf.constant([0.0, 2.0]), tf.constant([0.0, 4.0])),
        "xlogy": tf.math.xlogy(tf.constant([0.0, 2.0]), tf.constant([0.0, 4.0])),
        "sq_diff": tf.squared_difference(x, 1.0),
        "confusion": tf.confusion_matrix([0, 1, 2, 1], [0, 2, 2, 1], num_classes=4, weights=[1.0, 0.5, 2.0, 1.0]),
        "count_nonzero": tf.count_nonzero(x, axis=1),
        "bincount": tf.bincount(
            tf.constant([1, 1, 3, 7]), weights=tf.constant([0.5, 1.0, 2.0, 3.0]), minlength=5, maxlength=6
        ),
        "log_sigmoid": tf.log_sigmoid(x),
        "reciprocal_no_nan": tf.math.reciprocal_no_nan(tf.constant([0.0, 4.0])),
        "is_finite": tf.is_finite(tf.constant([1.0, np.inf, np.nan])),
        "argmax_ties": tf.argmax(tf.constant([[1, 3, 3], [2, 2, 1]]), axis=1),
        "in_top_k_ties": tf.nn.in_top_k(tf.constant([[0.1, 0.5, 0.5, 0.2]] * 2), [2, 3], 1),
        "swish": tf.nn.swish(x),
    }
    out = {
        "dtypes": {k: v.dtype.name for k, v in fetch.items()},
        # (TF infers bincount's length by running its constant inputs in shape inference; tensorweave leaves it unknown)
        "shapes": {k: v.shape.as_list() for k, v in fetch.items() if k != "bincount"},
    }
    with tf.Session() as sess:
        out["values"] = sess.run(fetch)
    return out

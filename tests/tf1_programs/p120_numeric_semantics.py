"""The numeric details TF1 programs tripped over (and Stack Overflow answered): integer division and modulo of
negative numbers (tf.div, tf.floordiv, tf.truncatediv, tf.floormod, tf.truncatemod, // and %), tf.truediv of
ints giving float64, reduce_mean of an int tensor truncating, tf.round half to even, tf.cast float -> int
truncation and tf.saturate_cast, uint8 wrap-around, tf.range / tf.linspace dtypes, tf.to_int32 / tf.to_float,
tf.bitcast, tf.sign / tf.abs of ints, tf.pow of ints, tf.clip_by_value on ints, and the dtype each result has."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    a = tf.constant([7, -7, 7, -7])
    b = tf.constant([2, 2, -2, -2])
    f = tf.constant([2.5, 3.5, -2.5, 0.5, 1.5, -0.5])
    results = {
        "div": tf.div(a, b),
        "floordiv": tf.floordiv(a, b),
        "truncatediv": tf.truncatediv(a, b),
        "floormod": tf.floormod(a, b),
        "truncatemod": tf.truncatemod(a, b),
        "slashslash": a // b,
        "percent": a % b,
        "truediv": tf.truediv(a, b),
        "slash": a / b,
        "mean_int": tf.reduce_mean(tf.constant([1, 2, 2])),
        "mean_float": tf.reduce_mean(tf.constant([1.0, 2.0, 2.0])),
        "round": tf.round(f),
        "rint": tf.rint(f),
        "cast_trunc": tf.cast(tf.constant([1.9, -1.9, 2.5]), tf.int32),
        "saturate": tf.saturate_cast(tf.constant([-5.0, 300.0, 12.7]), tf.uint8),
        "uint8_wrap": tf.constant([250], tf.uint8) + tf.constant([10], tf.uint8),
        "range_float": tf.range(0.0, 1.0, 0.25),
        "range_int": tf.range(5),
        "linspace": tf.linspace(0.0, 1.0, 5),
        "to_int32": tf.to_int32(tf.constant([3.7, -3.7])),
        "to_float": tf.to_float(tf.constant([1, 2])),
        "bitcast": tf.bitcast(tf.constant([1.0], tf.float32), tf.int32),
        "sign": tf.sign(tf.constant([-3, 0, 4])),
        "abs": tf.abs(tf.constant([-3, 0, 4], tf.int64)),
        "pow_int": tf.pow(tf.constant([2, 3]), tf.constant([3, 2])),
        "clip_int": tf.clip_by_value(tf.constant([-5, 0, 9]), -2, 4),
        "argmax_dtype": tf.argmax(tf.constant([[1.0, 3.0]]), 1),
        "size_dtype": tf.size(a),
        "shape_int64": tf.shape(a, out_type=tf.int64),
        "count_nonzero": tf.count_nonzero(tf.constant([0.0, 1.0, 2.0])),
        "maximum_mixed": tf.maximum(tf.constant([1.0, 5.0]), 2.0),
        "squared_difference": tf.squared_difference(tf.constant([1, 5]), tf.constant([3, 2])),
        "log1p_expm1": tf.stack([tf.log1p(1e-8), tf.expm1(1e-8)]),
    }
    out = {"dtypes": {k: v.dtype.name for k, v in results.items()}}
    with tf.Session() as sess:
        values = sess.run(results)
    out["values"] = {k: np.asarray(v) for k, v in values.items()}
    try:
        tf.constant([1, 2]) / tf.constant([1.0, 2.0])
    except TypeError:
        out["mixed_div"] = "TypeError"
    try:
        tf.add(tf.constant(1, tf.int64), tf.constant(1, tf.int32))
    except (TypeError, ValueError) as e:
        out["mixed_add"] = type(e).__name__
    with tf.Session() as sess:
        try:
            sess.run(tf.floordiv(tf.constant([1]), tf.constant([0])))
        except tf.errors.InvalidArgumentError as e:
            out["int_div_zero"] = ["InvalidArgumentError", "Integer division by zero" in e.message]
        out["float_div_zero"] = sess.run(tf.constant([1.0, -1.0, 0.0]) / 0.0)
    return out

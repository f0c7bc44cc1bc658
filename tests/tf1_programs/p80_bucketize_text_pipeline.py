"""A feature_column-free preprocessing graph: numeric bucketing with tf.searchsorted and math_ops' Bucketize
(tf.raw_ops-free: the boundaries through tf.searchsorted side="right"), hashing with tf.string_to_hash_bucket_fast,
and a text pipeline of tf.string_split, tf.substr, tf.regex_replace, tf.as_string (precision, width), tf.strings.
to_number / tf.string_to_number, tf.reduce_join over axes, tf.strings.length with unit, and tf.string_join."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    ages = tf.placeholder(tf.float32, [None], name="ages")
    boundaries = [18.0, 25.0, 40.0, 65.0]
    left = tf.searchsorted(tf.constant(boundaries), ages, side="left")
    right = tf.searchsorted(tf.constant(boundaries), ages, side="right")
    one_hot = tf.one_hot(right, len(boundaries) + 1)
    lines = tf.placeholder(tf.string, [None], name="lines")
    cleaned = tf.regex_replace(tf.strings.lower(lines), "[^a-z0-9 ]", "")
    cleaned = tf.regex_replace(cleaned, " +", " ")
    words = tf.string_split(cleaned, delimiter=" ")
    dense_words = tf.sparse_tensor_to_dense(words, default_value="<pad>")
    prefixes = tf.substr(dense_words, 0, 3)
    hashed = tf.string_to_hash_bucket_fast(dense_words, 50)
    numbers = tf.placeholder(tf.string, [None])
    parsed = tf.string_to_number(numbers, out_type=tf.float32)
    formatted = tf.as_string(parsed, precision=2, width=8)
    ints = tf.as_string(tf.cast(parsed, tf.int64), width=4, fill="0")
    joined_rows = tf.reduce_join(dense_words, axis=1, separator="|")
    joined_all = tf.reduce_join(prefixes, separator=",")
    lengths = tf.strings.length(lines)
    tagged = tf.string_join(["<", lines, ">"], separator="")
    out = {
        "shapes": [
            left.shape.as_list(),
            one_hot.shape.as_list(),
            dense_words.shape.as_list(),
            joined_rows.shape.as_list(),
        ],
        "dtypes": [left.dtype.name, hashed.dtype.name, lengths.dtype.name],
    }
    feed = {
        ages: [3.0, 18.0, 24.9, 25.0, 64.0, 70.0],
        lines: ["Hello, World!  TF is fun", "A  b-c D", "numbers 42 and 7"],
        numbers: ["3.14159", "-2", "1e3", "0.005"],
    }
    with tf.Session() as sess:
        res = sess.run(
            [
                left,
                right,
                one_hot,
                dense_words,
                prefixes,
                hashed,
                parsed,
                formatted,
                ints,
                joined_rows,
                joined_all,
                lengths,
                tagged,
                words.indices,
            ],
            feed,
        )
        out["values"] = [r.tolist() if isinstance(r, np.ndarray) else r for r in res]
        try:
            sess.run(tf.string_to_number(["1.5", "abc"]))
            out["bad_number"] = None
        except tf.errors.InvalidArgumentError as e:
            out["bad_number"] = ["InvalidArgumentError", "abc" in e.message]
    return out

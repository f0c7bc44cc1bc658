"""String tensors as TF1 input and logging code used them: paths built with + on string tensors and
tf.string_join, tf.strings.format of tensors into a message, tf.as_string with precision, tf.strings.to_number
(out_type), tf.string_split with skip_empty and a delimiter set, tf.strings.split(sep, maxsplit) into a ragged /
sparse result, tf.substr with unit="UTF8_CHAR", tf.strings.length(unit=), tf.strings.unicode_script-free
tf.strings.regex_full_match, tf.reduce_join over an axis with a separator, tf.strings.strip / lower / upper,
tf.equal on strings, and the error when adding a string to a float."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    base = tf.constant("/data/images")
    names = tf.constant(["cat_01.png", "dog_02.png", " bird_3.jpg "])
    paths = base + "/" + names
    joined = tf.string_join([base, names], separator="/")
    steps = tf.constant([3, 14])
    losses = tf.constant([0.12345, 2.5])
    msg = tf.strings.format("step {} loss {}", (steps[0], losses[0]))
    fmt = tf.as_string(losses, precision=2)
    widths = tf.as_string(steps, width=4, fill="0")
    numbers = tf.strings.to_number(tf.constant(["1.5", "-2", "3e2"]), out_type=tf.float32)
    ints = tf.strings.to_number(tf.constant(["7", "-8"]), out_type=tf.int64)
    lines = tf.constant(["a,b,,c", "d", ""])
    split_keep = tf.string_split(lines, delimiter=",", skip_empty=False)
    split_skip = tf.string_split(lines, delimiter=",")
    split_max = tf.strings.split(tf.constant(["a b c d", "e f"]), sep=" ", maxsplit=1)
    utf = tf.constant(["héllo", "wörld!"])
    sub = tf.substr(utf, 1, 3, unit="UTF8_CHAR")
    sub_bytes = tf.substr(tf.constant(["hello", "world"]), 1, 3)
    lengths = [tf.strings.length(utf), tf.strings.length(utf, unit="UTF8_CHAR")]
    match = tf.strings.regex_full_match(names, r"\s*[a-z]+_\d+\.png\s*")
    grid = tf.constant([["a", "b"], ["c", "d"]])
    reduced = [tf.reduce_join(grid, axis=0), tf.reduce_join(grid, axis=1, separator="-"), tf.reduce_join(grid)]
    cleaned = tf.strings.upper(tf.strings.strip(names))
    same = tf.equal(tf.strings.lower(cleaned), tf.strings.strip(names))
    out["static"] = [paths.shape.as_list(), paths.dtype.name, msg.shape.as_list(), split_max.__class__.__name__]
    with tf.Session() as sess:
        (out["paths"], out["joined"], out["msg"], out["fmt"], out["widths"], out["numbers"], out["ints"]) = sess.run(
            [paths, joined, msg, fmt, widths, numbers, ints]
        )
        sk, ss = sess.run([split_keep, split_skip])
        out["split_keep"] = [sk.indices, sk.values, sk.dense_shape]
        out["split_skip"] = [ss.indices, ss.values, ss.dense_shape]
        sm = sess.run(split_max)
        out["split_max"] = [np.asarray(getattr(sm, "values", getattr(sm, "flat_values", sm)))]
        out["sub"], out["sub_bytes"], out["lengths"], out["match"] = sess.run([sub, sub_bytes, lengths, match])
        out["reduced"], out["cleaned"], out["same"] = sess.run([reduced, cleaned, same])
        try:
            sess.run(tf.strings.to_number(tf.constant(["abc"])))
        except tf.errors.InvalidArgumentError as e:
            out["bad_number"] = [
                "InvalidArgumentError",
                "StringToNumberOp could not correctly convert string: abc" in e.message,
            ]
    try:
        tf.constant("a") + tf.constant(1.0)
    except (TypeError, ValueError) as e:
        out["str_plus_float"] = type(e).__name__
    return out

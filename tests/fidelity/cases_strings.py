"""String ops against TensorFlow 1: values (bytes), static shapes, SparseTensor results of the splits, TF's
Fingerprint64 hash buckets over every length class of FarmHash, number parsing and formatting, regular
expressions, and the errors of bad input."""

import numpy as np

from tests.fidelity.harness import case

# Lengths 0..130 cover each branch of Fingerprint64 (0-3, 4-7, 8-16, 17-32, 33-64, the 64-byte loop).
_HASH_INPUTS = ["".join(chr(97 + (i * 7 + j) % 26) for j in range(n)) for i, n in enumerate(range(131))]


@case
def join_and_static_shapes(tf, sess):
    a = tf.string_join([["a", "b"], "x", tf.constant(["1", "2"])], separator="-")
    b = tf.strings.join(["p", "q"])
    return [a, a.shape, a.dtype, b, b.shape]


@case
def string_split_sparse(tf, sess):
    sp = tf.string_split(["a b  c", "d", ""])
    chars = tf.string_split(["abc", "de"], delimiter="")
    keep = tf.string_split(["a,,b"], sep=",", skip_empty=False)
    multi = tf.string_split(["a-b_c"], "-_")
    return [sp, sp.indices.shape, sp.values.shape, sp.dense_shape.shape, chars, keep, multi]


@case
def strings_split_v1(tf, sess):
    return [
        tf.strings.split(["a,,b", "", "c"], sep=","),
        tf.strings.split([" a  b ", "c d e"]),
        tf.strings.split([" a  b ", "c d e"], maxsplit=1),
        tf.strings.split(["a<>b<>c"], sep="<>", maxsplit=1),
        tf.strings.split("x y"),
    ]


@case
def substr_values(tf, sess):
    s = tf.constant(["hello", "world"])
    return [
        tf.substr(s, 1, 3),
        tf.substr(s, [1, -2], [3, 5]),
        tf.strings.substr(s, 5, 1),
        tf.substr([["ab"], ["cd"]], [[0, 1]], [[1, 1]]),
        tf.strings.substr(["héllo"], 1, 2, unit="UTF8_CHAR"),
        tf.substr(s, 1, 3).shape,
    ]


@case
def to_number(tf, sess):
    return [
        tf.string_to_number(["1.5", " -2 ", "1e3", "inf"]),
        tf.strings.to_number(["7", "-12"], out_type=tf.int64),
        tf.string_to_number(["3"], tf.int32),
        tf.string_to_number(["0.25"], out_type=tf.float64),
    ]


@case
def hash_bucket_fast(tf, sess):
    return [
        tf.string_to_hash_bucket_fast(_HASH_INPUTS, 2**62),
        tf.strings.to_hash_bucket_fast(["a", "hello", ""], 10),
        tf.string_to_hash_bucket_fast([["x", "y"]], 3).shape,
        tf.string_to_hash_bucket_strong(_HASH_INPUTS, 2**62, [123456789, 987654321]),
        tf.strings.to_hash_bucket_strong(["a", "b"], 97, [-1, 2**62]),
        _error(lambda: tf.string_to_hash_bucket_strong(["a"], 10, [1])),
    ]


@case
def as_string_formats(tf, sess):
    f = tf.constant([1.5, -0.125, 1234567.0])
    return [
        tf.as_string(f),
        tf.as_string(f, precision=2),
        tf.as_string(f, scientific=True),
        tf.as_string(f, shortest=True),
        tf.as_string(f, width=12, precision=1),
        tf.as_string([7, -3], width=4, fill="0"),
        tf.as_string(tf.constant([5], tf.int64)),
        tf.as_string([True, False]),
        tf.strings.as_string(tf.constant([2.5], tf.float64)),
    ]


@case
def regex(tf, sess):
    s = tf.constant(["a1b22", "none", "x9"])
    return [
        tf.regex_replace(s, "[0-9]+", "#"),
        tf.strings.regex_replace(s, "([a-z])([0-9])", r"\2\1"),
        tf.regex_replace(s, "[0-9]", "", replace_global=False),
        tf.strings.regex_full_match(s, "[a-z][0-9]+[a-z]?[0-9]*"),
        tf.strings.regex_full_match(["ab", "abc"], "a."),
        tf.regex_replace(s, "[0-9]+", "#").shape,
    ]


@case
def length_case_strip(tf, sess):
    return [
        tf.strings.length(["", "abc", "héllo"]),
        tf.strings.length(["", "abc", "héllo"], unit="UTF8_CHAR"),
        tf.strings.lower(["AbC", "ÀB"]),
        tf.strings.upper(["aBc"]),
        tf.string_strip(["  a b \n", "\tc"]),
        tf.strings.strip("  x "),
    ]


@case
def reduce_join_values(tf, sess):
    x = tf.constant([["a", "b"], ["c", "d"]])
    y = tf.constant([[["a", "b", "c"], ["d", "e", "f"]]])
    r0 = tf.reduce_join(x, 0)
    return [
        r0,
        r0.shape,
        tf.reduce_join(x, 1),
        tf.reduce_join(x, -1, keep_dims=True),
        tf.reduce_join(x, [0, 1]),
        tf.reduce_join(x, [1, 0]),
        tf.reduce_join(x),
        tf.reduce_join(x, []),
        tf.reduce_join(x, 0, separator="."),
        tf.strings.reduce_join(y, [2, 1], separator="|"),
        tf.strings.reduce_join(y, axis=1, keepdims=True).shape,
    ]


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is the observation
        for cls in type(e).__mro__:
            if cls.__name__.endswith("Error"):
                return cls.__name__
        return type(e).__name__
    return "no error"


@case
def errors(tf, sess):
    return [
        _error(lambda: sess.run(tf.string_to_number(["abc"]))),
        _error(lambda: sess.run(tf.string_to_number(["99999999999"], tf.int32))),
        _error(lambda: sess.run(tf.substr(["abc"], 5, 1))),
        _error(lambda: sess.run(tf.string_join([["a", "b"], ["c", "d", "e"]]))),
        _error(lambda: sess.run(tf.regex_replace(["a"], "(", "x"))),
        _error(lambda: tf.reduce_join([["a"]], 2)),
        _error(lambda: sess.run(tf.string_split([["a b"]]))),
        _error(lambda: tf.as_string([1], precision=2)),
        _error(lambda: tf.string_to_hash_bucket_fast(["a"], 0)),
        _error(lambda: tf.string_join([1, "a"])),
        _error(lambda: tf.gradients(tf.string_to_number(tf.as_string(tf.constant(1.0))), [])),
    ]

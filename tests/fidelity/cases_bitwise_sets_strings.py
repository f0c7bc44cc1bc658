"""tf.bitwise, tf.sets and the newer string ops (format, ngrams, unsorted_segment_join, to_hash_bucket,
fingerprint, unicode_transcode, unicode_encode) against TensorFlow 1: values, dtypes, static shapes and the
error classes of bad input, including out-of-range shift counts, ill-formed UTF-8/16/32 and hash values over
every length class of the hashes."""

import numpy as np

from tests.fidelity.harness import case

_INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
# Lengths 0..130 cover each branch of FarmHash64 and of the legacy Hash64's 8-byte loop and tail.
_HASH_INPUTS = ["".join(chr(33 + (i * 11 + j * 7) % 94) for j in range(n)) for i, n in enumerate(range(131))]


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
def bitwise_binary_all_dtypes(tf, sess):
    out = []
    for name in _INT_DTYPES:
        dt = getattr(tf, name)
        info = np.iinfo(name)
        x = tf.constant(np.array([0, 1, 5, info.max, info.min, 77 % (int(info.max) + 1)], dtype=name), dt)
        y = tf.constant(np.array([3, 6, 0, 1, info.max, 12], dtype=name), dt)
        for fn in (tf.bitwise.bitwise_and, tf.bitwise.bitwise_or, tf.bitwise.bitwise_xor):
            r = fn(x, y)
            out += [r, r.dtype]
        out.append(tf.bitwise.invert(x))
    return out


@case
def bitwise_broadcasting_and_shapes(tf, sess):
    a = tf.constant([[1, 2, 3], [4, 5, 6]], tf.int32)
    b = tf.constant([[7], [8]], tf.int32)
    p = tf.placeholder(tf.int64, [None, 1])
    r = tf.bitwise.bitwise_or(p, tf.constant([1, 2, 4], tf.int64))
    return [
        tf.bitwise.bitwise_and(a, b),
        tf.bitwise.bitwise_xor(a, 6),
        tf.bitwise.left_shift(a, [0, 1, 2]),
        r.shape,
        sess.run(r, {p: [[8], [16]]}),
        tf.bitwise.invert(tf.constant(np.zeros([0, 3], np.uint16))).shape,
    ]


@case
def shifts_out_of_range_counts(tf, sess):
    out = []
    for name in _INT_DTYPES:
        dt = getattr(tf, name)
        bits = np.iinfo(name).bits
        x = np.array([1, 3, np.iinfo(name).max, np.iinfo(name).min, 100, 5], dtype=name)
        if np.iinfo(name).min < 0:
            x[3] = np.iinfo(name).min
            y = np.array([0, bits - 1, bits, bits + 5, -1, np.iinfo(name).min], dtype=name)
        else:
            y = np.array([0, bits - 1, bits, bits + 5, np.iinfo(name).max, 1], dtype=name)
        out.append(tf.bitwise.left_shift(tf.constant(x, dt), tf.constant(y, dt)))
        out.append(tf.bitwise.right_shift(tf.constant(x, dt), tf.constant(y, dt)))
    out.append(tf.bitwise.right_shift(tf.constant([-100, -1, 100], tf.int32), [3, 40, 2]))
    return out


@case
def bitwise_errors(tf, sess):
    return [
        _error(lambda: tf.bitwise.bitwise_and(tf.constant([1.0]), tf.constant([2.0]))),
        _error(lambda: tf.bitwise.invert(tf.constant([True]))),
        _error(lambda: tf.bitwise.left_shift(tf.constant([1, 2], tf.int32), tf.constant([1, 2, 3], tf.int32))),
        _error(lambda: tf.bitwise.bitwise_or(tf.constant([1], tf.int32), tf.constant([1], tf.int64))),
        _error(lambda: tf.gradients(tf.bitwise.bitwise_and(tf.constant([1]), 3), [])),
    ]


@case
def sets_dense_dense(tf, sess):
    a = tf.constant([[1, 2, 2, 0], [3, 4, 5, 0]])
    b = tf.constant([[2, 0, 7], [9, 9, 9]])
    inter = tf.sets.intersection(a, b)
    return [
        inter,
        inter.indices.shape,
        inter.values.dtype,
        tf.sets.union(a, b),
        tf.sets.difference(a, b),
        tf.sets.difference(a, b, aminusb=False),
        tf.sets.set_union(tf.constant([[["a", ""]], [["c", "c"]]]), tf.constant([[["b"]], [["c"]]])),
        tf.sets.set_intersection(tf.constant(np.zeros([2, 0], np.int64)), tf.constant(np.zeros([2, 3], np.int64))),
        tf.sets.union(tf.constant([[5, 3]], tf.uint8), tf.constant([[3]], tf.uint8)),
    ]


@case
def sets_sparse(tf, sess):
    sp = tf.SparseTensor([[0, 0], [0, 1], [2, 0], [2, 3]], [2, 5, 1, 1], [3, 4])
    sp2 = tf.SparseTensor([[0, 0], [1, 1]], [5, 6], [3, 2])
    dense = tf.constant([[2, 3], [6, 6], [0, 1]])
    return [
        tf.sets.size(sp),
        tf.sets.set_size(sp).dtype,
        tf.sets.intersection(sp, sp2),
        tf.sets.union(sp, sp2),
        tf.sets.difference(sp, sp2),
        tf.sets.difference(sp, dense),
        tf.sets.difference(dense, sp),
        tf.sets.union(dense, sp2),
        tf.sets.intersection(sp, dense),
        tf.sets.size(tf.SparseTensor([[1, 0], [0, 0]], ["x", "y"], [3, 4]), validate_indices=False),
        tf.sets.size(tf.SparseTensor([[0, 0, 1], [0, 0, 2], [1, 1, 0]], [1, 1, 1], [2, 2, 3])),
    ]


@case
def sets_errors(tf, sess):
    a = tf.constant([[1, 2]])
    return [
        _error(lambda: tf.sets.size(tf.constant([[1]]))),
        _error(lambda: tf.sets.union(tf.constant([[1.0]]), tf.constant([[1.0]]))),
        _error(lambda: tf.sets.union(a, tf.constant([[1]], tf.int64))),
        _error(lambda: tf.sets.union(tf.constant([1, 2]), tf.constant([2]))),
        _error(lambda: tf.sets.union(tf.constant([[1, 2], [3, 4]]), tf.constant([[1]]))),
        _error(lambda: tf.sets.union(tf.constant([[[1]]]), tf.constant([[1]]))),
        _error(lambda: sess.run(tf.sets.size(tf.SparseTensor([[1, 0], [0, 0]], [2, 5], [3, 4])))),
        _error(lambda: sess.run(tf.sets.size(tf.SparseTensor([[0, 0], [0, 0]], [2, 5], [3, 4])))),
        _error(lambda: sess.run(tf.sets.size(tf.SparseTensor([[0, 9]], [2], [3, 4])))),
        _error(lambda: sess.run(tf.sets.size(tf.SparseTensor([[0]], [2], [3])))),
        _error(
            lambda: sess.run(
                tf.sets.union(tf.SparseTensor([[0, 0]], [1], [3, 4]), tf.SparseTensor([[0, 0]], [1], [2, 4]))
            )
        ),
        _error(lambda: sess.run(tf.sets.union(tf.SparseTensor([[0, 0]], [1], [3, 4]), a))),
        _error(lambda: tf.gradients(tf.sets.union(a, a).values, [])),
    ]


@case
def string_format_tensors(tf, sess):
    return [
        tf.strings.format("{} and {}", [tf.constant([[1.0 / 3, 2], [3, 4]]), tf.constant([True, False])]),
        tf.strings.format("{}", [tf.constant(np.arange(30).reshape(2, 3, 5))]),
        tf.strings.format("{}", [tf.constant(np.arange(300).reshape(10, 30))], summarize=2),
        tf.strings.format("{}", [tf.constant(np.arange(10))], summarize=-1),
        tf.strings.format("<{}>", tf.constant(np.arange(10))),
        tf.strings.format("{}", [tf.constant(['a"b', "c\n", "\x01é"])]),
        tf.strings.format("{}", [tf.constant(np.array([0.1, 1e10, np.nan, -np.inf, 1e-7], np.float64))]),
        tf.strings.format("{}", [tf.constant(np.array([0.1, 6e4, -2.5], np.float16))]),
        tf.strings.format("{}", [tf.constant(np.array([-3, 4], np.int8))]),
        tf.strings.format("{}", [tf.constant(np.array([2**64 - 1], np.uint64))]),
        tf.strings.format("{}", [tf.constant(np.zeros([2, 0]))]),
        tf.strings.format("{}", [tf.constant(5)], summarize=0),
        tf.strings.format("{} {}", [tf.constant(5), tf.constant("s")]),
        tf.strings.format("%s|%s", [tf.constant(1), tf.constant(2)], placeholder="%s"),
        tf.strings.format("none", []),
        tf.strings.format("{}", [tf.constant(1)]).shape,
    ]


@case
def string_format_errors(tf, sess):
    return [
        _error(lambda: tf.strings.format("{} {}", [tf.constant(1)])),
        _error(lambda: tf.strings.format("{}", [tf.constant(1), tf.constant(2)])),
    ]


@case
def ngrams_dense(tf, sess):
    return [
        tf.strings.ngrams(["a", "b", "c"], 2),
        tf.strings.ngrams([["a", "b", "c"], ["d", "e", "f"]], [1, 3], separator="|", pad_values=("L", "R")),
        tf.strings.ngrams(["a", "b"], 4, pad_values="P", padding_width=1, preserve_short_sequences=True),
        tf.strings.ngrams(["a", "b"], 4, pad_values="P", padding_width=1),
        tf.strings.ngrams(["a"], 3, pad_values="P"),
        tf.strings.ngrams(["a", "b"], 5),
        tf.strings.ngrams(["a", "b"], 5, preserve_short_sequences=True),
        tf.strings.ngrams([[["a", "b"], ["c", "d"]]], 2, separator=""),
        tf.strings.ngrams(["x", "y", "z"], (2, 3), pad_values=("<", ">"), padding_width=2),
    ]


@case
def ngrams_errors(tf, sess):
    return [
        _error(lambda: tf.strings.ngrams(["a"], 0)),
        _error(lambda: tf.strings.ngrams(["a"], 2, padding_width=1)),
        _error(lambda: tf.strings.ngrams(["a"], 2, pad_values="x", padding_width=0)),
        _error(lambda: tf.strings.ngrams(["a"], 2, pad_values=3)),
        _error(lambda: tf.strings.ngrams("a", 2)),
    ]


@case
def unsorted_segment_join_values(tf, sess):
    r = tf.strings.unsorted_segment_join([["a", "b"], ["c", "d"], ["e", "f"]], [1, 0, 1], 3, separator=":")
    return [
        tf.strings.unsorted_segment_join(["a", "b", "c"], [1, 0, 1], 2, separator=","),
        r,
        r.shape,
        tf.strings.unsorted_segment_join([["a", "b"], ["c", "d"]], [[0, 1], [1, 1]], tf.constant(2, tf.int64)),
        _error(lambda: sess.run(tf.strings.unsorted_segment_join(["a", "b", "c"], [1, -1, 1], 3))),
        _error(lambda: sess.run(tf.strings.unsorted_segment_join(["a", "b", "c"], [1, 3, 1], 3))),
        _error(lambda: tf.strings.unsorted_segment_join([["a", "b"], ["c", "d"]], [1, 0], -1)),
    ]


@case
def string_to_hash_bucket_legacy(tf, sess):
    return [
        tf.strings.to_hash_bucket(_HASH_INPUTS, 1000003),
        tf.string_to_hash_bucket(_HASH_INPUTS, 7),
        tf.string_to_hash_bucket(["\xff\x00", "é", ""], 2**40),
        tf.string_to_hash_bucket(input=[["a", "b"]], num_buckets=10),
        _error(lambda: tf.string_to_hash_bucket(["a"], 0)),
    ]


@case
def fingerprint_values(tf, sess):
    return [
        tf.fingerprint(tf.constant(_HASH_INPUTS)),
        tf.fingerprint(tf.constant([["hello", "x"], ["", "yz"]])),
        tf.fingerprint(tf.constant([[1, 2]], tf.int32)),
        tf.fingerprint(tf.constant(np.arange(24, dtype=np.float64).reshape(2, 3, 4))),
        tf.fingerprint(tf.constant(np.zeros([3, 0], np.float32))),
        tf.fingerprint(tf.constant([True, False])),
        tf.fingerprint(tf.constant(["a"])).shape,
        _error(lambda: tf.fingerprint(tf.constant(["a"]), method="x")),
        _error(lambda: tf.fingerprint(tf.constant("a"))),
    ]


_BAD = [
    b"a\xffb",
    b"\xe2\x82",
    b"\xe2\x82x",
    b"\xed\xa0\x80z",
    b"\xf4\x90\x80\x80",
    b"\xc0\xaf",
    b"\x01\x1fA\x7f",
    b"\xf0\x9f\x98\x80",
    b"\xf0\x9f\x98",
    b"\xe0\x80\x80",
    b"\x80\x80",
    b"",
]


@case
def unicode_transcode_utf8(tf, sess):
    return [
        tf.strings.unicode_transcode(_BAD, "UTF-8", "UTF-8"),
        tf.strings.unicode_transcode(_BAD, "UTF-8", "UTF-8", errors="ignore"),
        tf.strings.unicode_transcode(_BAD, "UTF-8", "UTF-8", replace_control_characters=True),
        tf.strings.unicode_transcode(_BAD, "UTF-8", "UTF-16-BE", replacement_char=63),
        tf.strings.unicode_transcode(_BAD, "UTF-8", "UTF-32-BE"),
        tf.strings.unicode_transcode([["héllo", "ok"]], "UTF-8", "UTF-16-BE"),
        _error(lambda: sess.run(tf.strings.unicode_transcode(_BAD, "UTF-8", "UTF-8", errors="strict"))),
        tf.strings.unicode_transcode(["ok"], "UTF-8", "UTF-8", errors="strict"),
    ]


@case
def unicode_transcode_utf16_utf32(tf, sess):
    u16 = [b"\x00a\xd8\x00\x00b\x00", b"\xd8=\xde\x00", b"\xdc\x00", b"\x00"]
    u32 = [b"\x00\x00\x00a\x00\x11\x00\x00\x00", b"\x00\x01\xf6\x00", b"\x00\x00\xd8\x00"]
    return [
        tf.strings.unicode_transcode(u16, "UTF-16-BE", "UTF-8"),
        tf.strings.unicode_transcode(u16, "UTF-16-BE", "UTF-32-BE", errors="ignore"),
        tf.strings.unicode_transcode(u32, "UTF-32-BE", "UTF-8"),
        tf.strings.unicode_transcode(u32, "UTF-32-BE", "UTF-16-BE", replacement_char=42),
        tf.strings.unicode_transcode(["ab"], "UTF-8", "UTF-8", replacement_char=0xD800),
        _error(lambda: sess.run(tf.strings.unicode_transcode([b"a\xff"], "UTF-8", "UTF-8", replacement_char=-1))),
    ]


@case
def unicode_encode_dense(tf, sess):
    cps = tf.constant([[104, -1, 0xD800, 0x110000, 0x10FFFF]])
    return [
        tf.strings.unicode_encode(cps, "UTF-8"),
        tf.strings.unicode_encode(cps, "UTF-16-BE", errors="ignore"),
        tf.strings.unicode_encode(cps, "UTF-32-BE", replacement_char=65),
        tf.strings.unicode_encode(tf.constant([104, 105]), "UTF-16-BE"),
        tf.strings.unicode_encode(tf.constant([[[72, 233], [0x1F600, 33]]]), "UTF-8"),
        tf.strings.unicode_encode(tf.constant(np.zeros([2, 0], np.int32)), "UTF-8"),
        tf.strings.unicode_encode(tf.constant([[104]]), "UTF-8").shape,
        _error(lambda: sess.run(tf.strings.unicode_encode(tf.constant([[104, -1]]), "UTF-8", errors="strict"))),
        _error(lambda: sess.run(tf.strings.unicode_encode(tf.constant([[104, 1]]), "UTF-8", replacement_char=-5))),
        _error(lambda: tf.strings.unicode_encode(tf.constant(5), "UTF-8")),
    ]

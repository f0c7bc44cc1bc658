"""Unicode text handling as TF 1.13-1.15 NLP input code did it (before tf.text): tf.strings.unicode_decode and
unicode_split of UTF-8 sentences into code points / characters (ragged, converted with to_tensor / to_sparse),
tf.strings.unicode_encode back, tf.strings.length(unit="UTF8_CHAR") against byte length, tf.strings.substr with
unit="UTF8_CHAR", tf.strings.unicode_transcode to UTF-16-BE, tf.strings.ngrams over split words, character
n-gram hashing with tf.strings.to_hash_bucket_fast and to_hash_bucket_strong, tf.strings.reduce_join with a
separator, and the error for invalid UTF-8 with errors="strict"."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    sentences = tf.constant(["héllo wörld", "naïve café", "日本語"])
    codepoints = tf.strings.unicode_decode(sentences, "UTF-8")
    chars = tf.strings.unicode_split(sentences, "UTF-8")
    dense = codepoints.to_tensor(default_value=-1)
    sparse = chars.to_sparse()
    encoded = tf.strings.unicode_encode(codepoints, "UTF-8")
    lengths = [tf.strings.length(sentences), tf.strings.length(sentences, unit="UTF8_CHAR")]
    sub = tf.strings.substr(sentences, 1, 3, unit="UTF8_CHAR")
    utf16 = tf.strings.unicode_transcode(sentences, "UTF-8", "UTF-16-BE")
    words = tf.strings.split(sentences, result_type="RaggedTensor")
    bigrams = tf.strings.ngrams(words, 2, separator="_")
    fast = tf.strings.to_hash_bucket_fast(chars.flat_values, 1000)
    strong = tf.strings.to_hash_bucket_strong(chars.flat_values, 1000, key=[1, 2])
    joined = tf.strings.reduce_join(chars, axis=1, separator="|")
    bad = tf.strings.unicode_decode(tf.constant([b"ok\xff"]), "UTF-8", errors="strict")
    replaced = tf.strings.unicode_decode(tf.constant([b"ok\xff"]), "UTF-8", errors="replace", replacement_char=63)
    out["types"] = [type(codepoints).__name__, codepoints.dtype.name, str(codepoints.shape)]
    with tf.Session() as sess:
        res = sess.run([dense, encoded, lengths, sub, utf16, fast, strong, joined])
        out["dense"], out["encoded"], out["lengths"], out["sub"] = res[:4]
        out["utf16"], out["fast"], out["strong"], out["joined"] = res[4:]
        sp = sess.run(sparse)
        out["sparse"] = [sp.indices, sp.values, sp.dense_shape]
        bg = sess.run(bigrams)
        out["bigrams"] = [bg.flat_values if hasattr(bg, "flat_values") else bg.values, np.asarray(bg.row_splits)]
        out["replaced"] = sess.run(replaced.flat_values)
        try:
            sess.run(bad.flat_values)
            out["strict"] = None
        except tf.errors.InvalidArgumentError as e:
            out["strict"] = [
                "InvalidArgumentError",
                "Invalid formatting" in e.message or "invalid" in e.message.lower(),
            ]
    return out

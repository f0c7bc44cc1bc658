"""Vocabulary lookups as text-classification pipelines wrote them with TF 1.13+'s tf.lookup: StaticVocabularyTable
(num_oov_buckets hashed), StaticHashTable with a KeyValueTensorInitializer (string -> int64 with a default,
int64 -> string, string -> float), TextFileInitializer over a vocab file (WHOLE_LINE -> LINE_NUMBER and the
reverse, and a tab-separated file's columns), tables_initializer, table.size(), key_dtype / value_dtype, lookups
of a SparseTensor from string_split, and the errors: a lookup before initialization and a key dtype mismatch."""

import os


def main(tf, workdir):
    tf.reset_default_graph()
    vocab_path = os.path.join(workdir, "vocab.txt")
    with open(vocab_path, "w") as f:
        f.write("<pad>\nthe\ncat\nsat\non\nmat\n")
    pairs_path = os.path.join(workdir, "pairs.tsv")
    with open(pairs_path, "w") as f:
        f.write("apple\t3\nbanana\t7\ncherry\t11\n")
    words = tf.constant(["the", "cat", "sat", "on", "the", "rug", "dog"])
    keys = tf.constant(["the", "cat", "sat"])
    ids = tf.range(3, dtype=tf.int64)
    vocab = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(keys, ids), num_oov_buckets=2)
    plain = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(keys, ids), default_value=-7)
    index = tf.lookup.TextFileIndex
    from_file = tf.lookup.StaticHashTable(
        tf.lookup.TextFileInitializer(vocab_path, tf.string, index.WHOLE_LINE, tf.int64, index.LINE_NUMBER), -1
    )
    to_word = tf.lookup.StaticHashTable(
        tf.lookup.TextFileInitializer(vocab_path, tf.int64, index.LINE_NUMBER, tf.string, index.WHOLE_LINE), "UNK"
    )
    kv = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(tf.constant([1, 5, 9], tf.int64), ["one", "five", "nine"]), "none"
    )
    kv_float = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["x", "y"], [0.5, 1.5]), -1.0)
    columns = tf.lookup.StaticHashTable(
        tf.lookup.TextFileInitializer(pairs_path, tf.string, 0, tf.int64, 1, delimiter="\t"), -1
    )
    sentences = tf.constant(["the cat sat", "on the mat now"])
    sparse_ids = from_file.lookup(tf.string_split(sentences))
    fetch = {
        "vocab": vocab.lookup(words),
        "plain": plain.lookup(words),
        "from_file": from_file.lookup(words),
        "to_word": to_word.lookup(tf.constant([1, 5, 8], tf.int64)),
        "kv": kv.lookup(tf.constant([5, 2, 9], tf.int64)),
        "kv_float": kv_float.lookup(tf.constant(["y", "z"])),
        "columns": columns.lookup(tf.constant(["banana", "kiwi", "cherry"])),
        "sizes": [vocab.size(), plain.size(), from_file.size(), kv.size(), columns.size()],
        "dense_ids": tf.sparse_tensor_to_dense(sparse_ids, default_value=-2),
    }
    out = {
        "dtypes": [t.key_dtype.name + "->" + t.value_dtype.name for t in (vocab, to_word, kv_float, columns)],
        "lookup_dtype": vocab.lookup(words).dtype.name,
    }
    with tf.Session() as sess:
        try:
            sess.run(plain.lookup(words))
            out["uninitialized"] = None
        except tf.errors.FailedPreconditionError as e:
            out["uninitialized"] = type(e).__name__
        sess.run(tf.tables_initializer())
        out.update(sess.run(fetch))
        out["sparse_ids"] = sess.run(sparse_ids).values
    try:
        kv.lookup(tf.constant(["a"]))
        out["dtype_error"] = None
    except (TypeError, ValueError) as e:
        out["dtype_error"] = type(e).__name__
    return out

"""Vocabulary lookup tables as TF1 text models used them (tf.contrib.lookup's successors in tf.lookup):
a StaticHashTable from a KeyValueTensorInitializer (string -> int64 with a default), a vocabulary file read
by TextFileInitializer (whole line -> line number), StaticVocabularyTable with out-of-vocabulary buckets, the
reverse id -> word table, tf.tables_initializer, lookups of dense tensors inside a tf.data map, table sizes,
and the error when a table is used before initialization."""

import os


def main(tf, workdir):
    tf.reset_default_graph()
    words = ["<pad>", "<unk>", "the", "cat", "sat", "on", "mat"]
    vocab_file = os.path.join(workdir, "vocab.txt")
    with open(vocab_file, "w") as f:
        f.write("\n".join(words) + "\n")
    keys = tf.constant(words)
    ids = tf.range(len(words), dtype=tf.int64)
    table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(keys, ids), default_value=1)
    file_table = tf.lookup.StaticHashTable(
        tf.lookup.TextFileInitializer(
            vocab_file, tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER
        ),
        -1,
    )
    oov_table = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(keys, ids), num_oov_buckets=3)
    rev = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(ids, keys), default_value="<unk>")
    sentence = tf.placeholder(tf.string, [None])
    looked = table.lookup(sentence)
    looked_file = file_table.lookup(sentence)
    looked_oov = oov_table.lookup(sentence)
    back = rev.lookup(looked)
    lines = ["the cat sat", "on the mat", "the dog ran far"]
    ds = tf.data.Dataset.from_tensor_slices(lines)
    ds = ds.map(lambda s: tf.string_split([s]).values)
    ds = ds.map(lambda toks: (toks, table.lookup(toks)))
    ds = ds.padded_batch(2, padded_shapes=([None], [None]), padding_values=("<pad>", tf.constant(0, tf.int64)))
    it = ds.make_initializable_iterator()
    toks, tok_ids = it.get_next()
    out = {
        "dtypes": [t.dtype.name for t in (looked, looked_file, looked_oov, back)],
        "shapes": [t.shape.as_list() for t in (looked, back, toks, tok_ids)],
    }
    with tf.Session() as sess:
        try:
            sess.run(looked, {sentence: ["the"]})
        except tf.errors.FailedPreconditionError as e:
            out["uninit"] = ("FailedPreconditionError", "Table not initialized" in e.message)
        sess.run(tf.tables_initializer())
        feed = {sentence: ["the", "cat", "dog", "mat", "zebra", ""]}
        out["lookup"] = sess.run(looked, feed)
        out["file_lookup"] = sess.run(looked_file, feed)
        oov = sess.run(looked_oov, feed)
        out["in_vocab"] = oov[[0, 1, 3]]
        out["oov_in_range"] = bool(((oov[[2, 4, 5]] >= 7) & (oov[[2, 4, 5]] < 10)).all())
        out["back"] = sess.run(back, feed)
        out["sizes"] = sess.run([table.size(), file_table.size(), oov_table.size()])
        sess.run(it.initializer)
        out["batches"] = []
        while True:
            try:
                out["batches"].append(sess.run([toks, tok_ids]))
            except tf.errors.OutOfRangeError:
                break
        try:
            sess.run(table.lookup(tf.constant([1, 2], tf.int64)))
        except (TypeError, ValueError, tf.errors.InvalidArgumentError) as e:
            out["wrong_key_dtype"] = type(e).__name__
    return out

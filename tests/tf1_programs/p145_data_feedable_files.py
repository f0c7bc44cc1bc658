"""tf.data input as TF 1.4-1.15 programs switched between sources: make_initializable_iterator over placeholders
(features and a batch size fed at initialization), a feedable iterator (tf.data.Iterator.from_string_handle with
the train / validation iterators' string_handle()), TextLineDataset over two files with skip(1) and filter of
comments, FixedLengthRecordDataset of binary records (header_bytes, record_bytes) decoded with tf.decode_raw,
TFRecordDataset of GZIP-compressed records written with TFRecordOptions(GZIP), Dataset.range / zip / concatenate /
take / skip / enumerate-free zip with range, prefetch, the output_types / output_shapes / output_classes of
each, and OutOfRangeError at the end."""

import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    features = tf.placeholder(tf.float32, [None, 2])
    labels = tf.placeholder(tf.int64, [None])
    bs = tf.placeholder(tf.int64, [])
    ds = tf.data.Dataset.from_tensor_slices((features, labels)).batch(bs)
    it = ds.make_initializable_iterator()
    x, y = it.get_next()
    out["init_shapes"] = [x.shape.as_list(), y.shape.as_list()]
    xs = np.arange(14, dtype=np.float32).reshape(7, 2)
    ys = np.arange(7, dtype=np.int64)
    with tf.Session() as sess:
        sess.run(it.initializer, {features: xs, labels: ys, bs: 3})
        batches = []
        try:
            while True:
                batches.append(sess.run([x, y]))
        except tf.errors.OutOfRangeError:
            pass
        out["init_batches"] = batches
        sess.run(it.initializer, {features: xs[:2], labels: ys[:2], bs: 5})
        out["reinit"] = sess.run(y)

    # feedable iterator: train / validation by handle
    train_ds = tf.data.Dataset.range(100).map(lambda i: i * 2).repeat()
    val_ds = tf.data.Dataset.range(3).map(lambda i: -i)
    handle = tf.placeholder(tf.string, shape=[])
    iterator = tf.data.Iterator.from_string_handle(handle, train_ds.output_types, train_ds.output_shapes)
    nxt = iterator.get_next()
    train_it = train_ds.make_one_shot_iterator()
    val_it = val_ds.make_initializable_iterator()
    with tf.Session() as sess:
        th, vh = sess.run([train_it.string_handle(), val_it.string_handle()])
        out["handle_type"] = type(th).__name__
        seq = [sess.run(nxt, {handle: th}) for _ in range(3)]
        sess.run(val_it.initializer)
        seq += [sess.run(nxt, {handle: vh}) for _ in range(3)]
        seq += [sess.run(nxt, {handle: th})]
        try:
            sess.run(nxt, {handle: vh})
            seq.append("no error")
        except tf.errors.OutOfRangeError:
            seq.append("OutOfRangeError")
        out["feedable"] = seq

    # text files
    paths = []
    for k in range(2):
        p = os.path.join(workdir, "part-%d.csv" % k)
        with open(p, "w") as f:
            f.write("a,b\n# comment\n%d,%d\n%d,%d\n" % (k, 10 + k, k + 2, 20 + k))
        paths.append(p)
    lines = (
        tf.data.TextLineDataset(paths)
        .skip(1)
        .filter(lambda line: tf.logical_not(tf.strings.regex_full_match(line, "#.*")))
    )
    lines = tf.data.Dataset.from_tensor_slices(paths).flat_map(
        lambda p: tf.data.TextLineDataset(p).skip(1).filter(lambda line: tf.not_equal(tf.substr(line, 0, 1), "#"))
    )
    parsed = lines.map(lambda line: tf.decode_csv(line, [[0], [0]]))
    # fixed-length binary records
    rec_path = os.path.join(workdir, "data.bin")
    with open(rec_path, "wb") as f:
        f.write(b"HDR!")
        f.write(np.arange(12, dtype=np.int16).tobytes())
    fixed = tf.data.FixedLengthRecordDataset([rec_path], record_bytes=6, header_bytes=4).map(
        lambda r: tf.decode_raw(r, tf.int16)
    )
    # GZIP TFRecords
    gz_path = os.path.join(workdir, "data.tfrecord.gz")
    options = tf.python_io.TFRecordOptions(tf.python_io.TFRecordCompressionType.GZIP)
    with tf.python_io.TFRecordWriter(gz_path, options=options) as w:
        for i in range(3):
            w.write(("record-%d" % i).encode())
    gz = tf.data.TFRecordDataset(gz_path, compression_type="GZIP")
    out["gz_iter"] = list(tf.python_io.tf_record_iterator(gz_path, options=options))
    combo = (
        tf.data.Dataset.zip((tf.data.Dataset.range(10, 20, 3), gz))
        .concatenate(tf.data.Dataset.zip((tf.data.Dataset.range(2), tf.data.Dataset.from_tensors("x").repeat(2))))
        .take(4)
        .prefetch(2)
    )
    out["meta"] = [
        [str(t) for t in tf.nest.flatten(d.output_types)] + [str(s) for s in tf.nest.flatten(d.output_shapes)]
        for d in (lines, parsed, fixed, gz, combo)
    ]
    with tf.Session() as sess:
        for name, d in (("lines", lines), ("parsed", parsed), ("fixed", fixed), ("gz", gz), ("combo", combo)):
            nxt = d.make_one_shot_iterator().get_next()
            vals = []
            try:
                while True:
                    vals.append(sess.run(nxt))
            except tf.errors.OutOfRangeError:
                pass
            out[name] = vals
    return out

"""TF1's readers (TFRecordReader, TextLineReader, WholeFileReader, FixedLengthRecordReader, IdentityReader) over
files each case writes: keys, values, read_up_to at the ends of files, counters, reset, state, the errors
(missing file, corrupt record, closed queue, bad arguments) and the queue-runner pipeline
(string_input_producer -> reader -> batch / shuffle_batch) that TF1 programs use."""

import gzip
import os
import tempfile
import zlib

from tests.fidelity.harness import case


def _dir():
    return tempfile.mkdtemp(prefix="readers_")


def _rel(d, keys):
    """Keys without the temporary directory (the rest of the key is what is compared)."""
    if isinstance(keys, (bytes, str)):
        return (keys.decode() if isinstance(keys, bytes) else keys).replace(d, "<d>")
    return [_rel(d, k) for k in keys]


def _tfrecords(tf, path, records, options=None):
    with tf.io.TFRecordWriter(path, options) as w:
        for r in records:
            w.write(r)
    return path


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


def _queue(tf, sess, files, close=True):
    q = tf.FIFOQueue(10, tf.string)
    sess.run(q.enqueue_many([files]))
    if close:
        sess.run(q.close())
    return q


def _drain(tf, sess, d, fetch, limit=50):
    """Runs `fetch` until OutOfRange (recorded as "END") or another error (its class); keys made relative."""
    out = []
    for _ in range(limit):
        try:
            k, v = sess.run(fetch)
        except tf.errors.OutOfRangeError:
            out.append("END")
            return out
        except tf.errors.OpError as e:
            out.append(type(e).__name__)
            continue
        out.append((_rel(d, k), v))
    return out


@case
def readers_tfrecord_keys_values_across_files(tf, sess):
    d = _dir()
    a = _tfrecords(tf, os.path.join(d, "a.tfr"), [b"one", b"", b"three" * 50])
    e = _tfrecords(tf, os.path.join(d, "empty.tfr"), [])
    b = _tfrecords(tf, os.path.join(d, "b.tfr"), [b"x"])
    reader = tf.TFRecordReader()
    key, value = reader.read(_queue(tf, sess, [a, e, b]))
    out = _drain(tf, sess, d, (key, value))
    counts = sess.run([reader.num_records_produced(), reader.num_work_units_completed()])
    return out, counts, key.shape.as_list(), value.dtype.name, key.op.type, reader.reader_ref.op.type


@case
def readers_tfrecord_compressed(tf, sess):
    d = _dir()
    out = []
    for kind in ("GZIP", "ZLIB"):
        opts = tf.io.TFRecordOptions(kind)
        path = _tfrecords(tf, os.path.join(d, kind + ".tfr"), [b"a" * 100, b"bc"], opts)
        reader = tf.TFRecordReader(options=opts)
        out.append(_drain(tf, sess, d, reader.read(_queue(tf, sess, [path]))))
    gz = _tfrecords(tf, os.path.join(d, "c.tfr"), [b"q"], tf.io.TFRecordOptions(tf.io.TFRecordCompressionType.GZIP))
    reader = tf.TFRecordReader(options=tf.io.TFRecordCompressionType.GZIP)
    out.append(_drain(tf, sess, d, reader.read(_queue(tf, sess, [gz]))))
    return out


@case
def readers_read_up_to_stops_at_file_end(tf, sess):
    d = _dir()
    a = _tfrecords(tf, os.path.join(d, "a.tfr"), [b"a0", b"a1", b"a2"])
    e = _tfrecords(tf, os.path.join(d, "e.tfr"), [])
    b = _tfrecords(tf, os.path.join(d, "b.tfr"), [b"b0", b"b1"])
    reader = tf.TFRecordReader()
    keys, values = reader.read_up_to(_queue(tf, sess, [a, e, b]), 2)
    out = _drain(tf, sess, d, (keys, values))
    return out, keys.shape.as_list(), sess.run(reader.num_records_produced())


@case
def readers_text_lines_headers_and_line_ends(tf, sess):
    d = _dir()
    a = _write(os.path.join(d, "a.txt"), b"h1\nh2\nx\r\n\ny\r\nlast")
    b = _write(os.path.join(d, "b.txt"), b"only\n")
    c = _write(os.path.join(d, "c.txt"), b"head\n")
    z = _write(os.path.join(d, "z.txt"), b"")
    r2 = tf.TextLineReader(skip_header_lines=2)
    out = [_drain(tf, sess, d, r2.read(_queue(tf, sess, [a, b, c, z])))]
    r0 = tf.TextLineReader()
    out.append(_drain(tf, sess, d, r0.read_up_to(_queue(tf, sess, [a, b, z]), 3)))
    r1 = tf.TextLineReader(skip_header_lines=1)
    out.append(_drain(tf, sess, d, r1.read(_queue(tf, sess, [c, b]))))
    out.append(sess.run([r2.num_records_produced(), r2.num_work_units_completed()]))
    return out


@case
def readers_whole_file_and_identity(tf, sess):
    d = _dir()
    a = _write(os.path.join(d, "a.bin"), bytes(range(256)) * 3)
    b = _write(os.path.join(d, "b.bin"), b"")
    w = tf.WholeFileReader()
    out = [_drain(tf, sess, d, w.read(_queue(tf, sess, [a, b])))]
    out.append(_drain(tf, sess, d, tf.WholeFileReader().read_up_to(_queue(tf, sess, [a, b]), 5)))
    ident = tf.IdentityReader()
    out.append(_drain(tf, sess, d, ident.read_up_to(_queue(tf, sess, ["w1", "w2", "w3"]), 2)))
    out.append(sess.run([ident.num_records_produced(), ident.num_work_units_completed()]))
    out.append([w.supports_serialize, ident.supports_serialize, tf.TFRecordReader().supports_serialize])
    return out


@case
def readers_fixed_length_header_footer_hop(tf, sess):
    d = _dir()
    data = bytes(range(40))
    p = _write(os.path.join(d, "f.bin"), data)
    out = []
    for kwargs in (
        {"record_bytes": 4},
        {"record_bytes": 4, "header_bytes": 3, "footer_bytes": 5},
        {"record_bytes": 5, "hop_bytes": 3, "header_bytes": 1, "footer_bytes": 2},
        {"record_bytes": 3, "hop_bytes": 7},
        {"record_bytes": 7, "header_bytes": 30},
    ):
        reader = tf.FixedLengthRecordReader(**kwargs)
        out.append(_drain(tf, sess, d, reader.read(_queue(tf, sess, [p]))))
    gz = os.path.join(d, "f.gz")
    with gzip.open(gz, "wb") as f:
        f.write(data)
    zl = _write(os.path.join(d, "f.zlib"), zlib.compress(data))
    for path, enc in ((gz, "GZIP"), (zl, "ZLIB")):
        reader = tf.FixedLengthRecordReader(6, header_bytes=2, footer_bytes=4, encoding=enc)
        out.append(_drain(tf, sess, d, reader.read_up_to(_queue(tf, sess, [path]), 4)))
    return out


@case
def readers_missing_file_then_next(tf, sess):
    d = _dir()
    b = _tfrecords(tf, os.path.join(d, "b.tfr"), [b"b0"])
    missing = os.path.join(d, "missing.tfr")
    out = []
    for reader in (tf.TFRecordReader(), tf.TextLineReader(), tf.FixedLengthRecordReader(2)):
        out.append(_drain(tf, sess, d, reader.read(_queue(tf, sess, [missing, b])), limit=6))
    return out


@case
def readers_corrupt_record_is_data_loss(tf, sess):
    d = _dir()
    good = _tfrecords(tf, os.path.join(d, "g.tfr"), [b"first", b"second-record"])
    with open(good, "rb") as f:
        raw = bytearray(f.read())
    raw[-6] ^= 0xFF  # a byte of the second record's data
    bad = _write(os.path.join(d, "bad.tfr"), bytes(raw))
    cut = _write(os.path.join(d, "cut.tfr"), bytes(raw[:-8]))
    out = []
    for path in (bad, cut):
        reader = tf.TFRecordReader()
        out.append(_drain(tf, sess, d, reader.read(_queue(tf, sess, [path])), limit=4))
    return out


@case
def readers_closed_empty_queue_and_bad_queue(tf, sess):
    reader = tf.TFRecordReader()
    q = tf.FIFOQueue(3, tf.string)
    sess.run(q.close())
    out = [_drain(tf, sess, "", reader.read(q))]
    ints = tf.FIFOQueue(3, tf.int32)
    sess.run(ints.enqueue(1))
    out.append(_drain(tf, sess, "", tf.IdentityReader().read(ints), limit=1))
    two = tf.FIFOQueue(3, [tf.string, tf.string])
    sess.run(two.enqueue(["a", "b"]))
    out.append(_drain(tf, sess, "", tf.IdentityReader().read(two), limit=1))
    return out


@case
def readers_bad_arguments(tf, sess):
    def err(fn):
        try:
            return fn()
        except tf.errors.OpError as e:
            return type(e).__name__
        except (TypeError, ValueError) as e:
            return type(e).__name__

    q = tf.FIFOQueue(3, tf.string)
    sess.run(q.enqueue("w"))
    ident = tf.IdentityReader()
    return [
        err(lambda: sess.run(ident.read_up_to(q, 0))),
        err(lambda: sess.run(tf.TextLineReader(skip_header_lines=-1).reader_ref)),
        err(lambda: sess.run(tf.FixedLengthRecordReader(-4).reader_ref)),
        err(lambda: sess.run(tf.TFRecordReader(options="LZ4").reader_ref)),
        err(lambda: sess.run(ident.restore_state("\xff\xff"))),
        err(lambda: sess.run(tf.TFRecordReader().serialize_state())),
        sess.run(ident.read(q)),
    ]


@case
def readers_reset_and_state(tf, sess):
    ident = tf.IdentityReader()
    q = _queue(tf, sess, ["u1", "u2", "u3", "u4"], close=False)
    key, _value = ident.read(q)
    first = sess.run(key)
    state = sess.run(ident.serialize_state())
    second = sess.run(key)
    counts = sess.run([ident.num_records_produced(), ident.num_work_units_completed()])
    sess.run(ident.restore_state(state))
    restored = sess.run([ident.num_records_produced(), ident.num_work_units_completed()])
    sess.run(ident.reset())
    after_reset = sess.run([ident.num_records_produced(), ident.num_work_units_completed(), key])
    return first, state, second, counts, restored, after_reset


@case
def readers_pipeline_with_queue_runners(tf, sess):
    d = _dir()
    files = [
        _tfrecords(tf, os.path.join(d, f"p{i}.tfr"), [f"f{i}-r{j}".encode() for j in range(i + 2)]) for i in range(3)
    ]
    filename_queue = tf.train.string_input_producer(files, num_epochs=2, shuffle=False)
    reader = tf.TFRecordReader()
    key, value = reader.read(filename_queue)
    keys, values = tf.train.batch([key, value], batch_size=4, allow_smaller_final_batch=True)
    sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    got = []
    try:
        while not coord.should_stop():
            k, v = sess.run([keys, values])
            got.append((_rel(d, k), v))
    except tf.errors.OutOfRangeError:
        got.append("END")
    finally:
        coord.request_stop()
    coord.join(threads)
    return got, keys.shape.as_list()


@case
def readers_text_pipeline_shuffle_batch(tf, sess):
    d = _dir()
    files = [
        _write(os.path.join(d, f"t{i}.csv"), ("h\n" + "".join(f"{i},{j}\n" for j in range(5))).encode())
        for i in range(3)
    ]
    filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=True, seed=3)
    reader = tf.TextLineReader(skip_header_lines=1)
    _, line = reader.read(filename_queue)
    a, b = tf.io.decode_csv(line, record_defaults=[[0], [0]])
    ba, bb = tf.train.shuffle_batch(
        [a, b], batch_size=4, capacity=20, min_after_dequeue=5, seed=7, allow_smaller_final_batch=True
    )
    sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    rows, sizes = [], []
    try:
        while True:
            x, y = sess.run([ba, bb])
            sizes.append(len(x))
            rows.extend(zip(x.tolist(), y.tolist()))
    except tf.errors.OutOfRangeError:
        pass
    finally:
        coord.request_stop()
    coord.join(threads)
    return sorted(rows), sum(sizes), ba.shape.as_list()

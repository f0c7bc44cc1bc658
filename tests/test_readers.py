"""TF1's readers (core/kernels/reader_ops.cc) in TF1 input pipelines. Oracles: the records the test wrote (with
tw.io.TFRecordWriter, plain files, gzip/zlib from Python's own modules), Python's line splitting and byte slicing,
numpy; TensorFlow's observations of the same programs are compared in tests/fidelity/cases_readers.py."""

import gzip
import os
import threading
import time
import zlib

import numpy as np
import pytest
import tensorweave as tw

TIMEOUT = tw.RunOptions(timeout_in_ms=300)


def _tfrecords(path, records, options=None):
    with tw.io.TFRecordWriter(str(path), options) as w:
        for r in records:
            w.write(r)
    return str(path)


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return str(path)


def _queue(sess, files, close=True):
    q = tw.FIFOQueue(100, tw.string)
    sess.run(q.enqueue_many([files]))
    if close:
        sess.run(q.close())
    return q


def _read_all(sess, fetch):
    out = []
    while True:
        try:
            out.append(sess.run(fetch))
        except tw.errors.OutOfRangeError:
            return out


def test_tfrecord_reader_keys_are_file_and_byte_offset(sess, tmp_path):
    records = [b"", b"a", b"bb" * 300, bytes(range(256))]
    a = _tfrecords(tmp_path / "a.tfr", records)
    b = _tfrecords(tmp_path / "b.tfr", [b"last"])
    reader = tw.TFRecordReader()
    got = _read_all(sess, reader.read(_queue(sess, [a, b])))
    offsets = np.cumsum([0] + [16 + len(r) for r in records])[:-1]  # 8 length + 4 crc + data + 4 crc
    assert got == [(f"{a}:{o}".encode(), r) for o, r in zip(offsets, records)] + [(f"{b}:0".encode(), b"last")]
    assert sess.run([reader.num_records_produced(), reader.num_work_units_completed()]) == [5, 2]


@pytest.mark.parametrize("kind", ["GZIP", "ZLIB"])
def test_tfrecord_reader_compressed(sess, tmp_path, kind):
    records = [os.urandom(n) for n in (0, 10, 5000)]
    path = _tfrecords(tmp_path / "c.tfr", records, tw.io.TFRecordOptions(kind))
    values = [
        v for _, v in _read_all(sess, tw.TFRecordReader(options=tw.io.TFRecordOptions(kind)).read(_queue(sess, [path])))
    ]
    assert values == records
    # Read without the compression, the file is not TFRecords.
    with pytest.raises(tw.errors.DataLossError):
        sess.run(tw.TFRecordReader().read(_queue(sess, [path])))


def test_read_up_to_stops_at_the_end_of_each_file(sess, tmp_path):
    a = _tfrecords(tmp_path / "a.tfr", [b"a0", b"a1", b"a2", b"a3", b"a4"])
    e = _tfrecords(tmp_path / "e.tfr", [])
    b = _tfrecords(tmp_path / "b.tfr", [b"b0"])
    keys, values = tw.TFRecordReader().read_up_to(_queue(sess, [a, e, b]), 2)
    assert keys.shape.as_list() == [None]
    got = [list(v) for _, v in _read_all(sess, (keys, values))]
    assert got == [[b"a0", b"a1"], [b"a2", b"a3"], [b"a4"], [b"b0"]]


def test_text_line_reader_lines_as_python_splits_them(sess, tmp_path):
    text = b"header\nx,1\r\n\ny,2\nlast-no-newline"
    a = _write(tmp_path / "a.csv", text)
    b = _write(tmp_path / "b.csv", b"header only\n")
    got = _read_all(sess, tw.TextLineReader(skip_header_lines=1).read(_queue(sess, [a, b])))
    lines = text.split(b"\n")
    expected = [(f"{a}:{i + 1}".encode(), line.rstrip(b"\r")) for i, line in enumerate(lines)][1:]
    assert got == expected


def test_text_line_reader_long_lines_cross_buffers(sess, tmp_path):
    lines = [os.urandom(70000).replace(b"\n", b"-").replace(b"\r", b"+") for _ in range(3)]
    path = _write(tmp_path / "long.txt", b"\n".join(lines) + b"\n")
    got = [v for _, v in _read_all(sess, tw.TextLineReader().read(_queue(sess, [path])))]
    assert got == lines


def test_whole_file_reader(sess, tmp_path):
    big = os.urandom(200_000)
    a = _write(tmp_path / "a.bin", big)
    b = _write(tmp_path / "b.bin", b"")
    got = _read_all(sess, tw.WholeFileReader().read(_queue(sess, [a, b])))
    assert got == [(a.encode(), big), (b.encode(), b"")]


@pytest.mark.parametrize(
    "record,header,footer,hop",
    [(4, 0, 0, 0), (4, 3, 5, 0), (5, 1, 2, 3), (3, 0, 0, 7), (7, 30, 0, 0), (6, 2, 4, 0)],
)
def test_fixed_length_record_reader_slices_like_python(sess, tmp_path, record, header, footer, hop):
    data = bytes(range(40))
    path = _write(tmp_path / "f.bin", data)
    reader = tw.FixedLengthRecordReader(record, header_bytes=header, footer_bytes=footer, hop_bytes=hop)
    got = _read_all(sess, reader.read(_queue(sess, [path])))
    step = hop or record
    expected = []
    start = header
    while start + record + footer <= len(data):
        expected.append((f"{path}:{len(expected)}".encode(), data[start : start + record]))
        start += step
    assert got == expected


@pytest.mark.parametrize("encoding", ["GZIP", "ZLIB"])
def test_fixed_length_record_reader_compressed(sess, tmp_path, encoding):
    data = os.urandom(1000)
    packed = gzip.compress(data) if encoding == "GZIP" else zlib.compress(data)
    path = _write(tmp_path / "f.z", packed)
    _keys, values = tw.FixedLengthRecordReader(100, header_bytes=10, encoding=encoding).read_up_to(
        _queue(sess, [path]), 50
    )
    got = sess.run(values)
    assert list(got) == [data[10 + 100 * i : 110 + 100 * i] for i in range(9)]


def test_identity_reader_state_round_trip(sess):
    reader = tw.IdentityReader()
    q = _queue(sess, ["w1", "w2", "w3"], close=False)
    key, value = reader.read(q)
    assert sess.run([key, value]) == [b"w1", b"w1"]
    state = sess.run(reader.serialize_state())
    assert sess.run(key) == b"w2"
    sess.run(reader.restore_state(state))
    assert sess.run([reader.num_records_produced(), reader.num_work_units_completed()]) == [1, 1]
    sess.run(reader.reset())
    assert sess.run([reader.num_records_produced(), reader.num_work_units_completed()]) == [0, 0]
    with pytest.raises(tw.errors.InvalidArgumentError, match="Could not parse state"):
        sess.run(reader.restore_state(b"\x08"))
    with pytest.raises(tw.errors.UnimplementedError):
        sess.run(tw.TFRecordReader().serialize_state())


def test_missing_file_is_not_found_and_the_reader_goes_on(sess, tmp_path):
    good = _tfrecords(tmp_path / "g.tfr", [b"ok"])
    missing = str(tmp_path / "missing.tfr")
    _key, value = tw.TFRecordReader().read(_queue(sess, [missing, good]))
    with pytest.raises(tw.errors.NotFoundError, match="missing.tfr"):
        sess.run(value)
    assert sess.run(value) == b"ok"
    with pytest.raises(tw.errors.OutOfRangeError):
        sess.run(value)


def test_corrupt_record_is_data_loss_every_time(sess, tmp_path):
    path = _tfrecords(tmp_path / "g.tfr", [b"first", b"second"])
    with open(path, "rb") as f:
        raw = bytearray(f.read())
    raw[-6] ^= 0x55
    _write(path, bytes(raw))
    value = tw.TFRecordReader().read(_queue(sess, [path]))[1]
    assert sess.run(value) == b"first"
    for _ in range(2):
        with pytest.raises(tw.errors.DataLossError, match="g.tfr"):
            sess.run(value)


def test_closed_empty_queue_and_bad_queues(sess):
    q = tw.FIFOQueue(2, tw.string)
    sess.run(q.close())
    with pytest.raises(tw.errors.OutOfRangeError, match="is closed and has insufficient elements"):
        sess.run(tw.IdentityReader().read(q))
    ints = tw.FIFOQueue(2, tw.int32)
    sess.run(ints.enqueue(3))
    with pytest.raises(tw.errors.InvalidArgumentError, match="string"):
        sess.run(tw.IdentityReader().read(ints))
    assert sess.run(ints.size()) == 1  # nothing was taken from it
    with pytest.raises(tw.errors.InvalidArgumentError, match="num_records must be >= 0"):
        sess.run(tw.IdentityReader().read_up_to(q, -1))
    assert [list(x) for x in sess.run(tw.IdentityReader().read_up_to(q, 0))] == [[], []]  # as TF: nothing read
    with pytest.raises(tw.errors.InvalidArgumentError, match="skip_header_lines"):
        sess.run(tw.TextLineReader(skip_header_lines=-1).reader_ref)
    with pytest.raises(tw.errors.InvalidArgumentError, match="record_bytes"):
        sess.run(tw.FixedLengthRecordReader(-1).reader_ref)
    with pytest.raises(tw.errors.InvalidArgumentError, match="not a reader handle|not a reader"):
        sess.run(tw.ReaderBase(tw.constant("junk")).read(q))


def test_waiting_read_times_out_and_is_served_later(sess):
    q = tw.FIFOQueue(2, tw.string)
    value = tw.IdentityReader().read(q)[1]
    with pytest.raises(tw.errors.DeadlineExceededError):
        sess.run(value, options=TIMEOUT)
    sess.run(q.enqueue("later"))
    assert sess.run(value) == b"later"


def test_counters_answer_while_a_read_waits_for_a_work_unit(sess):
    q = tw.FIFOQueue(2, tw.string)
    reader = tw.IdentityReader()
    value = reader.read(q)[1]
    counters = [reader.num_records_produced(), reader.num_work_units_completed()]
    box = []
    reading = threading.Thread(target=lambda: box.append(sess.run(value)), daemon=True)
    reading.start()
    time.sleep(0.3)
    counts = []
    counting = threading.Thread(
        target=lambda: counts.append(sess.run(counters)),
        daemon=True,
    )
    counting.start()
    counting.join(20)
    assert counts == [[0, 0]]
    sess.run(q.enqueue("unit"))
    reading.join(20)
    assert box == [b"unit"]
    assert sess.run(reader.num_records_produced()) == 1


def test_session_close_ends_a_waiting_read():
    with tw.Graph().as_default():
        q = tw.FIFOQueue(2, tw.string)
        value = tw.IdentityReader().read(q)[1]
        sess = tw.Session()
        box = []

        def run():
            try:
                sess.run(value)
            except Exception as e:  # noqa: BLE001 - inspected below
                box.append(e)

        t = threading.Thread(target=run, daemon=True)
        t.start()
        time.sleep(0.3)
        sess.close()
        t.join(10)
        assert not t.is_alive()
        assert isinstance(box[0], tw.errors.CancelledError)


def test_pipeline_with_queue_runners_reads_every_record_once_per_epoch(tmp_path):
    files = [_tfrecords(tmp_path / f"p{i}.tfr", [f"{i}-{j}".encode() for j in range(i + 3)]) for i in range(4)]
    expected = sorted(f"{i}-{j}".encode() for i in range(4) for j in range(i + 3)) * 2
    with tw.Graph().as_default():
        filename_queue = tw.train.string_input_producer(files, num_epochs=2, shuffle=True, seed=1)
        reader = tw.TFRecordReader()
        _, value = reader.read(filename_queue)
        batch = tw.train.shuffle_batch(
            [value], batch_size=5, capacity=30, min_after_dequeue=4, num_threads=3, allow_smaller_final_batch=True
        )
        with tw.Session() as sess:
            sess.run([tw.global_variables_initializer(), tw.local_variables_initializer()])
            coord = tw.train.Coordinator()
            threads = tw.train.start_queue_runners(sess=sess, coord=coord)
            got = []
            try:
                while not coord.should_stop():
                    got.extend(sess.run(batch))
            except tw.errors.OutOfRangeError:
                pass
            finally:
                coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
            assert sorted(got) == sorted(expected)
            assert sess.run(reader.num_work_units_completed()) == 8


def test_reader_op_types_and_no_gradients(sess):
    reader = tw.TFRecordReader(name="rdr")
    q = tw.FIFOQueue(2, tw.string)
    key, _value = reader.read(q)
    keys, _values = reader.read_up_to(q, 3)
    assert reader.reader_ref.op.type == "TFRecordReaderV2"
    assert reader.reader_ref.op.name == "rdr"
    assert [key.op.type, keys.op.type] == ["ReaderReadV2", "ReaderReadUpToV2"]
    assert [
        reader.num_records_produced().op.type,
        reader.num_work_units_completed().op.type,
        reader.serialize_state().op.type,
        reader.restore_state("").type,
        reader.reset().type,
    ] == [
        "ReaderNumRecordsProducedV2",
        "ReaderNumWorkUnitsCompletedV2",
        "ReaderSerializeStateV2",
        "ReaderRestoreStateV2",
        "ReaderResetV2",
    ]
    for r, t in [
        (tw.TextLineReader(), "TextLineReaderV2"),
        (tw.WholeFileReader(), "WholeFileReaderV2"),
        (tw.FixedLengthRecordReader(4), "FixedLengthRecordReaderV2"),
        (tw.IdentityReader(), "IdentityReaderV2"),
    ]:
        assert r.reader_ref.op.type == t
    assert [tw.io.PaddingFIFOQueue, tw.io.PriorityQueue, tw.io.QueueBase, tw.io.RandomShuffleQueue] == [
        tw.PaddingFIFOQueue,
        tw.PriorityQueue,
        tw.QueueBase,
        tw.RandomShuffleQueue,
    ]

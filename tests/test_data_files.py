"""The file datasets (TFRecordDataset, TextLineDataset, FixedLengthRecordDataset; core/data/file_dataset_ops.cc).
Oracles: the bytes written here with Python's struct/gzip/zlib (what each file must yield), TensorFlow itself in a
subprocess (files it writes are read by tensorweave, files tensorweave writes are read by it), and TF1's error
classes and messages (observed with tensorflow.compat.v1: "corrupted record at 0", "truncated record at ...",
"<file>; No such file or directory", the FixedLength body-length message)."""

import gzip
import os
import struct
import subprocess
import sys
import zlib

import pytest
import tensorweave as tw
from tensorweave._src.platform import tf_record


def _drain(dataset, limit=100000):
    nxt = tw.data.make_one_shot_iterator(dataset).get_next()
    out = []
    with tw.Session() as sess:
        for _ in range(limit):
            try:
                out.append(sess.run(nxt))
            except tw.errors.OutOfRangeError:
                return out
    raise AssertionError("the iterator did not end")


def _drain_until_error(dataset):
    """The records before the first error, and the error."""
    nxt = tw.data.make_one_shot_iterator(dataset).get_next()
    out = []
    with tw.Session() as sess:
        while True:
            try:
                out.append(sess.run(nxt))
            except tw.errors.OutOfRangeError:
                return out, None
            except tw.errors.OpError as e:
                return out, e


def _record(data):
    """One TFRecord, framed by hand (independent of both writers)."""
    header = struct.pack("<Q", len(data))
    return (
        header
        + struct.pack("<I", tf_record.masked_crc32c(header))
        + data
        + struct.pack("<I", tf_record.masked_crc32c(data))
    )


def _compress(data, compression):
    if compression == "GZIP":
        return gzip.compress(data)
    if compression == "ZLIB":
        return zlib.compress(data)
    return data


RECORDS = [b"", b"a", b"hello world", bytes(range(256)) * 40, b"\n\r\x00last"]


@pytest.fixture(autouse=True)
def _graph():
    with tw.Graph().as_default():
        yield


# --- TFRecordDataset ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("compression", ["", "ZLIB", "GZIP"])
def test_tfrecord_reads_hand_framed_files_in_order(tmp_path, compression):
    paths = []
    for i in range(3):
        p = tmp_path / f"f{i}.tfrecord"
        p.write_bytes(_compress(b"".join(_record(r + bytes([i])) for r in RECORDS), compression))
        paths.append(str(p))
    got = _drain(tw.data.TFRecordDataset(paths, compression_type=compression))
    assert got == [r + bytes([i]) for i in range(3) for r in RECORDS]


@pytest.mark.parametrize("compression", ["", "ZLIB", "GZIP"])
def test_tfrecord_reads_tw_writer_files_scalar_filename_small_buffer(tmp_path, compression):
    path = str(tmp_path / "w.tfrecord")
    big = os.urandom(100000)
    with tw.io.TFRecordWriter(path, tw.io.TFRecordOptions(compression)) as w:
        for r in RECORDS + [big]:
            w.write(r)
    # A buffer far smaller than the records: they span many refills.
    got = _drain(tw.data.TFRecordDataset(path, compression_type=compression, buffer_size=100))
    assert got == RECORDS + [big]
    assert _drain(tw.data.TFRecordDataset(path, compression_type=compression, buffer_size=0)) == RECORDS + [big]


def test_tfrecord_empty_file_and_empty_filename_list(tmp_path):
    p = tmp_path / "empty.tfrecord"
    p.write_bytes(b"")
    assert _drain(tw.data.TFRecordDataset(str(p))) == []
    assert _drain(tw.data.TFRecordDataset(tw.constant([], tw.string))) == []


def test_tfrecord_bad_length_crc_is_data_loss_naming_file_and_offset(tmp_path):
    data = _record(b"first") + _record(b"second")
    bad = bytearray(data)
    bad[len(_record(b"first")) + 8] ^= 0xFF  # the second record's length CRC
    p = tmp_path / "bad_len.tfrecord"
    p.write_bytes(bytes(bad))
    out, err = _drain_until_error(tw.data.TFRecordDataset(str(p)))
    assert out == [b"first"]
    assert isinstance(err, tw.errors.DataLossError)
    assert f"corrupted record at {len(_record(b'first'))}" in err.message and str(p) in err.message


def test_tfrecord_bad_data_crc_is_data_loss(tmp_path):
    bad = bytearray(_record(b"payload"))
    bad[13] ^= 0x01  # a byte of the data
    p = tmp_path / "bad_data.tfrecord"
    p.write_bytes(bytes(bad))
    out, err = _drain_until_error(tw.data.TFRecordDataset(str(p)))
    assert out == [] and isinstance(err, tw.errors.DataLossError)
    assert "corrupted record at 12" in err.message and str(p) in err.message  # TF1: the data's offset


def test_tfrecord_truncated_data_is_data_loss_partial_header_is_the_end(tmp_path):
    data = _record(b"hello") + _record(b"world!!")
    p = tmp_path / "trunc.tfrecord"
    p.write_bytes(data[:-3])
    out, err = _drain_until_error(tw.data.TFRecordDataset(str(p)))
    assert out == [b"hello"] and isinstance(err, tw.errors.DataLossError)
    assert f"truncated record at {len(_record(b'hello'))}" in err.message
    # TF1 reads an incomplete header at the end as the end of the file.
    p.write_bytes(data + b"\x01\x02\x03")
    assert _drain(tw.data.TFRecordDataset(str(p))) == [b"hello", b"world!!"]


def test_tfrecord_missing_file_is_not_found_after_the_files_before_it(tmp_path):
    p = tmp_path / "a.tfrecord"
    p.write_bytes(_record(b"x"))
    missing = str(tmp_path / "missing.tfrecord")
    out, err = _drain_until_error(tw.data.TFRecordDataset([str(p), missing]))
    assert out == [b"x"] and isinstance(err, tw.errors.NotFoundError)
    assert f"{missing}; No such file or directory" in err.message


def test_tfrecord_wrong_compression_is_data_loss_and_unknown_type_invalid(tmp_path):
    p = tmp_path / "plain.tfrecord"
    p.write_bytes(_record(b"x"))
    _, err = _drain_until_error(tw.data.TFRecordDataset(str(p), compression_type="GZIP"))
    assert isinstance(err, tw.errors.DataLossError) and "inflate() failed" in err.message
    p2 = tmp_path / "cut.gz"
    p2.write_bytes(gzip.compress(_record(b"abc" * 100))[:-20])
    _, err = _drain_until_error(tw.data.TFRecordDataset(str(p2), compression_type="GZIP"))
    assert isinstance(err, tw.errors.DataLossError)
    # TF1 logs and reads an unknown type as uncompressed; tensorweave refuses it.
    _, err = _drain_until_error(tw.data.TFRecordDataset(str(p), compression_type="BZIP2"))
    assert isinstance(err, tw.errors.InvalidArgumentError) and "BZIP2" in err.message


def test_tfrecord_filenames_of_rank_2_are_invalid(tmp_path):
    def make(filenames):
        return tw.raw_ops.TFRecordDataset(
            filenames=filenames,
            compression_type="",
            buffer_size=tw.constant(-1, tw.int64),
            output_types=[tw.string],
            output_shapes=[[]],
        )

    with pytest.raises(ValueError, match="scalar or a vector"):
        make(tw.constant([["a"]]))
    names = tw.placeholder(tw.string)
    handle = make(names)
    with tw.Session() as sess, pytest.raises(tw.errors.InvalidArgumentError, match="scalar or a vector"):
        sess.run(handle, {names: [["a"]]})


# --- TextLineDataset ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("compression", ["", "ZLIB", "GZIP"])
def test_textline_strips_newlines_and_reads_a_last_line_without_one(tmp_path, compression):
    a = tmp_path / "a.txt"
    a.write_bytes(_compress(b"one\ntwo\r\n\nthree", compression))
    b = tmp_path / "b.txt"
    b.write_bytes(_compress(b"x" * 5000 + b"\nlast\n", compression))
    got = _drain(tw.data.TextLineDataset([str(a), str(b)], compression_type=compression, buffer_size=64))
    assert got == [b"one", b"two", b"", b"three", b"x" * 5000, b"last"]


def test_textline_missing_file_is_not_found(tmp_path):
    out, err = _drain_until_error(tw.data.TextLineDataset(str(tmp_path / "nope.txt")))
    assert out == [] and isinstance(err, tw.errors.NotFoundError)


# --- FixedLengthRecordDataset -----------------------------------------------------------------------------------


@pytest.mark.parametrize("compression", ["", "ZLIB", "GZIP"])
def test_fixed_length_honours_header_and_footer(tmp_path, compression):
    p1 = tmp_path / "a.bin"
    p1.write_bytes(_compress(b"HH" + b"abcdefghij" + b"FFF", compression))
    p2 = tmp_path / "b.bin"
    p2.write_bytes(_compress(b"HH" + b"klmno" + b"FFF", compression))
    ds = tw.data.FixedLengthRecordDataset(
        [str(p1), str(p2)], 5, header_bytes=2, footer_bytes=3, compression_type=compression, buffer_size=7
    )
    assert _drain(ds) == [b"abcde", b"fghij", b"klmno"]


def test_fixed_length_body_not_a_multiple_is_invalid_argument(tmp_path):
    p = tmp_path / "odd.bin"
    p.write_bytes(b"HHabcdefghFFF")
    _, err = _drain_until_error(tw.data.FixedLengthRecordDataset(str(p), 5, header_bytes=2, footer_bytes=3))
    assert isinstance(err, tw.errors.InvalidArgumentError)
    assert (
        f'Excluding the header (2 bytes) and footer (3 bytes), input file "{p}" has body length 8 bytes, '
        "which is not an exact multiple of the record length (5 bytes)." in err.message
    )
    z = tmp_path / "odd.gz"
    z.write_bytes(gzip.compress(b"HHabcdefghFFF"))
    out, err = _drain_until_error(
        tw.data.FixedLengthRecordDataset(str(z), 5, header_bytes=2, footer_bytes=3, compression_type="GZIP")
    )
    assert out == [b"abcde"] and isinstance(err, tw.errors.DataLossError) and "body length 8 bytes" in err.message


def test_fixed_length_bad_arguments():
    with tw.Session() as sess:
        for kwargs, msg in (({"record_bytes": 0}, "record_bytes"), ({"record_bytes": 4, "header_bytes": -1}, "header")):
            ds = tw.data.FixedLengthRecordDataset("x", **kwargs)
            with pytest.raises(tw.errors.InvalidArgumentError, match=msg):
                sess.run(ds._variant_tensor)


# --- byte compatibility with TensorFlow ---------------------------------------------------------------------------

_TF_WRITE = """
import sys, tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
for path, comp in ((sys.argv[1], ""), (sys.argv[2], "GZIP"), (sys.argv[3], "ZLIB")):
    with tf.io.TFRecordWriter(path, tf.io.TFRecordOptions(comp)) as w:
        for i in range(50):
            w.write(b"record %d " % i + bytes(range(i % 256)) * 3)
"""

_TF_READ = """
import sys, tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
for path, comp in zip(sys.argv[1::2], sys.argv[2::2]):
    nxt = tf.data.make_one_shot_iterator(tf.data.TFRecordDataset(path, compression_type=comp)).get_next()
    with tf.Session() as s:
        n = 0
        try:
            while True:
                r = s.run(nxt)
                assert r == b"tw %d " % n + bytes(range(n % 256)) * 2, (path, n)
                n += 1
        except tf.errors.OutOfRangeError:
            pass
    assert n == 30, (path, n)
print("OK")
"""


def _tensorflow(script, *args):
    pytest.importorskip("tensorflow")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    r = subprocess.run(
        [sys.executable, "-c", script, *args], env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout


def test_files_written_by_tensorflow_are_read_by_tensorweave(tmp_path):
    paths = [str(tmp_path / n) for n in ("plain.tfr", "gzip.tfr", "zlib.tfr")]
    _tensorflow(_TF_WRITE, *paths)
    want = [b"record %d " % i + bytes(range(i % 256)) * 3 for i in range(50)]
    for path, comp in zip(paths, ("", "GZIP", "ZLIB")):
        assert _drain(tw.data.TFRecordDataset(path, compression_type=comp)) == want, comp


def test_files_written_by_tensorweave_are_read_by_tensorflow(tmp_path):
    args = []
    for comp in ("", "GZIP", "ZLIB"):
        path = str(tmp_path / f"tw_{comp or 'plain'}.tfr")
        with tw.io.TFRecordWriter(path, tw.io.TFRecordOptions(comp)) as w:
            for i in range(30):
                w.write(b"tw %d " % i + bytes(range(i % 256)) * 2)
        args += [path, comp]
    assert "OK" in _tensorflow(_TF_READ, *args)


def test_wrappers_build_tensorflows_op_types():
    """Each wrapper builds TF's op type (imported TF graphs and tools name ops by type)."""
    with tw.Graph().as_default() as g:
        tw.data.FixedLengthRecordDataset(["f"], 4)
        ds = tw.data.Dataset.range(3)
        ds.interleave(lambda x: tw.data.Dataset.range(x), cycle_length=2)
        ds.interleave(lambda x: tw.data.Dataset.range(x), cycle_length=2, num_parallel_calls=2)
        tw.io.decode_csv(["1,2"], [[0], [0]])
        tw.io.decode_compressed([b""], compression_type="GZIP")
        tw.io.parse_tensor(tw.io.serialize_tensor(tw.constant([1.0])), tw.float32)
    types = {op.type for op in g.get_operations()}
    expected = {
        "FixedLengthRecordDatasetV2",
        "InterleaveDataset",
        "ParallelInterleaveDatasetV4",
        "DecodeCSV",
        "DecodeCompressed",
        "SerializeTensor",
        "ParseTensor",
    }
    assert expected <= types, expected - types

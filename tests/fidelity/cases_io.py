"""tf.io in TF1 programs: decode_csv (defaults, quoting, na_value, select_cols, delimiters and its errors),
decode_compressed, serialize_tensor's bytes and parse_tensor, base64, and the file datasets over compressed and
corrupted files."""

import gzip
import os
import struct
import tempfile
import zlib

import numpy as np

from tests.fidelity.harness import case


def _error(tf, fn):
    try:
        fn()
    except tf.errors.OpError as e:
        return type(e).__name__
    except (TypeError, ValueError) as e:
        return type(e).__name__
    return None


def _drain(tf, sess, ds):
    nxt = tf.data.make_one_shot_iterator(ds).get_next()
    out = []
    while True:
        try:
            out.append(sess.run(nxt))
        except tf.errors.OutOfRangeError:
            return out
        except tf.errors.OpError as e:
            return out + [type(e).__name__]


@case
def decode_csv_types_defaults_and_quotes(tf, sess):
    records = [
        '1,2.5,"a,b",7,x',
        ',,"say ""hi""",,',
        " 3 ,1e3,plain,-9,z",
    ]
    defaults = [[0], [-1.0], [""], tf.constant([5], tf.int64), ["dflt"]]
    cols = tf.io.decode_csv(records, record_defaults=defaults)
    return [c.dtype.name for c in cols], sess.run(cols)


@case
def decode_csv_delim_na_select_and_no_quotes(tf, sess):
    a = tf.io.decode_csv(["1|NA|3", "NA|5|6"], [[0], [0.0], [0]], field_delim="|", na_value="NA")
    b = tf.io.decode_csv(["a,b,c,d", "e,f,g,h"], [[""], [""]], select_cols=[1, 3])
    c = tf.io.decode_csv(['x"y,z'], [[""], [""]], use_quote_delim=False)
    d = tf.io.decode_csv([["1,2", "3,"], ["5,6", ",8"]], [[0], [9]])
    e = tf.io.decode_csv("a,", [[""], ["end"]])
    return sess.run([a, b, c, d, e]), d[0].shape.as_list()


@case
def decode_csv_errors(tf, sess):
    out = []
    for records, defaults, kwargs in (
        (["1,"], [[0], tf.constant([], tf.int32)], {}),  # a required field missing
        (["1,2,3"], [[0], [0]], {}),  # too many fields
        (["x,2"], [[0], [0]], {}),  # not an int32
        (["1.5x"], [[0.0]], {}),  # not a float
        (["99999999999"], [[0]], {}),  # int32 overflow
        (['a"b'], [[""]], {}),  # a quote in an unquoted field
        (['"ab'], [[""]], {}),  # an unterminated quoted field
        (['"a"b"'], [[""]], {}),  # a lone quote inside a quoted field
        ([""], [[0]], {}),  # an empty record has no fields
        (["1,2"], [[0], [0]], {"field_delim": ";;"}),
        (["1,2"], [[0, 1], [0]], {}),  # two defaults for one field
        (["1,2"], [[0], [0]], {"select_cols": [1, 0]}),
        (["1,2"], [[0], [0]], {"select_cols": [0]}),
    ):
        out.append(_error(tf, lambda r=records, d=defaults, k=kwargs: sess.run(tf.io.decode_csv(r, d, **k))))
    return out


@case
def decode_compressed_zlib_gzip_and_errors(tf, sess):
    data = [b"hello " * 50, b"", bytes(range(256))]
    z = tf.io.decode_compressed([zlib.compress(x) for x in data], compression_type="ZLIB")
    # dtype=object: a numpy bytes array would strip the gzip trailer's trailing zero bytes.
    g = tf.io.decode_compressed(
        np.array([[gzip.compress(x, mtime=0)] for x in data], dtype=object), compression_type="GZIP"
    )
    plain = tf.io.decode_compressed(b"as is")
    got = sess.run([z, g, plain])
    bad = _error(tf, lambda: sess.run(tf.io.decode_compressed([b"not zlib"], compression_type="ZLIB")))
    return got, g.shape.as_list(), bad


@case
def serialize_tensor_bytes_and_parse_tensor(tf, sess):
    values = [
        np.array([[1.5, -2.0], [0.25, 3.0]], np.float32),
        np.array([1, -2, 3], np.int32),
        np.array(7, np.int64),
        np.array([True, False, True]),
        np.array([b"ab", b"", b"\x00c"]),
        np.zeros([0, 3], np.float64),
        np.array([[1, 2]], np.uint8),
    ]
    ser = [tf.io.serialize_tensor(v) for v in values]
    parsed = [tf.io.parse_tensor(s, tf.as_dtype(v.dtype)) for s, v in zip(ser, values)]
    static = [p.shape.ndims for p in parsed]
    return sess.run(ser), sess.run(parsed), static, ser[0].shape.as_list()


@case
def parse_tensor_errors(tf, sess):
    s = tf.io.serialize_tensor(tf.constant([1.0, 2.0]))
    mismatch = _error(tf, lambda: sess.run(tf.io.parse_tensor(s, tf.int32)))
    garbage = _error(tf, lambda: sess.run(tf.io.parse_tensor(b"\xff\xff\xff", tf.float32)))
    not_scalar = _error(tf, lambda: sess.run(tf.io.parse_tensor([s, s], tf.float32)))
    return mismatch, garbage, not_scalar


@case
def base64_web_safe_and_padding(tf, sess):
    data = [b"\xfb\xff\xfe", b"ab", b"", b"hello world"]
    enc = tf.io.encode_base64(data)
    enc_pad = tf.io.encode_base64(data, pad=True)
    dec = tf.io.decode_base64(enc_pad)
    dec2 = tf.io.decode_base64(enc)
    bad = _error(tf, lambda: sess.run(tf.io.decode_base64(["a+b/"])))
    return sess.run([enc, enc_pad, dec, dec2]), bad


def _rec(data):
    def masked(b):
        crc = 0xFFFFFFFF
        for byte in b:
            crc ^= byte
            for _ in range(8):
                crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        crc ^= 0xFFFFFFFF
        return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF

    header = struct.pack("<Q", len(data))
    return header + struct.pack("<I", masked(header)) + data + struct.pack("<I", masked(data))


@case
def file_datasets_compressed_and_corrupt(tf, sess):
    d = tempfile.mkdtemp()

    def write(name, data):
        path = os.path.join(d, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    recs = _rec(b"one") + _rec(b"two") + _rec(b"three")
    out = [
        _drain(tf, sess, tf.data.TFRecordDataset(write("r.gz", gzip.compress(recs)), compression_type="GZIP")),
        _drain(tf, sess, tf.data.TFRecordDataset([write("r.z", zlib.compress(recs))] * 2, compression_type="ZLIB")),
        _drain(tf, sess, tf.data.TextLineDataset(write("t.gz", gzip.compress(b"a\r\nb\n\nc")), "GZIP")),
        _drain(
            tf,
            sess,
            tf.data.FixedLengthRecordDataset(
                write("f.z", zlib.compress(b"HHHabcdefT")), 3, header_bytes=3, footer_bytes=1, compression_type="ZLIB"
            ),
        ),
    ]
    bad = bytearray(recs)
    bad[len(_rec(b"one")) + 13] ^= 1
    out.append(_drain(tf, sess, tf.data.TFRecordDataset(write("bad.tfr", bytes(bad)))))
    out.append(_drain(tf, sess, tf.data.TFRecordDataset(write("cut.tfr", recs[:-2]))))
    out.append(_drain(tf, sess, tf.data.TFRecordDataset(write("plain.tfr", recs), compression_type="GZIP")))
    out.append(_drain(tf, sess, tf.data.FixedLengthRecordDataset(write("odd.bin", b"abcde"), 2)))
    out.append(_drain(tf, sess, tf.data.TFRecordDataset(os.path.join(d, "missing.tfr"))))
    return out

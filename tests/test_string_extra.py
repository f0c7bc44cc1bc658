"""tw.strings.format/ngrams/unsorted_segment_join/to_hash_bucket/unicode_transcode/unicode_encode and
tw.fingerprint against independent oracles (Python's codecs and string functions, a Python port of TF's legacy
Hash64 and FarmHash64's published test vectors), plus hostile inputs: bad UTF-8/16/32, invalid code points,
huge n-gram widths and segment counts."""

import struct

import numpy as np
import pytest
import tensorweave as tw


def run(fetch, feed=None):
    with tw.Session() as sess:
        return sess.run(fetch, feed)


@pytest.fixture(autouse=True)
def fresh_graph():
    with tw.Graph().as_default():
        yield


def legacy_hash64(data: bytes) -> int:
    """TensorFlow's core/lib/hash Hash64 (MurmurHash64A, seed 0xDECAFCAFFE), in Python."""
    mask = (1 << 64) - 1
    m, r = 0xC6A4A7935BD1E995, 47
    h = (0xDECAFCAFFE ^ (len(data) * m)) & mask
    n8 = len(data) // 8 * 8
    for i in range(0, n8, 8):
        k = struct.unpack("<Q", data[i : i + 8])[0]
        k = (k * m) & mask
        k ^= k >> r
        k = (k * m) & mask
        h ^= k
        h = (h * m) & mask
    tail = data[n8:]
    if tail:
        for i, byte in enumerate(tail):
            h ^= byte << (8 * i)
        h = (h * m) & mask
    h ^= h >> r
    h = (h * m) & mask
    h ^= h >> r
    return h


def test_to_hash_bucket_matches_legacy_hash64_on_many_strings():
    rng = np.random.default_rng(0)
    strings = [bytes(rng.integers(0, 256, size=n, dtype=np.uint8)) for n in range(200)] * 2
    strings += [bytes(rng.integers(0, 256, size=int(n), dtype=np.uint8)) for n in rng.integers(0, 2000, 100)]
    for buckets in (1, 7, 1000003, 2**62):
        got = run(tw.strings.to_hash_bucket(tw.constant(strings, tw.string), buckets))
        assert got.tolist() == [legacy_hash64(s) % buckets for s in strings]
    y = tw.string_to_hash_bucket(["a"], 10)
    assert y.op.type == "StringToHashBucket" and y.dtype == tw.int64


def test_fingerprint_matches_fingerprint64_and_combines_rows():
    words = [b"", b"a", b"hello", b"x" * 40, b"y" * 100]
    fast = run(tw.strings.to_hash_bucket_fast(words, 2**63 - 1))  # Fingerprint64 % (2^63 - 1)
    fp = run(tw.fingerprint(tw.constant(words)))
    assert fp.shape == (5, 8) and fp.dtype == np.uint8
    values = [int.from_bytes(row.tobytes(), "little") for row in fp]
    assert [v % (2**63 - 1) for v in values] == fast.tolist()
    # A row of several strings: the fingerprint of its strings' fingerprints' bytes.
    pair = run(tw.fingerprint(tw.constant([[b"hello", b"a"]])))
    inner = np.concatenate([fp[2], fp[1]]).tobytes()
    assert pair.tolist() == run(tw.fingerprint(tw.constant([inner]))).tolist()
    # Numbers: the fingerprint of the row's little-endian bytes.
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    rows = run(tw.fingerprint(x))
    assert rows.tolist() == run(tw.fingerprint(tw.constant([x[0].tobytes(), x[1].tobytes()]))).tolist()


def test_fingerprint_errors():
    with pytest.raises(ValueError):
        tw.fingerprint(tw.constant(["a"]), method="md5")
    with pytest.raises(ValueError):
        tw.fingerprint(tw.constant("a"))
    m = tw.placeholder(tw.string, [])
    with pytest.raises(tw.errors.InvalidArgumentError, match="Unsupported fingerprint method"):
        run(tw.fingerprint(tw.constant(["a"]), method=m), {m: "md5"})


def test_format_matches_tf_print_layout():
    x = tw.constant(np.arange(12).reshape(3, 4))
    out = run(tw.strings.format("x={} s={}", [x, tw.constant("hi")], summarize=1))
    assert out == b'x=[[0 ... 3]\n ...\n [8 ... 11]] s="hi"'
    assert run(tw.strings.format("{}", tw.constant([1.5, 2.0]))) == b"[1.5 2]"
    with pytest.raises(ValueError, match="template expects 2"):
        tw.strings.format("{} {}", [x])


def python_ngrams(tokens, width, sep, left, right, pad):
    pad = width - 1 if pad < 0 else min(pad, width - 1)
    padded = [left] * pad + list(tokens) + [right] * pad
    return [sep.join(padded[i : i + width]) for i in range(len(padded) - width + 1)]


@pytest.mark.parametrize("width, pad", [(1, 0), (2, 0), (3, -1), (2, 1), (4, 2), (5, 0)])
def test_ngrams_match_python(width, pad):
    tokens = ["a", "bb", "c", "dd"]
    pad_values = None if pad == 0 else ("<", ">")
    padding_width = None if pad <= 0 else pad
    got = run(
        tw.strings.ngrams(
            [tokens, tokens[::-1]], width, separator="_", pad_values=pad_values, padding_width=padding_width
        )
    )
    want = [python_ngrams(row, width, "_", "<", ">", pad) for row in (tokens, tokens[::-1])]
    assert [[g.decode() for g in row] for row in got] == want


def test_ngrams_hostile_widths_are_rejected():
    huge = tw.strings.ngrams(["a", "b"], 2**29, pad_values="x")
    with pytest.raises(tw.errors.InvalidArgumentError, match="too large"):
        run(huge)
    with pytest.raises(ValueError):
        tw.strings.ngrams(["a"], 0)
    data = tw.constant(["a", "b"])
    bad_splits = tw.raw_ops.StringNGrams(
        data=data,
        data_splits=tw.constant([0, 5], tw.int64),
        separator=" ",
        ngram_widths=[2],
        left_pad="",
        right_pad="",
        pad_width=0,
        preserve_short_sequences=False,
    )
    with pytest.raises(tw.errors.InvalidArgumentError, match="last split"):
        run(bad_splits)


def test_unsorted_segment_join_matches_python():
    rng = np.random.default_rng(1)
    words = [f"w{i}" for i in range(30)]
    ids = rng.integers(0, 6, 30)
    got = run(tw.strings.unsorted_segment_join(words, ids, 7, separator="+"))
    want = ["+".join(w for w, s in zip(words, ids) if s == k) for k in range(7)]
    assert [g.decode() for g in got] == want
    with pytest.raises(tw.errors.InvalidArgumentError, match="segment_ids"):
        run(tw.strings.unsorted_segment_join(["a"], [5], 2))
    n = tw.placeholder(tw.int64, [])
    with pytest.raises(tw.errors.InvalidArgumentError, match="too large"):
        run(tw.strings.unsorted_segment_join(["a"], [0], n), {n: 2**60})


SAMPLES = ["", "plain", "héllo wörld", "日本語", "emoji 😀 and 𝄞", "\x00nul"]


@pytest.mark.parametrize("src, dst", [("UTF-8", "UTF-16-BE"), ("UTF-16-BE", "UTF-32-BE"), ("UTF-32-BE", "UTF-8")])
def test_transcode_valid_text_matches_python_codecs(src, dst):
    py = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}
    data = [s.encode(py[src]) for s in SAMPLES]
    got = run(tw.strings.unicode_transcode(data, src, dst, errors="strict"))
    assert got.tolist() == [s.encode(py[dst]) for s in SAMPLES]


def test_transcode_bad_utf8_replace_ignore_strict():
    bad = [b"a\xffb", b"\xe2\x82", b"\xed\xa0\x80z", b"\xf0\x9f\x98", b"\x80\x80"]
    # Python's "replace" handler also substitutes one U+FFFD per maximal ill-formed subpart.
    want = [s.decode("utf-8", "replace").encode() for s in bad]
    assert run(tw.strings.unicode_transcode(bad, "UTF-8", "UTF-8")).tolist() == want
    ignored = [s.decode("utf-8", "ignore").encode() for s in bad]
    assert run(tw.strings.unicode_transcode(bad, "UTF-8", "UTF-8", errors="ignore")).tolist() == ignored
    with pytest.raises(tw.errors.InvalidArgumentError):
        run(tw.strings.unicode_transcode(bad, "UTF-8", "UTF-8", errors="strict"))
    fuzz = bytes(np.random.default_rng(2).integers(0, 256, 5000, dtype=np.uint8))
    out = run(tw.strings.unicode_transcode([fuzz], "UTF-8", "UTF-8"))[0]
    assert out == fuzz.decode("utf-8", "replace").encode()


def test_unicode_encode_dense():
    cps = [[ord(c) for c in "hi😀"], [72, 0xD800, 0x110000]]
    got = run(tw.strings.unicode_encode(cps, "UTF-8"))
    assert got.tolist() == ["hi😀".encode(), "H\ufffd\ufffd".encode()]
    assert run(tw.strings.unicode_encode([104, 105], "UTF-16-BE")) == "hi".encode("utf-16-be")
    three = run(tw.strings.unicode_encode(np.full([2, 3, 2], 65, np.int32), "UTF-32-BE", errors="ignore"))
    assert three.shape == (2, 3) and three[1, 2] == "AA".encode("utf-32-be")
    with pytest.raises(tw.errors.InvalidArgumentError):
        run(tw.strings.unicode_encode([[-1]], "UTF-8", errors="strict"))
    with pytest.raises(ValueError):
        tw.strings.unicode_encode(5, "UTF-8")


def test_op_types():
    s = tw.constant(["a", "b"])
    got = [
        tw.strings.format("{}", [s]).op.type,
        tw.strings.unsorted_segment_join(s, [0, 0], 1).op.type,
        tw.strings.to_hash_bucket(s, 3).op.type,
        tw.fingerprint(s).op.type,
        tw.strings.unicode_transcode(s, "UTF-8", "UTF-16-BE").op.type,
    ]
    assert got == ["StringFormat", "UnsortedSegmentJoin", "StringToHashBucket", "Fingerprint", "UnicodeTranscode"]
    types = {op.type for op in tw.get_default_graph().get_operations()}
    tw.strings.ngrams(s, 2)
    tw.strings.unicode_encode([[65]], "UTF-8")
    new_types = {op.type for op in tw.get_default_graph().get_operations()} - types
    assert {"StringNGrams", "UnicodeEncode"} <= new_types

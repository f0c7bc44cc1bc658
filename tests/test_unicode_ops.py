"""tw.strings.unicode_decode(_with_offsets), unicode_split(_with_offsets), bytes_split, unicode_script and the
ragged results of strings.split / string_split against TensorFlow 1's graph mode (tf.compat.v1, a Session):
values, row splits, dtypes, static shapes, the errors= modes on ill-formed UTF-8/16/32, and the
InvalidArgumentError (naming the node) of errors='strict'."""

import numpy as np
import pytest
import tensorweave as tw

tf1 = pytest.importorskip("tensorflow.compat.v1")


def run_both(build):
    out = []
    for m in (tw, tf1):
        with m.Graph().as_default(), m.Session() as sess:
            out.append(sess.run(build(m)))
    return out


def as_list(v):
    if isinstance(v, (list, tuple)):
        return [as_list(x) for x in v]
    return v.to_list() if hasattr(v, "to_list") else v.tolist()


def assert_same(build):
    ours, theirs = run_both(build)
    assert as_list(ours) == as_list(theirs)
    for a, b in zip(ours if isinstance(ours, tuple) else [ours], theirs if isinstance(theirs, tuple) else [theirs]):
        if hasattr(b, "row_splits"):
            assert a.row_splits.dtype == b.row_splits.dtype
            fa, fb = a.flat_values, b.flat_values
        else:
            fa, fb = a, b
        assert fa.dtype == fb.dtype or (fa.dtype.kind in "OS" and fb.dtype.kind in "OS")
    return ours


TEXT = ["Göödnight", "\U0001f60a smile", "", "abc", "日本語"]
BAD_UTF8 = [b"a\xffb", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80x", b"\xf0\x9f\x98", b"ok\xc0\xafz", b"\xf4\x90\x80\x80"]


def encode(strings, encoding):
    codec = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}[encoding]
    return [s.encode(codec) for s in strings]


@pytest.mark.parametrize("encoding", ["UTF-8", "UTF-16-BE", "UTF-32-BE"])
def test_decode_matches_tensorflow(encoding):
    data = encode(TEXT, encoding)
    assert_same(lambda m: m.strings.unicode_decode(data, encoding))
    assert_same(lambda m: m.strings.unicode_decode_with_offsets(data, encoding))
    assert_same(lambda m: m.strings.unicode_split(data, encoding))
    assert_same(lambda m: m.strings.unicode_split_with_offsets(data, encoding))
    got = assert_same(lambda m: m.strings.unicode_decode(data, encoding))
    assert got.to_list() == [[ord(c) for c in s] for s in TEXT]


@pytest.mark.parametrize(
    "make",
    [
        lambda m, d: d[0],  # a scalar: a Tensor
        lambda m, d: [d[:2], d[2:4]],  # a matrix: ragged_rank 2
        lambda m, d: m.ragged.constant([d[:3], [], d[3:]]),  # a RaggedTensor
    ],
)
def test_decode_ranks(make):
    data = encode(TEXT, "UTF-8")
    assert_same(lambda m: m.strings.unicode_decode(make(m, data), "UTF-8"))
    assert_same(lambda m: m.strings.unicode_split_with_offsets(make(m, data), "UTF-8"))
    assert_same(lambda m: m.strings.bytes_split(make(m, data)))


@pytest.mark.parametrize("errors", ["replace", "ignore"])
@pytest.mark.parametrize("replacement_char", [0xFFFD, ord("?")])
def test_ill_formed_utf8_matches_tensorflow(errors, replacement_char):
    assert_same(lambda m: m.strings.unicode_decode(BAD_UTF8, "UTF-8", errors=errors, replacement_char=replacement_char))
    assert_same(
        lambda m: m.strings.unicode_decode_with_offsets(
            BAD_UTF8, "UTF-8", errors=errors, replacement_char=replacement_char
        )
    )
    assert_same(lambda m: m.strings.unicode_split(BAD_UTF8, "UTF-8", errors=errors, replacement_char=replacement_char))


@pytest.mark.parametrize(
    "encoding, data",
    [
        ("UTF-16-BE", [b"\x00a\xd8\x00", b"\xdc\x00\x00b", b"\x00"]),
        ("UTF-32-BE", [b"\x00\x11\x00\x00", b"\x00\x00\xd8\x00\x00\x00\x00a", b"\x00\x00"]),
    ],
)
def test_ill_formed_utf16_utf32(encoding, data):
    assert_same(lambda m: m.strings.unicode_decode(data, encoding, errors="replace"))
    assert_same(lambda m: m.strings.unicode_decode(data, encoding, errors="ignore"))


def test_replace_control_characters():
    data = [b"a\x01b\n", b"\x1f"]
    utf16 = [x.decode().encode("utf-16-be") for x in data]
    for errors in ("strict", "replace", "ignore"):  # strict and replace replace them, ignore drops them
        assert_same(lambda m: m.strings.unicode_decode(data, "UTF-8", errors, replace_control_characters=True))
        assert_same(lambda m: m.strings.unicode_decode(utf16, "UTF-16-BE", errors, replace_control_characters=True))
    with tw.Graph().as_default(), tw.Session() as sess:
        x = tw.strings.unicode_transcode(data, "UTF-8", "UTF-8", errors="strict", replace_control_characters=True)
        with pytest.raises(tw.errors.InvalidArgumentError, match="Invalid formatting"):
            sess.run(x)


@pytest.mark.parametrize("bad", BAD_UTF8[:3])
def test_strict_is_invalid_argument_naming_the_node(bad):
    with tw.Graph().as_default(), tw.Session() as sess:
        x = tw.placeholder(tw.string, [None])
        cp = tw.strings.unicode_decode(x, "UTF-8", errors="strict", name="decode_me")
        with pytest.raises(tw.errors.InvalidArgumentError, match="Invalid formatting on input string") as info:
            sess.run(cp, {x: [b"fine", bad]})
        assert "decode_me" in str(info.value)
        assert sess.run(cp, {x: [b"fine"]}).to_list() == [[102, 105, 110, 101]]
    with tf1.Graph().as_default(), tf1.Session() as sess:
        with pytest.raises(tf1.errors.InvalidArgumentError):
            sess.run(tf1.strings.unicode_decode([b"fine", bad], "UTF-8", errors="strict"))


def test_bad_attrs_are_errors():
    with tw.Graph().as_default(), tw.Session() as sess:
        with pytest.raises(ValueError):
            tw.strings.unicode_decode(["a"], "UTF-8", errors="loud")
        cp = tw.strings.unicode_decode(["a"], "latin-9")
        with pytest.raises(tw.errors.InvalidArgumentError, match="Unsupported encoding"):
            sess.run(cp)
        cp = tw.strings.unicode_decode([b"\xff"], "UTF-8", replacement_char=0x110000)
        with pytest.raises(tw.errors.InvalidArgumentError, match="replacement_char"):
            sess.run(cp)


def test_static_shapes_and_op_types():
    for m in (tw, tf1):
        with m.Graph().as_default():
            rt = m.strings.unicode_decode(["a", "b", "c"], "UTF-8")
            assert rt.shape.as_list() == [3, None]
            assert rt.row_splits.shape.as_list() == [4]
            assert rt.values.op.type == "UnicodeDecode"
            assert m.strings.unicode_decode("abc", "UTF-8").shape.as_list() == [None]
            assert m.strings.unicode_decode([["a"], ["b"]], "UTF-8").shape.as_list() == [2, 1, None]
            cp, starts = m.strings.unicode_decode_with_offsets(["a"], "UTF-8")
            assert cp.values.op.type == "UnicodeDecodeWithOffsets" and starts.dtype == m.int64


def test_random_utf8_round_trips_through_decode_and_encode():
    rng = np.random.default_rng(1)
    code_points = [c for c in rng.integers(1, 0x10FFFF, 400) if not 0xD800 <= c <= 0xDFFF]
    strings = ["".join(chr(c) for c in code_points[i : i + 17]) for i in range(0, len(code_points), 17)]
    data = [s.encode("utf-8") for s in strings]
    with tw.Graph().as_default(), tw.Session() as sess:
        rt = tw.strings.unicode_decode(data, "UTF-8")
        got, back = sess.run([rt, tw.strings.unicode_encode(rt, "UTF-8")])
    assert got.to_list() == [[ord(c) for c in s] for s in strings]
    assert back.tolist() == data


def test_unicode_script_matches_tensorflow():
    chars = [ord(c) for c in "aЖ1 日あ한αשع"] + [0x10FFFF + 1, -5]
    ours, theirs = run_both(lambda m: m.strings.unicode_script(chars))
    assert ours.tolist() == theirs.tolist()
    assert ours.dtype == np.int32
    with tw.Graph().as_default():
        assert tw.strings.unicode_script([[97]]).op.type == "UnicodeScript"
        assert tw.strings.unicode_script([[97]]).shape.as_list() == [1, 1]


@pytest.mark.parametrize(
    "build",
    [
        lambda m: m.strings.split(["a b", " c  d "], result_type="RaggedTensor"),
        lambda m: m.strings.split(["a,b,,c", ""], sep=",", result_type="RaggedTensor"),
        lambda m: m.strings.split(["a,b,,c"], sep=",", maxsplit=1, result_type="RaggedTensor"),
        lambda m: m.strings.split([["a b", "c"], ["d", ""]], result_type="RaggedTensor"),
        lambda m: m.strings.split("x y", result_type="RaggedTensor"),
        lambda m: m.strings.split([["a b", "c"], ["d", ""]]),  # rank 2, SparseTensor
        lambda m: m.string_split(["a b", "c"], result_type="RaggedTensor"),
        lambda m: m.string_split(["a,b", "c"], sep=",", result_type="RaggedTensor"),
    ],
)
def test_split_ragged_results_match_tensorflow(build):
    ours, theirs = run_both(build)
    if hasattr(theirs, "indices"):
        for a, b in zip(ours, theirs):
            assert a.tolist() == b.tolist()
    else:
        assert ours.to_list() == theirs.to_list()
        assert ours.row_splits.dtype == theirs.row_splits.dtype


def test_bytes_split_matches_tensorflow():
    data = ["héllo", "", "ab"]
    assert_same(lambda m: m.strings.bytes_split(data))
    assert_same(lambda m: m.strings.bytes_split("xyz"))


def _random_strings(encoding, rng, count=300):
    if encoding == "UTF-8":
        pool = [
            b"\x80",
            b"\xbf",
            b"\xc0",
            b"\xc2",
            b"\xe0",
            b"\xe0\xa0",
            b"\xed\xa0",
            b"\xf0\x90",
            b"\xf4\x90",
            b"\xf5",
            b"\xff",
            b"a",
            b"\xc3\xa9",
            b"\xe2\x82\xac",
            b"\xf0\x9f\x98\x8a",
            b"\x00",
            b"\x01",
        ]
        return [b"".join(pool[i] for i in rng.integers(0, len(pool), rng.integers(0, 8))) for _ in range(count)]
    alphabet = [0x00, 0xD8, 0xDC, 0x41, 0xFF] if encoding == "UTF-16-BE" else [0x00, 0x10, 0x11, 0xD8, 0x41]
    return [bytes(rng.choice(alphabet, rng.integers(0, 13)).astype(np.uint8)) for _ in range(count)]


@pytest.mark.parametrize("encoding", ["UTF-8", "UTF-16-BE", "UTF-32-BE"])
def test_random_ill_formed_input_matches_tensorflow(encoding):
    data = _random_strings(encoding, np.random.default_rng(5))
    modes = [(e, c) for e in ("replace", "ignore") for c in (False, True)]

    def build(m):
        out = []
        for errors, control in modes:
            out.extend(
                m.strings.unicode_decode_with_offsets(data, encoding, errors=errors, replace_control_characters=control)
            )
            out.append(
                m.strings.unicode_transcode(data, encoding, "UTF-8", errors=errors, replace_control_characters=control)
            )
        return out

    ours, theirs = run_both(build)
    for a, b in zip(ours, theirs):
        assert as_list(a) == as_list(b)


@pytest.mark.parametrize(
    "build",
    [
        lambda m: m.strings.ngrams(m.ragged.constant([["a", "b", "c"], [], ["d"]]), 2),
        lambda m: m.strings.ngrams(m.ragged.constant([["a", "b", "c"], ["d"]]), [1, 3], pad_values="#"),
        lambda m: m.strings.ngrams(m.ragged.constant([[["a", "b"], ["c"]], [["d", "e", "f"]]]), 2, separator="-"),
        lambda m: m.strings.ngrams(m.ragged.constant([["a"], ["d"]]), 2, preserve_short_sequences=True),
        lambda m: m.strings.ngrams(m.strings.unicode_split(["héllo", "ab"], "UTF-8"), 2, separator=""),
    ],
)
def test_ngrams_of_ragged_tensors_match_tensorflow(build):
    assert_same(build)

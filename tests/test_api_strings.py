"""tw.strings and TF1's top-level string names against Python's own string functions (independent of
TensorFlow), the op types they build, SparseTensor fetches, and errors naming the node."""

import re

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


def b(*items):
    return [s.encode() for s in items]


def test_join_broadcasts_scalars():
    y = tw.string_join([["a", "b"], "x"], separator="-")
    assert y.op.type == "StringJoin"
    assert run(y).tolist() == b("a-x", "b-x")


def test_string_split_is_a_sparse_tensor_of_python_tokens():
    source = ["a b  c", "", "d"]
    sp = tw.string_split(source)
    assert isinstance(sp, tw.SparseTensor) and sp.values.op.type == "StringSplit"
    value = run(sp)
    assert isinstance(value, tw.SparseTensorValue)
    tokens = [s.split() for s in source]
    assert value.values.tolist() == [t.encode() for row in tokens for t in row]
    assert value.indices.tolist() == [[i, j] for i, row in enumerate(tokens) for j in range(len(row))]
    assert value.dense_shape.tolist() == [3, max(len(r) for r in tokens)]


@pytest.mark.parametrize("sep,maxsplit", [(None, -1), (None, 1), (",", -1), (",", 1), ("<>", -1)])
def test_strings_split_is_python_str_split(sep, maxsplit):
    source = [" a  b ,c", "x,,y<>z", ""]
    sp = tw.strings.split(source, sep=sep, maxsplit=maxsplit)
    assert sp.values.op.type == "StringSplitV2"
    value = run(sp)
    want = [s.split(sep, maxsplit) for s in source]
    assert value.values.tolist() == [t.encode() for row in want for t in row]


def test_substr_and_its_range_error():
    y = tw.substr(["hello", "world"], [1, -2], [3, 5])
    assert y.op.type == "Substr"
    assert run(y).tolist() == [b"hello"[1:4], b"world"[-2:]]
    with pytest.raises(tw.errors.InvalidArgumentError, match="pos 6 out of range"):
        run(tw.substr(["hello"], 6, 1, name="cut"))


def test_numbers_parse_and_format_as_python():
    y = tw.string_to_number(["1.5", " -2 ", "1e3"], out_type=tw.float64)
    assert y.op.type == "StringToNumber"
    np.testing.assert_array_equal(run(y), [1.5, -2.0, 1e3])
    with pytest.raises(tw.errors.InvalidArgumentError, match="abc"):
        run(tw.string_to_number(["abc"]))
    f = tw.as_string([1.5, -0.125], precision=3)
    assert f.op.type == "AsString"
    assert run(f).tolist() == [("%.3f" % v).encode() for v in (1.5, -0.125)]
    assert run(tw.as_string([7, -3], width=4, fill="0")).tolist() == [b"%04d" % 7, b"%04d" % -3]


def test_hash_buckets_are_farmhash_fingerprint64():
    # FarmHash Fingerprint64 reference values (farmhash's own test vectors: Fingerprint64 of "" is k2).
    y = tw.string_to_hash_bucket_fast([""], 2**63 - 1)
    assert y.op.type == "StringToHashBucketFast"
    assert int(run(y)[0]) == 0x9AE16A3B2F90404F % (2**63 - 1)


def test_regex_as_python_re():
    s = ["a1b22", "none", "x9"]
    y = tw.regex_replace(s, "([a-z])([0-9])", r"\2\1")
    assert y.op.type == "StaticRegexReplace"  # as TF for a Python string pattern
    assert run(y).tolist() == [re.sub("([a-z])([0-9])", r"\2\1", v).encode() for v in s]
    m = tw.strings.regex_full_match(s, "[a-z][0-9]+")
    assert m.op.type == "StaticRegexFullMatch"
    assert run(m).tolist() == [re.fullmatch("[a-z][0-9]+", v) is not None for v in s]
    with pytest.raises(tw.errors.InvalidArgumentError, match="Invalid pattern"):
        run(tw.regex_replace(["a"], "(", "x"))
    # A pattern computed in the graph: the op reads it at run time.
    dynamic = tw.regex_replace(s, tw.constant("([a-z])([0-9])"), r"\2\1")
    assert dynamic.op.type == "RegexReplace"
    assert run(dynamic).tolist() == run(y).tolist()


def test_length_case_strip():
    s = ["", "AbC", " héllo\t"]
    assert tw.strings.length(s).op.type == "StringLength"
    assert run(tw.strings.length(s)).tolist() == [len(v.encode()) for v in s]
    assert run(tw.strings.length(s, unit="UTF8_CHAR")).tolist() == [len(v) for v in s]
    assert tw.strings.lower(s).op.type == "StringLower" and tw.strings.upper(s).op.type == "StringUpper"
    assert run(tw.strings.lower(["AbC"])).tolist() == [b"abc"]
    assert run(tw.strings.upper(["AbC"])).tolist() == [b"ABC"]
    assert tw.string_strip(s).op.type == "StringStrip"
    assert run(tw.string_strip(s)).tolist() == [v.strip().encode() for v in s]


def test_reduce_join_orders_as_tensorflow():
    x = np.array([["a", "b"], ["c", "d"]])
    y = tw.reduce_join(x, 0)
    assert y.op.type == "ReduceJoin"
    assert run(y).tolist() == b("ac", "bd")
    assert run(tw.reduce_join(x, [0, 1])) == b"acbd"
    assert run(tw.reduce_join(x)) == b"abcd"
    assert run(tw.reduce_join(x, 1, keep_dims=True, separator=".")).tolist() == [[b"a.b"], [b"c.d"]]
    with pytest.raises(ValueError):
        tw.reduce_join(x, 2)


def test_string_ops_are_not_differentiable():
    x = tw.constant(1.0)
    y = tw.string_to_number(tw.as_string(x))
    assert tw.gradients(y, [x]) == [None]


def test_strong_hash_is_siphash_2_4():
    # SipHash-2-4's reference vector: key 00..0f, message 00..0e (15 bytes) -> 0xa129ca6149be45e5.
    key = [int.from_bytes(bytes(range(8)), "little"), int.from_bytes(bytes(range(8, 16)), "little")]
    message = bytes(range(15))
    y = tw.string_to_hash_bucket_strong(tw.constant([message]), 2**63 - 1, key)
    assert y.op.type == "StringToHashBucketStrong"
    assert int(run(y)[0]) == 0xA129CA6149BE45E5 % (2**63 - 1)

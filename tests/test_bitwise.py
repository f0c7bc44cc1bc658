"""tw.bitwise and tw.math.popcount against numpy (an independent oracle): every integer dtype, broadcasting,
TensorFlow's clamping of out-of-range shift counts, hostile shift counts, errors, no gradient."""

import numpy as np
import pytest
import tensorweave as tw

INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def run(fetch, feed=None):
    with tw.Session() as sess:
        return sess.run(fetch, feed)


@pytest.fixture(autouse=True)
def fresh_graph():
    with tw.Graph().as_default():
        yield


def random_ints(dtype, shape, seed):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_and_or_xor_invert_match_numpy(dtype):
    x = random_ints(dtype, [4, 5], 1)
    y = random_ints(dtype, [5], 2)  # broadcast along the rows
    ops = [
        tw.bitwise.bitwise_and(x, y),
        tw.bitwise.bitwise_or(x, y),
        tw.bitwise.bitwise_xor(x, y),
        tw.bitwise.invert(x),
    ]
    assert [o.op.type for o in ops] == ["BitwiseAnd", "BitwiseOr", "BitwiseXor", "Invert"]
    got = run(ops)
    for g, want in zip(got, [x & y, x | y, x ^ y, ~x]):
        assert g.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(g, want)


def clamped_shift_oracle(x, y, left):
    """TensorFlow's rule: the count is clamped to [0, bits - 1]; shifts wrap in the unsigned type."""
    bits = x.dtype.itemsize * 8
    counts = np.clip(y.astype(np.int64) if x.dtype.kind == "i" else y.astype(np.uint64), 0, bits - 1)
    out = []
    for a, c in zip(x.ravel().tolist(), counts.ravel().tolist()):
        if left:
            v = (a << int(c)) & ((1 << bits) - 1)
            if x.dtype.kind == "i" and v >= 1 << (bits - 1):
                v -= 1 << bits
        else:
            v = a >> int(c)  # Python's >> is arithmetic for negative ints
        out.append(v)
    return np.array(out, dtype=x.dtype).reshape(x.shape)


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_shifts_clamp_out_of_range_counts(dtype):
    x = random_ints(dtype, [64], 3)
    y = random_ints(dtype, [64], 4)  # mostly far out of [0, bits): hostile counts
    bits = np.dtype(dtype).itemsize * 8
    y[:8] = np.array([0, 1, bits - 1, bits, bits + 1, 2 * bits, 3, 5], dtype=dtype)
    left, right = run([tw.bitwise.left_shift(x, y), tw.bitwise.right_shift(x, y)])
    np.testing.assert_array_equal(left, clamped_shift_oracle(x, y, True))
    np.testing.assert_array_equal(right, clamped_shift_oracle(x, y, False))


def test_popcount_matches_bin_count():
    for dtype in INT_DTYPES:
        x = random_ints(dtype, [50], 5)
        got = run(tw.math.popcount(x))
        assert got.dtype == np.uint8
        bits = np.dtype(dtype).itemsize * 8
        want = [bin(int(v) & ((1 << bits) - 1)).count("1") for v in x]
        assert got.tolist() == want


def test_static_shapes_and_placeholders():
    p = tw.placeholder(tw.int32, [None, 1])
    z = tw.bitwise.bitwise_and(p, tw.constant([1, 2, 3]))
    assert z.shape.as_list() == [None, 3]
    np.testing.assert_array_equal(run(z, {p: [[3], [6]]}), [[1, 2, 3], [0, 2, 2]])
    assert tw.math.popcount(p).shape.as_list() == [None, 1]


def test_errors():
    with pytest.raises(TypeError):
        tw.bitwise.bitwise_and(tw.constant([1.0]), tw.constant([2.0]))
    with pytest.raises(ValueError):
        tw.bitwise.bitwise_or(tw.constant([1, 2]), tw.constant([1, 2, 3]))
    a = tw.placeholder(tw.int32)
    z = tw.bitwise.left_shift(a, tw.constant([1, 2, 3]))
    with pytest.raises(tw.errors.InvalidArgumentError, match="Incompatible shapes"):
        run(z, {a: [1, 2]})


def test_not_differentiable():
    x = tw.constant([1, 2])
    for y in (tw.bitwise.bitwise_xor(x, 3), tw.bitwise.invert(x), tw.math.popcount(x)):
        assert tw.gradients(tw.cast(y, tw.float32), [x]) == [None]


def test_op_types():
    x = tw.constant([1, 2])
    assert tw.bitwise.left_shift(x, 1).op.type == "LeftShift"
    assert tw.bitwise.right_shift(x, 1).op.type == "RightShift"
    assert tw.math.popcount(x).op.type == "PopulationCount"

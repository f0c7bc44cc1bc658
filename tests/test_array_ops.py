"""Array ops against numpy, including the errors bad input must give."""

import numpy as np
import pytest

import tensorweave as tw

RNG = np.random.default_rng(0)
X = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)


def run(t, feed=None):
    with tw.Session() as sess:
        return sess.run(t, feed)


@pytest.fixture(autouse=True)
def graph():
    with tw.Graph().as_default() as g:
        yield g


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_])
@pytest.mark.parametrize("perm", [None, [1, 0, 2, 3], [0, 3, 1, 2], [0, 2, 3, 1], [3, 1, 2, 0], [0, 1, 2, 3]])
def test_transpose_matches_numpy(dtype, perm):
    x = X.astype(dtype)
    np.testing.assert_array_equal(run(tw.transpose(x, perm)), np.transpose(x, perm))


def test_transpose_large_2d_and_nhwc_fast_paths():
    m = RNG.standard_normal((300, 517)).astype(np.float32)
    np.testing.assert_array_equal(run(tw.transpose(m)), m.T)
    nhwc = RNG.standard_normal((3, 33, 17, 40))
    np.testing.assert_array_equal(run(tw.transpose(nhwc, [0, 3, 1, 2])), nhwc.transpose(0, 3, 1, 2))


def test_transpose_strings_and_unknown_rank():
    s = np.array([[b"a", b"b"], [b"c", b"d"]], dtype=object)
    np.testing.assert_array_equal(run(tw.transpose(tw.constant(s))), s.T)
    p = tw.placeholder(tw.float32)
    np.testing.assert_array_equal(run(tw.transpose(p), {p: X}), X.T)


def test_transpose_bad_permutation():
    with pytest.raises(ValueError, match="repeated"):
        tw.transpose(X, [0, 0, 1, 2])
    p = tw.placeholder(tw.int32, [4])
    t = tw.transpose(X, p, name="my_transpose")
    with pytest.raises(tw.errors.InvalidArgumentError, match="my_transpose"):
        run(t, {p: [0, 1, 2, 7]})


def test_invert_permutation():
    np.testing.assert_array_equal(run(tw.invert_permutation([2, 0, 3, 1])), [1, 3, 0, 2])
    g = tw.get_default_graph()
    assert g._create_op("InvertPermutation", [tw.constant([1, 0])]).type == "InvertPermutation"


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_concat(axis):
    a = RNG.standard_normal((2, 3, 4))
    b = RNG.standard_normal((2, 3, 4))
    c = np.concatenate([a, b, a], axis=axis)
    t = tw.concat([a, b, a], axis=axis)
    assert t.op.type == "ConcatV2" and t.shape == c.shape
    np.testing.assert_array_equal(run(t), c)


def test_concat_errors():
    with pytest.raises(ValueError, match="Dimension 1"):
        tw.concat([np.zeros((2, 3)), np.zeros((2, 4))], 0)
    p = tw.placeholder(tw.float32, [None, None])
    t = tw.concat([p, np.zeros((2, 3), np.float32)], 0, name="cat")
    with pytest.raises(tw.errors.InvalidArgumentError, match="cat"):
        run(t, {p: np.zeros((2, 5), np.float32)})
    with pytest.raises(ValueError, match="Shape must be at least rank 3 but is rank 2"):  # TF's wording
        tw.concat([np.zeros((2, 3)), np.zeros((2, 3))], 2)
    with pytest.raises(ValueError, match=r"Expected concatenating dimensions in the range \[-2, 2\), but got -3"):
        tw.concat([np.zeros((2, 3)), np.zeros((2, 3))], -3)


def test_split_and_split_v():
    x = np.arange(24).reshape(4, 6)
    parts = tw.split(x, 3, axis=1)
    assert parts[0].op.type == "Split"
    for got, want in zip(run(parts), np.split(x, 3, axis=1)):
        np.testing.assert_array_equal(got, want)
    parts = tw.split(x, [1, -1, 2], axis=1)
    assert parts[0].op.type == "SplitV" and parts[1].shape == (4, 3)
    for got, want in zip(run(parts), np.split(x, [1, 4], axis=1)):
        np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="evenly divide"):
        tw.split(x, 4, axis=1)
    with pytest.raises(ValueError, match="size_splits"):
        tw.split(x, [2, 2], axis=1)
    sizes = tw.placeholder(tw.int32, [2])
    parts = tw.split(x, sizes, axis=0, name="sv")
    with pytest.raises(tw.errors.InvalidArgumentError, match="sv"):
        run(parts, {sizes: [3, 3]})


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_stack_unstack(axis):
    vals = [RNG.standard_normal((3, 4)) for _ in range(5)]
    stacked = tw.stack(vals, axis=axis)
    assert stacked.op.type == "Pack"
    np.testing.assert_array_equal(run(stacked), np.stack(vals, axis=axis))
    parts = tw.unstack(np.stack(vals, axis=axis), axis=axis)
    assert parts[0].op.type == "Unpack" and len(parts) == 5
    for got, want in zip(run(parts), vals):
        np.testing.assert_array_equal(got, want)


def test_stack_mismatched_shapes():
    # TensorFlow's words: its Pack shape function merges the shapes from the last one back.
    with pytest.raises(ValueError, match=r"^Dimension 0 in both shapes must be equal, but are 2 and 3\. Shapes are"):
        tw.stack([np.zeros(2), np.zeros(3)])


def test_slice():
    t = tw.slice(X, [1, 0, 1, 2], [1, -1, 2, 3])
    assert t.op.type == "Slice" and t.shape == (1, 3, 2, 3)
    np.testing.assert_array_equal(run(t), X[1:2, :, 1:3, 2:5])
    with pytest.raises(ValueError, match="size"):
        tw.slice(X, [0, 0, 0, 0], [3, 1, 1, 1])
    b = tw.placeholder(tw.int32, [4])
    t = tw.slice(X, b, [1, 1, 1, 1], name="sl")
    with pytest.raises(tw.errors.InvalidArgumentError, match="sl"):
        run(t, {b: [5, 0, 0, 0]})


SLICES = [
    np.s_[1],
    np.s_[-1],
    np.s_[:, 1:3],
    np.s_[::-1],
    np.s_[..., ::2],
    np.s_[..., -1],
    np.s_[None, 1, ..., None, 2],
    np.s_[:, ::-2, 1:-1, 4:0:-3],
    np.s_[1, 2, 3, 4],
    np.s_[:, -100:100],
    np.s_[5:2],
    np.s_[1, None],
    np.s_[0, ..., 0, :, None],
    np.s_[:, :, :, :, None],
]


@pytest.mark.parametrize("key", SLICES, ids=[str(k) for k in SLICES])
def test_getitem_matches_numpy(key):
    t = tw.constant(X)[key]
    assert t.op.type == "StridedSlice"
    want = X[key]
    assert tuple(t.shape.as_list()) == want.shape
    np.testing.assert_array_equal(run(t), want)


def test_getitem_with_tensor_indices_and_variables():
    i = tw.placeholder(tw.int32, [])
    t = tw.constant(X)[i, 1:i]
    np.testing.assert_array_equal(run(t, {i: 2 - 1}), X[1, 1:1])
    np.testing.assert_array_equal(run(t, {i: -1}), X[-1, 1:-1])
    v = tw.Variable(np.arange(6.0))
    with tw.Session() as sess:
        sess.run(tw.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(v[::2]), [0.0, 2.0, 4.0])


def test_getitem_errors():
    with pytest.raises(ValueError, match="out of bounds"):
        tw.constant(X)[2]
    with pytest.raises(ValueError, match="step"):
        tw.constant(X)[::0]
    with pytest.raises(TypeError):
        tw.constant(X)[1.5]
    with pytest.raises(ValueError, match="Multiple ellipses"):
        tw.constant(X)[..., 1, ...]
    i = tw.placeholder(tw.int32, [])
    t = tw.constant(X)[i]
    with pytest.raises(tw.errors.InvalidArgumentError, match="strided_slice"):
        run(t, {i: 7})


def test_strided_slice_masks_directly():
    # begin_mask on dim 0, end_mask on dim 1, shrink dim 2: X[:2, 1:, 3]
    t = tw.strided_slice(X, [1, 1, 3], [2, 0, 4], [1, 1, 1], begin_mask=1, end_mask=2, shrink_axis_mask=4)
    np.testing.assert_array_equal(run(t), X[:2, 1:, 3])


def test_strided_slice_grad_op():
    g = tw.get_default_graph()
    dy = np.ones((2, 2), np.float32)
    op = g._create_op(
        "StridedSliceGrad",
        [tw.constant([3, 4]), tw.constant([0, 3]), tw.constant([3, 0]), tw.constant([2, -2]), tw.constant(dy)],
    )
    want = np.zeros((3, 4), np.float32)
    want[0:3:2, 3:0:-2] = 1
    np.testing.assert_array_equal(run(op.outputs[0]), want)


@pytest.mark.parametrize("mode", ["CONSTANT", "REFLECT", "SYMMETRIC"])
def test_pad(mode):
    x = RNG.standard_normal((3, 4))
    paddings = [[1, 2], [2, 0]]
    np_mode = {"CONSTANT": "constant", "REFLECT": "reflect", "SYMMETRIC": "symmetric"}[mode]
    t = tw.pad(x, paddings, mode=mode.lower())
    assert t.op.type == ("Pad" if mode == "CONSTANT" else "MirrorPad")
    np.testing.assert_array_equal(run(t), np.pad(x, paddings, mode=np_mode))


def test_pad_constant_values_and_errors():
    t = tw.pad([[1, 2]], [[1, 0], [0, 1]], constant_values=7)
    assert t.op.type == "PadV2"
    np.testing.assert_array_equal(run(t), np.pad([[1, 2]], [[1, 0], [0, 1]], constant_values=7))
    with pytest.raises(ValueError, match="non-negative"):
        tw.pad([1, 2], [[-1, 0]])
    with pytest.raises(tw.errors.InvalidArgumentError, match="REFLECT"):
        run(tw.pad([1, 2, 3], [[3, 0]], mode="REFLECT"))
    with pytest.raises(ValueError, match="mode"):
        tw.pad([1], [[1, 1]], mode="WRAP")


def test_mirror_pad_grad_op():
    g = tw.get_default_graph()
    grad = np.arange(7.0)  # MirrorPad([a, b, c], [[2, 2]], REFLECT) = [c b a b c b a]
    op = g._create_op("MirrorPadGrad", [tw.constant(grad), tw.constant([[2, 2]])], {"mode": "REFLECT"})
    np.testing.assert_array_equal(run(op.outputs[0]), [2 + 6, 1 + 3 + 5, 0 + 4])


def test_tile():
    x = np.arange(6).reshape(2, 3)
    t = tw.tile(x, [2, 3])
    assert t.op.type == "Tile" and t.shape == (4, 9)
    np.testing.assert_array_equal(run(t), np.tile(x, [2, 3]))
    np.testing.assert_array_equal(run(tw.tile(x, [0, 1])), np.zeros((0, 3)))
    with pytest.raises(ValueError, match="multiples"):
        tw.tile(x, [2])
    with pytest.raises(ValueError, match="multiples"):
        tw.tile(x, [2, -1])


def test_expand_dims_squeeze():
    x = np.zeros((2, 1, 3, 1))
    assert run(tw.expand_dims(x, 0)).shape == (1, 2, 1, 3, 1)
    assert tw.expand_dims(x, -1).op.type == "ExpandDims"
    assert run(tw.expand_dims(x, -1)).shape == (2, 1, 3, 1, 1)
    assert tw.squeeze(x).op.type == "Squeeze"
    assert run(tw.squeeze(x)).shape == (2, 3)
    assert run(tw.squeeze(x, [-1])).shape == (2, 1, 3)
    with pytest.raises(ValueError, match="squeeze dim"):
        tw.squeeze(x, [0])
    with pytest.raises(ValueError, match=r"dim 6 not in the interval \[-5, 4\]\."):  # TF's wording
        tw.expand_dims(x, 6)
    p = tw.placeholder(tw.float32, [None])
    with pytest.raises(tw.errors.InvalidArgumentError, match="squeeze"):
        run(tw.squeeze(p, [0]), {p: np.zeros(2)})


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_gather(axis):
    params = RNG.standard_normal((4, 5, 3))
    indices = np.array([[3, 0], [1, 1], [2, 0]])
    indices = indices % params.shape[axis]
    t = tw.gather(params, indices, axis=axis)
    assert t.op.type == "GatherV2"
    want = np.take(params, indices, axis=axis)
    assert t.shape == want.shape
    np.testing.assert_array_equal(run(t), want)


def test_gather_legacy_op_and_strings():
    g = tw.get_default_graph()
    s = np.array([b"x", b"y", b"z"], dtype=object)
    op = g._create_op("Gather", [tw.constant(s), tw.constant([2, 0, 2])])
    np.testing.assert_array_equal(run(op.outputs[0]), s[[2, 0, 2]])


def test_gather_out_of_range_is_an_error_naming_index_and_node():
    idx = tw.placeholder(tw.int64, [None])
    t = tw.gather(np.arange(5.0), idx, name="lookup")
    with pytest.raises(tw.errors.InvalidArgumentError, match=r"indices\[1\] = 5 is not in \[0, 5\)") as e:
        run(t, {idx: [0, 5]})
    assert "lookup" in str(e.value)
    with pytest.raises(tw.errors.InvalidArgumentError, match=r"= -1 is not in"):
        run(t, {idx: [-1]})


def test_unsorted_segment_sum():
    data = RNG.standard_normal((4, 3))
    ids = np.array([2, 0, 2, -1])
    want = np.zeros((3, 3))
    for i, s in enumerate(ids):
        if s >= 0:
            want[s] += data[i]
    t = tw.unsorted_segment_sum(data, ids, 3)
    assert t.op.type == "UnsortedSegmentSum"
    np.testing.assert_allclose(run(t), want)
    with pytest.raises(tw.errors.InvalidArgumentError, match="out of range"):
        run(tw.unsorted_segment_sum(data, [0, 1, 2, 3], 3))
    with pytest.raises(ValueError, match="prefix"):
        tw.unsorted_segment_sum(data, [0, 1], 3)


def test_one_hot():
    idx = np.array([[0, 2], [5, -1]])
    t = tw.one_hot(idx, 3)
    assert t.op.type == "OneHot" and t.dtype == tw.float32
    want = (idx[..., None] == np.arange(3)).astype(np.float32)
    np.testing.assert_array_equal(run(t), want)
    t = tw.one_hot(idx, 3, on_value=5, off_value=-1, axis=0)
    np.testing.assert_array_equal(run(t), np.where(np.moveaxis(want, -1, 0) > 0, 5, -1))
    with pytest.raises(ValueError, match="axis"):
        tw.one_hot(idx, 3, axis=4)


def test_where():
    x = np.array([[0, 3, 0], [1, 0, 2]])
    t = tw.where(x)
    assert t.op.type == "Where" and t.dtype == tw.int64
    np.testing.assert_array_equal(run(t), np.argwhere(x))
    np.testing.assert_array_equal(run(tw.where(x > 0)), np.argwhere(x))
    assert run(tw.where(np.zeros((2, 2), bool))).shape == (0, 2)
    with pytest.raises(ValueError):
        tw.where(x, x)


def test_zeros_like_ones_like():
    x = np.arange(6.0).reshape(2, 3)
    # As TF's graph mode: a known shape gives zeros that do not read x (a Const), ones a Fill of the shape;
    # an unknown shape a ZerosLike of x, and ones a Fill of its Shape.
    with tw.Graph().as_default():
        assert tw.zeros_like(x).op.type == "Const"
        assert tw.zeros_like(x).op.name == "zeros_like_1"
    assert tw.ones_like(x).op.type == "Fill"
    p = tw.placeholder(tw.float32, [None, 3])
    assert tw.zeros_like(p).op.type == "ZerosLike"
    assert tw.ones_like(p).op.inputs[0].op.type == "Shape"
    assert tw.ones_like(p).shape.as_list() == [None, 3]
    np.testing.assert_array_equal(run(tw.ones_like(p), {p: x}), np.ones_like(x))
    np.testing.assert_array_equal(run(tw.zeros_like(p), {p: x}), np.zeros_like(x))
    np.testing.assert_array_equal(run(tw.zeros_like(x)), np.zeros_like(x))
    np.testing.assert_array_equal(run(tw.ones_like([True, False])), [True, True])
    z = tw.zeros_like(x, dtype=tw.int32)
    assert z.dtype == tw.int32
    np.testing.assert_array_equal(run(z), np.zeros((2, 3), np.int32))


def test_range():
    assert tw.range(5).op.type == "Range"
    np.testing.assert_array_equal(run(tw.range(5)), np.arange(5))
    np.testing.assert_array_equal(run(tw.range(10, 1, -3)), np.arange(10, 1, -3))
    np.testing.assert_allclose(run(tw.range(0.0, 1.0, 0.3)), np.arange(0.0, 1.0, 0.3), rtol=1e-6)
    assert tw.range(10, 1, -3).shape == (3,)
    with pytest.raises(ValueError, match="start <= limit"):
        tw.range(5, 1)
    with pytest.raises(ValueError, match="delta != 0"):
        tw.range(1, 5, 0)
    n = tw.placeholder(tw.int32, [])
    with pytest.raises(tw.errors.InvalidArgumentError, match="start <= limit"):
        run(tw.range(3, n), {n: 1})


def test_size_rank_stop_gradient():
    p = tw.placeholder(tw.float32)
    assert tw.size(p).op.type == "Size" and tw.rank(p).op.type == "Rank"
    assert run(tw.size(p), {p: X}) == X.size
    assert run(tw.size(p, out_type=tw.int64), {p: X}).dtype == np.int64
    assert run(tw.rank(p), {p: X}) == 4
    x = tw.constant([1.0, 2.0])
    s = tw.stop_gradient(x)
    assert s.op.type == "StopGradient"
    np.testing.assert_array_equal(run(s), [1.0, 2.0])
    assert tw.gradients(s, x) == [None]


def test_fill_gradient_is_the_sum():
    v = tw.constant(2.0)
    g = tw.gradients(tw.fill([2, 3], v), v, grad_ys=tw.constant(np.arange(6.0).reshape(2, 3), tw.float32))
    assert run(g[0]) == 15.0


def test_index_lists_may_mix_ints_and_scalar_tensors():
    n = tw.placeholder(tw.int32, [])
    t = tw.tile([[1, 2]], [n, 1])
    np.testing.assert_array_equal(run(t, {n: 3}), np.tile([[1, 2]], [3, 1]))
    np.testing.assert_array_equal(run(tw.reshape(tw.range(6), [n, -1]), {n: 2}), np.arange(6).reshape(2, 3))

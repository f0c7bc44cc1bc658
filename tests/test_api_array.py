"""Issue 16's array names against numpy (TensorFlow comparisons are the fidelity cases in
tests/fidelity/cases_array_nd.py): each builds TF1's op type, computes numpy's answer, and bad indices are an
InvalidArgumentError that names the node and the index."""

import numpy as np
import pytest

import tensorweave as tw

RNG = np.random.default_rng(16)


def run(t, feed=None):
    with tw.Session() as sess:
        return sess.run(t, feed)


@pytest.fixture(autouse=True)
def fresh_graph():
    with tw.Graph().as_default():
        yield


@pytest.mark.parametrize(
    "build, op_type",
    [
        (lambda: tw.gather_nd([[1, 2]], [[0, 1]]), "GatherNd"),
        (lambda: tw.scatter_nd([[1]], [2], [3]), "ScatterNd"),
        (lambda: tw.tensor_scatter_nd_update([1, 2], [[0]], [3]), "TensorScatterUpdate"),
        (lambda: tw.tensor_scatter_nd_add([1, 2], [[0]], [3]), "TensorScatterAdd"),
        (lambda: tw.tensor_scatter_nd_sub([1, 2], [[0]], [3]), "TensorScatterSub"),
        (lambda: tw.reverse([1, 2], [0]), "ReverseV2"),
        (lambda: tw.roll([1, 2], 1, 0), "Roll"),
        (lambda: tw.reverse_sequence([[1, 2]], [1], seq_axis=1), "ReverseSequence"),
        (lambda: tw.broadcast_to([1], [2]), "BroadcastTo"),
        (lambda: tw.space_to_depth(np.zeros([1, 2, 2, 1]), 2), "SpaceToDepth"),
        (lambda: tw.depth_to_space(np.zeros([1, 1, 1, 4]), 2), "DepthToSpace"),
        (lambda: tw.space_to_batch_nd(np.zeros([1, 2, 2, 1]), [2, 2], [[0, 0], [0, 0]]), "SpaceToBatchND"),
        (lambda: tw.batch_to_space_nd(np.zeros([4, 1, 1, 1]), [2, 2], [[0, 0], [0, 0]]), "BatchToSpaceND"),
        (
            lambda: tw.extract_image_patches(np.zeros([1, 2, 2, 1]), [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
            "ExtractImagePatches",
        ),
        (lambda: tw.identity_n([1, 2.0])[0], "IdentityN"),
        (lambda: tw.shape_n([[1], [2]])[0], "ShapeN"),
        (lambda: tw.ensure_shape([1], [1]), "EnsureShape"),
        (lambda: tw.bitcast(np.float32(1), tw.int32), "Bitcast"),
        (lambda: tw.searchsorted([1, 2], [1]).op.inputs[0], "LowerBound"),
        (lambda: tw.searchsorted([1, 2], [1], side="right").op.inputs[0], "UpperBound"),
    ],
)
def test_builds_tensorflows_op_type(build, op_type):
    assert build().op.type == op_type


def test_gather_nd_and_scatter_nd_match_numpy():
    params = RNG.normal(size=[4, 3, 5]).astype(np.float32)
    idx = RNG.integers(0, [4, 3], size=[6, 2])
    np.testing.assert_array_equal(run(tw.gather_nd(params, idx)), params[idx[:, 0], idx[:, 1]])
    updates = RNG.normal(size=[6, 5])
    expected = np.zeros([4, 3, 5])
    np.add.at(expected, (idx[:, 0], idx[:, 1]), updates)
    np.testing.assert_allclose(run(tw.scatter_nd(idx, updates, [4, 3, 5])), expected)
    base = RNG.normal(size=[4, 3, 5])
    uniq = np.unique(idx, axis=0)
    u = RNG.normal(size=[len(uniq), 5])
    want = base.copy()
    want[uniq[:, 0], uniq[:, 1]] = u
    np.testing.assert_allclose(run(tw.tensor_scatter_nd_update(base, uniq, u)), want)


@pytest.mark.parametrize(
    "build, message",
    [
        (
            lambda i: tw.gather_nd(np.zeros([2, 3]), i, name="g"),
            "indices[1] = [1, 3] does not index into param shape [2,3], node name: g",
        ),
        (lambda i: tw.scatter_nd(i, [1.0, 2.0], [2, 3], name="g"), "indices[1] = [1, 3] does not index into output"),
        (lambda i: tw.tensor_scatter_nd_add(np.zeros([2, 3]), i, [1.0, 2.0], name="g"), "indices[1] = [1, 3]"),
    ],
)
def test_bad_index_is_invalid_argument_naming_node_and_index(build, message):
    i = tw.placeholder(tw.int32, [None, 2])
    y = build(i)
    with pytest.raises(tw.errors.InvalidArgumentError) as info:
        run(y, {i: [[0, 0], [1, 3]]})
    assert message in str(info.value) and "node g" in str(info.value)
    # A negative index is as bad, never a read before the buffer.
    with pytest.raises(tw.errors.InvalidArgumentError):
        run(y, {i: [[0, -1], [0, 0]]})


def test_rearrangements_match_numpy():
    x = RNG.normal(size=[2, 6, 4, 3])
    np.testing.assert_array_equal(run(tw.reverse(x, [1, 3])), x[:, ::-1, :, ::-1])
    np.testing.assert_array_equal(run(tw.roll(x, [2, -1, 5], [1, 2, 1])), np.roll(x, [7, -1], [1, 2]))
    np.testing.assert_array_equal(
        run(tw.broadcast_to(x[:, :1], [5, 2, 6, 4, 3])), np.broadcast_to(x[:, :1], [5, 2, 6, 4, 3])
    )
    # space_to_depth is a reshape/transpose in numpy.
    b = 2
    want = x.reshape(2, 3, b, 2, b, 3).transpose(0, 1, 3, 2, 4, 5).reshape(2, 3, 2, 12)
    np.testing.assert_array_equal(run(tw.space_to_depth(x, b)), want)
    np.testing.assert_array_equal(run(tw.depth_to_space(want, b)), x)
    # space_to_batch_nd then batch_to_space_nd with the same paddings is the identity.
    pads = [[1, 1], [2, 0]]
    s2b = tw.space_to_batch_nd(x, [4, 3], pads)
    assert s2b.shape.as_list() == [24, 2, 2, 3]
    np.testing.assert_array_equal(run(tw.batch_to_space_nd(s2b, [4, 3], pads)), x)
    lengths = [3, 6]
    got = run(tw.reverse_sequence(x, lengths, seq_axis=1, batch_axis=0))
    for b_, n in enumerate(lengths):
        np.testing.assert_array_equal(got[b_, :n], x[b_, :n][::-1])
        np.testing.assert_array_equal(got[b_, n:], x[b_, n:])


def _patches_reference(x, k, s, r, padding):
    """ExtractImagePatches by its definition: every tap of every window, zero outside."""
    n, h, w, c = x.shape
    keff = [k[i] + (k[i] - 1) * (r[i] - 1) for i in (0, 1)]
    if padding == "VALID":
        out = [(d - kk) // ss + 1 for d, kk, ss in zip((h, w), keff, s)]
        pad = [0, 0]
    else:
        out = [-(-d // ss) for d, ss in zip((h, w), s)]
        pad = [max(0, (o - 1) * ss + kk - d) // 2 for o, ss, kk, d in zip(out, s, keff, (h, w))]
    y = np.zeros([n, out[0], out[1], k[0] * k[1] * c])
    for i in range(out[0]):
        for j in range(out[1]):
            for a in range(k[0]):
                for b in range(k[1]):
                    row, col = i * s[0] - pad[0] + a * r[0], j * s[1] - pad[1] + b * r[1]
                    if 0 <= row < h and 0 <= col < w:
                        y[:, i, j, (a * k[1] + b) * c : (a * k[1] + b + 1) * c] = x[:, row, col]
    return y


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_extract_image_patches_matches_its_definition(padding):
    x = RNG.normal(size=[2, 7, 6, 2])
    k, s, r = [3, 2], [2, 3], [2, 1]
    got = run(tw.extract_image_patches(x, [1, *k, 1], [1, *s, 1], [1, *r, 1], padding))
    np.testing.assert_array_equal(got, _patches_reference(x, k, s, r, padding))


def test_searchsorted_bitcast_linspace_match_numpy():
    seq = np.sort(RNG.integers(0, 20, size=[3, 10]), axis=1).astype(np.float32)
    vals = RNG.integers(-2, 22, size=[3, 7]).astype(np.float32)
    for side in ("left", "right"):
        want = np.stack([np.searchsorted(seq[i], vals[i], side=side) for i in range(3)])
        np.testing.assert_array_equal(run(tw.searchsorted(seq, vals, side=side)), want)
    f = RNG.normal(size=[4]).astype(np.float32)
    np.testing.assert_array_equal(run(tw.bitcast(f, tw.uint8)), f.view(np.uint8).reshape(4, 4))
    np.testing.assert_array_equal(run(tw.bitcast(f.view(np.uint16).reshape(4, 2), tw.float32)), f)
    np.testing.assert_allclose(run(tw.linspace(-1.0, 2.0, 7)), np.linspace(-1, 2, 7), rtol=1e-6)
    # The LinSpace op (TF1's kernel; tw.linspace is TF's composite, as compat.v1's).
    lin = tw.raw_ops.LinSpace(start=1.0, stop=0.0, num=5)
    assert lin.op.type == "LinSpace" and lin.shape.as_list() == [5]
    np.testing.assert_allclose(run(lin), np.linspace(1, 0, 5))
    n = tw.placeholder(tw.int32, [])
    with pytest.raises(tw.errors.InvalidArgumentError, match="num > 0"):
        run(tw.raw_ops.LinSpace(start=1.0, stop=0.0, num=n), {n: 0})


def test_shape_n_identity_n_ensure_shape():
    p = tw.placeholder(tw.float32, [None, 3])
    s = tw.shape_n([p, tw.constant([[1.0]])], out_type=tw.int64)
    got = run(s, {p: np.zeros([5, 3])})
    np.testing.assert_array_equal(got[0], [5, 3])
    assert got[0].dtype == np.int64
    a, b = tw.identity_n([p, tw.constant(2)])
    assert a.shape.as_list() == [None, 3] and b.dtype == tw.int32
    e = tw.ensure_shape(p, [4, 3], name="checked")
    assert e.shape.as_list() == [4, 3]
    with pytest.raises(tw.errors.InvalidArgumentError, match="checked"):
        run(e, {p: np.zeros([5, 3])})


def test_repeat_sequence_mask_boolean_mask_eye_match_numpy():
    x = RNG.normal(size=[3, 4])
    counts = [2, 0, 3, 1]
    np.testing.assert_array_equal(run(tw.repeat(x, counts, axis=1)), np.repeat(x, counts, axis=1))
    c = tw.placeholder(tw.int32, [3])
    np.testing.assert_array_equal(run(tw.repeat(x, c, axis=0), {c: [1, 0, 2]}), np.repeat(x, [1, 0, 2], axis=0))
    lengths = np.array([0, 4, 2])
    np.testing.assert_array_equal(run(tw.sequence_mask(lengths, 5)), np.arange(5) < lengths[:, None])
    mask = x > 0
    np.testing.assert_array_equal(run(tw.boolean_mask(x, mask)), x[mask])
    np.testing.assert_array_equal(run(tw.eye(3, 5, batch_shape=[2])), np.broadcast_to(np.eye(3, 5), [2, 3, 5]))


def test_broadcast_args_unravel_index_diag_check_numerics():
    s = tw.broadcast_dynamic_shape([5, 1, 3], [4, 1])
    assert s.op.type == "BroadcastArgs"
    np.testing.assert_array_equal(run(s), np.broadcast_shapes((5, 1, 3), (4, 1)))
    with pytest.raises(tw.errors.InvalidArgumentError, match="Incompatible shapes"):
        run(tw.broadcast_dynamic_shape([2, 3], [4]))
    flat = RNG.integers(0, 60, size=[7])
    u = tw.unravel_index(flat, [3, 4, 5])
    assert u.op.type == "UnravelIndex"
    np.testing.assert_array_equal(run(u), np.stack(np.unravel_index(flat, (3, 4, 5))))
    with pytest.raises(tw.errors.InvalidArgumentError, match="out of bounds"):
        run(tw.unravel_index([60], [3, 4, 5]))
    x = RNG.normal(size=[2, 3])
    d = run(tw.diag(x))
    np.testing.assert_array_equal(d, np.diag(x.ravel()).reshape(2, 3, 2, 3))
    np.testing.assert_array_equal(run(tw.diag_part(d)), x)
    ok = tw.check_numerics(x, "fine")
    np.testing.assert_array_equal(run(ok), x)
    with pytest.raises(tw.errors.InvalidArgumentError, match="probe : Tensor had Inf values"):
        run(tw.check_numerics([1.0, np.inf], "probe"))
    t = RNG.normal(size=[4, 3])
    idx = np.array([[3], [1]])
    upd = RNG.normal(size=[2, 3])
    want = t.copy()
    want[[3, 1]] = np.maximum(t[[3, 1]], upd)
    np.testing.assert_array_equal(run(tw.tensor_scatter_nd_max(t, idx, upd)), want)
    want = t.copy()
    want[[3, 1]] = np.minimum(t[[3, 1]], upd)
    np.testing.assert_array_equal(run(tw.tensor_scatter_nd_min(t, idx, upd)), want)


def test_hostile_sizes_are_errors_naming_the_node():
    shape = tw.placeholder(tw.int64, [2])
    b = tw.broadcast_to(tw.constant([1], tw.uint8), shape, name="wide")
    with pytest.raises(tw.errors.ResourceExhaustedError, match="wide"):
        run(b, {shape: [1, 2**50]})
    size = tw.placeholder(tw.int32, [4])
    g = tw.raw_ops.CropAndResizeGradImage(
        grads=np.zeros([1, 2, 2, 1], np.float32),
        boxes=[[0.0, 0.0, 1.0, 1.0]],
        box_ind=[0],
        image_size=size,
        T=tw.float32,
        name="huge",
    )
    with pytest.raises((tw.errors.InvalidArgumentError, tw.errors.ResourceExhaustedError), match="huge"):
        run(g, {size: [2**30, 2**30, 2**30, 1]})
    with pytest.raises(ValueError, match="ksizes and rates"):
        tw.extract_image_patches(np.zeros([1, 4, 4, 1]), [1, 2**40, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
    dims = tw.placeholder(tw.int32, [2])
    with pytest.raises(tw.errors.InvalidArgumentError, match="out of bounds"):
        run(tw.unravel_index([5], dims), {dims: [2, 2]})

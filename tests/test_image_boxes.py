"""tests for tensorweave._src.ops.image_box_ops: invariants of the random crops, numpy oracles of the
suppression, glimpse and volume-patch kernels, finite differences of ExtractVolumePatches' gradient, and
hostile inputs (NaN boxes, huge sizes, negative counts, empty inputs) that must give clear errors."""

import numpy as np
import pytest
import tensorweave as tw

RNG = np.random.RandomState(42)


def _run(fetches, feed=None):
    with tw.Session() as sess:
        return sess.run(fetches, feed)


@pytest.fixture(autouse=True)
def _graph():
    with tw.Graph().as_default():
        yield


# --- sample_distorted_bounding_box ---------------------------------------------------------------------------


def _check_crop(begin, size, bbox, h, w, area_range, aspect_range):
    assert begin[2] == 0 and size[2] == -1
    assert 0 <= begin[0] and 0 <= begin[1] and size[0] > 0 and size[1] > 0
    assert begin[0] + size[0] <= h and begin[1] + size[1] <= w
    np.testing.assert_allclose(
        bbox.reshape(4),
        [begin[0] / h, begin[1] / w, (begin[0] + size[0]) / h, (begin[1] + size[1]) / w],
        rtol=1e-6,
    )
    area = size[0] * size[1] / (h * w)
    full = size[0] == h and size[1] == w
    if not full:  # the fallback is the whole image
        assert area_range[0] - 1e-6 <= area <= area_range[1] + 1e-6
        # the aspect ratio is the sampled one rounded to whole pixels
        ratio = size[1] / size[0]
        assert aspect_range[0] - 1.0 / size[0] <= ratio <= aspect_range[1] + 1.0 / size[0]
    return full


def test_sample_distorted_bounding_box_invariants_and_coverage():
    h, w = 60, 80
    box = np.array([0.2, 0.3, 0.6, 0.7], np.float32)
    begin, size, bbox = tw.image.sample_distorted_bounding_box(
        [h, w, 3], box.reshape(1, 1, 4), seed=11, min_object_covered=0.5, area_range=[0.1, 0.9]
    )
    fallbacks = 0
    with tw.Session() as sess:
        for _ in range(200):
            b, s, bb = sess.run([begin, size, bbox])
            full = _check_crop(b, s, bb, h, w, [0.1, 0.9], [0.75, 1.33])
            fallbacks += full
            if not full:
                y0, x0, y1, x1 = int(box[0] * h), int(box[1] * w), int(box[2] * h), int(box[3] * w)
                iy = max(0, min(y1, b[0] + s[0]) - max(y0, b[0]))
                ix = max(0, min(x1, b[1] + s[1]) - max(x0, b[1]))
                assert iy * ix / ((y1 - y0) * (x1 - x0)) >= 0.5
    assert fallbacks < 20  # a crop is found almost always


def test_sample_distorted_bounding_box_seeds_determinism_and_variety():
    def crops(seed, seed2=None, runs=5):
        with tw.Graph().as_default():
            r = tw.image.sample_distorted_bounding_box([100, 100, 3], [[[0.0, 0.0, 1.0, 1.0]]], seed=seed, seed2=seed2)
            with tw.Session() as sess:
                return [tuple(sess.run(r[0]).tolist() + sess.run(r[1]).tolist()) for _ in range(runs)]

    a, b = crops(4), crops(4)
    assert a == b  # the same seeds in a fresh session: the same sequence
    assert len(set(a)) > 1  # successive runs continue the stream
    assert crops(4) != crops(5) and crops(4) != crops(4, 9)
    assert crops(None, runs=3) != crops(None, runs=3)  # unseeded: different every time (overwhelmingly)


def test_sample_distorted_bounding_box_fallback_and_no_boxes():
    r = tw.image.sample_distorted_bounding_box([12, 20, 3], [[[0.5, 0.5, 0.2, 0.2]]], seed=2)
    b, s, bb = _run(list(r))
    assert b.tolist() == [0, 0, 0] and s.tolist() == [12, 20, -1]
    np.testing.assert_array_equal(bb, [[[0, 0, 1, 1]]])
    with pytest.raises(tw.errors.InvalidArgumentError, match="No bounding boxes"):
        _run(tw.image.sample_distorted_bounding_box([12, 20, 3], np.zeros([1, 0, 4], np.float32))[0])


@pytest.mark.parametrize(
    "boxes,kwargs,match",
    [
        ([[[0.0, 0.0, np.nan, 1.0]]], {}, "must be in \\[0.0, 1.0\\]"),
        ([[[0.0, -0.1, 1.0, 1.0]]], {}, "must be in \\[0.0, 1.0\\]"),
        ([[[0.0, 0.0, 1.0, 1.0]]], {"area_range": [0.0, 1.0]}, "area_range"),
        ([[[0.0, 0.0, 1.0, 1.0]]], {"aspect_ratio_range": [1.0, float("nan")]}, "aspect_ratio_range"),
        ([[[0.0, 0.0, 1.0, 1.0]]], {"max_attempts": -3}, "max_attempts"),
        ([[[0.0, 0.0, 1.0, 1.0]]], {"min_object_covered": float("nan")}, "min_object_covered"),
    ],
)
def test_sample_distorted_bounding_box_bad_input(boxes, kwargs, match):
    with pytest.raises(tw.errors.InvalidArgumentError, match=match):
        _run(tw.image.sample_distorted_bounding_box([10, 10, 3], np.array(boxes, np.float32), seed=1, **kwargs)[0])


def test_sample_distorted_bounding_box_hostile_image_sizes():
    size = tw.placeholder(tw.int64, [3])
    r = tw.image.sample_distorted_bounding_box(size, [[[0.0, 0.0, 1.0, 1.0]]], seed=1)
    with tw.Session() as sess:
        for bad in ([-5, 10, 3], [2**40, 10, 3]):
            with pytest.raises(tw.errors.InvalidArgumentError, match="height and width"):
                sess.run(r[0], {size: bad})
        # an extreme aspect ratio never crashes: some crop or the whole image
        b, s = sess.run([r[0], r[1]], {size: [1, 2**30, 3]})
        assert b[0] + s[0] <= 1 and b[1] + s[1] <= 2**30
        b, s = sess.run([r[0], r[1]], {size: [0, 7, 3]})
        assert s.tolist() == [0, 7, -1]


def test_stateless_sample_distorted_bounding_box():
    seed = tw.placeholder(tw.int32, [2])
    r = tw.image.stateless_sample_distorted_bounding_box([50, 70, 3], [[[0.1, 0.1, 0.9, 0.9]]], seed)
    with tw.Session() as sess:
        first = [sess.run(list(r), {seed: [1, 2]}) for _ in range(2)]
        other = sess.run(list(r), {seed: [3, 4]})
        for b, s, bb in first + [other]:
            _check_crop(b, s, bb, 50, 70, [0.05, 1.0], [0.75, 1.33])
        np.testing.assert_array_equal(first[0][0], first[1][0])
        np.testing.assert_array_equal(first[0][1], first[1][1])
        with pytest.raises(tw.errors.InvalidArgumentError, match="seed"):
            sess.run(
                tw.image.stateless_sample_distorted_bounding_box([5, 5, 3], [[[0.0, 0.0, 1.0, 1.0]]], [1, 2, 3])[0]
            )


# --- combined_non_max_suppression ----------------------------------------------------------------------------


def _iou(a, b):
    ay0, ay1 = sorted([a[0], a[2]])
    ax0, ax1 = sorted([a[1], a[3]])
    by0, by1 = sorted([b[0], b[2]])
    bx0, bx1 = sorted([b[1], b[3]])
    aa, ab = (ay1 - ay0) * (ax1 - ax0), (by1 - by0) * (bx1 - bx0)
    if aa <= 0 or ab <= 0:
        return 0.0
    inter = max(0.0, min(ay1, by1) - max(ay0, by0)) * max(0.0, min(ax1, bx1) - max(ax0, bx0))
    return inter / (aa + ab - inter)


def _combined_oracle(boxes, scores, per_class, total, iou_t, score_t, pad_per_class, clip):
    batch, _n, q, _ = boxes.shape
    classes = scores.shape[2]
    size = min(total, per_class * classes) if pad_per_class else total
    out_b, out_s, out_c, out_v = np.zeros([batch, size, 4]), np.zeros([batch, size]), np.zeros([batch, size]), []
    for b in range(batch):
        chosen = []
        for c in range(classes):
            bx = boxes[b, :, 0 if q == 1 else c]
            order = [i for i in np.argsort(-scores[b, :, c], kind="stable") if scores[b, i, c] > score_t]
            kept = []
            for i in order:
                if len(kept) == per_class:
                    break
                if all(_iou(bx[i], bx[j]) <= iou_t for j in kept):
                    kept.append(i)
                    chosen.append((scores[b, i, c], c, bx[i]))
        chosen.sort(key=lambda t: -t[0])
        chosen = chosen[:size]
        for k, (s, c, box) in enumerate(chosen):
            out_b[b, k] = np.clip(box, 0, 1) if clip else box
            out_s[b, k], out_c[b, k] = s, c
        out_v.append(len(chosen))
    return out_b, out_s, out_c, np.array(out_v)


@pytest.mark.parametrize("q", [1, 4])
@pytest.mark.parametrize("pad_per_class,clip", [(False, True), (True, False)])
def test_combined_nms_matches_greedy_oracle(q, pad_per_class, clip):
    corner = RNG.uniform(-0.2, 1.0, [3, 30, q, 2])
    boxes = np.concatenate([corner, corner + RNG.uniform(0.05, 0.5, [3, 30, q, 2])], -1).astype(np.float32)
    scores = RNG.uniform(0, 1, [3, 30, 4]).astype(np.float32)
    got = _run(
        list(
            tw.image.combined_non_max_suppression(
                boxes, scores, 6, 15, 0.45, 0.1, pad_per_class=pad_per_class, clip_boxes=clip
            )
        )
    )
    want = _combined_oracle(boxes, scores, 6, 15, 0.45, 0.1, pad_per_class, clip)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_combined_nms_hostile_inputs():
    boxes = np.full([1, 3, 1, 4], np.nan, np.float32)
    scores = np.array([[[0.5], [np.nan], [0.7]]], np.float32)
    r = _run(list(tw.image.combined_non_max_suppression(boxes, scores, 5, 4)))
    assert r[3].tolist() == [2]  # NaN boxes overlap nothing; a NaN score is never above the threshold
    np.testing.assert_allclose(r[1], [[0.7, 0.5, 0, 0]])
    empty = _run(
        list(
            tw.image.combined_non_max_suppression(
                np.zeros([2, 0, 1, 4], np.float32), np.zeros([2, 0, 3], np.float32), 5, 4
            )
        )
    )
    assert empty[0].shape == (2, 4, 4) and empty[3].tolist() == [0, 0]
    total = tw.placeholder(tw.int32, [])
    big = tw.image.combined_non_max_suppression(
        np.zeros([1, 2, 1, 4], np.float32), np.zeros([1, 2, 1], np.float32), 1, total
    )
    with tw.Session() as sess:
        with pytest.raises(tw.errors.InvalidArgumentError, match="too large"):
            sess.run(big.valid_detections, {total: 2**31 - 1})
        with pytest.raises(tw.errors.InvalidArgumentError, match="max_total_size"):
            sess.run(big.valid_detections, {total: -4})


# --- non_max_suppression_padded ------------------------------------------------------------------------------


def _greedy(boxes, scores, k, iou_t):
    kept = []
    for i in np.argsort(-scores, kind="stable"):
        if len(kept) < k and all(_iou(boxes[i], boxes[j]) < iou_t for j in kept):
            kept.append(i)
    return kept


@pytest.mark.parametrize("tile", [512, 4, 1])
def test_nms_padded_equals_greedy_suppression(tile):
    corner = RNG.uniform(0.01, 0.8, [50, 2])
    boxes = np.concatenate([corner, corner + RNG.uniform(0.05, 0.3, [50, 2])], 1).astype(np.float32)
    scores = RNG.uniform(0, 1, [50]).astype(np.float32)
    idx, n = tw.image.non_max_suppression_padded(boxes, scores, 20, 0.3, tile_size=tile)
    got = _run(idx)
    assert got.tolist() == _greedy(boxes, scores, 20, 0.3)
    idx, n = tw.image.non_max_suppression_padded(boxes, scores, 60, 0.3, pad_to_max_output_size=True, tile_size=tile)
    got, count = _run([idx, n])
    want = _greedy(boxes, scores, 60, 0.3)
    assert got.shape == (60,) and count.shape == () and count == len(want)
    assert got[: len(want)].tolist() == want and not got[len(want) :].any()


def test_nms_padded_hostile_inputs():
    size = tw.placeholder(tw.int32, [])
    boxes = np.array([[np.nan, 0, 1, 1], [0, 0, 1, 1], [0, 0, 0.5, 0.5]], np.float32)
    idx, n = tw.image.non_max_suppression_padded(boxes, [0.9, np.nan, 0.5], size, pad_to_max_output_size=True)
    with tw.Session() as sess:
        got, count = sess.run([idx, n], {size: 5})
        assert got.shape == (5,) and 0 <= count <= 3 and ((got >= 0) & (got < 3)).all()
        with pytest.raises(tw.errors.InvalidArgumentError, match="max_output_size"):
            sess.run(idx, {size: -1})
        with pytest.raises(tw.errors.InvalidArgumentError, match="too large"):
            sess.run(idx, {size: 2**31 - 1})
    idx, n = tw.image.non_max_suppression_padded(
        np.zeros([0, 4], np.float32), np.zeros([0], np.float32), 3, pad_to_max_output_size=True
    )
    got, count = _run([idx, n])
    assert got.tolist() == [0, 0, 0] and count == 0


# --- extract_glimpse -----------------------------------------------------------------------------------------


def _glimpse_oracle(images, size, offsets, centered, normalized, version):
    b, h, w, c = images.shape
    out = np.zeros([b, size[0], size[1], c], np.float32)
    for i in range(b):
        pos = []
        for v, n, g in ((offsets[i, 0], h, size[0]), (offsets[i, 1], w, size[1])):
            v = np.float32(v)
            if version == 1 or normalized:
                if normalized:
                    v = v * n
                if centered:
                    v = v / 2 + n / 2 - (g / 2 if version == 2 else 0)
                if version == 1:
                    v = v - g / 2
            elif centered:
                v = v + n / 2
            pos.append(int(v))
        for r in range(size[0]):
            for col in range(size[1]):
                y, x = pos[0] + r, pos[1] + col
                if 0 <= y < h and 0 <= x < w:
                    out[i, r, col] = images[i, y, x]
    return out


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("centered,normalized", [(True, True), (False, True), (True, False), (False, False)])
def test_extract_glimpse_zero_noise_matches_oracle(version, centered, normalized):
    images = RNG.uniform(-1, 1, [4, 7, 9, 2]).astype(np.float32)
    offsets = RNG.uniform(-1.2, 1.2, [4, 2]).astype(np.float32) * (1 if normalized else 6)
    op = tw.raw_ops.ExtractGlimpse if version == 1 else tw.raw_ops.ExtractGlimpseV2
    g = op(
        input=images,
        size=[4, 5],
        offsets=offsets,
        centered=centered,
        normalized=normalized,
        uniform_noise=False,
        noise="zero",
    )
    np.testing.assert_array_equal(_run(g), _glimpse_oracle(images, [4, 5], offsets, centered, normalized, version))


def test_extract_glimpse_noise_stays_in_the_image_range():
    images = RNG.uniform(2, 3, [2, 5, 5, 1]).astype(np.float32)
    g = _run(tw.image.extract_glimpse(images, [9, 9], [[0.0, 0.0], [0.9, 0.9]]))
    assert (g >= 2).all() and (g <= 3).all()
    np.testing.assert_array_equal(g[0, 2:7, 2:7], images[0])


def test_extract_glimpse_hostile_inputs():
    images = RNG.uniform(0, 1, [1, 4, 4, 1]).astype(np.float32)
    size = tw.placeholder(tw.int32, [2])
    g = tw.raw_ops.ExtractGlimpse(
        input=images, size=size, offsets=[[np.inf, -np.inf]], uniform_noise=False, noise="zero"
    )
    with tw.Session() as sess:
        assert not sess.run(g, {size: [3, 3]}).any()
        with pytest.raises(tw.errors.InvalidArgumentError, match="non-negative"):
            sess.run(g, {size: [-1, 3]})
        with pytest.raises(tw.errors.InvalidArgumentError, match="too large"):
            sess.run(g, {size: [2**31 - 1, 2**31 - 1]})


# --- extract_volume_patches ----------------------------------------------------------------------------------


def _volume_patches_oracle(x, ks, st, padding):
    n, dims, depth = x.shape[0], x.shape[1:4], x.shape[4]
    outs, pads = [], []
    for d in range(3):
        if padding == "VALID":
            outs.append(max(0, (dims[d] - ks[d + 1]) // st[d + 1] + 1))
            pads.append(0)
        else:
            o = -(-dims[d] // st[d + 1])
            outs.append(o)
            pads.append(max(0, (o - 1) * st[d + 1] + ks[d + 1] - dims[d]) // 2)
    padded = np.pad(x, [(0, 0)] + [(pads[d], ks[d + 1] + st[d + 1] * outs[d]) for d in range(3)] + [(0, 0)])
    out = np.zeros([n] + outs + [ks[1] * ks[2] * ks[3] * depth], x.dtype)
    for p in range(outs[0]):
        for r in range(outs[1]):
            for c in range(outs[2]):
                win = padded[
                    :, p * st[1] : p * st[1] + ks[1], r * st[2] : r * st[2] + ks[2], c * st[3] : c * st[3] + ks[3]
                ]
                out[:, p, r, c] = win.reshape(n, -1)
    return out


@pytest.mark.parametrize(
    "ks,st,padding",
    [
        ([1, 2, 2, 2, 1], [1, 1, 1, 1, 1], "VALID"),
        ([1, 3, 1, 2, 1], [1, 2, 3, 1, 1], "SAME"),
        ([1, 2, 3, 4, 1], [1, 1, 2, 2, 1], "SAME"),
        ([1, 9, 1, 1, 1], [1, 1, 1, 1, 1], "VALID"),
    ],
)
def test_extract_volume_patches_matches_oracle(ks, st, padding):
    x = RNG.uniform(-1, 1, [2, 4, 5, 6, 3]).astype(np.float32)
    p = tw.extract_volume_patches(x, ks, st, padding)
    got = _run(p)
    assert p.shape.as_list() == list(got.shape)
    np.testing.assert_array_equal(got, _volume_patches_oracle(x, ks, st, padding))


def test_extract_volume_patches_gradient_by_finite_differences():
    x0 = RNG.uniform(-1, 1, [1, 3, 4, 3, 2])
    x = tw.placeholder(tw.float64, x0.shape)
    p = tw.extract_volume_patches(x, [1, 2, 3, 2, 1], [1, 1, 2, 1, 1], "SAME")
    w = RNG.uniform(-1, 1, p.shape.as_list())
    loss = tw.reduce_sum(p * w)
    grad = tw.gradients(loss, x)[0]
    with tw.Session() as sess:
        analytic = sess.run(grad, {x: x0})
        numeric = np.zeros_like(x0)
        eps = 1e-3
        for k in range(x0.size):
            d = np.zeros(x0.size)
            d[k] = eps
            d = d.reshape(x0.shape)
            numeric.flat[k] = (sess.run(loss, {x: x0 + d}) - sess.run(loss, {x: x0 - d})) / (2 * eps)
    np.testing.assert_allclose(analytic, numeric, rtol=1e-7, atol=1e-9)


def test_extract_volume_patches_hostile_inputs():
    bad = tw.extract_volume_patches(np.zeros([1, 2, 2, 2, 1], np.float32), [1, -1, 2, 2, 1], [1, 1, 1, 1, 1], "VALID")
    with pytest.raises(tw.errors.InvalidArgumentError, match="ksizes"):  # builds as in TF; the kernel refuses
        _run(bad)
    huge = tw.extract_volume_patches(
        np.zeros([1, 2, 2, 2, 1], np.float32), [1, 2**20, 2**20, 2**20, 1], [1] * 5, "SAME"
    )
    with pytest.raises(tw.errors.InvalidArgumentError, match="too large"):
        _run(huge)
    x = tw.placeholder(tw.float32, None)
    p = tw.extract_volume_patches(x, [1, 2, 2, 2, 1], [1, 1, 1, 1, 1], "SAME")
    with tw.Session() as sess:
        with pytest.raises(tw.errors.InvalidArgumentError, match="5-D"):
            sess.run(p, {x: np.zeros([2, 2, 2, 2], np.float32)})
        assert sess.run(p, {x: np.zeros([0, 3, 3, 3, 1], np.float32)}).shape == (0, 3, 3, 3, 8)


def test_wrappers_build_tensorflows_op_types():
    boxes4 = np.zeros([1, 2, 1, 4], np.float32)
    built = {
        "SampleDistortedBoundingBoxV2": tw.image.sample_distorted_bounding_box([4, 4, 3], [[[0, 0, 1, 1]]])[0],
        "SampleDistortedBoundingBox": tw.raw_ops.SampleDistortedBoundingBox(
            image_size=[4, 4, 3], bounding_boxes=[[[0.0, 0.0, 1.0, 1.0]]], seed=1
        )[0],
        "StatelessSampleDistortedBoundingBox": tw.image.stateless_sample_distorted_bounding_box(
            [4, 4, 3], [[[0, 0, 1, 1]]], [1, 2]
        )[0],
        "CombinedNonMaxSuppression": tw.image.combined_non_max_suppression(
            boxes4, np.zeros([1, 2, 3], np.float32), 2, 3
        )[0],
        "NonMaxSuppressionPaddedTiled": tw.image.non_max_suppression_padded(
            np.zeros([2, 4], np.float32), [0.5, 0.4], 2
        )[1],
        "ExtractGlimpse": tw.image.extract_glimpse(np.zeros([1, 4, 4, 1], np.float32), [2, 2], [[0.0, 0.0]]),
        "ExtractGlimpseV2": tw.raw_ops.ExtractGlimpseV2(
            input=np.zeros([1, 4, 4, 1], np.float32),
            size=[2, 2],
            offsets=[[0.0, 0.0]],
            uniform_noise=False,
            noise="zero",
        ),
    }
    graph = tw.get_default_graph()
    types = {op.type for op in graph.get_operations()}
    for op_type, tensor in built.items():
        assert op_type in types
        if op_type != "NonMaxSuppressionPaddedTiled":  # its output passes through a reshape
            assert tensor.op.type == op_type
    # the box ops have no gradient (as TensorFlow's): gradients through them are None
    x = tw.constant(np.zeros([1, 2, 1, 4], np.float32))
    assert tw.gradients(tw.image.combined_non_max_suppression(x, np.ones([1, 2, 1], np.float32), 1, 1)[0], x) == [None]

"""tw.image.generate_bounding_box_proposals ("GenerateBoundingBoxProposals") against a numpy oracle of TensorFlow's
GPU kernel (TensorFlow has no CPU kernel for it, so its values cannot be compared here: the comparisons with
TensorFlow are of what it does build, the static shapes, node names and errors), on random inputs and on boxes
worked out by hand; the run-time errors; declared not differentiable as in TensorFlow."""

import numpy as np
import pytest
import tensorweave as tw

pytestmark = pytest.mark.usefixtures("graph")

_F = np.float32
_TF1 = None


def _tf1():
    global _TF1
    if _TF1 is None:
        tf1 = pytest.importorskip("tensorflow.compat.v1")
        tf1.disable_eager_execution()
        _TF1 = tf1
    return _TF1


def _proposals_numpy(scores, deltas, info, anchors, nms_threshold, pre_nms_topn, min_size, post_nms_topn):
    """The GPU kernel's steps in float32: sort, decode, clip, drop small boxes, greedy NMS (IoU > threshold)."""
    n = scores.shape[0]
    rois = np.zeros([n, post_nms_topn, 4], _F)
    probs = np.zeros([n, post_nms_topn], _F)
    clip = _F(np.log(1000.0 / 16.0))
    anchors = anchors.reshape(-1, 4)
    for i in range(n):
        s = scores[i].reshape(-1)
        d = deltas[i].reshape(-1, 4)
        order = sorted(range(s.size), key=lambda k: -s[k])  # stable: equal scores keep their order
        height, width, scale = info[i, :3]
        boxes, kept_scores = [], []
        for k in order[: min(s.size, pre_nms_topn)]:
            y1, x1, y2, x2 = anchors[k]
            dy, dx, dh, dw = d[k]
            bw, bh = x2 - x1, y2 - y1
            cx, cy = x1 + _F(0.5) * bw + bw * dx, y1 + _F(0.5) * bh + bh * dy
            pw, ph = bw * np.exp(min(dw, clip)), bh * np.exp(min(dh, clip))
            box = [cy - _F(0.5) * ph, cx - _F(0.5) * pw, cy + _F(0.5) * ph, cx + _F(0.5) * pw]
            box = [min(max(v, _F(0)), lim) for v, lim in zip(box, [height, width, height, width])]
            if min(box[2] - box[0], box[3] - box[1]) >= _F(min_size) * scale:
                boxes.append(box)
                kept_scores.append(s[k])
        selected = []
        for j, b in enumerate(boxes):
            if len(selected) == post_nms_topn:
                break
            if not any(_iou(boxes[t], b) > nms_threshold for t in selected):
                selected.append(j)
        for r, j in enumerate(selected):
            rois[i, r] = boxes[j]
            probs[i, r] = kept_scores[j]
    return rois, probs


def _iou(a, b):
    area_a = (a[2] - a[0]) * (a[3] - a[1])
    area_b = (b[2] - b[0]) * (b[3] - b[1])
    if area_a == 0 or area_b == 0:
        return 0.0
    inter = max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    return inter / (area_a + area_b - inter)


def _random_inputs(rng, n=2, h=5, w=6, a=3, stride=8.0):
    sizes = np.array([[16, 16], [24, 12], [12, 24]], _F)[:a]  # (height, width) per anchor
    cy, cx = np.meshgrid((np.arange(h) + 0.5) * stride, (np.arange(w) + 0.5) * stride, indexing="ij")
    anchors = np.zeros([h, w, a, 4], _F)
    anchors[..., 0] = cy[..., None] - sizes[:, 0] / 2
    anchors[..., 1] = cx[..., None] - sizes[:, 1] / 2
    anchors[..., 2] = cy[..., None] + sizes[:, 0] / 2
    anchors[..., 3] = cx[..., None] + sizes[:, 1] / 2
    scores = rng.random([n, h, w, a]).astype(_F)
    deltas = (rng.standard_normal([n, h, w, 4 * a]) * 0.3).astype(_F)
    info = np.array([[h * stride, w * stride, 1.0, 0, 0], [h * stride - 7, w * stride - 5, 0.5, 0, 0]], _F)[:n]
    return scores, deltas, info, anchors.reshape(h, w, 4 * a)


def _run(fetches, feed=None):
    with tw.Session() as sess:
        return sess.run(fetches, feed)


@pytest.mark.parametrize(
    "nms_threshold, pre_nms_topn, min_size, post_nms_topn",
    [(0.7, 6000, 16.0, 300), (0.3, 50, 4.0, 20), (1.0, 10, 0.0, 12), (0.0, 90, 8.0, 5), (0.5, 1, 2.0, 3)],
)
def test_random_inputs_match_the_numpy_oracle(nms_threshold, pre_nms_topn, min_size, post_nms_topn):
    rng = np.random.default_rng(int(nms_threshold * 10) + pre_nms_topn)
    inputs = _random_inputs(rng)
    rois, probs = tw.image.generate_bounding_box_proposals(
        *inputs, nms_threshold=nms_threshold, pre_nms_topn=pre_nms_topn, min_size=min_size, post_nms_topn=post_nms_topn
    )
    assert rois.shape.as_list() == [2, post_nms_topn, 4] and probs.shape.as_list() == [2, post_nms_topn]
    got_rois, got_probs = _run([rois, probs])
    want_rois, want_probs = _proposals_numpy(*inputs, nms_threshold, pre_nms_topn, min_size, post_nms_topn)
    np.testing.assert_array_equal(got_probs, want_probs)  # the same boxes selected, in the same order
    np.testing.assert_allclose(got_rois, want_rois, rtol=1e-5, atol=1e-4)
    assert np.count_nonzero(got_probs) > 0


def _hand_made(min_size=16.0, nms_threshold=0.7, pre_nms_topn=6000, post_nms_topn=3, scale=1.0, deltas=None):
    # One row of two positions with two anchors each, in a 40 x 60 image:
    #   (0, 0, a0) [0, 0, 10, 10]     score 0.1
    #   (0, 0, a1) [5, 5, 25, 25]     score 0.7
    #   (0, 1, a0) [0, 20, 10, 30]    score 0.9, moved down by half its height: [5, 20, 15, 30]
    #   (0, 1, a1) [-10, -10, 50, 70] score 0.3, clipped to the image: [0, 0, 40, 60]
    anchors = np.array([[[0, 0, 10, 10, 5, 5, 25, 25], [0, 20, 10, 30, -10, -10, 50, 70]]], _F)
    scores = np.array([[[[0.1, 0.7], [0.9, 0.3]]]], _F)
    if deltas is None:
        deltas = np.zeros([1, 1, 2, 8], _F)
        deltas[0, 0, 1, 0] = 0.5  # dy of (0, 1, a0)
    info = np.array([[40, 60, scale, 0, 0]], _F)
    return _run(
        tw.image.generate_bounding_box_proposals(
            scores,
            deltas,
            info,
            anchors,
            nms_threshold=nms_threshold,
            pre_nms_topn=pre_nms_topn,
            min_size=min_size,
            post_nms_topn=post_nms_topn,
        )
    )


def test_boxes_worked_out_by_hand():
    # min_size 16 drops the two 10 x 10 boxes; the other two overlap with IoU 400 / 2400: both kept.
    rois, probs = _hand_made()
    np.testing.assert_array_equal(rois[0], [[5, 5, 25, 25], [0, 0, 40, 60], [0, 0, 0, 0]])
    np.testing.assert_array_equal(probs[0], _F([0.7, 0.3, 0.0]))
    # IoU 1/6 > 0.1: the lower-scored box is suppressed; a threshold of 0.17 keeps it.
    rois, probs = _hand_made(nms_threshold=0.1)
    np.testing.assert_array_equal(probs[0], _F([0.7, 0, 0]))
    rois, probs = _hand_made(nms_threshold=0.17)
    np.testing.assert_array_equal(probs[0], _F([0.7, 0.3, 0]))
    # No minimum size: all four in score order, the first three written.
    rois, probs = _hand_made(min_size=0.0)
    np.testing.assert_array_equal(rois[0], [[5, 20, 15, 30], [5, 5, 25, 25], [0, 0, 40, 60]])
    np.testing.assert_array_equal(probs[0], _F([0.9, 0.7, 0.3]))
    # pre_nms_topn 1: only the best-scored box is decoded.
    rois, probs = _hand_made(min_size=0.0, pre_nms_topn=1)
    np.testing.assert_array_equal(probs[0], _F([0.9, 0, 0]))
    # min_size is scaled by image_info's scale: 10 * 2 = 20 keeps the 20 x 20 box (>=), 10.5 * 2 does not.
    np.testing.assert_array_equal(_hand_made(min_size=10.0, scale=2.0)[1][0], _F([0.7, 0.3, 0]))
    np.testing.assert_array_equal(_hand_made(min_size=10.5, scale=2.0)[1][0], _F([0.3, 0, 0]))
    # Deltas moving and scaling two anchors; threshold 1.0 suppresses nothing.
    deltas = np.zeros([1, 1, 2, 8], _F)
    deltas[0, 0, 1, 4:] = [0.25, 0.25, 0, 0]  # moves (0, 1, a1) [-10, -10, 50, 70] to [5, 10, 65, 90]: clipped
    deltas[0, 0, 0, 4:] = [0, 0, np.log(2.0), np.log(3.0)]  # (0, 0, a1): 40 x 60 about (15, 15): [-5, -15, 35, 45]
    rois, probs = _hand_made(min_size=0.0, deltas=deltas, nms_threshold=1.0, post_nms_topn=4)
    np.testing.assert_allclose(
        rois[0], [[0, 20, 10, 30], [0, 0, 35, 45], [5, 10, 40, 60], [0, 0, 10, 10]], rtol=1e-6, atol=1e-5
    )


def test_deltas_are_clipped_at_log_1000_over_16():
    deltas = np.zeros([1, 1, 2, 8], _F)
    deltas[0, 0, 0, 4:] = [0, 0, 10.0, 10.0]  # (0, 0, a1) [5, 5, 25, 25] grows 62.5 times: the whole image
    rois, probs = _hand_made(min_size=0.0, deltas=deltas, post_nms_topn=4)
    assert [0, 0, 40, 60] in rois[0].tolist()
    deltas[0, 0, 0, 4:] = [0, 0, 4.0, -10.0]  # exp(-10) is not clipped: 0.0009 wide
    rois, _ = _hand_made(min_size=0.0, deltas=deltas, post_nms_topn=4)
    thin = [r for r in rois[0] if 0 < r[3] - r[1] < 0.01]
    assert len(thin) == 1 and thin[0][0] == 0 and thin[0][2] == 40  # 20 * e^4 tall: clipped to the image


def test_equal_scores_keep_their_position_order():
    anchors = np.tile(np.array([0, 0, 10, 10], _F), [1, 3, 1])  # three positions, one anchor each
    deltas = np.zeros([1, 1, 3, 4], _F)
    deltas[0, 0, :, 1] = [0.0, 2.0, 4.0]  # x moved by 0, 20, 40: disjoint boxes
    rois, probs = _run(
        tw.image.generate_bounding_box_proposals(
            np.full([1, 1, 3, 1], 0.5, _F), deltas, [[100, 100, 1, 0, 0]], anchors, min_size=0.0, post_nms_topn=3
        )
    )
    np.testing.assert_array_equal(rois[0, :, 1], [0, 20, 40])
    # Identical boxes (IoU 1): suppressed at threshold 0.99, kept at 1.0 (IoU > 1 never holds).
    for threshold, kept in ((0.99, 1), (1.0, 3)):
        with tw.Graph().as_default():
            _, probs = _run(
                tw.image.generate_bounding_box_proposals(
                    np.full([1, 1, 3, 1], 0.5, _F),
                    np.zeros([1, 1, 3, 4], _F),
                    [[100, 100, 1, 0, 0]],
                    anchors,
                    nms_threshold=threshold,
                    min_size=0.0,
                    post_nms_topn=3,
                )
            )
        assert np.count_nonzero(probs) == kept


def test_not_differentiable_as_in_tensorflow():
    scores = tw.constant(np.ones([1, 1, 1, 1], _F))
    rois, probs = tw.image.generate_bounding_box_proposals(
        scores, np.zeros([1, 1, 1, 4], _F), [[10, 10, 1, 0, 0]], np.ones([1, 1, 4], _F)
    )
    assert tw.gradients(probs, scores) == [None]


# --- against TensorFlow: what it builds -------------------------------------------------


def _build(tf, **kw):
    args = {
        "scores": np.zeros([2, 3, 4, 2], _F),
        "bbox_deltas": np.zeros([2, 3, 4, 8], _F),
        "image_info": np.zeros([2, 5], _F),
        "anchors": np.zeros([3, 4, 8], _F),
    }
    args.update(kw)
    rois, probs = tf.image.generate_bounding_box_proposals(**args)
    return rois.shape.as_list(), probs.shape.as_list(), rois.op.name, [t.op.name for t in rois.op.inputs]


_BUILD_CASES = {
    "defaults": {},
    "post_nms_topn 7 and a name": {"post_nms_topn": 7, "name": "props"},
    "post_nms_topn 0": {"post_nms_topn": 0},
    "post_nms_topn negative": {"post_nms_topn": -3},
    "scores rank 3": {"scores": np.zeros([3, 4, 2], _F)},
    "deltas rank 3": {"bbox_deltas": np.zeros([3, 4, 8], _F)},
    "image_info rank 1": {"image_info": np.zeros([5], _F)},
    "anchors rank 2 (as TensorFlow's docstring says)": {"anchors": np.zeros([2, 4], _F)},
    "nms_threshold a vector": {"nms_threshold": [0.5]},
    "pre_nms_topn a vector": {"pre_nms_topn": [5]},
    "pre_nms_topn a float": {"pre_nms_topn": 5.5},
    "min_size a vector": {"min_size": [1.0]},
}


@pytest.mark.parametrize("case", sorted(_BUILD_CASES))
def test_what_it_builds_and_refuses_is_tensorflows(case):
    tf1 = _tf1()

    def observe(tf, graph):
        with graph.as_default():
            try:
                return _build(tf, **_BUILD_CASES[case])
            except Exception as e:
                return type(e).__name__

    assert observe(tw, tw.Graph()) == observe(tf1, tf1.Graph())


# --- run-time errors ------------------------------------------------------------------


def _run_with(**kw):
    args = {
        "scores": np.zeros([2, 3, 4, 2], _F),
        "bbox_deltas": np.zeros([2, 3, 4, 8], _F),
        "image_info": np.zeros([2, 5], _F),
        "anchors": np.zeros([3, 4, 8], _F),
        "name": "props",
    }
    args.update(kw)
    return _run(tw.image.generate_bounding_box_proposals(**args))


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"nms_threshold": 1.5}, "nms_threshold should be between 0 and 1"),
        ({"nms_threshold": -0.1}, "nms_threshold should be between 0 and 1"),
        ({"nms_threshold": float("nan")}, "nms_threshold should be between 0 and 1"),
        ({"pre_nms_topn": 0}, "pre_nms_topn should be greater than 0"),
        ({"post_nms_topn": 0}, "post_nms_topn can't be 0 or less"),
        ({"bbox_deltas": np.zeros([2, 3, 4, 4], _F)}, "bbox_deltas must have shape"),
        ({"bbox_deltas": np.zeros([1, 3, 4, 8], _F)}, "bbox_deltas must have shape"),
        ({"image_info": np.zeros([2, 3], _F)}, "image_info must have shape"),
        ({"image_info": np.zeros([3, 5], _F)}, "image_info must have shape"),
        ({"anchors": np.zeros([1, 1, 8], _F)}, "anchors must have shape"),
        ({"anchors": np.zeros([3, 4, 4], _F)}, "anchors must have shape"),
    ],
)
def test_bad_inputs_are_invalid_argument_naming_the_node(kw, message):
    with pytest.raises(tw.errors.InvalidArgumentError, match=message) as info:
        _run_with(**kw)
    assert "props" in str(info.value)


def test_empty_inputs_give_zero_padded_outputs():
    rois, probs = _run_with(
        scores=np.zeros([2, 0, 4, 2], _F), bbox_deltas=np.zeros([2, 0, 4, 8], _F), anchors=np.zeros([0, 4, 8], _F)
    )
    assert rois.shape == (2, 300, 4) and not rois.any() and not probs.any()
    rois, probs = _run_with(
        scores=np.zeros([0, 3, 4, 2], _F), bbox_deltas=np.zeros([0, 3, 4, 8], _F), image_info=np.zeros([0, 5], _F)
    )
    assert rois.shape == (0, 300, 4) and probs.shape == (0, 300)

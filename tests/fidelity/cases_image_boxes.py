"""Fidelity cases of the box ops of image pipelines (tensorweave._src.ops.image_box_ops): combined and padded
non-max suppression, extract_glimpse, extract_volume_patches (values and gradient), and the deterministic
observations of sample_distorted_bounding_box (shapes, dtypes, forced crops, fallback, errors)."""

import numpy as np

from tests.fidelity.harness import case

RNG = np.random.RandomState(1606)


def _boxes(n, scale=1.0, rng=RNG):
    corner = rng.uniform(0, 0.8, [n, 2])
    size = rng.uniform(0.05, 0.4, [n, 2])
    return (np.concatenate([corner, corner + size], 1) * scale).astype(np.float32)


_CB_BOXES = np.stack([_boxes(24).reshape(24, 1, 4), _boxes(24).reshape(24, 1, 4)])  # [2, 24, 1, 4]
_CB_BOXES_Q = np.stack([_boxes(24 * 3).reshape(24, 3, 4), _boxes(24 * 3).reshape(24, 3, 4)])  # [2, 24, 3, 4]
_CB_SCORES = RNG.uniform(0, 1, [2, 24, 3]).astype(np.float32)


@case
def combined_nms_shared_boxes(tf, sess):
    out = []
    for per_class, total, iou, score_t in ((5, 10, 0.5, float("-inf")), (3, 20, 0.3, 0.4), (24, 4, 0.7, 0.0)):
        r = tf.image.combined_non_max_suppression(
            _CB_BOXES, _CB_SCORES, per_class, total, iou_threshold=iou, score_threshold=score_t
        )
        out.append([sess.run(list(r)), [t.shape for t in r], [t.dtype for t in r]])
    return out


@case
def combined_nms_per_class_boxes_pad_and_clip(tf, sess):
    out = []
    boxes = _CB_BOXES_Q * 1.6 - 0.3  # some outside [0, 1]
    for pad, clip in ((False, True), (True, True), (True, False), (False, False)):
        r = tf.image.combined_non_max_suppression(
            boxes, _CB_SCORES, 4, 30, iou_threshold=0.4, score_threshold=0.2, pad_per_class=pad, clip_boxes=clip
        )
        out.append([sess.run(list(r)), r.nmsed_boxes.shape, r.valid_detections.shape])
    return out


@case
def combined_nms_errors(tf, sess):
    out = []
    for args in (
        (_CB_BOXES, _CB_SCORES, 0, 5, 0.5),
        (_CB_BOXES, _CB_SCORES, 3, 0, 0.5),
        (_CB_BOXES, _CB_SCORES, 3, 5, 1.5),
        (_CB_BOXES_Q[:, :, :2], _CB_SCORES, 3, 5, 0.5),
        (_CB_BOXES[0], _CB_SCORES, 3, 5, 0.5),
    ):
        try:
            out.append(sess.run(list(tf.image.combined_non_max_suppression(*args))))
        except Exception as e:  # noqa: BLE001 - the class is the observation
            out.append(type(e).__name__)
    ph = tf.placeholder(tf.int32, [])
    r = tf.image.combined_non_max_suppression(_CB_BOXES, _CB_SCORES, ph, 5)
    try:
        sess.run(r.valid_detections, {ph: 0})
    except tf.errors.InvalidArgumentError:
        out.append("InvalidArgumentError")
    return out


_PAD_BOXES = _boxes(40)
_PAD_SCORES = RNG.uniform(0, 1, [40]).astype(np.float32)


@case
def nms_padded_single_image(tf, sess):
    out = []
    boxes, scores = tf.constant(_PAD_BOXES), tf.constant(_PAD_SCORES)  # TF's wrapper takes tensors only
    for k, iou, score_t, tile in (
        (10, 0.5, float("-inf"), 512),
        (40, 0.3, 0.3, 8),
        (60, 0.6, 0.0, 7),
        (5, 0.2, 0.5, 3),
    ):
        idx, n = tf.image.non_max_suppression_padded(
            boxes, scores, k, iou_threshold=iou, score_threshold=score_t, tile_size=tile
        )
        idx_p, n_p = tf.image.non_max_suppression_padded(
            boxes,
            scores,
            k,
            iou_threshold=iou,
            score_threshold=score_t,
            pad_to_max_output_size=True,
            tile_size=tile,
        )
        out.append(sess.run([idx, n, idx_p, n_p]) + [idx_p.shape.as_list(), idx.dtype, n.dtype])
    return out


@case
def nms_padded_batch_sorted_and_flipped_corners(tf, sess):
    rng = np.random.RandomState(5)
    boxes = np.stack([_boxes(30, rng=rng) for _ in range(3)]).reshape(3, 1, 30, 4)
    scores = rng.uniform(0, 1, [3, 1, 30]).astype(np.float32)
    out = []
    c = tf.constant
    idx, n = tf.image.non_max_suppression_padded(c(boxes), c(scores), 12, 0.4, pad_to_max_output_size=True, tile_size=8)
    out.append(sess.run([idx, n]))
    order = np.argsort(-scores, axis=-1, kind="stable")
    sorted_boxes = np.take_along_axis(boxes, order[..., None], axis=2)
    sorted_scores = np.take_along_axis(scores, order, axis=2)
    idx, n = tf.image.non_max_suppression_padded(
        c(sorted_boxes), c(sorted_scores), 12, 0.4, pad_to_max_output_size=True, sorted_input=True, tile_size=5
    )
    out.append(sess.run([idx, n]))
    flipped = boxes[..., [2, 3, 0, 1]]
    idx, n = tf.image.non_max_suppression_padded(c(flipped), c(scores), 12, 0.4, pad_to_max_output_size=True)
    out.append(sess.run([idx, n]))
    idx, n = tf.image.non_max_suppression_padded(
        c(boxes), c(scores), 12, 0.4, pad_to_max_output_size=True, canonicalized_coordinates=True
    )
    out.append(sess.run([idx, n]))
    try:
        tf.image.non_max_suppression_padded(c(boxes), c(scores), 12)
    except ValueError:
        out.append("ValueError")
    return out


_IMAGES = RNG.uniform(-1, 1, [3, 9, 11, 2]).astype(np.float32)


@case
def extract_glimpse_inside_the_image(tf, sess):
    out = []
    offsets = np.array([[0.0, 0.0], [0.2, -0.3], [-0.25, 0.1]], np.float32)
    for centered, normalized, offs, size in (
        (True, True, offsets, [3, 4]),
        (True, True, offsets, [4, 3]),
        (False, True, np.array([[0.1, 0.2], [0.3, 0.3], [0.5, 0.5]], np.float32), [2, 3]),
        (False, False, np.array([[1.0, 2.0], [3.7, 2.2], [4.0, 5.0]], np.float32), [3, 3]),
        (True, False, np.array([[0.0, 0.0], [1.5, -2.0], [-1.0, 1.0]], np.float32), [2, 2]),
    ):
        g = tf.image.extract_glimpse(_IMAGES, size, offs, centered=centered, normalized=normalized)
        out.append([sess.run(g), g.shape])
    return out


@case
def extract_glimpse_zero_noise_v1_v2(tf, sess):
    out = []
    offsets = np.array([[0.9, -0.9], [1.5, 0.0], [-0.6, 0.7]], np.float32)
    for op in (tf.raw_ops.ExtractGlimpse, tf.raw_ops.ExtractGlimpseV2):
        for centered, normalized in ((True, True), (False, True), (True, False), (False, False)):
            offs = offsets if normalized else offsets * 6
            g = op(
                input=_IMAGES,
                size=[5, 6],
                offsets=offs,
                centered=centered,
                normalized=normalized,
                uniform_noise=False,
                noise="zero",
            )
            out.append(sess.run(g))
    return out


@case
def extract_glimpse_errors(tf, sess):
    out = []
    for kwargs in (
        {"size": [-1, 3], "offsets": np.zeros([3, 2], np.float32)},
        {"size": [0, 3], "offsets": np.zeros([3, 2], np.float32)},
        {"size": [2, 3], "offsets": np.full([3, 2], np.nan, np.float32)},
    ):
        try:
            out.append(
                sess.run(tf.raw_ops.ExtractGlimpse(input=_IMAGES, uniform_noise=False, noise="zero", **kwargs)).shape
            )
        except Exception as e:  # noqa: BLE001 - the class is the observation
            out.append(type(e).__name__)
    for kwargs in ({"size": [2, 3], "offsets": np.zeros([2, 2], np.float32)}, {"size": [2], "offsets": [[0.0, 0.0]]}):
        try:
            tf.image.extract_glimpse(_IMAGES, **kwargs)
        except Exception as e:  # noqa: BLE001
            out.append(type(e).__name__)
    try:
        tf.raw_ops.ExtractGlimpse(input=_IMAGES, size=[2, 2], offsets=np.zeros([3, 2], np.float32), noise="zero")
    except Exception as e:  # noqa: BLE001
        out.append(type(e).__name__)
    return out


_VOLUME = RNG.uniform(-1, 1, [2, 5, 4, 6, 3])


@case
def extract_volume_patches_values(tf, sess):
    out = []
    for ks, st, pad in (
        ([1, 2, 2, 2, 1], [1, 1, 1, 1, 1], "VALID"),
        ([1, 3, 2, 3, 1], [1, 2, 1, 2, 1], "SAME"),
        ([1, 1, 3, 2, 1], [1, 3, 2, 4, 1], "SAME"),
        ([1, 4, 4, 4, 1], [1, 1, 1, 1, 1], "VALID"),
    ):
        p = tf.extract_volume_patches(_VOLUME, ks, st, pad)
        out.append([sess.run(p), p.shape, p.dtype])
    p = tf.extract_volume_patches(_VOLUME.astype(np.int32), [1, 2, 1, 2, 1], [1, 1, 2, 1, 1], "SAME")
    out.append([sess.run(p), p.dtype])
    return out


@case
def extract_volume_patches_gradient(tf, sess):
    x = tf.constant(_VOLUME)
    out = []
    for ks, st, pad in (([1, 2, 3, 2, 1], [1, 1, 2, 1, 1], "SAME"), ([1, 3, 2, 2, 1], [1, 2, 1, 3, 1], "VALID")):
        p = tf.extract_volume_patches(x, ks, st, pad)
        w = np.random.RandomState(7).uniform(-1, 1, p.shape.as_list())
        out.append(sess.run(tf.gradients(tf.reduce_sum(p * w), x)[0]))
    return out


@case
def extract_volume_patches_errors(tf, sess):
    out = []
    for ks, st in (
        ([1, 2, 2, 1], [1, 1, 1, 1]),
        ([2, 2, 2, 2, 1], [1, 1, 1, 1, 1]),
        ([1, 0, 2, 2, 1], [1, 1, 1, 1, 1]),
    ):
        try:
            tf.extract_volume_patches(_VOLUME, ks, st, "VALID")
            out.append("built")
        except Exception as e:  # noqa: BLE001
            out.append(type(e).__name__)
    try:
        tf.extract_volume_patches(_VOLUME[0], [1, 2, 2, 2, 1], [1, 1, 1, 1, 1], "VALID")
    except Exception as e:  # noqa: BLE001
        out.append(type(e).__name__)
    return out


@case
def sample_distorted_bounding_box_structure(tf, sess):
    begin, size, box = tf.image.sample_distorted_bounding_box([30, 40, 3], [[[0.1, 0.2, 0.8, 0.9]]], seed=3)
    b64 = tf.image.sample_distorted_bounding_box(
        tf.constant([30, 40, 3], tf.int64), [[[0.1, 0.2, 0.8, 0.9]]], seed=1, seed2=2
    )
    return [
        [t.shape for t in (begin, size, box)],
        [t.dtype for t in (begin, size, box)],
        [t.dtype for t in b64],
        begin.op.type,
        begin.op.name,
        sess.run(size)[2],
        sess.run(begin)[2],
    ]


@case
def sample_distorted_bounding_box_forced_and_fallback(tf, sess):
    out = []
    # Area 1 of a square image with aspect ratio 1: the crop is the image.
    r = tf.image.sample_distorted_bounding_box(
        [16, 16, 3], [[[0.2, 0.2, 0.5, 0.5]]], seed=5, aspect_ratio_range=[1.0, 1.0], area_range=[1.0, 1.0]
    )
    out.append(sess.run(list(r)))
    # A box of no area is never covered: every attempt fails and the whole image comes back.
    r = tf.image.sample_distorted_bounding_box([12, 20, 3], [[[0.5, 0.5, 0.2, 0.2]]], seed=2, max_attempts=7)
    out.append(sess.run(list(r)))
    r = tf.image.sample_distorted_bounding_box(
        [12, 20, 1], np.zeros([1, 0, 4], np.float32), seed=9, use_image_if_no_bounding_boxes=True, area_range=[1, 1]
    )
    out.append(sess.run(list(r)))
    return out


@case
def sample_distorted_bounding_box_errors(tf, sess):
    out = []
    for image_size, boxes, kwargs in (
        ([10, 10, 3], np.zeros([1, 0, 4], np.float32), {}),
        ([10, 10, 3], [[[0.0, 0.0, 1.5, 1.0]]], {}),
        ([10, 10, 3], [[[0.0, 0.0, 1.0, 1.0]]], {"area_range": [0.0, 1.0]}),
        ([10, 10, 3], [[[0.0, 0.0, 1.0, 1.0]]], {"area_range": [0.5, 1.5]}),
        ([10, 10, 3], [[[0.0, 0.0, 1.0, 1.0]]], {"aspect_ratio_range": [0.0, 1.5]}),
        ([10, 10, 3], [[[0.0, 0.0, 1.0, 1.0]]], {"max_attempts": 0}),
        ([10, 10, 3], [[[0.0, 0.0, 1.0, 1.0]]], {"min_object_covered": -1.0}),
        ([10, 10], [[[0.0, 0.0, 1.0, 1.0]]], {}),
        ([10, 10, 3], [[0.0, 0.0, 1.0, 1.0]], {}),
        ([10, 10, 3], [[[0.0, 0.0, 1.0]]], {}),
    ):
        try:
            out.append(sess.run(tf.image.sample_distorted_bounding_box(image_size, boxes, seed=1, **kwargs)[1]))
        except Exception as e:  # noqa: BLE001
            out.append(type(e).__name__)
    return out

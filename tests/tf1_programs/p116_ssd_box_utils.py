"""Box utilities of a TF1 SSD / Faster R-CNN toy (object_detection-style code without the library): anchor
generation with meshgrid, IoU by broadcasting, box encoding/decoding with tf.log/tf.exp, matching by argmax
over IoU with tf.where thresholds, tf.image.non_max_suppression (iou/score thresholds),
non_max_suppression_with_scores (soft-NMS sigma 0 == hard), non_max_suppression_padded (pad_to_max_output_size),
combined_non_max_suppression per class, crop_and_resize of proposals with box_ind (bilinear and nearest),
draw_bounding_boxes, sample_distorted_bounding_box's output shapes, and tf.image.pad_to_bounding_box /
crop_to_bounding_box / resize_image_with_crop_or_pad."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(116)
    rng = np.random.RandomState(116)
    image = rng.rand(1, 16, 16, 3).astype(np.float32)
    gt = tf.constant([[0.1, 0.1, 0.5, 0.5], [0.4, 0.5, 0.9, 0.95]], tf.float32)
    ys, xs = tf.meshgrid(tf.range(4.0) / 4.0 + 0.125, tf.range(4.0) / 4.0 + 0.125, indexing="ij")
    centers = tf.reshape(tf.stack([ys, xs], -1), [-1, 2])
    sizes = tf.constant([[0.25, 0.25], [0.5, 0.35]])
    c = tf.reshape(tf.tile(tf.expand_dims(centers, 1), [1, 2, 1]), [-1, 2])
    s = tf.tile(sizes, [16, 1])
    anchors = tf.concat([c - s / 2, c + s / 2], 1)

    def iou(a, b):
        a = tf.expand_dims(a, 1)
        b = tf.expand_dims(b, 0)
        inter = tf.maximum(0.0, tf.minimum(a[..., 2:], b[..., 2:]) - tf.maximum(a[..., :2], b[..., :2]))
        inter = inter[..., 0] * inter[..., 1]
        area = lambda t: (t[..., 2] - t[..., 0]) * (t[..., 3] - t[..., 1])
        return inter / (area(a) + area(b) - inter)

    overlaps = iou(anchors, gt)
    best_gt = tf.argmax(overlaps, axis=1)
    best_iou = tf.reduce_max(overlaps, axis=1)
    labels = tf.where(best_iou > 0.3, best_gt + 1, tf.zeros_like(best_gt))
    matched = tf.gather(gt, best_gt)
    a_hw = anchors[:, 2:] - anchors[:, :2]
    a_c = anchors[:, :2] + a_hw / 2
    m_hw = matched[:, 2:] - matched[:, :2]
    m_c = matched[:, :2] + m_hw / 2
    encoded = tf.concat([(m_c - a_c) / a_hw * 10.0, tf.log(m_hw / a_hw) * 5.0], 1)
    d_c = encoded[:, :2] / 10.0 * a_hw + a_c
    d_hw = tf.exp(encoded[:, 2:] / 5.0) * a_hw
    decoded = tf.concat([d_c - d_hw / 2, d_c + d_hw / 2], 1)
    scores = tf.constant(rng.rand(32).astype(np.float32))
    keep = tf.image.non_max_suppression(anchors, scores, 5, iou_threshold=0.3, score_threshold=0.2)
    keep_s, kept_scores = tf.image.non_max_suppression_with_scores(anchors, scores, 5, iou_threshold=0.3)
    keep_p, n_valid = tf.image.non_max_suppression_padded(
        anchors, scores, 6, iou_threshold=0.2, pad_to_max_output_size=True
    )
    class_scores = tf.constant(rng.rand(1, 32, 3).astype(np.float32))
    nmsed = tf.image.combined_non_max_suppression(
        tf.reshape(anchors, [1, 32, 1, 4]), class_scores, 4, 6, iou_threshold=0.4, score_threshold=0.1
    )
    proposals = tf.gather(anchors, keep)
    crops = tf.image.crop_and_resize(image, proposals, tf.zeros_like(keep), [5, 5])
    crops_nn = tf.image.crop_and_resize(image, proposals, tf.zeros_like(keep), [4, 4], method="nearest")
    drawn = tf.image.draw_bounding_boxes(image, tf.expand_dims(gt, 0))
    begin, size, bbox = tf.image.sample_distorted_bounding_box(
        [16, 16, 3], tf.expand_dims(gt, 0), min_object_covered=0.1, seed=7
    )
    padded = tf.image.pad_to_bounding_box(image, 2, 3, 20, 22)
    cropped = tf.image.crop_to_bounding_box(image, 1, 2, 8, 9)
    fitted = tf.image.resize_image_with_crop_or_pad(image, 12, 20)
    out = {
        "shapes": [
            t.shape.as_list() for t in (anchors, overlaps, encoded, keep, keep_p, crops, drawn, padded, cropped, fitted)
        ],
        "sample_shapes": [begin.shape.as_list(), size.shape.as_list(), bbox.shape.as_list()],
        "nmsed_shapes": [t.shape.as_list() for t in nmsed],
    }
    with tf.Session() as sess:
        out["labels"], out["best_iou"], out["roundtrip"] = sess.run(
            [labels, best_iou, tf.reduce_max(tf.abs(decoded - matched))]
        )
        out["keep"], out["keep_s"], out["kept_scores"] = sess.run([keep, keep_s, kept_scores])
        out["keep_p"], out["n_valid"] = sess.run([keep_p, n_valid])
        out["nmsed"] = sess.run(list(nmsed))
        out["crops"], out["crops_nn"] = sess.run([crops, crops_nn])
        d = sess.run(drawn)
        out["drawn_changed"] = int((d != image).any(axis=-1).sum())
        b, sz, bb = sess.run([begin, size, bbox])
        out["sample_valid"] = bool((b[:2] + sz[:2] <= 16).all() and b[2] == 0 and sz[2] == -1 and bb.shape == (1, 1, 4))
        out["padded"], out["cropped"], out["fitted"] = sess.run([padded, cropped, fitted])
    return out

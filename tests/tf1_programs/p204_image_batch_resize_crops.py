"""tf.image on a batch as detection/segmentation input code used it: resize_images with each ResizeMethod
(align_corners, preserve_aspect_ratio), resize_image_with_pad, crop_and_resize (bilinear and nearest,
extrapolation_value for boxes outside), extract_glimpse (centered, normalized), non_max_suppression /
non_max_suppression_padded / combined_non_max_suppression, draw_bounding_boxes with colors,
central_crop, pad_to_bounding_box, crop_to_bounding_box, transpose_image, adjust_contrast, per-image
standardization; the static shapes of each and the error for a box index out of range."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(204)
    images = tf.constant(rng.rand(2, 6, 8, 3).astype(np.float32))
    m = tf.image.ResizeMethod
    fetch = {
        "bilinear": tf.image.resize_images(images, [4, 5], method=m.BILINEAR),
        "nearest": tf.image.resize_images(images, [9, 11], method=m.NEAREST_NEIGHBOR),
        "bicubic": tf.image.resize_images(images, [5, 7], method=m.BICUBIC),
        "area": tf.image.resize_images(images, [3, 4], method=m.AREA),
        "aligned": tf.image.resize_images(images, [11, 15], align_corners=True),
        "aspect": tf.image.resize_images(images, [5, 5], preserve_aspect_ratio=True),
        "with_pad": tf.image.resize_image_with_pad(images, 10, 10),
        "central": tf.image.central_crop(images, 0.5),
        "pad_box": tf.image.pad_to_bounding_box(images, 1, 2, 9, 12),
        "crop_box": tf.image.crop_to_bounding_box(images, 1, 2, 4, 5),
        "transpose": tf.image.transpose_image(images),
        "contrast": tf.image.adjust_contrast(images, 1.7),
        "standardized": tf.map_fn(tf.image.per_image_standardization, images),
    }
    boxes = tf.constant([[0.1, 0.1, 0.6, 0.7], [0.0, 0.0, 1.0, 1.0], [0.5, -0.2, 1.2, 0.4]], tf.float32)
    box_ind = tf.constant([0, 1, 1])
    fetch["crop_bilinear"] = tf.image.crop_and_resize(images, boxes, box_ind, [3, 4])
    fetch["crop_nearest"] = tf.image.crop_and_resize(
        images, boxes, box_ind, [3, 4], method="nearest", extrapolation_value=-1.0
    )
    fetch["glimpse"] = tf.image.extract_glimpse(images, [3, 3], [[0.0, 0.0], [0.5, -0.5]], centered=True)
    det_boxes = tf.constant(
        [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [0, 10.1, 1, 11.1], [0, 100, 1, 101]],
        tf.float32,
    )
    scores = tf.constant([0.9, 0.75, 0.6, 0.95, 0.5, 0.3])
    fetch["nms"] = tf.image.non_max_suppression(det_boxes, scores, 3, iou_threshold=0.5)
    fetch["nms_thresh"] = tf.image.non_max_suppression(det_boxes, scores, 6, 0.5, score_threshold=0.4)
    padded, valid = tf.image.non_max_suppression_padded(det_boxes, scores, 5, 0.5, pad_to_max_output_size=True)
    fetch["nms_padded"] = [padded, valid]
    cboxes = tf.reshape(det_boxes, [1, 6, 1, 4]) / 100.0
    cscores = tf.reshape(tf.stack([scores, 1.0 - scores], 1), [1, 6, 2])
    fetch["combined"] = list(tf.image.combined_non_max_suppression(cboxes, cscores, 3, 4, 0.5, 0.2))
    fetch["drawn"] = tf.image.draw_bounding_boxes(
        images, tf.constant([[[0.2, 0.2, 0.8, 0.8]], [[0.0, 0.5, 0.5, 1.0]]]), colors=[[1.0, 0.0, 0.0, 1.0]]
    )
    out = {"shapes": {k: v.shape.as_list() for k, v in fetch.items() if not isinstance(v, list)}}
    with tf.Session() as sess:
        out["values"] = sess.run(fetch)
        try:
            sess.run(tf.image.crop_and_resize(images, boxes, tf.constant([0, 5, 1]), [2, 2]))
            out["bad_index"] = None
        except tf.errors.OpError as e:
            out["bad_index"] = type(e).__name__
    return out

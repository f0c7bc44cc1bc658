"""Image ops of TF1 detection code (Faster R-CNN / SSD heads written without the object_detection library):
tf.image.crop_and_resize of box proposals (bilinear and nearest, extrapolation_value for boxes past the edge,
box_ind per box), tf.image.non_max_suppression with max_output_size, iou_threshold and score_threshold,
non_max_suppression_padded-free padding by hand with tf.pad, tf.image.draw_bounding_boxes, tf.image.
per_image_standardization, resize_image_with_crop_or_pad, central_crop and pad_to_bounding_box; values, shapes and
the errors for boxes of the wrong rank."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    rng = np.random.RandomState(195)
    images = tf.constant(rng.rand(2, 8, 8, 3).astype(np.float32))
    boxes = tf.constant([[0.0, 0.0, 0.5, 0.5], [0.25, 0.25, 1.0, 1.0], [0.5, 0.5, 1.2, 1.3]], tf.float32)
    box_ind = tf.constant([0, 1, 1])
    crops = tf.image.crop_and_resize(images, boxes, box_ind, [4, 4])
    nearest = tf.image.crop_and_resize(images, boxes, box_ind, [3, 3], method="nearest", extrapolation_value=-1.0)
    det_boxes = tf.constant(
        [
            [0.0, 0.0, 1.0, 1.0],
            [0.0, 0.1, 1.0, 1.1],
            [0.0, -0.1, 1.0, 0.9],
            [0.0, 10.0, 1.0, 11.0],
            [0.0, 10.1, 1.0, 11.1],
        ],
        tf.float32,
    )
    scores = tf.constant([0.9, 0.75, 0.6, 0.95, 0.5])
    keep = tf.image.non_max_suppression(det_boxes, scores, max_output_size=3, iou_threshold=0.5)
    keep_thr = tf.image.non_max_suppression(det_boxes, scores, 5, iou_threshold=0.5, score_threshold=0.7)
    padded = tf.pad(keep, [[0, 5 - tf.size(keep)]], constant_values=-1)
    selected = tf.gather(det_boxes, keep)
    drawn = tf.image.draw_bounding_boxes(images, tf.constant([[[0.1, 0.1, 0.6, 0.6]], [[0.2, 0.3, 0.9, 0.8]]]))
    standardized = tf.image.per_image_standardization(images[0])
    cropped_or_padded = tf.image.resize_image_with_crop_or_pad(images, 5, 10)
    central = tf.image.central_crop(images[0], 0.5)
    on_canvas = tf.image.pad_to_bounding_box(images, 1, 2, 10, 12)
    out["shapes"] = [
        t.shape.as_list() for t in (crops, nearest, keep, selected, drawn, standardized, cropped_or_padded, central,
                                    on_canvas)
    ]  # fmt: skip
    try:
        tf.image.crop_and_resize(images, tf.constant([0.0, 0.0, 1.0, 1.0]), [0], [2, 2])
        out["bad_boxes"] = None
    except (ValueError, tf.errors.InvalidArgumentError) as e:
        out["bad_boxes"] = type(e).__name__
    with tf.Session() as sess:
        res = sess.run([crops, nearest, keep, keep_thr, padded, selected, drawn, standardized, cropped_or_padded,
                        central, on_canvas])  # fmt: skip
    names = ["crops", "nearest", "keep", "keep_thr", "padded", "selected", "drawn", "standardized", "crop_or_pad",
             "central", "on_canvas"]  # fmt: skip
    out.update(dict(zip(names, res)))
    return out

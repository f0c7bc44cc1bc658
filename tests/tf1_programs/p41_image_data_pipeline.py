"""An image input pipeline as TF1 code built it: PNG bytes written with encode_png and read back through
tf.data from_tensor_slices + map (decode_png, convert_image_dtype, resize_images with each method,
crop_to_bounding_box, central_crop, flip_left_right, adjust_brightness/contrast, per_image_standardization),
padded_batch, make_one_shot_iterator; plus crop_and_resize, non_max_suppression, image_gradients,
total_variation and the static shapes the ops infer."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(41)
    images = rng.randint(0, 256, (3, 10, 12, 3)).astype(np.uint8)
    with tf.Session() as sess:
        pngs = [sess.run(tf.image.encode_png(img)) for img in images]

    def parse(png, label):
        img = tf.image.decode_png(png, channels=3)
        img = tf.image.convert_image_dtype(img, tf.float32)
        img = tf.image.resize_images(img, [8, 8])
        img = tf.image.flip_left_right(img)
        img = tf.image.adjust_brightness(img, 0.1)
        img = tf.image.adjust_contrast(img, 1.5)
        return tf.image.per_image_standardization(img), label

    ds = tf.data.Dataset.from_tensor_slices((pngs, [0, 1, 2])).map(parse).batch(2)
    batch = tf.data.make_one_shot_iterator(ds).get_next()
    img = tf.constant(images[0].astype(np.float32))
    out = {}
    for name, method in [
        ("bilinear", tf.image.ResizeMethod.BILINEAR),
        ("nearest", tf.image.ResizeMethod.NEAREST_NEIGHBOR),
        ("bicubic", tf.image.ResizeMethod.BICUBIC),
        ("area", tf.image.ResizeMethod.AREA),
    ]:
        out["resize_" + name] = tf.image.resize_images(img, [5, 7], method=method)
    out["resize_align"] = tf.image.resize_bilinear(img[None], [7, 9], align_corners=True)
    out["crop_bbox"] = tf.image.crop_to_bounding_box(img, 2, 3, 4, 5)
    out["pad_bbox"] = tf.image.pad_to_bounding_box(img, 1, 2, 13, 15)
    out["central"] = tf.image.central_crop(img, 0.5)
    out["crop_resize"] = tf.image.crop_and_resize(
        img[None], [[0.1, 0.2, 0.8, 0.9], [0.0, 0.0, 1.0, 1.0]], [0, 0], [4, 4]
    )
    boxes = tf.constant(
        [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [0, 10.1, 1, 11.1], [0, 100, 1, 101]],
        tf.float32,
    )
    scores = tf.constant([0.9, 0.75, 0.6, 0.95, 0.5, 0.3])
    out["nms"] = tf.image.non_max_suppression(boxes, scores, 3, iou_threshold=0.5)
    dy, dx = tf.image.image_gradients(img[None])
    out["grads"] = [dy, dx]
    out["tv"] = tf.image.total_variation(img)
    out["hsv"] = tf.image.rgb_to_hsv(img / 255.0)
    out["gray"] = tf.image.rgb_to_grayscale(img)
    with tf.Session() as sess:
        got = sess.run(out)
        b1 = sess.run(batch)
        b2 = sess.run(batch)
        try:
            sess.run(batch)
            end = "no error"
        except tf.errors.OutOfRangeError:
            end = "OutOfRangeError"
    got["batches"] = [b1, b2]
    got["end"] = end
    got["shapes"] = {k: v.shape.as_list() for k, v in out.items() if hasattr(v, "shape") and not isinstance(v, list)}
    return got

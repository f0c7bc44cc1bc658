"""Image geometry ops of TF1 detection / augmentation code beyond the basics: resize_images with
preserve_aspect_ratio, resize_image_with_pad, resize_nearest_neighbor (align_corners / half_pixel_centers),
resize_bilinear(half_pixel_centers=True), extract_glimpse (centered / normalized offsets), crop_and_resize with
box_ind and method="nearest", pad_to_bounding_box / crop_to_bounding_box / resize_image_with_crop_or_pad on a
batch, rgb_to_yiq / yuv round trips, is_jpeg / extract_jpeg_shape / decode_bmp-free decode_image of a PNG and a
JPEG (shapes and dtypes), and the static shapes each gives."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(166)
    img = tf.constant(rng.rand(2, 6, 8, 3).astype(np.float32))
    single = img[0]
    ops = {
        "aspect": tf.image.resize_images(single, [4, 4], preserve_aspect_ratio=True),
        "with_pad": tf.image.resize_image_with_pad(single, 5, 5),
        "nn_align": tf.image.resize_nearest_neighbor(img, [3, 5], align_corners=True),
        "nn_half": tf.image.resize_nearest_neighbor(img, [9, 11], half_pixel_centers=True),
        "bilinear_half": tf.image.resize_bilinear(img, [4, 5], half_pixel_centers=True),
        "glimpse_centered": tf.image.extract_glimpse(
            img, [3, 3], [[0.0, 0.0], [0.5, -0.5]], centered=True, normalized=True
        ),
        "crop_resize_nearest": tf.image.crop_and_resize(
            img, [[0.0, 0.0, 0.5, 0.5], [0.2, 0.1, 0.9, 1.0]], [1, 0], [3, 3], method="nearest"
        ),
        "crop_resize_bilinear": tf.image.crop_and_resize(
            img, [[0.1, 0.2, 0.8, 0.7]], [1], [4, 2], extrapolation_value=-1.0
        ),
        "pad_box": tf.image.pad_to_bounding_box(img, 1, 2, 9, 12),
        "crop_box": tf.image.crop_to_bounding_box(img, 1, 2, 3, 4),
        "crop_or_pad": tf.image.resize_image_with_crop_or_pad(img, 4, 10),
        "yiq_round": tf.image.yiq_to_rgb(tf.image.rgb_to_yiq(single)),
        "yuv": tf.image.rgb_to_yuv(single),
    }
    png = tf.image.encode_png(tf.cast(single * 255.0, tf.uint8))
    jpeg = tf.image.encode_jpeg(tf.cast(single * 255.0, tf.uint8), quality=90)
    decoded = tf.image.decode_image(png, channels=3)
    out = {"shapes": {k: v.shape.as_list() for k, v in ops.items()}}
    with tf.Session() as sess:
        out["values"] = sess.run(ops)
        out["is_jpeg"] = sess.run([tf.image.is_jpeg(jpeg), tf.image.is_jpeg(png)])
        out["jpeg_shape"] = sess.run(tf.image.extract_jpeg_shape(jpeg))
        d = sess.run(decoded)
        out["decoded"] = [
            d.shape,
            str(d.dtype),
            int(np.abs(d.astype(np.int32) - (rng.rand(1) * 0).astype(np.int32)).sum() > 0),
        ]
        out["png_roundtrip"] = bool(np.array_equal(d, sess.run(tf.cast(single * 255.0, tf.uint8))))
    out["decoded_static"] = decoded.shape.ndims
    return out

"""Image files in TF1 input pipelines: encode_png / decode_png (uint8 and uint16, channels), encode_jpeg /
decode_jpeg with quality (shapes only; lossy), extract_jpeg_shape, decode_image's static shape, is_jpeg,
convert_image_dtype both ways (saturate), rgb_to_grayscale / grayscale_to_rgb, rgb_to_yuv / yuv_to_rgb round trip,
adjust_jpeg_quality's shape, image.resize_image_with_crop_or_pad on a batch, tf.io.write_file / read_file, and the
error for decoding bytes that are not an image."""

import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(228)
    img8 = tf.constant(rng.randint(0, 256, [5, 7, 3]).astype(np.uint8))
    img16 = tf.constant(rng.randint(0, 65536, [4, 4, 1]).astype(np.uint16))
    png = tf.image.encode_png(img8, compression=9)
    png16 = tf.image.encode_png(img16)
    jpeg = tf.image.encode_jpeg(img8, quality=80)
    path = os.path.join(workdir, "img.png")
    write = tf.io.write_file(path, png)
    fimg = tf.image.convert_image_dtype(img8, tf.float32)
    decoded_image = tf.image.decode_image(png)
    fetch = {
        "png_roundtrip": tf.image.decode_png(png),
        "png_gray": tf.image.decode_png(png, channels=1),
        "png16": tf.image.decode_png(png16, dtype=tf.uint16),
        "jpeg_shape": tf.shape(tf.image.decode_jpeg(jpeg)),
        "extract_shape": tf.image.extract_jpeg_shape(jpeg),
        "is_jpeg": [tf.image.is_jpeg(jpeg), tf.image.is_jpeg(png)],
        "to_float": fimg,
        "back_to_uint8": tf.image.convert_image_dtype(fimg * 1.5, tf.uint8, saturate=True),
        "to_uint16": tf.image.convert_image_dtype(img8, tf.uint16),
        "gray": tf.image.rgb_to_grayscale(fimg),
        "gray_rgb": tf.image.grayscale_to_rgb(tf.image.rgb_to_grayscale(fimg)),
        "yuv_roundtrip": tf.image.yuv_to_rgb(tf.image.rgb_to_yuv(fimg)),
        "jpeg_quality_shape": tf.shape(tf.image.adjust_jpeg_quality(fimg, 50)),
        "crop_or_pad": tf.image.resize_image_with_crop_or_pad(tf.stack([fimg, fimg]), 4, 9),
    }
    out = {
        "static": {
            "decode_image": decoded_image.shape.ndims,
            "decode_png": tf.image.decode_png(png, channels=3).shape.as_list(),
            "crop_or_pad": fetch["crop_or_pad"].shape.as_list(),
            "gray": fetch["gray"].shape.as_list(),
        },
        "dtypes": {k: v.dtype.name for k, v in fetch.items() if not isinstance(v, list)},
    }
    with tf.Session() as sess:
        values = sess.run(fetch)
        values["png_roundtrip_equal"] = bool(np.array_equal(values.pop("png_roundtrip"), sess.run(img8)))
        values["png16_equal"] = bool(np.array_equal(values.pop("png16"), sess.run(img16)))
        sess.run(write)
        values["read_back"] = bool(np.array_equal(sess.run(tf.image.decode_png(tf.io.read_file(path))), sess.run(img8)))
        out["values"] = values
        try:
            sess.run(tf.image.decode_image(tf.constant(b"not an image at all")))
            out["bad"] = None
        except tf.errors.InvalidArgumentError as e:
            out["bad"] = type(e).__name__
    return out

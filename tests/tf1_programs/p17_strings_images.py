"""tf.string ops and tf.image preprocessing as input pipelines used them."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    lines = tf.placeholder(tf.string, [None])
    split = tf.string_split(lines, delimiter=" ")
    joined = tf.reduce_join(tf.constant([["a", "b"], ["c", "d"]]), axis=1, separator="-")
    upper = tf.strings.upper(lines) if hasattr(tf.strings, "upper") else lines
    lengths = tf.strings.length(lines)
    num = tf.string_to_number(tf.constant(["1.5", "-2"]), out_type=tf.float32)
    hashed = tf.string_to_hash_bucket_fast(lines, 10)
    sub = tf.substr(lines, 0, 3)
    regex = tf.regex_replace(lines, "o+", "0")
    fmt = tf.as_string(tf.constant([1.25, 3.0]), precision=2)
    table_keys = tf.constant(["cat", "dog"])
    eq = tf.equal(lines, "hello world")
    concat = tf.strings.join([lines, tf.constant("!")], separator="")

    rng = np.random.RandomState(17)
    img = (rng.rand(2, 8, 6, 3) * 255).astype(np.uint8)
    image = tf.placeholder(tf.uint8, [None, 8, 6, 3])
    f = tf.image.convert_image_dtype(image, tf.float32)
    resized = tf.image.resize_images(f, [4, 4])
    resized_nn = tf.image.resize_images(f, [5, 3], method=tf.image.ResizeMethod.NEAREST_NEIGHBOR)
    bilinear = tf.image.resize_bilinear(f, [3, 3], align_corners=True)
    flipped = tf.image.flip_left_right(f[0])
    cropped = tf.image.resize_image_with_crop_or_pad(f[0], 4, 8)
    central = tf.image.central_crop(f[0], 0.5)
    bright = tf.image.adjust_brightness(f, 0.1)
    contrast = tf.image.adjust_contrast(f, 2.0)
    gray = tf.image.rgb_to_grayscale(f)
    std = tf.image.per_image_standardization(f[0])
    crop_box = tf.image.crop_to_bounding_box(f[0], 1, 1, 4, 3)
    pad_box = tf.image.pad_to_bounding_box(f[0], 1, 2, 10, 9)
    hsv = tf.image.rgb_to_hsv(f)
    sat = tf.image.adjust_saturation(f, 1.5)
    tr = tf.image.transpose_image(f[0])
    rot = tf.image.rot90(f[0])
    png = tf.image.encode_png(image[0])
    decoded = tf.image.decode_png(png, channels=3)
    with tf.Session() as sess:
        s = sess.run(split, {lines: ["hello world", "a b  c", "foo"]})
        texts = sess.run(
            [joined, upper, lengths, num, hashed, sub, regex, fmt, eq, concat], {lines: ["hello world", "foo"]}
        )
        ims = sess.run(
            [
                f,
                resized,
                resized_nn,
                bilinear,
                flipped,
                cropped,
                central,
                bright,
                contrast,
                gray,
                std,
                crop_box,
                pad_box,
                hsv,
                sat,
                tr,
                rot,
                decoded,
            ],
            {image: img},
        )
    return {
        "split": [s.indices, s.values, s.dense_shape],
        "texts": texts,
        "images": ims,
        "shapes": [
            t.shape.as_list()
            for t in (resized, resized_nn, flipped, cropped, central, gray, crop_box, pad_box, decoded)
        ],
        "dtypes": [resized.dtype.name, decoded.dtype.name, lengths.dtype.name, hashed.dtype.name],
        "table_keys": table_keys.dtype.name,
    }

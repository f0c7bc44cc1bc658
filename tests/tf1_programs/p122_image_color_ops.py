"""Colour-space and geometry image ops as TF1 preprocessing code used them (deterministic ones only):
rgb_to_hsv / hsv_to_rgb round trip, rgb_to_grayscale / grayscale_to_rgb, adjust_saturation, adjust_hue,
adjust_gamma, adjust_brightness / adjust_contrast, convert_image_dtype uint8 <-> float32 (saturate), rot90 with
k, transpose_image, flip_up_down, rgb_to_yuv / yuv_to_rgb, image per_image_standardization of a constant image,
tf.image.resize_images with each method and align_corners on an upscaling, and tf.image.total_variation."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(122)
    img_u8 = rng.randint(0, 256, (2, 4, 5, 3)).astype(np.uint8)
    img = tf.image.convert_image_dtype(tf.constant(img_u8), tf.float32)
    hsv = tf.image.rgb_to_hsv(img)
    back = tf.image.hsv_to_rgb(hsv)
    gray = tf.image.rgb_to_grayscale(img)
    gray3 = tf.image.grayscale_to_rgb(gray)
    ops_ = {
        "saturation": tf.image.adjust_saturation(img, 1.7),
        "hue": tf.image.adjust_hue(img, 0.2),
        "gamma": tf.image.adjust_gamma(img, 2.2, gain=0.9),
        "brightness": tf.image.adjust_brightness(img, -0.1),
        "contrast": tf.image.adjust_contrast(img, 1.5),
        "to_u8": tf.image.convert_image_dtype(img * 1.2, tf.uint8, saturate=True),
        "rot90": tf.image.rot90(img, k=3),
        "transpose": tf.image.transpose_image(img),
        "flip_ud": tf.image.flip_up_down(img),
        "yuv_back": tf.image.yuv_to_rgb(tf.image.rgb_to_yuv(img)),
        "standardized_const": tf.image.per_image_standardization(tf.fill([3, 3, 1], 5.0)),
        "tv": tf.image.total_variation(img),
    }
    methods = [
        tf.image.ResizeMethod.BILINEAR,
        tf.image.ResizeMethod.NEAREST_NEIGHBOR,
        tf.image.ResizeMethod.BICUBIC,
        tf.image.ResizeMethod.AREA,
    ]
    resized = [tf.image.resize_images(img, [7, 9], method=m) for m in methods]
    aligned = [tf.image.resize_images(img, [7, 9], method=m, align_corners=True) for m in methods[:3]]
    out = {
        "shapes": {k: v.shape.as_list() for k, v in ops_.items()},
        "dtypes": {k: v.dtype.name for k, v in ops_.items()},
        "resized_dtypes": [t.dtype.name for t in resized],
    }
    with tf.Session() as sess:
        i, h, b, g, g3 = sess.run([img, hsv, back, gray, gray3])
        out["hsv"] = h[0, 0]
        out["roundtrip"] = bool(np.allclose(i, b, atol=1e-5))
        out["gray"] = g[0, :2, :2, 0]
        out["gray3_same"] = bool((g3 == np.repeat(g, 3, axis=-1)).all())
        values = sess.run(ops_)
        out["values"] = {k: (v[0, :2, :2] if v.ndim == 4 else v) for k, v in values.items()}
        out["values"]["to_u8"] = out["values"]["to_u8"].astype(np.int64)
        out["resized"] = [r[0, :3, :3] for r in sess.run(resized)]
        out["aligned"] = [r[0, :3, :3] for r in sess.run(aligned)]
    return out

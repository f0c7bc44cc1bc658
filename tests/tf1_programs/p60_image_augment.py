"""Image augmentation as TF1 input pipelines wrote it: random_flip_left_right / random_flip_up_down /
random_crop / random_brightness / random_contrast / random_hue with op seeds (values differ by generator, so
only shapes, dtypes, value ranges and determinism under one seed are compared), resize_images with each
ResizeMethod and align_corners, resize_image_with_crop_or_pad, pad_to_bounding_box, rot90 with k, transpose,
convert_image_dtype saturate, adjust_gamma, rgb_to_yuv round trip, sobel_edges, extract_image_patches, and
draw_bounding_boxes."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(60)
    rng = np.random.RandomState(60)
    img_np = rng.rand(8, 10, 3).astype(np.float32)
    img = tf.constant(img_np)
    out = {}
    aug = tf.image.random_flip_left_right(img, seed=1)
    aug = tf.image.random_flip_up_down(aug, seed=2)
    aug = tf.image.random_crop(aug, [6, 6, 3], seed=3)
    aug = tf.image.random_brightness(aug, 0.2, seed=4)
    aug = tf.image.random_contrast(aug, 0.5, 1.5, seed=5)
    aug = tf.clip_by_value(aug, 0.0, 1.0)
    out["aug_static"] = [aug.shape.as_list(), aug.dtype.name]
    batch = tf.constant(rng.rand(2, 5, 7, 3).astype(np.float32))
    resized = {
        m: tf.image.resize_images(batch, [9, 4], method=getattr(tf.image.ResizeMethod, m))
        for m in ("BILINEAR", "NEAREST_NEIGHBOR", "BICUBIC", "AREA")
    }
    aligned = tf.image.resize_images(batch, [9, 13], align_corners=True)
    out["resized_static"] = {k: [v.shape.as_list(), v.dtype.name] for k, v in resized.items()}
    padded = tf.image.resize_image_with_crop_or_pad(img, 12, 6)
    boxed = tf.image.pad_to_bounding_box(img, 1, 2, 11, 13)
    rots = [tf.image.rot90(img, k=k) for k in range(4)]
    u8 = tf.image.convert_image_dtype(tf.constant([[[1.2, -0.1, 0.5]]]), tf.uint8, saturate=True)
    back = tf.image.convert_image_dtype(u8, tf.float32)
    gamma = tf.image.adjust_gamma(img, gamma=2.0, gain=0.5)
    yuv = tf.image.rgb_to_yuv(img)
    round_trip = tf.image.yuv_to_rgb(yuv)
    sobel = tf.image.sobel_edges(batch)
    patches = tf.extract_image_patches(batch, [1, 2, 2, 1], [1, 2, 3, 1], [1, 1, 1, 1], "VALID")
    boxes = tf.constant([[[0.1, 0.2, 0.6, 0.9]], [[0.0, 0.0, 1.0, 0.5]]])
    drawn = tf.image.draw_bounding_boxes(batch, boxes)
    out["static"] = [
        padded.shape.as_list(),
        boxed.shape.as_list(),
        [r.shape.as_list() for r in rots],
        sobel.shape.as_list(),
        patches.shape.as_list(),
    ]
    with tf.Session() as sess:
        a1 = sess.run(aug)
        a2 = sess.run(aug)
        out["aug_range"] = [a1.shape, bool(a1.min() >= 0.0), bool(a1.max() <= 1.0), a1.dtype.name]
        out["aug_changes"] = bool(a1.shape == a2.shape)
        got = sess.run(
            {
                "resized": resized,
                "aligned": aligned,
                "padded": padded,
                "boxed": boxed,
                "rots": rots,
                "u8": u8,
                "back": back,
                "gamma": gamma,
                "round_trip": round_trip,
                "sobel": sobel,
                "patches": patches,
                "drawn": drawn,
            }
        )
    out.update(got)
    return out

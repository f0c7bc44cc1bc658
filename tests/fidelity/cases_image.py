"""tw.image against TensorFlow 1's tf.image: every resize method with align_corners / half_pixel_centers on up-
and down-sampling, crops and pads, flips, rotations, color conversions and adjustments, dtype conversion,
standardization, boxes (non_max_suppression, crop_and_resize), gradients of the bilinear and nearest-neighbor
resizes, and the error classes of bad arguments."""

import numpy as np

from tests.fidelity.harness import case

RNG = np.random.RandomState(16)
IMG = RNG.uniform(0, 1, [2, 5, 7, 3]).astype(np.float32)
SMALL = RNG.uniform(0, 1, [1, 3, 4, 2]).astype(np.float32)
UINT8 = RNG.randint(0, 256, [4, 6, 3]).astype(np.uint8)
SIZES = [[8, 11], [3, 4], [5, 3], [1, 1], [10, 14]]
FLAGS = [(False, False), (True, False), (False, True)]


def _resize_all(tf, sess, fn, image):
    out = []
    for size in SIZES:
        for align, half in FLAGS:
            y = fn(image, size, align_corners=align, half_pixel_centers=half)
            out.append([sess.run(y), y.shape, y.dtype])
    return out


@case
def resize_bilinear_all_modes(tf, sess):
    return _resize_all(tf, sess, tf.image.resize_bilinear, IMG)


@case
def resize_nearest_neighbor_all_modes(tf, sess):
    return _resize_all(tf, sess, tf.image.resize_nearest_neighbor, IMG)


@case(tol=1e-4)
def resize_bicubic_all_modes(tf, sess):
    return _resize_all(tf, sess, tf.image.resize_bicubic, IMG)


@case
def resize_area_sizes(tf, sess):
    out = []
    for size in SIZES:
        for align in (False, True):
            y = tf.image.resize_area(IMG, size, align_corners=align)
            out.append([sess.run(y), y.shape])
    return out


@case
def resize_of_integer_images(tf, sess):
    x = UINT8[None]
    ys = [tf.image.resize_bilinear(x, [7, 5]), tf.image.resize_nearest_neighbor(x, [7, 5])]
    ys.append(tf.image.resize_bicubic(x.astype(np.int32), [3, 9]))
    return [sess.run(ys), [y.dtype for y in ys]]


@case
def resize_images_methods_and_ranks(tf, sess):
    out = []
    for method in (0, 1, 2, 3):
        a = tf.image.resize_images(IMG[0], [4, 9], method=method)
        b = tf.image.resize_images(IMG, [6, 6], method=method, align_corners=True)
        out.append([sess.run([a, b]), a.shape, b.shape, a.dtype])
    same = tf.image.resize_images(UINT8, [4, 6])
    out.append([sess.run(same), same.dtype])
    return out


@case
def resize_images_unknown_size(tf, sess):
    s = tf.placeholder(tf.int32, [2])
    y = tf.image.resize_images(IMG, s)
    return [y.shape, sess.run(y, {s: [3, 2]}).shape]


@case
def resize_images_preserve_aspect_ratio(tf, sess):
    y = tf.image.resize_images(IMG[0], [10, 10], preserve_aspect_ratio=True)
    return [sess.run(y), y.shape]


@case
def resize_bilinear_half_pixel_with_align_corners(tf, sess):
    return sess.run(tf.image.resize_bilinear(IMG, [3, 3], align_corners=True, half_pixel_centers=True))


@case
def resize_bilinear_bad_size(tf, sess):
    s = tf.placeholder(tf.int32, [2])
    return sess.run(tf.image.resize_bilinear(IMG, s), {s: [0, 3]})


@case
def resize_images_bad_rank(tf, sess):
    return tf.image.resize_images(np.zeros([4, 4], np.float32), [2, 2])


def _grad(tf, sess, fn, x):
    x = tf.constant(x)
    y = fn(x)
    shape = sess.run(tf.shape(y))
    # A generator of its own: the weights must not depend on which cases ran before.
    w = tf.constant(np.random.RandomState(7).uniform(-1, 1, shape).astype(np.float32))
    (g,) = tf.gradients(tf.reduce_sum(y * w), [x])
    return [sess.run(g), g.shape]


@case
def resize_bilinear_gradients(tf, sess):
    out = []
    for size in ([8, 11], [3, 4], [2, 9]):
        for align, half in FLAGS:
            out.append(
                _grad(
                    tf,
                    sess,
                    lambda x: tf.image.resize_bilinear(x, size, align_corners=align, half_pixel_centers=half),
                    SMALL,
                )
            )
    return out


@case
def resize_nearest_neighbor_gradients(tf, sess):
    out = []
    for size in ([8, 11], [3, 4], [2, 9]):
        for align, half in FLAGS:
            out.append(
                _grad(
                    tf,
                    sess,
                    lambda x: tf.image.resize_nearest_neighbor(x, size, align_corners=align, half_pixel_centers=half),
                    SMALL,
                )
            )
    return out


# --- crops and pads --------------------------------------------------------------------------------------------


@case
def crop_to_bounding_box_3d_4d(tf, sess):
    a = tf.image.crop_to_bounding_box(IMG[0], 1, 2, 3, 4)
    b = tf.image.crop_to_bounding_box(IMG, 0, 3, 5, 4)
    return [sess.run([a, b]), a.shape, b.shape]


@case
def crop_to_bounding_box_too_large(tf, sess):
    return tf.image.crop_to_bounding_box(IMG[0], 3, 0, 3, 4)


@case
def crop_to_bounding_box_negative_offset(tf, sess):
    return tf.image.crop_to_bounding_box(IMG[0], -1, 0, 3, 4)


@case
def pad_to_bounding_box_3d_4d(tf, sess):
    a = tf.image.pad_to_bounding_box(IMG[0], 1, 2, 8, 10)
    b = tf.image.pad_to_bounding_box(UINT8[None], 0, 1, 4, 8)
    return [sess.run([a, b]), a.shape, b.shape]


@case
def pad_to_bounding_box_too_small(tf, sess):
    return tf.image.pad_to_bounding_box(IMG[0], 1, 0, 5, 7)


@case
def central_crop_fractions(tf, sess):
    ys = [tf.image.central_crop(IMG[0], f) for f in (0.5, 0.3, 0.75, 1.0)] + [tf.image.central_crop(IMG, 0.6)]
    return [sess.run(ys), [y.shape for y in ys]]


@case
def central_crop_bad_fraction(tf, sess):
    return tf.image.central_crop(IMG[0], 1.5)


@case
def resize_image_with_crop_or_pad_cases(tf, sess):
    ys = [tf.image.resize_image_with_crop_or_pad(IMG[0], h, w) for h, w in ((3, 9), (8, 4), (5, 7), (1, 1))]
    ys.append(tf.image.resize_image_with_crop_or_pad(IMG, 6, 6))
    return [sess.run(ys), [y.shape for y in ys]]


# --- flips and rotations ---------------------------------------------------------------------------------------


@case
def flips_and_transposes(tf, sess):
    ys = [
        tf.image.flip_left_right(IMG[0]),
        tf.image.flip_left_right(IMG),
        tf.image.flip_up_down(IMG[0]),
        tf.image.flip_up_down(IMG),
        tf.image.transpose_image(IMG[0]),
        tf.image.transpose_image(IMG),
    ]
    return [sess.run(ys), [y.shape for y in ys]]


@case
def rot90_every_k(tf, sess):
    ys = [tf.image.rot90(IMG[0], k) for k in (0, 1, 2, 3, 5, -1)] + [tf.image.rot90(IMG, 1), tf.image.rot90(IMG, 3)]
    return [sess.run(ys), [y.shape for y in ys]]


@case
def random_flips_are_flips(tf, sess):
    # The random numbers differ from TensorFlow's; what both give is either the image or its mirror.
    x = IMG[0]
    out = []
    for fn, mirror in ((tf.image.random_flip_left_right, x[:, ::-1]), (tf.image.random_flip_up_down, x[::-1])):
        y = fn(x, seed=3)
        values = [sess.run(y) for _ in range(8)]
        out.append([y.shape, all(np.array_equal(v, x) or np.array_equal(v, mirror) for v in values)])
    return out


@case
def random_flip_of_a_batch_is_per_image(tf, sess):
    y = tf.image.random_flip_left_right(IMG, seed=1)
    v = sess.run(y)
    return [y.shape, all(np.array_equal(v[i], IMG[i]) or np.array_equal(v[i], IMG[i][:, ::-1]) for i in range(2))]


# --- color and dtype -------------------------------------------------------------------------------------------


@case
def convert_image_dtype_pairs(tf, sess):
    # (No float above 1 without saturate: that cast is out of the integer's range, undefined in C++.)
    f = np.array([[[0.0, 0.5, 1.0]], [[0.25, 0.999, 0.0]]], np.float32)
    f_over = np.array([[[0.0, 0.5, 1.0]], [[0.25, 0.999, 1.2]]], np.float32)
    ys = [
        tf.image.convert_image_dtype(UINT8, tf.float32),
        tf.image.convert_image_dtype(UINT8, tf.int32),
        tf.image.convert_image_dtype(UINT8, tf.int8),
        tf.image.convert_image_dtype(f, tf.uint8),
        tf.image.convert_image_dtype(f_over, tf.uint8, saturate=True),
        tf.image.convert_image_dtype(f, tf.float64),
        tf.image.convert_image_dtype(np.array([2**31 - 1, 0], np.int32), tf.uint8),
        tf.image.convert_image_dtype(UINT8, tf.uint8),
    ]
    return [sess.run(ys), [y.dtype for y in ys], [y.shape for y in ys]]


@case
def convert_image_dtype_bad_dtype(tf, sess):
    return tf.image.convert_image_dtype(UINT8, tf.bool)


@case
def rgb_hsv_round_trip(tf, sess):
    x = np.concatenate([IMG.reshape(-1, 3), np.eye(3, dtype=np.float32), [[0.5, 0.5, 0.5], [0, 0, 0]]])
    hsv = tf.image.rgb_to_hsv(x)
    back = tf.image.hsv_to_rgb(hsv)
    return [sess.run([hsv, back]), hsv.shape]


@case
def rgb_to_hsv_bad_channels(tf, sess):
    return tf.image.rgb_to_hsv(np.zeros([2, 2, 4], np.float32))


@case
def grayscale_conversions(tf, sess):
    ys = [tf.image.rgb_to_grayscale(IMG), tf.image.rgb_to_grayscale(UINT8)]
    g = tf.image.grayscale_to_rgb(ys[0])
    return [sess.run(ys + [g]), [y.shape for y in ys + [g]], [y.dtype for y in ys]]


@case
def adjust_brightness_contrast_gamma(tf, sess):
    ys = [
        tf.image.adjust_brightness(IMG, 0.2),
        tf.image.adjust_brightness(UINT8, -0.1),
        tf.image.adjust_contrast(IMG, 1.7),
        tf.image.adjust_contrast(UINT8, 0.5),
        tf.image.adjust_gamma(IMG, 2.2, 0.9),
        tf.image.adjust_gamma(UINT8, 0.5),
    ]
    return [sess.run(ys), [y.dtype for y in ys], [y.shape for y in ys]]


@case(tol=1e-4)
def adjust_saturation_and_hue(tf, sess):
    ys = [
        tf.image.adjust_saturation(IMG, 0.4),
        tf.image.adjust_saturation(IMG, 2.5),
        tf.image.adjust_hue(IMG, 0.3),
        tf.image.adjust_hue(IMG, -0.45),
        tf.image.adjust_hue(UINT8, 0.1),
        tf.image.adjust_saturation(UINT8, 1.5),
    ]
    return [sess.run(ys), [y.dtype for y in ys], [y.shape for y in ys]]


@case
def per_image_standardization_values(tf, sess):
    ys = [
        tf.image.per_image_standardization(IMG),
        tf.image.per_image_standardization(UINT8),
        tf.image.per_image_standardization(np.ones([2, 2, 1], np.float32)),
    ]
    return [sess.run(ys), [y.dtype for y in ys], [y.shape for y in ys]]


@case
def total_variation_and_image_gradients(tf, sess):
    # (TensorFlow's total_variation and image_gradients need a Tensor: a numpy array raises AttributeError.)
    a = tf.image.total_variation(tf.constant(IMG))
    b = tf.image.total_variation(tf.constant(IMG[0]))
    dy, dx = tf.image.image_gradients(tf.constant(IMG))
    return [sess.run([a, b, dy, dx]), a.shape, b.shape, dy.shape]


@case
def image_gradients_needs_4d(tf, sess):
    return tf.image.image_gradients(tf.constant(IMG[0]))


# --- boxes -----------------------------------------------------------------------------------------------------


BOXES = np.array(
    [
        [0, 0, 1, 1],
        [0, 0.1, 1, 1.1],
        [0, -0.1, 1, 0.9],
        [0, 10, 1, 11],
        [0, 10.1, 1, 11.1],
        [0, 100, 1, 101],
        [1, 1, 0, 0],
        [0.5, 0.5, 0.5, 0.9],
    ],
    np.float32,
)
SCORES = np.array([0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0.8, 0.99], np.float32)


@case
def non_max_suppression_thresholds(tf, sess):
    ys = [
        tf.image.non_max_suppression(BOXES, SCORES, 10),
        tf.image.non_max_suppression(BOXES, SCORES, 3),
        tf.image.non_max_suppression(BOXES, SCORES, 10, iou_threshold=0.0),
        tf.image.non_max_suppression(BOXES, SCORES, 10, iou_threshold=1.0),
        tf.image.non_max_suppression(BOXES, SCORES, 10, score_threshold=0.7),
        tf.image.non_max_suppression(BOXES, np.ones(8, np.float32), 10),
    ]
    return [sess.run(ys), [y.shape for y in ys], ys[0].dtype]


@case
def non_max_suppression_bad_threshold(tf, sess):
    return sess.run(tf.image.non_max_suppression(BOXES, SCORES, 3, iou_threshold=tf.constant(1.5)))


@case
def crop_and_resize_methods(tf, sess):
    boxes = np.array([[0, 0, 1, 1], [0.2, 0.1, 0.8, 0.9], [-0.5, -0.2, 1.4, 1.1], [0.7, 0.6, 0.1, 0.2]], np.float32)
    a = tf.image.crop_and_resize(IMG, boxes, [0, 1, 0, 1], [4, 5])
    b = tf.image.crop_and_resize(IMG, boxes, [1, 1, 0, 0], [3, 2], method="nearest", extrapolation_value=-1.0)
    c = tf.image.crop_and_resize(IMG, boxes[:2], [0, 1], [1, 1])
    return [sess.run([a, b, c]), a.shape, b.shape, c.shape]


@case
def crop_and_resize_bad_box_index(tf, sess):
    return sess.run(tf.image.crop_and_resize(IMG, [[0, 0, 1, 1]], tf.constant([2]), [2, 2]))


@case
def resize_bicubic_gradients(tf, sess):
    out = []
    for size in ([8, 11], [2, 3]):
        for align, half in FLAGS:
            out.append(
                _grad(
                    tf,
                    sess,
                    lambda x: tf.image.resize_bicubic(x, size, align_corners=align, half_pixel_centers=half),
                    SMALL,
                )
            )
    return out


@case(tol=1e-4)
def crop_and_resize_gradients(tf, sess):
    image = tf.constant(IMG)
    # (No crop pixel samples exactly on a pixel centre: the boxes' gradient jumps there, and the side float
    # rounding lands on differs between compilers.)
    boxes = tf.constant([[0.1, 0.2, 0.8, 0.7], [0.3, 0.05, 0.9, 0.95], [-0.2, 0.1, 0.52, 1.27]])
    w = tf.constant(np.random.RandomState(8).uniform(-1, 1, [3, 3, 4, 3]).astype(np.float32))
    out = []
    for method in ("bilinear", "nearest"):
        y = tf.image.crop_and_resize(image, boxes, [1, 0, 1], [3, 4], method=method)
        g = tf.gradients(tf.reduce_sum(y * w), [image, boxes])
        out.append([sess.run(g), [t.shape for t in g]])
    return out


@case
def resize_image_with_pad_shapes_and_values(tf, sess):
    ys = [
        tf.image.resize_image_with_pad(IMG[0], 8, 8),
        tf.image.resize_image_with_pad(IMG, 4, 9, method=1),
        tf.image.resize_image_with_pad(UINT8, 6, 3, method=1),
    ]
    return [sess.run(ys), [y.shape for y in ys], [y.dtype for y in ys]]


@case
def psnr_values(tf, sess):
    other = np.clip(IMG + 0.05, 0, 1)
    a = tf.image.psnr(IMG, other, 1.0)
    b = tf.image.psnr(UINT8, np.clip(UINT8.astype(np.int32) + 3, 0, 255).astype(np.uint8), 255)
    return [sess.run([a, b]), a.shape, b.shape, a.dtype]


@case
def random_adjustments_stay_in_range(tf, sess):
    # The random numbers differ from TensorFlow's; shapes, dtypes and the bounds both keep are compared.
    x = IMG[0]
    ys = [
        tf.image.random_brightness(x, 0.2, seed=1),
        tf.image.random_contrast(x, 0.5, 1.5, seed=2),
        tf.image.random_saturation(x, 0.5, 1.5, seed=3),
        tf.image.random_hue(x, 0.2, seed=4),
    ]
    v = sess.run(ys)
    return [
        [y.shape for y in ys],
        [y.dtype for y in ys],
        bool(np.allclose(v[0] - x, (v[0] - x).mean(), atol=1e-5) and abs((v[0] - x).mean()) <= 0.2),
        bool(np.all(v[2] >= -1e-6) and np.all(v[2] <= 1 + 1e-6)),
    ]


@case
def random_adjustment_bad_bounds(tf, sess):
    out = []
    for build in (
        lambda: tf.image.random_contrast(IMG, 1.0, 0.5),
        lambda: tf.image.random_saturation(IMG, -1.0, 0.5),
        lambda: tf.image.random_hue(IMG, 0.7),
    ):
        try:
            build()
            out.append("built")
        except ValueError:
            out.append("ValueError")
    return out


@case
def extract_patches_alias(tf, sess):
    y = tf.image.extract_patches(IMG, sizes=[1, 2, 3, 1], strides=[1, 2, 2, 1], rates=[1, 1, 1, 1], padding="SAME")
    return [sess.run(y), y.shape]

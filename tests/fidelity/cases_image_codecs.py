"""Image codecs and the tf.image composites built on them, against TensorFlow 1: PNG decoding of every color
type (gray, gray+alpha, RGB, RGBA, palette with and without transparency, 1-bit, 16-bit) to every channel count
and dtype, PNG round trips, JPEG decoding (baseline 4:2:0, 4:4:4, gray, progressive) under every channels /
ratio / fancy_upscaling / dct_method, cropped decoding, the shape extractor, JPEG encoding (the bytes and the
decoded pixels), GIF (animated, with transparency) and BMP decoding, decode_image's sniffing and dtypes, the
error classes of bad data and bad attributes, is_jpeg, adjust_jpeg_quality, YIQ/YUV and Sobel edges.

The test files are made with Pillow when this module is imported (deterministic bytes, the same in the
tensorweave and the TensorFlow process)."""

import io

import numpy as np

from tests.fidelity.harness import case

try:
    from PIL import Image
except ImportError:  # pragma: no cover - Pillow is a dependency of the test environment
    Image = None

RNG = np.random.RandomState(5)
RGB = RNG.randint(0, 256, [13, 17, 3]).astype(np.uint8)
# A smooth image: JPEG artifacts are small, every code path still runs.
_YY, _XX = np.mgrid[0:24, 0:40]
SMOOTH = np.stack([_YY * 10, _XX * 6, (_YY + _XX) * 4], -1).astype(np.uint8)
GRAY16 = RNG.randint(0, 65536, [7, 9]).astype(np.uint16)


def _save(img, fmt, **kw):
    buf = io.BytesIO()
    img.save(buf, format=fmt, **kw)
    return buf.getvalue()


def _pngs():
    rgba = np.concatenate([RGB, RNG.randint(0, 256, [13, 17, 1]).astype(np.uint8)], -1)
    pal = Image.fromarray(RGB).convert("P", palette=Image.ADAPTIVE, colors=16)
    pal_t = pal.copy()
    pal_t.info["transparency"] = 3
    return {
        "gray": _save(Image.fromarray(RGB[..., 0]), "PNG"),
        "gray_alpha": _save(Image.fromarray(RGB[..., :2].copy(), "LA"), "PNG"),
        "rgb": _save(Image.fromarray(RGB), "PNG"),
        "rgba": _save(Image.fromarray(rgba), "PNG"),
        "palette": _save(pal, "PNG"),
        "palette_trns": _save(pal_t, "PNG", transparency=3),
        "bits1": _save(Image.fromarray(RGB[..., 0] > 128).convert("1"), "PNG"),
        "gray16": _save(Image.fromarray(GRAY16), "PNG"),
    }


def _jpegs():
    return {
        "q90_420": _save(Image.fromarray(SMOOTH), "JPEG", quality=90),
        "q75_444": _save(Image.fromarray(RGB), "JPEG", quality=75, subsampling=0),
        "gray": _save(Image.fromarray(SMOOTH[..., 1].copy()), "JPEG", quality=85),
        "progressive": _save(Image.fromarray(SMOOTH), "JPEG", quality=80, progressive=True),
    }


def _gif():
    frames = []
    for k in range(3):
        a = np.zeros([6, 8], np.uint8)
        a[k : k + 3, k : k + 4] = k + 1
        im = Image.fromarray(a).convert("P")
        im.putpalette([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255] + [9, 9, 9] * 252)
        frames.append(im)
    buf = io.BytesIO()
    frames[0].save(buf, format="GIF", save_all=True, append_images=frames[1:], transparency=0, disposal=1)
    return buf.getvalue()


if Image is not None:
    PNGS = _pngs()
    JPEGS = _jpegs()
    GIF = _gif()
    BMP24 = _save(Image.fromarray(RGB), "BMP")
    BMP_GRAY = _save(Image.fromarray(RGB[..., 0]), "BMP")


def _errors(tf, sess, fns):
    out = []
    for fn in fns:
        try:
            out.append(["ok", sess.run(fn())])
        except Exception as e:  # noqa: BLE001 - the class is the observation
            out.append(type(e).__name__)
    return out


@case
def png_decode_every_color_type_and_channels(tf, sess):
    out = []
    for name in sorted(PNGS):
        for channels in (0, 1, 3, 4):
            for dtype in (tf.uint8, tf.uint16):
                y = tf.image.decode_png(PNGS[name], channels=channels, dtype=dtype)
                out.append([name, channels, sess.run(y), y.shape, y.dtype])
    return out


@case
def png_round_trip_uint8_uint16(tf, sess):
    out = []
    for c in (1, 2, 3, 4):
        img8 = RNG.randint(0, 256, [5, 6, c]).astype(np.uint8)
        img16 = (img8.astype(np.uint16) * 251 + 7).astype(np.uint16)
        for img in (img8, img16):
            for comp in (-1, 0, 9):
                enc = tf.image.encode_png(img, compression=comp)
                dec = tf.image.decode_png(enc, dtype=tf.as_dtype(img.dtype))
                out.append([sess.run(dec), enc.shape, enc.dtype])
    return out


@case
def jpeg_decode_all_attrs(tf, sess):
    out = []
    for name in sorted(JPEGS):
        for channels in (0, 1, 3):
            for ratio in (1, 2, 4, 8):
                for fancy in (True, False):
                    for dct in ("", "INTEGER_FAST", "INTEGER_ACCURATE"):
                        y = tf.image.decode_jpeg(
                            JPEGS[name], channels=channels, ratio=ratio, fancy_upscaling=fancy, dct_method=dct
                        )
                        out.append(sess.run(y))
    return out


@case
def jpeg_decode_static_shapes(tf, sess):
    return [tf.image.decode_jpeg(JPEGS["gray"], channels=c).shape for c in (0, 1, 3)] + [
        tf.image.decode_png(PNGS["rgb"], channels=4).shape
    ]


@case
def jpeg_decode_and_crop(tf, sess):
    out = []
    for name in ("q90_420", "q75_444", "gray"):
        for window in ([0, 0, 5, 7], [3, 9, 10, 13], [1, 1, 1, 1], [0, 0, 13, 17]):
            for channels in (0, 3):
                y = tf.image.decode_and_crop_jpeg(JPEGS[name], window, channels=channels)
                out.append(sess.run(y))
    return out


@case
def jpeg_shape_and_is_jpeg(tf, sess):
    return [
        [sess.run(tf.image.extract_jpeg_shape(JPEGS[n])) for n in sorted(JPEGS)],
        sess.run(tf.image.extract_jpeg_shape(JPEGS["gray"], output_type=tf.int64)),
        [sess.run(tf.image.is_jpeg(x)) for x in (JPEGS["gray"], PNGS["rgb"], b"", b"\xff\xd8")],
    ]


@case
def jpeg_encode_bytes_and_pixels(tf, sess):
    out = []
    img = SMOOTH
    for kw in (
        {},
        {"quality": 50},
        {"quality": 100, "chroma_downsampling": False},
        {"progressive": True},
        {"optimize_size": True},
        {"density_unit": "cm", "x_density": 72, "y_density": 96},
        {"xmp_metadata": "<x>meta</x>"},
        {"format": "rgb", "quality": 10},
    ):
        enc = sess.run(tf.image.encode_jpeg(img, **kw))
        out.append([np.frombuffer(enc, np.uint8), sess.run(tf.image.decode_jpeg(enc))])
    gray = sess.run(tf.image.encode_jpeg(img[..., :1], format="grayscale"))
    out.append([np.frombuffer(gray, np.uint8), sess.run(tf.image.decode_jpeg(gray))])
    return out


@case
def gif_frames_and_decode_image(tf, sess):
    g = tf.io.decode_gif(GIF)
    first = tf.image.decode_image(GIF, expand_animations=False)
    return [
        sess.run(g),
        g.shape,
        sess.run(first),
        first.shape,
        sess.run(tf.image.decode_image(GIF)).shape,
        sess.run(tf.io.decode_gif(PNGS["rgba"])).shape,
        sess.run(tf.image.decode_image(GIF, dtype=tf.float32))[1, 2],
    ]


@case
def bmp_decode(tf, sess):
    out = []
    for data in (BMP24, BMP_GRAY):
        for channels in (0, 3, 4):
            try:
                out.append(sess.run(tf.io.decode_bmp(data, channels=channels)))
            except Exception as e:  # noqa: BLE001
                out.append(type(e).__name__)
    out.append(sess.run(tf.image.decode_image(BMP24)))
    return out


@case
def decode_image_sniffs_and_converts(tf, sess):
    out = []
    for data in (PNGS["rgb"], PNGS["gray16"], JPEGS["q75_444"], BMP24):
        for dtype in (tf.uint8, tf.uint16, tf.float32):
            y = tf.image.decode_image(data, dtype=dtype)
            out.append([sess.run(y), y.dtype])
    y = tf.image.decode_image(PNGS["rgb"], channels=3, expand_animations=False)
    out.append(y.shape)
    # decode_png reads a JPEG and decode_jpeg a PNG (one kernel sniffs the format, as TF's).
    out.append(sess.run(tf.image.decode_png(JPEGS["gray"])))
    out.append(sess.run(tf.image.decode_jpeg(PNGS["rgba"])).shape)
    return out


@case
def codec_errors(tf, sess):
    png, jpg = PNGS["rgb"], JPEGS["q90_420"]
    return _errors(
        tf,
        sess,
        [
            lambda: tf.image.decode_png(b""),
            lambda: tf.image.decode_png(b"not an image at all"),
            lambda: tf.image.decode_png(png[:40]),
            lambda: tf.image.decode_png(png[:-20]),
            lambda: tf.image.decode_jpeg(jpg[: len(jpg) // 2]),
            lambda: tf.image.decode_jpeg(jpg, channels=4),
            lambda: tf.image.decode_jpeg(jpg, ratio=3),
            lambda: tf.image.decode_jpeg(jpg, dct_method="SLOW"),
            lambda: tf.image.decode_png(png, channels=2),
            lambda: tf.image.decode_and_crop_jpeg(jpg, [0, 0, 100, 100]),
            lambda: tf.image.decode_and_crop_jpeg(png, [0, 0, 1, 1]),
            lambda: tf.image.extract_jpeg_shape(b"xx"),
            lambda: tf.io.decode_bmp(png),
            lambda: tf.io.decode_bmp(b"BM" + b"\0" * 10),
            lambda: tf.io.decode_gif(b"GIF89a" + b"\0" * 7),
            lambda: tf.image.decode_image(GIF, channels=1),
            lambda: tf.image.encode_png(np.zeros([2, 2, 5], np.uint8)),
            lambda: tf.image.encode_png(np.zeros([2, 2, 3], np.uint8), compression=10),
            lambda: tf.image.encode_jpeg(np.zeros([2, 2, 2], np.uint8)),
            lambda: tf.image.encode_jpeg(np.zeros([2, 2, 3], np.uint8), quality=101),
            lambda: tf.image.encode_jpeg(np.zeros([2, 2, 3], np.uint8), format="grayscale"),
            lambda: tf.image.encode_jpeg(np.zeros([0, 2, 3], np.uint8)),
            lambda: tf.image.adjust_jpeg_quality(RGB, 150),
        ],
    )


@case
def jpeg_truncated_recovery(tf, sess):
    jpg = JPEGS["q90_420"]
    cut = jpg[: len(jpg) - 200]
    return _errors(
        tf,
        sess,
        [
            lambda: tf.image.decode_jpeg(cut),
            lambda: tf.image.decode_jpeg(cut, try_recover_truncated=True),
            lambda: tf.image.decode_jpeg(cut, try_recover_truncated=True, acceptable_fraction=0.5),
            lambda: tf.image.decode_jpeg(cut, acceptable_fraction=0.1),
        ],
    )


@case
def adjust_jpeg_quality_values(tf, sess):
    f = SMOOTH.astype(np.float32) / 255.0
    return [
        sess.run(tf.image.adjust_jpeg_quality(SMOOTH, 30)),
        sess.run(tf.image.adjust_jpeg_quality(f, 60)),
        sess.run(tf.image.adjust_jpeg_quality(SMOOTH[..., :1], tf.constant(90))),
        tf.image.adjust_jpeg_quality(f, 60).dtype,
    ]


@case(tol=1e-5)
def yiq_yuv_round_trips(tf, sess):
    x = RNG.uniform(0, 1, [2, 3, 4, 3]).astype(np.float32)
    return [
        sess.run(tf.image.rgb_to_yiq(x)),
        sess.run(tf.image.yiq_to_rgb(tf.image.rgb_to_yiq(x))),
        sess.run(tf.image.rgb_to_yuv(x)),
        sess.run(tf.image.yuv_to_rgb(x)),
        sess.run(tf.image.rgb_to_yuv(x.astype(np.float64))),
    ]


@case(tol=1e-5)
def sobel_edges_values_and_grad(tf, sess):
    x = tf.constant(RNG.uniform(0, 1, [2, 5, 6, 3]).astype(np.float32))
    e = tf.image.sobel_edges(x)
    g = tf.gradients(tf.reduce_sum(e * e), x)[0]
    return [sess.run(e), e.shape, sess.run(g)]


@case(tol=1e-4)
def ssim_values_and_gradient(tf, sess):
    a = RNG.uniform(0, 1, [2, 16, 20, 3]).astype(np.float32)
    b = np.clip(a + RNG.normal(0, 0.1, a.shape), 0, 1).astype(np.float32)
    x = tf.constant(a)
    v = tf.image.ssim(x, b, 1.0)
    u8 = tf.image.ssim((a * 255).astype(np.uint8), (b * 255).astype(np.uint8), 255, filter_size=7, k2=0.05)
    index_map = tf.image.ssim(a[0], b[0], 1.0, filter_size=5, return_index_map=True)
    g = tf.gradients(tf.reduce_sum(v), x)[0]
    return [sess.run(v), v.shape, sess.run(u8), sess.run(index_map), sess.run(g)]


@case(tol=1e-4)
def ssim_multiscale_values(tf, sess):
    a = RNG.uniform(0, 1, [1, 181, 171, 3]).astype(np.float32)
    b = np.clip(a + RNG.normal(0, 0.05, a.shape), 0, 1).astype(np.float32)
    v = tf.image.ssim_multiscale(a, b, 1.0)
    w = tf.image.ssim_multiscale(a, b, 1.0, power_factors=(0.5, 0.5), filter_size=5)
    return [sess.run(v), v.shape, sess.run(w)]


@case
def random_crop_under_image(tf, sess):
    y = tf.image.random_crop(RGB, [4, 5, 3], seed=3)
    return [sess.run(y).shape, y.shape, y.dtype]


@case
def draw_bounding_boxes_default_and_given_colors(tf, sess):
    boxes = np.array(
        [
            [[0.1, 0.2, 0.6, 0.7], [-0.3, -0.2, 0.5, 1.4], [0.7, 0.7, 0.2, 0.9], [1.5, 1.5, 2.0, 2.0]],
            [[0.0, 0.0, 1.0, 1.0], [0.33, 0.41, 0.34, 0.42], [0.5, -1.0, 0.6, -0.5], [0.2, 0.2, 0.9, 0.3]],
        ],
        np.float32,
    )
    out = []
    for depth in (1, 3, 4):
        img = RNG.uniform(0, 1, [2, 9, 11, depth]).astype(np.float32)
        y = tf.image.draw_bounding_boxes(img, boxes)
        out.append([sess.run(y), y.shape])
        colors = np.array([[0.2, 0.4, 0.6, 0.8], [0.9, 0.1, 0.3, 0.5]], np.float32)
        out.append(sess.run(tf.image.draw_bounding_boxes(img, boxes, colors=colors)))
    half = tf.image.draw_bounding_boxes(np.zeros([2, 5, 5, 3], np.float16), boxes)
    out.append([sess.run(half), half.dtype])
    return out


_NMS_BOXES = np.concatenate([RNG.uniform(0, 0.6, [40, 2]), RNG.uniform(0.05, 0.4, [40, 2])], 1).astype(np.float32)
_NMS_BOXES[:, 2:] += _NMS_BOXES[:, :2]
_NMS_BOXES[::7] = _NMS_BOXES[::7][:, [2, 3, 0, 1]]  # some corners given max first
_NMS_SCORES = RNG.uniform(0, 1, [40]).astype(np.float32)
_NMS_SCORES[5] = _NMS_SCORES[9]  # a tie


@case
def non_max_suppression_with_scores_hard_and_soft(tf, sess):
    out = []
    for sigma in (0.0, 0.5, 0.1):
        for iou, score_t, k in ((0.5, float("-inf"), 40), (0.3, 0.2, 10), (0.7, 0.5, 3), (1.0, 0.0, 0)):
            idx, sc = tf.image.non_max_suppression_with_scores(
                _NMS_BOXES, _NMS_SCORES, k, iou_threshold=iou, score_threshold=score_t, soft_nms_sigma=sigma
            )
            out.append([sess.run(idx), sess.run(sc), idx.shape, sc.dtype])
    return out


@case
def non_max_suppression_overlaps_matrix(tf, sess):
    ov = RNG.uniform(0, 1, [12, 12]).astype(np.float32)
    sc = RNG.uniform(0, 1, [12]).astype(np.float32)
    return [
        sess.run(tf.image.non_max_suppression_overlaps(ov, sc, 12)),
        sess.run(tf.image.non_max_suppression_overlaps(ov, sc, 5, overlap_threshold=0.8, score_threshold=0.3)),
    ]


@case
def non_max_suppression_v4_v5_padded_raw(tf, sess):
    v4 = tf.raw_ops.NonMaxSuppressionV4(
        boxes=_NMS_BOXES,
        scores=_NMS_SCORES,
        max_output_size=30,
        iou_threshold=0.4,
        score_threshold=0.3,
        pad_to_max_output_size=True,
    )
    v5 = tf.raw_ops.NonMaxSuppressionV5(
        boxes=_NMS_BOXES,
        scores=_NMS_SCORES,
        max_output_size=30,
        iou_threshold=0.4,
        score_threshold=0.3,
        soft_nms_sigma=0.3,
        pad_to_max_output_size=True,
    )
    return [sess.run(list(v4)), sess.run(list(v5)), v4[0].shape, v5[1].shape]

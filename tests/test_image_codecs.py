"""The image codecs (core/kernels/image_codec_ops.cc) against independent oracles: Pillow's decoders and
encoders and numpy; TensorFlow's own values are compared in tests/fidelity/cases_image_codecs.py. Also what
no oracle gives: bad data of every kind (each truncation, random corruption, absurd header dimensions) is an
InvalidArgumentError or ResourceExhaustedError with TF's message, never a crash."""

import io
import struct
import zlib

import numpy as np
import pytest

import tensorweave as tw

Image = pytest.importorskip("PIL.Image")

RNG = np.random.RandomState(3)
RGB = RNG.randint(0, 256, [11, 14, 3]).astype(np.uint8)


def _save(img, fmt, **kw):
    buf = io.BytesIO()
    img.save(buf, format=fmt, **kw)
    return buf.getvalue()


def _pil(data):
    return np.asarray(Image.open(io.BytesIO(data)))


@pytest.fixture
def sess():
    with tw.Graph().as_default(), tw.Session() as s:
        yield s


def _png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def _png_with_size(width, height):
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\0" * 16)
    return b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", ihdr) + _png_chunk(b"IDAT", idat) + _png_chunk(b"IEND", b"")


def _jpeg_with_size(width, height):
    # A real JPEG whose SOF0 frame header claims another size.
    data = bytearray(_save(Image.fromarray(RGB), "JPEG"))
    sof = data.index(b"\xff\xc0")
    data[sof + 5 : sof + 9] = struct.pack(">HH", height, width)
    return bytes(data)


# --- values against Pillow -------------------------------------------------------------------------------------


def test_png_decode_matches_pillow_for_every_mode(sess):
    rgba = np.concatenate([RGB, RNG.randint(0, 256, [11, 14, 1]).astype(np.uint8)], -1)
    cases = {
        "L": RGB[..., 0].copy(),
        "LA": RGB[..., :2].copy(),
        "RGB": RGB,
        "RGBA": rgba,
    }
    for mode, arr in cases.items():
        data = _save(Image.fromarray(arr, mode), "PNG")
        got = sess.run(tw.image.decode_png(data))
        np.testing.assert_array_equal(got.reshape(_pil(data).shape), _pil(data))
        assert got.shape[-1] == len(mode)


def test_png_16_bit_is_lossless(sess):
    gray16 = RNG.randint(0, 65536, [6, 9]).astype(np.uint16)
    data = _save(Image.fromarray(gray16), "PNG")
    got = sess.run(tw.image.decode_png(data, dtype=tw.uint16))
    np.testing.assert_array_equal(got[..., 0], gray16)
    # 8-bit reads of 16-bit data keep the high byte; 16-bit reads of 8-bit data scale by 257.
    np.testing.assert_array_equal(sess.run(tw.image.decode_png(data))[..., 0], (gray16 >> 8).astype(np.uint8))
    data8 = _save(Image.fromarray(RGB), "PNG")
    got16 = sess.run(tw.image.decode_png(data8, dtype=tw.uint16))
    np.testing.assert_array_equal(got16, RGB.astype(np.uint16) * 257)
    as_float = sess.run(tw.image.decode_image(data, dtype=tw.float32))
    np.testing.assert_allclose(as_float[..., 0], gray16 / 65535.0, rtol=1e-6)


@pytest.mark.parametrize("channels", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_encode_png_decodes_in_pillow(sess, channels, dtype):
    top = 256 if dtype == np.uint8 else 65536
    img = RNG.randint(0, top, [5, 7, channels]).astype(dtype)
    data = sess.run(tw.image.encode_png(img, compression=9))
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    im = Image.open(io.BytesIO(data))
    assert im.size == (7, 5)
    if dtype == np.uint8:
        np.testing.assert_array_equal(np.asarray(im).reshape(5, 7, channels), img)
    np.testing.assert_array_equal(sess.run(tw.image.decode_png(data, dtype=tw.as_dtype(dtype))), img)


def test_encode_jpeg_header_fields_in_pillow(sess):
    data = sess.run(
        tw.image.encode_jpeg(RGB, quality=90, density_unit="cm", x_density=40, y_density=50, xmp_metadata="<m/>")
    )
    im = Image.open(io.BytesIO(data))
    assert im.size == (14, 11) and im.mode == "RGB"
    assert im.info["jfif_unit"] == 2 and im.info["jfif_density"] == (40, 50)
    assert b"http://ns.adobe.com/xap/1.0/\x00<m/>" in data
    # A lossy copy: close to the image, not equal.
    diff = np.abs(_pil(data).astype(int) - RGB.astype(int))
    assert diff.max() > 0
    progressive = sess.run(tw.image.encode_jpeg(RGB, progressive=True))
    assert Image.open(io.BytesIO(progressive)).info.get("progressive") == 1


def test_jpeg_decode_close_to_pillow_and_shape(sess):
    smooth = np.stack(np.mgrid[0:16, 0:24], -1).sum(-1, keepdims=True).repeat(3, -1).astype(np.uint8) * 5
    data = _save(Image.fromarray(smooth), "JPEG", quality=95)
    got = sess.run(tw.image.decode_jpeg(data, dct_method="INTEGER_ACCURATE"))
    # Pillow's libjpeg uses the accurate integer DCT with fancy upsampling too: at most off by one.
    assert np.abs(got.astype(int) - _pil(data).astype(int)).max() <= 1
    np.testing.assert_array_equal(sess.run(tw.image.extract_jpeg_shape(data)), [16, 24, 3])
    assert sess.run(tw.image.decode_jpeg(data, ratio=4)).shape == (4, 6, 3)
    crop = sess.run(tw.image.decode_and_crop_jpeg(data, [2, 3, 5, 7]))
    np.testing.assert_array_equal(crop, sess.run(tw.image.decode_jpeg(data))[2:7, 3:10])


def test_gif_frames_match_pillow(sess):
    frames = []
    for k in range(3):
        a = np.full([5, 6], 1, np.uint8)
        a[k : k + 2, k : k + 3] = k + 2
        im = Image.fromarray(a).convert("P")
        im.putpalette([0, 0, 0, 200, 10, 10, 10, 200, 10, 10, 10, 200, 99, 99, 99] + [0, 0, 0] * 251)
        frames.append(im)
    data = _save(frames[0], "GIF", save_all=True, append_images=frames[1:])
    got = sess.run(tw.io.decode_gif(data))
    assert got.shape == (3, 5, 6, 3)
    pil = Image.open(io.BytesIO(data))
    for k in range(3):
        pil.seek(k)
        np.testing.assert_array_equal(got[k], np.asarray(pil.convert("RGB")))
    np.testing.assert_array_equal(sess.run(tw.image.decode_image(data, expand_animations=False)), got[0])


def test_bmp_matches_pillow(sess):
    data = _save(Image.fromarray(RGB), "BMP")
    np.testing.assert_array_equal(sess.run(tw.io.decode_bmp(data)), RGB)
    rgba = sess.run(tw.io.decode_bmp(data, channels=4))
    np.testing.assert_array_equal(rgba[..., :3], RGB)
    assert (rgba[..., 3] == 255).all()


def test_is_jpeg_and_adjust_quality(sess):
    jpg = _save(Image.fromarray(RGB), "JPEG")
    png = _save(Image.fromarray(RGB), "PNG")
    assert sess.run(tw.image.is_jpeg(jpg)) and not sess.run(tw.image.is_jpeg(png))
    assert not sess.run(tw.image.is_jpeg(b"\xff"))
    low = sess.run(tw.image.adjust_jpeg_quality(RGB, 5))
    high = sess.run(tw.image.adjust_jpeg_quality(RGB, 100))
    err = lambda x: np.abs(x.astype(int) - RGB.astype(int)).mean()  # noqa: E731
    assert err(high) < err(low)
    with pytest.raises(ValueError, match="between 0 and 100"):
        tw.image.random_jpeg_quality(RGB, 10, 101)
    out = sess.run(tw.image.random_jpeg_quality(RGB, 20, 30, seed=1))
    assert out.shape == RGB.shape and out.dtype == np.uint8


# --- bad input: TF's errors, never a crash ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "build, cls, message",
    [
        (lambda: tw.image.decode_png(b""), tw.errors.InvalidArgumentError, "Input is empty."),
        (lambda: tw.image.decode_png(b"garbage!"), tw.errors.InvalidArgumentError, "Unknown image file format"),
        (lambda: tw.image.decode_png(b"\x89PNG\r\n\x1a\n\0\0"), tw.errors.InvalidArgumentError, "Invalid PNG."),
        (
            lambda: tw.image.decode_jpeg(b"\xff\xd8\xff\xe0\0\0"),
            tw.errors.InvalidArgumentError,
            "jpeg::Uncompress failed. Invalid JPEG data or crop window.",
        ),
        (lambda: tw.image.extract_jpeg_shape(b"xx"), tw.errors.InvalidArgumentError, "Invalid JPEG data, size 2"),
        (
            lambda: tw.io.decode_bmp(b"BMgarbage"),
            tw.errors.InvalidArgumentError,
            "Incomplete bmp content, requires at least 32 bytes",
        ),
        (
            lambda: tw.io.decode_gif(b"GIF89agarbage"),
            tw.errors.InvalidArgumentError,
            r"Invalid GIF data \(size 13\), failed to slurp gif file",
        ),
        (
            lambda: tw.io.decode_bmp(_save(Image.fromarray(RGB), "PNG")),
            tw.errors.InvalidArgumentError,
            "Trying to decode PNG format using DecodeBmp op. Use `decode_png` or `decode_image` instead.",
        ),
        (
            lambda: tw.image.decode_png(_png_with_size(100000, 100000)),
            tw.errors.InvalidArgumentError,
            "PNG size too large for int: 100000 by 100000",
        ),
        (
            lambda: tw.image.decode_jpeg(_jpeg_with_size(65000, 65000)),
            tw.errors.InvalidArgumentError,
            "Invalid JPEG data",
        ),
        (
            lambda: tw.image.encode_png(np.zeros([0, 3, 3], np.uint8)),
            tw.errors.InvalidArgumentError,
            "positive height and width",
        ),
        (lambda: tw.image.encode_jpeg(np.zeros([3, 0, 3], np.uint8)), tw.errors.InternalError, "JPEG encoding"),
        (
            lambda: tw.image.encode_jpeg(np.zeros([2, 2, 2], np.uint8)),
            tw.errors.InvalidArgumentError,
            r"image must have 1 or 3 channels, got \[2,2,2\]",
        ),
        (
            lambda: tw.image.decode_png(_save(Image.fromarray(RGB), "PNG"), channels=2),
            tw.errors.InvalidArgumentError,
            "`channels` must be 0, 1, 3 or 4 but got 2",
        ),
    ],
)
def test_bad_input_is_tf_error(sess, build, cls, message):
    with pytest.raises(cls, match=message):
        sess.run(build())


def test_gif_with_huge_frame_is_an_error_not_a_crash(sess):
    # A 65535 x 65535 frame header with no pixel data.
    data = (
        b"GIF89a"
        + struct.pack("<HHBBB", 65535, 65535, 0x80, 0, 0)
        + b"\0\0\0\xff\xff\xff"
        + b","
        + struct.pack("<HHHHB", 0, 0, 65535, 65535, 0)
        + b"\x02\x02\x44\x01\x00;"
    )
    with pytest.raises((tw.errors.InvalidArgumentError, tw.errors.ResourceExhaustedError)):
        sess.run(tw.io.decode_gif(data))


def _corpus():
    smooth = np.stack(np.mgrid[0:12, 0:20], -1).sum(-1, keepdims=True).repeat(3, -1).astype(np.uint8) * 7
    gif_frames = [Image.fromarray(smooth[..., 0] // 64).convert("P") for _ in range(2)]
    return {
        "png": _save(Image.fromarray(smooth), "PNG"),
        "png16": _save(Image.fromarray(smooth[..., 0].astype(np.uint16) * 300), "PNG"),
        "jpeg": _save(Image.fromarray(smooth), "JPEG"),
        "progressive": _save(Image.fromarray(smooth), "JPEG", progressive=True),
        "gif": _save(gif_frames[0], "GIF", save_all=True, append_images=gif_frames[1:]),
        "bmp": _save(Image.fromarray(smooth), "BMP"),
    }


# Truncated progressive JPEGs once made the decoder ask for input without end (try_recover_truncated=True).
@pytest.mark.parametrize("kind", ["png", "png16", "jpeg", "progressive", "gif", "bmp"])
def test_truncations_and_corruptions_never_crash(kind):
    data = _corpus()[kind]
    with tw.Graph().as_default(), tw.Session() as s:
        contents = tw.placeholder(tw.string, [])
        outs = [
            tw.image.decode_image(contents),
            tw.image.decode_jpeg(contents, try_recover_truncated=True, acceptable_fraction=0.3),
            tw.image.decode_png(contents, channels=1, dtype=tw.uint16),
        ]
        rng = np.random.RandomState(len(data))
        inputs = [data] + [data[:n] for n in range(0, len(data), max(1, len(data) // 60))]
        for _ in range(60):
            b = bytearray(data)
            for _ in range(rng.randint(1, 4)):
                b[rng.randint(len(b))] = rng.randint(256)
            inputs.append(bytes(b))
        ok = 0
        for x in inputs:
            for out in outs:
                try:
                    s.run(out, {contents: x})
                    ok += 1
                except tw.errors.InvalidArgumentError:
                    pass
        assert ok >= 1
        assert s.run(outs[0], {contents: data}).size > 0  # the intact file decodes


def test_static_shapes_and_no_gradient():
    with tw.Graph().as_default():
        assert tw.image.decode_png(b"x", channels=3).shape.as_list() == [None, None, 3]
        assert tw.image.decode_image(b"x").shape.ndims is None
        assert tw.image.decode_image(b"x", channels=1, expand_animations=False).shape.as_list() == [None, None, 1]
        assert tw.io.decode_gif(b"x").shape.as_list() == [None, None, None, 3]
        assert tw.image.extract_jpeg_shape(b"x").shape.as_list() == [3]
        with pytest.raises(ValueError):
            tw.image.decode_png([b"a", b"b"])
        with pytest.raises(ValueError):
            tw.image.encode_png(np.zeros([2, 2], np.uint8))
        x = tw.constant(RGB)
        assert tw.gradients(tw.cast(tw.image.decode_png(tw.image.encode_png(x)), tw.float32), x) == [None]


def test_wrappers_build_tf_op_types():
    u8 = np.zeros([2, 2, 3], np.uint8)
    boxes = np.zeros([3, 4], np.float32)
    scores = np.zeros([3], np.float32)
    with tw.Graph().as_default():
        built = {
            "DecodePng": tw.image.decode_png(b"x"),
            "DecodeJpeg": tw.image.decode_jpeg(b"x"),
            "DecodeAndCropJpeg": tw.image.decode_and_crop_jpeg(b"x", [0, 0, 1, 1]),
            "DecodeGif": tw.io.decode_gif(b"x"),
            "DecodeBmp": tw.io.decode_bmp(b"x"),
            "DecodeImage": tw.image.decode_image(b"x"),
            "EncodePng": tw.image.encode_png(u8),
            "EncodeJpeg": tw.image.encode_jpeg(u8),
            "ExtractJpegShape": tw.image.extract_jpeg_shape(b"x"),
            "DrawBoundingBoxes": tw.image.draw_bounding_boxes(np.zeros([1, 2, 2, 3], np.float32), [[boxes[0]]]),
            "DrawBoundingBoxesV2": tw.image.draw_bounding_boxes(
                np.zeros([1, 2, 2, 3], np.float32), [[boxes[0]]], colors=[[1.0, 0, 0, 1]]
            ),
            "NonMaxSuppressionV5": tw.image.non_max_suppression_with_scores(boxes, scores, 2)[0],
            "NonMaxSuppressionWithOverlaps": tw.image.non_max_suppression_overlaps(
                np.zeros([3, 3], np.float32), scores, 2
            ),
            "NonMaxSuppressionV4": tw.raw_ops.NonMaxSuppressionV4(
                boxes=boxes, scores=scores, max_output_size=2, iou_threshold=0.5, score_threshold=0.0
            )[0],
        }
        jpeg_quality = tw.image.adjust_jpeg_quality(u8, 50)
        for op_type, t in built.items():
            assert t.op.type == op_type
        types = {op.type for op in tw.get_default_graph().get_operations()}
        assert "EncodeJpegVariableQuality" in types and jpeg_quality.dtype == tw.uint8

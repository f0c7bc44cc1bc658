"""Image codecs (`tw.image.decode_png`, `tw.io.encode_jpeg`, ...) and the tf.image names built on them or on
plain array and math ops: JPEG-quality noise, YIQ/YUV conversions, Sobel edges, SSIM.

The codecs are kernels (core/kernels/image_codec_ops.cc) over the system libpng, libjpeg-turbo and giflib,
as TensorFlow's. Every decoder sniffs the format as TF's does (decode_png decodes a JPEG, decode_gif a PNG as
one frame); decode_bmp reads only BMP. The rest are TF's own Python composites, so gradients come from theirs.

Example:
  >>> import numpy as np, tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     img = np.arange(12, dtype=np.uint8).reshape(2, 2, 3)
  ...     print((sess.run(tw.image.decode_png(tw.image.encode_png(img))) == img).all())
  True
"""

import numpy as np

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.framework import tensor_shape
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import gen_ops
from tensorweave._src.ops import gradients_impl
from tensorweave._src.ops import image_ops
from tensorweave._src.ops import math_ops
from tensorweave._src.ops import random_ops

for _op in (
    "DecodePng",
    "DecodeJpeg",
    "DecodeAndCropJpeg",
    "DecodeGif",
    "DecodeBmp",
    "DecodeImage",
    "EncodePng",
    "EncodeJpeg",
    "EncodeJpegVariableQuality",
    "ExtractJpegShape",
):
    gradients_impl.NotDifferentiable(_op)


# --- codecs ----------------------------------------------------------------------------------------------------


@gen_ops.doc_from("DecodePng")
def decode_png(contents, channels=0, dtype=dtypes.uint8, name=None):
    return gen_ops.decode_png(contents, channels=channels, dtype=dtype, name=name)


@gen_ops.doc_from("EncodePng")
def encode_png(image, compression=-1, name=None):
    image = ops.convert_to_tensor(image, name="image")
    return gen_ops.encode_png(image, compression=compression, name=name)


@gen_ops.doc_from("DecodeJpeg")
def decode_jpeg(
    contents,
    channels=0,
    ratio=1,
    fancy_upscaling=True,
    try_recover_truncated=False,
    acceptable_fraction=1,
    dct_method="",
    name=None,
):
    return gen_ops.decode_jpeg(
        contents,
        channels=channels,
        ratio=ratio,
        fancy_upscaling=fancy_upscaling,
        try_recover_truncated=try_recover_truncated,
        acceptable_fraction=float(acceptable_fraction),
        dct_method=dct_method,
        name=name,
    )


@gen_ops.doc_from("DecodeAndCropJpeg")
def decode_and_crop_jpeg(
    contents,
    crop_window,
    channels=0,
    ratio=1,
    fancy_upscaling=True,
    try_recover_truncated=False,
    acceptable_fraction=1,
    dct_method="",
    name=None,
):
    from tensorweave._src.ops import array_ops

    image = gen_ops.decode_and_crop_jpeg(
        contents,
        crop_window,
        channels=channels,
        ratio=ratio,
        fancy_upscaling=fancy_upscaling,
        try_recover_truncated=try_recover_truncated,
        acceptable_fraction=float(acceptable_fraction),
        dct_method=dct_method,
        name=name,
    )
    # As TF's shape function: a constant crop window [y, x, height, width] gives the height and width.
    window = image.op.inputs[1]
    window = array_ops.constant_value(window)
    if window is not None and np.size(window) == 4:
        image.set_shape([int(window[2]), int(window[3]), channels or None])
    return image


@gen_ops.doc_from("EncodeJpeg")
def encode_jpeg(
    image,
    format="",  # noqa: A002
    quality=95,
    progressive=False,
    optimize_size=False,
    chroma_downsampling=True,
    density_unit="in",
    x_density=300,
    y_density=300,
    xmp_metadata="",
    name=None,
):
    return gen_ops.encode_jpeg(
        image,
        format=format,
        quality=quality,
        progressive=progressive,
        optimize_size=optimize_size,
        chroma_downsampling=chroma_downsampling,
        density_unit=density_unit,
        x_density=x_density,
        y_density=y_density,
        xmp_metadata=xmp_metadata,
        name=name,
    )


@gen_ops.doc_from("ExtractJpegShape")
def extract_jpeg_shape(contents, output_type=dtypes.int32, name=None):
    return gen_ops.extract_jpeg_shape(contents, output_type=output_type, name=name)


@gen_ops.doc_from("DecodeBmp")
def decode_bmp(contents, channels=0, name=None):
    return gen_ops.decode_bmp(contents, channels=channels, name=name)


@gen_ops.doc_from("DecodeGif")
def decode_gif(contents, name=None):
    return gen_ops.decode_gif(contents, name=name)


def decode_image(contents, channels=None, dtype=dtypes.uint8, name=None, expand_animations=True):
    """A BMP, GIF, JPEG or PNG image as a `dtype` tensor (found from the first bytes): [height, width,
    channels], or [frames, height, width, 3] for a GIF when `expand_animations` (TF1's shape is then
    unknown). Other dtypes than uint8, uint16 and float32 go through uint16 and convert_image_dtype.
    """
    with ops.name_scope(name, "decode_image"):
        channels = 0 if channels is None else channels
        dtype = dtypes.as_dtype(dtype)
        decode_dtype = dtype if dtype in (dtypes.float32, dtypes.uint8, dtypes.uint16) else dtypes.uint16
        image = gen_ops.decode_image(
            contents, channels=channels, dtype=decode_dtype, expand_animations=expand_animations
        )
        if decode_dtype != dtype:
            image = image_ops.convert_image_dtype(image, dtype)
        if not expand_animations:
            image.set_shape([None, None, channels if channels != 0 else None])
        return image


def is_jpeg(contents, name=None):
    """Whether `contents` starts with a JPEG's first three bytes (b'\\xff\\xd8\\xff'); false positives possible."""
    from tensorweave._src.ops import parsing_ops
    from tensorweave._src.ops import string_ops

    # TF compares substr(contents, 0, 3) with the magic; tw's Equal takes no strings, so the first three bytes
    # (NUL-padded) are compared as uint8.
    with ops.name_scope(name, "is_jpeg"):
        head = string_ops.substr(string_ops.string_join([contents, b"\x00\x00\x00"]), 0, 3)
        head = parsing_ops.decode_raw(head, dtypes.uint8)
        return math_ops.reduce_all(math_ops.equal(head, np.array([0xFF, 0xD8, 0xFF], np.uint8)), name=name)


def adjust_jpeg_quality(image, jpeg_quality, dct_method="", name=None):
    """`image` encoded as JPEG at `jpeg_quality` (0..100) and decoded again, in its own dtype (TF's composite:
    convert_image_dtype to uint8, EncodeJpegVariableQuality, DecodeJpeg, convert back)."""
    with ops.name_scope(name, "adjust_jpeg_quality", [image]):
        image = ops.convert_to_tensor(image, name="image")
        channels = image.shape.as_list()[-1]
        orig_dtype = image.dtype
        image = image_ops.convert_image_dtype(image, dtypes.uint8, saturate=True)
        if not isinstance(jpeg_quality, ops.Tensor):
            jpeg_quality = ops.convert_to_tensor(jpeg_quality, dtype=dtypes.int32)
        image = gen_ops.encode_jpeg_variable_quality(image, jpeg_quality)
        image = gen_ops.decode_jpeg(image, channels=channels or 0, dct_method=dct_method)
        return image_ops.convert_image_dtype(image, orig_dtype, saturate=True)


def random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed=None):
    """adjust_jpeg_quality at a quality drawn uniformly from [min_jpeg_quality, max_jpeg_quality)."""
    if min_jpeg_quality < 0 or max_jpeg_quality < 0 or min_jpeg_quality > 100 or max_jpeg_quality > 100:
        raise ValueError("jpeg encoding range must be between 0 and 100.")
    if min_jpeg_quality >= max_jpeg_quality:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")
    quality = random_ops.random_uniform([], min_jpeg_quality, max_jpeg_quality, seed=seed, dtype=dtypes.int32)
    return adjust_jpeg_quality(image, quality)


# --- color spaces ----------------------------------------------------------------------------------------------

_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617], [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021], [0.6208248, -0.64720424, 1.70423049]]
_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512], [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]


def _color_matrix(images, kernel):
    from tensorweave._src.ops import einsum_ops

    images = ops.convert_to_tensor(images, name="images")
    kernel = ops.convert_to_tensor(np.asarray(kernel, images.dtype.as_numpy_dtype), images.dtype, name="kernel")
    ndims = images.shape.ndims
    return einsum_ops.tensordot(images, kernel, axes=[[ndims - 1], [0]])


def rgb_to_yiq(images):
    """RGB images (last dim 3, floats) to YIQ: a product with TF's 3x3 matrix."""
    return _color_matrix(images, _RGB_TO_YIQ)


def yiq_to_rgb(images):
    """YIQ images to RGB (TF's matrix)."""
    return _color_matrix(images, _YIQ_TO_RGB)


def rgb_to_yuv(images):
    """RGB images (last dim 3, floats) to YUV: a product with TF's 3x3 matrix."""
    return _color_matrix(images, _RGB_TO_YUV)


def yuv_to_rgb(images):
    """YUV images to RGB (TF's matrix)."""
    return _color_matrix(images, _YUV_TO_RGB)


# --- edges and structural similarity ---------------------------------------------------------------------------


def sobel_edges(image):
    """The Sobel edge maps of a [batch, h, w, d] image: [batch, h, w, d, 2] (dy then dx), reflect-padded, by a
    depthwise convolution (TF's composite)."""
    from tensorweave._src.ops import nn_ops

    image = ops.convert_to_tensor(image, name="image")
    static_image_shape = image.shape
    image_shape = array_ops.shape(image)
    kernels = [[[-1, -2, -1], [0, 0, 0], [1, 2, 1]], [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]]
    num_kernels = len(kernels)
    kernels = np.expand_dims(np.transpose(np.asarray(kernels), (1, 2, 0)), -2)
    kernels_t = ops.convert_to_tensor(kernels.astype(image.dtype.as_numpy_dtype), image.dtype)
    kernels_t = array_ops.tile(kernels_t, array_ops.stack([1, 1, image_shape[-1], 1]), name="sobel_filters")
    padded = array_ops.pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    output = nn_ops.depthwise_conv2d(padded, kernels_t, [1, 1, 1, 1], "VALID")
    shape = array_ops.concat([image_shape, [num_kernels]], 0)
    output = array_ops.reshape(output, shape)
    output.set_shape(tensor_shape.TensorShape(static_image_shape).concatenate([num_kernels]))
    return output


def _tw():
    import tensorweave

    return tensorweave


def _verify_compatible_image_shapes(img1, img2):
    tw = _tw()
    shape1 = img1.shape.with_rank_at_least(3)
    shape2 = img2.shape.with_rank_at_least(3)
    shape1[-3:].assert_is_compatible_with(shape2[-3:])
    if shape1.ndims is not None and shape2.ndims is not None:
        for dim1, dim2 in zip(reversed(shape1.dims[:-3]), reversed(shape2.dims[:-3])):
            if not (dim1 == 1 or dim2 == 1 or tensor_shape.Dimension(dim1).is_compatible_with(dim2)):
                raise ValueError(f"Two images are not compatible: {shape1} and {shape2}")
    shape1, shape2 = tw.shape_n([img1, img2])
    checks = [
        tw.Assert(tw.greater_equal(tw.size(shape1), 3), [shape1, shape2], summarize=10),
        tw.Assert(tw.reduce_all(tw.equal(shape1[-3:], shape2[-3:])), [shape1, shape2], summarize=10),
    ]
    return shape1, shape2, checks


def _fspecial_gauss(size, sigma):
    tw = _tw()
    size = tw.convert_to_tensor(size, tw.int32)
    sigma = tw.convert_to_tensor(sigma)
    coords = tw.cast(tw.range(size), sigma.dtype)
    coords -= tw.cast(size - 1, sigma.dtype) / 2.0
    g = tw.square(coords)
    g *= -0.5 / tw.square(sigma)
    g = tw.reshape(g, shape=[1, -1]) + tw.reshape(g, shape=[-1, 1])
    g = tw.reshape(g, shape=[1, -1])
    g = tw.nn.softmax(g)
    return tw.reshape(g, shape=tw.stack([size, size, 1, 1]))


def _ssim_helper(x, y, reducer, max_val, compensation=1.0, k1=0.01, k2=0.03):
    tw = _tw()
    c1 = (k1 * max_val) ** 2
    c2 = (k2 * max_val) ** 2
    mean0 = reducer(x)
    mean1 = reducer(y)
    num0 = mean0 * mean1 * 2.0
    den0 = tw.square(mean0) + tw.square(mean1)
    luminance = (num0 + c1) / (den0 + c1)
    num1 = reducer(x * y) * 2.0
    den1 = reducer(tw.square(x) + tw.square(y))
    c2 *= compensation
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    return luminance, cs


def _ssim_per_channel(img1, img2, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03, index_map=False):
    tw = _tw()
    filter_size = tw.constant(filter_size, dtype=tw.int32)
    filter_sigma = tw.constant(filter_sigma, dtype=img1.dtype)
    shape1, shape2 = tw.shape_n([img1, img2])
    checks = [
        tw.Assert(tw.reduce_all(tw.greater_equal(shape1[-3:-1], filter_size)), [shape1, filter_size], summarize=8),
        tw.Assert(tw.reduce_all(tw.greater_equal(shape2[-3:-1], filter_size)), [shape2, filter_size], summarize=8),
    ]
    with tw.control_dependencies(checks):
        img1 = tw.identity(img1)
    kernel = _fspecial_gauss(filter_size, filter_sigma)
    kernel = tw.tile(kernel, multiples=tw.stack([1, 1, shape1[-1], 1]))

    def reducer(x):
        shape = tw.shape(x)
        x = tw.reshape(x, shape=tw.concat([[-1], shape[-3:]], 0))
        y = tw.nn.depthwise_conv2d(x, kernel, strides=[1, 1, 1, 1], padding="VALID")
        return tw.reshape(y, tw.concat([shape[:-3], tw.shape(y)[1:]], 0))

    luminance, cs = _ssim_helper(img1, img2, reducer, max_val, 1.0, k1, k2)
    if index_map:
        return luminance * cs, cs
    axes = tw.constant([-3, -2], dtype=tw.int32)
    return tw.reduce_mean(luminance * cs, axes), tw.reduce_mean(cs, axes)


def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03, return_index_map=False):
    """The structural similarity index of `img1` and `img2` ([..., h, w, c]; a Gaussian window), averaged over
    channels: TF's composite, differentiable."""
    tw = _tw()
    with ops.name_scope(None, "SSIM", [img1, img2]):
        img1 = tw.convert_to_tensor(img1, name="img1")
        img2 = tw.convert_to_tensor(img2, name="img2")
        _, _, checks = _verify_compatible_image_shapes(img1, img2)
        with tw.control_dependencies(checks):
            img1 = tw.identity(img1)
        max_val = tw.cast(max_val, img1.dtype)
        max_val = image_ops.convert_image_dtype(max_val, dtypes.float32)
        img1 = image_ops.convert_image_dtype(img1, dtypes.float32)
        img2 = image_ops.convert_image_dtype(img2, dtypes.float32)
        per_channel, _ = _ssim_per_channel(img1, img2, max_val, filter_size, filter_sigma, k1, k2, return_index_map)
        return tw.reduce_mean(per_channel, [-1])


_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def ssim_multiscale(
    img1, img2, max_val, power_factors=_MSSSIM_WEIGHTS, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03
):
    """Multi-scale SSIM (one scale per power factor, each half the last by 2x2 average pooling, symmetric
    padding of odd sizes): TF's composite."""
    tw = _tw()
    with ops.name_scope(None, "MS-SSIM", [img1, img2]):
        img1 = tw.convert_to_tensor(img1, name="img1")
        img2 = tw.convert_to_tensor(img2, name="img2")
        shape1, shape2, checks = _verify_compatible_image_shapes(img1, img2)
        with tw.control_dependencies(checks):
            img1 = tw.identity(img1)
        max_val = tw.cast(max_val, img1.dtype)
        max_val = image_ops.convert_image_dtype(max_val, dtypes.float32)
        img1 = image_ops.convert_image_dtype(img1, dtypes.float32)
        img2 = image_ops.convert_image_dtype(img2, dtypes.float32)
        imgs = [img1, img2]
        shapes = [shape1, shape2]
        heads = [s[:-3] for s in shapes]
        tails = [s[-3:] for s in shapes]
        divisor = [1, 2, 2, 1]
        divisor_tensor = tw.constant(divisor[1:], dtype=tw.int32)

        def do_pad(images, remainder):
            padding = tw.expand_dims(remainder, -1)
            padding = tw.pad(padding, [[1, 0], [1, 0]])
            return [tw.pad(x, padding, mode="SYMMETRIC") for x in images]

        mcs = []
        for k in range(len(power_factors)):
            with ops.name_scope(None, "Scale%d" % k, imgs):
                if k > 0:
                    flat = [tw.reshape(x, tw.concat([[-1], t], 0)) for x, t in zip(imgs, tails)]
                    remainder = tails[0] % divisor_tensor
                    need_padding = tw.reduce_any(tw.not_equal(remainder, 0))
                    padded = tw.cond(need_padding, lambda: do_pad(flat, remainder), lambda: flat)
                    downscaled = [tw.nn.avg_pool(x, ksize=divisor, strides=divisor, padding="VALID") for x in padded]
                    tails = [x[1:] for x in tw.shape_n(downscaled)]
                    imgs = [tw.reshape(x, tw.concat([h, t], 0)) for x, h, t in zip(downscaled, heads, tails)]
                per_channel, cs = _ssim_per_channel(
                    *imgs, max_val=max_val, filter_size=filter_size, filter_sigma=filter_sigma, k1=k1, k2=k2
                )
                mcs.append(tw.nn.relu(cs))
        mcs.pop()
        mcs_and_ssim = tw.stack(mcs + [tw.nn.relu(per_channel)], axis=-1)
        ms_ssim = tw.reduce_prod(tw.pow(mcs_and_ssim, power_factors), [-1])
        return tw.reduce_mean(ms_ssim, [-1])


def draw_bounding_boxes(images, boxes, name=None, colors=None):
    """`images` ([batch, h, w, 1/3/4], float) with the outline of each normalized [y_min, x_min, y_max, x_max]
    box of `boxes` ([batch, num_boxes, 4]) drawn: in TF's default colors (DrawBoundingBoxes), or cycling
    through the RGBA rows of `colors` (DrawBoundingBoxesV2)."""
    images = ops.convert_to_tensor(images, name="images")  # its own dtype, not the attr's default
    if colors is None:
        return gen_ops.draw_bounding_boxes(images, boxes, name=name)
    return gen_ops.draw_bounding_boxes_v2(images, boxes, colors, name=name)


# --- non-max suppression variants ------------------------------------------------------------------------------

for _op in (
    "NonMaxSuppressionV4",
    "NonMaxSuppressionV5",
    "NonMaxSuppressionWithOverlaps",
    "DrawBoundingBoxes",
    "DrawBoundingBoxesV2",
):
    gradients_impl.NotDifferentiable(_op)


def non_max_suppression_with_scores(
    boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"), soft_nms_sigma=0.0, name=None
):
    """(selected indices, their scores) of greedy non-max suppression (NonMaxSuppressionV5); with
    `soft_nms_sigma` > 0, Soft-NMS: overlapping boxes' scores decay by exp(-iou^2 / (2 sigma)) instead."""
    with ops.name_scope(name, "non_max_suppression_with_scores"):
        boxes = ops.convert_to_tensor(boxes, name="boxes")
        dtype = boxes.dtype
        iou_threshold = ops.convert_to_tensor(iou_threshold, dtype, name="iou_threshold")
        score_threshold = ops.convert_to_tensor(score_threshold, dtype, name="score_threshold")
        soft_nms_sigma = ops.convert_to_tensor(soft_nms_sigma, dtype, name="soft_nms_sigma")
        out = gen_ops.non_max_suppression_v5(
            boxes,
            scores,
            max_output_size,
            iou_threshold,
            score_threshold,
            soft_nms_sigma,
            pad_to_max_output_size=False,
        )
        return out[0], out[1]


def non_max_suppression_overlaps(
    overlaps, scores, max_output_size, overlap_threshold=0.5, score_threshold=float("-inf"), name=None
):
    """Greedy non-max suppression over a given [n, n] overlap matrix (NonMaxSuppressionWithOverlaps)."""
    with ops.name_scope(name, "non_max_suppression_overlaps"):
        overlap_threshold = ops.convert_to_tensor(overlap_threshold, dtypes.float32, name="overlap_threshold")
        score_threshold = ops.convert_to_tensor(score_threshold, dtypes.float32, name="score_threshold")
        return gen_ops.non_max_suppression_with_overlaps(
            overlaps, scores, max_output_size, overlap_threshold, score_threshold
        )

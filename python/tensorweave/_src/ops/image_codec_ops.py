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
    return gen_ops.decode_and_crop_jpeg(
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

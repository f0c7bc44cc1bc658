"""`tw.image`: TF1's image functions. Resizing, CropAndResize, NonMaxSuppressionV3 and the color conversions
are kernels (image_ops.cc); crops, pads, flips, rotations, standardization and dtype conversion are TF1's
Python composites of array and math ops.

Images are NHWC: a 3-D image is [height, width, channels], a 4-D batch [batch, height, width, channels].
"""

import numpy as np

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.framework import tensor_shape
from tensorweave._src.ops import array_nd_ops
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import gen_ops
from tensorweave._src.ops import math_ops
from tensorweave._src.ops import random_ops


class ResizeMethod:
    """The `method` values of resize_images (TF1's numbering)."""

    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


# --- resizing --------------------------------------------------------------------------------------------------


@gen_ops.doc_from("ResizeBilinear")
def resize_bilinear(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """
    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = np.array([0.0, 1.0], np.float32).reshape(1, 1, 2, 1)
      ...     print(sess.run(tw.image.resize_bilinear(x, [1, 4])).ravel())
      [0.  0.5 1.  1. ]
    """
    return gen_ops.resize_bilinear(
        images, size, align_corners=align_corners, half_pixel_centers=half_pixel_centers, name=name
    )


@gen_ops.doc_from("ResizeNearestNeighbor")
def resize_nearest_neighbor(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """
    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = np.array([1, 2], np.int32).reshape(1, 1, 2, 1)
      ...     print(sess.run(tw.image.resize_nearest_neighbor(x, [1, 4])).ravel())
      [1 1 2 2]
    """
    return gen_ops.resize_nearest_neighbor(
        images, size, align_corners=align_corners, half_pixel_centers=half_pixel_centers, name=name
    )


@gen_ops.doc_from("ResizeBicubic")
def resize_bicubic(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """
    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.image.resize_bicubic(np.ones([1, 2, 2, 1]), [3, 3])).shape)
      (1, 3, 3, 1)
    """
    return gen_ops.resize_bicubic(
        images, size, align_corners=align_corners, half_pixel_centers=half_pixel_centers, name=name
    )


@gen_ops.doc_from("ResizeArea")
def resize_area(images, size, align_corners=False, name=None):
    """
    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = np.arange(4.0).reshape(1, 1, 4, 1)
      ...     print(sess.run(tw.image.resize_area(x, [1, 2])).ravel())
      [0.5 2.5]
    """
    return gen_ops.resize_area(images, size, align_corners=align_corners, name=name)


def _image_rank(image, what="image"):
    rank = image.shape.ndims
    if rank is None:
        raise ValueError(f"'{what}' must have either 3 or 4 dimensions (its rank is unknown).")
    if rank not in (3, 4):
        raise ValueError(f"'{what}' must have either 3 or 4 dimensions.")
    return rank


def resize_images(
    images, size, method=ResizeMethod.BILINEAR, align_corners=False, preserve_aspect_ratio=False, name=None
):
    """TF1's resize_images: a 3-D image or 4-D batch resized to `size` ([new_height, new_width]) by `method`;
    an image already of that (static) size comes back unchanged.

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.image.resize_images(np.ones([2, 2, 1], np.float32), [4, 3])).shape)
      (4, 3, 1)
    """
    with ops.name_scope(name, "resize_images", [images, size]):
        images = ops.convert_to_tensor(images, name="images")
        rank = _image_rank(images, "images")
        is_batch = rank == 4
        if not is_batch:
            images = array_ops.expand_dims(images, 0)
        _, height, width, _ = images.shape.as_list()
        size = ops.convert_to_tensor(size, dtypes.int32, name="size")
        if size.shape.ndims not in (1, None) or (size.shape.ndims == 1 and size.shape.dims[0].value not in (2, None)):
            raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
        size_value = array_ops.constant_value(size)
        if preserve_aspect_ratio:
            if size_value is None or height is None or width is None:
                raise NotImplementedError("preserve_aspect_ratio needs static image and target sizes")
            scale = min(size_value[0] / height, size_value[1] / width)
            size_value = np.array([int(round(height * scale)), int(round(width * scale))], np.int32)
            size = ops.convert_to_tensor(size_value, dtypes.int32)
        if size_value is not None and height == size_value[0] and width == size_value[1]:
            return images if is_batch else array_ops.squeeze(images, axis=[0])
        method = {"bilinear": 0, "nearest": 1, "bicubic": 2, "area": 3}.get(method, method)
        if method == ResizeMethod.BILINEAR:
            out = resize_bilinear(images, size, align_corners=align_corners)
        elif method == ResizeMethod.NEAREST_NEIGHBOR:
            out = resize_nearest_neighbor(images, size, align_corners=align_corners)
        elif method == ResizeMethod.BICUBIC:
            out = resize_bicubic(images, size, align_corners=align_corners)
        elif method == ResizeMethod.AREA:
            out = resize_area(images, size, align_corners=align_corners)
        else:
            raise ValueError("Resize method is not implemented: {}".format(method))
        if size_value is not None:
            out.set_shape([None, int(size_value[0]), int(size_value[1]), None])
        return out if is_batch else array_ops.squeeze(out, axis=[0])


resize = resize_images


# --- crops and pads --------------------------------------------------------------------------------------------


def _static_or_tensor(value):
    if isinstance(value, ops.Tensor):
        v = array_ops.constant_value(value)
        return int(v) if v is not None else value
    return int(value)


def _hw(image):
    """(height, width): ints where static, else scalar tensors."""
    rank = _image_rank(image)
    dims = image.shape.as_list()
    dynamic = array_ops.shape(image)
    h_axis = rank - 3
    h = dims[h_axis] if dims[h_axis] is not None else dynamic[h_axis]
    w = dims[h_axis + 1] if dims[h_axis + 1] is not None else dynamic[h_axis + 1]
    return h, w


def _unknown_rank_as_3d(image):
    """As TF's crop/pad to a bounding box: an image of unknown rank is taken as one [height, width, channels]."""
    if image.shape.ndims is not None:
        return image
    image = array_ops.identity(image)
    image.set_shape([None, None, None])
    return image


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The [target_height, target_width] window of `image` whose top-left corner is (offset_height,
    offset_width).

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = np.arange(16).reshape(4, 4, 1)
      ...     print(sess.run(tw.image.crop_to_bounding_box(x, 1, 2, 2, 2))[..., 0])
      [[ 6  7]
       [10 11]]
    """
    with ops.name_scope(None, "crop_to_bounding_box", [image]):
        image = _unknown_rank_as_3d(ops.convert_to_tensor(image, name="image"))
        rank = _image_rank(image)
        height, width = _hw(image)
        oh, ow = _static_or_tensor(offset_height), _static_or_tensor(offset_width)
        th, tw_ = _static_or_tensor(target_height), _static_or_tensor(target_width)
        for value, message in (
            (ow, "offset_width must be >= 0."),
            (oh, "offset_height must be >= 0."),
            (tw_, "target_width must be > 0."),
            (th, "target_height must be > 0."),
        ):
            if isinstance(value, int) and (value < 0 if "offset" in message else value <= 0):
                raise ValueError(message)
        if isinstance(width, int) and isinstance(ow, int) and isinstance(tw_, int) and width < tw_ + ow:
            raise ValueError("width must be >= target + offset.")
        if isinstance(height, int) and isinstance(oh, int) and isinstance(th, int) and height < th + oh:
            raise ValueError("height must be >= target + offset.")
        begin = [oh, ow, 0] if rank == 3 else [0, oh, ow, 0]
        size = [th, tw_, -1] if rank == 3 else [-1, th, tw_, -1]
        if any(isinstance(v, ops.Tensor) for v in begin + size):
            begin = array_ops.stack([ops.convert_to_tensor(v, dtypes.int32) for v in begin])
            size = array_ops.stack([ops.convert_to_tensor(v, dtypes.int32) for v in size])
        return array_ops.slice(image, begin, size)


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """`image` zero-padded to [target_height, target_width], with `offset_height` rows above it and
    `offset_width` columns left of it.

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.image.pad_to_bounding_box(np.ones([1, 1, 1]), 1, 0, 2, 2))[..., 0])
      [[0. 0.]
       [1. 0.]]
    """
    with ops.name_scope(None, "pad_to_bounding_box", [image]):
        image = _unknown_rank_as_3d(ops.convert_to_tensor(image, name="image"))
        rank = _image_rank(image)
        height, width = _hw(image)
        oh, ow = _static_or_tensor(offset_height), _static_or_tensor(offset_width)
        th, tw_ = _static_or_tensor(target_height), _static_or_tensor(target_width)
        after_w = tw_ - ow - width
        after_h = th - oh - height
        for value, message in (
            (oh, "offset_height must be >= 0"),
            (ow, "offset_width must be >= 0"),
            (after_w, "width must be <= target - offset"),
            (after_h, "height must be <= target - offset"),
        ):
            if isinstance(value, int) and value < 0:
                raise ValueError(message)
        rows = [[oh, after_h], [ow, after_w], [0, 0]]
        if rank == 4:
            rows = [[0, 0]] + rows
        if any(isinstance(v, ops.Tensor) for row in rows for v in row):
            rows = array_ops.stack(
                [array_ops.stack([ops.convert_to_tensor(v, dtypes.int32) for v in row]) for row in rows]
            )
        return array_ops.pad(image, rows)


def central_crop(image, central_fraction):
    """The central `central_fraction` of `image` in height and width (TF1's rounding of the offsets).

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.image.central_crop(np.arange(16).reshape(4, 4, 1), 0.5))[..., 0])
      [[ 5  6]
       [ 9 10]]
    """
    with ops.name_scope(None, "central_crop", [image]):
        image = ops.convert_to_tensor(image, name="image")
        if central_fraction <= 0.0 or central_fraction > 1.0:
            raise ValueError("central_fraction must be within (0, 1]")
        if central_fraction == 1.0:
            return image
        rank = _image_rank(image)
        height, width = _hw(image)
        if not isinstance(height, int) or not isinstance(width, int):
            raise NotImplementedError("central_crop needs a static height and width")
        h_start = int((height - height * central_fraction) / 2)
        w_start = int((width - width * central_fraction) / 2)
        h_size = height - h_start * 2
        w_size = width - w_start * 2
        begin = [h_start, w_start, 0] if rank == 3 else [0, h_start, w_start, 0]
        size = [h_size, w_size, -1] if rank == 3 else [-1, h_size, w_size, -1]
        return array_ops.slice(image, begin, size)


def resize_image_with_crop_or_pad(image, target_height, target_width):
    """`image` centrally cropped and/or zero-padded to [target_height, target_width].

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.image.resize_image_with_crop_or_pad(np.ones([2, 4, 1]), 4, 2))[..., 0])
      [[0. 0.]
       [1. 1.]
       [1. 1.]
       [0. 0.]]
    """
    with ops.name_scope(None, "resize_image_with_crop_or_pad", [image]):
        image = ops.convert_to_tensor(image, name="image")
        height, width = _hw(image)
        if not isinstance(height, int) or not isinstance(width, int):
            raise NotImplementedError("resize_image_with_crop_or_pad needs a static height and width")
        th, tw_ = int(target_height), int(target_width)
        if th <= 0:
            raise ValueError("target_height must be > 0.")
        if tw_ <= 0:
            raise ValueError("target_width must be > 0.")
        width_diff = tw_ - width
        height_diff = th - height
        cropped = crop_to_bounding_box(
            image, max(-height_diff // 2, 0), max(-width_diff // 2, 0), min(th, height), min(tw_, width)
        )
        return pad_to_bounding_box(cropped, max(height_diff // 2, 0), max(width_diff // 2, 0), th, tw_)


resize_with_crop_or_pad = resize_image_with_crop_or_pad


# --- flips and rotations ---------------------------------------------------------------------------------------


def _flip(image, axis_3d, name):
    with ops.name_scope(None, name, [image]):
        image = ops.convert_to_tensor(image, name="image")
        rank = _image_rank(image)
        return array_nd_ops.reverse(image, [axis_3d + (rank - 3)])


def flip_left_right(image):
    """`image` mirrored left to right (ReverseV2 of the width axis).

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.image.flip_left_right(np.arange(3).reshape(1, 3, 1))).ravel())
      [2 1 0]
    """
    return _flip(image, 1, "flip_left_right")


def flip_up_down(image):
    """`image` mirrored top to bottom (ReverseV2 of the height axis).

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.image.flip_up_down(np.arange(3).reshape(3, 1, 1))).ravel())
      [2 1 0]
    """
    return _flip(image, 0, "flip_up_down")


def _random_flip(image, axis_3d, seed, name):
    with ops.name_scope(None, name, [image]):
        image = ops.convert_to_tensor(image, name="image")
        rank = _image_rank(image)
        flipped = array_nd_ops.reverse(image, [axis_3d + (rank - 3)])
        if rank == 3:
            u = random_ops.random_uniform([], 0, 1.0, seed=seed)
            return math_ops.where(math_ops.less(u, 0.5), flipped, image)
        batch = array_ops.shape(image)[0]
        u = random_ops.random_uniform(array_ops.expand_dims(batch, 0), 0, 1.0, seed=seed)
        return math_ops.where(math_ops.less(u, 0.5), flipped, image)


def random_flip_left_right(image, seed=None):
    """`image` (or each image of a batch) mirrored left to right with probability 1/2."""
    return _random_flip(image, 1, seed, "random_flip_left_right")


def random_flip_up_down(image, seed=None):
    """`image` (or each image of a batch) mirrored top to bottom with probability 1/2."""
    return _random_flip(image, 0, seed, "random_flip_up_down")


def transpose_image(image, name=None):
    """`image` with height and width swapped.

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.image.transpose_image(np.ones([2, 3, 1]))).shape)
      (3, 2, 1)
    """
    with ops.name_scope(name, "transpose", [image]):
        image = ops.convert_to_tensor(image, name="image")
        perm = [1, 0, 2] if _image_rank(image) == 3 else [0, 2, 1, 3]
        return array_ops.transpose(image, perm)


transpose = transpose_image


def rot90(image, k=1, name=None):
    """`image` rotated counter-clockwise by k * 90 degrees (k a Python int or a constant).

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.image.rot90(np.arange(4).reshape(2, 2, 1)))[..., 0])
      [[1 3]
       [0 2]]
    """
    with ops.name_scope(name, "rot90", [image, k]):
        image = ops.convert_to_tensor(image, name="image")
        rank = _image_rank(image)
        k_value = array_ops.constant_value(k) if isinstance(k, ops.Tensor) else k
        if k_value is None:
            raise NotImplementedError("rot90 needs a constant k (a data-dependent k needs tf.case)")
        k_value = int(k_value) % 4
        h, w = rank - 3, rank - 2
        perm = [1, 0, 2] if rank == 3 else [0, 2, 1, 3]
        if k_value == 0:
            rotated = image
        elif k_value == 1:
            rotated = array_ops.transpose(array_nd_ops.reverse(image, [w]), perm)
        elif k_value == 2:
            rotated = array_nd_ops.reverse(image, [h, w])
        else:
            rotated = array_nd_ops.reverse(array_ops.transpose(image, perm), [w])
        # TensorFlow picks the rotation with tf.case, so its static shape knows only the batch and channels.
        dims = image.shape.as_list()
        loose = [None, None, dims[2]] if rank == 3 else [dims[0], None, None, dims[3]]
        return array_ops.placeholder_with_default(rotated, loose)


# --- dtype and color -------------------------------------------------------------------------------------------


def _saturate_cast(value, dtype, name=None):
    value = ops.convert_to_tensor(value)
    dtype = dtypes.as_dtype(dtype)
    low = max(value.dtype.min, dtype.min)
    high = min(value.dtype.max, dtype.max)
    if value.dtype.min < dtype.min or value.dtype.max > dtype.max:
        value = math_ops.clip_by_value(
            value,
            ops.convert_to_tensor(np.array(low).astype(value.dtype.as_numpy_dtype)),
            ops.convert_to_tensor(np.array(high).astype(value.dtype.as_numpy_dtype)),
        )
    return math_ops.cast(value, dtype, name=name)


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """`image` converted to `dtype`, rescaling: floats lie in [0, 1], integers in [0, dtype.max].

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.image.convert_image_dtype(np.array([0, 255], np.uint8), tw.float32)))
      [0. 1.]
    """
    image = ops.convert_to_tensor(image, name="image")
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating and not dtype.is_integer:
        raise AttributeError("dtype must be either floating point or integer")
    if not image.dtype.is_floating and not image.dtype.is_integer:
        raise AttributeError("image dtype must be either floating point or integer")
    if dtype == image.dtype:
        return array_ops.identity(image, name=name)
    with ops.name_scope(name, "convert_image", [image]):
        if image.dtype.is_integer and dtype.is_integer:
            scale_in, scale_out = int(image.dtype.max), int(dtype.max)
            if scale_in > scale_out:
                scale = (scale_in + 1) // (scale_out + 1)
                scaled = math_ops.floordiv(image, ops.convert_to_tensor(scale, dtype=image.dtype))
                return _saturate_cast(scaled, dtype) if saturate else math_ops.cast(scaled, dtype)
            cast = _saturate_cast(image, dtype) if saturate else math_ops.cast(image, dtype)
            scale = (scale_out + 1) // (scale_in + 1)
            return math_ops.multiply(cast, ops.convert_to_tensor(scale, dtype=dtype))
        if image.dtype.is_floating and dtype.is_floating:
            return math_ops.cast(image, dtype)
        if image.dtype.is_integer:
            cast = math_ops.cast(image, dtype)
            return math_ops.multiply(cast, ops.convert_to_tensor(1.0 / image.dtype.max, dtype=dtype))
        scaled = math_ops.multiply(image, ops.convert_to_tensor(dtype.max + 0.5, dtype=image.dtype))
        return _saturate_cast(scaled, dtype) if saturate else math_ops.cast(scaled, dtype)


def _to_float(image):
    image = ops.convert_to_tensor(image, name="image")
    if image.dtype in (dtypes.float16, dtypes.float32):
        return image, image.dtype
    return convert_image_dtype(image, dtypes.float32), image.dtype


def adjust_brightness(image, delta):
    """`image` + delta, computed in float and converted back to the image's dtype (saturating).

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.image.adjust_brightness(np.zeros([1, 1, 1], np.float32), 0.25)).ravel())
      [0.25]
    """
    with ops.name_scope(None, "adjust_brightness", [image, delta]):
        flt, orig = _to_float(image)
        adjusted = math_ops.add(flt, math_ops.cast(delta, flt.dtype))
        return convert_image_dtype(adjusted, orig, saturate=True)


def adjust_contrast(images, contrast_factor):
    """Each channel of each image moved away from its mean by `contrast_factor` (AdjustContrastv2).

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = np.array([0.0, 1.0], np.float32).reshape(1, 2, 1)
      ...     print(sess.run(tw.image.adjust_contrast(x, 2.0)).ravel())
      [-0.5  1.5]
    """
    with ops.name_scope(None, "adjust_contrast", [images, contrast_factor]):
        flt, orig = _to_float(images)
        adjusted = gen_ops.adjust_contrastv2(flt, math_ops.cast(contrast_factor, dtypes.float32))
        return convert_image_dtype(adjusted, orig, saturate=True)


def adjust_saturation(image, saturation_factor, name=None):
    """RGB `image` with its saturation multiplied by `saturation_factor` (AdjustSaturation)."""
    with ops.name_scope(name, "adjust_saturation", [image]):
        flt, orig = _to_float(image)
        adjusted = gen_ops.adjust_saturation(flt, math_ops.cast(saturation_factor, dtypes.float32))
        return convert_image_dtype(adjusted, orig, saturate=True)


def adjust_hue(image, delta, name=None):
    """RGB `image` with `delta` (in [-1, 1]) added to its hue (AdjustHue)."""
    with ops.name_scope(name, "adjust_hue", [image]):
        flt, orig = _to_float(image)
        adjusted = gen_ops.adjust_hue(flt, math_ops.cast(delta, dtypes.float32))
        return convert_image_dtype(adjusted, orig, saturate=True)


def adjust_gamma(image, gamma=1, gain=1):
    """gain * image ** gamma, computed in float and converted back to the image's dtype.

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.image.adjust_gamma(np.array([[[0.5]]], np.float32), 2)).ravel())
      [0.25]
    """
    with ops.name_scope(None, "adjust_gamma", [image, gamma, gain]):
        flt, orig = _to_float(image)
        if not isinstance(gamma, ops.Tensor) and gamma < 0:
            raise ValueError("Gamma should be a non-negative real number.")
        adjusted = math_ops.multiply(math_ops.cast(gain, flt.dtype), math_ops.pow(flt, math_ops.cast(gamma, flt.dtype)))
        return convert_image_dtype(adjusted, orig, saturate=True)


def rgb_to_grayscale(images, name=None):
    """0.2989 R + 0.5870 G + 0.1140 B, computed in float, as a 1-channel image of the input's dtype.

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.image.rgb_to_grayscale(np.array([[[1.0, 0.0, 0.0]]], np.float32))).ravel())
      [0.2989]
    """
    with ops.name_scope(name, "rgb_to_grayscale", [images]):
        images = ops.convert_to_tensor(images, name="images")
        orig = images.dtype
        flt = convert_image_dtype(images, dtypes.float32)
        weights = ops.convert_to_tensor(np.array([0.2989, 0.5870, 0.1140], np.float32))
        gray = math_ops.reduce_sum(math_ops.multiply(flt, weights), axis=-1, keepdims=True)
        return convert_image_dtype(gray, orig)


def grayscale_to_rgb(images, name=None):
    """A 1-channel image repeated into 3 channels.

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.image.grayscale_to_rgb(np.ones([1, 1, 1]))).shape)
      (1, 1, 3)
    """
    with ops.name_scope(name, "grayscale_to_rgb", [images]):
        images = ops.convert_to_tensor(images, name="images")
        rank = images.shape.ndims
        if rank is None or rank < 2:
            raise ValueError("'image' (shape %s) must be at least two-dimensional." % images.shape)
        if images.shape.dims[-1].value not in (1, None):
            raise ValueError("Last dimension of a grayscale image should be size 1.")
        return array_ops.tile(images, [1] * (rank - 1) + [3])


@gen_ops.doc_from("RGBToHSV")
def rgb_to_hsv(images, name=None):
    """
    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.image.rgb_to_hsv(np.array([[[1.0, 0.0, 0.0]]], np.float32))).ravel())
      [0. 1. 1.]
    """
    # A numpy array keeps its dtype (the op's default T applies to Python lists only, as in TensorFlow).
    return gen_ops.rgb_to_hsv(ops.convert_to_tensor(images, name="images"), name=name)


@gen_ops.doc_from("HSVToRGB")
def hsv_to_rgb(images, name=None):
    """
    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.image.hsv_to_rgb(np.array([[[0.0, 1.0, 1.0]]], np.float32))).ravel())
      [1. 0. 0.]
    """
    return gen_ops.hsv_to_rgb(ops.convert_to_tensor(images, name="images"), name=name)


def per_image_standardization(image):
    """Each image scaled to zero mean and unit variance: (x - mean) / max(stddev, 1 / sqrt(num_pixels)).

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.image.per_image_standardization(np.array([[[1.0], [3.0]]]))).ravel())
      [-1.  1.]
    """
    with ops.name_scope(None, "per_image_standardization", [image]):
        image = ops.convert_to_tensor(image, name="image")
        if image.shape.ndims is not None and image.shape.ndims < 3:
            raise ValueError(f"'image' (shape {image.shape}) must be at least three-dimensional.")
        if image.shape.ndims is not None and any(d == 0 for d in image.shape.as_list()[-3:]):
            # (it gave an empty image; TF checks the inner dims)
            raise ValueError(f"inner 3 dims of 'image.shape' must be > 0: {tuple(image.shape.as_list())}")
        image = math_ops.cast(image, dtypes.float32)
        num_pixels = math_ops.reduce_prod(array_ops.shape(image)[-3:])
        mean = math_ops.reduce_mean(image, axis=[-1, -2, -3], keepdims=True)
        variance = math_ops.reduce_mean(
            math_ops.square(math_ops.subtract(image, mean)), axis=[-1, -2, -3], keepdims=True
        )
        stddev = math_ops.sqrt(variance)
        min_stddev = math_ops.rsqrt(math_ops.cast(num_pixels, dtypes.float32))
        adjusted = math_ops.maximum(stddev, min_stddev)
        return math_ops.divide(math_ops.subtract(image, mean), adjusted)


def total_variation(images, name=None):
    """The sum of absolute differences of neighbouring pixels (per image for a batch).

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.image.total_variation(np.array([[[0.0], [2.0]]]))))
      2.0
    """
    with ops.name_scope(name, "total_variation", [images]):
        images = ops.convert_to_tensor(images, name="images")
        rank = _image_rank(images, "images")
        if rank == 3:
            dif1 = images[1:, :, :] - images[:-1, :, :]
            dif2 = images[:, 1:, :] - images[:, :-1, :]
            axis = None
        else:
            dif1 = images[:, 1:, :, :] - images[:, :-1, :, :]
            dif2 = images[:, :, 1:, :] - images[:, :, :-1, :]
            axis = [1, 2, 3]
        return math_ops.add(
            math_ops.reduce_sum(math_ops.abs(dif1), axis=axis), math_ops.reduce_sum(math_ops.abs(dif2), axis=axis)
        )


def image_gradients(image):
    """(dy, dx): the differences to the next pixel down and right of each pixel of a 4-D batch, zero in the
    last row / column.

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     dy, dx = tw.image.image_gradients(np.array([0.0, 1.0, 3.0]).reshape(1, 1, 3, 1))
      ...     print(sess.run(dx).ravel())
      [1. 2. 0.]
    """
    image = ops.convert_to_tensor(image, name="image")
    if image.shape.ndims != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d], not {image.shape}.")
    shape = array_ops.shape(image)
    b, h, w, d = shape[0], shape[1], shape[2], shape[3]
    dy = image[:, 1:, :, :] - image[:, :-1, :, :]
    dx = image[:, :, 1:, :] - image[:, :, :-1, :]
    dy = array_ops.concat([dy, array_ops.zeros(array_ops.stack([b, 1, w, d]), image.dtype)], 1)
    dy = array_ops.reshape(dy, shape)
    dx = array_ops.concat([dx, array_ops.zeros(array_ops.stack([b, h, 1, d]), image.dtype)], 2)
    dx = array_ops.reshape(dx, shape)
    return dy, dx


# --- boxes -----------------------------------------------------------------------------------------------------


def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"), name=None):
    """The indices of at most `max_output_size` boxes, chosen greedily by descending score, none overlapping a
    chosen one by more than `iou_threshold` (NonMaxSuppressionV3).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     boxes = [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 2, 1, 3]]
      ...     print(sess.run(tw.image.non_max_suppression(boxes, [0.9, 0.8, 0.7], 3)))
      [0 2]
    """
    with ops.name_scope(name, "non_max_suppression"):
        iou_threshold = ops.convert_to_tensor(iou_threshold, dtypes.float32, name="iou_threshold")
        score_threshold = ops.convert_to_tensor(score_threshold, dtypes.float32, name="score_threshold")
        return gen_ops.non_max_suppression_v3(boxes, scores, max_output_size, iou_threshold, score_threshold)


def crop_and_resize(
    image, boxes, box_ind=None, crop_size=None, method="bilinear", extrapolation_value=0, name=None, box_indices=None
):
    """Crops of `image[box_ind[i]]` at the normalized `boxes[i]` ([y1, x1, y2, x2]), each resized to
    `crop_size` (CropAndResize).

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = np.arange(4.0).reshape(1, 2, 2, 1)
      ...     print(sess.run(tw.image.crop_and_resize(x, [[0, 0, 1, 1]], [0], [3, 3]))[0, :, :, 0])
      [[0.  0.5 1. ]
       [1.  1.5 2. ]
       [2.  2.5 3. ]]
    """
    box_ind = array_nd_ops._deprecated_alias(box_indices, box_ind, "box_indices", "box_ind")
    return gen_ops.crop_and_resize(
        image, boxes, box_ind, crop_size, method=method, extrapolation_value=float(extrapolation_value), name=name
    )


def extract_image_patches(images, ksizes=None, strides=None, rates=None, padding=None, name=None, sizes=None):
    """tw.extract_image_patches under tw.image (TF1 has both names)."""
    return array_nd_ops.extract_image_patches(images, ksizes, strides, rates, padding, name=name, sizes=sizes)


# --- random adjustments, padding resize, quality ---------------------------------------------------------------


def random_brightness(image, max_delta, seed=None):
    """adjust_brightness by a delta drawn uniformly from [-max_delta, max_delta)."""
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_ops.random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_brightness(image, delta)


def random_contrast(image, lower, upper, seed=None):
    """adjust_contrast by a factor drawn uniformly from [lower, upper)."""
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    return adjust_contrast(image, random_ops.random_uniform([], lower, upper, seed=seed))


def random_saturation(image, lower, upper, seed=None):
    """adjust_saturation by a factor drawn uniformly from [lower, upper)."""
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    return adjust_saturation(image, random_ops.random_uniform([], lower, upper, seed=seed))


def random_hue(image, max_delta, seed=None):
    """adjust_hue by a delta drawn uniformly from [-max_delta, max_delta) (max_delta in [0, 0.5])."""
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_hue(image, random_ops.random_uniform([], -max_delta, max_delta, seed=seed))


def resize_image_with_pad(image, target_height, target_width, method=ResizeMethod.BILINEAR, align_corners=False):
    """`image` resized to fit [target_height, target_width] keeping its aspect ratio, then zero-padded to it
    (TF1's arithmetic, in float32; static image and target sizes).

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.image.resize_image_with_pad(np.ones([2, 4, 1], np.float32), 4, 4))[..., 0])
      [[0. 0. 0. 0.]
       [1. 1. 1. 1.]
       [1. 1. 1. 1.]
       [0. 0. 0. 0.]]
    """
    with ops.name_scope(None, "resize_image_with_pad", [image]):
        image = ops.convert_to_tensor(image, name="image")
        rank = _image_rank(image)
        is_batch = rank == 4
        if not is_batch:
            image = array_ops.expand_dims(image, 0)
        _, height, width, _ = image.shape.as_list()
        if height is None or width is None:
            raise NotImplementedError("resize_image_with_pad needs a static height and width")
        th, tw_ = int(target_height), int(target_width)
        if tw_ <= 0:
            raise ValueError("target_width must be > 0.")
        if th <= 0:
            raise ValueError("target_height must be > 0.")
        f32 = np.float32
        ratio = max(f32(width) / f32(tw_), f32(height) / f32(th))
        resized_h, resized_w = f32(height) / ratio, f32(width) / ratio
        pad_h = max(0, int(np.floor((f32(th) - resized_h) / f32(2))))
        pad_w = max(0, int(np.floor((f32(tw_) - resized_w) / f32(2))))
        resized = resize_images(
            image, [int(np.floor(resized_h)), int(np.floor(resized_w))], method, align_corners=align_corners
        )
        padded = pad_to_bounding_box(resized, pad_h, pad_w, th, tw_)
        return padded if is_batch else array_ops.squeeze(padded, axis=[0])


def psnr(a, b, max_val, name=None):
    """Peak signal-to-noise ratio of each image of `a` against `b`, in dB (values converted to float32 as
    convert_image_dtype does).

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(round(float(sess.run(tw.image.psnr(np.zeros([2, 2, 1]), np.full([2, 2, 1], 0.1), 1.0))), 3))
      20.0
    """
    with ops.name_scope(name, "PSNR", [a, b]):
        a = ops.convert_to_tensor(a, name="a")
        b = ops.convert_to_tensor(b, name="b", dtype=a.dtype)
        max_val = convert_image_dtype(math_ops.cast(max_val, a.dtype), dtypes.float32)
        a = convert_image_dtype(a, dtypes.float32)
        b = convert_image_dtype(b, dtypes.float32)
        mse = math_ops.reduce_mean(math_ops.squared_difference(a, b), [-3, -2, -1])
        ten = ops.convert_to_tensor(np.float32(20.0), dtypes.float32)
        return math_ops.subtract(
            math_ops.divide(math_ops.multiply(ten, math_ops.log(max_val)), np.float32(np.log(10.0))),
            math_ops.multiply(ops.convert_to_tensor(np.float32(10 / np.log(10)), dtypes.float32), math_ops.log(mse)),
        )


def extract_patches(images, sizes, strides, rates, padding, name=None):
    """TF2's name of extract_image_patches (`sizes` for `ksizes`)."""
    return array_nd_ops.extract_image_patches(images, sizes, strides, rates, padding, name=name)

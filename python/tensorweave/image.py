"""tensorweave.image: image ops, as TensorFlow v1's `tf.image` (NHWC images).

Example:
  >>> import numpy as np, tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     print(sess.run(tw.image.resize_images(np.ones([2, 2, 3], np.float32), [4, 4])).shape)
  (4, 4, 3)

The implementation lives in `tensorweave._src.ops.image_ops`; this module re-exports the public names on
purpose; the codecs and the composites built on them are in `tensorweave._src.ops.image_codec_ops`.
The box ops of detection and Inception-style pipelines are in `tensorweave._src.ops.image_box_ops`.
"""

from tensorweave._src.ops.image_box_ops import combined_non_max_suppression
from tensorweave._src.ops.image_box_ops import extract_glimpse
from tensorweave._src.ops.image_box_ops import generate_bounding_box_proposals
from tensorweave._src.ops.image_box_ops import non_max_suppression_padded
from tensorweave._src.ops.image_box_ops import sample_distorted_bounding_box
from tensorweave._src.ops.image_box_ops import stateless_sample_distorted_bounding_box
from tensorweave._src.ops.image_codec_ops import adjust_jpeg_quality
from tensorweave._src.ops.image_codec_ops import decode_and_crop_jpeg
from tensorweave._src.ops.image_codec_ops import draw_bounding_boxes
from tensorweave._src.ops.image_codec_ops import decode_bmp
from tensorweave._src.ops.image_codec_ops import decode_gif
from tensorweave._src.ops.image_codec_ops import decode_image
from tensorweave._src.ops.image_codec_ops import decode_jpeg
from tensorweave._src.ops.image_codec_ops import decode_png
from tensorweave._src.ops.image_codec_ops import encode_jpeg
from tensorweave._src.ops.image_codec_ops import encode_png
from tensorweave._src.ops.image_codec_ops import extract_jpeg_shape
from tensorweave._src.ops.image_codec_ops import is_jpeg
from tensorweave._src.ops.image_codec_ops import non_max_suppression_overlaps
from tensorweave._src.ops.image_codec_ops import non_max_suppression_with_scores
from tensorweave._src.ops.image_codec_ops import random_jpeg_quality
from tensorweave._src.ops.image_codec_ops import rgb_to_yiq
from tensorweave._src.ops.image_codec_ops import rgb_to_yuv
from tensorweave._src.ops.image_codec_ops import sobel_edges
from tensorweave._src.ops.image_codec_ops import ssim
from tensorweave._src.ops.image_codec_ops import ssim_multiscale
from tensorweave._src.ops.image_codec_ops import yiq_to_rgb
from tensorweave._src.ops.image_codec_ops import yuv_to_rgb
from tensorweave._src.ops.image_ops import ResizeMethod
from tensorweave._src.ops.random_ops import random_crop
from tensorweave._src.ops.image_ops import adjust_brightness
from tensorweave._src.ops.image_ops import adjust_contrast
from tensorweave._src.ops.image_ops import adjust_gamma
from tensorweave._src.ops.image_ops import adjust_hue
from tensorweave._src.ops.image_ops import adjust_saturation
from tensorweave._src.ops.image_ops import central_crop
from tensorweave._src.ops.image_ops import convert_image_dtype
from tensorweave._src.ops.image_ops import crop_and_resize
from tensorweave._src.ops.image_ops import crop_to_bounding_box
from tensorweave._src.ops.image_ops import extract_image_patches
from tensorweave._src.ops.image_ops import extract_patches
from tensorweave._src.ops.image_ops import flip_left_right
from tensorweave._src.ops.image_ops import flip_up_down
from tensorweave._src.ops.image_ops import grayscale_to_rgb
from tensorweave._src.ops.image_ops import hsv_to_rgb
from tensorweave._src.ops.image_ops import image_gradients
from tensorweave._src.ops.image_ops import non_max_suppression
from tensorweave._src.ops.image_ops import pad_to_bounding_box
from tensorweave._src.ops.image_ops import per_image_standardization
from tensorweave._src.ops.image_ops import psnr
from tensorweave._src.ops.image_ops import random_brightness
from tensorweave._src.ops.image_ops import random_contrast
from tensorweave._src.ops.image_ops import random_flip_left_right
from tensorweave._src.ops.image_ops import random_flip_up_down
from tensorweave._src.ops.image_ops import random_hue
from tensorweave._src.ops.image_ops import random_saturation
from tensorweave._src.ops.image_ops import resize
from tensorweave._src.ops.image_ops import resize_area
from tensorweave._src.ops.image_ops import resize_bicubic
from tensorweave._src.ops.image_ops import resize_bilinear
from tensorweave._src.ops.image_ops import resize_image_with_crop_or_pad
from tensorweave._src.ops.image_ops import resize_image_with_pad
from tensorweave._src.ops.image_ops import resize_images
from tensorweave._src.ops.image_ops import resize_nearest_neighbor
from tensorweave._src.ops.image_ops import resize_with_crop_or_pad
from tensorweave._src.ops.image_ops import rgb_to_grayscale
from tensorweave._src.ops.image_ops import rgb_to_hsv
from tensorweave._src.ops.image_ops import rot90
from tensorweave._src.ops.image_ops import total_variation
from tensorweave._src.ops.image_ops import transpose
from tensorweave._src.ops.image_ops import transpose_image

"""Gradients of the image ops (as TensorFlow registers them)."""

from tensorweave._src.framework import dtypes
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import gen_ops
from tensorweave._src.ops import gradients_impl

# TensorFlow registers no gradient for these (NonMaxSuppressionV3 is declared not differentiable; the
# adjustments and ResizeArea have none).
for _op in (
    "NonMaxSuppressionV3",
    "ResizeArea",
    "AdjustContrastv2",
    "AdjustSaturation",
    "AdjustHue",
    "ResizeBilinearGrad",
    "ResizeNearestNeighborGrad",
):
    gradients_impl.NotDifferentiable(_op)

for _op in ("ResizeBicubicGrad", "CropAndResizeGradImage", "CropAndResizeGradBoxes"):
    gradients_impl.NotDifferentiable(_op)

# Not yet: TensorFlow differentiates RGBToHSV (a long composite); here it is declared not differentiable, as
# HSVToRGB is in TensorFlow.
for _op in ("RGBToHSV", "HSVToRGB"):
    gradients_impl.NotDifferentiable(_op)


@gradients_impl.RegisterGradient("ResizeBicubic")
def _resize_bicubic_grad(op, grad):
    image = op.inputs[0]
    if image.dtype not in (dtypes.float32, dtypes.float64):
        return [None, None]
    return [
        gen_ops.resize_bicubic_grad(
            grad,
            image,
            align_corners=op.get_attr("align_corners"),
            half_pixel_centers=op.get_attr("half_pixel_centers"),
        ),
        None,
    ]


@gradients_impl.RegisterGradient("CropAndResize")
def _crop_and_resize_grad(op, grad):
    image, boxes, box_ind, _ = op.inputs
    if image.shape.is_fully_defined():
        image_shape = image.shape.as_list()
    else:
        image_shape = array_ops.shape(image)
    grad_image = None
    if image.dtype in (dtypes.float16, dtypes.float32, dtypes.float64):
        grad_image = gen_ops.crop_and_resize_grad_image(
            grad, boxes, box_ind, image_shape, T=image.dtype, method=op.get_attr("method")
        )
    grad_boxes = gen_ops.crop_and_resize_grad_boxes(grad, image, boxes, box_ind)
    return [grad_image, grad_boxes, None, None]


@gradients_impl.RegisterGradient("ResizeBilinear")
def _resize_bilinear_grad(op, grad):
    image = op.inputs[0]
    if image.dtype not in (dtypes.float32, dtypes.float64, dtypes.float16):
        return [None, None]
    return [
        gen_ops.resize_bilinear_grad(
            grad,
            image,
            align_corners=op.get_attr("align_corners"),
            half_pixel_centers=op.get_attr("half_pixel_centers"),
        ),
        None,
    ]


@gradients_impl.RegisterGradient("ResizeNearestNeighbor")
def _resize_nearest_neighbor_grad(op, grad):
    image = op.inputs[0]
    dims = image.shape.as_list() if image.shape.ndims is not None else None
    if dims is not None and dims[1] is not None and dims[2] is not None:
        size = dims[1:3]
    else:
        size = array_ops.shape(image)[1:3]
    return [
        gen_ops.resize_nearest_neighbor_grad(
            grad,
            size,
            align_corners=op.get_attr("align_corners"),
            half_pixel_centers=op.get_attr("half_pixel_centers"),
        ),
        None,
    ]

// Image ops (NHWC): resizing (bilinear, nearest neighbor, bicubic, area) and
// the gradients of the first two, CropAndResize, NonMaxSuppressionV3 and the
// color conversions and adjustments.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

// [batch, size[0], size[1], channels] from a 4-D input and a size input.
Status ResizeShapeFrom(InferenceContext* c, int image, int size_input) {
  PartialShape in, size;
  TW_RETURN_IF_ERROR(c->WithRank(image, 4, &in));
  TW_RETURN_IF_ERROR(c->WithRank(size_input, 1, &size));
  if (size.dim(0) >= 0 && size.dim(0) != 2) {
    return errors::InvalidArgument(
        "Shape must be rank 1 with 2 elements, but is ", size.ToString());
  }
  std::vector<int64_t> dims = {in.dim(0), -1, -1, in.dim(3)};
  const Tensor* t = c->input_value(size_input);
  std::vector<int64_t> hw;
  if (t != nullptr && ReadIndexVector(*t, &hw).ok() && hw.size() == 2) {
    if (hw[0] < 0 || hw[1] < 0) {
      return errors::InvalidArgument("size must be non-negative, got [", hw[0],
                                     ", ", hw[1], "]");
    }
    dims[1] = hw[0];
    dims[2] = hw[1];
  }
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status ResizeShape(InferenceContext* c) { return ResizeShapeFrom(c, 0, 1); }

Status ResizeBilinearGradShape(InferenceContext* c) {
  PartialShape grads, original;
  TW_RETURN_IF_ERROR(c->WithRank(0, 4, &grads));
  TW_RETURN_IF_ERROR(c->WithRank(1, 4, &original));
  c->set_output(0, original);
  return Status::OK();
}

Status ResizeNearestNeighborGradShape(InferenceContext* c) {
  return ResizeShapeFrom(c, 0, 1);
}

Status CropAndResizeShape(InferenceContext* c) {
  PartialShape image, boxes, box_ind, crop;
  TW_RETURN_IF_ERROR(c->WithRank(0, 4, &image));
  TW_RETURN_IF_ERROR(c->WithRank(1, 2, &boxes));
  TW_RETURN_IF_ERROR(c->WithRank(2, 1, &box_ind));
  TW_RETURN_IF_ERROR(c->WithRank(3, 1, &crop));
  if (boxes.dim(1) >= 0 && boxes.dim(1) != 4) {
    return errors::InvalidArgument("boxes must have shape [num_boxes, 4], got ",
                                   boxes.ToString());
  }
  if (boxes.dim(0) >= 0 && box_ind.dim(0) >= 0 &&
      boxes.dim(0) != box_ind.dim(0)) {
    return errors::InvalidArgument("boxes ", boxes.ToString(), " and box_ind ",
                                   box_ind.ToString(),
                                   " have different numbers of boxes");
  }
  std::vector<int64_t> dims = {
      boxes.dim(0) >= 0 ? boxes.dim(0) : box_ind.dim(0), -1, -1, image.dim(3)};
  const Tensor* t = c->input_value(3);
  std::vector<int64_t> hw;
  if (t != nullptr && ReadIndexVector(*t, &hw).ok() && hw.size() == 2) {
    if (hw[0] <= 0 || hw[1] <= 0) {
      return errors::InvalidArgument("crop dimensions must be positive");
    }
    dims[1] = hw[0];
    dims[2] = hw[1];
  }
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status NonMaxSuppressionShape(InferenceContext* c) {
  PartialShape boxes, scores, unused;
  TW_RETURN_IF_ERROR(c->WithRank(0, 2, &boxes));
  TW_RETURN_IF_ERROR(c->WithRank(1, 1, &scores));
  for (int i = 2; i <= 4; ++i) TW_RETURN_IF_ERROR(c->WithRank(i, 0, &unused));
  if (boxes.dim(1) >= 0 && boxes.dim(1) != 4) {
    return errors::InvalidArgument("boxes must have shape [num_boxes, 4], got ",
                                   boxes.ToString());
  }
  c->set_output(0, PartialShape({-1}));
  return Status::OK();
}

Status ColorShape(InferenceContext* c) {
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(0, 1));
  const PartialShape& in = c->input(0);
  if (in.known_rank() && in.dim(in.rank() - 1) >= 0 &&
      in.dim(in.rank() - 1) != 3) {
    return errors::InvalidArgument(
        "input must have 3 channels but input only has ", in.dim(in.rank() - 1),
        " channels.");
  }
  return c->UnchangedShape(0);
}

Status AdjustShape(InferenceContext* c) {
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(0, 3));
  PartialShape unused;
  TW_RETURN_IF_ERROR(c->WithRank(1, 0, &unused));
  return c->UnchangedShape(0);
}

}  // namespace

#define TW_RESIZE_INPUT_TYPES \
  "{int8, uint8, int16, uint16, int32, int64, float16, float32, float64}"

REGISTER_OP("ResizeBilinear")
    .Input("images: T")
    .Input("size: int32")
    .Output("resized_images: float32")
    .Attr("T: " TW_RESIZE_INPUT_TYPES)
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(ResizeShape)
    .Doc("images resized to size by bilinear interpolation.");

REGISTER_OP("ResizeBilinearGrad")
    .Input("grads: float32")
    .Input("original_image: T")
    .Output("output: T")
    .Attr("T: {float32, float16, float64}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(ResizeBilinearGradShape)
    .Doc("The gradient of ResizeBilinear with respect to its images.");

REGISTER_OP("ResizeNearestNeighbor")
    .Input("images: T")
    .Input("size: int32")
    .Output("resized_images: T")
    .Attr("T: " TW_RESIZE_INPUT_TYPES)
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(ResizeShape)
    .Doc("images resized to size by taking the nearest pixel.");

REGISTER_OP("ResizeNearestNeighborGrad")
    .Input("grads: T")
    .Input("size: int32")
    .Output("output: T")
    .Attr("T: {uint8, int8, int32, float16, float32, float64}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(ResizeNearestNeighborGradShape)
    .Doc(
        "The gradient of ResizeNearestNeighbor: grads summed into the pixels "
        "they were read from, an image of size.");

REGISTER_OP("ResizeBicubic")
    .Input("images: T")
    .Input("size: int32")
    .Output("resized_images: float32")
    .Attr("T: " TW_RESIZE_INPUT_TYPES)
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(ResizeShape)
    .Doc("images resized to size by bicubic (Keys) interpolation.");

REGISTER_OP("ResizeArea")
    .Input("images: T")
    .Input("size: int32")
    .Output("resized_images: float32")
    .Attr("T: " TW_RESIZE_INPUT_TYPES)
    .Attr("align_corners: bool = false")
    .SetShapeFn(ResizeShape)
    .Doc(
        "images resized to size, each output pixel the area-weighted mean of "
        "the input pixels it covers.");

REGISTER_OP("CropAndResize")
    .Input("image: T")
    .Input("boxes: float32")
    .Input("box_ind: int32")
    .Input("crop_size: int32")
    .Output("crops: float32")
    .Attr("T: " TW_RESIZE_INPUT_TYPES)
    .Attr("method: {'bilinear', 'nearest'} = 'bilinear'")
    .Attr("extrapolation_value: float = 0")
    .SetShapeFn(CropAndResizeShape)
    .Doc(
        "Crops of image[box_ind[i]] at the normalized boxes[i] = [y1, x1, "
        "y2, x2], each resized to crop_size.");

REGISTER_OP("NonMaxSuppressionV3")
    .Input("boxes: T")
    .Input("scores: T")
    .Input("max_output_size: int32")
    .Input("iou_threshold: T_threshold")
    .Input("score_threshold: T_threshold")
    .Output("selected_indices: int32")
    .Attr("T: {float16, float32} = float32")
    .Attr("T_threshold: {float16, float32} = float32")
    .SetShapeFn(NonMaxSuppressionShape)
    .Doc(
        "Greedily selects boxes by descending score, dropping those whose IoU "
        "with a selected box exceeds iou_threshold or whose score is not "
        "above score_threshold.");

REGISTER_OP("RGBToHSV")
    .Input("images: T")
    .Output("output: T")
    .Attr("T: {float16, float32, float64} = float32")
    .SetShapeFn(ColorShape)
    .Doc("RGB images (last dim 3, values in [0, 1]) converted to HSV.");

REGISTER_OP("HSVToRGB")
    .Input("images: T")
    .Output("output: T")
    .Attr("T: {float16, float32, float64} = float32")
    .SetShapeFn(ColorShape)
    .Doc("HSV images converted to RGB.");

REGISTER_OP("AdjustContrastv2")
    .Input("images: T")
    .Input("contrast_factor: float32")
    .Output("output: T")
    .Attr("T: {float16, float32} = float32")
    .SetShapeFn(AdjustShape)
    .Doc(
        "(x - mean) * contrast_factor + mean, the mean per image and channel "
        "over the two dims before the last.");

REGISTER_OP("AdjustSaturation")
    .Input("images: T")
    .Input("scale: float32")
    .Output("output: T")
    .Attr("T: {float16, float32} = float32")
    .SetShapeFn(AdjustShape)
    .Doc("RGB images with their HSV saturation multiplied by scale (clamped).");

REGISTER_OP("AdjustHue")
    .Input("images: T")
    .Input("delta: float32")
    .Output("output: T")
    .Attr("T: {float16, float32} = float32")
    .SetShapeFn(AdjustShape)
    .Doc("RGB images with delta added to their HSV hue (wrapping).");

REGISTER_OP("ResizeBicubicGrad")
    .Input("grads: float32")
    .Input("original_image: T")
    .Output("output: T")
    .Attr("T: {float32, float64}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(ResizeBilinearGradShape)
    .Doc("The gradient of ResizeBicubic with respect to its images.");

REGISTER_OP("CropAndResizeGradImage")
    .Input("grads: float32")
    .Input("boxes: float32")
    .Input("box_ind: int32")
    .Input("image_size: int32")
    .Output("output: T")
    .Attr("T: {float32, float16, float64}")
    .Attr("method: {'bilinear', 'nearest'} = 'bilinear'")
    .SetShapeFn([](InferenceContext* c) {
      PartialShape shape;
      TW_RETURN_IF_ERROR(c->ShapeFromShapeInput(3, &shape));
      if (shape.known_rank() && shape.rank() != 4) {
        return errors::InvalidArgument("image_size must have 4 elements, got ",
                                       shape.ToString());
      }
      c->set_output(0, shape.known_rank() ? shape : PartialShape::Unknown(4));
      return Status::OK();
    })
    .Doc("The gradient of CropAndResize with respect to its image.");

REGISTER_OP("CropAndResizeGradBoxes")
    .Input("grads: float32")
    .Input("image: T")
    .Input("boxes: float32")
    .Input("box_ind: int32")
    .Output("output: float32")
    .Attr("T: " TW_RESIZE_INPUT_TYPES)
    .Attr("method: {'bilinear'} = 'bilinear'")
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, c->input(2));
      return Status::OK();
    })
    .Doc("The gradient of CropAndResize with respect to its boxes.");

}  // namespace tensorweave

// Image codecs, as TensorFlow's: PNG (libpng), JPEG (libjpeg-turbo), GIF
// (giflib) and BMP, decoding and encoding; ExtractJpegShape.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

Status ScalarContents(InferenceContext* c) {
  PartialShape unused;
  return c->WithRank(0, 0, &unused);
}

// [height?, width?, channels or ?] for the 3-D decoders.
Status DecodeImageShape(InferenceContext* c) {
  TW_RETURN_IF_ERROR(ScalarContents(c));
  int64_t channels = 0;
  TW_RETURN_IF_ERROR(c->GetAttr("channels", &channels));
  if (channels < 0) {
    return errors::InvalidArgument("channels must be non-negative, got ",
                                   channels);
  }
  c->set_output(0, PartialShape({-1, -1, channels == 0 ? -1 : channels}));
  return Status::OK();
}

Status DecodeAndCropJpegShape(InferenceContext* c) {
  TW_RETURN_IF_ERROR(DecodeImageShape(c));
  PartialShape window;
  TW_RETURN_IF_ERROR(c->WithRank(1, 1, &window));
  if (window.dim(0) >= 0 && window.dim(0) != 4) {
    return errors::InvalidArgument(
        "crop_window must have 4 elements, got shape ", window.ToString());
  }
  return Status::OK();
}

Status DecodeGifShape(InferenceContext* c) {
  TW_RETURN_IF_ERROR(ScalarContents(c));
  c->set_output(0, PartialShape({-1, -1, -1, 3}));
  return Status::OK();
}

// DecodeImage: 3-D, or of unknown rank when animations are expanded (a GIF
// gives a 4-D batch of frames).
Status DecodeAnyImageShape(InferenceContext* c) {
  TW_RETURN_IF_ERROR(ScalarContents(c));
  int64_t channels = 0;
  bool expand = true;
  TW_RETURN_IF_ERROR(c->GetAttr("channels", &channels));
  TW_RETURN_IF_ERROR(c->GetAttr("expand_animations", &expand));
  if (channels < 0) {
    return errors::InvalidArgument("channels must be non-negative, got ",
                                   channels);
  }
  if (expand) {
    c->set_output(0, PartialShape::UnknownRank());
  } else {
    c->set_output(0, PartialShape({-1, -1, channels == 0 ? -1 : channels}));
  }
  return Status::OK();
}

Status EncodeImageShape(InferenceContext* c) {
  PartialShape unused;
  TW_RETURN_IF_ERROR(c->WithRank(0, 3, &unused));
  c->set_output(0, PartialShape({}));
  return Status::OK();
}

Status EncodeJpegVariableQualityShape(InferenceContext* c) {
  PartialShape unused;
  TW_RETURN_IF_ERROR(c->WithRank(0, 3, &unused));
  TW_RETURN_IF_ERROR(c->WithRank(1, 0, &unused));
  c->set_output(0, PartialShape({}));
  return Status::OK();
}

Status ExtractJpegShapeShape(InferenceContext* c) {
  TW_RETURN_IF_ERROR(ScalarContents(c));
  c->set_output(0, PartialShape({3}));
  return Status::OK();
}

Status DrawBoundingBoxesShape(InferenceContext* c) {
  PartialShape images, boxes;
  TW_RETURN_IF_ERROR(c->WithRank(0, 4, &images));
  TW_RETURN_IF_ERROR(c->WithRank(1, 3, &boxes));
  if (c->num_inputs() == 3) {
    PartialShape colors;
    TW_RETURN_IF_ERROR(c->WithRank(2, 2, &colors));
  }
  const int64_t depth = images.dim(3);
  if (depth >= 0 && depth != 1 && depth != 3 && depth != 4) {
    return errors::InvalidArgument(
        "Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA), got ",
        depth);
  }
  if (boxes.dim(2) >= 0 && boxes.dim(2) != 4) {
    return errors::InvalidArgument("boxes must have 4 coordinates, got shape ",
                                   boxes.ToString());
  }
  return c->UnchangedShape(0);
}

Status NmsV5Shape(InferenceContext* c) {
  PartialShape boxes, scores, unused;
  TW_RETURN_IF_ERROR(c->WithRank(0, 2, &boxes));
  TW_RETURN_IF_ERROR(c->WithRank(1, 1, &scores));
  for (int i = 2; i < c->num_inputs(); ++i) {
    TW_RETURN_IF_ERROR(c->WithRank(i, 0, &unused));
  }
  if (boxes.dim(1) >= 0 && boxes.dim(1) != 4) {
    return errors::InvalidArgument("boxes must have shape [num_boxes, 4], got ",
                                   boxes.ToString());
  }
  bool pad = false;
  int64_t size = -1;
  if (c->GetAttr("pad_to_max_output_size", &pad).ok() && pad) {
    const Tensor* t = c->input_value(2);
    if (t != nullptr) size = t->data<int32_t>()[0];
  }
  c->set_output(0, PartialShape({size}));
  if (c->num_outputs() == 3) {
    c->set_output(1, PartialShape({size}));
    c->set_output(2, PartialShape({}));
  } else if (c->num_outputs() == 2) {
    c->set_output(1, PartialShape({}));
  }
  return Status::OK();
}

Status NmsOverlapsShape(InferenceContext* c) {
  PartialShape overlaps, scores, unused;
  TW_RETURN_IF_ERROR(c->WithRank(0, 2, &overlaps));
  TW_RETURN_IF_ERROR(c->WithRank(1, 1, &scores));
  for (int i = 2; i < 5; ++i) TW_RETURN_IF_ERROR(c->WithRank(i, 0, &unused));
  // overlaps is [n, n] and scores [n] (TF's message).
  const int64_t n[3] = {overlaps.dim(0), overlaps.dim(1), scores.dim(0)};
  for (int i = 1; i < 3; ++i) {
    if (n[0] >= 0 && n[i] >= 0 && n[0] != n[i]) {
      return errors::InvalidArgument("Dimensions must be equal, but are ", n[0],
                                     " and ", n[i]);
    }
  }
  c->set_output(0, PartialShape({-1}));
  return Status::OK();
}

}  // namespace

REGISTER_OP("DecodePng")
    .Input("contents: string")
    .Output("image: dtype")
    .Attr("channels: int = 0")
    .Attr("dtype: {uint8, uint16} = uint8")
    .SetShapeFn(DecodeImageShape)
    .Doc(
        "A PNG image as [height, width, channels] (channels 0: the file's; 1, "
        "3 or 4 convert).");

REGISTER_OP("EncodePng")
    .Input("image: T")
    .Output("contents: string")
    .Attr("compression: int = -1")
    .Attr("T: {uint8, uint16} = uint8")
    .SetShapeFn(EncodeImageShape)
    .Doc("A [height, width, 1..4] image as PNG (compression -1..9).");

#define TW_JPEG_DECODE_ATTRS                       \
  Attr("channels: int = 0")                        \
      .Attr("ratio: int = 1")                      \
      .Attr("fancy_upscaling: bool = true")        \
      .Attr("try_recover_truncated: bool = false") \
      .Attr("acceptable_fraction: float = 1.0")    \
      .Attr("dct_method: string = ''")

REGISTER_OP("DecodeJpeg")
    .Input("contents: string")
    .Output("image: uint8")
    .TW_JPEG_DECODE_ATTRS.SetShapeFn(DecodeImageShape)
    .Doc("A JPEG image as [height, width, channels] uint8 (libjpeg-turbo).");

REGISTER_OP("DecodeAndCropJpeg")
    .Input("contents: string")
    .Input("crop_window: int32")
    .Output("image: uint8")
    .TW_JPEG_DECODE_ATTRS.SetShapeFn(DecodeAndCropJpegShape)
    .Doc(
        "The crop_window [y, x, height, width] of a JPEG image, decoded as "
        "DecodeJpeg.");

#undef TW_JPEG_DECODE_ATTRS

REGISTER_OP("EncodeJpeg")
    .Input("image: uint8")
    .Output("contents: string")
    .Attr("format: {'', 'grayscale', 'rgb'} = ''")
    .Attr("quality: int = 95")
    .Attr("progressive: bool = false")
    .Attr("optimize_size: bool = false")
    .Attr("chroma_downsampling: bool = true")
    .Attr("density_unit: {'in', 'cm'} = 'in'")
    .Attr("x_density: int = 300")
    .Attr("y_density: int = 300")
    .Attr("xmp_metadata: string = ''")
    .SetShapeFn(EncodeImageShape)
    .Doc("A [height, width, 1 or 3] uint8 image as JPEG (libjpeg-turbo).");

REGISTER_OP("EncodeJpegVariableQuality")
    .Input("images: uint8")
    .Input("quality: int32")
    .Output("contents: string")
    .SetShapeFn(EncodeJpegVariableQualityShape)
    .Doc("EncodeJpeg with its quality (0..100) given as a scalar input.");

REGISTER_OP("ExtractJpegShape")
    .Input("contents: string")
    .Output("image_shape: output_type")
    .Attr("output_type: {int32, int64} = int32")
    .SetShapeFn(ExtractJpegShapeShape)
    .Doc("[height, width, channels] of a JPEG image, from its header only.");

REGISTER_OP("DecodeBmp")
    .Input("contents: string")
    .Output("image: uint8")
    .Attr("channels: int = 0")
    .SetShapeFn(DecodeImageShape)
    .Doc("A BMP image (uncompressed, 24 or 32 bits) as [height, width, 3/4].");

REGISTER_OP("DecodeGif")
    .Input("contents: string")
    .Output("image: uint8")
    .SetShapeFn(DecodeGifShape)
    .Doc("The frames of a GIF image as [frames, height, width, 3] (giflib).");

REGISTER_OP("DecodeImage")
    .Input("contents: string")
    .Output("image: dtype")
    .Attr("channels: int = 0")
    .Attr("dtype: {uint8, uint16, float32} = uint8")
    .Attr("expand_animations: bool = true")
    .SetShapeFn(DecodeAnyImageShape)
    .Doc(
        "A PNG, JPEG, GIF or BMP image, by its first bytes; float32 scales to "
        "[0, 1].");

REGISTER_OP("DrawBoundingBoxes")
    .Input("images: T")
    .Input("boxes: float32")
    .Output("output: T")
    .Attr("T: {float32, float16} = float32")
    .SetShapeFn(DrawBoundingBoxesShape)
    .Doc(
        "images with the outline of each [y_min, x_min, y_max, x_max] box "
        "(normalized) drawn in TF's default colors.");

REGISTER_OP("DrawBoundingBoxesV2")
    .Input("images: T")
    .Input("boxes: float32")
    .Input("colors: float32")
    .Output("output: T")
    .Attr("T: {float32, float16} = float32")
    .SetShapeFn(DrawBoundingBoxesShape)
    .Doc("DrawBoundingBoxes with the colors ([n, 4] RGBA rows) cycled.");

REGISTER_OP("NonMaxSuppressionV4")
    .Input("boxes: T")
    .Input("scores: T")
    .Input("max_output_size: int32")
    .Input("iou_threshold: T_threshold")
    .Input("score_threshold: T_threshold")
    .Output("selected_indices: int32")
    .Output("valid_outputs: int32")
    .Attr("T: {float16, float32} = float32")
    .Attr("T_threshold: {float16, float32} = float32")
    .Attr("pad_to_max_output_size: bool = false")
    .SetShapeFn(NmsV5Shape)
    .Doc(
        "NonMaxSuppressionV3, optionally padded with zeros to "
        "max_output_size.");

REGISTER_OP("NonMaxSuppressionV5")
    .Input("boxes: T")
    .Input("scores: T")
    .Input("max_output_size: int32")
    .Input("iou_threshold: T")
    .Input("score_threshold: T")
    .Input("soft_nms_sigma: T")
    .Output("selected_indices: int32")
    .Output("selected_scores: T")
    .Output("valid_outputs: int32")
    .Attr("T: {float16, float32} = float32")
    .Attr("pad_to_max_output_size: bool = false")
    .SetShapeFn(NmsV5Shape)
    .Doc(
        "Greedy non-max suppression with the selected scores; soft_nms_sigma > "
        "0 decays overlapping scores (Soft-NMS) instead of removing them.");

REGISTER_OP("NonMaxSuppressionWithOverlaps")
    .Input("overlaps: float32")
    .Input("scores: float32")
    .Input("max_output_size: int32")
    .Input("overlap_threshold: float32")
    .Input("score_threshold: float32")
    .Output("selected_indices: int32")
    .SetShapeFn(NmsOverlapsShape)
    .Doc("Greedy non-max suppression over a given [n, n] overlap matrix.");

}  // namespace tensorweave

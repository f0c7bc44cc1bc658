// Box ops of TF1 image pipelines: SampleDistortedBoundingBox (V1, V2 and
// stateless), CombinedNonMaxSuppression, the tiled padded non-max
// suppression of tf.image.non_max_suppression_padded, ExtractGlimpse (V1, V2),
// ExtractVolumePatches and GenerateBoundingBoxProposals.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

Status SampleBoxShape(InferenceContext* c) {
  PartialShape size, boxes;
  TW_RETURN_IF_ERROR(c->WithRank(0, 1, &size));
  TW_RETURN_IF_ERROR(c->WithRank(1, 3, &boxes));
  if (size.dim(0) >= 0 && size.dim(0) != 3) {
    return errors::InvalidArgument("image_size must have 3 elements, got ",
                                   size.ToString());
  }
  if (boxes.dim(2) >= 0 && boxes.dim(2) != 4) {
    return errors::InvalidArgument(
        "bounding_boxes must have shape [batch, N, 4], got ", boxes.ToString());
  }
  c->set_output(0, PartialShape({3}));
  c->set_output(1, PartialShape({3}));
  c->set_output(2, PartialShape({1, 1, 4}));
  return Status::OK();
}

Status CombinedNmsShape(InferenceContext* c) {
  PartialShape boxes, scores;
  TW_RETURN_IF_ERROR(c->WithRank(0, 4, &boxes));
  TW_RETURN_IF_ERROR(c->WithRank(1, 3, &scores));
  for (int i = 2; i < 6; ++i) {
    PartialShape s;
    TW_RETURN_IF_ERROR(c->WithRank(i, 0, &s));
  }
  if (boxes.dim(3) >= 0 && boxes.dim(3) != 4) {
    return errors::InvalidArgument(
        "boxes must have shape [batch, num_boxes, "
        "q, 4], got ",
        boxes.ToString());
  }
  if (boxes.dim(2) >= 0 && scores.dim(2) >= 0 && boxes.dim(2) != 1 &&
      boxes.dim(2) != scores.dim(2)) {
    return errors::InvalidArgument(
        "third dimension of boxes must be either 1 or equal to the third "
        "dimension of scores, got ",
        boxes.ToString(), " and ", scores.ToString());
  }
  const int64_t batch = boxes.dim(0) >= 0 ? boxes.dim(0) : scores.dim(0);
  int64_t total = -1;
  const Tensor* per_class = c->input_value(2);
  const Tensor* max_total = c->input_value(3);
  bool pad_per_class = false;
  TW_RETURN_IF_ERROR(c->GetAttr("pad_per_class", &pad_per_class));
  if (max_total != nullptr && max_total->num_elements() == 1) {
    total = max_total->data<int32_t>()[0];
    if (total <= 0) {
      return errors::InvalidArgument("max_total_size must be > 0, got ", total);
    }
    if (pad_per_class) {
      total = -1;
      if (per_class != nullptr && per_class->num_elements() == 1 &&
          scores.dim(2) >= 0) {
        total = std::min<int64_t>(
            max_total->data<int32_t>()[0],
            static_cast<int64_t>(per_class->data<int32_t>()[0]) *
                scores.dim(2));
      }
    }
  }
  c->set_output(0, PartialShape({batch, total, 4}));
  c->set_output(1, PartialShape({batch, total}));
  c->set_output(2, PartialShape({batch, total}));
  c->set_output(3, PartialShape({batch}));
  return Status::OK();
}

Status NmsPaddedShape(InferenceContext* c) {
  PartialShape boxes, scores, size;
  TW_RETURN_IF_ERROR(c->WithRank(0, 3, &boxes));
  TW_RETURN_IF_ERROR(c->WithRank(1, 2, &scores));
  TW_RETURN_IF_ERROR(c->WithRank(2, 0, &size));
  int64_t count = -1;
  const Tensor* t = c->input_value(2);
  if (t != nullptr && t->num_elements() == 1) {
    count = t->data<int32_t>()[0];
  }
  c->set_output(0, PartialShape({boxes.dim(0), count}));
  c->set_output(1, PartialShape({boxes.dim(0)}));
  return Status::OK();
}

// rois [N, post_nms_topn, 4] and roi_probabilities [N, post_nms_topn]; the
// inputs' ranks as TensorFlow checks them (their sizes are the kernel's).
Status BoxProposalsShape(InferenceContext* c) {
  PartialShape scores, unused;
  TW_RETURN_IF_ERROR(c->WithRank(0, 4, &scores));
  TW_RETURN_IF_ERROR(c->WithRank(1, 4, &unused));
  TW_RETURN_IF_ERROR(c->WithRank(2, 2, &unused));
  TW_RETURN_IF_ERROR(c->WithRank(3, 3, &unused));
  for (int i = 4; i <= 6; ++i) TW_RETURN_IF_ERROR(c->WithRank(i, 0, &unused));
  int64_t post_nms_topn;
  TW_RETURN_IF_ERROR(c->GetAttr("post_nms_topn", &post_nms_topn));
  if (post_nms_topn < 0) {
    return errors::InvalidArgument("post_nms_topn can't be 0 or less, got ",
                                   post_nms_topn);
  }
  c->set_output(0, PartialShape({scores.dim(0), post_nms_topn, 4}));
  c->set_output(1, PartialShape({scores.dim(0), post_nms_topn}));
  return Status::OK();
}

Status GlimpseShape(InferenceContext* c) {
  PartialShape input, size, offsets;
  TW_RETURN_IF_ERROR(c->WithRank(0, 4, &input));
  TW_RETURN_IF_ERROR(c->WithRank(1, 1, &size));
  TW_RETURN_IF_ERROR(c->WithRank(2, 2, &offsets));
  if (size.dim(0) >= 0 && size.dim(0) != 2) {
    return errors::InvalidArgument("size must have 2 elements, got ",
                                   size.ToString());
  }
  if (offsets.dim(0) >= 0 && input.dim(0) >= 0 &&
      offsets.dim(0) != input.dim(0)) {
    return errors::InvalidArgument("offsets ", offsets.ToString(),
                                   " and input ", input.ToString(),
                                   " differ in the batch dimension");
  }
  bool uniform_noise = true;
  std::string noise;
  TW_RETURN_IF_ERROR(c->GetAttr("uniform_noise", &uniform_noise));
  TW_RETURN_IF_ERROR(c->GetAttr("noise", &noise));
  if (uniform_noise && !noise.empty() && noise != "uniform") {
    return errors::InvalidArgument(
        "The uniform_noise should not be True when noise is not uniform, got "
        "noise '",
        noise, "'");
  }
  if (offsets.dim(1) >= 0 && offsets.dim(1) != 2) {
    return errors::InvalidArgument("offsets must have shape [batch, 2], got ",
                                   offsets.ToString());
  }
  std::vector<int64_t> dims = {input.dim(0), -1, -1, input.dim(3)};
  const Tensor* t = c->input_value(1);
  if (t != nullptr && t->num_elements() == 2) {
    dims[1] = t->data<int32_t>()[0];
    dims[2] = t->data<int32_t>()[1];
  }
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status VolumePatchesShape(InferenceContext* c) {
  std::vector<int64_t> ksizes, strides;
  std::string padding;
  TW_RETURN_IF_ERROR(c->GetAttr("ksizes", &ksizes));
  TW_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  TW_RETURN_IF_ERROR(c->GetAttr("padding", &padding));
  for (const auto* v : {&ksizes, &strides}) {
    if (v->size() != 5) {
      return errors::Unimplemented(
          "Only support ksizes and strides of the form [1, p, r, c, 1] across "
          "the batch and depth dimensions.");
    }
  }
  PartialShape in;
  TW_RETURN_IF_ERROR(c->WithRank(0, 5, &in));
  for (int d = 0; d <= 4; ++d) {
    const bool inner = d >= 1 && d <= 3;
    if ((inner && (ksizes[d] < 1 || ksizes[d] > (1 << 20) || strides[d] < 1)) ||
        (!inner && (ksizes[d] != 1 || strides[d] != 1))) {
      // As TensorFlow's, the graph builds; the kernel rejects the sizes.
      c->set_output(0, PartialShape({-1, -1, -1, -1, -1}));
      return Status::OK();
    }
  }
  std::vector<int64_t> dims = in.dims();
  for (int d = 1; d <= 3; ++d) {
    if (dims[d] < 0) continue;
    if (padding == "VALID") {
      dims[d] =
          dims[d] < ksizes[d] ? 0 : (dims[d] - ksizes[d]) / strides[d] + 1;
    } else {
      dims[d] = dims[d] == 0 ? 0 : (dims[d] - 1) / strides[d] + 1;
    }
  }
  if (dims[4] >= 0) dims[4] *= ksizes[1] * ksizes[2] * ksizes[3];
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

}  // namespace

#define TW_SAMPLE_BOX_ATTRS                                   \
  Attr("T: {uint8, int8, int16, int32, int64}")               \
      .Attr("aspect_ratio_range: list(float) = [0.75, 1.33]") \
      .Attr("area_range: list(float) = [0.05, 1.0]")          \
      .Attr("max_attempts: int = 100")                        \
      .Attr("use_image_if_no_bounding_boxes: bool = false")

REGISTER_OP("SampleDistortedBoundingBox")
    .Input("image_size: T")
    .Input("bounding_boxes: float32")
    .Output("begin: T")
    .Output("size: T")
    .Output("bboxes: float32")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("min_object_covered: float = 0.1")
    .TW_SAMPLE_BOX_ATTRS.SetIsStateful()
    .SetShapeFn(SampleBoxShape)
    .Doc(
        "A random crop [begin, size] of an image of image_size = [h, w, c] "
        "covering at least min_object_covered of one of the bounding_boxes, "
        "with aspect ratio and area in the given ranges; the whole image "
        "when max_attempts tries find none.");

REGISTER_OP("SampleDistortedBoundingBoxV2")
    .Input("image_size: T")
    .Input("bounding_boxes: float32")
    .Input("min_object_covered: float32")
    .Output("begin: T")
    .Output("size: T")
    .Output("bboxes: float32")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .TW_SAMPLE_BOX_ATTRS.SetIsStateful()
    .SetShapeFn(SampleBoxShape)
    .Doc("SampleDistortedBoundingBox with min_object_covered a tensor.");

REGISTER_OP("StatelessSampleDistortedBoundingBox")
    .Input("image_size: T")
    .Input("bounding_boxes: float32")
    .Input("min_object_covered: float32")
    .Input("seed: Tseed")
    .Output("begin: T")
    .Output("size: T")
    .Output("bboxes: float32")
    .Attr("Tseed: {int32, int64}")
    .TW_SAMPLE_BOX_ATTRS.SetShapeFn(SampleBoxShape)
    .Doc(
        "SampleDistortedBoundingBoxV2 whose crop is a function of the [2] "
        "seed.");
#undef TW_SAMPLE_BOX_ATTRS

REGISTER_OP("CombinedNonMaxSuppression")
    .Input("boxes: float32")
    .Input("scores: float32")
    .Input("max_output_size_per_class: int32")
    .Input("max_total_size: int32")
    .Input("iou_threshold: float32")
    .Input("score_threshold: float32")
    .Output("nmsed_boxes: float32")
    .Output("nmsed_scores: float32")
    .Output("nmsed_classes: float32")
    .Output("valid_detections: int32")
    .Attr("pad_per_class: bool = false")
    .Attr("clip_boxes: bool = true")
    .SetShapeFn(CombinedNmsShape)
    .Doc(
        "Greedy non-max suppression per image and class, the survivors of "
        "all classes merged by score into max_total_size zero-padded rows.");

REGISTER_OP("NonMaxSuppressionPaddedTiled")
    .Input("boxes: float32")
    .Input("scores: float32")
    .Input("max_output_size: int32")
    .Input("iou_threshold: float32")
    .Input("score_threshold: float32")
    .Output("selected_indices: int32")
    .Output("valid_outputs: int32")
    .Attr("sorted_input: bool = false")
    .Attr("canonicalized_coordinates: bool = false")
    .Attr("tile_size: int = 512")
    .Attr("filter_scores: bool = true")
    .SetShapeFn(NmsPaddedShape)
    .Doc(
        "tf.image.non_max_suppression_padded's tiled suppression over "
        "[batch, num_boxes, 4] boxes: boxes are suppressed tile by tile (IoU "
        ">= iou_threshold), the survivors' indices padded with 0 to "
        "max_output_size.");

#define TW_GLIMPSE_OP(Name)               \
  REGISTER_OP(Name)                       \
      .Input("input: float32")            \
      .Input("size: int32")               \
      .Input("offsets: float32")          \
      .Output("glimpse: float32")         \
      .Attr("centered: bool = true")      \
      .Attr("normalized: bool = true")    \
      .Attr("uniform_noise: bool = true") \
      .Attr("noise: string = 'uniform'")  \
      .SetShapeFn(GlimpseShape)
TW_GLIMPSE_OP("ExtractGlimpse")
    .Doc(
        "Windows of size [h, w] of each image at offsets [y, x] (normalized or "
        "in "
        "pixels, from the centre or the corner); outside the image is noise.");
TW_GLIMPSE_OP("ExtractGlimpseV2")
    .Doc("ExtractGlimpse with the offsets of TensorFlow 2's extract_glimpse.");
#undef TW_GLIMPSE_OP

REGISTER_OP("ExtractVolumePatches")
    .Input("input: T")
    .Output("patches: T")
    .Attr("ksizes: list(int) >= 5")
    .Attr("strides: list(int) >= 5")
    .Attr(
        "T: {float32, float64, int32, int64, uint8, int8, int16, uint16, "
        "uint32, uint64, float16}")
    .Attr("padding: {'SAME', 'VALID'}")
    .SetShapeFn(VolumePatchesShape)
    .Doc(
        "Each ksizes window of an NDHWC volume (moved by strides) flattened "
        "into the depth dimension; outside the volume is zero.");

REGISTER_OP("GenerateBoundingBoxProposals")
    .Input("scores: float32")
    .Input("bbox_deltas: float32")
    .Input("image_info: float32")
    .Input("anchors: float32")
    .Input("nms_threshold: float32")
    .Input("pre_nms_topn: int32")
    .Input("min_size: float32")
    .Output("rois: float32")
    .Output("roi_probabilities: float32")
    .Attr("post_nms_topn: int = 300")
    .SetShapeFn(BoxProposalsShape)
    .Doc(
        "Region proposals (Faster R-CNN, arXiv:1506.01497 eq. 2): per image, "
        "the pre_nms_topn highest scores [N, H, W, A] have their anchors "
        "[H, W, 4A] ([y1, x1, y2, x2]) moved by bbox_deltas [N, H, W, 4A] "
        "([dy, dx, dh, dw]), clipped to the image (image_info [N, 5]: height, "
        "width, scale, ...); boxes with a side below min_size * scale are "
        "dropped, the rest go through greedy non-max suppression (IoU > "
        "nms_threshold) and the first post_nms_topn survivors [y1, x1, y2, x2] "
        "and their scores are the outputs, zero-padded.");

}  // namespace tensorweave

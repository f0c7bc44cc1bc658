// Fractional max and average pooling (Graham, "Fractional Max-Pooling",
// arXiv:1412.6071) and their gradients, as TensorFlow defines them: NHWC
// input, pooling regions whose row and column boundaries are random
// sequences with steps of floor(ratio) or ceil(ratio).
#include <algorithm>
#include <cmath>

#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

// output [floor(dim / ratio) per dimension, in float32 as TensorFlow
// computes it], row_pooling_sequence [rows + 1], col_pooling_sequence
// [cols + 1]. (TensorFlow's shape function gives the sequences [rows] and
// [cols], one less than its kernel returns; these are the kernel's.)
Status FractionalPoolShape(InferenceContext* c) {
  std::vector<float> ratio;
  TW_RETURN_IF_ERROR(c->GetAttr("pooling_ratio", &ratio));
  if (ratio.size() != 4) {
    return errors::InvalidArgument(
        "pooling_ratio field must specify 4 dimensions, got ", ratio.size());
  }
  for (float r : ratio) {
    if (!(r >= 1.0f)) {
      return errors::InvalidArgument(
          "pooling_ratio cannot be smaller than 1, got: ", r);
    }
  }
  PartialShape input;
  TW_RETURN_IF_ERROR(c->WithRank(0, 4, &input));
  std::vector<int64_t> dims(4, -1);
  for (int i = 0; i < 4; ++i) {
    const int64_t d = input.dim(i);
    if (d < 0) continue;
    // As the kernel: batch and depth (ratio 1) are kept; a pooled size
    // never exceeds its input's (float rounding past 2^24).
    const bool kept = (i == 0 || i == 3) && ratio[i] == 1.0f;
    dims[i] = kept ? d
                   : std::min(d, static_cast<int64_t>(std::floor(
                                     static_cast<float>(d) / ratio[i])));
  }
  c->set_output(0, PartialShape(dims));
  c->set_output(1, PartialShape({dims[1] >= 0 ? dims[1] + 1 : -1}));
  c->set_output(2, PartialShape({dims[2] >= 0 ? dims[2] + 1 : -1}));
  return Status::OK();
}

Status SequenceInputs(InferenceContext* c, int first) {
  PartialShape unused;
  TW_RETURN_IF_ERROR(c->WithRank(first, 1, &unused));
  return c->WithRank(first + 1, 1, &unused);
}

Status FractionalMaxPoolGradShape(InferenceContext* c) {
  PartialShape input, unused;
  TW_RETURN_IF_ERROR(c->WithRank(0, 4, &input));
  TW_RETURN_IF_ERROR(c->WithRank(1, 4, &unused));
  TW_RETURN_IF_ERROR(c->WithRank(2, 4, &unused));
  TW_RETURN_IF_ERROR(SequenceInputs(c, 3));
  c->set_output(0, input);
  return Status::OK();
}

Status FractionalAvgPoolGradShape(InferenceContext* c) {
  PartialShape shape, unused;
  TW_RETURN_IF_ERROR(c->WithRank(0, 1, &unused));
  TW_RETURN_IF_ERROR(c->WithRank(1, 4, &unused));
  TW_RETURN_IF_ERROR(SequenceInputs(c, 2));
  TW_RETURN_IF_ERROR(c->ShapeFromShapeInput(0, &shape));
  if (!shape.known_rank()) shape = PartialShape::Unknown(4);
  if (shape.rank() != 4) {
    return errors::InvalidArgument(
        "orig_input_tensor_shape must have 4 elements, got ", shape.rank());
  }
  c->set_output(0, shape);
  return Status::OK();
}

}  // namespace

#define TW_FRACTIONAL_POOL_OP(Name)                \
  REGISTER_OP(Name)                                \
      .Input("value: T")                           \
      .Output("output: T")                         \
      .Output("row_pooling_sequence: int64")       \
      .Output("col_pooling_sequence: int64")       \
      .Attr("pooling_ratio: list(float) >= 4")     \
      .Attr("pseudo_random: bool = false")         \
      .Attr("overlapping: bool = false")           \
      .Attr("deterministic: bool = false")         \
      .Attr("seed: int = 0")                       \
      .Attr("seed2: int = 0")                      \
      .Attr("T: {float32, float64, int32, int64}") \
      .SetIsStateful()                             \
      .SetShapeFn(FractionalPoolShape)

TW_FRACTIONAL_POOL_OP("FractionalMaxPool")
    .Doc(
        "The maximum of each pooling region of value [N,H,W,C]: region (i, j) "
        "spans rows row_pooling_sequence[i] up to row_pooling_sequence[i+1] "
        "(included when overlapping, excluded otherwise) and likewise for "
        "columns. The sequences start at 0, end at H (W) and step by "
        "floor(ratio) or ceil(ratio): pseudo-random (ceil(alpha * (i + u)) "
        "for one uniform u) or random (a shuffle of the steps). "
        "deterministic: the same sequences every run, from seed and seed2 "
        "(random ones when both are 0); otherwise seed and seed2 must be 0 "
        "and each run draws new sequences.");

TW_FRACTIONAL_POOL_OP("FractionalAvgPool")
    .Doc(
        "FractionalMaxPool with the mean of each pooling region instead of "
        "its maximum (an integer mean rounds toward zero).");
#undef TW_FRACTIONAL_POOL_OP

REGISTER_OP("FractionalMaxPoolGrad")
    .Input("orig_input: T")
    .Input("orig_output: T")
    .Input("out_backprop: T")
    .Input("row_pooling_sequence: int64")
    .Input("col_pooling_sequence: int64")
    .Output("output: T")
    .Attr("overlapping: bool = false")
    .Attr("T: {float32, float64, int32, int64}")
    .SetShapeFn(FractionalMaxPoolGradShape)
    .Doc(
        "FractionalMaxPool's gradient with respect to orig_input: each "
        "out_backprop element goes to the first maximum of its pooling "
        "region of orig_input (regions from the two sequences).");

REGISTER_OP("FractionalAvgPoolGrad")
    .Input("orig_input_tensor_shape: int64")
    .Input("out_backprop: T")
    .Input("row_pooling_sequence: int64")
    .Input("col_pooling_sequence: int64")
    .Output("output: T")
    .Attr("overlapping: bool = false")
    .Attr("T: {float32, float64, int32, int64}")
    .SetShapeFn(FractionalAvgPoolGradShape)
    .Doc(
        "FractionalAvgPool's gradient with respect to its input (of shape "
        "orig_input_tensor_shape): each out_backprop element is spread evenly "
        "over its pooling region.");

}  // namespace tensorweave

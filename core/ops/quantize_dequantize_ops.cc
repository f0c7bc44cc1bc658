// QuantizeAndDequantizeV2/V3/V4 and V4's gradient: a float tensor rounded to
// the grid of num_bits-bit integers that covers [min, max] (given, or the
// input's own range), per tensor or per slice of `axis`, as TensorFlow's.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

// min and max (inputs 1 and 2): scalars, or vectors of the input's `axis`
// dimension when axis != -1 (also when the range is not given and unread).
Status RangeShapes(InferenceContext* c) {
  int64_t axis;
  TW_RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  const PartialShape& in = c->input(0);
  if (axis < -1) {
    return errors::InvalidArgument("axis should be at least -1, got ", axis);
  }
  if (axis != -1 && in.known_rank() && axis >= in.rank()) {
    return errors::InvalidArgument("axis should be less than the input's rank ",
                                   in.rank(), ", got ", axis);
  }
  for (int i = 1; i <= 2; ++i) {
    PartialShape range;
    TW_RETURN_IF_ERROR(c->WithRank(i, axis == -1 ? 0 : 1, &range));
    if (axis != -1 && in.known_rank() && range.dim(0) >= 0 &&
        in.dim(static_cast<int>(axis)) >= 0 &&
        range.dim(0) != in.dim(static_cast<int>(axis))) {
      return errors::InvalidArgument(
          "input_min and input_max need one value per index of axis ", axis,
          ", got ", c->InputShapesString());
    }
  }
  c->set_output(0, in);
  return Status::OK();
}

Status GradShape(InferenceContext* c) {
  PartialShape merged;
  if (!c->input(0).Merge(c->input(1), &merged).ok()) {
    return errors::InvalidArgument(
        "gradients and input must have the same shape, got ",
        c->InputShapesString());
  }
  int64_t axis;
  TW_RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  c->set_output(0, merged);
  c->set_output(1, c->input(2));
  c->set_output(2, c->input(3));
  return Status::OK();
}

}  // namespace

// V2 and V4 take the same inputs and attrs; only their gradients differ.
#define QUANTIZE_AND_DEQUANTIZE_OP(name, doc)                           \
  REGISTER_OP(name)                                                     \
      .Input("input: T")                                                \
      .Input("input_min: T")                                            \
      .Input("input_max: T")                                            \
      .Output("output: T")                                              \
      .Attr("signed_input: bool = true")                                \
      .Attr("num_bits: int = 8")                                        \
      .Attr("range_given: bool = false")                                \
      .Attr("T: {bfloat16, half, float32, float64}")                    \
      .Attr("round_mode: {'HALF_TO_EVEN', 'HALF_UP'} = 'HALF_TO_EVEN'") \
      .Attr("narrow_range: bool = false")                               \
      .Attr("axis: int = -1")                                           \
      .SetShapeFn(RangeShapes)                                          \
      .Doc(doc)

QUANTIZE_AND_DEQUANTIZE_OP(
    "QuantizeAndDequantizeV2",
    "input rounded to the grid of num_bits-bit integers covering [input_min, "
    "input_max] (range_given) or the input's own range, and back to floats.");
QUANTIZE_AND_DEQUANTIZE_OP(
    "QuantizeAndDequantizeV4",
    "QuantizeAndDequantizeV2 whose gradient is zero outside the range.");

REGISTER_OP("QuantizeAndDequantizeV3")
    .Input("input: T")
    .Input("input_min: T")
    .Input("input_max: T")
    .Input("num_bits: int32")
    .Output("output: T")
    .Attr("signed_input: bool = true")
    .Attr("range_given: bool = true")
    .Attr("T: {bfloat16, half, float32, float64}")
    .Attr("narrow_range: bool = false")
    .Attr("axis: int = -1")
    .SetShapeFn([](InferenceContext* c) {
      PartialShape unused;
      TW_RETURN_IF_ERROR(c->WithRank(3, 0, &unused));
      return RangeShapes(c);
    })
    .Doc("QuantizeAndDequantizeV2 with num_bits a tensor.");

REGISTER_OP("QuantizeAndDequantizeV4Grad")
    .Input("gradients: T")
    .Input("input: T")
    .Input("input_min: T")
    .Input("input_max: T")
    .Output("input_backprop: T")
    .Output("input_min_backprop: T")
    .Output("input_max_backprop: T")
    .Attr("T: {bfloat16, half, float32, float64}")
    .Attr("axis: int = -1")
    .SetShapeFn(GradShape)
    .Doc(
        "The gradient of QuantizeAndDequantizeV4: gradients where input is in "
        "[input_min, input_max], else 0; zeros for the range.");

}  // namespace tensorweave

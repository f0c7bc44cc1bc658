// Fake quantization (quantization-aware training): float tensors rounded to
// the grid of num_bits-bit integers between a nudged [min, max], with
// straight-through gradients, as TensorFlow's FakeQuantWithMinMax* ops.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

// Input `i` merged with input 0's shape (a gradient and its inputs).
Status SameAsInputs(InferenceContext* c, int i, PartialShape* out) {
  if (!c->input(0).Merge(c->input(i), out).ok()) {
    return errors::InvalidArgument(
        "gradients and inputs must have the same "
        "shape, got ",
        c->InputShapesString());
  }
  return Status::OK();
}

// min and max (inputs `first`, `first + 1`): scalars.
Status ScalarRange(InferenceContext* c, int first) {
  PartialShape unused;
  TW_RETURN_IF_ERROR(c->WithRank(first, 0, &unused));
  return c->WithRank(first + 1, 0, &unused);
}

// min and max (inputs `first`, `first + 1`): vectors as long as the last
// dimension of `shape`, which has rank 1 to 4; returns that length.
Status ChannelRange(InferenceContext* c, int first, const PartialShape& shape,
                    int64_t* channels) {
  if (shape.known_rank() && (shape.rank() < 1 || shape.rank() > 4)) {
    return errors::InvalidArgument("inputs must have rank 1 to 4, got ",
                                   shape.ToString());
  }
  *channels = shape.known_rank() ? shape.dim(shape.rank() - 1) : -1;
  for (int i = first; i < first + 2; ++i) {
    PartialShape range;
    TW_RETURN_IF_ERROR(c->WithRank(i, 1, &range));
    if (*channels < 0) {
      *channels = range.dim(0);
    } else if (range.dim(0) >= 0 && range.dim(0) != *channels) {
      return errors::InvalidArgument(
          "Dimensions must be equal, but are ", *channels, " and ",
          range.dim(0),
          ": min and max need one value per channel (the last "
          "dimension of inputs), got ",
          c->InputShapesString());
    }
  }
  return Status::OK();
}

Status VarsShape(InferenceContext* c) {
  TW_RETURN_IF_ERROR(ScalarRange(c, 1));
  c->set_output(0, c->input(0));
  return Status::OK();
}

Status VarsGradientShape(InferenceContext* c) {
  PartialShape inputs;
  TW_RETURN_IF_ERROR(SameAsInputs(c, 1, &inputs));
  TW_RETURN_IF_ERROR(ScalarRange(c, 2));
  c->set_output(0, inputs);
  c->set_output(1, PartialShape(std::vector<int64_t>{}));
  c->set_output(2, PartialShape(std::vector<int64_t>{}));
  return Status::OK();
}

Status PerChannelShape(InferenceContext* c) {
  int64_t channels;
  TW_RETURN_IF_ERROR(ChannelRange(c, 1, c->input(0), &channels));
  c->set_output(0, c->input(0));
  return Status::OK();
}

Status PerChannelGradientShape(InferenceContext* c) {
  PartialShape inputs;
  TW_RETURN_IF_ERROR(SameAsInputs(c, 1, &inputs));
  int64_t channels;
  TW_RETURN_IF_ERROR(ChannelRange(c, 2, inputs, &channels));
  c->set_output(0, inputs);
  c->set_output(1, PartialShape({channels}));
  c->set_output(2, PartialShape({channels}));
  return Status::OK();
}

}  // namespace

REGISTER_OP("FakeQuantWithMinMaxArgs")
    .Input("inputs: float")
    .Output("outputs: float")
    .Attr("min: float = -6.0")
    .Attr("max: float = 6.0")
    .Attr("num_bits: int = 8")
    .Attr("narrow_range: bool = false")
    .SetShapeFn(shape_fns::Unchanged)
    .Doc(
        "inputs clamped to [min, max] (nudged so that 0 is on the grid) and "
        "rounded to one of its 2^num_bits levels (2^num_bits - 1 with "
        "narrow_range).");

REGISTER_OP("FakeQuantWithMinMaxArgsGradient")
    .Input("gradients: float")
    .Input("inputs: float")
    .Output("backprops: float")
    .Attr("min: float = -6.0")
    .Attr("max: float = 6.0")
    .Attr("num_bits: int = 8")
    .Attr("narrow_range: bool = false")
    .SetShapeFn([](InferenceContext* c) {
      PartialShape inputs;
      TW_RETURN_IF_ERROR(SameAsInputs(c, 1, &inputs));
      c->set_output(0, inputs);
      return Status::OK();
    })
    .Doc("gradients where inputs lie within the nudged [min, max], else 0.");

REGISTER_OP("FakeQuantWithMinMaxVars")
    .Input("inputs: float")
    .Input("min: float")
    .Input("max: float")
    .Output("outputs: float")
    .Attr("num_bits: int = 8")
    .Attr("narrow_range: bool = false")
    .SetShapeFn(VarsShape)
    .Doc("FakeQuantWithMinMaxArgs with min and max given as scalar tensors.");

REGISTER_OP("FakeQuantWithMinMaxVarsGradient")
    .Input("gradients: float")
    .Input("inputs: float")
    .Input("min: float")
    .Input("max: float")
    .Output("backprops_wrt_input: float")
    .Output("backprop_wrt_min: float")
    .Output("backprop_wrt_max: float")
    .Attr("num_bits: int = 8")
    .Attr("narrow_range: bool = false")
    .SetShapeFn(VarsGradientShape)
    .Doc(
        "gradients within the nudged range; the sums of those below it (for "
        "min) and above it (for max).");

REGISTER_OP("FakeQuantWithMinMaxVarsPerChannel")
    .Input("inputs: float")
    .Input("min: float")
    .Input("max: float")
    .Output("outputs: float")
    .Attr("num_bits: int = 8")
    .Attr("narrow_range: bool = false")
    .SetShapeFn(PerChannelShape)
    .Doc(
        "FakeQuantWithMinMaxVars with one [min, max] per channel (the last "
        "dimension of inputs).");

REGISTER_OP("FakeQuantWithMinMaxVarsPerChannelGradient")
    .Input("gradients: float")
    .Input("inputs: float")
    .Input("min: float")
    .Input("max: float")
    .Output("backprops_wrt_input: float")
    .Output("backprop_wrt_min: float")
    .Output("backprop_wrt_max: float")
    .Attr("num_bits: int = 8")
    .Attr("narrow_range: bool = false")
    .SetShapeFn(PerChannelGradientShape)
    .Doc("FakeQuantWithMinMaxVarsGradient per channel.");

}  // namespace tensorweave

// StatelessRandomBinomial and StatelessParameterizedTruncatedNormal: draws of
// the given shape whose parameters broadcast to its trailing dims; the values
// are TensorFlow's for the same [2] seed.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

Status SeedIsPair(InferenceContext* c) {
  PartialShape seed;
  TW_RETURN_IF_ERROR(c->WithRank(1, 1, &seed));
  if (seed.dim(0) >= 0 && seed.dim(0) != 2) {
    return errors::InvalidArgument("seed must have shape [2], not ",
                                   seed.ToString());
  }
  return Status::OK();
}

// The output has the shape that input 0 names; the kNumParams parameters
// from input kFirstParam must broadcast against each other (checked at run
// time only for none, as TensorFlow's StatelessRandomBinomial).
template <int kFirstParam, int kNumParams>
Status StatelessParamsShape(InferenceContext* c) {
  TW_RETURN_IF_ERROR(SeedIsPair(c));
  PartialShape params = kNumParams > 0 ? c->input(kFirstParam) : PartialShape();
  for (int i = kFirstParam + 1; i < kFirstParam + kNumParams; ++i) {
    PartialShape next;
    TW_RETURN_IF_ERROR(
        InferenceContext::BroadcastShapes(params, c->input(i), &next));
    params = next;
  }
  PartialShape shape;
  TW_RETURN_IF_ERROR(c->ShapeFromShapeInput(0, &shape));
  c->set_output(0, shape);
  return Status::OK();
}

}  // namespace

REGISTER_OP("StatelessRandomBinomial")
    .Input("shape: S")
    .Input("seed: Tseed")
    .Input("counts: T")
    .Input("probs: T")
    .Output("output: dtype")
    .Attr("S: {int32, int64}")
    .Attr("Tseed: {int32, int64} = int64")
    .Attr("T: {float16, float32, float64, int32, int64} = float64")
    .Attr("dtype: {float16, float32, float64, int32, int64} = int64")
    .SetShapeFn(StatelessParamsShape<2, 0>)
    .Doc(
        "Binomial(counts, probs) draws of the given shape (counts and probs "
        "broadcast to its trailing dims), from seed: inversion below "
        "counts * probs = 10, Hormann's BTRS above. Kernels for float16, "
        "float32 and float64 counts and probs, as TensorFlow's.");

REGISTER_OP("StatelessParameterizedTruncatedNormal")
    .Input("shape: S")
    .Input("seed: Tseed")
    .Input("means: dtype")
    .Input("stddevs: dtype")
    .Input("minvals: dtype")
    .Input("maxvals: dtype")
    .Output("output: dtype")
    .Attr("S: {int32, int64}")
    .Attr("Tseed: {int32, int64} = int64")
    .Attr("dtype: {float16, float32, float64}")
    .SetShapeFn(StatelessParamsShape<2, 4>)
    .Doc(
        "Normal(means, stddevs) draws within [minvals, maxvals] of the given "
        "shape (the parameters broadcast to its trailing dims), from seed, by "
        "rejection: normal, uniform or exponential proposals.");

}  // namespace tensorweave

// Random draws from parameterized distributions: RandomGamma and
// RandomPoissonV2. The output is [shape..., parameter's shape...]: `shape`
// draws for each parameter value. Seeded as the other random ops (seed,
// seed2; both 0 means nondeterministic).
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

Status DrawsShape(InferenceContext* c) {
  PartialShape shape;
  TW_RETURN_IF_ERROR(c->ShapeFromShapeInput(0, &shape));
  const PartialShape& param = c->input(1);
  if (!shape.known_rank() || !param.known_rank()) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < shape.rank(); ++i) dims.push_back(shape.dim(i));
  for (int i = 0; i < param.rank(); ++i) dims.push_back(param.dim(i));
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

}  // namespace

REGISTER_OP("RandomGamma")
    .Input("shape: S")
    .Input("alpha: T")
    .Output("output: T")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("S: {int32, int64}")
    .Attr("T: {float16, float32, float64}")
    .SetIsStateful()
    .SetShapeFn(DrawsShape)
    .Doc(
        "Draws from Gamma(alpha, 1) (Marsaglia and Tsang's method), `shape` "
        "for each alpha.");

REGISTER_OP("RandomPoissonV2")
    .Input("shape: S")
    .Input("rate: R")
    .Output("output: dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("S: {int32, int64}")
    .Attr("R: {float16, float32, float64, int32, int64} = float64")
    .Attr("dtype: {float16, float32, float64, int32, int64} = int64")
    .SetIsStateful()
    .SetShapeFn(DrawsShape)
    .Doc(
        "Draws from Poisson(rate), `shape` for each rate (products of "
        "uniforms below rate 10, transformed rejection above).");

}  // namespace tensorweave

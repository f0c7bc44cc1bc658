// Random ops. Each node draws from its own counter-based generator (Philox)
// seeded by (seed, seed2): with a seed, the values of every run of a fresh
// session are the same; without (both 0), they differ each time.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

Status RandomShape(InferenceContext* c) {
  PartialShape shape;
  TW_RETURN_IF_ERROR(c->ShapeFromShapeInput(0, &shape));
  c->set_output(0, shape);
  return Status::OK();
}

}  // namespace

#define TW_RANDOM_OP(Name, DocText)          \
  REGISTER_OP(Name)                          \
      .Input("shape: T")                     \
      .Output("output: dtype")               \
      .Attr("seed: int = 0")                 \
      .Attr("seed2: int = 0")                \
      .Attr("dtype: {float32, float64}")     \
      .Attr("T: {int32, int64}")             \
      .SetIsStateful()                       \
      .SetShapeFn(RandomShape)               \
      .Doc(DocText)

TW_RANDOM_OP("RandomUniform", "Uniform values in [0, 1).");
TW_RANDOM_OP("RandomStandardNormal", "Normal values, mean 0, stddev 1.");
TW_RANDOM_OP("TruncatedNormal",
             "Normal values, mean 0, stddev 1, redrawn when more than 2 "
             "stddevs from the mean.");
#undef TW_RANDOM_OP

}  // namespace tensorweave

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

Status StatelessShape(InferenceContext* c) {
  PartialShape seed;
  TW_RETURN_IF_ERROR(c->WithRank(1, 1, &seed));
  if (seed.dim(0) >= 0 && seed.dim(0) != 2) {
    return errors::InvalidArgument("seed must have shape [2], not ",
                                   seed.ToString());
  }
  PartialShape shape;
  TW_RETURN_IF_ERROR(c->ShapeFromShapeInput(0, &shape));
  c->set_output(0, shape);
  return Status::OK();
}

Status StatelessMultinomialShape(InferenceContext* c) {
  PartialShape logits, unused;
  TW_RETURN_IF_ERROR(c->WithRank(0, 2, &logits));
  TW_RETURN_IF_ERROR(c->WithRank(1, 0, &unused));
  TW_RETURN_IF_ERROR(c->WithRank(2, 1, &unused));
  int64_t num_samples = -1;
  if (const Tensor* t = c->input_value(1)) {
    std::vector<int64_t> v;
    TW_RETURN_IF_ERROR(ReadIndexVector(*t, &v));
    num_samples = v[0];
  }
  c->set_output(0, PartialShape({logits.dim(0), num_samples}));
  return Status::OK();
}

}  // namespace

// Stateless random ops: the values are a function of `seed` (a [2] tensor)
// and the shape alone, the same in every run.
#define TW_STATELESS_OP(Name, DocText)                                \
  REGISTER_OP(Name)                                                   \
      .Input("shape: T")                                              \
      .Input("seed: Tseed")                                           \
      .Output("output: dtype")                                        \
      .Attr("dtype: {float16, bfloat16, float32, float64} = float32") \
      .Attr("T: {int32, int64} = int32")                              \
      .Attr("Tseed: {int32, int64} = int64")                          \
      .SetShapeFn(StatelessShape)                                     \
      .Doc(DocText)

TW_STATELESS_OP("StatelessRandomUniform",
                "Uniform values in [0, 1), from seed.");
TW_STATELESS_OP("StatelessRandomNormal", "Normal values (0, 1), from seed.");
TW_STATELESS_OP("StatelessTruncatedNormal",
                "Normal values (0, 1) within 2 stddevs, from seed.");
#undef TW_STATELESS_OP

REGISTER_OP("StatelessRandomUniformInt")
    .Input("shape: T")
    .Input("seed: Tseed")
    .Input("minval: dtype")
    .Input("maxval: dtype")
    .Output("output: dtype")
    .Attr("dtype: {int32, int64}")
    .Attr("T: {int32, int64}")
    .Attr("Tseed: {int32, int64} = int64")
    .SetShapeFn(StatelessShape)
    .Doc("Uniform integers in [minval, maxval), from seed.");

REGISTER_OP("StatelessMultinomial")
    .Input("logits: T")
    .Input("num_samples: int32")
    .Input("seed: Tseed")
    .Output("output: output_dtype")
    .Attr("T: {float16, float32, float64}")
    .Attr("Tseed: {int32, int64} = int64")
    .Attr("output_dtype: {int32, int64} = int64")
    .SetShapeFn(StatelessMultinomialShape)
    .Doc("Draws of class indices from each row of logits, from seed.");

REGISTER_OP("StatelessRandomGammaV2")
    .Input("shape: T")
    .Input("seed: Tseed")
    .Input("alpha: dtype")
    .Output("output: dtype")
    .Attr("dtype: {float16, float32, float64}")
    .Attr("T: {int32, int64}")
    .Attr("Tseed: {int32, int64} = int64")
    .SetShapeFn(StatelessShape)
    .Doc(
        "Draws from Gamma(alpha, 1) of the given shape (alpha a scalar or of "
        "its trailing shape), from seed.");

REGISTER_OP("StatelessRandomPoisson")
    .Input("shape: T")
    .Input("seed: Tseed")
    .Input("lam: Rtype")
    .Output("output: dtype")
    .Attr("Rtype: {float16, float32, float64, int32, int64}")
    .Attr("dtype: {float16, float32, float64, int32, int64}")
    .Attr("T: {int32, int64}")
    .Attr("Tseed: {int32, int64} = int64")
    .SetShapeFn(StatelessShape)
    .Doc(
        "Draws from Poisson(lam) of the given shape (lam a scalar or of its "
        "trailing shape), from seed.");

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

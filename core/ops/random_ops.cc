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

Status MultinomialShape(InferenceContext* c) {
  PartialShape logits, unused;
  TW_RETURN_IF_ERROR(c->WithRank(0, 2, &logits));
  TW_RETURN_IF_ERROR(c->WithRank(1, 0, &unused));
  int64_t num_samples = -1;
  if (c->input_value(1) != nullptr) {
    std::vector<int64_t> value;
    TW_RETURN_IF_ERROR(ReadIndexVector(*c->input_value(1), &value));
    num_samples = value[0];
    if (num_samples < 0) {
      return errors::InvalidArgument("num_samples should be nonnegative, got ",
                                     num_samples);
    }
  }
  c->set_output(0, PartialShape({logits.dim(0), num_samples}));
  return Status::OK();
}

}  // namespace

#define TW_RANDOM_OP(Name, DocText)                         \
  REGISTER_OP(Name)                                         \
      .Input("shape: T")                                    \
      .Output("output: dtype")                              \
      .Attr("seed: int = 0")                                \
      .Attr("seed2: int = 0")                               \
      .Attr("dtype: {float16, bfloat16, float32, float64}") \
      .Attr("T: {int32, int64}")                            \
      .SetIsStateful()                                      \
      .SetShapeFn(RandomShape)                              \
      .Doc(DocText)

TW_RANDOM_OP("RandomUniform", "Uniform values in [0, 1).");
TW_RANDOM_OP("RandomStandardNormal", "Normal values, mean 0, stddev 1.");
TW_RANDOM_OP("TruncatedNormal",
             "Normal values, mean 0, stddev 1, redrawn when more than 2 "
             "stddevs from the mean.");
#undef TW_RANDOM_OP

REGISTER_OP("RandomUniformInt")
    .Input("shape: T")
    .Input("minval: Tout")
    .Input("maxval: Tout")
    .Output("output: Tout")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("Tout: {int32, int64}")
    .Attr("T: {int32, int64}")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      PartialShape unused;
      TW_RETURN_IF_ERROR(c->WithRank(1, 0, &unused));
      TW_RETURN_IF_ERROR(c->WithRank(2, 0, &unused));
      return RandomShape(c);
    })
    .Doc("Integers uniform in [minval, maxval) (scalars, minval < maxval).");

REGISTER_OP("RandomShuffle")
    .Input("value: T")
    .Output("output: T")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn(shape_fns::Unchanged)
    .Doc("value with its slices along dimension 0 in a random order.");

REGISTER_OP("Multinomial")
    .Input("logits: T")
    .Input("num_samples: int32")
    .Output("output: output_dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("T: {float16, float32, float64}")
    .Attr("output_dtype: {int32, int64} = int64")
    .SetIsStateful()
    .SetShapeFn(MultinomialShape)
    .Doc(
        "num_samples class indices per row of logits [batch, classes], "
        "drawn with probabilities softmax(logits[row]).");

}  // namespace tensorweave

// Candidate samplers (uniform, log-uniform, all) and ComputeAccidentalHits,
// as TensorFlow defines them for sampled losses (nce_loss,
// sampled_softmax_loss).
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

Status SamplerShape(InferenceContext* c) {
  int64_t num_true = 0, num_sampled = 0;
  TW_RETURN_IF_ERROR(c->GetAttr("num_true", &num_true));
  TW_RETURN_IF_ERROR(c->GetAttr("num_sampled", &num_sampled));
  if (num_true < 1 || num_sampled < 1) {
    return errors::InvalidArgument("num_true and num_sampled must be >= 1");
  }
  PartialShape true_classes;
  TW_RETURN_IF_ERROR(c->WithRank(0, 2, &true_classes));
  if (true_classes.dim(1) >= 0 && true_classes.dim(1) != num_true) {
    return errors::InvalidArgument("true_classes must have num_true (",
                                   num_true, ") columns, got ",
                                   c->InputShapesString());
  }
  c->set_output(0, PartialShape({num_sampled}));
  c->set_output(1, PartialShape({true_classes.dim(0), num_true}));
  c->set_output(2, PartialShape({num_sampled}));
  return Status::OK();
}

Status AccidentalHitsShape(InferenceContext* c) {
  PartialShape true_classes, sampled;
  TW_RETURN_IF_ERROR(c->WithRank(0, 2, &true_classes));
  TW_RETURN_IF_ERROR(c->WithRank(1, 1, &sampled));
  for (int i = 0; i < 3; ++i) c->set_output(i, PartialShape({-1}));
  return Status::OK();
}

}  // namespace

#define TW_SAMPLER_OP(Name, RangeMax, DocText)             \
  REGISTER_OP(Name)                                        \
      .Input("true_classes: int64")                        \
      .Output("sampled_candidates: int64")                 \
      .Output("true_expected_count: float")                \
      .Output("sampled_expected_count: float")             \
      .Attr("num_true: int")                               \
      .Attr("num_sampled: int")                            \
      .Attr("unique: bool") RangeMax.Attr("seed: int = 0") \
      .Attr("seed2: int = 0")                              \
      .SetIsStateful()                                     \
      .SetShapeFn(SamplerShape)                            \
      .Doc(DocText)

TW_SAMPLER_OP("UniformCandidateSampler", .Attr("range_max: int"),
              "num_sampled classes drawn uniformly from [0, range_max) "
              "(without repeats when unique), with each class's expected "
              "count in such a draw.");
TW_SAMPLER_OP("LogUniformCandidateSampler", .Attr("range_max: int"),
              "num_sampled classes from [0, range_max) with P(k) = log((k + "
              "2) / (k + 1)) / log(range_max + 1) (Zipfian), without repeats "
              "when unique, with each class's expected count.");
TW_SAMPLER_OP("LearnedUnigramCandidateSampler", .Attr("range_max: int >= 1"),
              "num_sampled classes from [0, range_max) with P(k) = count(k) "
              "/ sum(count): every count starts at 1 and each true class a "
              "step sees adds 1 to its count after the step's draw "
              "(TensorFlow's UnigramSampler), without repeats when unique, "
              "with each class's expected count.");
TW_SAMPLER_OP("AllCandidateSampler", ,
              "The classes 0 .. num_sampled - 1, each with expected count 1.");
#undef TW_SAMPLER_OP

REGISTER_OP("FixedUnigramCandidateSampler")
    .Input("true_classes: int64")
    .Output("sampled_candidates: int64")
    .Output("true_expected_count: float")
    .Output("sampled_expected_count: float")
    .Attr("num_true: int")
    .Attr("num_sampled: int")
    .Attr("unique: bool")
    .Attr("range_max: int")
    .Attr("vocab_file: string = ''")
    .Attr("distortion: float = 1.0")
    .Attr("num_reserved_ids: int = 0")
    .Attr("num_shards: int = 1")
    .Attr("shard: int = 0")
    .Attr("unigrams: list(float) = []")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .SetIsStateful()
    .SetShapeFn(SamplerShape)
    .Doc(
        "num_sampled classes from [0, range_max) with P(k) proportional to "
        "weight(k) ** distortion, the weights from `unigrams` or the last "
        "comma-separated field of each line of `vocab_file` (after "
        "num_reserved_ids ids of weight 0), this shard's ids only.");

REGISTER_OP("ComputeAccidentalHits")
    .Input("true_classes: int64")
    .Input("sampled_candidates: int64")
    .Output("indices: int32")
    .Output("ids: int64")
    .Output("weights: float")
    .Attr("num_true: int")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .SetShapeFn(AccidentalHitsShape)
    .Doc(
        "The (row, sampled position) pairs where a sampled candidate equals "
        "one of the row's true classes, each with weight -FLT_MAX.");

}  // namespace tensorweave

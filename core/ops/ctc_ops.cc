// Connectionist temporal classification: CTCLoss (loss and its gradient),
// CTCGreedyDecoder and CTCBeamSearchDecoder, with TensorFlow's signatures.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

// Merges two possibly unknown (-1) dimensions; `what` names them.
Status MergeDim(int64_t a, int64_t b, const char* what, InferenceContext* c,
                int64_t* out) {
  if (a >= 0 && b >= 0 && a != b) {
    return errors::InvalidArgument(what, " must agree (", a, " vs. ", b,
                                   "): ", c->InputShapesString());
  }
  *out = a >= 0 ? a : b;
  return Status::OK();
}

// loss: [batch]; gradient: inputs' shape [max_time, batch, num_classes].
Status CTCLossShape(InferenceContext* c) {
  PartialShape inputs, indices, values, seq_len;
  TW_RETURN_IF_ERROR(c->WithRank(0, 3, &inputs));
  TW_RETURN_IF_ERROR(c->WithRank(1, 2, &indices));
  TW_RETURN_IF_ERROR(c->WithRank(2, 1, &values));
  TW_RETURN_IF_ERROR(c->WithRank(3, 1, &seq_len));
  int64_t unused;
  TW_RETURN_IF_ERROR(MergeDim(indices.dim(0), values.dim(0),
                              "labels_indices rows and labels_values length", c,
                              &unused));
  int64_t batch;
  TW_RETURN_IF_ERROR(MergeDim(inputs.dim(1), seq_len.dim(0),
                              "inputs' batch and len(sequence_length)", c,
                              &batch));
  std::vector<int64_t> dims = inputs.dims();
  dims[1] = batch;
  c->set_output(0, PartialShape({batch}));
  c->set_output(1, PartialShape(dims));
  return Status::OK();
}

// Each decoded path is a sparse triple (indices [n, 2], values [n],
// shape [2]); log_probability is [batch, paths].
Status CTCDecoderShape(InferenceContext* c) {
  PartialShape inputs, seq_len;
  TW_RETURN_IF_ERROR(c->WithRank(0, 3, &inputs));
  TW_RETURN_IF_ERROR(c->WithRank(1, 1, &seq_len));
  int64_t batch;
  TW_RETURN_IF_ERROR(MergeDim(inputs.dim(1), seq_len.dim(0),
                              "inputs' batch and len(sequence_length)", c,
                              &batch));
  const int paths = (c->num_outputs() - 1) / 3;
  for (int p = 0; p < paths; ++p) {
    c->set_output(p, PartialShape({-1, 2}));
    c->set_output(paths + p, PartialShape({-1}));
    c->set_output(2 * paths + p, PartialShape({2}));
  }
  c->set_output(3 * paths, PartialShape({batch, paths}));
  return Status::OK();
}

}  // namespace

REGISTER_OP("CTCLoss")
    .Input("inputs: T")
    .Input("labels_indices: int64")
    .Input("labels_values: int32")
    .Input("sequence_length: int32")
    .Attr("preprocess_collapse_repeated: bool = false")
    .Attr("ctc_merge_repeated: bool = true")
    .Attr("ignore_longer_outputs_than_inputs: bool = false")
    .Output("loss: T")
    .Output("gradient: T")
    .Attr("T: {float32, float64} = float32")
    .SetShapeFn(CTCLossShape)
    .Doc(
        "The CTC loss -log p(labels | inputs) of each batch entry and its "
        "gradient with respect to the logits inputs [max_time, batch, "
        "num_classes] (softmax over classes; the blank is num_classes - 1). "
        "labels is a sparse [batch, max_label] matrix of classes in "
        "[0, num_classes - 1), rows in order; sequence_length [batch] "
        "the steps of each entry, <= max_time.");

REGISTER_OP("CTCGreedyDecoder")
    .Input("inputs: T")
    .Input("sequence_length: int32")
    .Attr("merge_repeated: bool = false")
    .Attr("blank_index: int = -1")
    .Output("decoded_indices: int64")
    .Output("decoded_values: int64")
    .Output("decoded_shape: int64")
    .Output("log_probability: T")
    .Attr("T: {float32, float64} = float32")
    .SetShapeFn(CTCDecoderShape)
    .Doc(
        "Best-path decoding: the most likely class at each step, repeats "
        "merged when merge_repeated, blanks (blank_index, negative counts "
        "from the end) dropped; log_probability [batch, 1] is minus the sum "
        "of each step's largest logit.");

REGISTER_OP("CTCBeamSearchDecoder")
    .Input("inputs: T")
    .Input("sequence_length: int32")
    .Attr("beam_width: int >= 1")
    .Attr("top_paths: int >= 1")
    .Attr("merge_repeated: bool = true")
    .Output("decoded_indices: top_paths * int64")
    .Output("decoded_values: top_paths * int64")
    .Output("decoded_shape: top_paths * int64")
    .Output("log_probability: T")
    .Attr("T: {float32, float64} = float32")
    .SetShapeFn(CTCDecoderShape)
    .Doc(
        "Prefix beam search over the softmax of the logits inputs (the blank "
        "is num_classes - 1) keeping beam_width prefixes; the top_paths best "
        "as sparse triples and their log probabilities [batch, top_paths].");

}  // namespace tensorweave

// More string ops (TensorFlow's tf.strings.format, ngrams,
// unsorted_segment_join, to_hash_bucket and tf.fingerprint): host-only
// kernels in core/kernels/string_extra_ops.cc (the unicode ops are in
// unicode_ops.cc).
#include <string>
#include <vector>

#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

// The template must have one placeholder per input.
Status StringFormatShape(InferenceContext* c) {
  std::string tmpl, placeholder;
  TW_RETURN_IF_ERROR(c->GetAttr("template", &tmpl));
  TW_RETURN_IF_ERROR(c->GetAttr("placeholder", &placeholder));
  if (placeholder.empty()) {
    return errors::InvalidArgument("placeholder must not be empty");
  }
  int64_t count = 0;
  for (size_t at = tmpl.find(placeholder); at != std::string::npos;
       at = tmpl.find(placeholder, at + placeholder.size())) {
    ++count;
  }
  if (count != c->num_inputs()) {
    return errors::InvalidArgument(
        "num placeholders in template and num inputs must match: ", count,
        " vs. ", c->num_inputs());
  }
  c->set_output(0, PartialShape({}));
  return Status::OK();
}

Status FingerprintShape(InferenceContext* c) {
  if (const Tensor* m = c->input_value(1);
      m != nullptr && m->rank() == 0 && m->dtype() == DT_STRING &&
      *m->data<std::string>() != "farmhash64") {
    return errors::InvalidArgument("Unsupported method: ",
                                   *m->data<std::string>());
  }
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(0, 1));
  PartialShape s;
  TW_RETURN_IF_ERROR(c->WithRank(1, 0, &s));
  const PartialShape& in = c->input(0);
  c->set_output(0, PartialShape({in.known_rank() ? in.dim(0) : -1, 8}));
  return Status::OK();
}

Status NGramsShape(InferenceContext* c) {
  PartialShape s;
  TW_RETURN_IF_ERROR(c->WithRank(0, 1, &s));
  TW_RETURN_IF_ERROR(c->WithRank(1, 1, &s));
  c->set_output(0, PartialShape({-1}));
  c->set_output(1, c->input(1));
  return Status::OK();
}

// [num_segments] + inputs.shape[rank(segment_ids):] when known.
Status SegmentJoinShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  const PartialShape& ids = c->input(1);
  if (!in.known_rank() || !ids.known_rank()) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  if (ids.rank() > in.rank()) {
    return errors::InvalidArgument("segment_ids (rank ", ids.rank(),
                                   ") must not have a higher rank than inputs "
                                   "(rank ",
                                   in.rank(), ")");
  }
  int64_t segments = -1;
  if (const Tensor* n = c->input_value(2); n != nullptr && n->rank() == 0) {
    segments =
        n->dtype() == DT_INT32 ? *n->data<int32_t>() : *n->data<int64_t>();
    if (segments < 0) {
      return errors::InvalidArgument(
          "Dimension size, given by scalar input 2, must be non-negative but "
          "is ",
          segments);
    }
  }
  std::vector<int64_t> dims{segments};
  for (int d = ids.rank(); d < in.rank(); ++d) dims.push_back(in.dim(d));
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

}  // namespace

REGISTER_OP("StringFormat")
    .Input("inputs: T")
    .Output("output: string")
    .Attr("T: list(type) >= 0")
    .Attr("template: string = '%s'")
    .Attr("placeholder: string = '%s'")
    .Attr("summarize: int = 3")
    .SetShapeFn(StringFormatShape)
    .Doc(
        "The template with each placeholder replaced by the next input, "
        "formatted as tf.print formats tensors (summarize entries at each "
        "end of every dimension; -1 prints all).");

REGISTER_OP("StringNGrams")
    .Input("data: string")
    .Input("data_splits: Tsplits")
    .Output("ngrams: string")
    .Output("ngrams_splits: Tsplits")
    .Attr("separator: string")
    .Attr("ngram_widths: list(int) >= 0")
    .Attr("left_pad: string")
    .Attr("right_pad: string")
    .Attr("pad_width: int")
    .Attr("preserve_short_sequences: bool")
    .Attr("Tsplits: {int32, int64} = int64")
    .SetShapeFn(NGramsShape)
    .Doc(
        "The n-grams of each row of a ragged string vector (values and row "
        "splits), joined by the separator, padded as TensorFlow's "
        "StringNGrams.");

REGISTER_OP("UnsortedSegmentJoin")
    .Input("inputs: string")
    .Input("segment_ids: Tindices")
    .Input("num_segments: Tnumsegments")
    .Output("output: string")
    .Attr("separator: string = ''")
    .Attr("Tindices: {int32, int64}")
    .Attr("Tnumsegments: {int32, int64} = int32")
    .SetShapeFn(SegmentJoinShape)
    .Doc(
        "Joins the strings of each segment (in input order) with the "
        "separator; empty segments give ''.");

REGISTER_OP("StringToHashBucket")
    .Input("string_tensor: string")
    .Output("output: int64")
    .Attr("num_buckets: int >= 1")
    .SetShapeFn([](InferenceContext* c) { return c->UnchangedShape(); })
    .Doc(
        "Hash64(string) % num_buckets with TensorFlow's legacy Hash64 (a "
        "MurmurHash2-64 variant, seed 0xDECAFCAFFE).");

REGISTER_OP("Fingerprint")
    .Input("data: T")
    .Input("method: string")
    .Output("fingerprint: uint8")
    .Attr("T: type")
    .SetShapeFn(FingerprintShape)
    .Doc(
        "An 8-byte FarmHash64 fingerprint of each row data[i] (little "
        "endian), as TensorFlow's Fingerprint.");

}  // namespace tensorweave

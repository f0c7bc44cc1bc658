// EditDistance: the Levenshtein distance between the sequences of two
// sparse tensors (tf.edit_distance).
#include <algorithm>

#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

// The output has the dense shapes' elementwise maximum less the last
// dimension when both shapes are constant; otherwise an unknown shape.
Status EditDistanceShape(InferenceContext* c) {
  for (int base : {0, 3}) {
    PartialShape indices, values, shape;
    TW_RETURN_IF_ERROR(c->WithRank(base, 2, &indices));
    TW_RETURN_IF_ERROR(c->WithRank(base + 1, 1, &values));
    TW_RETURN_IF_ERROR(c->WithRank(base + 2, 1, &shape));
  }
  const Tensor* hypothesis_shape = c->input_value(2);
  const Tensor* truth_shape = c->input_value(5);
  if (hypothesis_shape == nullptr || truth_shape == nullptr) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  std::vector<int64_t> h, t;
  TW_RETURN_IF_ERROR(ReadIndexVector(*hypothesis_shape, &h));
  TW_RETURN_IF_ERROR(ReadIndexVector(*truth_shape, &t));
  if (h.size() != t.size()) {
    return errors::InvalidArgument(
        "Num elements of hypothesis_shape does not match truth_shape: ",
        h.size(), " vs. ", t.size());
  }
  if (t.size() < 2) {
    return errors::InvalidArgument(
        "Input SparseTensors must have rank at least 2, but truth_shape rank "
        "is: ",
        t.size());
  }
  std::vector<int64_t> dims(h.size() - 1);
  for (size_t i = 0; i < dims.size(); ++i) {
    if (h[i] < 0 || t[i] < 0) {
      return errors::InvalidArgument("Dimension ", std::min(h[i], t[i]),
                                     " must be >= 0");
    }
    dims[i] = std::max(h[i], t[i]);
  }
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

}  // namespace

REGISTER_OP("EditDistance")
    .Input("hypothesis_indices: int64")
    .Input("hypothesis_values: T")
    .Input("hypothesis_shape: int64")
    .Input("truth_indices: int64")
    .Input("truth_values: T")
    .Input("truth_shape: int64")
    .Attr("normalize: bool = true")
    .Attr("T: type")
    .Output("output: float32")
    .SetShapeFn(EditDistanceShape)
    .Doc(
        "The Levenshtein distance between the sequences (the last dimension) "
        "of the sparse hypothesis and truth, one per position of the other "
        "dimensions (the larger of the two dense shapes); divided by the "
        "truth's length when normalize (1 for an empty hypothesis, inf for "
        "an empty truth and a non-empty hypothesis).");

}  // namespace tensorweave

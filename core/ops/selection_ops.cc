// Selection and counting ops: TopKV2, InTopKV2, Unique, UniqueWithCounts,
// ListDiff (setdiff1d) and Bincount.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

// values and indices: input.shape[:-1] + [k].
Status TopKShape(InferenceContext* c) {
  PartialShape k_shape;
  TW_RETURN_IF_ERROR(c->WithRank(1, 0, &k_shape));
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(0, 1));
  const PartialShape& in = c->input(0);
  int64_t k = -1;
  if (const Tensor* t = c->input_value(1)) {
    if (t->dtype() == DT_INT16 && t->num_elements() == 1) {
      k = t->data<int16_t>()[0];
    } else {
      std::vector<int64_t> v;
      TW_RETURN_IF_ERROR(ReadIndexVector(*t, &v));
      if (v.size() != 1) {
        return errors::InvalidArgument("k must be a scalar, got ", v.size(),
                                       " values");
      }
      k = v[0];
    }
    if (k < 0) {
      return errors::InvalidArgument("Input k must be >= 0, got ", k);
    }
  }
  if (!in.known_rank()) {
    c->set_output(0, PartialShape::UnknownRank());
    c->set_output(1, PartialShape::UnknownRank());
    return Status::OK();
  }
  const int64_t last = in.dim(in.rank() - 1);
  if (k >= 0 && last >= 0 && last < k) {
    return errors::InvalidArgument("input must have last dimension >= k = ", k,
                                   " but is ", last);
  }
  std::vector<int64_t> dims = in.dims();
  dims.back() = k;
  c->set_output(0, PartialShape(dims));
  c->set_output(1, PartialShape(dims));
  return Status::OK();
}

Status InTopKShape(InferenceContext* c) {
  PartialShape predictions, targets, k;
  TW_RETURN_IF_ERROR(c->WithRank(0, 2, &predictions));
  TW_RETURN_IF_ERROR(c->WithRank(1, 1, &targets));
  TW_RETURN_IF_ERROR(c->WithRank(2, 0, &k));
  int64_t batch = predictions.dim(0);
  if (batch >= 0 && targets.dim(0) >= 0 && batch != targets.dim(0)) {
    return errors::InvalidArgument(
        "predictions and targets must agree on the batch size: ",
        c->InputShapesString());
  }
  if (batch < 0) batch = targets.dim(0);
  c->set_output(0, PartialShape({batch}));
  return Status::OK();
}

Status VectorsOfUnknownLength(InferenceContext* c) {
  PartialShape x;
  TW_RETURN_IF_ERROR(c->WithRank(0, 1, &x));
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, PartialShape({-1}));
  }
  return Status::OK();
}

Status UniqueShape(InferenceContext* c) {
  PartialShape x;
  TW_RETURN_IF_ERROR(c->WithRank(0, 1, &x));
  c->set_output(0, PartialShape({-1}));
  c->set_output(1, x);  // idx: one per element of x
  if (c->num_outputs() > 2) c->set_output(2, PartialShape({-1}));
  return Status::OK();
}

Status BincountShape(InferenceContext* c) {
  PartialShape unused;
  TW_RETURN_IF_ERROR(c->WithRank(1, 0, &unused));
  int64_t size = -1;
  if (const Tensor* t = c->input_value(1)) {
    std::vector<int64_t> v;
    TW_RETURN_IF_ERROR(ReadIndexVector(*t, &v));
    size = v[0];
    if (size < 0) {
      return errors::InvalidArgument("size (", size, ") must be non-negative");
    }
  }
  c->set_output(0, PartialShape({size}));
  return Status::OK();
}

}  // namespace

REGISTER_OP("TopKV2")
    .Input("input: T")
    .Input("k: Tk")
    .Output("values: T")
    .Output("indices: index_type")
    .Attr("sorted: bool = true")
    .Attr(
        "T: {float32, float64, int32, int64, uint8, int8, int16, uint16, "
        "float16}")
    .Attr("Tk: {int16, int32, int64} = int32")
    .Attr("index_type: {int16, int32, int64} = int32")
    .SetShapeFn(TopKShape)
    .Doc(
        "The k largest entries along the last dimension and their indices, "
        "largest first (of equal values, the lower index first).");

REGISTER_OP("InTopKV2")
    .Input("predictions: float32")
    .Input("targets: T")
    .Input("k: T")
    .Output("precision: bool")
    .Attr("T: {int32, int64} = int32")
    .SetShapeFn(InTopKShape)
    .Doc(
        "For each row: whether predictions[row, targets[row]] is among the k "
        "largest (fewer than k entries are strictly larger); false for a "
        "non-finite prediction or a target out of range.");

REGISTER_OP("Unique")
    .Input("x: T")
    .Output("y: T")
    .Output("idx: out_idx")
    .Attr("T: type")
    .Attr("out_idx: {int32, int64} = int32")
    .SetShapeFn(UniqueShape)
    .Doc(
        "The distinct values of the vector x in order of first appearance, "
        "and for each element of x the index of its value in y.");

REGISTER_OP("UniqueWithCounts")
    .Input("x: T")
    .Output("y: T")
    .Output("idx: out_idx")
    .Output("count: out_idx")
    .Attr("T: type")
    .Attr("out_idx: {int32, int64} = int32")
    .SetShapeFn(UniqueShape)
    .Doc("As Unique, and how many times each value of y appears in x.");

REGISTER_OP("ListDiff")
    .Input("x: T")
    .Input("y: T")
    .Output("out: T")
    .Output("idx: out_idx")
    .Attr("T: type")
    .Attr("out_idx: {int32, int64} = int32")
    .SetShapeFn(VectorsOfUnknownLength)
    .Doc(
        "The elements of the vector x that are not in y, in x's order, and "
        "their positions in x.");

REGISTER_OP("Bincount")
    .Input("arr: int32")
    .Input("size: int32")
    .Input("weights: T")
    .Output("bins: T")
    .Attr("T: {int32, int64, float32, float64}")
    .SetShapeFn(BincountShape)
    .Doc(
        "bins[i] = the sum of weights[j] (or the count, for empty weights) "
        "over j with arr[j] == i, for i in [0, size); other values of arr are "
        "ignored; negative values are an error.");

}  // namespace tensorweave

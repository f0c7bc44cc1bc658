// Set ops (TensorFlow's tf.sets): sets are the last dimension of a dense
// tensor or of a SparseTensor (indices, values, shape); the results are
// SparseTensors whose sets are sorted.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

#define TW_SET_TYPES "int8, int16, int32, int64, uint8, uint16, string"

Status SparseInputShapes(InferenceContext* c, int first) {
  PartialShape s;
  TW_RETURN_IF_ERROR(c->WithRank(first, 2, &s));
  TW_RETURN_IF_ERROR(c->WithRank(first + 1, 1, &s));
  TW_RETURN_IF_ERROR(c->WithRank(first + 2, 1, &s));
  return Status::OK();
}

void SetResultShapes(InferenceContext* c, int64_t rank) {
  c->set_output(0, PartialShape({-1, rank}));
  c->set_output(1, PartialShape({-1}));
  c->set_output(2, PartialShape({rank}));
}

// The rank of a SparseTensor from its shape vector's length, if known.
int64_t SparseRank(InferenceContext* c, int shape_input) {
  const PartialShape& s = c->input(shape_input);
  return s.known_rank() && s.rank() == 1 ? s.dim(0) : -1;
}

Status DenseToDenseShape(InferenceContext* c) {
  const PartialShape& a = c->input(0);
  const PartialShape& b = c->input(1);
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(0, 2));
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(1, 2));
  if (!a.known_rank() || !b.known_rank()) {
    SetResultShapes(c, a.known_rank() ? a.rank() : b.rank());
    return Status::OK();
  }
  if (a.rank() != b.rank()) {
    return errors::InvalidArgument("Shape must be rank ", a.rank(),
                                   " but is rank ", b.rank());
  }
  for (int d = 0; d + 1 < a.rank(); ++d) {
    if (a.dim(d) >= 0 && b.dim(d) >= 0 && a.dim(d) != b.dim(d)) {
      return errors::InvalidArgument("Dimension ", d,
                                     " in both shapes must be equal, but are ",
                                     a.dim(d), " and ", b.dim(d));
    }
  }
  SetResultShapes(c, a.rank());
  return Status::OK();
}

Status DenseToSparseShape(InferenceContext* c) {
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(0, 2));
  TW_RETURN_IF_ERROR(SparseInputShapes(c, 1));
  const PartialShape& a = c->input(0);
  SetResultShapes(c, a.known_rank() ? a.rank() : SparseRank(c, 3));
  return Status::OK();
}

Status SparseToSparseShape(InferenceContext* c) {
  TW_RETURN_IF_ERROR(SparseInputShapes(c, 0));
  TW_RETURN_IF_ERROR(SparseInputShapes(c, 3));
  const int64_t r1 = SparseRank(c, 2), r2 = SparseRank(c, 5);
  SetResultShapes(c, r1 >= 0 ? r1 : r2);
  return Status::OK();
}

}  // namespace

REGISTER_OP("SetSize")
    .Input("set_indices: int64")
    .Input("set_values: T")
    .Input("set_shape: int64")
    .Output("size: int32")
    .Attr("validate_indices: bool = true")
    .Attr("T: {" TW_SET_TYPES "}")
    .SetShapeFn([](InferenceContext* c) {
      TW_RETURN_IF_ERROR(SparseInputShapes(c, 0));
      c->set_output(0, PartialShape::UnknownRank());
      return Status::OK();
    })
    .Doc(
        "The number of unique values in each set (the last dimension) of a "
        "SparseTensor; shape set_shape[:-1].");

REGISTER_OP("DenseToDenseSetOperation")
    .Input("set1: T")
    .Input("set2: T")
    .Output("result_indices: int64")
    .Output("result_values: T")
    .Output("result_shape: int64")
    .Attr("set_operation: string")
    .Attr("validate_indices: bool = true")
    .Attr("T: {" TW_SET_TYPES "}")
    .SetShapeFn(DenseToDenseShape)
    .Doc(
        "a-b, b-a, intersection or union of the sets in the last dimension "
        "of two dense tensors, as a SparseTensor of sorted sets.");

REGISTER_OP("DenseToSparseSetOperation")
    .Input("set1: T")
    .Input("set2_indices: int64")
    .Input("set2_values: T")
    .Input("set2_shape: int64")
    .Output("result_indices: int64")
    .Output("result_values: T")
    .Output("result_shape: int64")
    .Attr("set_operation: string")
    .Attr("validate_indices: bool = true")
    .Attr("T: {" TW_SET_TYPES "}")
    .SetShapeFn(DenseToSparseShape)
    .Doc(
        "a-b, b-a, intersection or union of the sets of a dense tensor and a "
        "SparseTensor, as a SparseTensor of sorted sets.");

REGISTER_OP("SparseToSparseSetOperation")
    .Input("set1_indices: int64")
    .Input("set1_values: T")
    .Input("set1_shape: int64")
    .Input("set2_indices: int64")
    .Input("set2_values: T")
    .Input("set2_shape: int64")
    .Output("result_indices: int64")
    .Output("result_values: T")
    .Output("result_shape: int64")
    .Attr("set_operation: string")
    .Attr("validate_indices: bool = true")
    .Attr("T: {" TW_SET_TYPES "}")
    .SetShapeFn(SparseToSparseShape)
    .Doc(
        "a-b, b-a, intersection or union of the sets of two SparseTensors, "
        "as a SparseTensor of sorted sets.");

#undef TW_SET_TYPES

}  // namespace tensorweave

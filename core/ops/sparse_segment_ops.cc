// The sparse segment reductions (the sparse-embedding ops): rows `indices` of
// data reduced by sorted segment_ids, with or without num_segments.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

// [last id + 1 (unknown) or num_segments] + data.shape[1:].
Status SparseSegmentShape(InferenceContext* c, bool with_num) {
  // The checked shapes, not c->input(i): an input of unknown rank has no
  // dim 0 to read (WithRank gives it one, unknown).
  PartialShape indices, ids, unused;
  TW_RETURN_IF_ERROR(c->WithRank(1, 1, &indices));
  TW_RETURN_IF_ERROR(c->WithRank(2, 1, &ids));
  const int64_t num_indices = indices.dim(0);
  const int64_t num_ids = ids.dim(0);
  if (num_indices >= 0 && num_ids >= 0 && num_indices != num_ids) {
    return errors::InvalidArgument(
        "segment_ids and indices should have same size, got ", num_ids, " and ",
        num_indices);
  }
  int64_t n = -1;
  if (with_num) {
    TW_RETURN_IF_ERROR(c->WithRank(3, 0, &unused));
    if (const Tensor* t = c->input_value(3)) {
      std::vector<int64_t> num;
      TW_RETURN_IF_ERROR(ReadIndexVector(*t, &num));
      if (num.size() != 1) {
        return errors::InvalidArgument("num_segments must be a scalar, got ",
                                       t->shape().ToString());
      }
      if (num[0] < 0) {
        return errors::InvalidArgument(
            "Cannot specify a negative value for num_segments: ", num[0]);
      }
      n = num[0];
    }
  }
  const PartialShape& data = c->input(0);
  if (!data.known_rank()) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  if (data.rank() == 0) {
    return errors::InvalidArgument(
        "Shape must be at least rank 1 but is rank 0");
  }
  std::vector<int64_t> dims = data.dims();
  dims[0] = n;
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status SparseSegmentShapeFn(InferenceContext* c) {
  return SparseSegmentShape(c, false);
}
Status SparseSegmentNumShapeFn(InferenceContext* c) {
  return SparseSegmentShape(c, true);
}

}  // namespace

#define TW_SPARSE_SEGMENT_OP(Name, DocText)                                  \
  REGISTER_OP(Name)                                                          \
      .Input("data: T")                                                      \
      .Input("indices: Tidx")                                                \
      .Input("segment_ids: Tsegmentids")                                     \
      .Output("output: T")                                                   \
      .Attr("T: {float32, float64}")                                         \
      .Attr("Tidx: {int32, int64} = int32")                                  \
      .Attr("Tsegmentids: {int32, int64} = int32")                           \
      .Attr("sparse_gradient: bool = false")                                 \
      .SetShapeFn(SparseSegmentShapeFn)                                      \
      .Doc(DocText                                                           \
           " of the rows data[indices[i]] in each segment: segment_ids "     \
           "(one per index, sorted, non-negative) name them; the output "    \
           "has last id + 1 rows. sparse_gradient (TF: a sparse gradient) "  \
           "is accepted; the gradient stays dense.");                        \
  REGISTER_OP(Name "WithNumSegments")                                        \
      .Input("data: T")                                                      \
      .Input("indices: Tidx")                                                \
      .Input("segment_ids: Tsegmentids")                                     \
      .Input("num_segments: Tnumsegments")                                   \
      .Output("output: T")                                                   \
      .Attr("T: {float32, float64}")                                         \
      .Attr("Tidx: {int32, int64} = int32")                                  \
      .Attr("Tnumsegments: {int32, int64} = int32")                          \
      .Attr("Tsegmentids: {int32, int64} = int32")                           \
      .Attr("sparse_gradient: bool = false")                                 \
      .SetShapeFn(SparseSegmentNumShapeFn)                                   \
      .Doc(DocText                                                           \
           " of the rows data[indices[i]] in each of num_segments segments " \
           "(segment_ids sorted, each < num_segments). sparse_gradient "     \
           "(TF: a sparse gradient) is accepted; the gradient stays dense.")

TW_SPARSE_SEGMENT_OP("SparseSegmentSum", "The sum (0 for an empty segment)");
TW_SPARSE_SEGMENT_OP("SparseSegmentMean", "The mean (0 for an empty segment)");
TW_SPARSE_SEGMENT_OP("SparseSegmentSqrtN",
                     "The sum over sqrt(count) (0 for an empty segment)");
#undef TW_SPARSE_SEGMENT_OP

}  // namespace tensorweave

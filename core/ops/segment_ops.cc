// Segment reductions: SegmentSum/Mean/Prod/Min/Max over sorted segment ids
// along dim 0, and UnsortedSegmentProd/Min/Max over ids in any order
// (UnsortedSegmentSum is in array_index_ops.cc).
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

// [unknown] + data.shape[1:]: the number of segments is the last id + 1,
// known only when the op runs (as TensorFlow).
Status SegmentShape(InferenceContext* c) {
  PartialShape ids;
  TW_RETURN_IF_ERROR(c->WithRank(1, 1, &ids));
  const PartialShape& data = c->input(0);
  if (!data.known_rank()) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  if (data.rank() == 0) {
    return errors::InvalidArgument(
        "Shape must be at least rank 1 but is rank 0");
  }
  // A length mismatch of ids and data is found when the op runs (as
  // TensorFlow).
  std::vector<int64_t> dims = data.dims();
  dims[0] = -1;
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

// [num_segments] + data.shape[segment_ids.rank:].
Status UnsortedSegmentShape(InferenceContext* c) {
  PartialShape unused;
  TW_RETURN_IF_ERROR(c->WithRank(2, 0, &unused));
  const PartialShape& data = c->input(0);
  const PartialShape& ids = c->input(1);
  int64_t num_segments = -1;
  if (const Tensor* t = c->input_value(2)) {
    std::vector<int64_t> num;
    TW_RETURN_IF_ERROR(ReadIndexVector(*t, &num));
    num_segments = num[0];
    if (num_segments < 0) {
      return errors::InvalidArgument("num_segments must be non-negative, got ",
                                     num_segments);
    }
  }
  if (!data.known_rank() || !ids.known_rank()) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  bool prefix = ids.rank() <= data.rank();
  for (int d = 0; prefix && d < ids.rank(); ++d) {
    prefix = ids.dim(d) < 0 || data.dim(d) < 0 || ids.dim(d) == data.dim(d);
  }
  if (!prefix) {
    return errors::InvalidArgument("segment_ids shape ", ids.ToString(),
                                   " is not a prefix of data shape ",
                                   data.ToString());
  }
  std::vector<int64_t> dims = {num_segments};
  dims.insert(dims.end(), data.dims().begin() + ids.rank(), data.dims().end());
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

// TensorFlow's numbertypes (Sum, Mean, Prod) and realnumbertypes (Min, Max)
// that the CPU kernels reduce.
constexpr char kNumberTypes[] =
    "T: {float32, float64, int32, int64, uint8, int8, int16, uint16, uint32, "
    "uint64, complex64, complex128}";
constexpr char kRealTypes[] =
    "T: {float32, float64, int32, int64, uint8, int8, int16, uint16, uint32, "
    "uint64}";

}  // namespace

#define TW_SEGMENT_OP(Name, Types, DocText)                                \
  REGISTER_OP(Name)                                                        \
      .Input("data: T")                                                    \
      .Input("segment_ids: Tindices")                                      \
      .Output("output: T")                                                 \
      .Attr(Types)                                                         \
      .Attr("Tindices: {int32, int64}")                                    \
      .SetShapeFn(SegmentShape)                                            \
      .Doc(DocText                                                         \
           " of the rows of data in each segment: segment_ids (one per "   \
           "row, sorted, non-negative) name them; the output has last id " \
           "+ 1 rows.")

TW_SEGMENT_OP("SegmentSum", kNumberTypes, "The sum (0 for an empty segment)");
TW_SEGMENT_OP("SegmentMean", kNumberTypes, "The mean (0 for an empty segment)");
TW_SEGMENT_OP("SegmentProd", kNumberTypes,
              "The product (1 for an empty segment)");
TW_SEGMENT_OP("SegmentMin", kRealTypes, "The minimum (0 for an empty segment)");
TW_SEGMENT_OP("SegmentMax", kRealTypes, "The maximum (0 for an empty segment)");
#undef TW_SEGMENT_OP

#define TW_UNSORTED_SEGMENT_OP(Name, Types, DocText)                     \
  REGISTER_OP(Name)                                                      \
      .Input("data: T")                                                  \
      .Input("segment_ids: Tindices")                                    \
      .Input("num_segments: Tnumsegments")                               \
      .Output("output: T")                                               \
      .Attr(Types)                                                       \
      .Attr("Tindices: {int32, int64}")                                  \
      .Attr("Tnumsegments: {int32, int64} = int32")                      \
      .SetShapeFn(UnsortedSegmentShape)                                  \
      .Doc(DocText                                                       \
           " of data over the positions whose segment_ids (a prefix of " \
           "data's shape, any order) equal each of num_segments ids; "   \
           "negative ids are dropped, ids >= num_segments are an error.")

TW_UNSORTED_SEGMENT_OP("UnsortedSegmentProd", kNumberTypes,
                       "The product (1 for an empty segment)");
TW_UNSORTED_SEGMENT_OP("UnsortedSegmentMin", kRealTypes,
                       "The minimum (the dtype's largest value for an empty "
                       "segment)");
TW_UNSORTED_SEGMENT_OP("UnsortedSegmentMax", kRealTypes,
                       "The maximum (the dtype's lowest value for an empty "
                       "segment)");
#undef TW_UNSORTED_SEGMENT_OP

}  // namespace tensorweave

// The meaning of a StridedSlice (begin, end, strides and the five masks),
// exactly as TensorFlow defines it: which elements of the input it reads and
// what shape it produces. Shared by the op's shape function, its kernel and
// the kernel of its gradient.
#ifndef TENSORWEAVE_CORE_FRAMEWORK_STRIDED_SLICE_H_
#define TENSORWEAVE_CORE_FRAMEWORK_STRIDED_SLICE_H_

#include <cstdint>
#include <vector>

#include "core/framework/status.h"

namespace tensorweave {

struct StridedSliceMasks {
  int64_t begin_mask = 0;
  int64_t end_mask = 0;
  int64_t ellipsis_mask = 0;
  int64_t new_axis_mask = 0;
  int64_t shrink_axis_mask = 0;
};

// The slice over the input's own dimensions (the "dense" form): for input
// dim d, the elements begin[d], begin[d] + strides[d], ... (processing[d]
// of them). `final_shape` is `processing` with shrunk dims removed and new
// axes (1) inserted. A dim whose input size is unknown (-1) gets size -1.
struct StridedSliceSpec {
  std::vector<int64_t> begin;
  std::vector<int64_t> strides;
  std::vector<int64_t> processing;
  std::vector<int64_t> final_shape;
  // True when every stride is 1 and nothing is masked beyond begin/end:
  // a plain Slice.
  bool is_simple = true;
};

// `input_dims`: the input shape (entries may be -1). `begin`, `end`,
// `strides`: the sparse spec, all of one length. Without `bounds_known`
// (begin and end are not known at graph construction; their values are
// ignored) a dim's size is known only when it is shrunk (1), or masked at
// both ends over an input dim of known size; the others get -1.
Status ComputeStridedSlice(const std::vector<int64_t>& input_dims,
                           const std::vector<int64_t>& begin,
                           const std::vector<int64_t>& end,
                           const std::vector<int64_t>& strides,
                           const StridedSliceMasks& masks,
                           StridedSliceSpec* spec, bool bounds_known = true);

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_FRAMEWORK_STRIDED_SLICE_H_

#include "core/framework/strided_slice.h"

#include <algorithm>

namespace tensorweave {
namespace {

constexpr int64_t kNewAxis = -1;
constexpr int64_t kShrinkAxis = -2;

// The spec with the ellipsis expanded to one entry per input dimension.
struct DenseSpec {
  std::vector<int64_t> begin, end, strides;
  int64_t begin_mask = 0, end_mask = 0, shrink_axis_mask = 0;
  // Per final dim: the dense dim it comes from, kNewAxis or kShrinkAxis.
  std::vector<int64_t> final_gather;
};

Status BuildDenseSpec(int rank, const std::vector<int64_t>& begin,
                      const std::vector<int64_t>& end,
                      const std::vector<int64_t>& strides,
                      StridedSliceMasks masks, DenseSpec* dense) {
  const int sparse_dims = static_cast<int>(begin.size());
  // Without an ellipsis, one is implied after the last index.
  if (masks.ellipsis_mask == 0) masks.ellipsis_mask = int64_t{1} << sparse_dims;
  int new_axis_after_ellipsis = 0;
  bool seen_ellipsis = false;
  for (int i = 0; i < sparse_dims; ++i) {
    if (seen_ellipsis && ((masks.new_axis_mask >> i) & 1)) {
      ++new_axis_after_ellipsis;
    }
    if ((masks.ellipsis_mask >> i) & 1) seen_ellipsis = true;
  }
  dense->begin.assign(rank, 0);
  dense->end.assign(rank, 0);
  dense->strides.assign(rank, 1);
  int full = 0;
  for (int i = 0; i <= sparse_dims; ++i) {
    const bool is_ellipsis = (masks.ellipsis_mask >> i) & 1;
    if (i == sparse_dims && !is_ellipsis) break;
    if (is_ellipsis) {
      int next = std::min(
          rank - (sparse_dims - i) + 1 + new_axis_after_ellipsis, rank);
      for (; full < next; ++full) {
        dense->begin_mask |= int64_t{1} << full;
        dense->end_mask |= int64_t{1} << full;
        dense->final_gather.push_back(full);
      }
    } else if ((masks.new_axis_mask >> i) & 1) {
      dense->final_gather.push_back(kNewAxis);
    } else {
      if (full >= rank) {
        return errors::InvalidArgument("Index out of range using input dim ",
                                       full, "; input has only ", rank,
                                       " dims");
      }
      dense->begin[full] = begin[i];
      dense->end[full] = end[i];
      dense->strides[full] = strides[i];
      if ((masks.begin_mask >> i) & 1) dense->begin_mask |= int64_t{1} << full;
      if ((masks.end_mask >> i) & 1) dense->end_mask |= int64_t{1} << full;
      const bool shrink = (masks.shrink_axis_mask >> i) & 1;
      if (shrink) dense->shrink_axis_mask |= int64_t{1} << full;
      dense->final_gather.push_back(shrink ? kShrinkAxis : full);
      ++full;
    }
  }
  return Status::OK();
}

}  // namespace

Status ComputeStridedSlice(const std::vector<int64_t>& input_dims,
                           const std::vector<int64_t>& begin,
                           const std::vector<int64_t>& end,
                           const std::vector<int64_t>& strides,
                           const StridedSliceMasks& masks,
                           StridedSliceSpec* spec, bool bounds_known) {
  if (begin.size() != end.size() || begin.size() != strides.size()) {
    return errors::InvalidArgument(
        "Expected begin, end, and strides to be 1D equal size tensors, but "
        "got lengths ",
        begin.size(), ", ", end.size(), " and ", strides.size());
  }
  if (begin.size() > 32) {
    return errors::InvalidArgument(
        "at most 32 slice indices are supported, got ", begin.size());
  }
  // (unsigned: the mask is an int64 attr, INT64_MIN - 1 would overflow)
  const uint64_t ellipsis = static_cast<uint64_t>(masks.ellipsis_mask);
  if (ellipsis & (ellipsis - 1)) {
    return errors::InvalidArgument(
        "Multiple ellipses in slice spec not allowed");
  }
  const int rank = static_cast<int>(input_dims.size());
  DenseSpec dense;
  TW_RETURN_IF_ERROR(BuildDenseSpec(rank, begin, end, strides, masks, &dense));
  spec->begin.assign(rank, 0);
  spec->strides.assign(rank, 1);
  spec->processing.assign(rank, 0);
  spec->is_simple = true;
  for (int d = 0; d < rank; ++d) {
    const int64_t dim = input_dims[d];
    const int64_t stride = dense.strides[d];
    const bool begin_masked = (dense.begin_mask >> d) & 1;
    const bool end_masked = (dense.end_mask >> d) & 1;
    const bool shrink = (dense.shrink_axis_mask >> d) & 1;
    if (stride == 0) {
      return errors::InvalidArgument("strides[", d, "] must be non-zero");
    }
    if (shrink && stride <= 0) {
      return errors::InvalidArgument(
          "only stride 1 allowed on non-range indexing (dimension ", d, ")");
    }
    spec->strides[d] = stride;
    if (stride != 1) spec->is_simple = false;
    if (!bounds_known) {
      const int64_t magnitude = stride > 0 ? stride : -stride;
      spec->begin[d] = 0;
      if (shrink) {
        spec->processing[d] = 1;
      } else if (begin_masked && end_masked && dim >= 0) {
        spec->processing[d] = (dim + magnitude - 1) / magnitude;
      } else {
        spec->processing[d] = -1;
      }
      continue;
    }
    if (dim < 0) {  // unknown size: only a shrunk dim is known
      spec->processing[d] = shrink ? 1 : -1;
      spec->begin[d] = dense.begin[d];
      continue;
    }
    // Valid positions are [0, dim) going forward and [-1, dim - 1] going
    // backward (-1 meaning "before the first").
    const int64_t lo = stride > 0 ? 0 : -1;
    const int64_t hi = stride > 0 ? dim : dim - 1;
    auto canonical = [&](int64_t x, bool masked, bool is_end) {
      if (masked) return (stride > 0) != is_end ? lo : hi;
      const int64_t forward = x < 0 ? dim + x : x;
      return std::min(std::max(forward, lo), hi);
    };
    int64_t b, e;
    if (shrink) {
      const int64_t forward =
          dense.begin[d] < 0 ? dim + dense.begin[d] : dense.begin[d];
      if (forward < 0 || forward >= dim) {
        return errors::InvalidArgument("slice index ", dense.begin[d],
                                       " of dimension ", d,
                                       " out of bounds (size ", dim, ")");
      }
      b = forward;
      e = forward + 1;
    } else {
      b = canonical(dense.begin[d], begin_masked, false);
      e = canonical(dense.end[d], end_masked, true);
    }
    const int64_t length = e - b;
    int64_t size = 0;
    if (length != 0 && (length < 0) == (stride < 0)) {
      size = length / stride + (length % stride != 0 ? 1 : 0);
    }
    spec->begin[d] = b;
    spec->processing[d] = size;
  }
  spec->final_shape.clear();
  for (int64_t g : dense.final_gather) {
    if (g >= 0) {
      spec->final_shape.push_back(spec->processing[g]);
    } else if (g == kNewAxis) {
      spec->final_shape.push_back(1);
    }
  }
  return Status::OK();
}

}  // namespace tensorweave

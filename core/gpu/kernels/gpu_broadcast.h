// Broadcast index math shared by the element-wise GPU kernels: the CPU's
// BroadcastPlan (collapsed dims, per-dim strides, 0 where broadcast) turned
// into a fixed-size struct that a kernel takes by value.
#ifndef TENSORWEAVE_CORE_GPU_KERNELS_GPU_BROADCAST_H_
#define TENSORWEAVE_CORE_GPU_KERNELS_GPU_BROADCAST_H_

#include <cstdint>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/kernels/cwise_ops.h"

namespace tensorweave {
namespace gpu {

inline constexpr int kMaxBroadcastRank = 8;

// mode: 0 same shape, 1 x is a scalar, 2 y is a scalar, 3 general strided;
// over two collapsed dims [d0, d1] with one operand full: 4 y is a row
// vector [d1] (the bias pattern), 5 y is a column [d0, 1], 6 and 7 the same
// with x the vector.
struct BroadcastIndex {
  int mode = 0;
  int rank = 0;
  int64_t dims[kMaxBroadcastRank] = {};
  int64_t x_strides[kMaxBroadcastRank] = {};
  int64_t y_strides[kMaxBroadcastRank] = {};
};

inline Status MakeBroadcastIndex(const BroadcastPlan& plan,
                                 BroadcastIndex* index) {
  switch (plan.kind) {
    case BroadcastPlan::kSameShape:
      index->mode = 0;
      return Status::OK();
    case BroadcastPlan::kScalarX:
      index->mode = 1;
      return Status::OK();
    case BroadcastPlan::kScalarY:
      index->mode = 2;
      return Status::OK();
    case BroadcastPlan::kGeneral:
      break;
  }
  if (plan.dims.size() > static_cast<size_t>(kMaxBroadcastRank)) {
    return errors::Unimplemented(
        "GPU broadcasting supports up to ", kMaxBroadcastRank,
        " dimensions after collapsing, got ", plan.dims.size(),
        " for output shape ", plan.output.ToString());
  }
  index->mode = 3;
  index->rank = static_cast<int>(plan.dims.size());
  if (index->rank == 2) {
    const int64_t d1 = plan.dims[1];
    auto is = [](const std::vector<int64_t>& s, int64_t a, int64_t b) {
      return s[0] == a && s[1] == b;
    };
    const bool x_full = is(plan.x_strides, d1, 1);
    const bool y_full = is(plan.y_strides, d1, 1);
    if (x_full && is(plan.y_strides, 0, 1)) index->mode = 4;
    if (x_full && is(plan.y_strides, 1, 0)) index->mode = 5;
    if (y_full && is(plan.x_strides, 0, 1)) index->mode = 6;
    if (y_full && is(plan.x_strides, 1, 0)) index->mode = 7;
  }
  for (int d = 0; d < index->rank; ++d) {
    index->dims[d] = plan.dims[d];
    index->x_strides[d] = plan.x_strides[d];
    index->y_strides[d] = plan.y_strides[d];
  }
  return Status::OK();
}

#ifdef __CUDACC__
// The offsets in x and y of output element i.
__device__ __forceinline__ void BroadcastOffsets(const BroadcastIndex& b,
                                                 int64_t i, int64_t* xi,
                                                 int64_t* yi) {
  switch (b.mode) {
    case 0:
      *xi = i;
      *yi = i;
      return;
    case 1:
      *xi = 0;
      *yi = i;
      return;
    case 2:
      *xi = i;
      *yi = 0;
      return;
    case 4:
      *xi = i;
      *yi = i % b.dims[1];
      return;
    case 5:
      *xi = i;
      *yi = i / b.dims[1];
      return;
    case 6:
      *xi = i % b.dims[1];
      *yi = i;
      return;
    case 7:
      *xi = i / b.dims[1];
      *yi = i;
      return;
    default:
      break;
  }
  int64_t rest = i, xo = 0, yo = 0;
  for (int d = b.rank - 1; d >= 0; --d) {
    const int64_t size = b.dims[d];
    const int64_t idx = rest % size;
    rest /= size;
    xo += idx * b.x_strides[d];
    yo += idx * b.y_strides[d];
  }
  *xi = xo;
  *yi = yo;
}
#endif

}  // namespace gpu
}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_GPU_KERNELS_GPU_BROADCAST_H_

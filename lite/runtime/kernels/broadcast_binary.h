// A kernel skeleton for elementwise binary ops with numpy broadcasting whose
// output type may differ from the operands' (comparisons write bool): the
// plan is made in Prepare; eval walks the output in rows whose operands
// advance by stride 0 or 1, split across threads when large.
#ifndef TENSORWEAVE_LITE_RUNTIME_KERNELS_BROADCAST_BINARY_H_
#define TENSORWEAVE_LITE_RUNTIME_KERNELS_BROADCAST_BINARY_H_

#include <algorithm>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/thread_pool.h"

namespace twl {

// (binary_kernel.h's BroadcastPlan is the same-type planner of the arithmetic
// ops; the two could be one.)
struct BroadcastWalk {
  Shape shape;  // the output's, rank >= 1 (equal shapes flattened to one dim)
  int64_t stride_a[kMaxDims], stride_b[kMaxDims];

  Status Make(const Shape& a, const Shape& b, Shape* out) {
    TWL_RETURN_IF_ERROR(BroadcastShapes(a, b, out));
    shape = *out;
    if (a == b || shape.rank == 0) {
      shape.rank = 1;
      shape.dims[0] = static_cast<int32_t>(out->NumElements());
      stride_a[0] = stride_b[0] = 1;
      return Status::Ok();
    }
    BroadcastStrides(a, shape, stride_a);
    BroadcastStrides(b, shape, stride_b);
    return Status::Ok();
  }
};

// out[i] = f(a[ia], b[ib]) over the broadcast output.
template <typename T, typename Out, typename F>
void BroadcastApply(const BroadcastWalk& p, const T* a, const T* b, Out* out,
                    ThreadPool* pool, F f) {
  const Shape& s = p.shape;
  const int r = s.rank;
  const int64_t inner = s.dims[r - 1];
  const int64_t sa = p.stride_a[r - 1], sb = p.stride_b[r - 1];
  pool->ParallelFor(
      s.NumElements(), 16384, pool->num_threads(),
      [&](int64_t begin, int64_t end) {
        int64_t index[kMaxDims];
        for (int64_t k = r - 1, rest = begin; k >= 0; --k) {
          index[k] = rest % s.dims[k];
          rest /= s.dims[k];
        }
        for (int64_t i = begin; i < end;) {
          int64_t ia = 0, ib = 0;
          for (int k = 0; k < r; ++k) {
            ia += index[k] * p.stride_a[k];
            ib += index[k] * p.stride_b[k];
          }
          const int64_t len = std::min(inner - index[r - 1], end - i);
          for (int64_t j = 0; j < len; ++j) {
            out[i + j] = f(a[ia + j * sa], b[ib + j * sb]);
          }
          i += len;
          index[r - 1] = 0;
          for (int k = r - 2; k >= 0 && ++index[k] == s.dims[k]; --k) {
            index[k] = 0;
          }
        }
      });
}

}  // namespace twl

#endif  // TENSORWEAVE_LITE_RUNTIME_KERNELS_BROADCAST_BINARY_H_

#include "lite/runtime/kernels/binary_kernel.h"

#include "lite/runtime/thread_pool.h"

namespace twl {
namespace {

// Element i of an array of `size`-byte elements.
const void* At(const void* p, int64_t i, size_t size) {
  return static_cast<const char*>(p) + i * static_cast<int64_t>(size);
}
void* At(void* p, int64_t i, size_t size) {
  return static_cast<char*>(p) + i * static_cast<int64_t>(size);
}

void Reference(const BroadcastPlan& d, const void* a, const void* b, void* out,
               const BinaryRunOf& r) {
  const int64_t n = d.out_shape.NumElements();
  const int rank = d.out_shape.rank;
  int64_t index[kMaxDims] = {};
  for (int64_t i = 0; i < n; ++i) {
    int64_t ia = 0, ib = 0;
    for (int k = 0; k < rank; ++k) {
      ia += index[k] * d.stride_a[k];
      ib += index[k] * d.stride_b[k];
    }
    r.run(At(a, ia, r.a_size), 0, At(b, ib, r.b_size), 0,
          At(out, i, r.out_size), 1);
    for (int k = rank - 1; k >= 0 && ++index[k] == d.out_shape.dims[k]; --k) {
      index[k] = 0;
    }
  }
}

void Optimized(const BroadcastPlan& d, const void* a, const void* b, void* out,
               const BinaryRunOf& r, ThreadPool* pool) {
  const int64_t n = d.out_shape.NumElements();
  if (d.same_shape) {
    pool->ParallelFor(n, 16384, pool->num_threads(), [&](int64_t s, int64_t e) {
      r.run(At(a, s, r.a_size), 1, At(b, s, r.b_size), 1,
            At(out, s, r.out_size), e - s);
    });
    return;
  }
  const int rank = d.out_shape.rank;
  const int64_t inner = rank > 0 ? d.out_shape.dims[rank - 1] : 1;
  if (inner == 0 || n == 0) return;
  const int64_t sa = rank > 0 ? d.stride_a[rank - 1] : 0;
  const int64_t sb = rank > 0 ? d.stride_b[rank - 1] : 0;
  int64_t index[kMaxDims] = {};
  for (int64_t row = 0; row < n / inner; ++row) {
    int64_t ia = 0, ib = 0;
    for (int k = 0; k < rank - 1; ++k) {
      ia += index[k] * d.stride_a[k];
      ib += index[k] * d.stride_b[k];
    }
    r.run(At(a, ia, r.a_size), sa, At(b, ib, r.b_size), sb,
          At(out, row * inner, r.out_size), inner);
    for (int k = rank - 2; k >= 0 && ++index[k] == d.out_shape.dims[k]; --k) {
      index[k] = 0;
    }
  }
}

}  // namespace

Status BroadcastPlan::Plan(const Shape& a, const Shape& b) {
  TWL_RETURN_IF_ERROR(BroadcastShapes(a, b, &out_shape));
  BroadcastStrides(a, out_shape, stride_a);
  BroadcastStrides(b, out_shape, stride_b);
  same_shape = a == b;
  return Status::Ok();
}

void RunBroadcast(KernelContext* context, const BroadcastPlan& plan,
                  const void* a, const void* b, void* out,
                  const BinaryRunOf& run) {
  if (context->use_reference()) {
    Reference(plan, a, b, out, run);
  } else {
    Optimized(plan, a, b, out, run, context->thread_pool());
  }
}

}  // namespace twl

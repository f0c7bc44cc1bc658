// Elementwise binary ops with numpy broadcasting: the broadcast is planned
// in prepare (BroadcastPlan) and walked by one shared driver
// (RunBroadcast), which calls the op's typed contiguous run (BinaryRun)
// through a function pointer: the per-op, per-type code is one small loop.
//
// Reference path: one index computation and one single-element run per
// element. Optimized path: equal shapes are flattened and split across
// threads when large; else the innermost dimension runs as one call (stride
// 0 or 1 per side), a loop the compiler vectorizes.
#ifndef TENSORWEAVE_LITE_RUNTIME_KERNELS_BINARY_KERNEL_H_
#define TENSORWEAVE_LITE_RUNTIME_KERNELS_BINARY_KERNEL_H_

#include <cstdint>
#include <new>
#include <type_traits>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {

struct BroadcastPlan {
  Shape out_shape;
  int64_t stride_a[kMaxDims], stride_b[kMaxDims];
  bool same_shape;

  Status Plan(const Shape& a, const Shape& b);
};

// out[i] = f(a[i * sa], b[i * sb]) for i in [0, n); sa, sb are 0 or 1.
using BinaryRunFn = void (*)(const void* a, int64_t sa, const void* b,
                             int64_t sb, void* out, int64_t n);

// The run of functor F (stateless) on element types A, B -> O. With
// kVectorize, one loop per stride pair (what the compiler vectorizes);
// without, one strided loop (less code: for rare types and for ops that do
// not vectorize).
template <bool kVectorize, typename A, typename B, typename O, typename F>
void BinaryRun(const void* va, int64_t sa, const void* vb, int64_t sb,
               void* vout, int64_t n) {
  const A* a = static_cast<const A*>(va);
  const B* b = static_cast<const B*>(vb);
  O* out = static_cast<O*>(vout);
  const F f{};
  if constexpr (kVectorize) {
    if (sa == 1 && sb == 1) {
      for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
    } else if (sa == 1) {
      const B bv = b[0];
      for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], bv);
    } else if (sb == 1) {
      const A av = a[0];
      for (int64_t i = 0; i < n; ++i) out[i] = f(av, b[i]);
    } else {
      const O v = f(a[0], b[0]);
      for (int64_t i = 0; i < n; ++i) out[i] = v;
    }
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = f(a[i * sa], b[i * sb]);
  }
}

// Element sizes of a, b and out, and the run.
struct BinaryRunOf {
  size_t a_size, b_size, out_size;
  BinaryRunFn run;
};
template <bool kVectorize, typename A, typename B, typename O, typename F>
BinaryRunOf MakeBinaryRun() {
  return {sizeof(A), sizeof(B), sizeof(O), BinaryRun<kVectorize, A, B, O, F>};
}

// Runs `run` over the broadcast of a and b into out.
void RunBroadcast(KernelContext* context, const BroadcastPlan& plan,
                  const void* a, const void* b, void* out,
                  const BinaryRunOf& run);

// kInvalidArgument naming the op if integer divisor b holds a zero.
template <typename T>
Status CheckNoZeroDivisor(const Tensor* b, const char* op) {
  if constexpr (std::is_integral<T>::value) {
    const T* v = b->data_as<T>();
    const int64_t n = b->num_elements();
    for (int64_t i = 0; i < n; ++i) {
      if (v[i] == 0) {
        return Status::Error(StatusCode::kInvalidArgument,
                             "%s: integer division by zero", op);
      }
    }
  }
  return Status::Ok();
}

}  // namespace twl

#endif  // TENSORWEAVE_LITE_RUNTIME_KERNELS_BINARY_KERNEL_H_

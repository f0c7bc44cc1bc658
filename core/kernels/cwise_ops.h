// Element-wise kernels: a broadcasting plan for binary ops and helpers that
// apply a functor over it, in parallel for large tensors. Each op is one
// functor; the machinery is shared.
#ifndef TENSORWEAVE_CORE_KERNELS_CWISE_OPS_H_
#define TENSORWEAVE_CORE_KERNELS_CWISE_OPS_H_

#include <vector>

#include "core/framework/op_kernel.h"
#include "core/platform/thread_pool.h"

namespace tensorweave {

// How two shapes broadcast: the output shape, and the operands' shapes
// collapsed to the fewest dims with per-dim strides (0 where broadcast).
struct BroadcastPlan {
  enum Kind { kSameShape, kScalarX, kScalarY, kGeneral };
  Kind kind = kGeneral;
  TensorShape output;
  std::vector<int64_t> dims;       // collapsed output dims
  std::vector<int64_t> x_strides;  // in elements, per collapsed dim
  std::vector<int64_t> y_strides;
};

Status MakeBroadcastPlan(const TensorShape& x, const TensorShape& y,
                         BroadcastPlan* plan);

// Work below this many elements runs on one thread.
inline constexpr int64_t kParallelElementThreshold = 32768;

// Calls fn(begin, end) over [0, n), in parallel when n is large. A
// template, so that the common small case calls fn directly (a
// std::function of a lambda with several captures is a heap allocation).
template <typename F>
inline void ForRange(OpKernelContext* ctx, int64_t n, const F& fn) {
  if (n < kParallelElementThreshold || ctx->intra_op_pool() == nullptr) {
    fn(int64_t{0}, n);
  } else {
    ctx->intra_op_pool()->ParallelFor(
        n, kParallelElementThreshold / 4,
        std::function<void(int64_t, int64_t)>(std::cref(fn)));
  }
}

// out[i] = f(x[i'], y[i'']) under the plan.
template <typename T, typename Out, typename F>
void ApplyBinary(OpKernelContext* ctx, const BroadcastPlan& plan, const T* x,
                 const T* y, Out* out, F f) {
  const int64_t n = plan.output.num_elements();
  switch (plan.kind) {
    case BroadcastPlan::kSameShape:
      ForRange(ctx, n, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) out[i] = f(x[i], y[i]);
      });
      return;
    case BroadcastPlan::kScalarX:
      ForRange(ctx, n, [&](int64_t b, int64_t e) {
        const T xv = x[0];
        for (int64_t i = b; i < e; ++i) out[i] = f(xv, y[i]);
      });
      return;
    case BroadcastPlan::kScalarY:
      ForRange(ctx, n, [&](int64_t b, int64_t e) {
        const T yv = y[0];
        for (int64_t i = b; i < e; ++i) out[i] = f(x[i], yv);
      });
      return;
    case BroadcastPlan::kGeneral:
      break;
  }
  const int rank = static_cast<int>(plan.dims.size());
  const int64_t inner = plan.dims[rank - 1];
  const int64_t xs = plan.x_strides[rank - 1], ys = plan.y_strides[rank - 1];
  ForRange(ctx, n / inner, [&](int64_t row_begin, int64_t row_end) {
    for (int64_t row = row_begin; row < row_end; ++row) {
      // Offsets of this row's first element in x and y.
      int64_t rest = row, xo = 0, yo = 0;
      for (int d = rank - 2; d >= 0; --d) {
        int64_t idx = rest % plan.dims[d];
        rest /= plan.dims[d];
        xo += idx * plan.x_strides[d];
        yo += idx * plan.y_strides[d];
      }
      Out* o = out + row * inner;
      const T* xp = x + xo;
      const T* yp = y + yo;
      if (xs == 1 && ys == 1) {
        for (int64_t i = 0; i < inner; ++i) o[i] = f(xp[i], yp[i]);
      } else if (xs == 0) {
        for (int64_t i = 0; i < inner; ++i) o[i] = f(xp[0], yp[i * ys]);
      } else {
        for (int64_t i = 0; i < inner; ++i) o[i] = f(xp[i * xs], yp[i * ys]);
      }
    }
  });
}

// Integer division by zero has no value: ops whose functor sets
// kChecksDivisor fail on a zero integer divisor instead of trapping.
template <typename T>
Status CheckNoZeroDivisor(const Tensor& y) {
  const T* p = y.data<T>();
  const int64_t n = y.num_elements();
  bool zero = false;
  for (int64_t i = 0; i < n; ++i) zero |= p[i] == T(0);
  return zero ? errors::InvalidArgument("Integer division by zero")
              : Status::OK();
}

// Integer powers with a negative exponent have no integer value: ops whose
// functor sets kChecksNegativeExponent fail on one (as TensorFlow).
template <typename T>
Status CheckNoNegativeExponent(const Tensor& y) {
  if constexpr (std::is_signed_v<T>) {
    const T* p = y.data<T>();
    const int64_t n = y.num_elements();
    bool negative = false;
    for (int64_t i = 0; i < n; ++i) negative |= p[i] < T(0);
    if (negative) {
      return errors::InvalidArgument(
          "Integers to negative integer powers are not allowed");
    }
  }
  return Status::OK();
}

// A kernel for a binary op whose functor is Functor::Apply<T>(x, y) and
// whose output dtype is Functor::Output<T>.
template <typename Functor, typename... Types>
class BinaryOp : public OpKernel {
 public:
  explicit BinaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    BroadcastPlan plan;
    OP_REQUIRES_OK(ctx, MakeBroadcastPlan(x.shape(), y.shape(), &plan));
    OP_REQUIRES_OK(
        ctx, DispatchType<Types...>(x.dtype(), [&](auto tag) {
          using T = decltype(tag);
          using Out = typename Functor::template Output<T>;
          if constexpr (Functor::kChecksDivisor && std::is_integral_v<T>) {
            TW_RETURN_IF_ERROR(CheckNoZeroDivisor<T>(y));
          }
          if constexpr (Functor::kChecksNegativeExponent &&
                        std::is_integral_v<T>) {
            TW_RETURN_IF_ERROR(CheckNoNegativeExponent<T>(y));
          }
          // Work in place in whichever operand has the output's
          // size (safe: each element is read before written).
          const int forward =
              x.num_elements() == plan.output.num_elements() ? 0 : 1;
          Tensor* out;
          TW_RETURN_IF_ERROR(ctx->forward_input_or_allocate_output(
              forward, 0, plan.output, &out));
          if constexpr (kIsReducedFloat<T>) {
            // Computed in float, rounded per element (as Eigen::half and
            // Eigen::bfloat16).
            ApplyBinary<T, Out>(
                ctx, plan, x.data<T>(), y.data<T>(), out->data<Out>(),
                [](T a, T b) {
                  return static_cast<Out>(
                      Functor::template Apply<float>(ToFloat(a), ToFloat(b)));
                });
          } else {
            ApplyBinary<T, Out>(
                ctx, plan, x.data<T>(), y.data<T>(), out->data<Out>(),
                [](T a, T b) { return Functor::template Apply<T>(a, b); });
          }
          return Status::OK();
        }));
  }
};

// out[i] = Functor::Apply<T>(x[i]).
template <typename Functor, typename... Types>
class UnaryOp : public OpKernel {
 public:
  explicit UnaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output(0, 0, x.shape(), &out));
    OP_REQUIRES_OK(ctx, DispatchType<Types...>(x.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     using Out = typename Functor::template Output<T>;
                     const T* in = x.data<T>();
                     Out* o = out->data<Out>();
                     ForRange(ctx, x.num_elements(), [&](int64_t b, int64_t e) {
                       for (int64_t i = b; i < e; ++i) {
                         if constexpr (kIsReducedFloat<T>) {
                           // In float, rounded per element.
                           o[i] = static_cast<Out>(
                               Functor::template Apply<float>(ToFloat(in[i])));
                         } else {
                           o[i] = Functor::template Apply<T>(in[i]);
                         }
                       }
                     });
                     return Status::OK();
                   }));
  }
};

// Functors whose output type is the input type.
struct SameTypeFunctor {
  template <typename T>
  using Output = T;
  static constexpr bool kChecksDivisor = false;
  static constexpr bool kChecksNegativeExponent = false;
};

// Functors whose output is bool (comparisons).
struct BoolOutFunctor {
  template <typename T>
  using Output = bool;
  static constexpr bool kChecksDivisor = false;
  static constexpr bool kChecksNegativeExponent = false;
};

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_KERNELS_CWISE_OPS_H_

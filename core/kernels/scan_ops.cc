// Cumsum, Cumprod and CumulativeLogsumexp: scans along one axis, optionally
// exclusive (each element left out of its own result) and reversed.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/kernels/cwise_ops.h"
#include "core/kernels/offset_tables.h"
#include "core/kernels/wrapping_arithmetic.h"

namespace tensorweave {
namespace {

struct SumScan {
  template <typename T>
  static T Identity() {
    return T(0);
  }
  template <typename T>
  static T Combine(T acc, T x) {
    // Integers wrap, as TF's kernels do (signed overflow is undefined).
    if constexpr (kWrapsAround<T>) return WrappingAdd(acc, x);
    return static_cast<T>(acc + x);
  }
};

struct ProdScan {
  template <typename T>
  static T Identity() {
    return T(1);
  }
  template <typename T>
  static T Combine(T acc, T x) {
    if constexpr (kWrapsAround<T>) return WrappingMul(acc, x);
    return static_cast<T>(acc * x);
  }
};

// log(exp(acc) + exp(x)) without overflow; the empty sum is -inf.
struct LogSumExpScan {
  template <typename T>
  static T Identity() {
    return T(-std::numeric_limits<float>::infinity());
  }
  template <typename T>
  static T Combine(T acc, T x) {
    using F = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const F a = static_cast<F>(acc), b = static_cast<F>(x);
    const F hi = std::max(a, b), lo = std::min(a, b);
    if (std::isinf(hi) && hi < 0) return T(hi);  // both -inf
    if (std::isnan(a) || std::isnan(b)) return T(a + b);
    return T(hi + std::log1p(std::exp(lo - hi)));
  }
};

template <typename Scan, typename... Types>
class ScanOp : public OpKernel {
 public:
  explicit ScanOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("exclusive", &exclusive_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("reverse", &reverse_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& axis_tensor = ctx->input(1);
    OP_REQUIRES(ctx, axis_tensor.rank() == 0,
                errors::InvalidArgument("ScanOp: axis must be a scalar, not ",
                                        axis_tensor.shape().ToString()));
    std::vector<int64_t> axis_value;
    OP_REQUIRES_OK(ctx, ReadIndexVector(axis_tensor, &axis_value));
    const int rank = x.rank();
    int64_t axis = axis_value[0];
    OP_REQUIRES(
        ctx, axis >= -rank && axis < rank,
        errors::InvalidArgument("ScanOp: Expected scan axis in the "
                                "range [",
                                -rank, ", ", rank, "), but got ", axis));
    if (axis < 0) axis += rank;
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    if (x.num_elements() == 0) return;
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= x.dim(d);
    for (int d = axis + 1; d < rank; ++d) inner *= x.dim(d);
    const int64_t n = rank == 0 ? 1 : x.dim(axis);
    OP_REQUIRES_OK(ctx, DispatchType<Types...>(x.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     Run<T>(ctx, x.data<T>(), out->data<T>(), outer, n, inner);
                     return Status::OK();
                   }));
  }

 private:
  // x is [outer, n, inner]; the scan runs along n, `inner` lanes at once.
  template <typename T>
  void Run(OpKernelContext* ctx, const T* x, T* out, int64_t outer, int64_t n,
           int64_t inner) const {
    ForRows(ctx, outer, n * inner, [&](int64_t begin, int64_t end) {
      std::vector<T> acc(inner);
      for (int64_t o = begin; o < end; ++o) {
        std::fill(acc.begin(), acc.end(), Scan::template Identity<T>());
        const int64_t base = o * n * inner;
        for (int64_t k = 0; k < n; ++k) {
          const int64_t row = base + (reverse_ ? n - 1 - k : k) * inner;
          for (int64_t i = 0; i < inner; ++i) {
            const T v = x[row + i];
            if (exclusive_) {
              out[row + i] = acc[i];
              acc[i] = Scan::Combine(acc[i], v);
            } else {
              acc[i] = Scan::Combine(acc[i], v);
              out[row + i] = acc[i];
            }
          }
        }
      }
    });
  }

  bool exclusive_ = false;
  bool reverse_ = false;
};

REGISTER_KERNEL(KernelDef("Cumsum"),
                ScanOp<SumScan, TW_ALL_NUMBER_TYPES, TW_COMPLEX_TYPES>);
REGISTER_KERNEL(KernelDef("Cumprod"),
                ScanOp<ProdScan, TW_ALL_NUMBER_TYPES, TW_COMPLEX_TYPES>);
REGISTER_KERNEL(KernelDef("CumulativeLogsumexp"),
                ScanOp<LogSumExpScan, TW_ALL_FLOAT_TYPES>);

}  // namespace
}  // namespace tensorweave

// ArgMax / ArgMin along one axis: the first index of the extreme value.
#include <algorithm>

#include "core/framework/shape_inference.h"
#include "core/kernels/array_op_shapes.h"
#include "core/kernels/cwise_ops.h"

namespace tensorweave {
namespace {

template <bool kMax>
class ArgOp : public OpKernel {
 public:
  explicit ArgOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    int axis;
    TensorShape out_shape;
    int64_t outer, n, inner;
    OP_REQUIRES_OK(
        ctx, ArgReductionArgs(*ctx, &axis, &out_shape, &outer, &n, &inner));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_ALL_NUMBER_TYPES>(input.dtype(), [&](auto tag) {
          using T = decltype(tag);
          return DispatchType<int32_t, int64_t>(
              out->dtype(), [&](auto index_tag) {
                using Index = decltype(index_tag);
                Run<T, Index>(ctx, input.data<T>(), outer, n, inner,
                              out->data<Index>());
                return Status::OK();
              });
        }));
  }

 private:
  template <typename T>
  static bool Better(T candidate, T best) {
    return kMax ? candidate > best : candidate < best;
  }

  template <typename T, typename Index>
  static void Run(OpKernelContext* ctx, const T* x, int64_t outer, int64_t n,
                  int64_t inner, Index* out) {
    ForRange(ctx, outer * inner, [&](int64_t b, int64_t e) {
      if (inner == 1) {
        for (int64_t o = b; o < e; ++o) {
          const T* row = x + o * n;
          int64_t best = 0;
          for (int64_t i = 1; i < n; ++i) {
            if (Better(row[i], row[best])) best = i;
          }
          out[o] = static_cast<Index>(best);
        }
        return;
      }
      // Strided along the axis: walk each output position's column.
      for (int64_t u = b; u < e; ++u) {
        const int64_t o = u / inner, j = u % inner;
        const T* col = x + o * n * inner + j;
        int64_t best = 0;
        for (int64_t i = 1; i < n; ++i) {
          if (Better(col[i * inner], col[best * inner])) best = i;
        }
        out[u] = static_cast<Index>(best);
      }
    });
  }
};

REGISTER_KERNEL(KernelDef("ArgMax"), ArgOp<true>);
REGISTER_KERNEL(KernelDef("ArgMin"), ArgOp<false>);

}  // namespace
}  // namespace tensorweave

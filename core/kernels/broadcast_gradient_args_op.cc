// BroadcastGradientArgs: the axes each operand's gradient must be summed
// over after a broadcasting binary op.
#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

class BroadcastGradientArgsOp : public OpKernel {
 public:
  explicit BroadcastGradientArgsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& s0 = ctx->input(0);
    const Tensor& s1 = ctx->input(1);
    OP_REQUIRES(ctx, s0.rank() == 1 && s1.rank() == 1,
                errors::InvalidArgument(
                    "BroadcastGradientArgs needs two shape vectors, got ",
                    s0.shape().ToString(), " and ", s1.shape().ToString()));
    std::vector<int64_t> a, b;
    OP_REQUIRES_OK(ctx, ReadIndexVector(s0, &a));
    OP_REQUIRES_OK(ctx, ReadIndexVector(s1, &b));
    const int64_t rank = std::max(a.size(), b.size());
    std::vector<int64_t> r0, r1;
    for (int64_t i = 0; i < rank; ++i) {
      const int64_t ia = i - (rank - static_cast<int64_t>(a.size()));
      const int64_t ib = i - (rank - static_cast<int64_t>(b.size()));
      const int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
      OP_REQUIRES(
          ctx, da == db || da == 1 || db == 1,
          errors::InvalidArgument("Incompatible shapes: ", s0.DebugString(),
                                  " vs. ", s1.DebugString()));
      // A dim of size 1 in both is summed over in both (harmless).
      if (da == 1) r0.push_back(i);
      if (db == 1) r1.push_back(i);
    }
    OP_REQUIRES_OK(
        ctx, DispatchType<int32_t, int64_t>(s0.dtype(), [&](auto tag) {
          using T = decltype(tag);
          const std::vector<int64_t>* lists[2] = {&r0, &r1};
          for (int k = 0; k < 2; ++k) {
            Tensor* out;
            TW_RETURN_IF_ERROR(ctx->allocate_output(
                k, TensorShape({static_cast<int64_t>(lists[k]->size())}),
                &out));
            for (size_t i = 0; i < lists[k]->size(); ++i) {
              out->data<T>()[i] = static_cast<T>((*lists[k])[i]);
            }
          }
          return Status::OK();
        }));
  }
};

REGISTER_KERNEL(KernelDef("BroadcastGradientArgs"), BroadcastGradientArgsOp);

// GPU: int32 shape arithmetic stays in host memory (TensorFlow's GPU kernels
// of these ops keep int32 on the host); the CPU kernel runs there.
REGISTER_KERNEL(KernelDef("BroadcastGradientArgs")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32, DT_INT64})
                    .AllHostMemory(),
                BroadcastGradientArgsOp);

}  // namespace
}  // namespace tensorweave

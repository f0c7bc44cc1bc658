// Identity and NoOp kernels.
#include "core/framework/op_kernel.h"

namespace tensorweave {
namespace {

class IdentityOp : public OpKernel {
 public:
  explicit IdentityOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0));
  }
};

class NoOp : public OpKernel {
 public:
  explicit NoOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {}
};

REGISTER_KERNEL(KernelDef("Identity"), IdentityOp);
REGISTER_KERNEL(KernelDef("PlaceholderWithDefault"), IdentityOp);
REGISTER_KERNEL(KernelDef("NoOp"), NoOp);

// GPU: int32 shape arithmetic stays in host memory (TensorFlow's GPU kernels
// of these ops keep int32 on the host); the CPU kernel runs there.
REGISTER_KERNEL(KernelDef("Identity")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                IdentityOp);
// Other dtypes, and NoOp: the same kernels pass the device tensor on.
REGISTER_KERNEL(KernelDef("Identity")
                    .Device("GPU")
                    .TypeConstraint("T",
                                    {DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL}),
                IdentityOp);
REGISTER_KERNEL(KernelDef("PlaceholderWithDefault")
                    .Device("GPU")
                    .TypeConstraint("dtype",
                                    {DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL}),
                IdentityOp);
REGISTER_KERNEL(KernelDef("NoOp").Device("GPU"), NoOp);

}  // namespace
}  // namespace tensorweave

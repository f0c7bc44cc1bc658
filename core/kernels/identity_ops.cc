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

// Its input, which must have the shape attr's shape: the shapes inferred
// downstream were built on it (a default computed at run time may not).
class PlaceholderWithDefaultOp : public OpKernel {
 public:
  explicit PlaceholderWithDefaultOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("shape", &shape_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    OP_REQUIRES(ctx, shape_.IsCompatibleWith(PartialShape(value.shape())),
                errors::InvalidArgument(
                    "the default value's shape ", value.shape().ToString(),
                    " does not match the shape attr ", shape_.ToString()));
    ctx->set_output(0, value);
  }

 private:
  PartialShape shape_;
};

class NoOp : public OpKernel {
 public:
  explicit NoOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {}
};

REGISTER_KERNEL(KernelDef("Identity"), IdentityOp);
REGISTER_KERNEL(KernelDef("PlaceholderWithDefault"), PlaceholderWithDefaultOp);
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
                PlaceholderWithDefaultOp);
REGISTER_KERNEL(KernelDef("NoOp").Device("GPU"), NoOp);

}  // namespace
}  // namespace tensorweave

// Timestamp and GuaranteeConst kernels (host).
#include <chrono>

#include "core/framework/op_kernel.h"

namespace tensorweave {
namespace {

class TimestampOp : public OpKernel {
 public:
  explicit TimestampOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    const int64_t micros =
        std::chrono::duration_cast<std::chrono::microseconds>(now).count();
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    out->data<double>()[0] = static_cast<double>(micros) / 1e6;
  }
};

class GuaranteeConstOp : public OpKernel {
 public:
  explicit GuaranteeConstOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0));
  }
};

REGISTER_KERNEL(KernelDef("Timestamp"), TimestampOp);
REGISTER_KERNEL(KernelDef("GuaranteeConst"), GuaranteeConstOp);

}  // namespace
}  // namespace tensorweave

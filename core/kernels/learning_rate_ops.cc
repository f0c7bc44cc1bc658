// Learning-rate schedule kernels: ExponentialDecay and PiecewiseConstant.
#include <cmath>

#include "core/framework/op_kernel.h"

namespace tensorweave {
namespace {

class ExponentialDecayOp : public OpKernel {
 public:
  explicit ExponentialDecayOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("staircase", &staircase_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& step = ctx->input(1);
    double step_value = 0;
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_REAL_TYPES>(step.dtype(), [&](auto tag) {
          step_value = static_cast<double>(step.data<decltype(tag)>()[0]);
          return Status::OK();
        }));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    OP_REQUIRES_OK(ctx,
                   DispatchType<TW_FLOAT_TYPES>(out->dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     const T lr = ctx->input(0).data<T>()[0];
                     const T decay_steps = ctx->input(2).data<T>()[0];
                     const T decay_rate = ctx->input(3).data<T>()[0];
                     if (!(decay_steps > T(0))) {
                       return errors::InvalidArgument(
                           "decay_steps must be positive, got ", decay_steps);
                     }
                     T p = static_cast<T>(step_value) / decay_steps;
                     if (staircase_) p = std::floor(p);
                     out->data<T>()[0] = lr * std::pow(decay_rate, p);
                     return Status::OK();
                   }));
  }

 private:
  bool staircase_ = false;
};

class PiecewiseConstantOp : public OpKernel {
 public:
  explicit PiecewiseConstantOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& boundaries = ctx->input(1);
    const Tensor& values = ctx->input(2);
    OP_REQUIRES(ctx,
                x.rank() == 0 && boundaries.rank() == 1 && values.rank() == 1 &&
                    values.num_elements() == boundaries.num_elements() + 1,
                errors::InvalidArgument(
                    "PiecewiseConstant needs a scalar x, n boundaries and n+1 "
                    "values; got x ",
                    x.shape().ToString(), ", boundaries ",
                    boundaries.shape().ToString(), ", values ",
                    values.shape().ToString()));
    int64_t index = 0;
    OP_REQUIRES_OK(ctx, DispatchType<TW_REAL_TYPES>(x.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     const T* b = boundaries.data<T>();
                     const T xv = x.data<T>()[0];
                     for (int64_t i = 0; i < boundaries.num_elements(); ++i) {
                       if (i > 0 && b[i] < b[i - 1]) {
                         return errors::InvalidArgument(
                             "boundaries must be increasing, but boundaries[",
                             i, "] = ", b[i], " < boundaries[", i - 1,
                             "] = ", b[i - 1]);
                       }
                       if (xv > b[i]) index = i + 1;
                     }
                     return Status::OK();
                   }));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    OP_REQUIRES_OK(ctx,
                   DispatchType<TW_REAL_TYPES>(values.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     out->data<T>()[0] = values.data<T>()[index];
                     return Status::OK();
                   }));
  }
};

REGISTER_KERNEL(KernelDef("ExponentialDecay"), ExponentialDecayOp);
REGISTER_KERNEL(KernelDef("PiecewiseConstant"), PiecewiseConstantOp);

}  // namespace
}  // namespace tensorweave

// Const, Placeholder and Fill kernels.
#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
#include "core/kernels/offset_tables.h"

namespace tensorweave {
namespace {

class ConstOp : public OpKernel {
 public:
  explicit ConstOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    value_ = *ctx->node().constant_value();
  }
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, value_); }

 private:
  Tensor value_;
};

// Runs only when nothing was fed for it, which is the user's error.
class PlaceholderOp : public OpKernel {
 public:
  explicit PlaceholderOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    PartialShape shape;
    GetAttr(node().attrs(), "shape", &shape);
    ctx->SetStatus(errors::InvalidArgument(
        "You must feed a value for placeholder tensor '", name(),
        "' with dtype ", DataTypeName(node().output_type(0)), " and shape ",
        shape.ToString()));
  }
};

class FillOp : public OpKernel {
 public:
  explicit FillOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    std::vector<int64_t> dims;
    OP_REQUIRES_OK(ctx, ReadIndexVector(ctx->input(0), &dims));
    const Tensor& value = ctx->input(1);
    OP_REQUIRES(ctx, value.rank() == 0,
                errors::InvalidArgument("value must be a scalar, got shape ",
                                        value.shape().ToString()));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, TensorShape::Build(dims, &shape));
    // As TF: a shape whose dimensions multiply past int64 is refused even
    // when another dimension is 0 (no client could hold it: numpy refuses).
    int64_t product = 1;
    for (int64_t d : dims) {
      OP_REQUIRES(ctx, d == 0 || !__builtin_mul_overflow(product, d, &product),
                  errors::InvalidArgument("Shape ", shape.ToString(),
                                          " would have more than 2**63 - 1 "
                                          "elements"));
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    OP_REQUIRES_OK(ctx,
                   DispatchType<TW_ARRAY_TYPES>(value.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     T v = value.data<T>()[0];
                     T* o = out->data<T>();
                     for (int64_t i = 0; i < out->num_elements(); ++i) {
                       o[i] = v;
                     }
                     return Status::OK();
                   }));
  }
};

REGISTER_KERNEL(KernelDef("Const"), ConstOp);
REGISTER_KERNEL(KernelDef("Placeholder"), PlaceholderOp);
REGISTER_KERNEL(KernelDef("Fill"), FillOp);

// GPU: int32 shape arithmetic stays in host memory (TensorFlow's GPU kernels
// of these ops keep int32 on the host); the CPU kernel runs there.
REGISTER_KERNEL(KernelDef("Fill")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                FillOp);
REGISTER_KERNEL(KernelDef("Const")
                    .Device("GPU")
                    .TypeConstraint("dtype", {DT_INT32})
                    .AllHostMemory(),
                ConstOp);

}  // namespace
}  // namespace tensorweave

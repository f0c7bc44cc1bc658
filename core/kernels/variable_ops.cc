// Variable kernels: VariableV2 hands out its session's Var; Assign,
// AssignAdd and AssignSub update it under its lock, in place when no
// reader shares the buffer and copy-on-write otherwise.
#include <mutex>

#include "core/framework/op_kernel.h"
#include "core/kernels/cwise_ops.h"
#include "core/kernels/wrapping_arithmetic.h"

namespace tensorweave {
namespace {

class VariableOp : public OpKernel {
 public:
  explicit VariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("dtype", &dtype_));
    ctx->SetStatus(ctx->GetAttr("shape", &shape_));
    ctx->SetStatus(ctx->GetAttr("container", &container_));
    std::string shared_name;
    ctx->SetStatus(ctx->GetAttr("shared_name", &shared_name));
    var_name_ = shared_name.empty() ? name() : shared_name;
  }
  void Compute(OpKernelContext* ctx) override {
    Var* var;
    OP_REQUIRES_OK(ctx, ctx->resource_mgr()->LookupOrCreateVar(
                            container_, var_name_, dtype_, shape_, &var));
    ctx->set_output_ref(0, var);
  }

 private:
  DataType dtype_;
  PartialShape shape_;
  std::string container_;
  std::string var_name_;
};

class AssignOp : public OpKernel {
 public:
  explicit AssignOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("validate_shape", &validate_shape_));
  }
  void Compute(OpKernelContext* ctx) override {
    Var* var = ctx->input_ref(0);
    const Tensor& value = ctx->input(1);
    {
      std::lock_guard<std::mutex> lock(*var->mu());
      if (validate_shape_) {
        OP_REQUIRES(ctx, var->shape().IsCompatibleWith(value.shape()),
                    errors::InvalidArgument(
                        "Assign requires shapes of both tensors to match. "
                        "lhs shape= ",
                        var->shape().ToString(),
                        " rhs shape= ", value.shape().ToString()));
      }
      Tensor* current = var->tensor();
      if (value.BufferUniquelyOwned()) {
        *current = value;  // nobody else sees this buffer: adopt it
      } else if (current->valid() && current->BufferUniquelyOwned() &&
                 current->shape() == value.shape() &&
                 value.dtype() != DT_STRING) {
        std::memcpy(current->raw_data(), value.raw_data(), value.num_bytes());
      } else {
        *current = value.DeepCopy();
      }
    }
    ctx->set_output_ref(0, var);
  }

 private:
  bool validate_shape_ = true;
};

template <bool kAdd>
class AssignUpdateOp : public OpKernel {
 public:
  explicit AssignUpdateOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    Var* var = ctx->input_ref(0);
    const Tensor& value = ctx->input(1);
    {
      std::lock_guard<std::mutex> lock(*var->mu());
      Tensor* current = var->tensor();
      OP_REQUIRES(ctx, current->valid(),
                  errors::FailedPrecondition(
                      "Attempting to use uninitialized value ", var->name()));
      OP_REQUIRES(
          ctx, current->shape() == value.shape(),
          errors::InvalidArgument("Must have the same shape: the variable is ",
                                  current->shape().ToString(), ", the update ",
                                  value.shape().ToString()));
      // Readers hold snapshots of the current buffer: write a new one then.
      Tensor target = current->BufferUniquelyOwned()
                          ? *current
                          : Tensor(current->dtype(), current->shape());
      OP_REQUIRES_OK(
          ctx, DispatchType<TW_ALL_NUMBER_TYPES>(value.dtype(), [&](auto tag) {
            using T = decltype(tag);
            const T* a = current->data<T>();
            const T* b = value.data<T>();
            T* o = target.data<T>();
            ForRange(ctx, value.num_elements(), [&](int64_t lo, int64_t hi) {
              for (int64_t i = lo; i < hi; ++i) {
                o[i] = kAdd ? WrappingAdd(a[i], b[i]) : WrappingSub(a[i], b[i]);
              }
            });
            return Status::OK();
          }));
      *current = std::move(target);
    }
    ctx->set_output_ref(0, var);
  }
};

class IsVariableInitializedOp : public OpKernel {
 public:
  explicit IsVariableInitializedOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    Var* var = ctx->input_ref(0);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    std::lock_guard<std::mutex> lock(*var->mu());
    out->data<bool>()[0] = var->initialized();
  }
};

REGISTER_KERNEL(KernelDef("VariableV2"), VariableOp);
REGISTER_KERNEL(KernelDef("Assign"), AssignOp);
REGISTER_KERNEL(KernelDef("AssignAdd"), AssignUpdateOp<true>);
REGISTER_KERNEL(KernelDef("AssignSub"), AssignUpdateOp<false>);
REGISTER_KERNEL(KernelDef("IsVariableInitialized"), IsVariableInitializedOp);

// On the GPU, VariableV2 hands out the same Var (Assign there writes its
// tensor in device memory) and IsVariableInitialized writes its flag in host
// memory: the same kernels, for the dtypes the GPU's Assign supports.
#define TW_GPU_VARIABLE_TYPES \
  { DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL }
REGISTER_KERNEL(KernelDef("VariableV2")
                    .Device("GPU")
                    .TypeConstraint("dtype", TW_GPU_VARIABLE_TYPES),
                VariableOp);
REGISTER_KERNEL(KernelDef("IsVariableInitialized")
                    .Device("GPU")
                    .TypeConstraint("dtype", TW_GPU_VARIABLE_TYPES)
                    .HostMemoryOutput(0),
                IsVariableInitializedOp);
#undef TW_GPU_VARIABLE_TYPES

}  // namespace
}  // namespace tensorweave
